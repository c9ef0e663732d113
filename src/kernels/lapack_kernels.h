// Kernel slots of the matrix decompositions (LAPACK on the CPU, cuSOLVER on CUDA). A table of their own, not
// kernel_slots.def: they are one library call per matrix, need no per-ISA builds, and a build without LAPACK
// leaves them empty (the front ends then raise "built without LAPACK").
//
// Layout: every matrix operand is a contiguous tensor of shape (batch, cols, rows), i.e. `batch` column-major
// rows x cols matrices, the layout LAPACK and cuSOLVER read. Front ends make these copies (they are also the
// in-place workspace the libraries overwrite) and return transposed views of them. The matrix operands of a
// call have one dtype (float32, float64, complex64 or complex128; the eigenvalues of eigh and the singular
// values of svd have its real dtype, eig's outputs its complex dtype) and live on one device; `info` is int32
// (batch), LAPACK's per-matrix status. Kernels never throw user-facing errors: the front end reads `info`.
#pragma once
#include "core/device.h"
#include "core/tensor.h"

namespace tandem {

struct LapackKernels {
  // getrf: a (B, n, m) -> its LU factors in place; pivots (B, min(m, n)) int32, 1-based as LAPACK's.
  void (*lu_factor)(const Tensor& a, const Tensor& pivots, const Tensor& info) = nullptr;
  // getrs: lu (B, n, n) with its pivots; b (B, k, n) is overwritten by X with A X = B (A^H X = B: transpose,
  // the conjugate transpose for complex, the transpose for real matrices).
  void (*lu_solve)(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose) = nullptr;
  // getri: lu (B, n, n) and pivots from lu_factor, overwritten by A^-1. `info` is lu_factor's: a matrix with
  // a zero pivot gets getrs' result on the identity (infinities and NaNs, as PyTorch's inv_ex returns). Empty
  // where the backend has none (cuSOLVER): the front end then solves A X = I with lu_solve.
  void (*lu_inverse)(const Tensor& lu, const Tensor& pivots, const Tensor& info) = nullptr;
  // potrf: a (B, n, n) -> the factor in its `upper` (else lower) triangle; the other triangle is left as is.
  void (*cholesky)(const Tensor& a, bool upper, const Tensor& info) = nullptr;
  // potrs: factor (B, n, n) from cholesky; b (B, k, n) overwritten by X with A X = B.
  void (*cholesky_solve)(const Tensor& factor, const Tensor& b, bool upper) = nullptr;
  // trsm: b (B, k, n) overwritten by X with op(A) X = B, op(A) = A^H when `transpose`; only A's `upper` (else
  // lower) triangle is read, its diagonal taken as ones when `unit_diagonal`.
  void (*triangular_solve)(const Tensor& a, const Tensor& b, bool upper, bool transpose,
                           bool unit_diagonal) = nullptr;
  // geqrf: a (B, n, m) -> R above the diagonal and Householder vectors below; tau (B, min(m, n)).
  void (*qr_factor)(const Tensor& a, const Tensor& tau) = nullptr;
  // orgqr (ungqr for complex): q (B, k, m) holds the Householder vectors in its first tau.size(1) columns (k
  // <= m) and is overwritten by the first k columns of Q.
  void (*qr_q)(const Tensor& q, const Tensor& tau) = nullptr;
  // ormqr (unmqr for complex): c (B, cols, rows) is overwritten by op(Q) C (`left`) or C op(Q), op(Q) = Q^H
  // when `transpose` (the conjugate transpose for complex, the transpose for real), Q = H_1 ... H_k the
  // product of the k = tau.size(1) Householder reflectors held below the diagonal of the first k columns of a
  // (B, *, r) (geqrf's layout), r = rows when `left`, else cols.
  void (*qr_multiply)(const Tensor& a, const Tensor& tau, const Tensor& c, bool left,
                      bool transpose) = nullptr;
  // sytrf (hetrf when `hermitian` and complex; always the lower triangle): a (B, n, n) -> L and the 1x1/2x2
  // blocks of D in its lower triangle (the upper one left as is); pivots (B, n) int32 in LAPACK's
  // Bunch-Kaufman form (negative for 2x2 blocks).
  void (*ldl_factor)(const Tensor& a, const Tensor& pivots, bool hermitian, const Tensor& info) = nullptr;
  // Whether ldl_factor takes hermitian=true for complex matrices (cuSOLVER has only the symmetric sytrf).
  bool ldl_hermitian = false;
  // sytrs (hetrs): ld (B, n, n) and pivots from ldl_factor (lower triangle); b (B, k, n) overwritten by X
  // with A X = B. Empty where the backend has none (cuSOLVER's only sytrs takes 64-bit pivots): the front end
  // then solves on the CPU, as for eig.
  void (*ldl_solve)(const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian) = nullptr;
  // syevd (heevd): a (B, n, n) symmetric (Hermitian), its `upper` (else lower) triangle read; w (B, n) real
  // ascending eigenvalues; a
  // overwritten by the eigenvectors (columns) when `vectors`.
  void (*eigh)(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) = nullptr;
  // gesvd/gesdd: a (B, n, m) with m >= n, destroyed; s (B, n) real, descending. When u is defined: u (B, n,
  // m) (reduced) or (B, m, m) (full), vt (B, n, n) (V^H).
  void (*svd)(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt,
              const Tensor& info) = nullptr;
  // geev: a (B, n, n) real or complex, destroyed; w (B, n) complex eigenvalues; when v is defined, v (B, n,
  // n) complex, the right eigenvectors (columns of norm 1). Empty where the backend has none (cuSOLVER): the
  // front end then runs the CPU's, as PyTorch does on CUDA.
  void (*eig)(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info) = nullptr;
  // Whether the slots above take complex64/complex128 (else the front ends refuse complex on this device).
  bool complex = false;
};

// The table of a device type (empty slots where its backend has no LAPACK). Starts the device type.
const LapackKernels& lapack_kernels(DeviceType type);
// Only backends call this, while they register (kernels/startup.cpp).
LapackKernels& lapack_kernels_for_registration(DeviceType type);

// Fillers, one per backend: CPU through LAPACK (kernels/lapack/lapack_cpu.cpp; a no-op without it), real
// CUDA through cuSOLVER (kernels/cuda/lapack_cusolver.cpp), emulated CUDA by wrapping the CPU's
// (kernels/emulated/emulated_lapack.cpp).
void register_lapack_cpu_kernels(LapackKernels& table);
namespace cuda {
void register_lapack_cusolver_kernels(LapackKernels& table);
}
namespace emulated {
void register_emulated_lapack_kernels(LapackKernels& table, const LapackKernels& cpu);
}

}  // namespace tandem
