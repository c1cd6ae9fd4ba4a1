#include "hiremate/milp/neighbourhood_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "hiremate/common/error.h"
#include "hiremate/common/random.h"

namespace hiremate::milp {

NeighbourhoodResult neighbourhood_search(Model& model, std::vector<double> x, const std::vector<std::vector<Var>>& groups,
                                         const Deadline& deadline, const NeighbourhoodOptions& opt) {
  HM_ASSERT(x.size() == model.num_vars(), "neighbourhood_search: one value per variable");
  NeighbourhoodResult out;
  const int n = static_cast<int>(groups.size());
  out.width = std::clamp(opt.width, 1, std::max(n, 1));
  out.x = std::move(x);
  if (n < 2) return out;  // one group: the window is the whole model
  const std::vector<double> lower = model.col_lower(), upper = model.col_upper();
  const std::vector<std::pair<Var, double>> given_start = model.start();
  double best = model.objective_value(out.x);
  SplitMix64 rng{opt.seed};
  std::vector<int> order;
  size_t next = 0;  // the next window of `order` to try
  auto shuffle = [&] {
    order.resize(static_cast<size_t>(n - out.width + 1));
    std::iota(order.begin(), order.end(), 0);
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[static_cast<size_t>(rng.between(0, static_cast<int64_t>(i) - 1))]);
    next = 0;
  };
  shuffle();
  while (out.width < n) {
    const double left = deadline.left();
    if (left < 0.05) break;
    if (next == order.size()) {  // no window of this width improves the incumbent: wider ones
      ++out.width;
      shuffle();
      continue;
    }
    const int a = order[next++];
    for (int g = 0; g < n; ++g)
      if (g < a || g >= a + out.width)
        for (Var v : groups[static_cast<size_t>(g)]) model.set_bounds(v, out.x[static_cast<size_t>(v)], out.x[static_cast<size_t>(v)]);
    std::vector<std::pair<Var, double>> start;
    for (size_t v = 0; v < out.x.size(); ++v)
      if (out.x[v] != 0) start.push_back({static_cast<Var>(v), out.x[v]});
    model.set_start(std::move(start));
    Options so = opt.solve;
    so.time_limit = std::min(opt.round_seconds, left);
    Result r = solve(model, so);
    for (int g = 0; g < n; ++g)
      for (Var v : groups[static_cast<size_t>(g)]) model.set_bounds(v, lower[static_cast<size_t>(v)], upper[static_cast<size_t>(v)]);
    model.set_start(given_start);
    ++out.rounds;
    if (has_solution(r.status) && r.objective < best - 1e-9 * std::max(1.0, std::abs(best))) {
      best = r.objective;
      out.x = std::move(r.solution);
      ++out.improvements;
      shuffle();  // every window again around the new incumbent
    }
  }
  out.width = std::min(out.width, n - 1);  // the widest tried
  return out;
}

}  // namespace hiremate::milp
