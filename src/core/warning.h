// PyTorch's UserWarnings from inside the core (its TORCH_WARN). The core cannot issue a Python warning itself:
// the Python bindings install the handler once. Without one (C++ users) warnings are dropped.
#pragma once
#include <string>

namespace tandem {

// Issues a UserWarning. The handler may throw (the bindings do when a warnings filter turns it into an
// error), so call it before the op writes anything.
void warn(const std::string& message);

using WarningHandler = void (*)(const std::string& message);
void set_warning_handler(WarningHandler handler);

}  // namespace tandem
