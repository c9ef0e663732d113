// Evaluating the published approximations of special functions (kernels/bessel_math.h): a polynomial by
// Horner's rule (monic or not), a rational function, a Chebyshev series by Clenshaw's recurrence. The
// coefficient tables are listed from the highest power (or order) down, the layout of Cephes's and most
// published tables, and are taken by reference to a fixed-size array so the loops know their length; the
// tables live as static locals of the host-device functions that use them, which gives each a copy in CUDA
// device memory too.
#pragma once

#include "core/macros.h"

namespace tandem {
namespace special_math {

// c[0] z^(N-1) + c[1] z^(N-2) + ... + c[N-1]
template <int N>
TANDEM_HOST_DEVICE constexpr double evaluate_polynomial(double z, const double (&c)[N]) {
  double sum = c[0];
  for (int i = 1; i < N; ++i) sum = sum * z + c[i];
  return sum;
}

// z^N + c[0] z^(N-1) + ... + c[N-1]: the monic polynomial of a table that leaves its leading coefficient 1
// unwritten, as Cephes's tables for p1evl() do (most denominators of its rational approximations). Reading
// such a table as the polynomial of degree N-1 instead drops the z^N term and evaluates a different function.
template <int N>
TANDEM_HOST_DEVICE constexpr double evaluate_monic_polynomial(double z, const double (&c)[N]) {
  double sum = z + c[0];
  for (int i = 1; i < N; ++i) sum = sum * z + c[i];
  return sum;
}

// p(z) / q(z), both tables listing every coefficient.
template <int N, int M>
TANDEM_HOST_DEVICE constexpr double evaluate_rational(double z, const double (&p)[N], const double (&q)[M]) {
  return evaluate_polynomial(z, p) / evaluate_polynomial(z, q);
}

// p(z) / q(z) with q monic and its leading 1 unwritten (the p1evl layout).
template <int N, int M>
TANDEM_HOST_DEVICE constexpr double evaluate_rational_monic(double z, const double (&p)[N],
                                                            const double (&q)[M]) {
  return evaluate_polynomial(z, p) / evaluate_monic_polynomial(z, q);
}

// sum_k c_k T_k(t) for t in [-1, 1], with c listed from the highest order down and the constant term counted
// half (it is tabulated doubled). Clenshaw's recurrence b_k = 2t b_(k+1) - b_(k+2) + c_k sums the series
// without forming the T_k. Written 2t b_(k+1) + (c_k - b_(k+2)): the bracket does not depend on the previous
// step, so each step's serial chain is one multiply-add instead of a multiply, a subtract and an add.
template <int N>
TANDEM_HOST_DEVICE constexpr double evaluate_chebyshev(double t, const double (&c)[N]) {
  const double two_t = t + t;
  double b0 = c[0], b1 = 0, b2 = 0;
  for (int i = 1; i < N; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = two_t * b1 + (c[i] - b2);
  }
  return 0.5 * (b0 - b2);
}

}  // namespace special_math
}  // namespace tandem
