// CUDA kernels of the complex slots (kernels/complex_kernels.h): the functors of complex_functors.h, shared
// with the CPU loops, in the generic elementwise launch.
#include "kernels/complex_functors.h"
#include "kernels/cuda/elementwise_launch.cuh"
#include "kernels/cuda/elementwise_parts.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {
namespace {

// Operand 1 carries the complex dtype (out is real for abs/angle).
void complex_unary_kernel(ComplexUnaryOp op, TensorIterator& iter) {
  dispatch_complex(iter.dtype(1), [&](auto tag) {
    using C = typename decltype(tag)::type;
    dispatch_complex_unary(op, [&](auto f) {
      using R = decltype(f(C{}));
      launch_elementwise<R, C>(iter, f);
    });
  });
}

void complex_binary_kernel(ComplexBinaryOp op, TensorIterator& iter) {
  dispatch_complex_binary(
      op,
      [&](auto f) {
        dispatch_complex(iter.dtype(1), [&](auto tag) {
          using C = typename decltype(tag)::type;
          using R = decltype(f(C{}, C{}));
          launch_elementwise<R, C, C>(iter, f);
        });
      },
      [&](auto f) {
        dispatch_complex(iter.dtype(0), [&](auto tag) {
          using C = typename decltype(tag)::type;
          using V = typename C::value_type;
          launch_elementwise<C, V, V>(iter, f);
        });
      });
}

}  // namespace

void register_complex_kernels(KernelTable& table) {
  table.complex_unary = &complex_unary_kernel;
  table.complex_binary = &complex_binary_kernel;
}

}  // namespace tandem::cuda
