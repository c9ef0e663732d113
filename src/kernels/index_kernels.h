// Kernel slots of the index family (filled per device type at backend registration).
#pragma once
#include "core/tensor.h"

namespace tandem {

struct IndexKernels {
};

}  // namespace tandem
