#include "gui/window.h"

#include <epoxy/gl.h>
// GLFW after epoxy: epoxy provides the GL declarations.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace sepal::gui {

GLFWwindow* createWindow(const Options& options, void* user, float& contentScale) {
    glfwSetErrorCallback(
        [](int code, const char* text) { std::fprintf(stderr, "glfw: %s (%d)\n", text, code); });
    if (!glfwInit())
        throw std::runtime_error(
            "cannot open a window: no display (set DISPLAY, or run under xvfb-run)");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    if (options.hidden) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    // EGL contexts reach the NVIDIA driver on machines whose X server (Xvfb) has no NVIDIA GLX.
    if (options.egl) glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
    GLFWwindow* window = glfwCreateWindow(options.width, options.height, "Sepal", nullptr, nullptr);
    if (!window)
        throw std::runtime_error(
            "cannot create an OpenGL 3.3 core window; check the graphics driver");
    glfwMakeContextCurrent(window);
    // Benchmarks measure the frame's work, not the display's refresh.
    glfwSwapInterval(options.benchFrames > 0 ? 0 : 1);
    glfwSetWindowUserPointer(window, user);
    glfwSetDropCallback(window, dropCallback);
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(window, &sx, &sy);
    contentScale = std::clamp(std::max(sx, sy), 1.0f, 4.0f);
    return window;
}

void initImGui(GLFWwindow* window, float contentScale) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is fixed; nothing to remember between runs
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 0;
    style.FrameRounding = 3;
    style.GrabRounding = 3;
    style.WindowBorderSize = 0;
    style.ItemSpacing = ImVec2(8, 5);
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.11f, 0.12f, 0.14f, 1.0f);
    style.Colors[ImGuiCol_PlotHistogram] = ImVec4(0.26f, 0.59f, 0.98f, 0.8f);
    style.ScaleAllSizes(contentScale);
    // Beyond Latin-1, the characters of marker and channel names: Greek (TNF-α, IFN-γ, TCRγδ),
    // Latin Extended-A, dashes, super- and subscripts (⁺), letterlike symbols (Alexa Fluor™),
    // arrows and mathematical signs (−, ≥); sepal-cli's pictures draw any character the font
    // has.
    static const ImWchar kRanges[] = {
        0x0020, 0x00FF,  // Basic Latin and Latin-1
        0x0100, 0x017F,  // Latin Extended-A
        0x0370, 0x03FF,  // Greek
        0x2000, 0x209F,  // punctuation, super- and subscripts
        0x2100, 0x214F,  // letterlike symbols
        0x2190, 0x21FF,  // arrows
        0x2200, 0x22FF,  // mathematical operators
        0,
    };
    const char* font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    if (std::filesystem::exists(font))
        io.Fonts->AddFontFromFileTTF(font, 15.0f * contentScale, nullptr, kRanges);
    else
        io.FontGlobalScale = contentScale;
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
}

void injectInput(const InputFrame& in) {
    ImGuiIO& io = ImGui::GetIO();
    // Scripted input owns keyboard and mouse: another window on the same X server taking the
    // focus must not release the keys of this frame (Dear ImGui clears them on focus loss).
    io.AppFocusLost = false;
    io.MousePos = ImVec2(in.x, in.y);
    for (int b = 0; b < 3; ++b) io.MouseDown[b] = in.down[b];
    io.KeyCtrl = in.ctrl;
    io.KeyShift = in.shift;
    io.MouseWheel = in.wheel;
    for (int k : {GLFW_KEY_Z, GLFW_KEY_Y, GLFW_KEY_DELETE, GLFW_KEY_F, GLFW_KEY_ESCAPE,
                  GLFW_KEY_LEFT, GLFW_KEY_RIGHT, GLFW_KEY_UP, GLFW_KEY_DOWN, GLFW_KEY_HOME,
                  GLFW_KEY_O, GLFW_KEY_E, GLFW_KEY_S, GLFW_KEY_L})
        io.KeysDown[k] = (k == in.key);
}

}  // namespace sepal::gui
