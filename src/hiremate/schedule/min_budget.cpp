#include "hiremate/schedule/min_budget.h"

#include <fmt/format.h>

#include <algorithm>

namespace hiremate {

int64_t min_budget(const Graph& g) {
  int64_t need = 0;
  for (const auto& c : g.compute) {
    int64_t m = c.overhead;
    for (NodeId d : c.deps)
      if (!g.data[d].source) m += g.data[d].bytes;
    for (NodeId d : c.outputs)
      if (g.data[d].kind != DataKind::Phantoms || c.kind != ComputeKind::Forward) m += g.data[d].bytes;
    need = std::max(need, m);
  }
  return g.source_bytes() + need;
}

std::string below_min_budget_note(int64_t budget, int64_t floor_budget) {
  return fmt::format("no schedule fits {} bytes: some node needs {} bytes resident while it runs (its inputs, "
                     "outputs and overhead, plus the sources); the budget must be at least that",
                     budget, floor_budget);
}

}  // namespace hiremate
