// Helpers of the torch tests: where the traced test models are, and profiling them once per test
// binary (a profile takes seconds; several tests read the same one).
#pragma once
#include <map>
#include <string>

#include "hiremate/torch/profile.h"

namespace hiremate::torchtest {

inline std::string model_path(const std::string& name) { return std::string(HIREMATE_TORCH_MODELS) + "/" + name + ".pt"; }
inline std::string inputs_path(const std::string& name) {
  return std::string(HIREMATE_TORCH_MODELS) + "/" + name + ".inputs.pt";
}

// One thread and few runs: stable enough on a shared machine, fast enough for ctest.
inline torchbridge::ProfileOptions test_options() {
  torchbridge::ProfileOptions o;
  o.runs = 5;
  o.threads = 1;
  o.cpu_time = true;  // the test machine is shared: CPU time, not wall time
  return o;
}

inline const torchbridge::ProfiledModel& profiled(const std::string& name) {
  static std::map<std::string, torchbridge::ProfiledModel> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, torchbridge::profile_model(model_path(name), inputs_path(name), test_options())).first;
  return it->second;
}

}  // namespace hiremate::torchtest
