// LU (getrf/getrs) and Cholesky (potrf/potrs) of one small column-major matrix, written out instead of
// called from LAPACK. For a batch of 8 x 8 matrices, OpenBLAS spends most of each call on its entry checks
// and buffer allocation rather than on the ~300 flops (1000 8 x 8 inverses: ~8 ms through getrs against
// ~1 ms for NumPy's loop). These follow LAPACK's unblocked algorithms (dgetf2, dpotf2) step for step: the
// same pivots (the first entry of largest |x|, or |re| + |im| as izamax measures complex entries) and the
// same `info` codes; only the rounding of the sums can differ from OpenBLAS's blocked code (and a failed
// Cholesky's partial factor is the unblocked algorithm's).
// T is float, double, complex<float> or complex<double>; indices are LAPACK's a[i + j * lda].
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "core/complex.h"

namespace tandem::small_matrix {

// Matrices up to this order go through these loops; larger ones through LAPACK.
constexpr int64_t kMaxOrder = 16;

template <typename T>
inline T conj_of(T x) {
  return x;
}
template <typename T>
inline complex<T> conj_of(complex<T> x) {
  return {x.re, -x.im};
}
template <typename T>
inline T abs1(T x) {
  return std::abs(x);
}
template <typename T>
inline T abs1(complex<T> x) {
  return std::abs(x.re) + std::abs(x.im);
}
template <typename T>
inline T real_of(T x) {
  return x;
}
template <typename T>
inline T real_of(complex<T> x) {
  return x.re;
}

// getrf: P A = L U of the m x n matrix a (lda = m); ipiv 1-based; info the first zero pivot (1-based), or 0.
template <typename T>
void getrf(int64_t m, int64_t n, T* a, int* ipiv, int* info) {
  using R = decltype(real_of(T{}));
  *info = 0;
  const int64_t k = m < n ? m : n;
  for (int64_t j = 0; j < k; ++j) {
    T* col = a + j * m;
    int64_t p = j;
    auto best = abs1(col[j]);
    for (int64_t i = j + 1; i < m; ++i)
      if (abs1(col[i]) > best) best = abs1(col[i]), p = i;
    ipiv[j] = static_cast<int>(p + 1);
    if (col[p] != T(0)) {
      if (p != j)
        for (int64_t c = 0; c < n; ++c) std::swap(a[j + c * m], a[p + c * m]);
      // LAPACK scales by the reciprocal unless that would overflow.
      const T pivot = col[j];
      if (abs1(pivot) >= std::numeric_limits<R>::min()) {
        const T r = T(1) / pivot;
        for (int64_t i = j + 1; i < m; ++i) col[i] *= r;
      } else {
        for (int64_t i = j + 1; i < m; ++i) col[i] = col[i] / pivot;
      }
    } else if (*info == 0) {
      *info = static_cast<int>(j + 1);
    }
    for (int64_t c = j + 1; c < n; ++c) {
      T* dst = a + c * m;
      const T f = dst[j];
      for (int64_t i = j + 1; i < m; ++i) dst[i] -= col[i] * f;
    }
  }
}

// Right-hand sides are solved W at a time, held row by row in a tile: each step of a substitution then
// updates a whole tile row, a fixed-length loop the compiler turns into vector instructions, where a column
// at a time was a scalar loop of at most kMaxOrder steps (1000 8 x 8 inverses: 2.4 ms against NumPy's 2.0
// ms). Each column still sees exactly the operations of LAPACK's column-at-a-time algorithm, in the same
// order.
template <typename T, int64_t W>
struct RhsTile {
  T x[kMaxOrder][W];

  void load(int64_t n, const T* b) {
    for (int64_t c = 0; c < W; ++c)
      for (int64_t i = 0; i < n; ++i) x[i][c] = b[i + c * n];
  }
  void store(int64_t n, T* b) const {
    for (int64_t c = 0; c < W; ++c)
      for (int64_t i = 0; i < n; ++i) b[i + c * n] = x[i][c];
  }
  // row i -= f * row j
  void subtract(int64_t i, T f, int64_t j) {
    for (int64_t c = 0; c < W; ++c) x[i][c] -= f * x[j][c];
  }
  void divide(int64_t i, T d) {
    for (int64_t c = 0; c < W; ++c) x[i][c] = x[i][c] / d;
  }
  void swap_rows(int64_t i, int64_t j) {
    for (int64_t c = 0; c < W; ++c) std::swap(x[i][c], x[j][c]);
  }
};

// Runs solve(tile) over the n x nrhs column-major b in tiles of 8 columns, then 4, 2 and 1 for what is left:
// every tile is full, so one right-hand side (linalg.solve with a vector) does not pay for eight.
template <typename T, typename Solve>
void for_each_tile(int64_t n, int64_t nrhs, T* b, Solve&& solve) {
  int64_t c0 = 0;
  auto tiles = [&]<int64_t W>() {
    for (; nrhs - c0 >= W; c0 += W) {
      RhsTile<T, W> t;
      t.load(n, b + c0 * n);
      solve(t);
      t.store(n, b + c0 * n);
    }
  };
  tiles.template operator()<8>();
  tiles.template operator()<4>();
  tiles.template operator()<2>();
  tiles.template operator()<1>();
}

// getrs: solves A X = B ('N') or A^H X = B ('C'; A^T for real T) with getrf's factors of the n x n A, for
// the n x nrhs column-major b (ldb = n).
template <typename T>
void getrs(bool adjoint, int64_t n, int64_t nrhs, const T* lu, const int* ipiv, T* b) {
  for_each_tile(n, nrhs, b, [&](auto& t) {
    if (!adjoint) {
      for (int64_t i = 0; i < n; ++i)
        if (ipiv[i] - 1 != i) t.swap_rows(i, ipiv[i] - 1);
      for (int64_t j = 0; j < n; ++j)  // L (unit lower), column by column
        for (int64_t i = j + 1; i < n; ++i) t.subtract(i, lu[i + j * n], j);
      for (int64_t j = n - 1; j >= 0; --j) {  // U
        t.divide(j, lu[j + j * n]);
        for (int64_t i = 0; i < j; ++i) t.subtract(i, lu[i + j * n], j);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {  // U^H (lower): row i of U^H is column i of U, conjugated
        for (int64_t k = 0; k < i; ++k) t.subtract(i, conj_of(lu[k + i * n]), k);
        t.divide(i, conj_of(lu[i + i * n]));
      }
      for (int64_t i = n - 1; i >= 0; --i)  // L^H (unit upper)
        for (int64_t k = i + 1; k < n; ++k) t.subtract(i, conj_of(lu[k + i * n]), k);
      for (int64_t i = n - 1; i >= 0; --i)
        if (ipiv[i] - 1 != i) t.swap_rows(i, ipiv[i] - 1);
    }
  });
}

// The lower Cholesky factor's entry (i, j), i >= j, of an n x n matrix whose factor is stored as L in the
// lower triangle (Upper = false) or as U = L^H in the upper one: one algorithm serves both uplo's.
template <typename T, bool Upper>
struct Triangle {
  T* a;
  int64_t n;
  T get(int64_t i, int64_t j) const {
    if constexpr (Upper)
      return conj_of(a[j + i * n]);
    else
      return a[i + j * n];
  }
  void set(int64_t i, int64_t j, T v) const {
    if constexpr (Upper)
      a[j + i * n] = conj_of(v);
    else
      a[i + j * n] = v;
  }
};

// Column j of L from the columns before it (left-looking, as dpotf2's gemv): column k's entries below row j,
// times conj(L(j, k)), come off column j's, an inner loop along a column (contiguous for the lower triangle).
template <typename T, bool Upper>
int potrf_triangle(int64_t n, T* a) {
  using R = decltype(real_of(T{}));
  const Triangle<T, Upper> t{a, n};
  for (int64_t j = 0; j < n; ++j) {
    R d = real_of(t.get(j, j));
    for (int64_t k = 0; k < j; ++k) {
      const T l = t.get(j, k);
      d -= real_of(conj_of(l) * l);
    }
    if (!(d > R(0))) {  // also NaN
      t.set(j, j, T(d));
      return static_cast<int>(j + 1);
    }
    d = std::sqrt(d);
    t.set(j, j, T(d));
    for (int64_t k = 0; k < j; ++k) {
      const T f = conj_of(t.get(j, k));
      for (int64_t i = j + 1; i < n; ++i) t.set(i, j, t.get(i, j) - t.get(i, k) * f);
    }
    const T r = T(R(1) / d);  // LAPACK scales the column by 1 / L(j, j)
    for (int64_t i = j + 1; i < n; ++i) t.set(i, j, t.get(i, j) * r);
  }
  return 0;
}

// potrf: A = L L^H (or U^H U), reading and writing only the `upper` or lower triangle of a; info the order
// of the first leading minor that is not positive-definite (its diagonal entry left as LAPACK leaves it).
template <typename T>
void potrf(bool upper, int64_t n, T* a, int* info) {
  *info = upper ? potrf_triangle<T, true>(n, a) : potrf_triangle<T, false>(n, a);
}

// potrs: solves A X = B with potrf's factor of the n x n A, for the n x nrhs column-major b.
template <typename T, bool Upper>
void potrs_triangle(int64_t n, int64_t nrhs, T* factor, T* b) {
  const Triangle<T, Upper> t{factor, n};
  for_each_tile(n, nrhs, b, [&](auto& x) {
    for (int64_t i = 0; i < n; ++i) {  // L y = b
      for (int64_t k = 0; k < i; ++k) x.subtract(i, t.get(i, k), k);
      x.divide(i, t.get(i, i));
    }
    for (int64_t i = n - 1; i >= 0; --i) {  // L^H x = y
      for (int64_t k = i + 1; k < n; ++k) x.subtract(i, conj_of(t.get(k, i)), k);
      x.divide(i, conj_of(t.get(i, i)));
    }
  });
}

template <typename T>
void potrs(bool upper, int64_t n, int64_t nrhs, T* factor, T* b) {
  if (upper)
    potrs_triangle<T, true>(n, nrhs, factor, b);
  else
    potrs_triangle<T, false>(n, nrhs, factor, b);
}

}  // namespace tandem::small_matrix
