// The out= forms of the matrix products (ops/linalg.h). PyTorch's order of checks: autograd first, then the
// product's own argument checks (run by computing it), then out's dtype, device and shape.
#include "core/error.h"
#include "core/profiler.h"
#include "ops/autocast.h"
#include "ops/copy.h"
#include "ops/linalg.h"
#include "ops/out_arg.h"

namespace tandem {

namespace {

// out= forms are not on autocast's lists (PyTorch registers only the functional ops): the product runs in
// the operands' dtypes, and out must have that dtype.
template <typename Product>
Tensor product_into(const char* op, const Tensor& out, std::initializer_list<const Tensor*> inputs,
                    Product product) {
  check_out_autograd(op, out, inputs);
  autocast::SuspendGuard no_autocast;
  return assign_out_exact(op, out, product());
}

// dot's out=: PyTorch resizes out (with its warning) before it names a dtype mismatch its own way.
void check_dot_out(const Tensor& out, const Tensor& result) {
  resize_out(out, result.sizes());
  TANDEM_CHECK(out.dtype() == result.dtype(), Runtime, "result dtype ", dtype_title(out.dtype()),
               " does not match input dtype ", dtype_title(result.dtype()),
               "\nhint: dot writes its own dtype into out= (no conversion): pass an out tensor of dtype ",
               dtype_name(result.dtype()));
}

// mv's out= is addmv's `self`: when it broadcasts to the result (0-d, one element or mat's rows), PyTorch
// reports a mismatch with addmv's three dtypes; otherwise with the structured ops' message.
void check_mv_out_dtype(const Tensor& out, const Tensor& mat, const Tensor& vec) {
  const bool is_addmv_self =
      out.dim() == 0 || (out.dim() == 1 && (out.size(0) == 1 || out.size(0) == mat.size(0)));
  if (!is_addmv_self) return;  // assign_out_exact checks it
  TANDEM_CHECK(out.dtype() == mat.dtype(), Runtime, "addmv input tensors must have the same dtype, but got ",
               dtype_title(out.dtype()), ", ", dtype_title(mat.dtype()), ", and ", dtype_title(vec.dtype()),
               "\nhint: mv writes its own dtype into out= (no conversion): pass an out tensor of dtype ",
               dtype_name(mat.dtype()));
}

}  // namespace

Tensor mm_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  profiler::RecordScope profile_scope("aten::mm.out", a, b);
  return product_into("mm", out, {&a, &b}, [&] { return mm(a, b); });
}

Tensor bmm_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  profiler::RecordScope profile_scope("aten::bmm.out", a, b);
  return product_into("bmm", out, {&a, &b}, [&] { return bmm(a, b); });
}

Tensor addmm_out(const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                 const Scalar& alpha, const Tensor& out) {
  profiler::RecordScope profile_scope("aten::addmm.out", input, mat1, mat2);
  return product_into("addmm", out, {&input, &mat1, &mat2},
                      [&] { return addmm(input, mat1, mat2, beta, alpha); });
}

Tensor mv_out(const Tensor& mat, const Tensor& vec, const Tensor& out) {
  profiler::RecordScope profile_scope("aten::mv.out", mat, vec);
  return product_into("mv", out, {&mat, &vec}, [&] {
    Tensor r = mv(mat, vec);
    check_mv_out_dtype(out, mat, vec);
    return r;
  });
}

Tensor dot_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  profiler::RecordScope profile_scope("aten::dot.out", a, b);
  return product_into("dot", out, {&a, &b}, [&] {
    Tensor r = dot(a, b);
    check_dot_out(out, r);
    return r;
  });
}

Tensor vdot_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  profiler::RecordScope profile_scope("aten::vdot.out", a, b);
  return product_into("vdot", out, {&a, &b}, [&] {
    Tensor r = vdot(a, b);
    check_dot_out(out, r);
    return r;
  });
}

Tensor matmul_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  profiler::RecordScope profile_scope("aten::matmul.out", a, b);
  // PyTorch's matmul.out refuses autograd under its own name, then goes to dot.out, mv.out or the mm/bmm
  // family, each with its own dtype message.
  check_out_autograd("matmul", out, {&a, &b});
  if (a.dim() == 1 && b.dim() == 1) return dot_out(a, b, out);
  if (a.dim() == 2 && b.dim() == 1) return mv_out(a, b, out);
  return product_into("matmul", out, {&a, &b}, [&] { return matmul(a, b); });
}

Tensor outer_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  profiler::RecordScope profile_scope("aten::outer.out", a, b);
  // outer is a broadcast multiply in PyTorch (autograd refused as mul's), so out only needs the result to cast
  // to its dtype.
  check_out_autograd("mul", out, {&a, &b});
  Tensor r = outer(a, b);
  check_out("outer", out, r.dtype(), r.device(), {&a, &b});
  resize_out(out, r.sizes());
  return copy_(out, r);
}

}  // namespace tandem
