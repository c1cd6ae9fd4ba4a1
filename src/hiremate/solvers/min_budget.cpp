#include "hiremate/solvers/min_budget.h"

#include <fmt/format.h>

#include "hiremate/common/units.h"
#include "hiremate/solvers/solver.h"

namespace hiremate {

int64_t keep_all_activation_peak(const Graph& g) { return baseline(g).peak - g.source_bytes(); }

int64_t parse_activation_budget(const std::string& text, const Graph& g) {
  if (text == "min") return min_budget_details(g).activations();
  return parse_budget(text, keep_all_activation_peak(g));
}

double min_budget_percent(const Graph& g, const MinBudget& m) { return m.percent_of_keep_all(baseline(g).peak); }

std::string below_min_budget_note(const Graph& g, int64_t budget) {
  const MinBudget m = min_budget_details(g);
  const std::string with_sources =
      m.sources > 0 ? fmt::format(", {} bytes with the sources' {} B", budget, group_digits(m.sources)) : "";
  return fmt::format("no schedule fits {} B of activations (inputs excluded{}): {}; the budget must be at least {} B "
                     "of activations, {:.1f} % {} (the floor below which no schedule exists; 'min' plans there)",
                     group_digits(budget - m.sources), with_sources, m.why(g), group_digits(m.activations()),
                     min_budget_percent(g, m), kActivationConvention);
}

}  // namespace hiremate
