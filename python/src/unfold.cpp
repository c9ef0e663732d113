// Tensor.unfold(dimension, size, step): sliding windows as a view (ops/unfold.h).
#include "ops/unfold.h"
#include "bindings.h"
#include "core/error.h"

namespace tandem::py {

namespace {

// PyTorch's argument parser: an int (a bool, float or None is refused); positions count from 1 after self.
int64_t int_arg(nb::handle h, const char* arg, int position) {
  const bool ok = !h.is_none() && !PyBool_Check(h.ptr()) && !PyFloat_Check(h.ptr()) &&
                  PyIndex_Check(h.ptr()) && (!is_tensor(h) || as_tensor_ref(h).dim() == 0);
  TANDEM_CHECK(ok, Type, "unfold(): argument '", arg, "' (position ", position, ") must be int, not ",
               nb::inst_name(h).c_str());
  return nb::cast<int64_t>(nb::int_(h));
}

}  // namespace

void init_unfold(nb::module_& m) {
  (void)m;
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
  tensor.def(
      "unfold",
      [](const Tensor& x, nb::handle dimension, nb::handle size, nb::handle step) {
        return unfold(x, int_arg(dimension, "dimension", 1), int_arg(size, "size", 2),
                      int_arg(step, "step", 3));
      },
      nb::arg("dimension").none(), nb::arg("size").none(), nb::arg("step").none());
}

}  // namespace tandem::py
