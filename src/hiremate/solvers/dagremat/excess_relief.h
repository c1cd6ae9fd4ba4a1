// What the absence of some bytes from stages from..r-1 relieves of their excess over the cap:
// the sum over those stages of min(bytes, excess). The eviction sweep (evict_sweep.h) asks it for
// every candidate of a step, each with its own bytes and resume stage r, all from the same stage:
// one loop over the stages per candidate took 95 % of the sweep's own time on the 20,000-node dense
// DAG of issue 23 (thousands of exceeding stages ahead, hundreds of candidates per step). Here the
// exceeding stages are cut into blocks, each with its excesses sorted and summed, so a query reads a
// whole block by binary search and only the last, partial one stage by stage:
// O(stages / block * log block + block) per query after O(stages log block) to build.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hiremate::dagremat {

class ExcessRelief {
 public:
  // `peak`: every stage's peak; stages from `from` on count.
  ExcessRelief(const std::vector<int64_t>& peak, int64_t cap, int from);
  // The excess of stages from..r-1 that `bytes` fewer would remove.
  int64_t operator()(int64_t bytes, int r) const;

 private:
  static constexpr size_t kBlock = 64;
  std::vector<int> stage_;                       // the exceeding stages, in order
  std::vector<int64_t> excess_, sorted_, sums_;  // their excess; sorted and summed within each block
};

}  // namespace hiremate::dagremat
