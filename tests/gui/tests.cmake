# GUI tests: the real application under Xvfb (tests/gui/gui_test.py wraps xvfb-run when there is
# no DISPLAY), driven by action scripts; each checks screenshots, exported files and the state.
find_package(Python3 COMPONENTS Interpreter QUIET)  # Debian's where there is one (tests/CMakeLists.txt)
if(Python3_Interpreter_FOUND)
    foreach(name open_demo train drag_landmark landmarks_add_remove colour_by_marker
                 population_export lasso_target undo_redo exports bad_file session autosave
                 crash_recovery
                 box_select_move cli_agreement counts_agreement gates small_multiples
                 neighbours_kept cpu_splats supervised_layout compare polish bench_frames
                 stray_landmark_fit unicode_names script_errors batch_alignment
                 compare_samples batch_bound)
        add_test(NAME gui.${name}
                 COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gui/gui_test.py ${name})
        set_tests_properties(gui.${name} PROPERTIES LABELS gui SKIP_RETURN_CODE 77 TIMEOUT 600
            ENVIRONMENT
            "${SEPAL_TEST_ENV};SEPAL_GUI_BIN=$<TARGET_FILE:sepal>;SEPAL_CLI=$<TARGET_FILE:sepal-cli>"
            ENVIRONMENT_MODIFICATION ${SEPAL_TEST_PATH})
    endforeach()
else()
    message(STATUS "Sepal: no Python 3, the GUI tests are not registered")
endif()

# The interactive model without a window (app library): sweepers, undo, populations, sessions;
# and the camera's fits (render library, no GL context needed).
add_executable(sepal_app_tests ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_app.cpp
                               ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_gpu_projection.cpp
                               ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_polish.cpp
                               ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_whole_data_training.cpp
                               ${CMAKE_CURRENT_SOURCE_DIR}/gui/test_worker_thread.cpp)
target_link_libraries(sepal_app_tests PRIVATE sepal_app sepal_render GTest::gtest_main)
# tests/ for the helpers shared with the unit tests (the test-only trainer).
target_include_directories(sepal_app_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
gtest_discover_tests(sepal_app_tests PROPERTIES LABELS gui
                     DISCOVERY_TIMEOUT 60)
