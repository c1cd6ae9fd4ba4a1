// Rotor's dynamic program with options (research/hiremate.md §4.4, research/peers.md §3.2).
//
// Stages 0..L-1 are the chain's blocks, stage L the loss. x_s is block s's output (x_{-1}: nothing,
// the model inputs are sources), g_s its grad. Opt(a, b, m) is the least time to run the forwards and
// backwards of stages a..b with m memory units, given that x_{a-1} is resident and, when b < L, that
// g_b is too (both inside m). On return g_{a-1} is resident and a..b hold nothing else. Either
//  - full save with option k of block a: run its forward (x_a, mem_k left), Opt(a+1, b, m - x_{a-1} -
//    mem_k) (nothing when a = b), then its backward; when a = b and the forward leaves the backward
//    nothing (mem_k = 0, output not read), the backward runs alone: a block whose backward needs
//    only its input is not run forward again (what Checkmate finds on such chains); or
//  - checkpoint at j in (a, b]: fast-forward a..j-1 (each freeing its input but x_{a-1}), then
//    Opt(j, b, m - x_{a-1}) (x_{a-1} stays as the checkpoint), then Opt(a, j-1, m).
// Stage L runs the loss (x_{L-1} in, g_{L-1} out). Memory while a block's ops run is its measured
// peak (chain.h: internal bytes and its own interface data while resident) plus what lies outside:
//   forward of a  : its forward peak + g_b (b < L)
//   fast forward l: its peak + x_{a-1} (l > a: the checkpoint) + g_b (b < L)
//   backward of a : its backward peak (g_a, x_{a-1}, the grads it writes, x_a when read or rewritten)
//   loss          : x_{L-1} + its outputs and overhead
// and, around every sub-problem, x_{a-1} and what full saves keep (x_{a-1} + mem_k). Each datum is
// counted from before its first write to after its last read, so the schedule that frees everything
// right after its last use (insert_frees) never holds more: the accounting bounds the simulator's.
// Limit (Rotor's): schedules are persistent. Checkmate may beat it by keeping a block's saved bytes
// while dropping its input, which the block before recomputes anyway (tests/hierarchy/test_rotor.cpp).
//
// Memory unit: every byte count is rounded UP to whole units and the budget DOWN, so a plan the DP
// accepts fits in bytes. The unit is chosen from the chain alone (choose_unit), never from the budget,
// so a larger budget never yields a slower plan. One table answers every budget up to its size.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "hiremate/hierarchy/chain.h"

namespace hiremate::hierarchy {

struct ChainStep {
  enum class Kind { FastForward, Forward, Backward, Loss };
  Kind kind = Kind::Loss;
  int block = -1;
  int option = -1;  // Forward / Backward
  bool operator==(const ChainStep& o) const { return kind == o.kind && block == o.block && option == o.option; }
};

struct Discretization {
  int64_t unit = 1;    // bytes per memory unit
  int64_t slots = 0;   // units that hold every requirement of the chain (larger budgets change nothing)
};
// "Enough" memory is what keeping everything needs (every block's output and largest saved bytes,
// plus the largest local peak); budgets past it get its plan. The unit is the GCD of the chain's byte
// counts when `max_slots` of them cover "enough" (the DP is then exact in bytes); otherwise
// enough / max_slots, rounded up. Tables are capped at about 2^25 entries (L^2 / 2 x slots), which
// coarsens the unit of long chains.
Discretization choose_unit(const Chain& chain, int64_t max_slots);

class RotorTable {
 public:
  // Fills Opt for every m in 0..m_max; stops early (timed_out()) past `deadline`.
  RotorTable(const Chain& chain, int64_t unit, int64_t m_max, std::chrono::steady_clock::time_point deadline);
  bool timed_out() const { return timed_out_; }
  int64_t m_max() const { return m_max_; }
  // Opt(0, L, m): +infinity when no schedule fits m units.
  double time(int64_t m) const;
  // The smallest m <= m_max with a finite time, if any.
  std::optional<int64_t> least_feasible() const;
  // The optimal sequence for m units (finite time(m) required).
  std::vector<ChainStep> sequence(int64_t m) const;

 private:
  size_t row(int a, int b) const { return (offset_[a] + static_cast<size_t>(b - a)) * static_cast<size_t>(m_max_ + 1); }
  struct FullSave {
    int64_t held = 0, lo = 0;  // units held across the right part; the least m
    double time = 0;
    bool skip_forward = false;
  };
  struct Checkpoint {  // accumulated over j = a+1, a+2, ...
    int64_t xa = 0, need = 0, lo = 0;
    double time = 0;
  };
  void fill(int a, int b);
  FullSave full_save(int a, int b, size_t k) const;
  void next_checkpoint(int a, int b, int j, Checkpoint& cp) const;
  bool forward_useless(int a, int b, int k) const;
  void expand(int a, int b, int64_t m, std::vector<ChainStep>& out) const;

  const Chain* chain_;
  int L_ = 0;
  int64_t m_max_ = 0;
  bool timed_out_ = false;
  std::vector<size_t> offset_;
  // Per stage, in units.
  std::vector<int64_t> x_, gout_, ff_;
  std::vector<std::vector<int64_t>> fwd_, bwd_, mem_;
  int64_t loss_need_ = 0;
  std::vector<double> value_;
};

// The schedule of a sequence: the items' compute ops (and the loss marker) with insert_frees.
Schedule to_schedule(const Graph& g, const Chain& chain, const std::vector<ChainStep>& items);

}  // namespace hiremate::hierarchy
