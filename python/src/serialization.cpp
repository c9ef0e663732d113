// Raw tensor bytes for tandem.save/tandem.load (safetensors): a tensor's elements as a contiguous host copy,
// and a tensor built from bytes + dtype + shape. Only plain data crosses here, never Python objects.
#include <nanobind/stl/string.h>

#include <cstring>

#include "bindings.h"
#include "core/error.h"
#include "ops/copy.h"

namespace tandem::py {

namespace {

// The elements of `t` in row-major order, copied to the host.
nb::bytes tensor_bytes(const Tensor& t) {
  Tensor host = contiguous(to_device(t, Device(), std::nullopt, false));
  return nb::bytes(static_cast<const char*>(host.data_ptr()), host.nbytes());
}

// A new CPU tensor holding `count` elements read from `buffer` at byte `offset` (any bytes-like object).
Tensor tensor_from_bytes(nb::handle buffer, size_t offset, nb::handle dtype_obj, nb::handle shape_obj) {
  DType dtype = to_dtype(dtype_obj);
  DimVector shape = to_shape(shape_obj, "_tensor_from_bytes");
  for (int64_t s : shape) TANDEM_CHECK(s >= 0, Value, "negative dimension ", s, " in a stored shape");
  Tensor out = empty(shape, dtype);
  Py_buffer view;
  TANDEM_CHECK(PyObject_GetBuffer(buffer.ptr(), &view, PyBUF_SIMPLE) == 0, Type,
               "_tensor_from_bytes(): expected a bytes-like object");
  size_t have = static_cast<size_t>(view.len);
  bool fits = offset <= have && out.nbytes() <= have - offset;
  if (fits && out.nbytes() > 0)
    std::memcpy(out.data_ptr(), static_cast<const char*>(view.buf) + offset, out.nbytes());
  PyBuffer_Release(&view);
  TANDEM_CHECK(fits, Value, "tensor data of ", out.nbytes(), " bytes at offset ", offset,
               " does not fit in a buffer of ", have, " bytes");
  return out;
}

}  // namespace

void init_serialization(nb::module_& m) {
  m.def("_tensor_bytes", &tensor_bytes, nb::arg("tensor"),
        "The tensor's elements, row-major, as host bytes.");
  m.def("_tensor_from_bytes", &tensor_from_bytes, nb::arg("buffer"), nb::arg("offset"), nb::arg("dtype"),
        nb::arg("shape"), "A CPU tensor read from raw little-endian bytes.");
}

}  // namespace tandem::py
