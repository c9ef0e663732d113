// Bindings of the range factories: arange, linspace, eye (registered from init_random).
#include <nanobind/stl/optional.h>

#include <utility>

#include "bindings.h"
#include "core/error.h"
#include "factory_args.h"
#include "layouts.h"
#include "ops/copy.h"
#include "ops/factories.h"
#include "parser_errors.h"

namespace tandem::py {

namespace {
Scalar scalar_arg(nb::handle h, const char* fn, const char* arg) {
  Scalar s;
  if (is_tensor(h)) return item(as_tensor_ref(h));
  TANDEM_CHECK(to_scalar(h, s), Type, fn, "(): argument '", arg, "' must be Number, not ",
               nb::inst_name(h).c_str());
  return s;
}
// linspace's steps: an int (a NumPy integer too), never a bool (PyTorch's parser refuses one).
int64_t linspace_steps(nb::handle start, nb::handle end, nb::handle steps, nb::handle dtype,
                       nb::handle device) {
  auto name = [](nb::handle h) {
    return is_tensor(h) ? std::string("Tensor") : std::string(nb::inst_name(h).c_str());
  };
  // PyTorch's parser lists the keywords given after the positional types.
  std::string keywords;
  if (!dtype.is_none()) keywords += ", dtype=torch.dtype";
  if (!device.is_none()) keywords += ", device=" + name(device);
  TANDEM_CHECK(PyIndex_Check(steps.ptr()) && !PyBool_Check(steps.ptr()), Type,
               "linspace() received an invalid combination of arguments - got (", name(start), ", ",
               name(end), ", ", name(steps), keywords,
               "), but expected one of:\n * (Number start, Number end, int steps, *, Tensor out = None, "
               "tandem.dtype dtype = None, tandem.device device = None, bool requires_grad = False)");
  return nb::cast<int64_t>(steps.attr("__index__")());
}
}  // namespace

void init_factories(nb::module_& m) {
  m.def(
      "arange",
      [](nb::handle start, nb::handle end, nb::handle step, nb::handle dtype_arg, nb::handle device_arg,
         bool requires_grad, nb::handle out, nb::handle layout, bool pin_memory) {
        check_dense_layout(layout, "arange");
        check_factory_out("aten::arange", out);
        nb::object dtype = dtype_or_out(dtype_arg, out), device = device_or_out(device_arg, out);
        // arange(end) and arange(start, end[, step]), as PyTorch's overloads.
        if (end.is_none()) std::swap(start, end);
        TANDEM_CHECK(!end.is_none(), Type, "arange() missing required argument 'end'",
                     "\nhint: call arange(end) or arange(start, end, step)");
        Scalar a = start.is_none() ? Scalar(int64_t{0}) : scalar_arg(start, "arange", "start");
        Scalar z = scalar_arg(end, "arange", "end");
        Scalar s = step.is_none() ? Scalar(int64_t{1}) : scalar_arg(step, "arange", "step");
        Tensor t = arange(a, z, s, to_optional_dtype(dtype), device_or_default(device));
        return into_out("arange", with_requires_grad(pinned_if(t, pin_memory), requires_grad), out, {});
      },
      nb::arg("start") = nb::none(), nb::arg("end") = nb::none(), nb::arg("step") = nb::none(), nb::kw_only(),
      nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,
      nb::arg("out") = nb::none(), nb::arg("layout") = nb::none(), nb::arg("pin_memory") = false);
  m.def(
      "linspace",
      [](nb::handle start, nb::handle end, nb::handle steps_arg, nb::handle dtype, nb::handle device,
         bool requires_grad, nb::handle out, nb::handle layout, bool pin_memory) {
        check_dense_layout(layout, "linspace");
        check_factory_out("aten::linspace", out);
        const int64_t steps = linspace_steps(start, end, steps_arg, dtype, device);
        Tensor t = linspace(scalar_arg(start, "linspace", "start"), scalar_arg(end, "linspace", "end"), steps,
                            to_optional_dtype(dtype_or_out(dtype, out)),
                            device_or_default(device_or_out(device, out)));
        return into_out("linspace", with_requires_grad(pinned_if(t, pin_memory), requires_grad), out, {});
      },
      nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::kw_only(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("out") = nb::none(),
      nb::arg("layout") = nb::none(), nb::arg("pin_memory") = false);
  m.def(
      "eye",
      [](int64_t n, std::optional<int64_t> m, nb::handle dtype_arg, nb::handle device, bool requires_grad,
         nb::handle out, nb::handle layout, bool pin_memory) {
        check_dense_layout(layout, "eye");
        check_factory_out("aten::eye", out);
        nb::object dtype = dtype_or_out(dtype_arg, out);
        DType d = dtype.is_none() ? default_float_dtype() : to_dtype(dtype);
        Tensor t = eye(n, m, d, device_or_default(device_or_out(device, out)));
        return into_out("eye", with_requires_grad(pinned_if(t, pin_memory), requires_grad), out, {});
      },
      nb::arg("n"), nb::arg("m") = nb::none(), nb::kw_only(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("out") = nb::none(),
      nb::arg("layout") = nb::none(), nb::arg("pin_memory") = false);
  // A call nanobind refuses (eye(True, 3), eye(2, 3.0)) is explained from PyTorch's two overloads.
  const char* factory_keywords =
      "*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
      "None, "
      "bool pin_memory = False, bool requires_grad = False";
  register_parser_signatures("eye", {{{"int n"}, factory_keywords}, {{"int n", "int m"}, factory_keywords}});
}

}  // namespace tandem::py
