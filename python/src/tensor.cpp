// The Tensor class: metadata properties and conversions shared by every binding file.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <string_view>

#include "autograd/node.h"
#include "backend/crossing.h"
#include "bindings.h"
#include "core/error.h"
#include "layouts.h"
#include "ops/copy.h"
#include "ops/layout.h"
#include "ops/view.h"
#include "parser_errors.h"

namespace tandem::py {

nb::object wrap(Tensor t) { return nb::cast(std::move(t)); }

nb::object layouts(const char* name) {
  // A borrowed handle kept for the process: an owned object would be released after the interpreter is gone.
  static nb::handle module = nb::module_::import_("tandem._layouts").release();
  return module.attr(name);
}

const Tensor& like_input(nb::handle input, const char* name) {
  if (__builtin_expect(is_tensor(input), 1)) return as_tensor_ref(input);
  TANDEM_THROW(Type, name, "(): argument 'input' (position 1) must be Tensor, not ",
               nb::inst_name(input).c_str());
}

bool like_in_cpp(const Tensor& input, nb::handle memory_format, nb::handle layout) {
  // Borrowed handles kept for the process, as the module above.
  static nb::handle strided = layouts("strided").release();
  static nb::handle contiguous_format = layouts("contiguous_format").release();
  if (!layout.is_none() && !layout.is(strided)) return false;
  if (memory_format.is_none()) return preserved_strides(input).empty();
  return memory_format.is(contiguous_format);
}

void check_dense_layout(nb::handle layout, const char* fn) {
  static nb::handle strided = layouts("strided").release();
  static nb::handle layout_type = layouts("layout").release();
  if (layout.is_none() || layout.is(strided)) return;
  TANDEM_CHECK(nb::isinstance(layout, layout_type), Type, fn,
               "(): argument 'layout' must be torch.layout, not ", nb::inst_name(layout).c_str());
  TANDEM_THROW(NotImplemented, fn, "(): layout=", nb::str(layout).c_str(),
               " is not supported\nhint: tandem's factories make strided tensors; leave layout out (and call "
               ".to_sparse() for a sparse one)");
}

nb::object like_via_layouts(const char* name, const Tensor& input, nb::tuple args, nb::dict kwargs,
                            nb::handle memory_format, nb::handle layout) {
  return layouts("like")(name, input, args, kwargs, memory_format, layout);
}

void throw_not_a_tensor_self(nb::handle self, const char* method) {
  TANDEM_THROW(Type, "descriptor '", method, "' for 'tandem._C.TensorBase' objects doesn't apply to a '",
               nb::inst_name(self).c_str(), "' object");
}

Tensor& expect_tensor(nb::handle h, const char* fn, const char* arg) {
  if (__builtin_expect(is_tensor(h), 1)) return as_tensor_ref(h);
  TANDEM_THROW(Type, fn, "(): argument '", arg, "' must be Tensor, not ", nb::inst_name(h).c_str());
}

namespace {

// Python's OverflowError (an argument conversion error, so raised here in the bindings, not by the core).
[[noreturn]] void raise_overflow(const char* message) {
  PyErr_Format(PyExc_OverflowError, "%s\nhint: the Python int does not fit in 64 bits", message);
  throw nb::python_error();
}

}  // namespace

bool to_scalar(nb::handle h, Scalar& out, bool allow_uint64) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) {
    out = Scalar(o == Py_True);
    return true;
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) {
      // PyTorch reads an int past int64 as uint64: past that range both are Python's OverflowError, with
      // the texts of that failed uint64 read.
      if (overflow < 0) raise_overflow("can't convert negative int to unsigned");
      unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        raise_overflow("int too big to convert");
      }
      TANDEM_CHECK(allow_uint64, Runtime,
                   "value cannot be converted to type int64_t without overflow\nhint: this argument takes an "
                   "int64; the Python int is past 2**63 - 1");
      out = Scalar::from_uint64(u);
      return true;
    }
    out = Scalar(static_cast<int64_t>(v));
    return true;
  }
  if (PyFloat_Check(o)) {
    out = Scalar(PyFloat_AS_DOUBLE(o));
    return true;
  }
  if (PyComplex_Check(o)) {
    out = Scalar(complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
    return true;
  }
  // NumPy scalars (np.int64, np.float32) act like the Python number they hold; np.bool_ like a float, as
  // PyTorch's argument parser reads it (int64_tensor * np.bool_(True) is float32, full((2,), np.True_) too).
  PyTypeObject* tp = Py_TYPE(o);
  if (std::strcmp(tp->tp_name, "numpy.bool") == 0 || std::strcmp(tp->tp_name, "numpy.bool_") == 0) {
    const int truth = PyObject_IsTrue(o);
    if (truth < 0) throw nb::python_error();
    out = Scalar(truth ? 1.0 : 0.0);
    return true;
  }
  if (tp->tp_name && std::strncmp(tp->tp_name, "numpy.", 6) == 0 && nb::hasattr(h, "item") &&
      nb::hasattr(h, "dtype") && nb::cast<int>(h.attr("ndim")) == 0 &&
      std::strcmp(tp->tp_name, "numpy.ndarray") != 0) {
    nb::object value = h.attr("item")();
    // longdouble and clongdouble have no Python type to become: item() returns them again (recursing here
    // until the C stack overflowed). PyTorch reads them through float(), which for clongdouble is NumPy's
    // ComplexWarning and the real part.
    if (std::strncmp(Py_TYPE(value.ptr())->tp_name, "numpy.", 6) == 0) {
      PyObject* as_float = PyNumber_Float(value.ptr());
      if (!as_float) throw nb::python_error();
      value = nb::steal(as_float);
    }
    return to_scalar(value, out, allow_uint64);
  }
  return false;
}

std::string parser_type_name(nb::handle a) {
  // PyTorch's parser prints CPython's tp_name: a class statement's type bare (Parameter, UserClass), a static
  // C type with its module (numpy.ndarray, numpy.float64), builtins bare; tandem's classes as torch's.
  if (is_dtype(a)) return "torch.dtype";
  const char* tp_name = Py_TYPE(a.ptr())->tp_name;
  const char* dot = std::strrchr(tp_name, '.');
  const std::string bare = dot ? dot + 1 : tp_name;
  if (is_tensor(a)) return bare;  // Tensor, or a subclass's own name
  nb::object module =
      nb::getattr(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(a.ptr()))), "__module__", nb::none());
  if (PyUnicode_Check(module.ptr()) &&
      std::string_view(PyUnicode_AsUTF8(module.ptr())).starts_with("tandem")) {
    if (bare == "device" || bare == "memory_format" || bare == "layout" || bare == "Size")
      return "torch." + bare;
    if (bare == "Generator") return "torch._C.Generator";
  }
  return tp_name;
}

bool is_int_argument(nb::handle h) {
  PyObject* o = h.ptr();
  if (is_tensor(h)) {  // a 0-dim integer tensor (PyTorch refuses float and bool ones, and any with dims)
    const Tensor& t = as_tensor_ref(h);
    return t.dim() == 0 && is_integral(t.dtype(), /*include_bool=*/false);
  }
  return !PyBool_Check(o) && !PyFloat_Check(o) && PyIndex_Check(o);
}

bool int_list_head(nb::handle h) {
  if (is_tensor(h)) return as_tensor_ref(h).numel() == 1 && is_integral(as_tensor_ref(h).dtype(), true);
  return !PyBool_Check(h.ptr()) && !PyFloat_Check(h.ptr()) && PyIndex_Check(h.ptr());
}

int64_t int_arg(nb::handle h, const char* fn, const char* arg, int position) {
  nb::object index;
  if (!PyLong_CheckExact(h.ptr())) {  // the common case needs no __index__
    if (!is_int_argument(h)) {
      const std::string where = position > 0 ? " (position " + std::to_string(position) + ")" : "";
      TANDEM_THROW(Type, fn, "(): argument '", arg, "'", where, " must be int, not ", parser_type_name(h));
    }
    index = nb::int_(h);
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.is_valid() ? index.ptr() : h.ptr(), &overflow);
  TANDEM_CHECK(overflow == 0, Value, "Overflow when unpacking long long\nhint: '", arg,
               "' must fit in a signed 64-bit integer");
  return v;
}

int64_t symint_arg(nb::handle h, const char* fn, const char* arg, int position) {
  if (is_tensor(h)) {
    const Tensor& t = as_tensor_ref(h);
    if (t.numel() == 1 && is_integral(t.dtype(), /*include_bool=*/true)) return item(t).to<int64_t>();
  }
  // A function with several overloads in PyTorch (registered) refuses a non-integer with its listing.
  if (!PyLong_CheckExact(h.ptr()) && !is_int_argument(h))
    if (const std::vector<ParserSignature>* overloads = registered_parser_signatures(fn))
      refuse_as_invalid_combination(fn, *overloads, arg, h, "int");
  return int_arg(h, fn, arg, position);
}

std::string str_arg(nb::handle h, const char* fn, const char* arg) {
  if (PyUnicode_Check(h.ptr())) return nb::cast<std::string>(h);
  TANDEM_CHECK(PyBytes_Check(h.ptr()), Type, fn, "(): argument '", arg, "' must be str, not ",
               parser_type_name(h));
  nb::object text = nb::steal(PyUnicode_FromEncodedObject(h.ptr(), "utf-8", "strict"));
  if (!text.is_valid()) throw nb::python_error();
  return nb::cast<std::string>(text);
}

Scalar number_argument(nb::handle h, const char* fn, const char* arg) {
  Scalar s;
  if (to_scalar(h, s)) return s;
  if (is_tensor(h)) {
    const Tensor& t = as_tensor_ref(h);
    if (t.dim() == 0 && !t.requires_grad()) return item(t);
  }
  TANDEM_THROW(Type, fn, "(): argument '", arg, "' must be Number, not ",
               is_tensor(h) ? std::string("Tensor") : std::string(nb::inst_name(h).c_str()));
}

namespace {
// The name PyTorch's parser gives the size argument of `fn`.
const char* size_argument_name(std::string_view fn) {
  return fn == "reshape"                     ? "shape"
         : (fn == "flip" || fn == "permute") ? "dims"
         : fn == "repeat"                    ? "repeats"
                                             : "size";
}

// One size read through __index__ (an exact int directly: x.view(b, -1) is among the hottest calls); an int
// outside int64 is PyTorch's parser error for the element at `pos` (1-based).
int64_t size_item(nb::handle item, const char* fn, int64_t pos) {
  nb::object index;
  PyObject* o = item.ptr();
  if (!PyLong_CheckExact(o)) {
    index = nb::steal(PyNumber_Index(o));
    if (!index.is_valid()) throw nb::python_error();
    o = index.ptr();
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  // (PyTorch's message has no closing quote.)
  TANDEM_CHECK(overflow == 0, Type, fn, "(): argument '", size_argument_name(fn),
               "' failed to unpack the object at pos ", pos,
               " with error \"Overflow when unpacking long long");
  return v;
}
}  // namespace

DimVector to_shape(nb::handle h, const char* fn) {
  DimVector out;
  // An int, or any other integer (a NumPy int64 from np.prod(shape)), is one size, as PyTorch reads it.
  if ((PyLong_Check(h.ptr()) || (PyIndex_Check(h.ptr()) && !is_tensor(h))) && !PyBool_Check(h.ptr())) {
    out.push_back(size_item(h, fn, 1));
    return out;
  }
  // The names in PyTorch's parser messages: a tensor is "Tensor", anything else its type's name.
  auto type_name = [](nb::handle x) {
    return is_tensor(x) ? std::string("Tensor") : std::string(nb::inst_name(x).c_str());
  };
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {
    // PyTorch's parser takes a sequence for a size when its first element is an int, and a bool is not one
    // there (later bools pass as 0 or 1, as in PyTorch); another first element is its "found element" error.
    // A list is read through a tuple copy: an element's __index__ could change the list under the loop.
    const nb::object seq = PyTuple_Check(h.ptr()) ? nb::borrow(h) : nb::steal(PyList_AsTuple(h.ptr()));
    if (!seq.is_valid()) throw nb::python_error();
    const Py_ssize_t n = PyTuple_GET_SIZE(seq.ptr());
    PyObject* const* items = &PyTuple_GET_ITEM(seq.ptr(), 0);
    TANDEM_CHECK(n == 0 || int_list_head(nb::handle(items[0])), Type, fn, "(): argument '",
                 size_argument_name(fn), "' (position 1) must be tuple of ints, but found element of type ",
                 type_name(nb::handle(items[0])), " at pos 0");
    for (Py_ssize_t i = 0; i < n; ++i) {
      nb::handle item(items[i]);
      TANDEM_CHECK(PyLong_Check(item.ptr()) || PyIndex_Check(item.ptr()), Type, fn, "(): argument '",
                   size_argument_name(fn), "' failed to unpack the object at pos ", i + 1,
                   " with error \"type must be tuple of ints,but got ", type_name(item), "\"");
      out.push_back(size_item(item, fn, i + 1));
    }
    return out;
  }
  // A one-element integer tensor is a size, as in PyTorch (its __index__ refuses other tensors).
  if (is_tensor(h) && !is_floating(as_tensor_ref(h).dtype()) && as_tensor_ref(h).numel() == 1) {
    out.push_back(size_item(h, fn, 1));
    return out;
  }
  TANDEM_THROW(Type, fn, "(): argument '", size_argument_name(fn),
               "' (position 1) must be tuple of ints, not ", type_name(h));
}

// A call with no sizes at all (zeros(), x.view()) is PyTorch's TypeError, not a guessed 0-dim shape.
[[noreturn]] void missing_shape(const char* fn) {
  std::string_view f(fn);
  if (f == "view" || f == "rand" || f == "randn")
    TANDEM_THROW(Type, fn,
                 "() received an invalid combination of arguments - got (), but expected one of:\n * (",
                 f == "view" ? "tandem.dtype dtype)\n * (" : "", "tuple of ints size)");
  TANDEM_THROW(Type, fn, "() missing 1 required positional arguments: \"", size_argument_name(f), "\"");
}

DimVector size_list_arg(nb::handle h, const char* fn) {
  if (!PyTuple_Check(h.ptr()) && !PyList_Check(h.ptr())) {
    defer_argument_position(fn, "size");  // the wrapper adds the position a positional size had
    TANDEM_THROW(Type, fn, "(): argument 'size' must be tuple of ints, not ", parser_type_name(h));
  }
  return to_shape(h, fn);
}

DimVector shape_from_args(nb::args args, const char* fn) {
  if (args.size() == 0) missing_shape(fn);
  const std::vector<ParserSignature>* overloads = registered_parser_signatures(fn);
  if (args.size() == 1 && (!PyLong_Check(args[0].ptr()) || PyBool_Check(args[0].ptr()))) {
    // One argument that is no size for a function with several overloads (rand's generator forms): their
    // listing. A list is one when its first item is an int.
    nb::handle h = args[0];
    const bool list = PyTuple_Check(h.ptr()) || PyList_Check(h.ptr());
    const bool size_like =
        list ? PySequence_Size(h.ptr()) == 0 || int_list_head(nb::steal(PySequence_GetItem(h.ptr(), 0)))
             : int_list_head(h);
    if (overloads && overloads->size() > 1 && !size_like)
      refuse_as_invalid_combination(fn, *overloads, size_argument_name(fn), h, "tuple of ints");
    return to_shape(h, fn);  // empty(True) is no size: PyTorch's "not bool"
  }
  // Sizes one by one whose first is no int: PyTorch's parser reads the call as its one-argument form given
  // too many, or, for a function with several overloads (view, rand), their listing.
  if (!int_list_head(args[0])) {
    if (overloads && overloads->size() > 1)
      refuse_as_invalid_combination(fn, *overloads, size_argument_name(fn), args[0], "tuple of ints");
    TANDEM_THROW(Type, fn, "() takes 1 positional argument but ", args.size(), " were given");
  }
  return to_shape(args, fn);
}

DimVector shape_from_args(nb::args args, nb::handle keyword, const char* fn, const char* keyword_name) {
  if (keyword.is_none()) return shape_from_args(args, fn);
  TANDEM_CHECK(args.size() == 0, Type, fn, "() got multiple values for argument '", keyword_name, "'");
  return to_shape(keyword, fn);
}

nb::object shape_object(IntArrayRef sizes) {
  nb::tuple t = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(sizes.size())));
  for (size_t i = 0; i < sizes.size(); ++i) PyTuple_SET_ITEM(t.ptr(), i, PyLong_FromLongLong(sizes[i]));
  return t;
}

namespace {
// The garbage collector's view of a tensor: its type, its __dict__, and the Python objects its autograd state
// holds (visit_autograd_objects). Clearing drops the C++ tensor, which breaks any cycle through that state.
PyObject** dict_slot(PyObject* self) {
  Py_ssize_t offset = Py_TYPE(self)->tp_dictoffset;
  return offset > 0 ? reinterpret_cast<PyObject**>(reinterpret_cast<char*>(self) + offset) : nullptr;
}

int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (PyObject** dict = dict_slot(self)) Py_VISIT(*dict);
  return nb::inst_ready(self) ? visit_autograd_objects(as_tensor_ref(self), visit, arg) : 0;
}

int tensor_clear(PyObject* self) {
  if (PyObject** dict = dict_slot(self)) Py_CLEAR(*dict);
  if (nb::inst_ready(self)) as_tensor_ref(self) = Tensor();
  return 0;
}

// The buffer protocol's slots (numpy_interop.cpp) and the collector's.
PyType_Slot* tensor_slots() {
  static PyType_Slot slots[8];
  size_t n = 0;
  for (PyType_Slot* s = tensor_buffer_slots; s->slot; ++s) slots[n++] = *s;
  slots[n++] = {Py_tp_traverse, reinterpret_cast<void*>(&tensor_traverse)};
  slots[n++] = {Py_tp_clear, reinterpret_cast<void*>(&tensor_clear)};
  slots[n] = {0, nullptr};
  return slots;
}
}  // namespace

void init_tensor(nb::module_& m) {
  // The strides preserve_format gives a copy of t (ops/layout.h); None when row-major. Used by the *_like
  // factories' Python path (tandem/_layouts.py).
  m.def("_preserved_strides", [](const Tensor& t) -> nb::object {
    DimVector strides = preserved_strides(t);
    if (strides.empty()) return nb::none();
    nb::list out;
    for (int64_t s : strides) out.append(s);
    return nb::tuple(out);
  });
  // PyTorch's suggest_memory_format() == channels_last(_3d): what the ops whose results follow their input's
  // memory format ask (tandem/_layouts.py's follow_input_layout for the Python-level ones).
  // The Python compositions' int arguments, read by the same rule as the bindings' (_dim_args._int).
  m.def("_int_arg", [](nb::handle value, const char* fn, const char* arg, int position) {
    return int_arg(value, fn, arg, position);
  });
  m.def("_suggests_channels_last", [](const Tensor& t) { return suggests_channels_last(t); });
  // Gives a fresh row-major tensor (a *_like factory's result) the dense strides _preserved_strides chose, in
  // place: the same memory, its dims in another order, so no view and no copy.
  m.def("_lay_out_fresh", [](const Tensor& t, const std::vector<int64_t>& strides) {
    TANDEM_CHECK(
        t.is_contiguous() && t.storage_offset() == 0 && static_cast<int64_t>(strides.size()) == t.dim(),
        Runtime, "_lay_out_fresh: expected a fresh row-major tensor and one stride per dim");
    DimVector old = t.strides();
    t.impl()->set_geometry(0, t.sizes(), DimVector(std::span<const int64_t>(strides)));
    if (!is_non_overlapping_and_dense(t)) {
      t.impl()->set_geometry(0, t.sizes(), std::move(old));
      TANDEM_CHECK(false, Runtime, "_lay_out_fresh: the strides must lay the tensor out densely");
    }
  });
  nb::class_<Tensor>(m, "Tensor", nb::is_weak_referenceable(), nb::dynamic_attr(),
                     nb::type_slots(tensor_slots()))
      // tandem.Tensor(...) is PyTorch's legacy constructor of the default dtype (sizes, data or a tensor),
      // built in tandem/_legacy.py; Python subclasses that define their own __new__ (nn.Parameter) are
      // unaffected, and __init__ accepts whatever __new__ accepted.
      .def_static(
          "__new__",
          [](nb::handle cls, nb::args args, nb::kwargs kwargs) {
            return nb::module_::import_("tandem._legacy").attr("construct_tensor")(cls, *args, **kwargs);
          })
      .def("__init__", [](nb::handle, nb::args, nb::kwargs) {})
      .def_prop_ro("shape", [](const Tensor& t) { return size_object(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, nb::handle dim) -> nb::object {
            if (dim.is_none()) return size_object(t.sizes());
            return nb::int_(t.size(int_arg(dim, "size", "dim", 1)));
          },
          nb::arg("dim") = nb::none(), "The shape, or the size of one dim.")
      .def(
          "stride",
          [](const Tensor& t, nb::handle dim) -> nb::object {
            if (dim.is_none()) return shape_object(t.strides());
            return nb::int_(t.stride(int_arg(dim, "stride", "dim", 1)));
          },
          nb::arg("dim") = nb::none(), "Strides in elements, or the stride of one dim.")
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def_prop_ro("ndim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def_prop_ro("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_prop_ro("device", [](const Tensor& t) { return device_object(t.device()); })
      .def_prop_ro("is_cuda", [](const Tensor& t) { return t.device().is_cuda(); })
      .def_prop_ro("is_cpu", [](const Tensor& t) { return t.device().is_cpu(); })
      .def_prop_ro("is_meta", [](const Tensor& t) { return t.device().is_meta(); })
      .def("storage_offset", &Tensor::storage_offset)
      .def(
          "is_contiguous",
          [](nb::handle self, nb::handle memory_format) -> nb::object {
            // Checked: called unbound (Tensor.is_contiguous(x), as tandem._layouts does) self may be
            // anything.
            if (memory_format.is_none())
              return nb::bool_(expect_tensor(self, "is_contiguous", "self").is_contiguous());
            return layouts("is_contiguous")(self, memory_format);
          },
          nb::arg("memory_format") = nb::none())
      .def("element_size", &Tensor::element_size)
      .def_prop_ro("itemsize", &Tensor::element_size)
      .def_prop_ro("nbytes", &Tensor::nbytes)
      // A meta tensor has no memory: 0, as in PyTorch (its storage holds a placeholder, backend/meta).
      .def("data_ptr",
           [](const Tensor& t) {
             return t.device().is_meta() ? uintptr_t{0} : reinterpret_cast<uintptr_t>(t.data_ptr());
           })
      .def("is_floating_point", [](const Tensor& t) { return is_floating(t.dtype()); })
      // A property, as PyTorch's (code compares x._version before and after an in-place op).
      .def_prop_ro("_version", [](const Tensor& t) { return t.version(); })
      .def("_is_view_of",
           [](const Tensor& a, const Tensor& b) { return a.storage().get() == b.storage().get(); })
      // PyTorch's view bookkeeping: the tensor a view op made this one from (the first of a chain of views),
      // or None. A new Python object for that tensor: tandem does not keep one object per tensor, so compare
      // with `is not None` or by data_ptr/storage, not with `is`.
      .def_prop_ro("_base",
                   [](const Tensor& t) -> nb::object {
                     const auto& base = t.impl()->view_base();
                     return base ? wrap(Tensor(base)) : nb::none();
                   })
      .def("_is_view", [](const Tensor& t) { return static_cast<bool>(t.impl()->view_base()); })
      .def(
          "contiguous",
          [](nb::handle self, nb::handle memory_format) -> nb::object {
            if (!memory_format.is_none()) return layouts("contiguous")(self, memory_format);
            const Tensor& t = self_tensor(self, "contiguous");
            Tensor result = contiguous(t);
            // PyTorch returns the tensor itself (`x.contiguous() is x`), and no new wrapper is made for it.
            return result.is_same(t) ? nb::borrow(self) : wrap(std::move(result));
          },
          nb::arg("memory_format") = nb::none(), "This tensor if contiguous, else a copy.")
      .def(
          "clone",
          [](nb::handle self, nb::handle memory_format) -> nb::object {
            if (memory_format.is_none()) return wrap(clone_preserving_layout(self_tensor(self, "clone")));
            return layouts("clone")(self, memory_format);
          },
          nb::kw_only(), nb::arg("memory_format") = nb::none())
      .def("copy_",
           returning_self("copy_",
                          [](const Tensor& t, const Tensor& src, bool non_blocking) {
                            CrossingScope scope(".copy_()", true,
                                                t.device() != src.device());  // explicit for the guard
                            warn_if_discarding_imag(src.dtype(), t.dtype());
                            return copy_(t, src, non_blocking);
                          }),
           nb::arg("src"), nb::arg("non_blocking") = false)
      .def("fill_",
           returning_self("fill_",
                          [](const Tensor& t, nb::handle v) {
                            Scalar s;
                            if (is_tensor(v)) {
                              const Tensor& value = as_tensor_ref(v);
                              TANDEM_CHECK(
                                  value.dim() == 0, Runtime,
                                  "fill_ only supports 0-dimension value tensor but got tensor with ",
                                  value.dim(), " dimensions.\nhint: pass value.squeeze() or a number");
                              // PyTorch fills an expanded tensor from a number only; from a tensor it
                              // refuses.
                              check_writeable(t, "fill_");
                              // A value with history passes its gradient on (the sum of the filled
                              // elements' gradients, PyTorch's FillBackward3), as a broadcast copy does.
                              if (autograd::should_record(value)) return copy_(t, expand(value, t.sizes()));
                              return fill_(t, item(value));
                            }
                            TANDEM_CHECK(to_scalar(v, s, true), Type,
                                         "fill_(): argument 'value' must be Number, not ",
                                         nb::inst_name(v).c_str());
                            return fill_(t, s);
                          }),
           nb::arg("value"))
      .def("zero_", returning_self("zero_", [](const Tensor& t) { return tandem::zero_(t); }));
}

}  // namespace tandem::py
