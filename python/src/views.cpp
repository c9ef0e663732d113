// View ops: t.view(2, 3), t.permute(1, 0), t.split(2), ... and their module-level forms.
#include <nanobind/stl/vector.h>

#include <nanobind/stl/string.h>

#include "bindings.h"
#include "core/error.h"
#include "ops/view.h"
#include "parser_errors.h"

namespace tandem::py {

namespace {
nb::object tensor_tuple(const std::vector<Tensor>& parts) {
  nb::tuple t = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(parts.size())));
  for (size_t i = 0; i < parts.size(); ++i) PyTuple_SET_ITEM(t.ptr(), i, wrap(parts[i]).release().ptr());
  return t;
}
DimVector dims_from_args(nb::args args, const char* fn) { return shape_from_args(args, fn); }

// PyTorch's Tensor.split: an int, or a one-element tensor (read with int(), so 1.0 is 1), is the size of each
// piece; a list or tuple lists the sizes; anything else is split_with_sizes' TypeError.
nb::object split_impl(const Tensor& x, nb::handle size, int64_t dim) {
  if (PyLong_Check(size.ptr())) return tensor_tuple(split(x, int_arg(size, "split", "split_size", 1), dim));
  if (is_tensor(size) && as_tensor_ref(size).numel() == 1)
    return tensor_tuple(split(x, nb::cast<int64_t>(nb::int_(size)), dim));
  TANDEM_CHECK(nb::isinstance<nb::tuple>(size) || nb::isinstance<nb::list>(size), Type,
               "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not ",
               is_tensor(size) ? "Tensor" : Py_TYPE(size.ptr())->tp_name);
  return tensor_tuple(split_with_sizes(x, to_shape(size, "split"), dim));
}
}  // namespace

void init_views(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);

  // A lone argument that is neither a size, a list of sizes nor a dtype (view("float32"), view(2.0)) is the
  // listing of PyTorch's two overloads.
  const std::vector<ParserSignature>* view_overloads =
      &register_parser_signatures("view", {{{"torch.dtype dtype"}}, {{"tuple of ints size"}}});
  tensor.def(
      "view",
      [view_overloads](const Tensor& x, nb::args shape, nb::handle size, nb::handle dtype) {
        if (shape.size() == 1 && is_dtype(shape[0])) dtype = shape[0];
        if (shape.size() == 1 && dtype.is_none() && !PyTuple_Check(shape[0].ptr()) &&
            !PyList_Check(shape[0].ptr()) && !int_list_head(shape[0]))
          refuse_as_invalid_combination("view", *view_overloads, "size", shape[0], "tuple of ints");
        if (!dtype.is_none()) {
          TANDEM_CHECK(
              shape.size() <= 1 && size.is_none(), Type,
              "view() received an invalid combination of arguments: pass a shape or a dtype, not both");
          return view_dtype(x, to_dtype(dtype));
        }
        return tracked_view(x, view(x, shape_from_args(shape, size, "view", "size")));
      },
      nb::arg("args"), nb::arg("size") = nb::none(), nb::arg("dtype") = nb::none());
  // order= and copy= are what np.reshape(t, shape) passes to this method.
  tensor.def("reshape", [](const Tensor& x, nb::args shape, nb::kwargs kwargs) {
    for (auto [k, v] : kwargs) {
      std::string key = nb::cast<std::string>(k);
      if (key == "order") {
        TANDEM_CHECK(v.is_none() || nb::cast<std::string>(v) == "C", NotImplemented,
                     "reshape(): only order='C' is supported (tensors are row-major)");
      } else if (key == "shape") {
        return tracked_view(x, reshape(x, to_shape(v, "reshape")));
      } else {
        TANDEM_CHECK(key == "copy" && v.is_none(), Type, "reshape() got an unexpected keyword argument '",
                     key, "'");
      }
    }
    return tracked_view(x, reshape(x, dims_from_args(shape, "reshape")));
  });
  m.def(
      "reshape",
      [](const Tensor& x, nb::handle shape) {
        // Only the method takes sizes one by one (x.reshape(6)): the function's shape is a tuple or list.
        if (!PyTuple_Check(shape.ptr()) && !PyList_Check(shape.ptr())) {
          defer_argument_position("reshape", "shape");
          TANDEM_THROW(Type, "reshape(): argument 'shape' must be tuple of ints, not ",
                       parser_type_name(shape));
        }
        return tracked_view(x, reshape(x, to_shape(shape, "reshape")));
      },
      nb::arg("input"), nb::arg("shape"));
  tensor.def(
      "view_as", [](const Tensor& x, const Tensor& o) { return tracked_view(x, view(x, o.sizes())); },
      nb::arg("other"));
  tensor.def(
      "reshape_as", [](const Tensor& x, const Tensor& o) { return reshape(x, o.sizes()); }, nb::arg("other"));
  auto flatten_fn = [](const Tensor& x, int64_t s, int64_t e) { return tracked_view(x, flatten(x, s, e)); };
  tensor.def("flatten", flatten_fn, nb::arg("start_dim") = 0, nb::arg("end_dim") = -1);
  m.def("flatten", flatten_fn, nb::arg("input"), nb::arg("start_dim") = 0, nb::arg("end_dim") = -1);
  tensor.def("ravel", [](const Tensor& x) { return reshape(x, DimVector{-1}); });
  tensor.def(
      "permute",
      [](const Tensor& x, nb::args args, nb::handle dims) {
        return tracked_view(x, permute(x, shape_from_args(args, dims, "permute", "dims")));
      },
      nb::arg("args"), nb::arg("dims") = nb::none());
  m.def(
      "permute", [](const Tensor& x, nb::handle dims) { return permute(x, to_shape(dims, "permute")); },
      nb::arg("input"), nb::arg("dims"));
  auto transpose_fn = [](const Tensor& x, int64_t a, int64_t b) {
    return tracked_view(x, transpose(x, a, b));
  };
  // t.transpose(d0, d1) as in PyTorch; t.transpose() / t.transpose(None) / t.transpose(axes) as NumPy calls
  // it for np.transpose(t[, axes]).
  tensor.def(
      "transpose",
      [](const Tensor& x, nb::handle d0, nb::handle d1) {
        if (d1.is_none()) {
          if (d0.is_none()) {  // NumPy's transpose: all dims reversed, without x.T's warning for other ranks
            DimVector reversed(x.dim());
            for (int64_t i = 0; i < x.dim(); ++i) reversed[i] = x.dim() - 1 - i;
            return permute(x, reversed);
          }
          return permute(x, to_shape(d0, "transpose"));
        }
        const int64_t dim0 = int_arg(d0, "transpose", "dim0", 1);  // read first: PyTorch names dim0 first
        return tracked_view(x, transpose(x, dim0, int_arg(d1, "transpose", "dim1", 2)));
      },
      nb::arg("dim0").none() = nb::none(), nb::arg("dim1").none() = nb::none());
  tensor.def("swapaxes", transpose_fn, nb::arg("axis0"), nb::arg("axis1"));
  m.def("transpose", transpose_fn, nb::arg("input"), nb::arg("dim0"), nb::arg("dim1"));
  tensor.def("t", [](const Tensor& x) { return tracked_view(x, t(x)); });
  m.def("t", [](const Tensor& x) { return tracked_view(x, t(x)); });
  tensor.def_prop_ro("T", [](const Tensor& x) { return tracked_view(x, matrix_T(x)); });
  tensor.def_prop_ro("mT", [](const Tensor& x) { return tracked_view(x, mT(x)); });
  // A dim that is neither an int nor a list of ints (squeeze(True), squeeze(0.0)) is the listing of PyTorch's
  // overloads.
  const std::vector<ParserSignature>* squeeze_overloads = &register_parser_signatures(
      "squeeze",
      {{{"Tensor input"}}, {{"Tensor input", "int dim"}}, {{"Tensor input", "tuple of ints dim"}}});
  auto squeeze_fn = [squeeze_overloads](const Tensor& x, nb::handle dim) {
    if (dim.is_none()) return tracked_view(x, squeeze(x));
    const bool sequence = PyTuple_Check(dim.ptr()) || PyList_Check(dim.ptr());
    if (sequence
            ? PySequence_Size(dim.ptr()) > 0 && !int_list_head(nb::steal(PySequence_GetItem(dim.ptr(), 0)))
            : !is_int_argument(dim))
      refuse_as_invalid_combination("squeeze", *squeeze_overloads, "dim", dim, "int");
    if (is_tensor(dim) && as_tensor_ref(dim).dim() == 0)  // a 0-dim integer tensor is an int, as in PyTorch
      return tracked_view(x, squeeze(x, DimVector{nb::cast<int64_t>(dim.attr("__index__")())}));
    return tracked_view(x, squeeze(x, to_shape(dim, "squeeze")));
  };
  tensor.def("squeeze", squeeze_fn, nb::arg("dim") = nb::none());
  m.def("squeeze", squeeze_fn, nb::arg("input"), nb::arg("dim") = nb::none());
  auto unsqueeze_fn = [](const Tensor& x, int64_t d) { return tracked_view(x, unsqueeze(x, d)); };
  tensor.def("unsqueeze", unsqueeze_fn, nb::arg("dim"));
  m.def("unsqueeze", unsqueeze_fn, nb::arg("input"), nb::arg("dim"));
  tensor.def(
      "expand",
      [](const Tensor& x, nb::args args, nb::handle size) {
        return expand(x, shape_from_args(args, size, "expand", "size"));
      },
      nb::arg("args"), nb::arg("size") = nb::none());
  tensor.def(
      "expand_as", [](const Tensor& x, const Tensor& o) { return expand(x, o.sizes()); }, nb::arg("other"));
  m.def(
      "broadcast_to",
      [](const Tensor& x, nb::handle s) { return broadcast_to(x, to_shape(s, "broadcast_to")); },
      nb::arg("input"), nb::arg("size"));
  auto narrow_fn = [](const Tensor& x, int64_t d, int64_t s, int64_t l) {
    return tracked_view(x, narrow(x, d, s, l));
  };
  tensor.def("narrow", narrow_fn, nb::arg("dim"), nb::arg("start"), nb::arg("length"));
  m.def("narrow", narrow_fn, nb::arg("input"), nb::arg("dim"), nb::arg("start"), nb::arg("length"));
  // A call nanobind refuses (narrow(0, 0.0, 1)) is explained from PyTorch's overloads.
  register_parser_signatures("narrow", {{{"Tensor input", "int dim", "Tensor start", "int length"}},
                                        {{"Tensor input", "int dim", "int start", "int length"}}});
  // Tensor.select words its errors its own way (x[i], which also selects, keeps the core's message).
  auto select_fn = [](const Tensor& x, int64_t d, int64_t i) {
    TANDEM_CHECK(x.dim() > 0, Index, "select() cannot be applied to a 0-dim tensor.");
    const int64_t size = x.sizes()[wrap_dim(d, x.dim())];
    TANDEM_CHECK(i >= -size && i < size, Index, "select(): index ", i, " out of range for tensor of size ",
                 x.shape_str(), " at dimension ", wrap_dim(d, x.dim()));
    return tracked_view(x, select(x, d, i));
  };
  tensor.def("select", select_fn, nb::arg("dim"), nb::arg("index"));
  m.def("select", select_fn, nb::arg("input"), nb::arg("dim"), nb::arg("index"));
  auto unbind_fn = [](const Tensor& x, int64_t d) { return tensor_tuple(unbind(x, d)); };
  tensor.def("unbind", unbind_fn, nb::arg("dim") = 0);
  m.def("unbind", unbind_fn, nb::arg("input"), nb::arg("dim") = 0);
  auto chunk_fn = [](const Tensor& x, int64_t c, int64_t d) { return tensor_tuple(chunk(x, c, d)); };
  tensor.def("chunk", chunk_fn, nb::arg("chunks"), nb::arg("dim") = 0);
  m.def("chunk", chunk_fn, nb::arg("input"), nb::arg("chunks"), nb::arg("dim") = 0);
  tensor.def("split", &split_impl, nb::arg("split_size"), nb::arg("dim") = 0);
  m.def("split", &split_impl, nb::arg("tensor"), nb::arg("split_size_or_sections"), nb::arg("dim") = 0);
}

}  // namespace tandem::py
