// PyTorch's name of a tensor type in its messages: the legacy tensor class of the eight types that have one
// ("torch.FloatTensor", "torch.cuda.LongTensor"), and "CPUBoolType", "CUDABFloat16Type",
// "CPUComplexFloatType" for the others (what its expand, autograd version-counter and hook messages print).
#pragma once
#include <string>

#include "core/device.h"
#include "core/dtype.h"

namespace tandem::autograd {

std::string legacy_type_name(DType dtype, Device device);

}  // namespace tandem::autograd
