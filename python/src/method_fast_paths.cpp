// C fast paths for the hottest Tensor methods called with self alone: `loss.item()` at the end of nearly
// every training step, `x.dim()`, `x.numel()`, `x.is_contiguous()`, `x.element_size()` in shape logic. The
// tensor_method descriptor (torch_function.cpp) tries one for a plain tensor while no TorchFunctionMode is
// active, skipping nanobind's argument dispatch (~20 ns of item()'s ~70). Each returns exactly what the bound
// method returns, or null without an error set for a case it leaves to the bound method (another device or
// dtype, an error to raise).
#include <cstring>

#include "bindings.h"

namespace tandem::py {

namespace {

template <typename T>
T load(const void* p) {  // the element may be unaligned (a tensor over a user's buffer)
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

const Tensor* plain_tensor(PyObject* self) {
  if (!nb::inst_ready(self)) return nullptr;
  const Tensor& t = as_tensor_ref(self);
  return t.defined() ? &t : nullptr;
}

// Python's own constructors below: null with the error set if one fails (no C++ exception out of a C call).
PyObject* item(PyObject* self) {
  const Tensor* t = plain_tensor(self);
  if (!t || !t->device().is_cpu() || t->numel() != 1) return nullptr;
  const void* p = t->data_ptr();
  switch (t->dtype()) {
    case DType::Float32:
      return PyFloat_FromDouble(load<float>(p));
    case DType::Float64:
      return PyFloat_FromDouble(load<double>(p));
    case DType::Int64:
      return PyLong_FromLongLong(load<int64_t>(p));
    case DType::Int32:
      return PyLong_FromLong(load<int32_t>(p));
    case DType::Bool:
      return PyBool_FromLong(load<bool>(p));
    default:
      return nullptr;
  }
}

PyObject* dim(PyObject* self) {
  const Tensor* t = plain_tensor(self);
  return t ? PyLong_FromLongLong(t->dim()) : nullptr;
}

PyObject* numel(PyObject* self) {
  const Tensor* t = plain_tensor(self);
  return t ? PyLong_FromLongLong(t->numel()) : nullptr;
}

PyObject* is_contiguous(PyObject* self) {
  const Tensor* t = plain_tensor(self);
  return t ? PyBool_FromLong(t->is_contiguous()) : nullptr;
}

PyObject* element_size(PyObject* self) {
  const Tensor* t = plain_tensor(self);
  return t ? PyLong_FromSize_t(t->element_size()) : nullptr;
}

}  // namespace

MethodFastPath method_fast_path(std::string_view name) {
  if (name == "item") return item;
  if (name == "dim" || name == "ndimension") return dim;
  if (name == "numel" || name == "nelement") return numel;
  if (name == "is_contiguous") return is_contiguous;
  if (name == "element_size") return element_size;
  return nullptr;
}

}  // namespace tandem::py
