// The built-in catalogue of markers: canonical names, synonyms and classes (docs/MARKERS.md).
#include <cctype>
#include <map>
#include <regex>
#include <sstream>

#include "core/markers/marker_classes.h"

namespace sepal {

namespace {

// One marker a line: its class, its canonical name, then synonyms. Lineage (type): markers of
// what a cell is, transcription factors that define subsets included; state: phospho-proteins
// (written with or without their p), cytokines, cytotoxic granules, activation and
// proliferation markers. Names are compared by markerKey, so "HLA-DR", "HLADR" and "HLA DR" are
// one.
constexpr const char* kCatalogue = R"(
type CD45 PTPRC
type CD3 CD3e CD3epsilon
type CD4
type CD8 CD8a CD8alpha CD8b
type CD7
type CD2
type CD5
type CD19
type CD20 MS4A1
type CD22
type CD24
type CD10
type CD21
type CD14
type CD16 FcgRIII
type CD32
type CD64
type CD56 NCAM1
type CD57
type CD66 CD66b CD66a CD66ace CD66abce
type CD15
type CD11b
type CD11c
type CD123 IL3RA
type CD1c BDCA1
type CD141 BDCA3
type CD303 BDCA2
type HLA-DR
type CD45RA
type CD45RO
type CD45RB
type CCR7 CD197
type CD27
type CD28
type CD25 IL2RA
type CD127 IL7RA
type CD161 KLRB1
type TCRgd gdTCR TCRgammadelta GDTCR panGD
type Vd2 TCRVd2 Vdelta2
type Vd1 TCRVd1 Vdelta1
type Va7.2 TCRVa72
type IgD
type IgM
type IgG
type IgA
type CD38
type CD33
type CD34
type CD117 cKit
type CD235ab CD235a GlycophorinA
type CD61
type CD41
type CD62L
type CD95
type CD31
type CD163
type CD206
type CD1a
type CD294 CRTH2
type FceRI FcER1a FceR1a
type CD203c
type CD193 CCR3
type Siglec8
type CD49d
type CD11a
type CD43
type CD44
type CD103
type CD26
type CXCR3 CD183
type CXCR5 CD185
type CCR4 CD194
type CCR6 CD196
type CCR9
type CCR2 CD192
type CCR5 CD195
type CX3CR1
type NKG2A CD159a
type NKG2C CD159c
type NKG2D CD314
type NKp46 CD335
type NKp30 CD337
type KIR CD158 CD158a CD158b
type CD94
type FoxP3
type Tbet TBX21
type Eomes
type GATA3
type RORgt RORC
type Bcl6
type CD138
type CD1d
state pSTAT1 STAT1
state pSTAT3 STAT3
state pSTAT4 STAT4
state pSTAT5 STAT5
state pSTAT6 STAT6
state pERK ERK ERK12 pERK12 MAPK
state pp38 p38 p38MAPK
state pMAPKAPK2 MAPKAPK2
state pS6 S6 rpS6
state pCREB CREB
state pNFkB NFkB NFkBp65 p65
state IkB IkBa
state pAKT AKT
state pZAP70 ZAP70 pZAP70Syk
state pSLP76 SLP76
state pPLCg2 PLCg2
state pBTK BTK
state pSyk Syk
state pLck Lck
state pBLNK BLNK
state pSTAT3Y705
state pH3 H3 pHH3
state cPARP PARP cleavedPARP
state cCaspase3 Caspase3
state Ki67 MKI67
state CD69
state CD154 CD40L
state CD107a LAMP1
state CD71
state CD137 41BB
state CD134 OX40
state CD86
state CD80
state CD40
state CD83
state PD1 CD279
state PDL1 CD274
state CTLA4 CD152
state LAG3 CD223
state TIM3 CD366
state TIGIT
state CD39
state CD73
state HLA-ABC
state IL-2 IL2
state IL-4 IL4
state IL-5 IL5
state IL-6 IL6
state IL-8 IL8 CXCL8
state IL-10 IL10
state IL-12 IL12
state IL-13 IL13
state IL-17A IL17 IL17A
state IL-21 IL21
state IL-22 IL22
state IFNg IFNgamma IFNG
state IFNa IFNalpha
state TNFa TNF TNFalpha
state GM-CSF GMCSF CSF2
state MIP1b CCL4
state MIP1a CCL3
state MCP1 CCL2
state GranzymeA GzmA GrA
state GranzymeB GzmB GrB
state GranzymeK GzmK
state Perforin Prf1
state Granulysin
)";

struct Catalogue {
    std::map<std::string, CatalogueEntry> byKey;  // every name and synonym by markerKey
};

const Catalogue& catalogue() {
    static const Catalogue built = [] {
        Catalogue c;
        std::istringstream lines(kCatalogue);
        std::string line;
        while (std::getline(lines, line)) {
            std::istringstream words(line);
            std::string cls, name, synonym;
            if (!(words >> cls >> name)) continue;
            const CatalogueEntry entry{name,
                                       cls == "state" ? MarkerClass::State : MarkerClass::Type};
            c.byKey.emplace(markerKey(name), entry);
            while (words >> synonym) c.byKey.emplace(markerKey(synonym), entry);
        }
        return c;
    }();
    return built;
}

/// True for a word that is only an isotope tag: "141Pr", "Pr141", "Pr141Di".
bool isIsotopeTag(const std::string& word) {
    static const std::regex tag(R"((\d{2,3}[A-Z][a-z]?)|([A-Z][a-z]?\d{2,3}(Di|Dd)?))");
    return std::regex_match(word, tag);
}

std::optional<CatalogueEntry> lookUp(const std::string& word) {
    const std::string key = markerKey(word);
    if (key.empty()) return std::nullopt;
    const auto& byKey = catalogue().byKey;
    if (const auto it = byKey.find(key); it != byKey.end()) return it->second;
    // A phospho-protein written with its p ("pSTAT5") where the catalogue has it plain, or
    // the other way round.
    if (key.size() > 2 && key[0] == 'P')
        if (const auto it = byKey.find(key.substr(1)); it != byKey.end()) return it->second;
    return std::nullopt;
}

}  // namespace

std::string markerKey(const std::string& marker) {
    std::string key;
    for (unsigned char ch : marker)
        if (std::isalnum(ch)) key += static_cast<char>(std::toupper(ch));
    return key;
}

std::optional<CatalogueEntry> catalogueEntry(const std::string& marker) {
    if (auto whole = lookUp(marker)) return whole;
    // "141Pr_CD3", "CD3_Pr141", "CD3 (Pr141Di)": the words beside an isotope tag.
    std::string word;
    std::vector<std::string> words;
    for (char ch : marker + " ") {
        if (ch == '_' || ch == ' ' || ch == '(' || ch == ')' || ch == '/') {
            if (!word.empty()) words.push_back(word);
            word.clear();
        } else {
            word += ch;
        }
    }
    if (words.size() < 2) return std::nullopt;
    for (const std::string& w : words)
        if (!isIsotopeTag(w))
            if (auto part = lookUp(w)) return part;
    return std::nullopt;
}

}  // namespace sepal
