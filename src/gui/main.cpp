// sepal: the interactive desktop application.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>

#include "core/common/threads.h"
#include "gui/application.h"
#include "gui/frame_bench.h"
#include "gui/script.h"

namespace {

const char* kUsage =
    "usage: sepal [FILE...] [options]\n"
    "  FILE...              FCS, CSV or TSV files (several become samples); default: the demo "
    "data\n"
    "  --script FILE        replay the actions in FILE, then quit (--script-help lists them)\n"
    "  --screenshot PATH    once the data is projected, save the window as PNG and quit\n"
    "  --bench-frames N     drag a landmark for N frames and print frame-time statistics (JSON)\n"
    "  --bench-train [T]    with --bench-frames: train the landmarks every frame instead of\n"
    "                       dragging one; T: som, batch-som or kmeans (the last two over every\n"
    "                       cell when the GPU keeps them); without T, the Training window's\n"
    "                       trainer\n"
    "  --size WxH           window size in logical pixels (default 1280x800)\n"
    "  --hidden             no visible window (benchmarks on a display-less machine)\n"
    "  --egl                create the OpenGL context through EGL (NVIDIA driver under Xvfb)\n"
    "  --backend NAME       projection backend: auto (default), cpu or cuda\n"
    "  --points NAME        what draws the points: auto (default), cuda-splats, cpu-splats or\n"
    "                       opengl-points (Stats says which and why)\n"
    "  --synthetic N[xD]    open N generated cells (D channels, default 10) instead of a file\n"
    "  --landmarks G        landmarks the k-means recipes train (default: as many as the\n"
    "                       cells call for, as sepal-cli embed's kmeans:auto)\n"
    "  --no-autosave        do not write autosaves\n"
    "  --autosave-dir DIR   the autosave folder (also with --script, which has none otherwise)\n"
    "Environment: SEPAL_DATA_DIR (where demo.fcs is), SEPAL_AUTOSAVE_DIR (autosave folder;\n"
    "default $XDG_STATE_HOME/sepal/autosave or ~/.local/state/sepal/autosave), SEPAL_POINTS\n"
    "(the point drawer, as --points).\n";

std::string defaultAutosaveDir() {
    if (const char* p = std::getenv("SEPAL_AUTOSAVE_DIR")) return p;
    std::filesystem::path base;
    if (const char* x = std::getenv("XDG_STATE_HOME"))
        base = x;
    else if (const char* h = std::getenv("HOME"))
        base = std::filesystem::path(h) / ".local" / "state";
    else
        return "";
    return (base / "sepal" / "autosave").string();
}

std::string demoPath() {
    const char* env = std::getenv("SEPAL_DATA_DIR");
    return (std::filesystem::path(env ? env : SEPAL_DATA_DIR_DEFAULT) / "demo.fcs").string();
}

}  // namespace

int main(int argc, char** argv) {
    sepal::waitPassively(argv);
    sepal::gui::Options options;
    bool autosave = true;
    std::string autosaveDir;
    try {
        for (int i = 1; i < argc; ++i) {
            std::string a = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
                return argv[++i];
            };
            // A whole number, or an error that names the option and what was given.
            auto number = [&](const std::string& text) {
                size_t used = 0;
                int parsed = 0;
                try {
                    parsed = std::stoi(text, &used);
                } catch (const std::exception&) {
                    used = 0;
                }
                if (used == 0 || used != text.size())
                    throw std::invalid_argument(a + " takes a whole number, not '" + text + "'");
                return parsed;
            };
            if (a == "-h" || a == "--help") {
                std::fputs(kUsage, stdout);
                return 0;
            } else if (a == "--script") {
                options.script = value();
            } else if (a == "--screenshot") {
                options.screenshot = value();
            } else if (a == "--bench-frames") {
                options.benchFrames = number(value());
            } else if (a == "--bench-train") {
                options.benchTrain = true;
                // An optional trainer: only these words, so that a file after it stays a file.
                if (i + 1 < argc) {
                    const std::string t = sepal::gui::benchTrainerName(argv[i + 1]);
                    if (!t.empty()) options.benchTrainer = t, ++i;
                }
            } else if (a == "--size") {
                std::string v = value();
                auto x = v.find('x');
                if (x == std::string::npos)
                    throw std::invalid_argument("--size takes WxH, e.g. 1280x800");
                options.width = number(v.substr(0, x));
                options.height = number(v.substr(x + 1));
            } else if (a == "--hidden") {
                options.hidden = true;
            } else if (a == "--egl") {
                options.egl = true;
            } else if (a == "--backend") {
                options.backend = value();
            } else if (a == "--script-help") {
                std::printf("%s", sepal::gui::scriptHelp().c_str());
                return 0;
            } else if (a == "--points") {
                options.points = value();
            } else if (a == "--synthetic") {
                options.files.push_back("synthetic:" + value());
            } else if (a == "--landmarks") {
                options.landmarks = number(value());
                if (options.landmarks < 4)
                    throw std::invalid_argument("--landmarks takes a number of at least 4");
            } else if (a == "--no-autosave") {
                autosave = false;
            } else if (a == "--autosave-dir") {
                autosaveDir = value();
            } else if (a.starts_with("--")) {
                throw std::invalid_argument("unknown option " + a);
            } else {
                options.files.push_back(a);
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sepal: %s\n%s", e.what(), kUsage);
        return 2;
    }
    if (const char* points = std::getenv("SEPAL_POINTS"); points && options.points.empty())
        options.points = points;
    // With neither files nor a script, open the demo data, as a first run should.
    if (options.files.empty() && options.script.empty()) {
        if (std::filesystem::exists(demoPath()))
            options.files.push_back(demoPath());
        else
            options.files.push_back("synthetic:100000");
    }
    // Scripted runs and benchmarks leave the user's autosaves alone unless given a folder.
    if (autosave && !autosaveDir.empty())
        options.autosaveDir = autosaveDir;
    else if (autosave && options.script.empty() && options.benchFrames == 0)
        options.autosaveDir = defaultAutosaveDir();
    try {
        sepal::gui::Application app(options);
        return app.run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sepal: %s\n", e.what());
        return 1;
    }
}
