// The schedule reader and the simulator: two fixed graphs (a training graph and a generic DAG from
// examples/), the schedule fuzzed. Reading may reject with BadInput; simulate() must never throw
// and must report a prefix consistent with the schedule.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/graph_io.h"
#include "hiremate/schedule/schedule_json.h"
#include "hiremate/schedule/simulate.h"

namespace {

const hiremate::Graph& graph(int which) {
  static const hiremate::Graph train = hiremate::load_graph(HIREMATE_SOURCE_DIR "/examples/mlp4-train.json");
  static const hiremate::Graph dag = hiremate::load_graph(HIREMATE_SOURCE_DIR "/examples/unet-dag.json");
  return which == 0 ? train : dag;
}

void check(const hiremate::Graph& g, const std::string& text, bool strict) {
  hiremate::Schedule s;
  try {
    s = hiremate::parse_schedule(g, text, "fuzz-input");
  } catch (const hiremate::BadInput&) {
    return;
  }
  hiremate::SimulateOptions opt;
  opt.enforce_fixed_order = opt.require_complete = strict;
  hiremate::SimResult r = hiremate::simulate(g, s, opt);
  if (r.invalid_op > s.ops.size() || r.timeline.size() > s.ops.size() || r.peak < 0) __builtin_trap();
  if (r.valid && r.timeline.size() != s.ops.size()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  for (int which : {0, 1})
    for (bool strict : {true, false}) check(graph(which), text, strict);
  return 0;
}
