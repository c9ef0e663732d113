// Tensor.unfold(dimension, size, step): sliding windows as a view (ops/unfold.h).
#include "ops/unfold.h"
#include "bindings.h"
#include "core/error.h"

namespace tandem::py {

void init_unfold(nb::module_& m) {
  (void)m;
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
  tensor.def(
      "unfold",
      [](const Tensor& x, nb::handle dimension, nb::handle size, nb::handle step) {
        // read in order: PyTorch names the first argument that is not an int
        const int64_t d = int_arg(dimension, "unfold", "dimension", 1);
        const int64_t n = int_arg(size, "unfold", "size", 2);
        return unfold(x, d, n, int_arg(step, "unfold", "step", 3));
      },
      nb::arg("dimension").none(), nb::arg("size").none(), nb::arg("step").none());
}

}  // namespace tandem::py
