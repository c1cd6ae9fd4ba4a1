#include "hiremate/solvers/min_budget.h"

#include <fmt/format.h>

#include "hiremate/common/units.h"
#include "hiremate/solvers/solver.h"

namespace hiremate {

double min_budget_percent(const Graph& g, const MinBudget& m) { return m.percent_of_keep_all(baseline(g).peak); }

int64_t parse_activation_budget(const std::string& text, const Graph& g) {
  if (text == "min") return min_budget_details(g).activations();
  return parse_budget(text, baseline(g).peak - g.source_bytes());
}

std::string below_min_budget_note(const Graph& g, int64_t budget) {
  const MinBudget m = min_budget_details(g);
  return fmt::format("no schedule fits {} bytes: {}, plus the sources' {} B; the budget must be at least {} bytes "
                     "(the floor below which no schedule exists: {} B of activations, {:.1f} % of the keep-all activation "
                     "peak, inputs excluded; 'min' plans there)",
                     budget, m.why(g), group_digits(m.sources), m.bytes, group_digits(m.activations()),
                     min_budget_percent(g, m));
}

}  // namespace hiremate
