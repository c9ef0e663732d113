// Automatic mixed precision (tandem.autocast): the per-thread state and the casts that the front ends of
// PyTorch's listed ops make on entry. Each listed op starts with one line,
//   if (autocast::is_active()) return autocast::run(autocast::kMatmul, [](auto&... t) { return mm(t...); },
//   a, b);
// run() casts the tensor arguments by the op's rule for the device type they live on, then calls the op
// again with autocast suspended (as PyTorch's wrappers exclude the autocast key), so the ops it calls inside
// keep its dtypes and the casts are recorded by autograd ahead of the op (gradients return in each input's
// dtype). When autocast is off the whole cost is one thread-local read.
#pragma once
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace tandem::autocast {

// What an op does in an autocast region of one device type (PyTorch's CastPolicy).
enum class Policy : uint8_t {
  None,        // runs in its inputs' dtypes
  Lower,       // floating inputs cast to the autocast dtype (float16/bfloat16)
  Fp32,        // floating inputs cast to float32
  Promote,     // floating inputs cast to the widest floating dtype among them
  Fp32Output,  // the op's dtype= is set to float32 when its input is eligible (softmax, sum, cumsum, ...)
  BannedBce,   // binary_cross_entropy: PyTorch's "unsafe to autocast" error
};
// One rule per op: what it does under CUDA autocast and under CPU autocast (the two lists differ).
struct Rule {
  Policy cuda;
  Policy cpu;
};
inline constexpr Rule kNone{Policy::None, Policy::None};                  // unlisted compositions
inline constexpr Rule kLower{Policy::Lower, Policy::Lower};               // mm, bmm, matmul, addmm, conv
inline constexpr Rule kCudaLower{Policy::Lower, Policy::None};            // mv, addmv, addr
inline constexpr Rule kCudaFp32{Policy::Fp32, Policy::None};              // exp, log, pow, layer_norm, ...
inline constexpr Rule kFp32{Policy::Fp32, Policy::Fp32};                  // the losses, cdist
inline constexpr Rule kCpuFp32{Policy::None, Policy::Fp32};               // reflection/replication pads
inline constexpr Rule kCudaFp32Output{Policy::Fp32Output, Policy::None};  // softmax, sum, cumsum, norm
inline constexpr Rule kProd{Policy::Fp32Output, Policy::Fp32};            // prod
inline constexpr Rule kCudaPromote{Policy::Promote, Policy::None};        // dot, index_put, scatter_add
inline constexpr Rule kPromote{Policy::Promote, Policy::Promote};         // cat, stack (CPU's list)
inline constexpr Rule kCpuPromote{Policy::None, Policy::Promote};         // cat, stack
inline constexpr Rule kRnnCell{Policy::Lower, Policy::Promote};           // the fused lstm/gru cells
inline constexpr Rule kBce{Policy::BannedBce, Policy::Fp32};              // binary_cross_entropy

// ---- per-thread state (tandem.set_autocast_enabled & co) ----
bool is_enabled(DeviceType type);
void set_enabled(DeviceType type, bool on);
DType get_dtype(DeviceType type);  // float16 for cuda, bfloat16 for cpu unless set
void set_dtype(DeviceType type, DType dtype);
bool is_cache_enabled();
void set_cache_enabled(bool on);
int increment_nesting();
int decrement_nesting();
void clear_cache();  // drops the cached casts of weights (on leaving the outermost region)

namespace detail {
// True when autocast is enabled for some device type and not suspended: the one read a listed op makes.
extern thread_local bool active;
void refresh_active();
}  // namespace detail

inline bool is_active() { return detail::active; }

// Suspends autocast for a scope: inside a listed op (its inner calls keep its dtypes) and during backward
// (backward ops run in the dtypes autocast chose for the forward).
class SuspendGuard {
 public:
  SuspendGuard();
  ~SuspendGuard();
  SuspendGuard(const SuspendGuard&) = delete;
  SuspendGuard& operator=(const SuspendGuard&) = delete;

 private:
  bool prev_;
};

// Sets whether autocast is suspended on this thread and returns the previous setting: custom_bwd and
// activation checkpointing lift the engine's suspension to run a backward under the forward's autocast state,
// as PyTorch's do.
bool set_suspended(bool suspended);

// ---- the casts ----
// The policy that applies to an op with these tensor arguments: CUDA's when any of them is on a CUDA device
// (emulated or real), CPU's otherwise; None when autocast is off for that device type.
struct Decision {
  Policy policy = Policy::None;
  DeviceType device = DeviceType::CPU;
  DType to = DType::Float32;  // the dtype eligible inputs are cast to
};
Decision decide(Rule rule, const std::vector<const Tensor*>& tensors);
// `t` cast for `d` when it is eligible: floating, not float64, on d's device type (else unchanged). The cast
// is an ordinary autograd-recorded conversion; float32 weights cast to the autocast dtype are cached until
// the outermost region ends (when the cache is enabled), as PyTorch does.
Tensor cast(const Decision& d, const Tensor& t);
bool is_eligible(const Decision& d, const Tensor& t);

namespace detail {
inline void collect(std::vector<const Tensor*>& out, const Tensor& t) {
  if (t.defined()) out.push_back(&t);
}
inline void collect(std::vector<const Tensor*>& out, const std::optional<Tensor>& t) {
  if (t && t->defined()) out.push_back(&*t);
}
inline void collect(std::vector<const Tensor*>& out, const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) collect(out, t);
}
template <typename T>
void collect(std::vector<const Tensor*>&, const T&) {}

inline Tensor apply(const Decision& d, const Tensor& t) { return t.defined() ? cast(d, t) : t; }
inline std::optional<Tensor> apply(const Decision& d, const std::optional<Tensor>& t) {
  if (!t) return t;
  return apply(d, *t);
}
inline std::vector<Tensor> apply(const Decision& d, const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(apply(d, t));
  return out;
}
template <typename T>
const T& apply(const Decision&, const T& v) {
  return v;
}
}  // namespace detail

// Calls op(args...) with the tensor arguments (Tensor, optional<Tensor>, vector<Tensor>) cast by `rule`
// and autocast suspended. Not for Fp32Output ops: see run_fp32_output.
template <typename Op, typename... Args>
auto run(Rule rule, Op&& op, const Args&... args) {
  std::vector<const Tensor*> tensors;
  (detail::collect(tensors, args), ...);
  const Decision d = decide(rule, tensors);
  SuspendGuard suspended;
  return op(detail::apply(d, args)...);
}

// For the ops with a dtype= argument that PyTorch runs in float32 (softmax, log_softmax, sum, prod, cumsum,
// norm): op(dtype) is called with float32 when `x` is eligible and no dtype was given, else with `dtype`.
template <typename Op>
auto run_fp32_output(Rule rule, const Tensor& x, std::optional<DType> dtype, Op&& op) {
  const Decision d = decide(rule, {&x});
  SuspendGuard suspended;
  const bool to_float = d.policy != Policy::None && !dtype && is_eligible(d, x);
  return op(to_float ? std::optional<DType>(DType::Float32) : dtype);
}

}  // namespace tandem::autocast
