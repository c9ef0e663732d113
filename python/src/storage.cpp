// as_strided and its forms, resize_, set_, is_set_to, and the few primitives the Python storage classes
// (python/tandem/_storage.py) are built on: a storage is held as a uint8 tensor over its memory.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.h"
#include "core/error.h"
#include "ops/as_strided.h"
#include "ops/resize.h"

namespace tandem::py {

namespace {
std::optional<int64_t> offset_arg(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return nb::cast<int64_t>(h);
}
std::optional<DimVector> strides_arg(nb::handle h, const char* fn) {
  if (h.is_none()) return std::nullopt;
  return to_shape(h, fn);
}
}  // namespace

void init_storage(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);

  auto as_strided_fn = [](const Tensor& x, nb::handle size, nb::handle stride, nb::handle offset) {
    return tracked_view(
        x, as_strided(x, to_shape(size, "as_strided"), to_shape(stride, "as_strided"), offset_arg(offset)));
  };
  tensor.def("as_strided", as_strided_fn, nb::arg("size"), nb::arg("stride"),
             nb::arg("storage_offset").none() = nb::none());
  m.def("as_strided", as_strided_fn, nb::arg("input"), nb::arg("size"), nb::arg("stride"),
        nb::arg("storage_offset").none() = nb::none());
  auto as_strided_inplace = [](nb::handle self, nb::handle size, nb::handle stride, nb::handle offset) {
    as_strided_(self_tensor(self, "as_strided_"), to_shape(size, "as_strided_"),
                to_shape(stride, "as_strided_"), offset_arg(offset));
    return nb::borrow(self);
  };
  tensor.def("as_strided_", as_strided_inplace, nb::arg("size"), nb::arg("stride"),
             nb::arg("storage_offset").none() = nb::none());
  m.def("as_strided_", as_strided_inplace, nb::arg("input"), nb::arg("size"), nb::arg("stride"),
        nb::arg("storage_offset").none() = nb::none());
  auto scatter_fn = [](const Tensor& x, const Tensor& src, nb::handle size, nb::handle stride,
                       nb::handle offset) {
    return as_strided_scatter(x, src, to_shape(size, "as_strided_scatter"),
                              to_shape(stride, "as_strided_scatter"), offset_arg(offset));
  };
  tensor.def("as_strided_scatter", scatter_fn, nb::arg("src"), nb::arg("size"), nb::arg("stride"),
             nb::arg("storage_offset").none() = nb::none());
  m.def("as_strided_scatter", scatter_fn, nb::arg("input"), nb::arg("src"), nb::arg("size"),
        nb::arg("stride"), nb::arg("storage_offset").none() = nb::none());

  tensor.def(
      "is_set_to", [](const Tensor& x, const Tensor& other) { return is_set_to(x, other); },
      nb::arg("tensor"));

  // Primitives for python/tandem/_storage.py (argument parsing and memory formats live there).
  m.def(
      "_resize_",
      [](nb::handle self, nb::handle sizes, nb::handle strides) {
        resize_(self_tensor(self, "resize_"), to_shape(sizes, "resize_"), strides_arg(strides, "resize_"));
        return nb::borrow(self);
      },
      nb::arg("self"), nb::arg("sizes"), nb::arg("strides").none());
  m.def("_set_empty_", [](nb::handle self) {
    set_empty_(self_tensor(self, "set_"));
    return nb::borrow(self);
  });
  m.def("_set_to_tensor_", [](nb::handle self, const Tensor& source) {
    set_to_tensor_(self_tensor(self, "set_"), source);
    return nb::borrow(self);
  });
  m.def(
      "_set_to_storage_",
      [](nb::handle self, const Tensor& bytes, int64_t offset, nb::handle sizes, nb::handle strides) {
        set_to_storage_(self_tensor(self, "set_"), bytes, offset, to_shape(sizes, "set_"),
                        strides_arg(strides, "set_"));
        return nb::borrow(self);
      },
      nb::arg("self"), nb::arg("storage"), nb::arg("offset"), nb::arg("sizes"), nb::arg("strides").none());
  m.def("_storage_bytes", [](const Tensor& x) { return storage_bytes(x); });
  m.def(
      "_new_storage_bytes",
      [](int64_t nbytes, nb::handle device) {
        TANDEM_CHECK(nbytes >= 0, Runtime, "Storage size must be non-negative, got ", nbytes);
        return new_storage_bytes(static_cast<size_t>(nbytes), to_device(device));
      },
      nb::arg("nbytes"), nb::arg("device"));
  m.def(
      "_resize_storage",
      [](const Tensor& bytes, int64_t nbytes) {
        TANDEM_CHECK(nbytes >= 0, Runtime, "Storage size must be non-negative, got ", nbytes);
        resize_storage(bytes.storage(), static_cast<size_t>(nbytes));
      },
      nb::arg("storage"), nb::arg("nbytes"));
  m.def("_dtype_cpp_name", [](nb::handle d) { return std::string(dtype_cpp_name(to_dtype(d))); });
  m.def("_dtype_title", [](nb::handle d) { return std::string(dtype_title(to_dtype(d))); });
  m.def("_storage_resizable", [](const Tensor& x) { return x.storage()->resizable(); });
}

}  // namespace tandem::py
