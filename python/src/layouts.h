// The memory_format= forms of Tensor.contiguous/is_contiguous/clone/to live in tandem/_layouts.py; the
// bindings call them only when a memory format is passed, so the plain calls stay in C++.
#pragma once
#include <nanobind/nanobind.h>

namespace tandem::py {

namespace nb = nanobind;

// tandem._layouts.<name>, looked up once.
nb::object layouts(const char* name);

}  // namespace tandem::py
