#include "hiremate/solvers/dagremat/covering_dual.h"

#include <algorithm>
#include <vector>

namespace hiremate::dagremat {

CoveringDual covering_dual(const StageDag& dag, int64_t cap, int max_iterations,
                           std::chrono::steady_clock::time_point deadline) {
  CoveringDual out;
  const int n = dag.n;
  // The gaps that can be dropped (the relaxation's variables), and D_t.
  std::vector<int> gaps;
  std::vector<double> demand(n, 0);
  for (size_t gi = 0; gi < dag.gaps.size(); ++gi) {
    const Gap& g = dag.gaps[gi];
    if (!dag.relieves(g)) continue;
    gaps.push_back(static_cast<int>(gi));
    demand[g.lo + 1] += static_cast<double>(dag.mem[g.value]);
    if (g.hi < n) demand[g.hi] -= static_cast<double>(dag.mem[g.value]);
  }
  double around = 0;
  bool tight = false;
  for (int t = 0; t < n; ++t) {
    around += demand[t];  // the difference array's running sum: the gaps' bytes around t
    demand[t] = around - static_cast<double>(cap - dag.moment_floor(t));
    tight = tight || demand[t] > 0;
  }
  if (!tight) return out;  // keep-all fits: 0 is the bound

  std::vector<double> y(n, 0), prefix(n + 1, 0), sub(n + 1, 0);
  // From y = 0 (L = 0): the first subgradient is D itself.
  double scale = 2.0;  // Polyak's factor, halved when the bound stalls
  int stalled = 0;
  // The target of Polyak's step: the cost of dropping every gap (the relaxation's trivial solution,
  // so never below the LP's optimum or any L(y)).
  double target = 0;
  for (int gi : gaps) target += dag.cost[dag.gaps[gi].value];
  for (int it = 0; it < max_iterations; ++it) {
    if ((it & 15) == 0 && std::chrono::steady_clock::now() > deadline) break;
    for (int t = 0; t < n; ++t) prefix[t + 1] = prefix[t] + y[t];
    std::fill(sub.begin(), sub.end(), 0.0);
    double value = 0;
    for (int t = 0; t < n; ++t) value += demand[t] > 0 ? demand[t] * y[t] : 0;
    for (int gi : gaps) {
      const Gap& g = dag.gaps[gi];
      const double m = static_cast<double>(dag.mem[g.value]);
      const double reduced = dag.cost[g.value] - m * (prefix[g.hi] - prefix[g.lo + 1]);
      if (reduced < 0) {  // x_g = 1 minimizes the Lagrangian: the gap is dropped
        value += reduced;
        sub[g.lo + 1] += m;
        sub[g.hi] -= m;
      }
    }
    ++out.iterations;
    if (value > out.bound) {
      out.bound = value;
      stalled = 0;
    } else if (++stalled >= 20) {
      scale /= 2;
      stalled = 0;
      if (scale < 1e-4) break;
    }
    // The subgradient at moment t: D_t minus the bytes the dropped gaps free there.
    double covered = 0, norm = 0;
    for (int t = 0; t < n; ++t) {
      covered += sub[t];
      sub[t] = demand[t] > 0 ? demand[t] - covered : 0;
      norm += sub[t] * sub[t];
    }
    if (norm <= 0) break;  // y is optimal for the LP
    const double step = scale * (target - value) / norm;
    for (int t = 0; t < n; ++t) y[t] = std::max(0.0, y[t] + step * sub[t]);
  }
  return out;
}

}  // namespace hiremate::dagremat
