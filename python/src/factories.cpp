// Bindings of the range factories: arange, linspace, eye (registered from init_random).
#include <nanobind/stl/optional.h>

#include <utility>

#include "bindings.h"
#include "core/error.h"
#include "factory_args.h"
#include "ops/copy.h"
#include "ops/factories.h"

namespace tandem::py {

namespace {
Scalar scalar_arg(nb::handle h, const char* fn, const char* arg) {
  Scalar s;
  if (is_tensor(h)) return item(as_tensor_ref(h));
  TANDEM_CHECK(to_scalar(h, s), Type, fn, "(): argument '", arg, "' must be Number, not ",
               nb::inst_name(h).c_str());
  return s;
}
}  // namespace

void init_factories(nb::module_& m) {
  m.def(
      "arange",
      [](nb::handle start, nb::handle end, nb::handle step, nb::handle dtype, nb::handle device,
         bool requires_grad) {
        // arange(end) and arange(start, end[, step]), as PyTorch's overloads.
        if (end.is_none()) std::swap(start, end);
        TANDEM_CHECK(!end.is_none(), Type, "arange() missing required argument 'end'",
                     "\nhint: call arange(end) or arange(start, end, step)");
        Scalar a = start.is_none() ? Scalar(int64_t{0}) : scalar_arg(start, "arange", "start");
        Scalar z = scalar_arg(end, "arange", "end");
        Scalar s = step.is_none() ? Scalar(int64_t{1}) : scalar_arg(step, "arange", "step");
        Tensor t = arange(a, z, s, to_optional_dtype(dtype), device_or_default(device));
        return with_requires_grad(t, requires_grad);
      },
      nb::arg("start") = nb::none(), nb::arg("end") = nb::none(), nb::arg("step") = nb::none(), nb::kw_only(),
      nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(), nb::arg("requires_grad") = false);
  m.def(
      "linspace",
      [](nb::handle start, nb::handle end, int64_t steps, nb::handle dtype, nb::handle device,
         bool requires_grad) {
        Tensor t = linspace(scalar_arg(start, "linspace", "start"), scalar_arg(end, "linspace", "end"), steps,
                            to_optional_dtype(dtype), device_or_default(device));
        return with_requires_grad(t, requires_grad);
      },
      nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::kw_only(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false);
  m.def(
      "eye",
      [](int64_t n, std::optional<int64_t> m, nb::handle dtype, nb::handle device, bool requires_grad) {
        DType d = dtype.is_none() ? default_float_dtype() : to_dtype(dtype);
        return with_requires_grad(eye(n, m, d, device_or_default(device)), requires_grad);
      },
      nb::arg("n"), nb::arg("m") = nb::none(), nb::kw_only(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false);
}

}  // namespace tandem::py
