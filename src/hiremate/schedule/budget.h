// A memory budget as the memory model states it (DESIGN §2): the peak in bytes (sources included),
// and, for training graphs, optionally the most bytes resident right after the loss (what the
// forward half hands the backward half). "Does the plan fit" is asked here, and only here.
#pragma once
#include <cstdint>
#include <optional>

#include "hiremate/schedule/simulate.h"

namespace hiremate {

struct Budget {
  int64_t peak = 0;
  std::optional<int64_t> at_loss;  // none: only the peak applies

  // Whether a schedule with this peak and these bytes at the loss fits.
  bool admits(int64_t schedule_peak, int64_t bytes_at_loss) const {
    return schedule_peak <= peak && (!at_loss || bytes_at_loss <= *at_loss);
  }
  // Whether the simulator accepted the schedule and it fits.
  bool admits(const SimResult& r) const { return r.valid && admits(r.peak, r.bytes_at_loss); }
};

}  // namespace hiremate
