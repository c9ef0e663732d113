#include "ops/linalg_lapack_call.h"

#include <algorithm>

#include "core/error.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/view.h"

namespace tandem::linalg_detail {

void check_float(const char* op, const Tensor& a, const char* kernel, bool kernel_names_integers) {
  const DType d = a.dtype();
  if (d == DType::Float32 || d == DType::Float64 || d == DType::Complex64 || d == DType::Complex128) return;
  if (kernel && (is_floating(d) || kernel_names_integers)) return check_lapack_dtype(kernel, a);
  TANDEM_CHECK(!is_floating(d), NotImplemented, op, ": Low precision dtypes not supported. Got ",
               dtype_title(d), "\nhint: convert the input with .float() or .double() first");
  TANDEM_THROW(NotImplemented, op, ": Expected a floating point or complex tensor as input. Got ",
               dtype_title(d), "\nhint: convert the input with .double() (or .float()) first");
}

void check_lapack_dtype(const char* kernel, const Tensor& a) {
  const DType d = a.dtype();
  TANDEM_CHECK(d == DType::Float32 || d == DType::Float64 || is_complex(d), NotImplemented, "\"", kernel,
               a.device().type == DeviceType::CPU ? "_cpu" : "_cuda", "\" not implemented for '",
               dtype_title(d), "'", "\nhint: convert the input with .double() (or .float()) first");
}

void check_matrix(const char* op, const Tensor& a, const char* name) {
  TANDEM_CHECK(a.dim() >= 2, Runtime, op, ": The input tensor ", name, " must have at least 2 dimensions.",
               "\nhint: linalg functions take matrices (..., m, n); got shape ", a.shape_str());
}

void check_square(const char* op, const Tensor& a, const char* name) {
  check_matrix(op, a, name);
  TANDEM_CHECK(a.size(-1) == a.size(-2), Runtime, op, ": ", name,
               " must be batches of square matrices, but they are ", a.size(-2), " by ", a.size(-1),
               " matrices", "\nhint: the last two dims are the matrix; got shape ", a.shape_str());
}

const LapackKernels& lapack_for(const char* op, const Tensor& a) {
  const LapackKernels& k = lapack_kernels(a.device().type);
  TANDEM_CHECK(
      k.lu_factor, Runtime, op, ": tandem was built without LAPACK for ", a.device().str(),
      "\nhint: rebuild tandem with OpenBLAS's LAPACK (libopenblas-dev) for the CPU, or cuSOLVER for CUDA");
  TANDEM_CHECK(k.complex || !is_complex(a.dtype()), NotImplemented, op,
               ": complex inputs are not supported on ", a.device().str(), " by this build of tandem",
               "\nhint: run it on the CPU (A.cpu()) and move the result back with .to(A.device)");
  return k;
}

DimVector batch_shape(const Tensor& a) {
  const auto& s = a.sizes();
  return DimVector(IntArrayRef(s.data(), s.size() - 2));
}

DimVector with_last(IntArrayRef batch, int64_t n) {
  DimVector s(batch);
  s.push_back(n);
  return s;
}

int64_t batch_count(IntArrayRef batch) {
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  return n;
}

Tensor column_major_copy(const Tensor& a, IntArrayRef batch, DType dtype) {
  const int64_t m = a.size(-2), n = a.size(-1);
  DimVector shape(batch);
  shape.push_back(n);
  shape.push_back(m);
  // OpenBLAS's vector kernels (zgemv_n_SKYLAKEX under zgebrd, found by ASan) read a strided vector one
  // element past its end, up to a column beyond the last matrix: harmless inside a heap, a fault where the
  // buffer ends at unmapped memory (as ASan's allocator places them). The buffer keeps a spare column after
  // the batch.
  const int64_t elements = batch_count(batch) * m * n;
  Tensor padded = empty(DimVector{elements + std::max(m, n) + 8}, dtype, a.device());
  Tensor buf = reshape(narrow(padded, 0, 0, elements), shape);
  DimVector target(batch);
  target.push_back(m);
  target.push_back(n);
  copy_(mT(buf), expand(a, target));
  return reshape(buf, DimVector{batch_count(batch), n, m});
}

Tensor from_column_major(const Tensor& buf, IntArrayRef batch, int64_t rows, int64_t cols) {
  DimVector shape(batch);
  shape.push_back(cols);
  shape.push_back(rows);
  return mT(reshape(buf, shape));
}

std::vector<int> read_info(const Tensor& info) {
  // A meta factorisation has no values, so nothing can have failed (PyTorch's meta kernels check no info).
  if (info.device().is_meta()) return std::vector<int>(static_cast<size_t>(info.numel()), 0);
  Tensor host = contiguous(to_device(info, Device(), std::nullopt, false));
  const int* p = host.data<int>();
  return std::vector<int>(p, p + host.numel());
}

std::string batch_prefix(size_t i, bool batched) {
  return batched ? "(Batch element " + std::to_string(i) + "): " : std::string();
}

void throw_linalg_error(const std::string& msg) {
  detail::throw_error(ErrorKind::Runtime, msg, {ErrorField{"linalg_error", true}});
}

Tensor triangle(const Tensor& x, bool upper, int64_t diagonal) {
  const int64_t m = x.size(-2), n = x.size(-1);
  Tensor rows =
      unsqueeze(arange(Scalar(int64_t{0}), Scalar(m), Scalar(int64_t{1}), DType::Int64, x.device()), 1);
  Tensor cols = arange(Scalar(int64_t{0}), Scalar(n), Scalar(int64_t{1}), DType::Int64, x.device());
  Tensor offset = sub(cols, rows);  // j - i
  Tensor keep = upper ? ge(offset, Scalar(diagonal)) : le(offset, Scalar(diagonal));
  return where(keep, x, full(DimVector{}, Scalar(0.0), x.dtype(), x.device()));
}

Tensor diagonal_view(const Tensor& x) {
  DimVector sizes = batch_shape(x), strides;
  const auto& st = x.strides();
  for (size_t i = 0; i + 2 < st.size(); ++i) strides.push_back(st[i]);
  sizes.push_back(std::min(x.size(-2), x.size(-1)));
  strides.push_back(x.stride(-2) + x.stride(-1));
  return make_view(x, sizes, strides, x.storage_offset());
}

Tensor mH(const Tensor& x) { return conj(mT(x)); }

Tensor identity(int64_t n, const Tensor& like) { return eye(n, std::nullopt, like.dtype(), like.device()); }

}  // namespace tandem::linalg_detail
