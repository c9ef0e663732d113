// Bindings of the linalg area.
#include "bindings.h"

namespace tandem::py {

void init_linalg(nb::module_& m) { (void)m; }

}  // namespace tandem::py
