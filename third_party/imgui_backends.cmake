# Dear ImGui's GLFW and OpenGL3 backends, compiled from the sources Debian's libimgui-dev ships.
# The OpenGL3 backend loads its functions through libepoxy (as the rest of Sepal does) instead of
# its bundled loader, so that one loader owns the context.
find_package(PkgConfig REQUIRED)
pkg_check_modules(SEPAL_GLFW REQUIRED IMPORTED_TARGET glfw3)
pkg_check_modules(SEPAL_EPOXY REQUIRED IMPORTED_TARGET epoxy)
find_library(SEPAL_IMGUI_LIB imgui REQUIRED)
find_path(SEPAL_IMGUI_INCLUDE imgui.h PATH_SUFFIXES imgui REQUIRED)
find_library(SEPAL_STB_LIB stb REQUIRED)

# Beside the headers' prefix: /usr/share/doc/... on Debian, <prefix>/usr/share/doc/... where the
# package was unpacked elsewhere (scripts/gpu-gui-bench.sh).
get_filename_component(SEPAL_IMGUI_PREFIX ${SEPAL_IMGUI_INCLUDE}/../.. ABSOLUTE)
set(SEPAL_IMGUI_BACKEND_DIR ${SEPAL_IMGUI_PREFIX}/share/doc/libimgui-dev/examples/backends
    CACHE PATH "Where libimgui-dev ships the backend sources")
foreach(backend glfw opengl3)
    if(NOT EXISTS ${SEPAL_IMGUI_BACKEND_DIR}/imgui_impl_${backend}.cpp)
        message(FATAL_ERROR "imgui_impl_${backend}.cpp not found in ${SEPAL_IMGUI_BACKEND_DIR}: "
                            "install libimgui-dev (scripts/setup.sh)")
    endif()
endforeach()

add_library(sepal_imgui STATIC ${SEPAL_IMGUI_BACKEND_DIR}/imgui_impl_glfw.cpp
                               ${SEPAL_IMGUI_BACKEND_DIR}/imgui_impl_opengl3.cpp)
target_include_directories(sepal_imgui SYSTEM PUBLIC ${SEPAL_IMGUI_INCLUDE}
                                                     ${SEPAL_IMGUI_INCLUDE}/backends)
target_compile_definitions(sepal_imgui PRIVATE IMGUI_IMPL_OPENGL_LOADER_CUSTOM)
target_compile_options(sepal_imgui PRIVATE -include epoxy/gl.h -w)
target_link_libraries(sepal_imgui PUBLIC ${SEPAL_IMGUI_LIB} PkgConfig::SEPAL_GLFW
                                         PkgConfig::SEPAL_EPOXY ${SEPAL_STB_LIB})
