#pragma once
// Small text helpers the readers of user-written tables share.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace sepal {

/// `s` without the leading and trailing characters of `blanks` (by default white space).
std::string trimmed(const std::string& s, const char* blanks = " \t\r\n");

/// The code points of UTF-8 `text`: a malformed byte, and a control character, read as '?'.
std::vector<int> utf8CodePoints(const std::string& text);

/// Whether `s` ends with `suffix`, byte for byte.
bool endsWith(const std::string& s, const std::string& suffix);

/// `s` in lower case (ASCII letters).
std::string lowercase(std::string s);

/// The extension of `path`'s file name with its dot, in lower case: "A/b.CSV" -> ".csv".
std::string lowerExtension(const std::string& path);

/// The words joined by ", ": "CD3, CD4, CD8".
std::string commaJoined(const std::vector<std::string>& words);

/// `text` within `width` as `widthOf` measures it: whole when it fits; else, for three words or
/// more, its first and last whole words around `ellipsis` ("Memory CD8 T … CD45RAbright"), as
/// many as fit; else its start and end around it ("Gates_PTLG…Control_2"), cut between UTF-8
/// characters; the ellipsis alone when nothing more fits (the one case that may exceed `width`).
std::string elideMiddle(const std::string& text, double width,
                        const std::function<double(const std::string&)>& widthOf,
                        const std::string& ellipsis);

/// Each of `names` as elideMiddle, and names that would read the same ("Neutrophils CD19dim
/// CD45RAbright" and "Neutrophils CD19bright" both "Neutrop...bright") without the words they
/// all begin with: what parts them, whole where it fits, else led by `ellipsis` and elided.
std::vector<std::string> elideApart(const std::vector<std::string>& names, double width,
                                    const std::function<double(const std::string&)>& widthOf,
                                    const std::string& ellipsis);

/// Bytes that all of `names` begin with, cut back to end at a word boundary (after a space, '_',
/// '-' or '.'), so that a shortened name never starts inside a word ("Gates_PTLG021" and
/// "Gates_PTLG028": 6, "Gates_"); 0 for fewer than two names.
size_t sharedWordStart(const std::vector<std::string>& names);

/// Bytes that all of `names` end with, cut forward to begin at a word boundary; 0 for fewer than
/// two names.
size_t sharedWordEnd(const std::vector<std::string>& names);

/// What tells `names` apart, for headings where the full names do not fit: where every name has
/// the same number of words (split at a space, '_', '-' or '.'), the words that differ somewhere,
/// with the separators before them ("Gates_PTLG021_Unstim_Control_2" beside
/// "Gates_PTLG034_Unstim_Control_1": "PTLG021_2" and "PTLG034_1"); else the names without the
/// words all of them begin or end with. Each name whole where that would leave it empty, or for
/// fewer than two names.
std::vector<std::string> distinguishingNames(const std::vector<std::string>& names);

}  // namespace sepal
