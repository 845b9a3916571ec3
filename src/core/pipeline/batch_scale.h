#pragma once
// The batch alignment's reading of tables (batch_alignment.h): a table's channels compensated
// and transformed into the alignment's scale, a batch's own maps, and each batch's sorted
// values per channel (and per cluster), which its quantiles are taken from.

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/common/matrix.h"
#include "core/io/table.h"
#include "core/pipeline/batch_alignment.h"
#include "core/transform/compensation.h"
#include "core/transform/logicle.h"
#include "core/transform/pipeline.h"
#include "core/transform/quantile_map.h"

namespace sepal {

/// Per batch, per group (cluster), per channel: sorted scaled values.
using BatchColumns = std::vector<std::vector<std::vector<std::vector<double>>>>;

/// One channel's transform, forward and back, in double precision.
class ChannelScale {
  public:
    /// The scale of transform `t`.
    explicit ChannelScale(const ColumnTransform& t) : m_t(t) {
        if (t.kind == ColumnTransform::Kind::Logicle) m_logicle.emplace(t.logicle);
    }
    /// A value in the file's units, transformed.
    double forward(double x) const {
        switch (m_t.kind) {
            case ColumnTransform::Kind::Linear:
                return x * m_t.scale + m_t.offset;
            case ColumnTransform::Kind::Arcsinh:
                return std::asinh(x / m_t.cofactor);
            case ColumnTransform::Kind::Logicle:
                return m_logicle->scale(x);
            case ColumnTransform::Kind::None:
                break;
        }
        return x;
    }
    /// A transformed value back in the file's units.
    double back(double y) const {
        switch (m_t.kind) {
            case ColumnTransform::Kind::Linear:
                return (y - m_t.offset) / m_t.scale;
            case ColumnTransform::Kind::Arcsinh:
                return std::sinh(y) * m_t.cofactor;
            case ColumnTransform::Kind::Logicle:
                return m_logicle->inverse(y);
            case ColumnTransform::Kind::None:
                break;
        }
        return y;
    }

  private:
    ColumnTransform m_t;
    std::optional<Logicle> m_logicle;
};

/// A table read in an alignment's scale: where each channel is, and how it is compensated.
class ScaledTable {
  public:
    /// Finds `scale`'s channels in `table` and its compensation; throws InputError for a channel
    /// the table lacks, or a spillover matrix it has not.
    ScaledTable(const io::Table& table, const TransformPipeline& scale);

    /// The scale's steps (channels).
    size_t steps() const { return m_column.size(); }
    /// The table's column of step s.
    size_t column(size_t s) const { return m_column[s]; }
    /// Step s's place among the compensated channels, -1 when it is not compensated.
    int compensatedPosition(size_t s) const { return m_position[s]; }
    /// Step s's transform.
    const ChannelScale& scale(size_t s) const { return m_scales[s]; }
    /// The number of compensated channels (0 without compensation).
    size_t compensated() const { return m_comp ? m_comp->columns.size() : 0; }
    /// The table's column of compensated channel j.
    size_t compensatedColumn(size_t j) const { return m_comp->columns[j]; }
    /// Spill of compensated channel i into observed channel j.
    double spill(size_t i, size_t j) const { return m_spill.at(i, j); }

    /// Row r's compensated values (observed times the inverse), into `out` (compensated() long).
    void compensate(size_t r, std::vector<double>& observed, std::vector<double>& out) const {
        const size_t k = compensated();
        const float* row = m_table.values.row(r);
        for (size_t j = 0; j < k; ++j) observed[j] = row[m_comp->columns[j]];
        for (size_t col = 0; col < k; ++col) {
            double v = 0;
            for (size_t j = 0; j < k; ++j) v += observed[j] * m_comp->inverse[j * k + col];
            out[col] = v;
        }
    }

    /// Channel s of row r before its transform: compensated (from `compensatedRow`) or raw.
    double value(size_t r, size_t s, const std::vector<double>& compensatedRow) const {
        return m_position[s] >= 0 ? compensatedRow[size_t(m_position[s])]
                                  : double(m_table.values.at(r, m_column[s]));
    }

    /// Row r in the scale, one value per step (NaN where not finite), into `out`; `observed` and
    /// `compensatedRow` are compensated() long scratch, left holding the row's compensation.
    void scaledRow(size_t r, std::vector<double>& observed, std::vector<double>& compensatedRow,
                   std::vector<double>& out) const {
        if (compensated() > 0) compensate(r, observed, compensatedRow);
        for (size_t s = 0; s < steps(); ++s) {
            const double y = m_scales[s].forward(value(r, s, compensatedRow));
            out[s] = std::isfinite(y) ? y : NAN;
        }
    }

    /// Per group (`groupOf` of each scaled row, below `groups`), per channel: the finite scaled
    /// values of every stride-th event, sorted.
    template <class GroupOf>
    std::vector<std::vector<std::vector<double>>> sortedColumns(size_t stride, size_t groups,
                                                                GroupOf groupOf) const {
        std::vector<std::vector<std::vector<double>>> out(
            groups, std::vector<std::vector<double>>(steps()));
        std::vector<double> observed(compensated()), row(compensated()), y(steps());
        for (size_t r = 0; r < m_table.events(); r += stride) {
            scaledRow(r, observed, row, y);
            auto& into = out[groupOf(y)];
            for (size_t s = 0; s < steps(); ++s)
                if (!std::isnan(y[s])) into[s].push_back(y[s]);
        }
        for (auto& group : out)
            for (auto& column : group) std::sort(column.begin(), column.end());
        return out;
    }

  private:
    const io::Table& m_table;
    std::vector<size_t> m_column;
    std::vector<int> m_position;
    std::vector<ChannelScale> m_scales;
    std::optional<ResolvedCompensation> m_comp;
    Matrix m_spill;
};

/// One batch's own maps, one per step (none where the batch has no quantiles there), and the
/// cluster of a cell as the alignment assigns it: the centre nearest to its cluster steps as
/// these maps carry them. Clustered so, a cell of one cell type finds the same cluster in every
/// batch, however far its batch has moved it.
class BatchMaps {
  public:
    /// The maps of batch `batch` (an index into alignment.batches).
    BatchMaps(const BatchAlignment& alignment, size_t batch);

    /// The map of step s, or null.
    const QuantileMap* map(size_t s) const { return m_maps[s] ? &*m_maps[s] : nullptr; }

    /// The value of step s of the scaled row `y` carried by the batch's map (as it is without).
    double carried(const std::vector<double>& y, size_t s) const {
        return m_maps[s] ? (*m_maps[s])(y[s]) : y[s];
    }

    /// The cluster of the scaled row `y` (values that are not finite left out); `carried` is
    /// scratch.
    size_t clusterOf(const std::vector<double>& y, std::vector<double>& carried) const;

  private:
    const BatchAlignment& m_alignment;
    std::vector<std::optional<QuantileMap>> m_maps;
};

/// The batches in order of first appearance.
std::vector<std::string> distinctBatches(const std::vector<std::string>& batchOf);

/// Per batch of `batches`, per group (each cell's cluster of `clustering`, or one group of every
/// cell when it is null), per channel: the sorted scaled values of that batch's tables, at most
/// 1,000,000 events a batch (the same stride in each of its tables).
BatchColumns batchColumns(const std::vector<const io::Table*>& tables,
                          const std::vector<std::string>& batchOf,
                          const std::vector<std::string>& batches, const TransformPipeline& scale,
                          const BatchAlignment* clustering = nullptr);

/// Per step: the quantiles of the batches that have any there, averaged level by level (empty
/// where none has): the goal the batches are carried onto.
std::vector<std::vector<double>> meanGoal(
    const std::vector<std::vector<std::vector<double>>>& quantiles, size_t levels);

}  // namespace sepal
