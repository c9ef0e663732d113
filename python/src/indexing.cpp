// Bindings of the indexing area.
#include "bindings.h"

namespace tandem::py {

void init_indexing(nb::module_& m) { (void)m; }

}  // namespace tandem::py
