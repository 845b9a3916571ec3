#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/common/error.h"
#include "core/transform/channel_label.h"
#include "core/transform/channel_roles.h"
#include "core/transform/pipeline.h"

namespace sepal {

namespace {

struct Expected {
    io::Channel channel;
    ChannelRole role;
};

/// A Helios panel as FCS files from CyTOF software name it: "(Sm154)Di" channels, unlabelled
/// isotopes whose $PnS repeats the isotope, a palladium barcode, DNA, cisplatin and beads.
std::vector<Expected> heliosPanel() {
    using R = ChannelRole;
    return {
        {{"Time", "Time"}, R::Time},
        {{"Event_length", "Event_length"}, R::EventLength},
        {{"(Y89)Di", "CD45"}, R::Marker},
        {{"(Pd102)Di", "102Pd"}, R::Barcode},
        {{"(Pd104)Di", "104Pd"}, R::Barcode},
        {{"(Pd105)Di", "Pd105Di"}, R::Barcode},
        {{"(Pd106)Di", "Pd106"}, R::Barcode},
        {{"(Pd108)Di", "(Pd108)Di"}, R::Barcode},
        {{"(Pd110)Di", ""}, R::Barcode},
        {{"(Cd112)Di", "CD14"}, R::Marker},
        {{"(Cd114)Di", "CD14"}, R::Marker},
        {{"(In115)Di", "CD57"}, R::Marker},
        {{"(La139)Di", "139La"}, R::Unlabelled},
        {{"(Ce140)Di", "Beads"}, R::Beads},
        {{"(Pr141)Di", "CD196_CCR6"}, R::Marker},
        {{"(Nd142)Di", "CD19"}, R::Marker},
        {{"(Nd143)Di", "DNAM-1"}, R::Marker},
        {{"(Nd144)Di", "BCL2"}, R::Marker},
        {{"(Sm154)Di", "CD3"}, R::Marker},
        {{"(Eu151)Di", "CD123"}, R::Marker},
        {{"(Lu175)Di", "bead"}, R::Beads},
        {{"(Ir191)Di", "191"}, R::Dna},
        {{"(Ir193)Di", "193"}, R::Dna},
        {{"(Pt194)Di", "194Pt"}, R::Viability},
        {{"(Pt195)Di", "Cisplatin"}, R::Viability},
        {{"(Pt198)Di", "CD8a"}, R::Marker},
        {{"Center", "Center"}, R::Gaussian},
        {{"Offset", "Offset"}, R::Gaussian},
        {{"Width", "Width"}, R::Gaussian},
        {{"Residual", "Residual"}, R::Gaussian},
        {{"beadDist", ""}, R::Beads},
    };
}

io::Table tableOf(const std::vector<Expected>& expected) {
    io::Table t;
    t.source = "panel.fcs";
    for (const auto& e : expected) t.channels.push_back(e.channel);
    t.values = Matrix(2, t.channels.size(), 3.0f);
    t.keywords = {{"$PAR", std::to_string(t.channels.size())}};
    return t;
}

std::string errorOf(const io::Table& t, const std::string& word) {
    try {
        resolveChannel(t, word, "--color");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(ChannelRoles, HeliosPanelLeavesOutEverythingButMarkers) {
    const auto panel = heliosPanel();
    const io::Table t = tableOf(panel);
    EXPECT_EQ(guessCytometry(t), Cytometry::Mass);
    std::vector<std::string> markers;
    for (size_t i = 0; i < panel.size(); ++i) {
        EXPECT_EQ(channelRole(t, i), panel[i].role)
            << panel[i].channel.name << " / " << panel[i].channel.marker << ": "
            << roleReason(channelRole(t, i));
        EXPECT_EQ(isTechnicalChannel(t, i), panel[i].role != ChannelRole::Marker);
        if (panel[i].role == ChannelRole::Marker) markers.push_back(panel[i].channel.name);
    }
    const TransformPipeline p = TransformPipeline::defaultFor(t);
    EXPECT_EQ(p.columns(), markers);
    EXPECT_EQ(p.steps.front().transform.cofactor, 5.0);
}

TEST(ChannelRoles, DnaAndViabilityAndBarcodesByMarkerName) {
    io::Table t;
    t.channels = {{"Nd142Di", "CD19"},       {"Nd143Di", "CD4"},         {"Nd144Di", "CD8"},
                  {"Rh103Di", "DNA1"},       {"Ir191Di", "Ir191"},       {"Ir193Di", "DNA-2"},
                  {"Sm147Di", "191Ir_DNA"},  {"Gd155Di", "Live_Dead"},   {"Gd156Di", "LD"},
                  {"Gd157Di", "Zombie NIR"}, {"Gd158Di", "Viability"},   {"Gd160Di", "BC1"},
                  {"Dy161Di", "BC_106Pd"},   {"Dy162Di", "barcode_3"},   {"Pd108Di", "108Pd"},
                  {"Pt196Di", "Pt196Di"},    {"Yb171Di", "cisplatin_2"}, {"Er170Di", "CD3"}};
    const std::vector<ChannelRole> want = {
        ChannelRole::Marker,    ChannelRole::Marker,    ChannelRole::Marker,
        ChannelRole::Dna,       ChannelRole::Dna,       ChannelRole::Dna,
        ChannelRole::Dna,       ChannelRole::Viability, ChannelRole::Viability,
        ChannelRole::Viability, ChannelRole::Viability, ChannelRole::Barcode,
        ChannelRole::Barcode,   ChannelRole::Barcode,   ChannelRole::Barcode,
        ChannelRole::Viability, ChannelRole::Viability, ChannelRole::Marker};
    EXPECT_EQ(channelRoles(t), want);
}

TEST(ChannelRoles, FluorescenceScatterTwinsAndViabilityDyes) {
    io::Table t;
    t.channels = {{"FSC-A", ""},        {"FSC-H", ""},          {"SSC-A", ""},
                  {"FITC-A", "CD3"},    {"FITC-H", "CD3"},      {"BV510-A", "Zombie Aqua"},
                  {"7-AAD-A", ""},      {"DAPI-A", ""},         {"PE-A", "CD4"},
                  {"APC-Cy7-A", "L/D"}, {"Time", ""},           {"SampleID", ""},
                  {"UMAP_1", ""},       {"embed_x", "EmbedSOM"}};
    const std::vector<ChannelRole> want = {
        ChannelRole::Scatter,   ChannelRole::Scatter,   ChannelRole::Scatter,
        ChannelRole::Marker,    ChannelRole::Twin,      ChannelRole::Viability,
        ChannelRole::Viability, ChannelRole::Viability, ChannelRole::Marker,
        ChannelRole::Viability, ChannelRole::Time,      ChannelRole::Code,
        ChannelRole::Embedding, ChannelRole::Embedding};
    EXPECT_EQ(channelRoles(t), want);
    EXPECT_STREQ(roleKey(ChannelRole::Twin), "twin");
    EXPECT_STREQ(roleReason(ChannelRole::Dna), "DNA intercalator");
}

TEST(ChannelRoles, BeckmanCoultersFsAndSsAreScatter) {
    // A Coulter list-mode file names its scatter "FS" and "SS" (with INT, PEAK, TOF, Lin, Log);
    // markers that begin with those letters stay markers (SS-A, the Sjogren antigen).
    io::Table t;
    t.channels = {{"FS INT LIN", "FS INT LIN"},
                  {"SS INT LIN", "SS INT LIN"},
                  {"FS Lin", "FS Lin"},
                  {"SS Log", ""},
                  {"FS", ""},
                  {"SS-A", "SS-A"},
                  {"FL1 INT LOG", "CD103-FITC"},
                  {"PE-A", "SSEA-4"},
                  {"APC-A", "FSHR"}};
    const std::vector<ChannelRole> want = {
        ChannelRole::Scatter, ChannelRole::Scatter, ChannelRole::Scatter,
        ChannelRole::Scatter, ChannelRole::Scatter, ChannelRole::Marker,
        ChannelRole::Marker,  ChannelRole::Marker,  ChannelRole::Marker};
    EXPECT_EQ(channelRoles(t), want);
    EXPECT_EQ(guessCytometry(t), Cytometry::Fluorescence);  // scatter: a flow cytometer's
}

TEST(ChannelRoles, ACoultersLinearTwinsAndACyFlowsDoubletSignalAreLeftOut) {
    // A Cytomics FC 500 records FL1 through a log and a linear amplifier: the log channel (its
    // $PnE decoded) is the marker, "FL1 Lin" its linear twin, on a linear axis; a linear
    // channel without a log one stays a marker. A CyFlow's DOUBLET is its doublet
    // discrimination signal, on a linear axis too.
    io::Table t;
    t.channels = {{"FS Lin", "FS Lin"},   {"FL1 Log", "FL1 Log"},  {"FL1 Lin", "FL1 Lin"},
                  {"FL2 Lin", "FL2 Lin"}, {"FL3 INT LOG", "CD19"}, {"FL3 INT LIN", ""},
                  {"DOUBLET", "DOUBLET"}};
    const std::vector<ChannelRole> want = {
        ChannelRole::Scatter, ChannelRole::Marker,     ChannelRole::LinearTwin, ChannelRole::Marker,
        ChannelRole::Marker,  ChannelRole::LinearTwin, ChannelRole::Doublets};
    EXPECT_EQ(channelRoles(t), want);
    // A flow cytometer's pulse "Width" beside scatter tells doublets too (a BD Accuri's); on a
    // Helios, Width is a Gaussian parameter.
    io::Table flow, helios;
    flow.channels = {{"FSC-A", ""}, {"FL1-A", "FITC-A"}, {"Width", "Width"}};
    helios.channels = {{"Nd142Di", "CD19"}, {"Sm154Di", "CD3"}, {"Width", ""}};
    EXPECT_EQ(channelRole(flow, 2), ChannelRole::Doublets);
    EXPECT_EQ(channelRole(helios, 2), ChannelRole::Gaussian);
    EXPECT_STREQ(roleKey(ChannelRole::Doublets), "doublet");
    EXPECT_STREQ(roleKey(ChannelRole::LinearTwin), "linear_twin");
    EXPECT_EQ(roleLabel(ChannelRole::LinearTwin), "linear twin");
    EXPECT_EQ(roleLabel(ChannelRole::EventLength), "event length");
    EXPECT_TRUE(linearByDefault(ChannelRole::LinearTwin));
    EXPECT_TRUE(linearByDefault(ChannelRole::Doublets));
    EXPECT_TRUE(linearByDefault(ChannelRole::Scatter));
    EXPECT_FALSE(linearByDefault(ChannelRole::Twin));
    EXPECT_FALSE(linearByDefault(ChannelRole::Marker));
}

TEST(ChannelRoles, DumpChannelsAndFixableViabilityDyes) {
    // A dump channel (a live/dead dye and lineages to gate out in one colour, as the VIVID / CD14
    // channel of a 13-colour T cell panel) is left out as such; the fixable dyes by their brands'
    // names as viability; markers that only look alike stay.
    io::Table t;
    t.channels = {
        {"V450-A", "VIVID / CD14"}, {"BV510-A", "Dump"},    {"PB-A", "CD14/CD19/Live-Dead"},
        {"BV421-A", "FVS450"},      {"APC-A", "FVD eF780"}, {"R780-A", "Near-IR Dead"},
        {"V500-A", "ViViD"},        {"PE-A", "CD14"},       {"FITC-A", "DDX3 (DEAD-box)"},
        {"BV605-A", "Vimentin"},    {"PE-Cy7-A", "CD127"}};
    const std::vector<ChannelRole> want = {
        ChannelRole::Dump,      ChannelRole::Dump,      ChannelRole::Dump,
        ChannelRole::Viability, ChannelRole::Viability, ChannelRole::Viability,
        ChannelRole::Viability, ChannelRole::Marker,    ChannelRole::Marker,
        ChannelRole::Marker,    ChannelRole::Marker};
    EXPECT_EQ(channelRoles(t), want);
    EXPECT_STREQ(roleKey(ChannelRole::Dump), "dump");
}

TEST(ChannelRoles, FlowDnaStainsAndAMacsQuantsTimeAndCounters) {
    io::Table t;
    t.channels = {{"HDR-T", "HDR-T"}, {"Time", "HDR-T"},   {"HDR-CE", "HDR-CE"},
                  {"HDR-V", "HDR-V"}, {"V1-A", "Syto 41"}, {"B2-A", "Hoechst 33342"},
                  {"R1-A", "DRAQ5"},  {"Y1-A", "PI"},      {"Y2-A", "Propidium iodide"},
                  {"V2-A", "CD10"},   {"PE-A", "PIK3"},    {"B3-A", "SYTOX Blue"},
                  {"R2-A", "DRAQ7"}};
    const std::vector<ChannelRole> want = {
        ChannelRole::Time,      ChannelRole::Time,   ChannelRole::Counter, ChannelRole::Counter,
        ChannelRole::Dna,       ChannelRole::Dna,    ChannelRole::Dna,     ChannelRole::Viability,
        ChannelRole::Viability, ChannelRole::Marker, ChannelRole::Marker,  ChannelRole::Viability,
        ChannelRole::Viability};
    EXPECT_EQ(channelRoles(t), want);
    EXPECT_STREQ(roleReason(ChannelRole::Counter), "instrument counter");
}

TEST(ChannelRoles, UnlabelledIsotopesStayWhenThePanelNamesNoMarkers) {
    // Without $PnS, nothing tells an antibody from an empty channel: keep them, except the
    // channels that are never antibodies.
    io::Table t;
    t.channels = {{"Nd142Di", ""}, {"Nd143Di", ""}, {"La139Di", "139La"},
                  {"Ir191Di", ""}, {"Pd104Di", ""}, {"Time", ""}};
    const std::vector<ChannelRole> want = {ChannelRole::Marker,  ChannelRole::Marker,
                                           ChannelRole::Marker,  ChannelRole::Dna,
                                           ChannelRole::Barcode, ChannelRole::Time};
    EXPECT_EQ(channelRoles(t), want);
}

TEST(ChannelRoles, IsotopesAreReadFromEveryNamingStyle) {
    for (const auto& [name, element, mass] :
         std::vector<std::tuple<std::string, std::string, int>>{{"Nd142Di", "Nd", 142},
                                                                {"(Sm154)Di", "Sm", 154},
                                                                {"CD19(Nd142)Dd", "Nd", 142},
                                                                {"142Nd_CD19", "Nd", 142},
                                                                {"191Ir", "Ir", 191},
                                                                {"Y89", "Y", 89}}) {
        const auto iso = isotopeOf(name);
        ASSERT_TRUE(iso) << name;
        EXPECT_EQ(iso->element, element) << name;
        EXPECT_EQ(iso->mass, mass) << name;
    }
    for (const char* name : {"CD45", "FSC-A", "Ki67", "BV421-A", "191", "HLA-DR"})
        EXPECT_FALSE(isotopeOf(name)) << name;
}

TEST(ChannelLabel, MarkerFirstWithThePlainIsotope) {
    EXPECT_EQ(channelLabel({"(Sm154)Di", "CD3"}), "CD3 (Sm154Di)");
    EXPECT_EQ(channelLabel({"Nd142Di", "CD19"}), "CD19 (Nd142Di)");
    EXPECT_EQ(channelLabel({"CD19(Nd142)Di", "CD19"}), "CD19 (Nd142Di)");
    EXPECT_EQ(channelLabel({"FL1-A", "CD3 FITC"}), "CD3 FITC (FL1-A)");
    // Placeholders that only repeat the channel read as the channel.
    EXPECT_EQ(channelLabel({"(Pd105)Di", "105Pd"}), "(Pd105)Di");
    EXPECT_EQ(channelLabel({"Pd110Di", "Pd110Di"}), "Pd110Di");
    EXPECT_EQ(channelLabel({"FSC-A", ""}), "FSC-A");
}

TEST(ChannelLabel, LabelsOfATableAreUnique) {
    const io::Table t = tableOf(heliosPanel());
    const std::vector<std::string> labels = channelLabels(t);
    EXPECT_EQ(labels[9], "CD14 (Cd112Di)");
    EXPECT_EQ(labels[10], "CD14 (Cd114Di)");
    EXPECT_EQ(labels[18], "CD3 (Sm154Di)");
    io::Table twice;
    twice.channels = {{"FL1-A", "CD3"}, {"FL1-A", "CD3"}, {"FL2-A", "CD4"}};
    EXPECT_EQ(channelLabels(twice),
              (std::vector<std::string>{"CD3 (FL1-A) #1", "CD3 (FL1-A) #2", "CD4 (FL2-A)"}));
}

TEST(ChannelResolver, NamesMarkersAndLabelsFindTheirChannel) {
    const io::Table t = tableOf(heliosPanel());
    EXPECT_EQ(resolveChannel(t, "(Sm154)Di", "--columns"), 18u);
    EXPECT_EQ(resolveChannel(t, "Sm154Di", "--columns"), 18u);
    EXPECT_EQ(resolveChannel(t, "CD3", "--columns"), 18u);
    EXPECT_EQ(resolveChannel(t, "cd3", "--columns"), 18u);
    EXPECT_EQ(resolveChannel(t, "CD3 (Sm154Di)", "--columns"), 18u);
    EXPECT_EQ(resolveChannel(t, "CD14 (Cd112Di)", "--columns"), 9u);
    EXPECT_EQ(resolveChannel(t, "cd14 (cd114di)", "--columns"), 10u);
    EXPECT_EQ(resolveChannel(t, "Cd114Di", "--columns"), 10u);
    // A channel name wins over another channel's marker.
    EXPECT_EQ(resolveChannel(t, "Time", "--columns"), 0u);
}

TEST(ChannelResolver, AmbiguousAndUnknownWordsSayWhatToName) {
    const io::Table t = tableOf(heliosPanel());
    const std::string twice = errorOf(t, "CD14");
    EXPECT_NE(twice.find("--color: CD14 is on two channels in panel.fcs: Cd112Di, Cd114Di; name "
                         "one, as 'CD14 (Cd112Di)'"),
              std::string::npos)
        << twice;
    EXPECT_EQ(channelsNamed(t, "CD14"), (std::vector<size_t>{9, 10}));
    const std::string unknown = errorOf(t, "CD999");
    EXPECT_NE(unknown.find("no channel or marker 'CD999' in panel.fcs"), std::string::npos)
        << unknown;
    for (const char* listed : {"CD3 (Sm154Di)", "CD14 (Cd112Di)", "Event_length", "(Pd105)Di"})
        EXPECT_NE(unknown.find(listed), std::string::npos) << listed << " in " << unknown;
    EXPECT_TRUE(channelsNamed(t, "CD999").empty());
}

TEST(ChannelResolver, TransformPipelineRefusesAMarkerOnTwoChannels) {
    const io::Table t = tableOf(heliosPanel());
    TransformPipeline p;
    p.steps = {ColumnStep{"CD3 (Sm154Di)"}, ColumnStep{"CD14"}};
    try {
        p.apply(t);
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("CD14 is on two channels"), std::string::npos)
            << e.what();
    }
    p.steps = {ColumnStep{"CD3 (Sm154Di)"}, ColumnStep{"CD14 (Cd114Di)"}};
    EXPECT_EQ(p.apply(t).cols, 2u);
}

}  // namespace sepal
