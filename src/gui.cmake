# The interactive application: render (OpenGL), app (state, commands), ui (Dear ImGui), gui (main).
include(${PROJECT_SOURCE_DIR}/third_party/imgui_backends.cmake)
include(${PROJECT_SOURCE_DIR}/third_party/embed_files.cmake)

file(GLOB SEPAL_SHADER_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/shaders/*.vert
     ${PROJECT_SOURCE_DIR}/shaders/*.frag)
set(SEPAL_SHADERS_CPP ${PROJECT_BINARY_DIR}/generated/embedded_shaders.cpp)
sepal_embed_text_files(${SEPAL_SHADERS_CPP} ${SEPAL_SHADER_FILES})

# render: OpenGL only (epoxy), no ImGui, no application state.
file(GLOB SEPAL_RENDER_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/render/*.cpp)
add_library(sepal_render STATIC ${SEPAL_RENDER_SOURCES} ${SEPAL_SHADERS_CPP})
target_include_directories(sepal_render PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(sepal_render PUBLIC sepal_core PkgConfig::SEPAL_EPOXY ${SEPAL_STB_LIB})
target_compile_options(sepal_render PRIVATE ${SEPAL_WARNINGS})
# The CPU splats round each product and sum on its own, as the CUDA splats do.
target_compile_options(sepal_render PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>)
if(TARGET sepal_cuda)
    target_link_libraries(sepal_render PUBLIC sepal_cuda)
    target_compile_definitions(sepal_render PUBLIC SEPAL_HAVE_CUDA=1)
endif()

# app: the interactive model (state, commands, scheduler, tasks); no ImGui, no GL.
file(GLOB SEPAL_APP_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/app/*.cpp)
add_library(sepal_app STATIC ${SEPAL_APP_SOURCES})
set_target_properties(sepal_app PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
target_link_libraries(sepal_app PUBLIC sepal_backend)
# The Compare window's statistics, where Eigen and Boost.Math were found.
if(TARGET sepal_stats)
    target_link_libraries(sepal_app PUBLIC sepal_stats)
    target_compile_definitions(sepal_app PRIVATE SEPAL_HAVE_STATS=1)
endif()
target_compile_options(sepal_app PRIVATE ${SEPAL_WARNINGS})

# ui: one Dear ImGui window per file, the canvas and its input; gui: the executable.
file(GLOB SEPAL_UI_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/ui/*.cpp)
file(GLOB SEPAL_GUI_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/gui/*.cpp)
add_executable(sepal ${SEPAL_UI_SOURCES} ${SEPAL_GUI_SOURCES})
# Unity batches, as sepal-cli: Dear ImGui's and the app's headers parsed once a batch, not once a
# file (the windows' helpers have distinct names).
set_target_properties(sepal PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
# OpenGL comes from epoxy alone: GLFW's own GL header would come first in a batch.
target_compile_definitions(sepal PRIVATE GLFW_INCLUDE_NONE)
target_link_libraries(sepal PRIVATE sepal_app sepal_render sepal_imgui)
target_compile_options(sepal PRIVATE ${SEPAL_WARNINGS})
target_compile_definitions(sepal PRIVATE SEPAL_DATA_DIR_DEFAULT="${PROJECT_SOURCE_DIR}/data")
