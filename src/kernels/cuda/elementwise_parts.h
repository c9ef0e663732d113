// The CUDA elementwise kernels are split over several .cu files (nvcc is slow; ninja builds them in
// parallel). Each file fills its share of the kernel table; register_elementwise_kernels calls them all.
#pragma once

namespace tandem {
struct KernelTable;
class TensorIterator;
namespace cuda {
void register_unary_float_kernels(KernelTable& table);     // unary ops of rule Float
void register_unary_exact_kernels(KernelTable& table);     // the other unary ops, and clamp
void register_binary_arith_kernels(KernelTable& table);    // Arith, ArithNoBool, TrueDiv, IntDiv
void register_binary_compare_kernels(KernelTable& table);  // Compare, Logical, Bitwise
void register_copy_kernels(KernelTable& table);            // copy (every dtype pair) and where
void register_complex_kernels(KernelTable& table);         // complex_unary, complex_binary
void register_activation_kernels(KernelTable& table);      // activation, activation_backward
void copy_kernel(TensorIterator& iter);                    // the copy slot
}  // namespace cuda
}  // namespace tandem
