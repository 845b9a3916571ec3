#pragma once
// Replayable user actions for tests and benchmarks (--script FILE): one action per line.
//
//   open PATH...            open files (several become samples); add-samples PATH... adds
//   wait N                  let N frames pass          settle  wait until nothing is pending
//   scored                  wait until the picture's quality (Stats, Neighbours kept) is in
//   click X Y [right] [ctrl] [shift]      press and release at canvas pixel (X, Y)
//   drag X1 Y1 X2 Y2 [right] [ctrl] [shift]   press, move over frames, release
//   drag-landmark I DX DY   drag landmark I by (DX, DY) pixels
//   click-landmark I [right] [ctrl]       click on landmark I
//   key NAME [ctrl] [shift] press a key (z, y, delete, f, escape, left, right, up, down)
//   lasso NAME X Y X Y ...  right-drag a lasso through canvas pixels into population NAME
//   populations-from-landmarks K   K populations from the landmarks (Populations window)
//   set KEY VALUE           colour.mode, colour.marker, colour.map, view.size, view.alpha,
//                           embed.k, embed.smooth, training.recipe, training.trainer,
//                           training.landmarks, training.seed, training.supervise (a label
//                           column, populations or none), training.supervisionStrength
//   recipe [cancel]         train the Training window's recipe (or cancel it)
//   train on|off            start or pause refining the landmarks step by step
//   spillover PATH          compensate with the spillover matrix in PATH
//   export csv|fcs|model|session|heatmap PATH [transformed] [used] [per-population]
//   export counts FOLDER    populations.csv and medians.csv, as sepal-cli apply writes them
//   merge-population FROM INTO   merge population FROM into INTO (names with no spaces)
//   export png PATH [W H [landmarks] [graph]]
//   load-session PATH       restore a session        fit   fit the view
//   crashed restore|dismiss answer the offer of the last crashed session (the start dialog)
//   autosave                write the autosave now (with --autosave-dir)
//   panel TITLE open|close  open or close a side-bar section (Open, Data, Training, ...)
//   screenshot PATH         the window as PNG         state print the state as one JSON line
//   quit                    leave (exit status 0)

#include <string>
#include <vector>

namespace sepal::gui {

/// One parsed line: the verb and its arguments.
struct ScriptAction {
    std::string verb;               ///< first word
    std::vector<std::string> args;  ///< the rest
    int line = 0;                   ///< 1-based line in the file
};

/// Reads a script; throws InputError naming the line of a malformed action.
std::vector<ScriptAction> readScript(const std::string& path);

}  // namespace sepal::gui
