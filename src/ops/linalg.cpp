#include "ops/linalg.h"

#include <string>

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/autocast.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/gemm_launch.h"
#include "ops/view.h"

namespace tandem {

namespace {

// The shortest way to convert a tensor to `d`: ".float()" or ".to(tandem.int8)".
std::string conversion(DType d) {
  switch (d) {
    case DType::Float32:
      return ".float()";
    case DType::Float64:
      return ".double()";
    case DType::Float16:
      return ".half()";
    case DType::BFloat16:
      return ".bfloat16()";
    case DType::Int64:
      return ".long()";
    case DType::Int32:
      return ".int()";
    default:
      return ".to(tandem." + std::string(dtype_name(d)) + ")";
  }
}

// Names the operand to convert and how: towards float32 when float32 meets float64 (the usual cause is a
// NumPy float64 array), otherwise towards the promoted dtype so no values are truncated.
std::string dtype_hint(const char* name_a, DType a, const char* name_b, DType b) {
  const bool numpy_mix =
      (a == DType::Float32 && b == DType::Float64) || (a == DType::Float64 && b == DType::Float32);
  const DType target = numpy_mix ? DType::Float32 : promote_types(a, b);
  std::string h = "\nhint: matrix products do not promote dtypes; ";
  if (a != target && b != target)
    h += std::string("convert both operands, e.g. ") + name_a + conversion(target) + " and " + name_b +
         conversion(target);
  else
    h += std::string("convert one operand, e.g. ") + (a == target ? name_b : name_a) + conversion(target);
  if (numpy_mix)
    h += " (NumPy arrays are float64 by default: build float32 tensors with "
         "tandem.from_numpy(a.astype(np.float32)))";
  return h;
}

void check_not_bool(DType d, const char* kernel) {
  TANDEM_CHECK(d != DType::Bool, NotImplemented, "\"", kernel, "\" not implemented for 'Bool'",
               "\nhint: convert the operands to an integer or floating dtype first, e.g. .int() or .float()");
}

void check_matrix(const char* op, const Tensor& t, const char* name) {
  TANDEM_CHECK(t.dim() == 2, Runtime, op, ": ", name, " must be a matrix, got ", t.dim(), "-D tensor",
               "\nhint: ", op, " takes 2-D operands; use tandem.matmul (or @) for vectors and batches");
}

void check_mm_shapes(const char* op, const Tensor& a, const Tensor& b) {
  if (a.size(1) == b.size(0)) return;
  std::string hint = "\nhint: the columns of mat1 (" + std::to_string(a.size(1)) +
                     ") must equal the rows of mat2 (" + std::to_string(b.size(0)) + ")";
  if (a.size(1) == b.size(1)) hint += "; did you mean to transpose mat2 (mat2.T)?";
  TANDEM_THROW(Runtime, op, ": mat1 and mat2 shapes cannot be multiplied (", a.size(0), "x", a.size(1),
               " and ", b.size(0), "x", b.size(1), ")", hint);
}

// The shape error of a batched product: batch2's (batch, rows) must be (batch, columns of batch1).
void check_batch_shapes(int64_t batch1, int64_t k1, int64_t batch2, int64_t k2) {
  TANDEM_CHECK(batch1 == batch2 && k1 == k2, Runtime,
               "Expected size for first two dimensions of batch2 tensor to be: [", batch1, ", ", k1,
               "] but got: [", batch2, ", ", k2, "].",
               "\nhint: batch1 is (b, n, m) and batch2 must be (b, m, p): the batch sizes and the inner "
               "sizes must agree");
}

void check_batch_dtypes(const Tensor& a, const Tensor& b) {
  TANDEM_CHECK(a.dtype() == b.dtype(), Runtime, "expected scalar type ", dtype_title(a.dtype()),
               " but found ", dtype_title(b.dtype()), dtype_hint("self", a.dtype(), "other", b.dtype()));
}

Tensor mm_unchecked(const Tensor& a, const Tensor& b) {
  Tensor out = empty(DimVector{a.size(0), b.size(1)}, a.dtype(), a.device());
  launch_gemm(a, b, out, 1.0, 0.0);
  return out;
}

// Broadcast batched product: a is (..., m, k), b is (..., k, n), both at least 2-D.
Tensor batched_matmul(const Tensor& a, const Tensor& b) {
  IntArrayRef as = a.sizes(), bs = b.sizes();
  DimVector batch = broadcast_shapes(as.first(as.size() - 2), bs.first(bs.size() - 2));
  const int64_t batch_numel = compute_numel(batch);
  check_batch_shapes(batch_numel, a.size(-1), batch_numel, b.size(-2));
  check_batch_dtypes(a, b);
  check_not_bool(a.dtype(), "bmm");
  DimVector a_shape = batch, b_shape = batch, out_shape = batch;
  a_shape.push_back(a.size(-2));
  a_shape.push_back(a.size(-1));
  b_shape.push_back(b.size(-2));
  b_shape.push_back(b.size(-1));
  out_shape.push_back(a.size(-2));
  out_shape.push_back(b.size(-1));
  Tensor out = empty(out_shape, a.dtype(), a.device());
  launch_gemm(expand(a, a_shape), expand(b, b_shape), out, 1.0, 0.0);
  return out;
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  profiler::RecordScope profile_scope("aten::mm", a, b);
  if (autocast::is_active()) return autocast::run(autocast::kLower, mm, a, b);
  check_matrix("mm", a, "self");
  check_matrix("mm", b, "mat2");
  check_same_device("mm", a, b, "input", "mat2");
  check_mm_shapes("mm", a, b);
  TANDEM_CHECK(a.dtype() == b.dtype(), Runtime,
               "expected m1 and m2 to have the same dtype, but got: ", dtype_cpp_name(a.dtype()),
               " != ", dtype_cpp_name(b.dtype()), dtype_hint("mat1", a.dtype(), "mat2", b.dtype()));
  check_not_bool(a.dtype(), "addmm_impl_cpu_");
  if (autograd::should_record(a, b)) return autograd::record_mm(a, b, mm_unchecked(a, b));
  return mm_unchecked(a, b);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  profiler::RecordScope profile_scope("aten::bmm", a, b);
  if (autocast::is_active()) return autocast::run(autocast::kLower, bmm, a, b);
  TANDEM_CHECK(a.dim() == 3, Runtime, "batch1 must be a 3D tensor",
               "\nhint: bmm takes (b, n, m) and (b, m, p) "
               "tensors; use tandem.matmul (or @) to broadcast other shapes");
  TANDEM_CHECK(b.dim() == 3, Runtime, "batch2 must be a 3D tensor",
               "\nhint: bmm takes (b, n, m) and (b, m, p) "
               "tensors; use tandem.matmul (or @) to broadcast other shapes");
  check_same_device("bmm", a, b, "input", "mat2");
  check_batch_shapes(a.size(0), a.size(2), b.size(0), b.size(1));
  check_batch_dtypes(a, b);
  check_not_bool(a.dtype(), "bmm");
  Tensor out = empty(DimVector{a.size(0), a.size(1), b.size(2)}, a.dtype(), a.device());
  launch_gemm(a, b, out, 1.0, 0.0);
  return autograd::should_record(a, b) ? autograd::record_bmm(a, b, out) : out;
}

Tensor mv(const Tensor& mat, const Tensor& vec) {
  profiler::RecordScope profile_scope("aten::mv", mat, vec);
  if (autocast::is_active()) return autocast::run(autocast::kCudaLower, mv, mat, vec);
  TANDEM_CHECK(mat.dim() == 2 && vec.dim() == 1, Runtime, "vector + matrix @ vector expected, got 1, ",
               mat.dim(), ", ", vec.dim(),
               "\nhint: mv takes a 2-D matrix and a 1-D vector; use tandem.matmul (or @) for other shapes");
  check_same_device("mv", mat, vec, "input", "vec");
  TANDEM_CHECK(mat.size(1) == vec.size(0), Runtime, "size mismatch, got input (", mat.size(0), "), mat (",
               mat.size(0), "x", mat.size(1), "), vec (", vec.size(0), ")", "\nhint: the vector's length (",
               vec.size(0), ") must equal the matrix's columns (", mat.size(1), ")");
  TANDEM_CHECK(mat.dtype() == vec.dtype(), Runtime, "addmv input tensors must have the same dtype, but got ",
               dtype_title(vec.dtype()), ", ", dtype_title(mat.dtype()), ", and ", dtype_title(vec.dtype()),
               dtype_hint("mat", mat.dtype(), "vec", vec.dtype()));
  check_not_bool(mat.dtype(), "addmv_impl_cpu");
  if (autograd::should_record(mat, vec))
    return autograd::record_mv(mat, vec, autograd::without_grad([&] { return mv(mat, vec); }));
  Tensor out = empty(DimVector{mat.size(0)}, mat.dtype(), mat.device());
  launch_gemm(mat, unsqueeze(vec, 1), unsqueeze(out, 1), 1.0, 0.0);
  return out;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  profiler::RecordScope profile_scope("aten::dot", a, b);
  if (autocast::is_active()) return autocast::run(autocast::kCudaPromote, dot, a, b);
  TANDEM_CHECK(a.dim() == 1 && b.dim() == 1, Runtime, "1D tensors expected, but got ", a.dim(), "D and ",
               b.dim(), "D tensors",
               "\nhint: dot takes two 1-D tensors; use tandem.matmul (or @) for other shapes");
  check_same_device("dot", a, b, "input", "tensor");
  TANDEM_CHECK(a.dtype() == b.dtype(), Runtime, "dot : expected both vectors to have same dtype, but found ",
               dtype_title(a.dtype()), " and ", dtype_title(b.dtype()),
               dtype_hint("self", a.dtype(), "other", b.dtype()));
  TANDEM_CHECK(a.size(0) == b.size(0), Runtime, "inconsistent tensor size, expected tensor [", a.size(0),
               "] and src [", b.size(0), "] to have the same number of elements, but got ", a.size(0),
               " and ", b.size(0), " elements respectively",
               "\nhint: both vectors must have the same length");
  check_not_bool(a.dtype(), "dot");
  if (autograd::should_record(a, b))
    return autograd::record_dot(a, b, autograd::without_grad([&] { return dot(a, b); }));
  Tensor out = empty(DimVector{}, a.dtype(), a.device());
  launch_gemm(unsqueeze(a, 0), unsqueeze(b, 1), unsqueeze(unsqueeze(out, 0), 0), 1.0, 0.0);
  return out;
}

Tensor vdot(const Tensor& a, const Tensor& b) {
  profiler::RecordScope profile_scope("aten::vdot", a, b);
  return dot(conj(a), b);
}

Tensor outer(const Tensor& a, const Tensor& b) {
  profiler::RecordScope profile_scope("aten::outer", a, b);
  TANDEM_CHECK(a.dim() == 1, Runtime, "outer: Expected 1-D argument self, but got ", a.dim(), "-D",
               "\nhint: flatten it first with .flatten() or .reshape(-1)");
  TANDEM_CHECK(b.dim() == 1, Runtime, "outer: Expected 1-D argument vec2, but got ", b.dim(), "-D",
               "\nhint: flatten it first with .flatten() or .reshape(-1)");
  return mul(unsqueeze(a, 1), unsqueeze(b, 0));
}

// Complex products go to the gemm slot like real ones (cgemm/zgemm on the CPU, cuBLAS on CUDA); the operands
// must share one complex dtype (matrix products do not promote).
void check_complex_product(const Tensor& a, const Tensor& b) {
  if (!is_complex(a.dtype()) && !is_complex(b.dtype())) return;
  TANDEM_CHECK(a.dtype() == b.dtype(), Runtime,
               "expected m1 and m2 to have the same dtype, but got: ", dtype_cpp_name(a.dtype()),
               " != ", dtype_cpp_name(b.dtype()), "\nhint: convert one, e.g. a @ b.to(a.dtype)");
}

// A complex matmul that records autograd: one node for the product (g @ b^H, a^H @ g), vectors as
// 1-row/1-column matrices; the forward is the unrecorded matmul.
Tensor recorded_complex_matmul(const Tensor& a, const Tensor& b) {
  TANDEM_CHECK(a.dim() >= 1 && b.dim() >= 1, Runtime,
               "both arguments to matmul need to be at least 1D, but they are ", a.dim(), "D and ", b.dim(),
               "D", "\nhint: use * (tandem.mul) to multiply by a scalar or a 0-D tensor");
  Tensor a2 = a.dim() == 1 ? unsqueeze(a, 0) : a;
  Tensor b2 = b.dim() == 1 ? unsqueeze(b, 1) : b;
  Tensor out =
      autograd::record_complex_matmul(a2, b2, autograd::without_grad([&] { return matmul(a2, b2); }));
  if (a.dim() == 1) out = squeeze(out, DimVector{-2});
  if (b.dim() == 1) out = squeeze(out, DimVector{-1});
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  profiler::RecordScope profile_scope("aten::matmul", a, b);
  if (autocast::is_active()) return autocast::run(autocast::kLower, matmul, a, b);
  check_complex_product(a, b);
  if (is_complex(a.dtype()) && autograd::should_record(a, b)) return recorded_complex_matmul(a, b);
  const int64_t da = a.dim(), db = b.dim();
  TANDEM_CHECK(da >= 1 && db >= 1, Runtime, "both arguments to matmul need to be at least 1D, but they are ",
               da, "D and ", db, "D", "\nhint: use * (tandem.mul) to multiply by a scalar or a 0-D tensor");
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (da == 1 && db == 2) return squeeze(mm(unsqueeze(a, 0), b), DimVector{0});
  if (da == 2 && db == 2) return mm(a, b);
  if (da >= 3 && db <= 2) {
    // Fold the batch dims of `a` into its rows: one large product instead of many small ones.
    DimVector out_shape(IntArrayRef(a.sizes()).first(static_cast<size_t>(da - 1)));
    // Explicit row count: reshape cannot infer -1 when k == 0.
    Tensor folded = reshape(a, DimVector{compute_numel(out_shape), a.size(-1)});
    if (db == 1) return view(mv(folded, b), out_shape);
    out_shape.push_back(b.size(1));
    return view(mm(folded, b), out_shape);
  }
  check_same_device("matmul", a, b);
  Tensor a2 = da == 1 ? unsqueeze(a, 0) : a;
  Tensor b2 = db == 1 ? unsqueeze(b, 1) : b;
  Tensor out = autograd::should_record(a2, b2)
                   ? autograd::record_batched_matmul(
                         a2, b2, autograd::without_grad([&] { return batched_matmul(a2, b2); }))
                   : batched_matmul(a2, b2);
  if (da == 1) out = squeeze(out, DimVector{-2});
  if (db == 1) out = squeeze(out, DimVector{-1});
  return out;
}

Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  profiler::RecordScope profile_scope("aten::addmm", input, mat1, mat2, beta, alpha);
  if (autocast::is_active()) return autocast::run(autocast::kLower, addmm, input, mat1, mat2, beta, alpha);
  check_matrix("addmm", mat1, "self");
  check_matrix("addmm", mat2, "mat2");
  check_same_device("addmm", mat1, mat2, "mat1", "mat2");
  check_same_device("addmm", input, mat1, "input", "mat1");
  check_mm_shapes("addmm", mat1, mat2);
  TANDEM_CHECK(input.dtype() == mat2.dtype(), Runtime, "self and mat2 must have the same dtype, but got ",
               dtype_title(input.dtype()), " and ", dtype_title(mat2.dtype()),
               dtype_hint("input", input.dtype(), "mat2", mat2.dtype()));
  TANDEM_CHECK(mat1.dtype() == mat2.dtype(), Runtime, "mat1 and mat2 must have the same dtype, but got ",
               dtype_title(mat1.dtype()), " and ", dtype_title(mat2.dtype()),
               dtype_hint("mat1", mat1.dtype(), "mat2", mat2.dtype()));
  check_not_bool(mat1.dtype(), "addmm_impl_cpu_");
  if (is_complex(mat1.dtype())) {
    TANDEM_CHECK(!(alpha.is_complex() && alpha.to_complex().im != 0) &&
                     !(beta.is_complex() && beta.to_complex().im != 0),
                 NotImplemented, "addmm(): complex alpha or beta are not supported yet",
                 "\nhint: scale a real-alpha product instead, e.g. alpha * (mat1 @ mat2) + beta * input");
  }
  if (autograd::should_record(input, mat1, mat2)) {
    Tensor out = autograd::without_grad([&] { return addmm(input, mat1, mat2, beta, alpha); });
    return autograd::record_addmm(input, mat1, mat2, beta, alpha, out);
  }
  DimVector shape{mat1.size(0), mat2.size(1)};
  Tensor broadcast_input = expand(input, shape);
  Tensor out = empty(shape, mat1.dtype(), mat1.device());
  const double b = beta.is_complex() ? beta.to_complex().re : beta.to_double();
  // beta == 0 ignores input entirely, so NaN in it does not reach the result (as in PyTorch).
  if (b != 0) copy_(out, broadcast_input);
  launch_gemm(mat1, mat2, out, alpha.is_complex() ? alpha.to_complex().re : alpha.to_double(), b);
  return out;
}

}  // namespace tandem
