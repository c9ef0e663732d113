// Kernel slots of the linalg family (filled per device type at backend registration).
#pragma once
#include "core/tensor.h"

namespace tandem {

struct LinalgKernels {
};

}  // namespace tandem
