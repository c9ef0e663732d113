// The memory_format= forms of Tensor.contiguous/is_contiguous/clone/to and of the *_like factories live in
// tandem/_layouts.py; the bindings call them only when a memory format is passed (or, for the factories, the
// input is not row-major), so the plain calls stay in C++.
#pragma once
// nanobind, with the int64_t argument caster that refuses bool (first: before any binding reads an int)
#include "int_caster.h"

#include "core/tensor.h"
#include "tensor_caster.h"

namespace tandem::py {

namespace nb = nanobind;

// tandem._layouts.<name>, looked up once.
nb::object layouts(const char* name);

// The input of a *_like factory, or PyTorch's TypeError for anything else (a list, a PyTorch tensor).
const Tensor& like_input(nb::handle input, const char* name);

// The *_like factories answer the common call in C++: no layout or tandem.strided, and either
// memory_format=contiguous_format or no memory_format (PyTorch's preserve_format) on a row-major input, whose
// result is row-major too. Any other call goes through like_via_layouts.
bool like_in_cpp(const Tensor& input, nb::handle memory_format, nb::handle layout);

// The factories' layout=: None or tandem.strided (PyTorch programs pass it); a sparse layout is
// NotImplementedError with a hint, anything else PyTorch's TypeError.
void check_dense_layout(nb::handle layout, const char* fn);

// tandem._layouts.like: the layout checks and the permuted result for the other calls; it calls the factory
// back with the permuted input and memory_format=contiguous_format.
nb::object like_via_layouts(const char* name, const Tensor& input, nb::tuple args, nb::dict kwargs,
                            nb::handle memory_format, nb::handle layout);

}  // namespace tandem::py
