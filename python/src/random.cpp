// Bindings of the random area.
#include "bindings.h"

namespace tandem::py {

void init_random(nb::module_& m) { (void)m; }

}  // namespace tandem::py
