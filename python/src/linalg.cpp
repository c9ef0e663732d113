// Bindings of the linalg area: matmul and the @ operator, mm, bmm, mv, dot, vdot, outer/ger, addmm (the
// functions with out=).
#include "ops/linalg.h"
#include "bindings.h"
#include "core/error.h"

namespace tandem::py {

namespace {

// Tensor @ other: NotImplemented for non-tensors so Python can try the other operand (then a TypeError).
nb::object matmul_operator(const Tensor& a, nb::handle b, bool reflected) {
  if (!is_tensor(b)) return nb::borrow(Py_NotImplemented);
  const Tensor& o = as_tensor_ref(b);
  return wrap(reflected ? matmul(o, a) : matmul(a, o));
}

// Binds fn as tandem.<name>(input, <second>, *, out=None) and Tensor.<name>(<second>), with PyTorch's
// argument names; fn_out writes into out= (ops/linalg.h).
template <typename Fn, typename FnOut>
void def_binary(nb::module_& m, nb::class_<Tensor>& tensor, const char* name, const char* second, Fn fn,
                FnOut fn_out) {
  m.def(
      name,
      [fn, fn_out, name, second](nb::handle a, nb::handle b, nb::handle out) -> nb::object {
        const Tensor& ta = expect_tensor(a, name, "input");
        const Tensor& tb = expect_tensor(b, name, second);
        if (out.is_none()) return wrap(fn(ta, tb));
        fn_out(ta, tb, expect_tensor(out, name, "out"));
        return nb::borrow(out);
      },
      nb::arg("input"), nb::arg(second), nb::kw_only(), nb::arg("out") = nb::none());
  tensor.def(
      name,
      [fn, name, second](const Tensor& a, nb::handle b) { return fn(a, expect_tensor(b, name, second)); },
      nb::arg(second));
}

}  // namespace

void init_linalg(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);

  // None is accepted (and answered NotImplemented) so that `t @ None` is Python's TypeError, as in PyTorch.
  tensor.def(
      "__matmul__", [](const Tensor& a, nb::handle b) { return matmul_operator(a, b, false); },
      nb::arg("other").none());
  tensor.def(
      "__rmatmul__", [](const Tensor& a, nb::handle b) { return matmul_operator(a, b, true); },
      nb::arg("other").none());
  def_binary(
      m, tensor, "matmul", "other", [](const Tensor& a, const Tensor& b) { return matmul(a, b); },
      [](const Tensor& a, const Tensor& b, const Tensor& o) { matmul_out(a, b, o); });
  def_binary(
      m, tensor, "mm", "mat2", [](const Tensor& a, const Tensor& b) { return mm(a, b); },
      [](const Tensor& a, const Tensor& b, const Tensor& o) { mm_out(a, b, o); });
  def_binary(
      m, tensor, "bmm", "mat2", [](const Tensor& a, const Tensor& b) { return bmm(a, b); },
      [](const Tensor& a, const Tensor& b, const Tensor& o) { bmm_out(a, b, o); });
  def_binary(
      m, tensor, "mv", "vec", [](const Tensor& a, const Tensor& b) { return mv(a, b); },
      [](const Tensor& a, const Tensor& b, const Tensor& o) { mv_out(a, b, o); });
  def_binary(
      m, tensor, "dot", "tensor", [](const Tensor& a, const Tensor& b) { return dot(a, b); },
      [](const Tensor& a, const Tensor& b, const Tensor& o) { dot_out(a, b, o); });
  // vdot conjugates its first operand (for real dtypes it is dot).
  def_binary(
      m, tensor, "vdot", "other", [](const Tensor& a, const Tensor& b) { return vdot(a, b); },
      [](const Tensor& a, const Tensor& b, const Tensor& o) { vdot_out(a, b, o); });
  def_binary(
      m, tensor, "outer", "vec2", [](const Tensor& a, const Tensor& b) { return outer(a, b); },
      [](const Tensor& a, const Tensor& b, const Tensor& o) { outer_out(a, b, o); });
  def_binary(
      m, tensor, "ger", "vec2", [](const Tensor& a, const Tensor& b) { return outer(a, b); },
      [](const Tensor& a, const Tensor& b, const Tensor& o) { outer_out(a, b, o); });

  auto addmm_fn = [](const Tensor& input, nb::handle m1, nb::handle m2, nb::handle beta, nb::handle alpha) {
    return addmm(input, expect_tensor(m1, "addmm", "mat1"), expect_tensor(m2, "addmm", "mat2"),
                 number_argument(beta, "addmm", "beta"), number_argument(alpha, "addmm", "alpha"));
  };
  m.def(
      "addmm",
      [addmm_fn](const Tensor& input, nb::handle m1, nb::handle m2, nb::handle beta, nb::handle alpha,
                 nb::handle out) -> nb::object {
        if (out.is_none()) return wrap(addmm_fn(input, m1, m2, beta, alpha));
        addmm_out(input, expect_tensor(m1, "addmm", "mat1"), expect_tensor(m2, "addmm", "mat2"),
                  number_argument(beta, "addmm", "beta"), number_argument(alpha, "addmm", "alpha"),
                  expect_tensor(out, "addmm", "out"));
        return nb::borrow(out);
      },
      nb::arg("input"), nb::arg("mat1"), nb::arg("mat2"), nb::kw_only(), nb::arg("beta") = 1,
      nb::arg("alpha") = 1, nb::arg("out") = nb::none());
  tensor.def("addmm", addmm_fn, nb::arg("mat1"), nb::arg("mat2"), nb::kw_only(), nb::arg("beta") = 1,
             nb::arg("alpha") = 1);
}

}  // namespace tandem::py
