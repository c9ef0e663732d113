// dtype conversions PyTorch users write as methods (t.float(), t.long(), t.type_as(u)), the new_* factories
// that inherit a tensor's dtype and device, and whole-tensor comparisons (isclose, allclose, equal).
#include "bindings.h"
#include "core/error.h"
#include "factory_args.h"
#include "layouts.h"
#include "ops/compare.h"
#include "ops/complex.h"
#include "ops/copy.h"

namespace tandem::py {

namespace {
// t.float() and friends return the tensor itself when it already has the dtype, as in PyTorch.
nb::object cast_to(nb::handle self, DType d) {
  const Tensor& t = self_tensor(self, dtype_name(d).data());
  if (t.dtype() == d) return nb::borrow(self);
  if (is_complex(t.dtype()) && !is_complex(d)) {
    warn_if_discarding_imag(t.dtype(), d);
    return wrap(cast_discarding_imag(t, d));
  }
  return wrap(to_dtype(t, d));
}

struct NewArgs {
  DType dtype;
  Device device;
};
NewArgs new_args(const Tensor& t, nb::handle dtype, nb::handle device, const char* fn) {
  return {dtype.is_none() ? t.dtype() : dtype_arg(dtype, fn),
          device.is_none() ? t.device() : to_device(device)};
}
}  // namespace

void init_conversions(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
#define TANDEM_CAST_METHOD(name, dtype) \
  tensor.def(name, [](nb::handle self) { return cast_to(self, DType::dtype); });
  TANDEM_CAST_METHOD("float", Float32)
  TANDEM_CAST_METHOD("double", Float64)
  TANDEM_CAST_METHOD("half", Float16)
  TANDEM_CAST_METHOD("bfloat16", BFloat16)
  TANDEM_CAST_METHOD("long", Int64)
  TANDEM_CAST_METHOD("int", Int32)
  TANDEM_CAST_METHOD("short", Int16)
  TANDEM_CAST_METHOD("char", Int8)
  TANDEM_CAST_METHOD("byte", UInt8)
  TANDEM_CAST_METHOD("bool", Bool)
#undef TANDEM_CAST_METHOD
  tensor.def(
      "type_as", [](nb::handle self, const Tensor& other) { return cast_to(self, other.dtype()); },
      nb::arg("other"), "This tensor converted to other's dtype.");

  tensor.def(
      "new_empty",
      [](const Tensor& t, nb::args args, nb::handle size, nb::handle dtype, nb::handle device,
         bool requires_grad, nb::handle layout, bool pin_memory) {
        check_dense_layout(layout, "new_empty");
        NewArgs a = new_args(t, dtype, device, "new_empty");
        return with_requires_grad(empty(shape_from_args(args, size, "new_empty", "size"), a.dtype, a.device),
                                  requires_grad);
      },
      nb::arg("args"), nb::arg("size") = nb::none(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("layout") = nb::none(),
      nb::arg("pin_memory") = false);
  tensor.def(
      "new_zeros",
      [](const Tensor& t, nb::args args, nb::handle size, nb::handle dtype, nb::handle device,
         bool requires_grad, nb::handle layout, bool pin_memory) {
        check_dense_layout(layout, "new_zeros");
        NewArgs a = new_args(t, dtype, device, "new_zeros");
        return with_requires_grad(
            full(shape_from_args(args, size, "new_zeros", "size"), Scalar(int64_t{0}), a.dtype, a.device),
            requires_grad);
      },
      nb::arg("args"), nb::arg("size") = nb::none(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("layout") = nb::none(),
      nb::arg("pin_memory") = false);
  tensor.def(
      "new_ones",
      [](const Tensor& t, nb::args args, nb::handle size, nb::handle dtype, nb::handle device,
         bool requires_grad, nb::handle layout, bool pin_memory) {
        check_dense_layout(layout, "new_ones");
        NewArgs a = new_args(t, dtype, device, "new_ones");
        return with_requires_grad(
            full(shape_from_args(args, size, "new_ones", "size"), Scalar(int64_t{1}), a.dtype, a.device),
            requires_grad);
      },
      nb::arg("args"), nb::arg("size") = nb::none(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("layout") = nb::none(),
      nb::arg("pin_memory") = false);
  tensor.def(
      "new_full",
      [](const Tensor& t, nb::handle size, nb::handle value, nb::handle dtype, nb::handle device,
         bool requires_grad, nb::handle layout, bool pin_memory) {
        const DimVector shape = size_list_arg(size, "new_full");  // PyTorch's parser reads the size first
        check_dense_layout(layout, "new_full");
        NewArgs a = new_args(t, dtype, device, "new_full");
        Scalar v = fill_value(value, "new_full", " (position 2)");
        return with_requires_grad(full(shape, v, a.dtype, a.device), requires_grad);
      },
      nb::arg("size").none(), nb::arg("fill_value"), nb::kw_only(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("layout") = nb::none(),
      nb::arg("pin_memory") = false);

  auto isclose_fn = [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
    return isclose(a, b, rtol, atol, equal_nan);
  };
  auto allclose_fn = [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
    return allclose(a, b, rtol, atol, equal_nan);
  };
  m.def("isclose", isclose_fn, nb::arg("input"), nb::arg("other"), nb::arg("rtol") = 1e-5,
        nb::arg("atol") = 1e-8, nb::arg("equal_nan") = false);
  tensor.def("isclose", isclose_fn, nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
             nb::arg("equal_nan") = false);
  m.def("allclose", allclose_fn, nb::arg("input"), nb::arg("other"), nb::arg("rtol") = 1e-5,
        nb::arg("atol") = 1e-8, nb::arg("equal_nan") = false);
  tensor.def("allclose", allclose_fn, nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
             nb::arg("equal_nan") = false);
  m.def(
      "equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); }, nb::arg("input"),
      nb::arg("other"));
  tensor.def(
      "equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); }, nb::arg("other"));
  m.def(
      "is_tensor", [](nb::handle h) { return is_tensor(h); }, "True for tandem tensors (and subclasses).");
  m.def("is_floating_point", [](const Tensor& t) { return is_floating(t.dtype()); });
  m.def("numel", [](const Tensor& t) { return t.numel(); });
}

}  // namespace tandem::py
