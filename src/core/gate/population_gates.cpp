#include "core/gate/population_gates.h"

namespace sepal {

GateTree withPopulationGates(const GateSelection& selection, const std::string& parameter,
                             const std::vector<std::string>& names) {
    GateTree tree = selection.tree;
    for (size_t k = 0; k < names.size(); ++k) {
        GateNode g;
        g.kind = GateNode::Kind::Rectangle;
        g.id = "population_" + std::to_string(k + 1);
        while (tree.find(g.id)) g.id += "_";
        g.name = names[k];
        g.parent = selection.population;
        GateDimension d;
        d.channel = parameter;
        d.min = double(k) + 0.5;
        d.max = double(k) + 1.5;
        g.dimensions.push_back(d);
        tree.gates.push_back(std::move(g));
    }
    return tree;
}

}  // namespace sepal
