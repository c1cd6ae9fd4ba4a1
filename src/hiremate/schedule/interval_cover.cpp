#include "hiremate/schedule/interval_cover.h"

#include <algorithm>

namespace hiremate {

IntervalCoverDual interval_cover_dual(const IntervalCover& cover, int64_t cap, int max_iterations,
                                      std::chrono::steady_clock::time_point deadline) {
  IntervalCoverDual out;
  const int n = static_cast<int>(cover.floor.size());
  // D_t from a difference array of the items' bytes.
  std::vector<double> demand(n + 1, 0);
  for (const auto& it : cover.items) {
    demand[it.first] += static_cast<double>(it.bytes);
    demand[it.last + 1] -= static_cast<double>(it.bytes);
  }
  double around = 0;
  bool tight = false;
  for (int t = 0; t < n; ++t) {
    if (cover.floor[t] > cap) out.infeasible = true;
    around += demand[t];
    demand[t] = around - static_cast<double>(cap - cover.floor[t]);
    tight = tight || demand[t] > 0;
  }
  if (!tight || out.infeasible) return out;  // keep-all fits (0 is the bound), or nothing does

  std::vector<double> y(n, 0), prefix(n + 1, 0), sub(n + 1, 0);
  // The start: one row's own LP (a fractional knapsack, greedy by cost per byte) at the moment of the
  // most demand among a few, y_t its critical cost per byte; then L(y) is that row's optimum, so the
  // steps start at least at what one moment alone proves (the loss-point bound where t is the
  // loss), where they would start from 0 at y = 0.
  {
    std::vector<int> order(n);
    for (int t = 0; t < n; ++t) order[t] = t;
    const int tries = std::min(n, kStartRows);
    std::partial_sort(order.begin(), order.begin() + tries, order.end(),
                      [&](int a, int b) { return demand[a] > demand[b]; });
    std::vector<std::pair<double, double>> row;  // (cost per byte, bytes) of the items around t
    for (int k = 0; k < tries && demand[order[k]] > 0; ++k) {
      const int t = order[k];
      row.clear();
      for (const auto& it : cover.items)
        if (it.first <= t && t <= it.last && it.bytes > 0)
          row.emplace_back(it.cost / static_cast<double>(it.bytes), static_cast<double>(it.bytes));
      std::sort(row.begin(), row.end());
      double need = demand[t], value = 0, ratio = 0;
      for (const auto& [r, m] : row) {
        ratio = r;
        value += r * std::min(m, need);
        need -= m;
        if (need <= 0) break;
      }
      if (need > 0 || value <= out.bound) continue;
      out.bound = value;
      std::fill(y.begin(), y.end(), 0.0);
      y[t] = ratio;
    }
  }
  double scale = 2.0;
  int stalled = 0;
  // Polyak's target: the cost of dropping every item (a solution of the relaxation, so never below
  // the LP's optimum or any L(y)).
  double target = 0;
  for (const auto& it : cover.items) target += it.cost;
  for (int step_no = 0; step_no < max_iterations; ++step_no) {
    if ((step_no & 15) == 0 && std::chrono::steady_clock::now() > deadline) break;
    for (int t = 0; t < n; ++t) prefix[t + 1] = prefix[t] + y[t];
    std::fill(sub.begin(), sub.end(), 0.0);
    double value = 0;
    for (int t = 0; t < n; ++t) value += demand[t] > 0 ? demand[t] * y[t] : 0;
    for (const auto& it : cover.items) {
      const double m = static_cast<double>(it.bytes);
      const double reduced = it.cost - m * (prefix[it.last + 1] - prefix[it.first]);
      if (reduced < 0) {  // x_i = 1 minimizes the Lagrangian: the item is dropped
        value += reduced;
        sub[it.first] += m;
        sub[it.last + 1] -= m;
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
    // The subgradient at moment t: D_t minus the bytes the dropped items free there.
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

}  // namespace hiremate
