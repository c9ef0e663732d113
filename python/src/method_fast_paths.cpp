// C fast paths for the hottest Tensor methods: with self alone, `loss.item()` at the end of nearly every
// training step, `x.dim()`, `x.numel()`, `x.is_contiguous()`, `x.element_size()` in shape logic; with sizes
// as plain ints, `x.view(b, -1)`, `x.reshape(...)`, `x.permute(...)`, `x.expand(...)` in every forward. The
// tensor_method descriptor (torch_function.cpp) tries one for a plain tensor while no TorchFunctionMode is
// active and no keyword is passed, skipping nanobind's argument dispatch (~20 ns of item()'s ~70; the *args
// methods take nanobind's slow path, ~100 ns of view()'s ~430). Each returns exactly what the bound method
// returns, or null without an error set for a case it leaves to the bound method (another device or dtype, a
// size that is not a plain int).
#include <cstring>
#include <exception>

#include "bindings.h"
#include "ops/view.h"

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
PyObject* item(PyObject* const* args, Py_ssize_t nargs) {
  const Tensor* t = nargs == 1 ? plain_tensor(args[0]) : nullptr;
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

PyObject* dim(PyObject* const* args, Py_ssize_t nargs) {
  const Tensor* t = nargs == 1 ? plain_tensor(args[0]) : nullptr;
  return t ? PyLong_FromLongLong(t->dim()) : nullptr;
}

PyObject* numel(PyObject* const* args, Py_ssize_t nargs) {
  const Tensor* t = nargs == 1 ? plain_tensor(args[0]) : nullptr;
  return t ? PyLong_FromLongLong(t->numel()) : nullptr;
}

PyObject* is_contiguous(PyObject* const* args, Py_ssize_t nargs) {
  const Tensor* t = nargs == 1 ? plain_tensor(args[0]) : nullptr;
  return t ? PyBool_FromLong(t->is_contiguous()) : nullptr;
}

PyObject* element_size(PyObject* const* args, Py_ssize_t nargs) {
  const Tensor* t = nargs == 1 ? plain_tensor(args[0]) : nullptr;
  return t ? PyLong_FromSize_t(t->element_size()) : nullptr;
}

// The sizes after self when every one is a plain int in int64's range (a bool, a NumPy int, a tuple, an int
// past int64: the bound method reads and words those).
bool plain_int_sizes(PyObject* const* args, Py_ssize_t nargs, DimVector& sizes) {
  for (Py_ssize_t i = 1; i < nargs; ++i) {
    if (!PyLong_CheckExact(args[i])) return false;
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(args[i], &overflow);
    if (overflow != 0) return false;
    sizes.push_back(v);
  }
  return true;
}

// x.op(int, int, ...): the same call the bound method makes for these arguments.
template <Tensor (*Op)(const Tensor&, IntArrayRef), bool Tracked>
PyObject* with_int_sizes(PyObject* const* args, Py_ssize_t nargs) {
  const Tensor* t = nargs >= 2 ? plain_tensor(args[0]) : nullptr;
  DimVector sizes;
  if (!t || !plain_int_sizes(args, nargs, sizes)) return nullptr;
  try {
    Tensor result = Op(*t, sizes);
    return wrap(Tracked ? tracked_view(*t, std::move(result)) : std::move(result)).release().ptr();
  } catch (...) {
    set_error_from_exception(std::current_exception());
    return nullptr;
  }
}

}  // namespace

MethodFastPath method_fast_path(std::string_view name) {
  if (name == "item") return item;
  if (name == "dim" || name == "ndimension") return dim;
  if (name == "numel" || name == "nelement") return numel;
  if (name == "is_contiguous") return is_contiguous;
  if (name == "element_size") return element_size;
  // As python/src/views.cpp binds them: view/reshape/permute are tracked views, expand is not.
  if (name == "view") return with_int_sizes<static_cast<Tensor (*)(const Tensor&, IntArrayRef)>(view), true>;
  if (name == "reshape") return with_int_sizes<reshape, true>;
  if (name == "permute") return with_int_sizes<permute, true>;
  if (name == "expand") return with_int_sizes<expand, false>;
  return nullptr;
}

}  // namespace tandem::py
