// hiremate's own graph JSON ("format": "hiremate-graph").
#include "fuzz_graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hiremate::fuzz::parse_forced(data, size, hiremate::GraphFormat::Hiremate, false);
  return 0;
}
