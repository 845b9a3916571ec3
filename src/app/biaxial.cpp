#include "app/biaxial.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "app/colouring.h"
#include "core/color/value_map.h"
#include "core/common/error.h"
#include "core/transform/channel_roles.h"

namespace sepal::app {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Maps a value of a gate's dimension (its scale's units) into the plot axis' units.
struct UnitMap {
    ScaleFunction from, to;
    bool same = true;
    UnitMap(const GateScale& gate, const GateScale& plot)
        : from(gate), to(plot), same(gate == plot) {}
    float operator()(double v) const { return float(same ? v : to(from.inverse(v))); }
};

// Which plot axis (0 x, 1 y) shows the channel dimension d reads (a matrix fluorochrome its
// detector); -1 when none. (A gate compensated otherwise than the plot is drawn on it too, its
// label says so.)
int axisOf(const BiaxialPlot& plot, const GateTree& tree, const GateDimension& d) {
    for (int a = 0; a < 2; ++a)
        if (!d.ratio && !plot.axes[size_t(a)].ratio &&
            tree.detectorOf(d) == plot.axes[size_t(a)].channel)
            return a;
    return -1;
}

// True when a dimension of the gate is compensated otherwise than the plot's axis of its channel.
bool otherCompensation(const BiaxialPlot& plot, const GateTree& tree, const GateNode& g) {
    std::vector<const GateDimension*> dims;
    for (const GateDimension& d : g.dimensions) dims.push_back(&d);
    for (const QuadrantDivider& d : g.dividers) dims.push_back(&d.dimension);
    // The file's own matrix on data without one is no compensation (its values as they are).
    const auto effective = [&](const CompensationRef& c) {
        return c.kind == CompensationRef::Kind::File && !plot.fileMatrix ? CompensationRef{} : c;
    };
    for (const GateDimension* d : dims) {
        const int a = axisOf(plot, tree, *d);
        if (a >= 0 && !(effective(d->compensation) == effective(plot.axes[size_t(a)].compensation)))
            return true;
    }
    return false;
}

std::string percentText(double v) {
    char text[32];
    std::snprintf(text, sizeof text, v >= 10 ? "%.1f%%" : "%.2f%%", v);
    return text;
}

/// A decade tick's label (logarithmic-like axes): a power of ten from 1e3 reads "1e4", other
/// values as round steps read.
std::string tickLabel(double v) {
    if (v == 0) return "0";
    const double a = std::abs(v);
    char text[32];
    if (a >= 1e3 && std::abs(std::log10(a) - std::round(std::log10(a))) < 1e-9)
        std::snprintf(text, sizeof text, "%s1e%d", v < 0 ? "-" : "",
                      int(std::round(std::log10(a))));
    else if (a >= 1e4)
        std::snprintf(text, sizeof text, "%gk", v / 1e3);
    else
        std::snprintf(text, sizeof text, "%g", v);
    return text;
}

/// A linear axis's labels in one unit, chosen by its largest tick: "2k ... 12k", "0.2M ... 1M",
/// where a tick on each side of 10^4 or 10^6 read "8000, 10k" or "800k, 1M".
std::vector<std::string> linearTickLabels(const std::vector<double>& values) {
    double largest = 0;
    for (double v : values) largest = std::max(largest, std::abs(v));
    const double unit = largest >= 1e6 ? 1e6 : largest >= 1e4 ? 1e3 : 1.0;
    const char* suffix = largest >= 1e6 ? "M" : largest >= 1e4 ? "k" : "";
    std::vector<std::string> labels;
    for (double v : values) {
        char text[32];
        if (v == 0)
            std::snprintf(text, sizeof text, "0");
        else
            std::snprintf(text, sizeof text, "%g%s", v / unit, suffix);
        labels.push_back(text);
    }
    return labels;
}

}  // namespace

GateScale arcsinhScale(double cofactor) {
    GateScale s;
    s.kind = GateScale::Kind::Asinh;
    s.M = 1.0 / std::log(10.0);
    s.A = 0;
    s.T = cofactor * std::sinh(1.0);
    return s;
}

GateScale defaultAxisScale(const io::Table& table, const std::string& channel) {
    const int c = table.findChannel(channel);
    if (c < 0) return {};
    if (linearByDefault(channelRole(table, size_t(c)))) return {};
    return arcsinhScale(guessCytometry(table) == Cytometry::Mass ? 5.0 : 150.0);
}

GateScale startingAxisScale(const Dataset& data, const Gating& gating, const std::string& parent,
                            const std::string& channel) {
    if (data.tables.empty()) return {};
    const io::Table& first = data.tables.front();
    const int c = first.findChannel(channel);
    if (c < 0) return {};
    const std::string& name = first.channels[size_t(c)].name;
    for (const GateNode& g : gating.gates.tree.gates) {
        if (g.parent != parent) continue;
        for (const GateDimension& d : g.dimensions)
            if (!d.ratio && gating.gates.tree.detectorOf(d) == name) return d.scale;
        for (const QuadrantDivider& d : g.dividers)
            if (!d.dimension.ratio && gating.gates.tree.detectorOf(d.dimension) == name)
                return d.dimension.scale;
    }
    return defaultAxisScale(first, channel);
}

GateDimension biaxialAxis(const Dataset& data, const std::string& channel, const GateScale& scale,
                          bool compensate) {
    if (data.tables.empty()) throw InputError("open a file first");
    const io::Table& first = data.tables.front();
    const int c = first.findChannel(channel);
    if (c < 0) throw InputError(first.source + " has no channel \"" + channel + "\"");
    GateDimension d;
    d.channel = first.channels[size_t(c)].name;
    d.scale = scale;
    // Only the spillover matrix's channels are compensated (scatter never is).
    if (compensate && first.spillover &&
        std::find(first.spillover->channels.begin(), first.spillover->channels.end(), d.channel) !=
            first.spillover->channels.end())
        d.compensation.kind = CompensationRef::Kind::File;
    return d;
}

BiaxialPlot biaxialOf(const Dataset& data, const Gating& gating,
                      const std::array<GateDimension, 2>& axes, const std::string& parent) {
    if (data.tables.empty()) throw InputError("open a file first");
    BiaxialPlot plot;
    plot.fileMatrix = data.tables.front().spillover.has_value();
    plot.axes = axes;
    plot.parent = parent;
    const size_t n = data.events();
    plot.values.assign(2 * n, NAN);
    for (size_t s = 0; s < data.samples.size() && s < data.tables.size(); ++s)
        for (size_t a = 0; a < 2; ++a) {
            const std::vector<double> v =
                dimensionValues(gating.gates.tree, data.tables[s], axes[a], "the plot's axis");
            const size_t count = std::min(v.size(), data.samples[s].count);
            for (size_t i = 0; i < count; ++i)
                plot.values[2 * (data.samples[s].first + i) + a] = float(v[i]);
        }
    // Only the parent's cells are shown.
    if (const std::vector<uint8_t>* cells = gating.cellsOf(parent)) {
        for (size_t i = 0; i < n; ++i)
            if (!(*cells)[i]) plot.values[2 * i] = plot.values[2 * i + 1] = NAN;
        plot.shown = size_t(std::count(cells->begin(), cells->end(), uint8_t(1)));
    } else {
        plot.parent.clear();
        plot.shown = n;
    }
    for (size_t a = 0; a < 2; ++a) {
        const auto range = color::percentileRange(plot.values.data() + a, n, 2, 0.1, 99.9);
        float lo = std::isfinite(range.lo) ? range.lo : 0.0f;
        float hi = std::isfinite(range.hi) ? range.hi : 1.0f;
        if (hi <= lo) hi = lo + 1.0f;
        const float margin = 0.05f * (hi - lo);
        plot.low[a] = lo - margin;
        plot.high[a] = hi + margin;
    }
    return plot;
}

std::vector<uint8_t> biaxialPicture(const BiaxialPlot& plot, int width, int height,
                                    BiaxialColour colour, const Populations& populations,
                                    const Gating& gating) {
    const size_t w = size_t(std::max(1, width)), h = size_t(std::max(1, height));
    std::vector<uint8_t> rgba(w * h * 4, 0);
    for (size_t p = 0; p < w * h; ++p) rgba[4 * p + 3] = 255;  // an opaque black ground
    const size_t n = plot.values.size() / 2;
    // The pixel of each cell (or none off the plot).
    const auto pixel = [&](size_t i) -> long {
        const float fx = (plot.values[2 * i] - plot.low[0]) / (plot.high[0] - plot.low[0]);
        const float fy = (plot.values[2 * i + 1] - plot.low[1]) / (plot.high[1] - plot.low[1]);
        if (!(fx >= 0 && fx < 1 && fy >= 0 && fy < 1)) return -1;
        const size_t px = size_t(fx * float(w)), py = h - 1 - size_t(fy * float(h));
        return long(py * w + px);
    };
    if (colour == BiaxialColour::Population) {
        for (size_t i = 0; i < n; ++i) {
            const long p = pixel(i);
            if (p < 0) continue;
            const uint8_t m = i < populations.membership.size() ? populations.membership[i] : 0;
            std::array<uint8_t, 3> c{90, 90, 90};
            if (!gating.contains(i))
                c = {45, 45, 45};
            else if (m > 0 && m <= populations.groups.size())
                c = populations.groups[m - 1].colour;
            std::copy(c.begin(), c.end(), rgba.begin() + 4 * p);
        }
        return rgba;
    }
    std::vector<uint32_t> inside(w * h, 0), outside(w * h, 0);
    for (size_t i = 0; i < n; ++i) {
        const long p = pixel(i);
        if (p >= 0) ++(gating.contains(i) ? inside : outside)[size_t(p)];
    }
    const float top = std::log1p(float(*std::max_element(inside.begin(), inside.end())));
    for (size_t p = 0; p < w * h; ++p) {
        std::array<uint8_t, 3> c{0, 0, 0};
        if (inside[p] > 0)
            c = colourMap("viridis", 0.15f + 0.85f * std::log1p(float(inside[p])) / top);
        else if (outside[p] > 0)
            c = {70, 70, 70};
        std::copy(c.begin(), c.end(), rgba.begin() + long(4 * p));
    }
    return rgba;
}

std::vector<GateOutline> gateOutlines(const BiaxialPlot& plot, const Gating& gating) {
    std::vector<GateOutline> out;
    const float far[2][2] = {{plot.low[0] - 1e6f * (plot.high[0] - plot.low[0]),
                              plot.high[0] + 1e6f * (plot.high[0] - plot.low[0])},
                             {plot.low[1] - 1e6f * (plot.high[1] - plot.low[1]),
                              plot.high[1] + 1e6f * (plot.high[1] - plot.low[1])}};
    // An outline with its name, share and note.
    const auto labelled = [&](const std::string& id, const std::string& name,
                              std::vector<float> points) {
        GateOutline o;
        o.id = id;
        o.name = name;
        if (const GateCount* c = gating.countOf(id)) o.share = percentText(c->percentOfParent());
        const GateNode* g = gating.gates.tree.find(id);
        for (const GateNode& q : gating.gates.tree.gates)
            for (const Quadrant& quadrant : q.quadrants)
                if (quadrant.id == id) g = &q;
        if (g && otherCompensation(plot, gating.gates.tree, *g))
            o.note = " (compensated otherwise)";
        o.points = std::move(points);
        o.embedded = id == gating.gates.population;
        return o;
    };
    // A box in plot units from per-axis bounds (open sides reach far off the plot).
    const auto box = [&](const std::array<std::optional<float>, 4>& b) {
        const float x0 = b[0].value_or(far[0][0]), x1 = b[1].value_or(far[0][1]);
        const float y0 = b[2].value_or(far[1][0]), y1 = b[3].value_or(far[1][1]);
        return std::vector<float>{x0, y0, x1, y0, x1, y1, x0, y1};
    };
    // The outline's part on the plot, and its label in the middle of it.
    const auto place = [&](GateOutline& o) {
        float x0 = plot.high[0], x1 = plot.low[0], y0 = plot.high[1], y1 = plot.low[1];
        for (size_t i = 0; i + 1 < o.points.size(); i += 2) {
            x0 = std::min(x0, std::clamp(o.points[i], plot.low[0], plot.high[0]));
            x1 = std::max(x1, std::clamp(o.points[i], plot.low[0], plot.high[0]));
            y0 = std::min(y0, std::clamp(o.points[i + 1], plot.low[1], plot.high[1]));
            y1 = std::max(y1, std::clamp(o.points[i + 1], plot.low[1], plot.high[1]));
        }
        o.room = {x0, y0, x1, y1};
        o.anchor = {(x0 + x1) / 2, (y0 + y1) / 2};
    };
    // A box open on one side of an axis (a quadrant, FlowJo's quadrants as rectangles, a
    // threshold) has its label in the corner away from its edges, reaching inwards, as FlowJo
    // puts them: in the middle of the quadrants' parts the labels crossed one another where the
    // dividers lie near the plot's edge.
    const auto placeInCorner = [&](GateOutline& o, const std::array<std::optional<float>, 4>& b) {
        place(o);
        for (size_t a = 0; a < 2; ++a) {
            const bool lower = b[2 * a].has_value(), upper = b[2 * a + 1].has_value();
            if (lower == upper) continue;
            o.anchor[a] = lower ? o.room[a + 2] : o.room[a];
            o.side[a] = lower ? -1 : 1;
        }
    };
    for (const GateNode& g : gating.gates.tree.gates) {
        if (g.parent != plot.parent) continue;
        const std::string name = g.name.empty() ? g.id : g.name;
        if (g.kind == GateNode::Kind::Rectangle) {
            std::array<std::optional<float>, 4> b;
            bool drawn = true;
            for (const GateDimension& d : g.dimensions) {
                const int a = axisOf(plot, gating.gates.tree, d);
                if (a < 0) drawn = false;
                if (a < 0) break;
                const UnitMap map(d.scale, plot.axes[size_t(a)].scale);
                if (d.min) b[size_t(2 * a)] = map(*d.min);
                if (d.max) b[size_t(2 * a + 1)] = map(*d.max);
            }
            if (!drawn) continue;
            GateOutline o = labelled(g.id, name, box(b));
            placeInCorner(o, b);
            out.push_back(std::move(o));
        } else if (g.kind == GateNode::Kind::Polygon || g.kind == GateNode::Kind::Ellipsoid) {
            if (g.dimensions.size() != 2) continue;
            const int ax = axisOf(plot, gating.gates.tree, g.dimensions[0]),
                      ay = axisOf(plot, gating.gates.tree, g.dimensions[1]);
            if (ax < 0 || ay < 0 || ax == ay) continue;
            const UnitMap m0(g.dimensions[0].scale, plot.axes[size_t(ax)].scale);
            const UnitMap m1(g.dimensions[1].scale, plot.axes[size_t(ay)].scale);
            GateOutline o = labelled(g.id, name, {});
            const auto put = [&](double u, double v) {
                const float a = m0(u), b = m1(v);
                o.points.push_back(ax == 0 ? a : b);
                o.points.push_back(ax == 0 ? b : a);
            };
            if (g.kind == GateNode::Kind::Polygon) {
                // Edges straight in the gate's units: followed in steps on another scale.
                const size_t k = g.vertices.size() / 2;
                const bool same = m0.same && m1.same;
                for (size_t i = 0; i < k; ++i) {
                    const size_t j = (i + 1) % k;
                    const int steps = same ? 1 : 24;
                    for (int s = 0; s < steps; ++s) {
                        const double t = double(s) / steps;
                        put(g.vertices[2 * i] + t * (g.vertices[2 * j] - g.vertices[2 * i]),
                            g.vertices[2 * i + 1] +
                                t * (g.vertices[2 * j + 1] - g.vertices[2 * i + 1]));
                    }
                }
            } else {
                // m + sqrt(d2) L (cos t, sin t), L the Cholesky factor of the covariance.
                const double a = g.covariance[0], b = g.covariance[1], c = g.covariance[3];
                if (!(a > 0) || !(c - b * b / a > 0)) continue;
                const double l00 = std::sqrt(a), l10 = b / l00, l11 = std::sqrt(c - l10 * l10);
                const double r = std::sqrt(g.distanceSquare);
                for (int s = 0; s < 96; ++s) {
                    const double t = 2 * kPi * s / 96, u = r * std::cos(t), v = r * std::sin(t);
                    put(g.mean[0] + l00 * u, g.mean[1] + l10 * u + l11 * v);
                }
            }
            place(o);
            out.push_back(std::move(o));
        } else if (g.kind == GateNode::Kind::Quadrant) {
            std::vector<int> axes;
            for (const QuadrantDivider& d : g.dividers)
                axes.push_back(axisOf(plot, gating.gates.tree, d.dimension));
            if (std::count(axes.begin(), axes.end(), -1) > 0) continue;
            for (const Quadrant& q : g.quadrants) {
                std::array<std::optional<float>, 4> b;
                for (size_t i = 0; i < g.dividers.size(); ++i) {
                    const QuadrantDivider& d = g.dividers[i];
                    const UnitMap map(d.dimension.scale, plot.axes[size_t(axes[i])].scale);
                    size_t k = 0;
                    while (k < d.values.size() && q.locations[i] >= d.values[k]) ++k;
                    if (k > 0) b[size_t(2 * axes[i])] = map(d.values[k - 1]);
                    if (k < d.values.size()) b[size_t(2 * axes[i] + 1)] = map(d.values[k]);
                }
                GateOutline o = labelled(q.id, q.name.empty() ? q.id : q.name, box(b));
                placeInCorner(o, b);
                out.push_back(std::move(o));
            }
        }
    }
    return out;
}

std::vector<AxisTick> axisTicks(const GateScale& scale, float low, float high) {
    std::vector<AxisTick> ticks;
    const ScaleFunction f(scale);
    const bool linear =
        scale.kind == GateScale::Kind::None || scale.kind == GateScale::Kind::Linear;
    if (linear) {
        const double a = f.inverse(low), b = f.inverse(high);
        const double span = std::abs(b - a);
        if (!(span > 0) || !std::isfinite(span)) return ticks;
        double step = std::pow(10.0, std::floor(std::log10(span / 5)));
        for (double m : {2.0, 5.0, 10.0})
            if (span / step > 8) step = std::pow(10.0, std::floor(std::log10(span / 5))) * m;
        std::vector<double> values;
        for (double v = std::ceil(std::min(a, b) / step) * step; v <= std::max(a, b) + 1e-9 * span;
             v += step)
            values.push_back(std::abs(v) < 1e-12 * span ? 0.0 : v);
        const std::vector<std::string> labels = linearTickLabels(values);
        for (size_t i = 0; i < values.size(); ++i)
            ticks.push_back({float(f(values[i])), labels[i], true});
        return ticks;
    }
    // Decades both ways from zero, and their multiples as minor ticks; a range narrower than
    // two decades labels the multiples too. Where the scale is linear near zero (arcsinh,
    // logicle, biex) the small decades crowd together: ticks are placed by priority, zero first,
    // then the decades from the largest down, then their multiples, and a mark or a label that
    // would touch one already placed is left out (placed from the axis's low end, the labels
    // read "-1" where "0" and "10" belonged, and the marks made a comb at zero).
    std::vector<AxisTick> candidates;
    const auto add = [&](double v, bool major) {
        const double at = f(v);
        if (std::isfinite(at) && at >= low && at <= high)
            candidates.push_back({float(at), tickLabel(v), major});
    };
    add(0, true);
    for (bool major : {true, false})
        for (int e = 9; e >= 0; --e)
            for (int m = 9; m >= 1; --m)
                if ((m == 1) == major) {
                    add(m * std::pow(10.0, e), major);
                    add(-m * std::pow(10.0, e), major);
                }
    const bool labelMinor = std::count_if(candidates.begin(), candidates.end(),
                                          [](const AxisTick& t) { return t.major; }) < 2;
    const float markRoom = 0.012f * (high - low), labelRoom = 0.1f * (high - low);
    std::vector<float> labelled;
    const auto clear = [](const std::vector<float>& placed, float at, float room) {
        return std::none_of(placed.begin(), placed.end(),
                            [&](float p) { return std::abs(p - at) < room; });
    };
    std::vector<float> marks;
    for (AxisTick& t : candidates) {
        if (!clear(marks, t.at, markRoom)) continue;
        marks.push_back(t.at);
        if (!t.major && !labelMinor) t.label.clear();
        if (!t.label.empty() && clear(labelled, t.at, labelRoom))
            labelled.push_back(t.at);
        else
            t.label.clear();
        ticks.push_back(t);
    }
    std::sort(ticks.begin(), ticks.end(),
              [](const AxisTick& a, const AxisTick& b) { return a.at < b.at; });
    return ticks;
}

std::string scaleLabel(const GateScale& s) {
    char text[128];
    switch (s.kind) {
        case GateScale::Kind::None:
            return "linear";
        case GateScale::Kind::Asinh:
            if (std::abs(s.M * std::log(10.0) - 1) < 1e-12 && s.A == 0) {
                std::snprintf(text, sizeof text, "arcsinh(x/%g)", s.T / std::sinh(1.0));
                return text;
            }
            break;
        default:
            break;
    }
    std::string out = scaleKindName(s.kind);
    for (const auto& [name, value] : scaleParameters(s)) {
        std::snprintf(text, sizeof text, " %s=%g", name, value);
        out += text;
    }
    return out;
}

}  // namespace sepal::app
