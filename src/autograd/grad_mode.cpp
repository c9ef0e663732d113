#include "autograd/grad_mode.h"

namespace tandem::autograd {

thread_local bool GradMode::enabled_ = true;

}  // namespace tandem::autograd
