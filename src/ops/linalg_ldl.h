// torch.linalg's LDL factorization of symmetric (or, with hermitian=true, Hermitian) indefinite matrices:
// ldl_factor_ex / ldl_factor (LAPACK's Bunch-Kaufman sytrf / hetrf on the lower triangle) and ldl_solve
// (sytrs / hetrs), PyTorch's names, shapes and errors, batched; no gradients (PyTorch has none either: the
// outputs get its NotImplemented grad_fn, whose backward raises).
#pragma once
#include <tuple>

#include "core/tensor.h"

namespace tandem {

// (LD, pivots, info): LD (..., n, n) holds L below the diagonal and D's 1x1/2x2 blocks on and next to it
// (zeros above), pivots (..., n) int32 as LAPACK's, info (...) int32 (> 0: D is singular).
std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& a, bool hermitian, bool check_errors);
std::tuple<Tensor, Tensor> linalg_ldl_factor(const Tensor& a, bool hermitian);
// X with A X = B for A = ldl_factor's (LD, pivots); B (..., n, k), batch dims broadcast with LD's.
Tensor linalg_ldl_solve(const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian);

}  // namespace tandem
