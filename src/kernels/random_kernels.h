// Kernel slots of the random family (filled per device type at backend registration).
#pragma once
#include "core/tensor.h"

namespace tandem {

struct RandomKernels {
};

}  // namespace tandem
