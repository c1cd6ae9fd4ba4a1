// TW-Remat "p remat2" text; an accepted graph must also export back to the format.
#include "fuzz_graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hiremate::fuzz::parse_forced(data, size, hiremate::GraphFormat::PRemat2, false);
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    hiremate::premat2_memlimit(text);
  } catch (const hiremate::BadInput&) {
  }
  return 0;
}
