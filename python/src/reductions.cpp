// Bindings of the reductions area.
#include "bindings.h"

namespace tandem::py {

void init_reductions(nb::module_& m) { (void)m; }

}  // namespace tandem::py
