// The emulated device's kernel table: every CPU slot wrapped to run asynchronously on the device's stream.
// A slot added to a kernel family needs one TANDEM_ASYNC_SLOT line here.
#include <utility>

#include "backend/emulated/async_kernels.h"
#include "kernels/kernel_table.h"

namespace tandem::emulated {

namespace {
const KernelTable& cpu_table() { return kernel_table_for_registration(DeviceType::CPU); }

template <int I>
struct UnaryGet {
  static ElementwiseKernel fn() { return cpu_table().unary[I]; }
};
template <int I>
struct BinaryGet {
  static ElementwiseKernel fn() { return cpu_table().binary[I]; }
};
template <int... I>
void wrap_unary(KernelTable& t, std::integer_sequence<int, I...>) {
  ((t.unary[I] = &AsyncSlot<ElementwiseKernel>::call<UnaryGet<I>>), ...);
}
template <int... I>
void wrap_binary(KernelTable& t, std::integer_sequence<int, I...>) {
  ((t.binary[I] = &AsyncSlot<ElementwiseKernel>::call<BinaryGet<I>>), ...);
}
}  // namespace

#define TANDEM_ASYNC_SLOT(path)                                                  \
  do {                                                                         \
    struct Get {                                                               \
      static auto fn() { return cpu_table().path; }                            \
    };                                                                         \
    if (cpu_table().path) t.path = &AsyncSlot<decltype(t.path)>::call<Get>;    \
  } while (0)

void register_emulated_kernels(KernelTable& t) {
  wrap_unary(t, std::make_integer_sequence<int, kNumUnaryOps>{});
  wrap_binary(t, std::make_integer_sequence<int, kNumBinaryOps>{});
  TANDEM_ASYNC_SLOT(copy);
  TANDEM_ASYNC_SLOT(where);
  TANDEM_ASYNC_SLOT(clamp);
  TANDEM_ASYNC_SLOT(reduce.reduce);
  TANDEM_ASYNC_SLOT(reduce.arg_reduce);
  TANDEM_ASYNC_SLOT(reduce.cumsum);
  TANDEM_ASYNC_SLOT(reduce.sort);
  TANDEM_ASYNC_SLOT(reduce.softmax);
  TANDEM_ASYNC_SLOT(linalg.gemm);
  TANDEM_ASYNC_SLOT(index.gather);
  TANDEM_ASYNC_SLOT(index.put);
  TANDEM_ASYNC_SLOT(index.min_max);
  TANDEM_ASYNC_SLOT(index.count_nonzero);
  TANDEM_ASYNC_SLOT(index.nonzero);
  TANDEM_ASYNC_SLOT(random.uniform);
  TANDEM_ASYNC_SLOT(random.normal);
  TANDEM_ASYNC_SLOT(random.randint);
  TANDEM_ASYNC_SLOT(random.bernoulli_scalar);
  TANDEM_ASYNC_SLOT(random.bernoulli_tensor);
  TANDEM_ASYNC_SLOT(random.randperm);
  TANDEM_ASYNC_SLOT(random.multinomial);
  TANDEM_ASYNC_SLOT(random.arange);
  TANDEM_ASYNC_SLOT(random.linspace);
  TANDEM_ASYNC_SLOT(nn.im2col);
  TANDEM_ASYNC_SLOT(nn.col2im);
  TANDEM_ASYNC_SLOT(nn.max_pool2d);
  TANDEM_ASYNC_SLOT(nn.max_pool2d_backward);
  TANDEM_ASYNC_SLOT(nn.avg_pool2d);
  TANDEM_ASYNC_SLOT(nn.avg_pool2d_backward);
  TANDEM_ASYNC_SLOT(nn.adaptive_avg_pool2d);
  TANDEM_ASYNC_SLOT(nn.adaptive_avg_pool2d_backward);
  TANDEM_ASYNC_SLOT(nn.sgd_step);
  TANDEM_ASYNC_SLOT(nn.adam_step);
}

}  // namespace tandem::emulated
