// The CLI's side of the plugin (plugin_api.h): finds libhiremate_torch_plugin.so next to the
// executable (or where set_plugin_path says, or where it was built), loads it on first use.
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>

#include "hiremate/common/error.h"
#include "hiremate/torch/plugin_api.h"

namespace hiremate::torchbridge {
namespace {

std::string& plugin_override() {
  static std::string path;
  return path;
}

std::string next_to_executable() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string exe(buf, static_cast<size_t>(n));
  return exe.substr(0, exe.find_last_of('/') + 1) + "libhiremate_torch_plugin.so";
}

const PluginApi& plugin() {
  static const PluginApi* api = [] {
    std::string tried;
    std::vector<std::string> candidates;
    if (!plugin_override().empty()) candidates.push_back(plugin_override());
    candidates.push_back(next_to_executable());
    candidates.push_back(HIREMATE_TORCH_PLUGIN);
    for (const auto& path : candidates) {
      if (path.empty() || access(path.c_str(), R_OK) != 0) continue;
      void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        tried += std::string("; ") + dlerror();
        continue;
      }
      auto entry = reinterpret_cast<const PluginApi* (*)()>(dlsym(h, "hiremate_torch_plugin_api"));
      if (entry && entry()->version == kPluginVersion) return entry();
      tried += "; " + path + " is not a hiremate torch plugin of this version";
    }
    throw BadInput("cannot load the torch plugin libhiremate_torch_plugin.so (looked next to the executable, in "
                   "$HIREMATE_TORCH_PLUGIN and in " HIREMATE_TORCH_PLUGIN + tried +
                   "); rebuild hiremate with LibTorch or set HIREMATE_TORCH_PLUGIN");
  }();
  return *api;
}

}  // namespace

bool available() { return true; }
void set_plugin_path(const std::string& path) { plugin_override() = path; }
ProfiledModel profile_model(const std::string& m, const std::string& i, const ProfileOptions& o) {
  return plugin().profile_model(m, i, o);
}
Reference measure_reference(const std::string& m, const std::string& i, const ProfileOptions& o) {
  return plugin().measure_reference(m, i, o);
}
TrainReport train_model(const std::string& m, const std::string& i, const TrainOptions& o) {
  return plugin().train_model(m, i, o);
}

}  // namespace hiremate::torchbridge
