// Bindings of the numpy area.
#include "bindings.h"

namespace tandem::py {

void init_numpy(nb::module_& m) { (void)m; }

}  // namespace tandem::py
