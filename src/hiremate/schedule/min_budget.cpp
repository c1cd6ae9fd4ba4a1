#include "hiremate/schedule/min_budget.h"

#include <fmt/format.h>

#include <algorithm>

#include "hiremate/common/units.h"

namespace hiremate {

double MinBudget::percent_of_keep_all(int64_t keep_all_peak) const {
  const int64_t keep_all_activations = keep_all_peak - sources;
  return keep_all_activations > 0 ? 100.0 * static_cast<double>(activations()) / static_cast<double>(keep_all_activations)
                                  : 100.0;
}

std::string MinBudget::why(const Graph& g) const {
  const auto& c = g.compute[node];
  return fmt::format("node '{}' ({}): inputs {} B + outputs {} B + overhead {} B resident while it runs", c.name,
                     to_string(c.kind), group_digits(inputs), group_digits(outputs), group_digits(overhead));
}

MinBudget min_budget_details(const Graph& g) {
  MinBudget m;
  m.sources = g.source_bytes();
  int64_t need = -1;
  for (NodeId n = 0; n < static_cast<NodeId>(g.compute.size()); ++n) {
    const auto& c = g.compute[n];
    int64_t in = 0, out = 0;
    for (NodeId d : c.deps)
      if (!g.data[d].source) in += g.data[d].bytes;
    // A forward node's phantoms are made by its backward's recomputation, not held while it runs.
    for (NodeId d : c.outputs)
      if (g.data[d].kind != DataKind::Phantoms || c.kind != ComputeKind::Forward) out += g.data[d].bytes;
    if (in + out + c.overhead > need) {
      need = in + out + c.overhead;
      m.node = n;
      m.inputs = in;
      m.outputs = out;
      m.overhead = c.overhead;
    }
  }
  m.bytes = m.sources + std::max<int64_t>(need, 0);
  return m;
}

int64_t min_budget(const Graph& g) { return min_budget_details(g).bytes; }

}  // namespace hiremate
