// The plugin's entry point (plugin_api.h): the real bridge behind a table of function pointers.
#include "hiremate/torch/plugin_api.h"

extern "C" __attribute__((visibility("default"))) const hiremate::torchbridge::PluginApi* hiremate_torch_plugin_api() {
  using namespace hiremate::torchbridge;
  static const PluginApi api{kPluginVersion, &profile_model, &measure_reference, &train_model};
  return &api;
}
