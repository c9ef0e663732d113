// torch.geqrf, torch.linalg.householder_product and torch.ormqr (ops/linalg_householder.h): argument checks
// in PyTorch's words and order, the column-major workspaces of the LAPACK slots, and the autograd records.
#include "ops/linalg_householder.h"

#include <algorithm>
#include <string>

#include "autograd/formula_node.h"
#include "autograd/formulas_linalg_householder.h"
#include "core/error.h"
#include "core/profiler.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/linalg_lapack_call.h"
#include "ops/view.h"

namespace tandem {

using namespace linalg_detail;

namespace {

// `x`'s leading dims without its last `drop` ones, as PyTorch prints them: "[2, 3]".
std::string leading_shape(const Tensor& x, size_t drop) {
  const auto& s = x.sizes();
  return shape_to_string(IntArrayRef(s.data(), s.size() - std::min(drop, s.size())));
}

bool same_leading(const Tensor& x, size_t drop_x, const Tensor& y, size_t drop_y) {
  const auto& a = x.sizes();
  const auto& b = y.sizes();
  return a.size() - drop_x == b.size() - drop_y && std::equal(a.begin(), a.end() - drop_x, b.begin());
}

// tau as the (B, k) contiguous matrix the slots read (a copy only when tau is not contiguous).
Tensor tau_rows(const Tensor& tau, int64_t count) {
  return reshape(contiguous(tau), DimVector{count, tau.size(-1)});
}

}  // namespace

std::tuple<Tensor, Tensor> geqrf(const Tensor& a) {
  profiler::RecordScope profile_scope("aten::geqrf", a);
  const char* op = "torch.geqrf";
  TANDEM_CHECK(a.dim() >= 2, Runtime, op, ": input must have at least 2 dimensions.",
               "\nhint: geqrf takes matrices (..., m, n); got shape ", a.shape_str());
  check_lapack_dtype("geqrf", a);
  DimVector batch = batch_shape(a);
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n), count = batch_count(batch);
  auto [qr, tau] = autograd::without_grad([&] {
    const LapackKernels& kern = lapack_for(op, a);
    Tensor buf = column_major_copy(a, batch, a.dtype());
    Tensor tau = empty(DimVector{count, k}, a.dtype(), a.device());
    if (buf.numel() > 0) kern.qr_factor(buf, tau);
    return std::make_tuple(from_column_major(buf, batch, m, n), reshape(tau, with_last(batch, k)));
  });
  if (autograd::should_record(a)) autograd::record_geqrf(a, qr, tau);
  return {qr, tau};
}

Tensor linalg_householder_product(const Tensor& a, const Tensor& tau) {
  profiler::RecordScope profile_scope("aten::linalg_householder_product", a, tau);
  const char* op = "torch.linalg.householder_product";
  TANDEM_CHECK(a.dim() >= 2, Runtime, op, ": input must have at least 2 dimensions.",
               "\nhint: input holds the reflectors as columns of (..., m, n) matrices; got shape ",
               a.shape_str());
  TANDEM_CHECK(a.size(-2) >= a.size(-1), Runtime, op,
               ": input.shape[-2] must be greater than or equal to input.shape[-1]",
               "\nhint: Q has at most as many columns as rows; got shape ", a.shape_str());
  TANDEM_CHECK(tau.dim() == 0 || a.size(-1) >= tau.size(-1), Runtime, op,
               ": input.shape[-1] must be greater than or equal to tau.shape[-1]",
               "\nhint: there is one tau per reflector (column of input); got input ", a.shape_str(),
               " and tau ", tau.shape_str());
  TANDEM_CHECK(a.dim() - tau.dim() == 1, Runtime, op,
               ": Expected tau to have one dimension less than input, but got tau.ndim equal to ", tau.dim(),
               " and input.ndim is equal to ", a.dim(), "\nhint: tau is (..., k) for input (..., m, n)");
  TANDEM_CHECK(same_leading(tau, 1, a, 2), Runtime, op,
               ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
               leading_shape(tau, 1), "\nhint: tau and input are not broadcast; input's batch is ",
               leading_shape(a, 2));
  TANDEM_CHECK(tau.dtype() == a.dtype(), Runtime, op, ": tau dtype ", dtype_title(tau.dtype()),
               " does not match input dtype ", dtype_title(a.dtype()),
               "\nhint: convert tau with .to(input.dtype)");
  TANDEM_CHECK(tau.device() == a.device(), Runtime, op,
               ": Expected tau and input tensors to be on the same device, but got tau on ",
               tau.device().str(), " and input on ", a.device().str(),
               "\nhint: move tau with .to(input.device)");
  check_lapack_dtype("orgqr", a);
  DimVector batch = batch_shape(a);
  const int64_t m = a.size(-2), n = a.size(-1);
  Tensor q = autograd::without_grad([&] {
    const LapackKernels& kern = lapack_for(op, a);
    Tensor buf = column_major_copy(a, batch, a.dtype());
    if (buf.numel() > 0) kern.qr_q(buf, tau_rows(tau, batch_count(batch)));
    return from_column_major(buf, batch, m, n);
  });
  if (autograd::should_record(a, tau)) autograd::record_householder_product(a, tau, q);
  return q;
}

Tensor ormqr(const Tensor& a, const Tensor& tau, const Tensor& other, bool left, bool transpose) {
  profiler::RecordScope profile_scope("aten::ormqr", a, tau, other, left, transpose);
  const char* op = "torch.ormqr";
  TANDEM_CHECK(a.dim() >= 2, Runtime, op, ": input must have at least 2 dimensions.",
               "\nhint: input is geqrf's (..., m, n) result; got shape ", a.shape_str());
  TANDEM_CHECK(other.dim() >= 2, Runtime, op, ": other must have at least 2 dimensions.",
               "\nhint: other is the (..., rows, cols) matrix Q multiplies; got shape ", other.shape_str());
  TANDEM_CHECK(a.dim() - tau.dim() == 1, Runtime, op,
               ": Expected tau to have one dimension less than input, but got tau.ndim equal to ", tau.dim(),
               " and input.ndim is equal to ", a.dim(), "\nhint: tau is geqrf's (..., min(m, n)) result");
  TANDEM_CHECK(
      a.dim() == other.dim(), Runtime, op,
      ": Expected other to have the same number of dimensions as input, but got other.ndim equal to ",
      other.dim(), " and input.ndim is equal to ", a.dim(),
      "\nhint: ormqr does not broadcast; expand other to input's batch dims");
  const int64_t m = a.size(-2), side = left ? other.size(-2) : other.size(-1);
  TANDEM_CHECK(side == m, Runtime, op, ": other.shape[", left ? -2 : -1, "] must be equal to input.shape[-2]",
               "\nhint: Q is ", m, " x ", m, " and multiplies other from the ", left ? "left" : "right",
               "; got other ", other.shape_str());
  TANDEM_CHECK(tau.size(-1) == std::min(side, a.size(-1)), Runtime, op,
               ": tau.shape[-1] must be equal to min(other.shape[", left ? -2 : -1, "], input.shape[-1])",
               "\nhint: pass the tau that geqrf returned with input");
  TANDEM_CHECK(same_leading(tau, 1, a, 2), Runtime, op,
               ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
               leading_shape(tau, 1), "\nhint: input's batch is ", leading_shape(a, 2));
  TANDEM_CHECK(same_leading(other, 2, a, 2), Runtime, op,
               ": Expected batch dimensions of other to be equal to input.shape[:-2], but got ",
               leading_shape(other, 2), "\nhint: input's batch is ", leading_shape(a, 2));
  // "dtypeFloat" without a space is PyTorch's text.
  TANDEM_CHECK(tau.dtype() == a.dtype(), Runtime, op,
               ": Expected input and tau to have the same dtype, but input has dtype", dtype_title(a.dtype()),
               " and tau has dtype ", dtype_title(tau.dtype()), "\nhint: convert tau with .to(input.dtype)");
  TANDEM_CHECK(other.dtype() == a.dtype(), Runtime, op,
               ": Expected input and other to have the same dtype, but input has dtype",
               dtype_title(a.dtype()), " and other has dtype ", dtype_title(other.dtype()),
               "\nhint: convert other with .to(input.dtype)");
  check_same_device(op, a, tau, "input", "tau");
  check_same_device(op, a, other, "input", "other");
  check_lapack_dtype("ormqr", a);
  DimVector batch = batch_shape(a);
  const int64_t rows = other.size(-2), cols = other.size(-1), count = batch_count(batch);
  Tensor out = autograd::without_grad([&] {
    const LapackKernels& kern = lapack_for(op, a);
    Tensor c = column_major_copy(other, batch, a.dtype());
    // No reflectors (k = 0): Q is the identity and C is returned as it is.
    if (c.numel() > 0 && tau.size(-1) > 0)
      kern.qr_multiply(column_major_copy(a, batch, a.dtype()), tau_rows(tau, count), c, left, transpose);
    return from_column_major(c, batch, rows, cols);
  });
  if (autograd::should_record(a, tau, other)) autograd::record_ormqr(a, tau, other, left, transpose, out);
  return out;
}

}  // namespace tandem
