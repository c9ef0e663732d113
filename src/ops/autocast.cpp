#include "ops/autocast.h"

#include <unordered_map>

#include "autograd/grad_mode.h"
#include "core/autograd_meta.h"
#include "core/error.h"
#include "ops/copy.h"

namespace tandem::autocast {

namespace {

// A weight's cast, kept while the outermost autocast region lasts so that a layer used many times (an RNN
// over a sequence) casts its weights once. `version` detects an in-place write to the weight meanwhile.
struct CachedCast {
  Tensor source;  // held so that its address cannot be reused by another tensor while cached
  Tensor cast;
  uint32_t version;
};

struct ThreadState {
  bool enabled[kNumDeviceTypes] = {false, false};
  DType dtype[kNumDeviceTypes] = {DType::BFloat16, DType::Float16};  // indexed by DeviceType: cpu, cuda
  bool cache_enabled = true;
  bool suspended = false;
  int nesting = 0;
  std::unordered_map<const TensorImpl*, CachedCast> cache;
};

thread_local ThreadState state;

int slot(DeviceType t) { return static_cast<int>(t); }

bool is_cacheable(const Decision& d, const Tensor& t) {
  // Under no_grad the cast would carry no history, and a later use with grad would lose the weight's
  // gradient.
  if (!state.cache_enabled || d.policy != Policy::Lower || t.dtype() != DType::Float32 ||
      !autograd::GradMode::is_enabled())
    return false;
  const AutogradMeta* m = t.impl()->autograd();
  return m && m->requires_grad && !m->grad_fn && !m->view_base;  // a leaf that requires grad: a weight
}

// Which of two floating dtypes a promote op runs in: float32 wins over the autocast dtype; any other mix
// (float16 with bfloat16) is refused, as PyTorch's autocast does.
DType wider(DType current, DType next, DType lower) {
  if (current == DType::Float32 || next == DType::Float32) return DType::Float32;
  TANDEM_CHECK(
      current == lower && next == lower, Runtime,
      "Unexpected floating ScalarType in at::autocast::prioritize",
      "\nhint: inside autocast the floating inputs of this op must be float32 or the autocast dtype (",
      dtype_name(lower), "); convert the others first, e.g. .float()");
  return lower;
}

[[noreturn]] void throw_bce_banned() {
  TANDEM_THROW(
      Runtime,
      "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
      "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
      "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
      "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
      "safe to autocast.",
      "\nhint: pass the logits (before the sigmoid) to binary_cross_entropy_with_logits, or compute this "
      "loss inside `with tandem.autocast(device_type=\"cuda\", enabled=False):` on .float() inputs");
}

}  // namespace

thread_local bool detail::active = false;

void detail::refresh_active() { active = !state.suspended && (state.enabled[0] || state.enabled[1]); }

bool is_enabled(DeviceType type) { return state.enabled[slot(type)]; }
void set_enabled(DeviceType type, bool on) {
  state.enabled[slot(type)] = on;
  detail::refresh_active();
}
DType get_dtype(DeviceType type) { return state.dtype[slot(type)]; }
void set_dtype(DeviceType type, DType dtype) { state.dtype[slot(type)] = dtype; }
bool is_cache_enabled() { return state.cache_enabled; }
void set_cache_enabled(bool on) { state.cache_enabled = on; }
int increment_nesting() { return ++state.nesting; }
int decrement_nesting() { return --state.nesting; }
void clear_cache() { state.cache.clear(); }

bool set_suspended(bool suspended) {
  const bool prev = state.suspended;
  state.suspended = suspended;
  detail::refresh_active();
  return prev;
}

SuspendGuard::SuspendGuard() : prev_(state.suspended) {
  state.suspended = true;
  detail::refresh_active();
}
SuspendGuard::~SuspendGuard() {
  state.suspended = prev_;
  detail::refresh_active();
}

bool is_eligible(const Decision& d, const Tensor& t) {
  return t.device().type == d.device && is_floating(t.dtype()) && t.dtype() != DType::Float64;
}

Decision decide(Rule rule, const std::vector<const Tensor*>& tensors) {
  Decision d;
  for (const Tensor* t : tensors)
    if (t->device().is_cuda()) d.device = DeviceType::CUDA;
  if (!state.enabled[slot(d.device)]) return d;
  d.policy = d.device == DeviceType::CUDA ? rule.cuda : rule.cpu;
  const DType lower = state.dtype[slot(d.device)];
  switch (d.policy) {
    case Policy::None:
      break;
    case Policy::Lower:
      d.to = lower;
      break;
    case Policy::Fp32:
    case Policy::Fp32Output:
      d.to = DType::Float32;
      break;
    case Policy::Promote:
      d.to = lower;
      for (const Tensor* t : tensors)
        if (is_eligible(d, *t)) d.to = wider(d.to, t->dtype(), lower);
      break;
    case Policy::BannedBce:
      for (const Tensor* t : tensors)
        if (is_eligible(d, *t)) throw_bce_banned();
      d.policy = Policy::None;
      break;
  }
  return d;
}

Tensor cast(const Decision& d, const Tensor& t) {
  if (d.policy == Policy::None || d.policy == Policy::Fp32Output || t.dtype() == d.to || !is_eligible(d, t))
    return t;
  if (!is_cacheable(d, t)) return to_dtype(t, d.to);
  auto it = state.cache.find(t.impl());
  if (it != state.cache.end() && it->second.version == t.version() && it->second.cast.dtype() == d.to)
    return it->second.cast;
  Tensor out = to_dtype(t, d.to);
  state.cache[t.impl()] = CachedCast{t, out, t.version()};
  return out;
}

}  // namespace tandem::autocast
