#pragma once
// The window and Dear ImGui: creating the GLFW window with its OpenGL 3.3 context, styling
// Dear ImGui, and feeding it a script's virtual input.

#include "gui/application.h"

struct GLFWwindow;

namespace sepal::gui {

/// Creates the window (size, visibility, EGL, swap interval from options); `user` becomes its
/// user pointer; contentScale gets the monitor's scale. Throws std::runtime_error with advice.
GLFWwindow* createWindow(const Options& options, void* user, float& contentScale);
/// Files dropped onto the window go to the Application that is its user pointer.
void dropCallback(GLFWwindow* window, int count, const char** paths);
/// Creates Dear ImGui's context for the window: style, font, GLFW and OpenGL3 backends.
void initImGui(GLFWwindow* window, float contentScale);
/// Makes `in` this frame's mouse and keys (scripts drive the real input path with it).
void injectInput(const InputFrame& in);

}  // namespace sepal::gui
