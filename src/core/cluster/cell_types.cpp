#include "core/cluster/cell_types.h"

#include <fstream>
#include <sstream>

#include "core/common/error.h"
#include "core/common/text.h"

namespace sepal {

namespace {

// The common cell types of blood, general before specific: the last rule that holds names a
// population (population_naming.h); a rule's first marker defines it and must be in the panel.
// Markers are compared through the marker catalogue (CD8a is CD8, HLADR is HLA-DR, CD66b is CD66);
// "hi" and "lo" split a marker's positive cells at its bright cut.
constexpr const char* kBuiltIn = R"(name,rule
T cells,CD3+ CD19- CD14-
CD4 T,CD3+ CD4+ CD8- TCRgd-
Naive CD4 T,CD3+ CD4+ CD8- CD45RA+ CCR7+ CD25-
Memory CD4 T,CD3+ CD4+ CD8- CD45RA- CD25-
Treg,CD3+ CD4+ CD8- CD25+ CD127-
Treg,CD3+ CD4+ CD8- CD25+ FoxP3+
CD8 T,CD3+ CD8+ CD4- TCRgd-
Naive CD8 T,CD3+ CD8+ CD4- CD45RA+ CCR7+ CD57-
Memory CD8 T,CD3+ CD8+ CD4- CD45RA- CCR7- CD57-
Effector CD8 T,CD3+ CD8+ CD4- CCR7- CD57+
gd T,CD3+ TCRgd+
Vd2 gd T,CD3+ TCRgd+ Vd2+
MAIT,Va7.2+ CD161+ CD3+ TCRgd-
NK cells,CD56+ CD3- CD19- CD14-
CD56bright NK,CD56hi CD16lo CD3- CD19- CD14-
CD56dim NK,CD56+ CD16hi CD3- CD19- CD14-
B cells,CD19+ CD3- CD14-
B cells,CD20+ CD3- CD14-
Naive B,CD19+ IgD+ CD27- CD3-
Memory B,CD19+ CD27+ CD3-
Plasmablasts,CD19+ CD38hi CD27+ CD20- CD3-
Monocytes,CD14+ CD3- CD19-
Classical monocytes,CD14+ CD16- CD3- CD19-
Intermediate monocytes,CD14hi CD16+ HLA-DR+ CD3- CD19- CD56-
Non-classical monocytes,CD16+ CD14lo HLA-DR+ CD3- CD19- CD56-
Granulocytes,CD66+ CD3- CD19- HLA-DR- CD7- CD56-
Neutrophils,CD66+ CD16+ CD15+ CD3- CD19- HLA-DR- CD56-
Neutrophils,CD15+ CD16+ CD11b+ CD3- CD19- HLA-DR- CD56-
Eosinophils,CD66+ CD16- Siglec8+ CD3- CD19-
Basophils,CD123+ HLA-DR- CD3- CD19- CD14-
Basophils,FceRI+ CD203c+ HLA-DR- CD3- CD19-
Plasmacytoid DC,CD123+ HLA-DR+ CD3- CD19- CD14- CD16-
Myeloid DC,CD11c+ HLA-DR+ CD14- CD16- CD3- CD19-
)";

// A user-written field: blanks and the quotes of a CSV field left out.
constexpr const char* kFieldBlanks = " \t\r\"";

std::vector<CellTypeRule> parseTable(std::istream& in, const std::string& where) {
    std::vector<CellTypeRule> rules;
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
        const std::string text = trimmed(line, kFieldBlanks);
        if (text.empty() || text[0] == '#') continue;
        const size_t comma = text.find(',');
        const std::string at = where + ":" + std::to_string(number);
        if (comma == std::string::npos)
            throw InputError(at +
                             ": expected 'name,rule' (such as 'CD4 T,CD3+ CD4+ CD8-'), read '" +
                             text + "'");
        CellTypeRule rule{trimmed(text.substr(0, comma), kFieldBlanks),
                          {},
                          trimmed(text.substr(comma + 1), kFieldBlanks)};
        if (number == 1 && rule.name == "name" && rule.text == "rule") continue;
        if (rule.name.empty()) throw InputError(at + ": a rule without a name");
        rule.conditions = parseMarkerRule(rule.text, at);
        if (rule.conditions.empty())
            throw InputError(at + ": the rule of " + rule.name + " is empty");
        rules.push_back(std::move(rule));
    }
    return rules;
}

}  // namespace

std::vector<MarkerCondition> parseMarkerRule(const std::string& rule, const std::string& where) {
    std::vector<MarkerCondition> conditions;
    std::istringstream words(rule);
    std::string w;
    while (words >> w) {
        MarkerCondition c;
        const auto endsWith = [&](const char* suffix) {
            const std::string s(suffix);
            return w.size() > s.size() && w.compare(w.size() - s.size(), s.size(), s) == 0;
        };
        if (endsWith("hi")) {
            c = {w.substr(0, w.size() - 2), MarkerCall::Bright};
        } else if (endsWith("lo")) {
            c = {w.substr(0, w.size() - 2), MarkerCall::NotBright};
        } else if (endsWith("+")) {
            c = {w.substr(0, w.size() - 1), MarkerCall::Positive};
        } else if (endsWith("-")) {
            c = {w.substr(0, w.size() - 1), MarkerCall::Negative};
        } else {
            throw InputError(where + ": '" + w +
                             "' says nothing of the marker: end it with +, -, hi or lo");
        }
        conditions.push_back(std::move(c));
    }
    return conditions;
}

const std::vector<CellTypeRule>& builtInCellTypes() {
    static const std::vector<CellTypeRule> rules = [] {
        std::istringstream in(kBuiltIn);
        return parseTable(in, "the built-in cell types");
    }();
    return rules;
}

std::vector<CellTypeRule> readCellTypes(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError(path + ": cannot open the cell types file");
    std::vector<CellTypeRule> rules = parseTable(in, path);
    if (rules.empty()) throw InputError(path + ": no cell types (lines of name,rule)");
    return rules;
}

std::string cellTypesText(const std::vector<CellTypeRule>& rules) {
    std::string out = "name,rule\n";
    for (const CellTypeRule& r : rules) out += r.name + "," + r.text + "\n";
    return out;
}

}  // namespace sepal
