// tandem's C++ API: tensors, dtypes and devices, the ops, autograd and the CUDA (or emulated) devices.
//
//   #include <tandem/tandem.h>
//   tandem::Tensor w = tandem::requires_grad(tandem::randn({3, 2}, tandem::DType::Float32,
//   tandem::Device())); tandem::Tensor loss = tandem::sum(tandem::relu(tandem::matmul(x, w)));
//   tandem::backward(loss);                    // w's gradient: tandem::grad(w)
//
// The functions are those the Python API calls (src/ops, one header per family); this header adds the few
// autograd conveniences that Python spells as methods. Find it with find_package(tandem) and link
// tandem::core (examples/cpp). Including it starts tandem's devices (start_runtime()) before main().
#pragma once
#include <optional>
#include <vector>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "backend/accelerator.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "kernels/startup.h"
#include "ops/compare.h"
#include "ops/conv.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/fft.h"
#include "ops/histogram.h"
#include "ops/indexing.h"
#include "ops/join.h"
#include "ops/linalg.h"
#include "ops/order_stats.h"
#include "ops/pool.h"
#include "ops/random.h"
#include "ops/reduce.h"
#include "ops/search_sets.h"
#include "ops/unfold.h"
#include "ops/view.h"

namespace tandem {

namespace detail {
// One start per program, before main(): an inline variable is initialised once however many files include it.
inline const bool runtime_started = (start_runtime(), true);
}  // namespace detail

// t.requires_grad_(on): `t` (a leaf) starts or stops recording operations for autograd; returns `t`.
inline const Tensor& requires_grad(const Tensor& t, bool on = true) {
  TANDEM_CHECK(!on || !t.impl()->autograd() || !t.impl()->autograd()->grad_fn || t.requires_grad(), Runtime,
               "you can only change requires_grad flags of leaf variables.");
  if (on || t.impl()->autograd()) t.impl()->ensure_autograd().requires_grad = on;
  return t;
}

// loss.backward(): accumulates d loss / d leaf into each leaf's gradient (`loss` has one element).
inline void backward(const Tensor& loss, bool retain_graph = false) {
  autograd::backward({loss}, {}, retain_graph, false);
}

// t.grad: the accumulated gradient of a leaf, undefined (Tensor::defined() false) before any backward.
inline Tensor grad(const Tensor& t) {
  AutogradMeta* meta = t.impl()->autograd();
  return meta && meta->grad ? *meta->grad : Tensor();
}

// with torch.no_grad(): operations in the guard's scope record nothing.
struct NoGradGuard {
  autograd::GradModeGuard off{false};
};

}  // namespace tandem
