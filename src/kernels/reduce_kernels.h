// Kernel slots of the reduce family (filled per device type at backend registration).
#pragma once
#include "core/tensor.h"

namespace tandem {

struct ReduceKernels {
};

}  // namespace tandem
