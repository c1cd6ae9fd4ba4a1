#include "hiremate/solvers/checkmate/model_size.h"

#include <fmt/format.h>

namespace hiremate::checkmate {

int64_t estimated_variables(const Graph& g) {
  const int64_t t = static_cast<int64_t>(g.compute.size());
  int64_t edges = 0;
  for (const auto& c : g.compute) edges += static_cast<int64_t>(c.deps.size());
  return 3 * (t * (t + 1) / 2) + t * edges;
}

std::optional<std::string> too_big(const Graph& g, int64_t max_variables) {
  const int64_t n = estimated_variables(g);
  if (n <= max_variables) return std::nullopt;
  return fmt::format("the graph is too big for this solver: {} compute nodes would need about {} MILP variables "
                     "(the limit is {}, as memory grows with the square of the node count); use --solver "
                     "hiremate or --solver twremat",
                     g.compute.size(), n, max_variables);
}

}  // namespace hiremate::checkmate
