// Built instead of the torch bridge when LibTorch was not found (or HIREMATE_WITH_TORCH=OFF):
// the same API, each call a BadInput that says how to get the feature.
#include "hiremate/common/error.h"
#include "hiremate/torch/profile.h"
#include "hiremate/torch/train.h"

namespace hiremate::torchbridge {
namespace {
[[noreturn]] void unavailable() {
  throw BadInput("this hiremate was built without LibTorch, so it cannot capture or profile PyTorch models; "
                 "install libtorch-dev (scripts/install-deps.sh) and rebuild with -DHIREMATE_WITH_TORCH=ON");
}
}  // namespace

bool available() { return false; }
void set_plugin_path(const std::string&) {}
ProfiledModel profile_model(const std::string&, const std::string&, const ProfileOptions&) { unavailable(); }
Reference measure_reference(const std::string&, const std::string&, const ProfileOptions&) { unavailable(); }
TrainReport train_model(const std::string&, const std::string&, const TrainOptions&) { unavailable(); }

}  // namespace hiremate::torchbridge
