#include <gtest/gtest.h>

#include <string>

#include "core/common/error.h"
#include "core/transform/compensation.h"
#include "core/transform/pipeline.h"

namespace sepal {

namespace {
io::Table tableWith(const std::vector<std::string>& names,
                    const std::vector<std::vector<float>>& rows) {
    io::Table t;
    for (const auto& n : names) t.channels.push_back({n, "", 262144, 32});
    t.values = Matrix(rows.size(), names.size());
    for (size_t i = 0; i < rows.size(); ++i)
        for (size_t j = 0; j < names.size(); ++j) t.values.at(i, j) = rows[i][j];
    return t;
}

/// Inverse of a 3 x 3 matrix through its adjugate: an independent check of invertMatrix.
std::vector<double> adjugateInverse(const std::vector<double>& m) {
    auto at = [&](int r, int c) { return m[static_cast<size_t>(r * 3 + c)]; };
    std::vector<double> inv(9);
    const double det = at(0, 0) * (at(1, 1) * at(2, 2) - at(1, 2) * at(2, 1)) -
                       at(0, 1) * (at(1, 0) * at(2, 2) - at(1, 2) * at(2, 0)) +
                       at(0, 2) * (at(1, 0) * at(2, 1) - at(1, 1) * at(2, 0));
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            const int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
            inv[static_cast<size_t>(r * 3 + c)] =
                (at(r1, c1) * at(r2, c2) - at(r1, c2) * at(r2, c1)) / det;
        }
    return inv;
}
}  // namespace

TEST(Compensation, InvertsMatricesLikeTheAdjugate) {
    const std::vector<double> two{1, 0.2, 0.1, 1};
    const auto inv2 = invertMatrix(two, 2, "test");
    const double det = 1 - 0.2 * 0.1;
    EXPECT_NEAR(inv2[0], 1 / det, 1e-14);
    EXPECT_NEAR(inv2[1], -0.2 / det, 1e-14);
    EXPECT_NEAR(inv2[2], -0.1 / det, 1e-14);
    EXPECT_NEAR(inv2[3], 1 / det, 1e-14);
    const std::vector<double> three{1, 0.1, 0.05, 0.2, 1, 0.1, 0, 0.3, 1};
    const auto inv3 = invertMatrix(three, 3, "test");
    const auto expected = adjugateInverse(three);
    for (size_t i = 0; i < 9; ++i) EXPECT_NEAR(inv3[i], expected[i], 1e-13) << i;
    EXPECT_THROW(invertMatrix({1, 2, 2, 4}, 2, "test"), InputError);
}

TEST(Compensation, PipelineUndoesSpilloverOfTheFile) {
    // True signals (100, 50, 7) observed through spillover S: observed = true * S.
    io::Table t = tableWith({"FL1-A", "FL2-A", "FSC-A"}, {{105.0f, 70.0f, 7.0f}, {0, 0, 1}});
    io::Spillover s;
    s.channels = {"FL1-A", "FL2-A"};
    s.matrix = Matrix(2, 2);
    s.matrix.values = {1.0f, 0.2f, 0.1f, 1.0f};
    t.spillover = s;
    TransformPipeline p;
    p.compensation.source = CompensationStep::Source::File;
    p.steps = {ColumnStep{"FL2-A"}, ColumnStep{"FL1-A"}, ColumnStep{"FSC-A"}};
    const Matrix out = p.apply(t);
    EXPECT_NEAR(out.at(0, 0), 50.0f, 1e-4);
    EXPECT_NEAR(out.at(0, 1), 100.0f, 1e-4);
    EXPECT_FLOAT_EQ(out.at(0, 2), 7.0f);

    // The same matrix stored in the pipeline gives the same numbers.
    TransformPipeline stored = p;
    stored.compensation.source = CompensationStep::Source::Stored;
    stored.compensation.spillover = s;
    t.spillover.reset();
    EXPECT_EQ(TransformPipeline::fromJson(stored.toJson()).apply(t).values, out.values);
    // Without a matrix in the file, compensation from the file is an error.
    EXPECT_THROW(p.apply(t), InputError);
}

TEST(Compensation, NamesTheMissingChannels) {
    io::Table t = tableWith({"FL1-A", "FL2-A"}, {{1, 2}});
    io::Spillover s;
    s.channels = {"FL1-A", "FL3-A", "FL4-A"};
    s.matrix = Matrix(3, 3, 0.0f);
    try {
        resolveCompensation(s, t);
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("FL3-A, FL4-A"), std::string::npos) << e.what();
    }
}

}  // namespace sepal
