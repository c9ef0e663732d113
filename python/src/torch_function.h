// __torch_function__ dispatch (PyTorch's protocol) for the wrappers of tandem's public functions
// (builtin_function.cpp) and Tensor methods (torch_function.cpp). docs/compat.md, "__torch_function__".
#pragma once
#include <Python.h>

namespace tandem::py {

// Calls `function` with the vectorcall arguments, unless one of them (or an element of a list or tuple
// argument) has a type that implements __torch_function__, or a TorchFunctionMode is entered in this thread:
// then the call goes to tandem.overrides.handle_torch_function with `public_api` as the function. For a
// binary operator (`binary_op`), a TypeError raised there becomes NotImplemented, so that Python tries the
// reflected operator of the other operand (PyTorch's rule). A new reference, or null with an error set.
PyObject* call_with_torch_function(PyObject* public_api, PyObject* function, PyObject* const* args,
                                   size_t nargsf, PyObject* kwnames, bool binary_op);

// The same for a function whose arguments are data, not operands (tandem.tensor): only modes see its calls.
PyObject* call_with_torch_function_modes(PyObject* public_api, PyObject* function, PyObject* const* args,
                                         size_t nargsf, PyObject* kwnames);

// True while every thread is in the default dispatch state (no TorchFunctionMode entered, subclass dispatch
// not disabled): then a call whose operands are all plain (tandem.Tensor itself, Python numbers, None, ...)
// dispatches to no __torch_function__, and may skip the wrappers (operator_slots.cpp). One relaxed load.
bool torch_function_idle();

}  // namespace tandem::py
