// torch.linalg.ldl_factor(_ex) and ldl_solve (ops/linalg_ldl.h): PyTorch's checks in its order, the LAPACK
// table's ldl_factor / ldl_solve slots, and a host fallback where the device's table lacks one (cuSOLVER:
// no hetrf, and its only sytrs takes 64-bit pivots), as eig does (ops/linalg_decomp.cpp).
#include "ops/linalg_ldl.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

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

// Where an LDL kernel for `a` runs: on a's device when its table has the kernel, else on the CPU (the caller
// then moves the operands to the host and the results back).
struct LdlPlace {
  const LapackKernels* kernels;
  Device device;
  bool on_host;
};
LdlPlace ldl_place(const char* op, const Tensor& a, bool device_has_slot) {
  const LapackKernels& dev = lapack_for(op, a);
  if (device_has_slot) return {&dev, a.device(), false};
  const LapackKernels& cpu = lapack_kernels(DeviceType::CPU);
  TANDEM_CHECK(cpu.ldl_factor, Runtime, op, ": tandem was built without LAPACK for the CPU",
               "\nhint: rebuild tandem with OpenBLAS's LAPACK (libopenblas-dev)");
  return {&cpu, Device(), !a.device().is_cpu()};
}

// float16/bfloat16 get PyTorch's kernel-named error, integer and bool dtypes its "Expected a floating
// point or complex tensor".
void check_ldl_dtype(const char* op, const char* kernel, const Tensor& a) {
  if (is_floating(a.dtype()))
    check_lapack_dtype(kernel, a);
  else
    check_float(op, a);
}

// Pivots that sytrs can follow without reading outside the matrix: every |pivot| in [1, n] (PyTorch's
// checks and messages), and a negative pivot (a 2x2 block of D) repeated in the next entry, as sytrf writes
// them. `host` is (count, n) int32 on the CPU.
void check_pivots(const Tensor& host, int64_t n) {
  const int* p = host.data<int>();
  const int64_t total = host.numel();
  for (int64_t i = 0; i < total; ++i)
    TANDEM_CHECK(
        std::llabs(p[i]) >= 1, Runtime,
        "Pivots given to ldl_solve must all satisfy |pivot| >= 1. Did you properly pass the result of "
        "ldl_factor?",
        "\nhint: pass the pivots linalg.ldl_factor returned for LD");
  for (int64_t i = 0; i < total; ++i)
    TANDEM_CHECK(
        std::llabs(p[i]) <= n, Runtime,
        "Pivots given to ldl_solve must all satisfy |pivot| <= LD.size(-2). Did you properly pass the "
        "result of ldl_factor?",
        "\nhint: pass the pivots linalg.ldl_factor returned for LD");
  for (int64_t row = 0; n > 0 && row < total / n; ++row) {
    const int* r = p + row * n;
    int64_t i = 0;
    while (i < n) {
      const bool block = r[i] < 0;  // a 2x2 block of D spans entries i and i + 1
      TANDEM_CHECK(!block || (i + 1 < n && r[i + 1] == r[i]), Runtime,
                   "torch.linalg.ldl_solve: pivots are not in ldl_factor's form: the negative pivot ", r[i],
                   " at index ", i, " (a 2x2 block of D) must be repeated at index ", i + 1,
                   "\nhint: pass the pivots linalg.ldl_factor returned for LD");
      i += block ? 2 : 1;
    }
  }
}

std::tuple<Tensor, Tensor, Tensor> ldl_factor_impl(const char* error_op, const Tensor& a, bool hermitian,
                                                   bool check_errors) {
  const char* op = "torch.linalg.ldl_factor_ex";
  check_square(op, a);
  check_ldl_dtype(op, "ldl_factor_kernel", a);
  DimVector batch = batch_shape(a);
  const int64_t n = a.size(-1), count = batch_count(batch);
  // A real symmetric matrix is Hermitian: `hermitian` matters only for complex ones.
  const bool herm = hermitian && is_complex(a.dtype());
  auto [ld, pivots, info] = autograd::without_grad([&] {
    const LapackKernels& dev = lapack_for(op, a);
    const LdlPlace place = ldl_place(op, a, dev.ldl_factor && (!herm || dev.ldl_hermitian));
    Tensor src = place.on_host ? to_device(a, place.device, std::nullopt, false) : a;
    Tensor buf = column_major_copy(src, batch, a.dtype());
    Tensor piv = empty(DimVector{count, n}, DType::Int32, place.device);
    Tensor info = full(DimVector{count}, Scalar(int64_t{0}), DType::Int32, place.device);
    if (buf.numel() > 0) place.kernels->ldl_factor(buf, piv, herm, info);
    Tensor ld = triangle(from_column_major(buf, batch, n, n), false);
    piv = reshape(piv, with_last(batch, n));
    info = reshape(info, batch);
    if (place.on_host) {
      ld = to_device(ld, a.device(), std::nullopt, false);
      piv = to_device(piv, a.device(), std::nullopt, false);
      info = to_device(info, a.device(), std::nullopt, false);
    }
    return std::make_tuple(ld, piv, info);
  });
  if (autograd::should_record(a)) autograd::record_not_implemented("aten::linalg_ldl_factor_ex", {&a}, {&ld});
  if (check_errors) {
    std::vector<int> codes = read_info(info);
    for (size_t i = 0; i < codes.size(); ++i)
      if (codes[i] > 0)
        throw_linalg_error(std::string(error_op) + ": " + batch_prefix(i, !batch.empty()) +
                           "The factorization could not be completed because the block diagonal matrix D is "
                           "singular: D[" +
                           std::to_string(codes[i] - 1) + ", " + std::to_string(codes[i] - 1) +
                           "] is exactly zero (error code: " + std::to_string(codes[i]) + ").");
  }
  return {ld, pivots, info};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& a, bool hermitian, bool check_errors) {
  profiler::RecordScope profile_scope("aten::linalg_ldl_factor_ex", a, hermitian, check_errors);
  return ldl_factor_impl("torch.linalg.ldl_factor_ex", a, hermitian, check_errors);
}

std::tuple<Tensor, Tensor> linalg_ldl_factor(const Tensor& a, bool hermitian) {
  profiler::RecordScope profile_scope("aten::linalg_ldl_factor", a, hermitian);
  auto [ld, pivots, info] = ldl_factor_impl("torch.linalg.ldl_factor", a, hermitian, true);
  return {ld, pivots};
}

Tensor linalg_ldl_solve(const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian) {
  profiler::RecordScope profile_scope("aten::linalg_ldl_solve", ld, pivots, b, hermitian);
  const char* op = "torch.linalg.ldl_solve";
  check_square(op, ld);
  if (!is_floating(ld.dtype())) check_float(op, ld);
  TANDEM_CHECK(b.dtype() == ld.dtype(), Runtime,
               "Expected b and A to have the same dtype, but found b of type ", dtype_title(b.dtype()),
               " and A of type ", dtype_title(ld.dtype()), " instead.",
               "\nhint: convert B with .to(LD.dtype)");
  TANDEM_CHECK(b.device() == ld.device(), Runtime,
               "Expected b and A to be on the same device, but found b on ", b.device().str(), " and A on ",
               ld.device().str(), " instead.", "\nhint: move B with .to(LD.device)");
  const int64_t n = ld.size(-1);
  TANDEM_CHECK(b.size(-2) == n, Runtime, "Incompatible matrix sizes for ", op, ": each A matrix is ", n,
               " by ", n, " but each b matrix is ", b.size(-2), " by ", b.size(-1),
               "\nhint: B is (..., n, k) for LD (..., n, n)");
  const auto& ls = ld.sizes();
  const auto& ps = pivots.sizes();
  TANDEM_CHECK(ps.size() + 1 == ls.size() && std::equal(ps.begin(), ps.end(), ls.begin()), Runtime, op,
               ": Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape ",
               pivots.shape_str(), " instead", "\nhint: pass the pivots linalg.ldl_factor returned for LD");
  TANDEM_CHECK(is_integral(pivots.dtype(), false), Runtime, op, ": Expected pivots to be integers. Got ",
               dtype_title(pivots.dtype()), "\nhint: pass the pivots linalg.ldl_factor returned for LD");
  // B first: PyTorch names B's batch "tensor a" when they do not broadcast.
  DimVector batch = broadcast_shapes(batch_shape(b), batch_shape(ld));
  check_lapack_dtype("ldl_solve_kernel", ld);
  const int64_t k = b.size(-1), count = batch_count(batch);
  const bool herm = hermitian && is_complex(ld.dtype());
  Tensor x = autograd::without_grad([&] {
    if (pivots.numel() > 0) check_pivots(contiguous(to_device(pivots, Device(), DType::Int32, false)), n);
    const LdlPlace place = ldl_place(op, ld, lapack_for(op, ld).ldl_solve != nullptr);
    Tensor ld_buf = column_major_copy(to_device(ld, place.device, std::nullopt, false), batch, ld.dtype());
    Tensor piv = to_device(pivots, place.device, DType::Int32, false);
    piv = reshape(contiguous(expand(piv, with_last(batch, n))), DimVector{count, n});
    Tensor x = column_major_copy(to_device(b, place.device, std::nullopt, false), batch, ld.dtype());
    if (x.numel() > 0 && n > 0) place.kernels->ldl_solve(ld_buf, piv, x, herm);
    Tensor out = from_column_major(x, batch, n, k);
    return place.on_host ? to_device(out, ld.device(), std::nullopt, false) : out;
  });
  if (autograd::should_record(ld, b))
    autograd::record_not_implemented("aten::linalg_ldl_solve", {&ld, &b}, {&x});
  return x;
}

}  // namespace tandem
