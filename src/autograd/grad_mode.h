// Thread-local grad mode. Front ends read it (after the cheap autograd-meta null check) to decide whether
// to record a node; the engine turns it off during backward unless create_graph is set.
#pragma once
#include "core/inference_mode.h"

namespace tandem::autograd {

struct GradMode {
  static bool is_enabled() { return enabled_; }
  static void set_enabled(bool on) { enabled_ = on; }
  static bool is_inference() { return InferenceMode::is_enabled(); }
  static void set_inference(bool on) { InferenceMode::set_enabled(on); }

 private:
  static thread_local bool enabled_;
};

// Sets grad mode for a scope and restores the previous value on exit.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~GradModeGuard() { GradMode::set_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace tandem::autograd
