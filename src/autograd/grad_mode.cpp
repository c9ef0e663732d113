#include "autograd/grad_mode.h"

namespace tandem::autograd {

thread_local bool GradMode::enabled_ = true;
thread_local bool GradMode::inference_ = false;

}  // namespace tandem::autograd
