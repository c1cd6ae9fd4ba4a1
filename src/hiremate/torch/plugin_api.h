// The torch bridge as a plugin: the `hiremate` command loads libhiremate_torch_plugin.so (with
// dlopen) only when a command needs torch, so that every other command starts without loading
// LibTorch (about a second of static initialisation). Torch-free.
#pragma once
#include "hiremate/torch/profile.h"
#include "hiremate/torch/train.h"

namespace hiremate::torchbridge {

constexpr int kPluginVersion = 3;  // TrainOptions::trace, ProfileOptions::debug

struct PluginApi {
  int version;
  ProfiledModel (*profile_model)(const std::string&, const std::string&, const ProfileOptions&);
  Reference (*measure_reference)(const std::string&, const std::string&, const ProfileOptions&);
  TrainReport (*train_model)(const std::string&, const std::string&, const TrainOptions&);
};

}  // namespace hiremate::torchbridge

// The plugin's one exported symbol.
extern "C" const hiremate::torchbridge::PluginApi* hiremate_torch_plugin_api();
