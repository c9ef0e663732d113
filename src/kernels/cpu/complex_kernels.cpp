// CPU kernels of the complex slots (kernels/complex_kernels.h): the shared functors of complex_functors.h in
// the ordinary unary/binary loops.
#include "kernels/complex_functors.h"
#include "kernels/cpu/loops.h"
#include "kernels/kernel_table.h"

TANDEM_CPU_KERNELS_BEGIN
namespace {

// Operand 1 carries the complex dtype (out is real for abs/angle).
void complex_unary_kernel(ComplexUnaryOp op, TensorIterator& iter) {
  dispatch_complex(iter.dtype(1), [&](auto tag) {
    using C = typename decltype(tag)::type;
    dispatch_complex_unary(op, [&](auto f) {
      using R = decltype(f(C{}));
      unary_loop<R, C>(iter, f);
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
          binary_loop<R, C>(iter, f);
        });
      },
      [&](auto f) {
        dispatch_complex(iter.dtype(0), [&](auto tag) {
          using C = typename decltype(tag)::type;
          using V = typename C::value_type;
          binary_loop<C, V>(iter, f);
        });
      });
}

}  // namespace

void register_complex_kernels(KernelTable& table) {
  table.complex_unary = &complex_unary_kernel;
  table.complex_binary = &complex_binary_kernel;
}

TANDEM_CPU_KERNELS_END
