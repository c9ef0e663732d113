// Anomaly mode (torch.autograd.detect_anomaly): while on, each node records the traceback of the forward call
// that created it, and the engine checks each node's returned gradients for NaN. The Python layer supplies
// the two things the core cannot do itself: capturing a Python traceback and issuing a Python warning.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tandem::autograd {

struct Node;

// Process-wide, as PyTorch's (a forward on one thread and its backward on another see the same mode). Relaxed
// atomics: a plain load on the hot path, and no data race when a thread flips the mode while others run.
struct AnomalyMode {
  static bool is_enabled() { return enabled_.load(std::memory_order_relaxed); }
  static bool should_check_nan() { return check_nan_.load(std::memory_order_relaxed); }
  static void set_enabled(bool enabled, bool check_nan = true) {
    check_nan_.store(check_nan, std::memory_order_relaxed);
    enabled_.store(enabled, std::memory_order_relaxed);
  }

 private:
  static std::atomic<bool> enabled_;
  static std::atomic<bool> check_nan_;
};

// Set once by the Python bindings: the current (forward) traceback as text, and how to issue a warning.
using ForwardTraceCapture = std::string (*)();
using AnomalyWarning = void (*)(const std::string& message);
void set_anomaly_callbacks(ForwardTraceCapture capture, AnomalyWarning warn);

// Node construction in anomaly mode: remembers where in the forward pass the node was created.
std::unique_ptr<const std::string> capture_forward_trace();

// Runs node.apply in anomaly mode: NaN gradients raise "Function 'X' returned nan values in its 0th output."
// (when check_nan), and any error from the node is preceded by PyTorch's warning naming the node and the
// forward traceback that created it.
std::vector<Tensor> apply_with_anomaly_checks(Node& node, std::vector<Tensor>&& grads);

}  // namespace tandem::autograd
