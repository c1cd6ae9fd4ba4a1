#include "hiremate/graph/adopt_times.h"

#include <string>

#include "hiremate/common/error.h"

namespace hiremate {

void adopt_times(Graph& to, const Graph& from, const std::string& from_origin) {
  auto mismatch = [&](const std::string& what) {
    throw BadInput("the times of " + from_origin + " do not fit graph '" + to.name + "': " + what +
                   "; profile this model again (hiremate profile) and pass that graph");
  };
  if (from.compute.size() != to.compute.size() || from.data.size() != to.data.size())
    mismatch(std::to_string(from.compute.size()) + " compute / " + std::to_string(from.data.size()) +
             " data nodes there, " + std::to_string(to.compute.size()) + " / " + std::to_string(to.data.size()) +
             " here");
  for (size_t i = 0; i < to.compute.size(); ++i) {
    const auto &a = to.compute[i], &b = from.compute[i];
    if (a.name != b.name || a.kind != b.kind)
      mismatch("compute node " + std::to_string(i) + " is " + to_string(b.kind) + " '" + b.name + "' there, " +
               to_string(a.kind) + " '" + a.name + "' here");
  }
  for (size_t i = 0; i < to.data.size(); ++i) {
    const auto &a = to.data[i], &b = from.data[i];
    if (a.name != b.name || a.bytes != b.bytes)
      mismatch("data node " + std::to_string(i) + " is '" + b.name + "' of " + std::to_string(b.bytes) +
               " bytes there, '" + a.name + "' of " + std::to_string(a.bytes) + " bytes here");
  }
  for (size_t i = 0; i < to.compute.size(); ++i) to.compute[i].time = from.compute[i].time;
  to.time_unit = from.time_unit;
}

}  // namespace hiremate
