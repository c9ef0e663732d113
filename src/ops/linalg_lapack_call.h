// What the linalg front ends (ops/linalg_decomp.cpp, linalg_solve.cpp, linalg_householder.cpp,
// linalg_ldl.cpp) share: argument checks in PyTorch's words, the column-major copies the LAPACK slots work
// on, reading `info`, and LinAlgError.
#pragma once
#include <string>
#include <vector>

#include "core/tensor.h"
#include "kernels/lapack_kernels.h"

namespace tandem::linalg_detail {

// NotImplementedError unless float32/float64/complex64/complex128: "<op>: Expected a floating point or
// complex tensor as input. Got Long" (PyTorch's text), or its low-precision message for float16/bfloat16.
// Where PyTorch's dispatch reaches the op's LAPACK `kernel` first, its error names the kernel instead
// (check_lapack_dtype): for float16/bfloat16, and for integer and bool inputs too when kernel_names_integers.
void check_float(const char* op, const Tensor& a, const char* kernel = nullptr,
                 bool kernel_names_integers = false);
// PyTorch's dtype error of the ops named after their kernel (cholesky_solve, geqrf, orgqr, ormqr, and the
// float16 case of ldl_factor): "\"<kernel>_cpu\" not implemented for 'Long'" (NotImplementedError), "_cuda"
// on CUDA devices.
void check_lapack_dtype(const char* kernel, const Tensor& a);
// "<op>: The input tensor A must have at least 2 dimensions."
void check_matrix(const char* op, const Tensor& a, const char* name = "A");
// "<op>: A must be batches of square matrices, but they are 2 by 3 matrices"
void check_square(const char* op, const Tensor& a, const char* name = "A");
// The device's LAPACK table, or a RuntimeError naming the missing library (NotImplementedError for a complex
// `a` where the device's table has no complex kernels).
const LapackKernels& lapack_for(const char* op, const Tensor& a);

DimVector batch_shape(const Tensor& a);             // all dims but the last two
DimVector with_last(IntArrayRef batch, int64_t n);  // batch followed by n
int64_t batch_count(IntArrayRef batch);
// `a` (..., m, n) broadcast to `batch` and copied into a fresh (B, n, m) tensor of `dtype`: B column-major
// m x n matrices, the workspace LAPACK overwrites (never the caller's memory).
Tensor column_major_copy(const Tensor& a, IntArrayRef batch, DType dtype);
// The (batch..., rows, cols) matrices held column-major in `buf` (B, cols, rows), as a view.
Tensor from_column_major(const Tensor& buf, IntArrayRef batch, int64_t rows, int64_t cols);

// LAPACK's per-matrix status, on the host.
std::vector<int> read_info(const Tensor& info);
// "(Batch element 3): " when the input had batch dims, else "".
std::string batch_prefix(size_t i, bool batched);
// Throws tandem.linalg.LinAlgError (a RuntimeError) with `msg`.
[[noreturn]] void throw_linalg_error(const std::string& msg);

// x with the entries outside its upper (j - i >= diagonal) or lower (j - i <= diagonal) triangle zeroed.
Tensor triangle(const Tensor& x, bool upper, int64_t diagonal = 0);
// The main diagonals of x (..., m, n) as a view (..., min(m, n)).
Tensor diagonal_view(const Tensor& x);
// The conjugate transpose (the transpose of a real x).
Tensor mH(const Tensor& x);
// n x n identity matrices of x's dtype and device (broadcastable over its batch).
Tensor identity(int64_t n, const Tensor& like);

}  // namespace tandem::linalg_detail
