// Tensor.unfold(dimension, size, step): sliding windows as a view (ops/unfold.h).
#include "ops/unfold.h"
#include "bindings.h"

namespace tandem::py {

void init_unfold(nb::module_& m) {
  (void)m;
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
  tensor.def(
      "unfold",
      [](const Tensor& x, int64_t dimension, int64_t size, int64_t step) {
        return unfold(x, dimension, size, step);
      },
      nb::arg("dimension"), nb::arg("size"), nb::arg("step"));
}

}  // namespace tandem::py
