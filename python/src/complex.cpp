// Complex numbers: the .real/.imag views, view_as_real/view_as_complex, conj, angle, polar, complex (argument
// conversion only; ops/complex.h has the rules).
#include "ops/complex.h"
#include "bindings.h"
#include "ops/copy.h"

namespace tandem::py {

void warn_if_discarding_imag(DType from, DType to) {
  if (!is_complex(from) || is_complex(to)) return;
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
    m.def(name, conj_or_self, nb::arg("input"));
    tensor.def(name, conj_or_self);
  }
  m.def(
      "angle", [](const Tensor& x) { return angle(x); }, nb::arg("input"));
  tensor.def("angle", [](const Tensor& x) { return angle(x); });
  m.def(
      "sgn", [](const Tensor& x) { return sgn(x); }, nb::arg("input"));
  tensor.def("sgn", [](const Tensor& x) { return sgn(x); });
  tensor.def("sgn_", [](const Tensor& x) { return copy_(x, sgn(x)); });
  m.def(
      "polar", [](const Tensor& a, const Tensor& b) { return polar(a, b); }, nb::arg("abs"),
      nb::arg("angle"));
  m.def(
      "complex", [](const Tensor& a, const Tensor& b) { return make_complex(a, b); }, nb::arg("real"),
      nb::arg("imag"));
}

}  // namespace tandem::py
