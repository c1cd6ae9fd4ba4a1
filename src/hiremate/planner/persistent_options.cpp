#include "hiremate/planner/persistent_options.h"

#include <algorithm>
#include <optional>

#include "hiremate/hierarchy/hilp_model.h"

namespace hiremate::planner {

std::vector<hierarchy::Option> persistent_save_options(const hierarchy::ClusterProblem& cg,
                                                       const hierarchy::HGraph& hg, int64_t peak, int64_t floor,
                                                       int save_points, double per_plan,
                                                       const std::function<double()>& seconds_left) {
  std::vector<hierarchy::Option> out;
  std::vector<int64_t> at_loss;  // of the plans found: a save budget they already meet adds nothing
  auto solve = [&](std::optional<int64_t> save) {
    const double limit = std::min(per_plan, seconds_left() / 4);
    if (limit <= 0.01) return false;
    hierarchy::HilpResult r = hierarchy::persistent_hilp(hg, peak, save, limit, /*exchange=*/true, /*drops=*/false);
    if (!r.has_schedule) return true;
    if (std::find(at_loss.begin(), at_loss.end(), r.sim.bytes_at_loss) != at_loss.end()) return true;
    at_loss.push_back(r.sim.bytes_at_loss);
    out.push_back(hierarchy::make_option(cg, r.schedule, "persistent", peak));
    return true;
  };
  if (!solve(std::nullopt) || at_loss.empty()) return out;
  const int64_t most = at_loss.front();
  for (int k = 1; k <= save_points && most > floor; ++k) {
    const int64_t save = most - (most - floor) * k / save_points;
    // A plan found for a higher target may already hold no more than this one.
    if (std::any_of(at_loss.begin(), at_loss.end(), [&](int64_t a) { return a <= save; })) continue;
    if (!solve(save)) break;
  }
  return out;
}

}  // namespace hiremate::planner
