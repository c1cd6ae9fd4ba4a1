#include "hiremate/milp/start_refutes.h"

namespace hiremate::milp {

std::vector<double> start_refuting_infeasible(const Model& model) {
  if (model.start().empty()) return {};
  std::vector<double> x(model.num_vars(), 0.0);
  for (const auto& [v, value] : model.start()) x[static_cast<size_t>(v)] = value;
  if (model.max_violation(x) > 1e-6) return {};
  return x;
}

}  // namespace hiremate::milp
