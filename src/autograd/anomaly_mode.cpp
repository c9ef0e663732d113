#include "autograd/anomaly_mode.h"

#include "autograd/node.h"
#include "core/error.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"

namespace tandem::autograd {
namespace {

ForwardTraceCapture capture_callback = nullptr;
AnomalyWarning warning_callback = nullptr;

void warn_error_detected(const Node& node) {
  if (!warning_callback) return;
  std::string message = "Error detected in " + node.name() + ". ";
  if (node.forward_trace)
    message += "Traceback of forward call that caused the error:\n" + *node.forward_trace;
  else
    message +=
        "No forward pass information available. Enable detect anomaly during forward pass for more "
        "information.";
  warning_callback(message);
}

}  // namespace

std::atomic<bool> AnomalyMode::enabled_{false};
std::atomic<bool> AnomalyMode::check_nan_{true};

void set_anomaly_callbacks(ForwardTraceCapture capture, AnomalyWarning warn) {
  capture_callback = capture;
  warning_callback = warn;
}

std::unique_ptr<const std::string> capture_forward_trace() {
  if (!capture_callback) return nullptr;
  return std::make_unique<const std::string>(capture_callback());
}

std::vector<Tensor> apply_with_anomaly_checks(Node& node, std::vector<Tensor>&& grads) {
  try {
    std::vector<Tensor> out = node.apply(std::move(grads));
    if (AnomalyMode::should_check_nan()) {
      for (size_t i = 0; i < out.size(); ++i) {
        if (!out[i].defined() || !(is_floating(out[i].dtype()) || is_complex(out[i].dtype()))) continue;
        GradModeGuard off(false);  // the check is not part of any graph (create_graph)
        TANDEM_CHECK(!item(any(isnan(out[i]))).to_bool(), Runtime, "Function '", node.name(),
                     "' returned nan values in its ", i, "th output.");
      }
    }
    return out;
  } catch (...) {
    warn_error_detected(node);
    throw;
  }
}

}  // namespace tandem::autograd
