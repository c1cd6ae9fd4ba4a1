// networkx node-link JSON, as a generic DAG and as a training graph (both schemas).
#include "fuzz_graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hiremate::fuzz::parse_forced(data, size, hiremate::GraphFormat::NodeLink, false);
  hiremate::fuzz::parse_forced(data, size, hiremate::GraphFormat::NodeLink, true);
  return 0;
}
