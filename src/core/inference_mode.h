// Inference mode (torch.inference_mode) for this thread. Storages allocated while it is on belong to
// inference tensors (StorageImpl::is_inference; views and detached aliases of them share the storage and so
// are inference tensors too, as in PyTorch), which autograd refuses to save and which in-place writes refuse
// after the mode ends. Grad mode (autograd/grad_mode.h) is the other half of the mode: inference_mode turns
// it off as well.
#pragma once

namespace tandem {

struct InferenceMode {
  static bool is_enabled() { return enabled_; }
  static void set_enabled(bool on) { enabled_ = on; }

 private:
  static thread_local bool enabled_;
};

}  // namespace tandem
