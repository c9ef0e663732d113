// Complex numbers: the .real/.imag views, view_as_real/view_as_complex, conj, angle, polar, complex (argument
// conversion only; ops/complex.h has the rules).
#include "ops/complex.h"
#include "bindings.h"
#include "ops/copy.h"

namespace tandem::py {

// PyTorch's copy warns for every real target but bool (which keeps "either part nonzero" whole).
void warn_if_discarding_imag(DType from, DType to) {
  if (!is_complex(from) || is_complex(to) || to == DType::Bool) return;
  if (PyErr_WarnEx(PyExc_UserWarning, "Casting complex values to real discards the imaginary part", 1) < 0)
    throw nb::python_error();
}

void init_complex(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);

  // A real tensor is its own real part and its own conjugate: PyTorch returns the very same object.
  auto real_or_self = [](nb::handle self) -> nb::object {
    const Tensor& x = self_tensor(self, "real");
    return is_complex(x.dtype()) ? wrap(real(x)) : nb::borrow(self);
  };
  auto conj_or_self = [](nb::handle self) -> nb::object {
    const Tensor& x = self_tensor(self, "conj");
    return is_complex(x.dtype()) ? wrap(conj(x)) : nb::borrow(self);
  };
  // Assigning to .real / .imag writes through the view, as in PyTorch (x.imag = 0).
  tensor.def_prop_rw("real", real_or_self, [](const Tensor& x, const Tensor& v) { copy_(real(x), v); });
  tensor.def_prop_rw(
      "imag", [](const Tensor& x) { return imag(x); },
      [](const Tensor& x, const Tensor& v) { copy_(imag(x), v); });
  m.def("real", real_or_self, nb::arg("input"));
  m.def(
      "imag", [](const Tensor& x) { return imag(x); }, nb::arg("input"));
  m.def(
      "view_as_real", [](const Tensor& x) { return view_as_real(x); }, nb::arg("input"));
  m.def(
      "view_as_complex", [](const Tensor& x) { return view_as_complex(x); }, nb::arg("input"));
  for (const char* name : {"conj", "conj_physical"}) {
    if (std::string_view(name) == "conj")
      m.def(name, conj_or_self, nb::arg("input"));
    else  // conj_physical takes out=, with PyTorch's message for another dtype
      m.def(
          name,
          [conj_or_self](nb::handle self, nb::handle out) -> nb::object {
            if (out.is_none()) return conj_or_self(self);
            const Tensor& x = self_tensor(self, "conj_physical");
            return write_out("conj_physical", conj(x), out, {&x}, "Found dtype {out} but expected {result}");
          },
          nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
    tensor.def(name, conj_or_self);
  }
  m.def(
      "angle", [](const Tensor& x, nb::handle out) { return into_out("angle", angle(x), out, {&x}); },
      nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  tensor.def("angle", [](const Tensor& x) { return angle(x); });
  m.def(
      "sgn",
      [](const Tensor& x, nb::handle out) {
        return write_out("sgn", sgn(x), out, {&x}, "Found dtype {out} but expected {result}");
      },
      nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  tensor.def("sgn", [](const Tensor& x) { return sgn(x); });
  tensor.def("sgn_", [](const Tensor& x) { return copy_(x, sgn(x)); });
  // polar and complex: out must have the complex result's dtype (PyTorch's message).
  const char* complex_out_error =
      "Expected object of scalar type {result} but got scalar type {out} for argument 'out'";
  m.def(
      "polar",
      [complex_out_error](const Tensor& a, const Tensor& b, nb::handle out) {
        return write_out("polar", polar(a, b), out, {&a, &b}, complex_out_error);
      },
      nb::arg("abs"), nb::arg("angle"), nb::kw_only(), nb::arg("out") = nb::none());
  m.def(
      "complex",
      [complex_out_error](const Tensor& a, const Tensor& b, nb::handle out) {
        return write_out("complex", make_complex(a, b), out, {&a, &b}, complex_out_error);
      },
      nb::arg("real"), nb::arg("imag"), nb::kw_only(), nb::arg("out") = nb::none());
}

}  // namespace tandem::py
