// Tensor creation from Python data and the basic factories (empty/zeros/ones/full and their _like forms).
#include <nanobind/stl/string.h>

#include <cstring>
#include <string_view>

#include "backend/crossing.h"
#include "bindings.h"
#include "core/error.h"
#include "core/profiler.h"
#include "factory_args.h"
#include "layouts.h"
#include "ops/copy.h"
#include "ops/pinned.h"
#include "ops/value_range.h"

namespace tandem::py {

namespace {

constexpr int kMaxNesting = 64;

// Lists, tuples and ranges are tensor data (tandem.tensor(range(3)), as in PyTorch).
bool is_sequence(nb::handle h) {
  return PyList_Check(h.ptr()) || PyTuple_Check(h.ptr()) || PyRange_Check(h.ptr());
}
// The items of a sequence as a list or tuple (a range is materialised; lists and tuples are returned as they
// are).
nb::object fast_sequence(nb::handle h) {
  PyObject* fast = PySequence_Fast(h.ptr(), "tensor(): expected a sequence");
  if (!fast) throw nb::python_error();
  return nb::steal(fast);
}

// The dtype NumPy scalars carry (np.float64 stays float64, as in PyTorch); -1 when not a NumPy scalar.
int numpy_scalar_dtype(nb::handle h) {
  PyTypeObject* tp = Py_TYPE(h.ptr());
  if (!tp->tp_name || std::strncmp(tp->tp_name, "numpy.", 6) != 0 || !nb::hasattr(h, "dtype")) return -1;
  std::string name = nb::cast<std::string>(h.attr("dtype").attr("name"));
  for (int i = 0; i < kNumDTypes; ++i)
    if (name == dtype_name(static_cast<DType>(i))) return i;
  return -1;
}

// Walks nested lists/tuples once to find the shape and the inferred dtype. With a dtype given (infer false),
// PyTorch infers nothing: a leaf that is no number fails when it is stored (fill_from), with its messages.
struct Inference {
  bool infer = true;
  DimVector shape;
  DType dtype = DType::Bool;
  bool any_leaf = false;
  bool saw_float = false;

  void join(DType d) {
    dtype = any_leaf ? promote_types(dtype, d) : d;
    any_leaf = true;
  }

  void leaf(nb::handle h, size_t depth) {
    DType d;
    // (PyTorch refuses a str or bytes given as the data itself before reading anything)
    TANDEM_CHECK(depth != 0 || !(PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr())), Type,
                 "new(): invalid data type '", Py_TYPE(h.ptr())->tp_name,
                 "'\nhint: tensor() takes numbers; convert the string first");
    if (!infer && !is_tensor(h) && !PyUnicode_Check(h.ptr())) {
      any_leaf = true;
      return;
    }
    if (is_tensor(h)) {
      const Tensor& t = as_tensor_ref(h);
      TANDEM_CHECK(t.numel() == 1 && t.dim() == 0, Value,
                   "only one element tensors can be converted to Python scalars");
      d = t.dtype();
    } else if (int nd = numpy_scalar_dtype(h); nd >= 0) {
      d = static_cast<DType>(nd);
    } else if (PyBool_Check(h.ptr())) {
      d = DType::Bool;
    } else if (PyLong_Check(h.ptr())) {
      d = DType::Int64;
    } else if (PyFloat_Check(h.ptr())) {
      d = default_float_dtype();
      saw_float = true;
    } else if (PyComplex_Check(h.ptr())) {
      d = complex_dtype_for(default_float_dtype());  // complex64, or complex128 under a float64 default
    } else {
      // PyTorch's errors: a string inside a list, met while the shape is still being read (before the first
      // number), is read as one more dimension; a string alone, a later one or any other object has no dtype.
      TANDEM_CHECK(!PyUnicode_Check(h.ptr()) || depth == 0 || any_leaf, Value, "too many dimensions 'str'",
                   "\nhint: tensor() takes numbers; convert the strings first");
      if (!infer) {
        any_leaf = true;
        return;
      }
      TANDEM_CHECK(!PyUnicode_Check(h.ptr()), Type, "new(): invalid data type 'str'",
                   "\nhint: tensor() takes numbers; convert the string first");
      TANDEM_CHECK(!PyBytes_Check(h.ptr()), Type, "new(): invalid data type 'bytes'",
                   "\nhint: tensor() takes numbers; bytearray(b) or list(b) reads bytes as numbers");
      TANDEM_THROW(
          Runtime, "Could not infer dtype of ", Py_TYPE(h.ptr())->tp_name,
          "\nhint: tensor() accepts numbers, bools, nested lists/tuples/ranges of them, and NumPy arrays");
    }
    join(d);
  }

  // A tensor where a row belongs: PyTorch reads it as the sequence of its rows (its dtype, whole, joins the
  // inferred one), so its sizes must be the rest of the shape down to numbers; each number may be a block of
  // one element (x[i] of a (2, 1) tensor), as a one-element tensor is a number anywhere in a nest.
  void tensor_rows(const Tensor& t, size_t depth) {
    if (infer) join(t.dtype());
    any_leaf = true;
    const DimVector& sizes = t.sizes();
    for (size_t k = 0; depth + k < shape.size(); ++k) {
      const size_t d = depth + k;
      TANDEM_CHECK(k < sizes.size(), Type, "not a sequence", "\nhint: expected a sequence of length ",
                   shape[d], " at dim ", d, " (got a 0-d tensor); nested lists must be rectangular");
      TANDEM_CHECK(sizes[k] == shape[d], Value, "expected sequence of length ", shape[d], " at dim ", d,
                   " (got ", sizes[k], ")");
      if (sizes[k] == 0) return;  // nothing below an empty row is read
    }
    int64_t per_number = 1;
    for (size_t k = shape.size() - depth; k < sizes.size(); ++k) per_number *= sizes[k];
    TANDEM_CHECK(per_number == 1, Value, "only one element tensors can be converted to Python scalars");
  }

  void walk(nb::handle h, size_t depth) {
    TANDEM_CHECK(depth < kMaxNesting, Value, "tensor(): data is nested more than ", kMaxNesting,
                 " levels deep");
    if (depth < shape.size() && is_tensor(h) && as_tensor_ref(h).dim() > 0) {
      tensor_rows(as_tensor_ref(h), depth);
      return;
    }
    if (!infer && depth < shape.size() && PyUnicode_Check(h.ptr())) {
      // With a dtype given PyTorch reads a str where a row belongs as its characters, each a str of length 1
      // (the store then refuses them as numbers).
      int64_t n = PyUnicode_GetLength(h.ptr());
      for (size_t d = depth; d < shape.size() && n > 0; ++d, n = 1)
        TANDEM_CHECK(shape[d] == n, Value, "expected sequence of length ", shape[d], " at dim ", d, " (got ",
                     n, ")");
      any_leaf = true;
      return;
    }
    if (!is_sequence(h)) {
      // A str where a row belongs: PyTorch's type inference refuses it before any length is compared.
      if (infer && depth < shape.size() && PyUnicode_Check(h.ptr())) return leaf(h, depth);
      // A number (or a 0-d tensor) where a sequence belongs is PyTorch's TypeError; a sequence of another
      // kind (a NumPy array, which the caller's fallback reads) its ValueError.
      const bool number = !PySequence_Check(h.ptr()) || (is_tensor(h) && as_tensor_ref(h).dim() == 0);
      if (depth != shape.size() && number)
        TANDEM_THROW(Type, "not a sequence", "\nhint: expected a sequence of length ", shape[depth],
                     " at dim ", depth, " (got ", nb::inst_name(h).c_str(),
                     "); nested lists must be rectangular");
      TANDEM_CHECK(depth == shape.size(), Value, "expected sequence of length ",
                   shape.size() > depth ? shape[depth] : 0, " at dim ", depth, " (got ",
                   nb::inst_name(h).c_str(), ")\nhint: nested lists must be rectangular");
      leaf(h, depth);
      return;
    }
    nb::object seq = fast_sequence(h);
    int64_t n = static_cast<int64_t>(PySequence_Fast_GET_SIZE(seq.ptr()));
    if (depth == shape.size()) {
      // A sequence where a number belongs: PyTorch's TypeError from reading it as a number of the dtype
      // inferred so far.
      if (any_leaf && (is_floating(dtype) || is_complex(dtype)))
        TANDEM_THROW(Type, "must be real number, not ", Py_TYPE(h.ptr())->tp_name,
                     "\nhint: expected a number at dim ", depth,
                     " but found a sequence; nested lists must be rectangular");
      TANDEM_CHECK(!any_leaf, Type, "'", Py_TYPE(h.ptr())->tp_name,
                   "' object cannot be interpreted as an integer\nhint: expected a number at dim ", depth,
                   " but found a sequence; nested lists must be rectangular");
      shape.push_back(n);
    } else {
      TANDEM_CHECK(depth < shape.size() && shape[depth] == n, Value, "expected sequence of length ",
                   depth < shape.size() ? shape[depth] : 0, " at dim ", depth, " (got ", n, ")");
    }
    PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
    for (int64_t i = 0; i < n; ++i) {
      TANDEM_CHECK(items[i] != h.ptr(), Type, "new(): self-referential lists are incompatible");
      walk(items[i], depth + 1);
    }
  }
};

// A tensor in a nest (a number, or rows that Inference checked against the shape): its elements in row-major
// order, each read as PyTorch reads a 0-d tensor there. Into an integer or bool dtype that is __index__,
// which refuses floating and complex tensors.
template <typename T>
void fill_from_tensor(const Tensor& t, T*& out) {
  constexpr DType target = dtype_of<T>();
  TANDEM_CHECK(
      is_floating(target) || is_complex(target) || !(is_floating(t.dtype()) || is_complex(t.dtype())), Type,
      "only integer tensors of a single element can be converted to an index",
      "\nhint: convert the tensor first (t.long(), t.round().long()) or build the tensor in a floating "
      "dtype");
  Tensor host = t;
  if (!t.device().is_cpu()) {
    CrossingScope scope("tandem.tensor(tensor)", false, true);  // implicit, as item() is
    host = to_device(t, Device(), std::nullopt, false);
  }
  host = contiguous(host);
  dispatch_any_dtype(host.dtype(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    const S* p = host.data<S>();
    for (int64_t i = 0, n = host.numel(); i < n; ++i) {
      const Scalar s = scalar_of(p[i]);
      check_value_fits(s, target, false);
      *out++ = s.to<T>();
    }
  });
}

// A leaf of no number type, met with a dtype given (nothing was inferred): PyTorch stores it through Python's
// number protocols (__float__ / __index__), with their TypeErrors.
template <typename T>
Scalar number_for(nb::handle h) {
  if constexpr (is_floating_type_v<T> || is_complex_type_v<T>) {
    const double d = PyFloat_AsDouble(h.ptr());
    if (d == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      TANDEM_THROW(Type, "must be real number, not ", Py_TYPE(h.ptr())->tp_name,
                   "\nhint: tensor() takes numbers; convert the element first");
    }
    return Scalar(d);
  } else {
    PyObject* index = PyNumber_Index(h.ptr());
    if (!index) {
      PyErr_Clear();
      TANDEM_THROW(Type, "'", Py_TYPE(h.ptr())->tp_name,
                   "' object cannot be interpreted as an integer\nhint: tensor() takes numbers; convert the "
                   "element first");
    }
    Scalar s;
    const bool ok = to_scalar(nb::steal(index), s, true);
    TANDEM_CHECK(ok, Type, "'", Py_TYPE(h.ptr())->tp_name, "' object cannot be interpreted as an integer");
    return s;
  }
}

template <typename T>
void fill_from(nb::handle h, T*& out) {
  if (is_sequence(h)) {
    nb::object seq = fast_sequence(h);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
    PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
    for (Py_ssize_t i = 0; i < n; ++i) fill_from<T>(items[i], out);
    return;
  }
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) {
    // An int past int64: a floating target takes it rounded (tensor([2**64], dtype=float32), as in PyTorch);
    // uint64 takes 2**63 to 2**64 - 1 (to_scalar below); any other dtype refuses it with PyTorch's
    // ValueError.
    int overflow = 0;
    PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    constexpr DType target = dtype_of<T>();
    if (overflow != 0 && (is_floating(target) || is_complex(target))) {
      const double d = PyLong_AsDouble(h.ptr());
      if (d == -1.0 && PyErr_Occurred()) throw nb::python_error();
      *out++ = Scalar(d).to<T>();
      return;
    }
    TANDEM_CHECK(overflow == 0 || (overflow > 0 && target == DType::UInt64), Value,
                 "Overflow when unpacking long long\nhint: the Python int does not fit in ",
                 dtype_name(target));
  }
  constexpr DType target = dtype_of<T>();
  if (PyComplex_Check(h.ptr()) && !is_complex(target)) {
    // PyTorch reads a Python number with the target's own conversion: a bool is its truth, a float or an
    // integer Python's TypeError for a complex number.
    if constexpr (target == DType::Bool) {
      *out++ = PyComplex_RealAsDouble(h.ptr()) != 0.0 || PyComplex_ImagAsDouble(h.ptr()) != 0.0;
      return;
    }
    TANDEM_CHECK(!is_floating(target), Type, "must be real number, not complex");
    TANDEM_THROW(Type, "'complex' object cannot be interpreted as an integer");
  }
  Scalar s;
  if (is_tensor(h)) {
    fill_from_tensor<T>(as_tensor_ref(h), out);
    return;
  }
  if (!to_scalar(h, s, true)) s = number_for<T>(h);
  check_value_fits(s, target, false);
  *out++ = s.to<T>();
}

}  // namespace

// tandem.tensor for Python numbers and nested sequences (NumPy arrays are handled in Python via from_numpy).
Tensor tensor_from_data(nb::handle data, std::optional<DType> dtype, Device device) {
  Inference inf;
  inf.infer = !dtype.has_value();
  inf.walk(data, 0);
  DType inferred = inf.any_leaf ? inf.dtype : default_float_dtype();
  // Fill straight in the requested dtype: going through the inferred one would round float64 data to float32.
  DType target = dtype.value_or(inferred);
  Tensor out = empty(inf.shape, target, Device());
  dispatch_any_dtype(target, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    fill_from<T>(data, p);
  });
  if (device.is_cpu()) return out;
  CrossingScope scope("tandem.tensor(device=)", true);
  return to_device(out, device, std::nullopt, false);
}

namespace {
struct FactoryArgs {
  DType dtype;
  Device device;
  bool requires_grad;
};
FactoryArgs factory_args(nb::handle dtype, nb::handle device, bool requires_grad, DType fallback,
                         const char* fn) {
  FactoryArgs a{dtype.is_none() ? fallback : dtype_arg(dtype, fn), device_or_default(device), requires_grad};
  check_requires_grad(requires_grad, a.dtype);
  return a;
}
// pin_memory=True: the tensor is made in pinned host memory (CPU tensors only, as in PyTorch).
Tensor new_tensor(IntArrayRef shape, const FactoryArgs& a, bool pin_memory) {
  if (!pin_memory) return empty(shape, a.dtype, a.device);
  check_pinnable(a.device);
  return empty_pinned(shape, a.dtype);
}
// PyTorch's zeros() words a negative size its own way; empty() and ones() keep the tensor constructor's.
void check_factory_shape(std::string_view name, IntArrayRef shape) {
  if (name != "zeros") return;
  for (int64_t s : shape)
    TANDEM_CHECK(s >= 0, Runtime, "zeros: Dimension size must be non-negative.\nhint: the size ",
                 shape_to_string(shape), " has a negative dimension");
}
// A new tensor starts at version 0 like PyTorch's, although its fill was an in-place write.
Tensor finish(Tensor t, const FactoryArgs& a) {
  t = fresh_result(std::move(t));
  if (a.requires_grad) t.impl()->ensure_autograd().requires_grad = true;
  return t;
}
}  // namespace

Scalar fill_value(nb::handle value, const char* fn, const char* position) {
  Scalar v;
  // A 0-dim tensor is a number here, as in PyTorch (its value and dtype).
  const bool scalar_tensor = is_tensor(value) && as_tensor_ref(value).dim() == 0;
  TANDEM_CHECK(scalar_tensor ? (v = item(as_tensor_ref(value)), true) : to_scalar(value, v, true), Type, fn,
               "(): argument 'fill_value'", position, " must be Number, not ",
               is_tensor(value) ? "Tensor" : nb::inst_name(value).c_str());
  return v;
}

void init_creation(nb::module_& m) {
  m.def(
      "_tensor_from_data",
      [](nb::handle data, nb::handle dtype, nb::handle device, bool requires_grad) {
        const std::optional<DType> d =
            dtype.is_none() ? std::nullopt : std::optional(dtype_arg(dtype, "tensor"));
        Tensor t = tensor_from_data(data, d, device_or_default(device));
        check_requires_grad(requires_grad, t.dtype());
        return finish(t, {t.dtype(), t.device(), requires_grad});
      },
      nb::arg("data").none(), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(),
      nb::arg("requires_grad") = false);

#define TANDEM_FACTORY(name, fill)                                                                        \
  m.def(                                                                                                  \
      #name,                                                                                              \
      [](nb::args args, nb::handle size, nb::handle dtype, nb::handle device, bool requires_grad,         \
         bool pin_memory, nb::handle out, nb::handle layout) {                                            \
        profiler::RecordScope profile_scope("aten::" #name);                                              \
        check_dense_layout(layout, #name);                                                                \
        check_factory_out("aten::" #name, out);                                                           \
        FactoryArgs a = factory_args(dtype_or_out(dtype, out), device_or_out(device, out), requires_grad, \
                                     default_float_dtype(), #name);                                       \
        DimVector shape = shape_from_args(args, size, #name, "size");                                     \
        check_factory_shape(#name, shape);                                                                \
        Tensor t = new_tensor(shape, a, pin_memory);                                                      \
        fill;                                                                                             \
        return into_out(#name, finish(t, a), out, {});                                                    \
      },                                                                                                  \
      nb::arg("args"), nb::arg("size") = nb::none(), nb::arg("dtype") = nb::none(),                       \
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("pin_memory") = false,    \
      nb::arg("out") = nb::none(), nb::arg("layout") = nb::none());                                       \
  m.def(                                                                                                  \
      #name "_like",                                                                                      \
      [](nb::handle input, nb::handle dtype, nb::handle device, bool requires_grad, nb::handle layout,    \
         nb::handle memory_format, bool pin_memory) -> nb::object {                                       \
        const Tensor& x = like_input(input, #name "_like");                                               \
        profiler::RecordScope profile_scope("aten::" #name "_like", x);                                   \
        if (!like_in_cpp(x, memory_format, layout))                                                       \
          return like_via_layouts(#name "_like", x, nb::tuple(),                                          \
                                  like_kwargs(dtype, device, requires_grad, pin_memory), memory_format,   \
                                  layout);                                                                \
        FactoryArgs a = factory_args(dtype, device.is_none() ? device_object(x.device()) : device,        \
                                     requires_grad, x.dtype(), #name "_like");                            \
        Tensor t = new_tensor(x.sizes(), a, pin_memory);                                                  \
        fill;                                                                                             \
        return wrap(finish(t, a));                                                                        \
      },                                                                                                  \
      nb::arg("input"), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(),     \
      nb::arg("requires_grad") = false, nb::arg("layout") = nb::none(),                                   \
      nb::arg("memory_format") = nb::none(), nb::arg("pin_memory") = false);
  TANDEM_FACTORY(empty, (void)0)
  TANDEM_FACTORY(zeros, fill_(t, Scalar(int64_t{0})))
  TANDEM_FACTORY(ones, fill_(t, Scalar(int64_t{1})))
#undef TANDEM_FACTORY

  m.def(
      "full",
      [](nb::handle size, nb::handle value, nb::handle dtype, nb::handle device, bool requires_grad,
         nb::handle out, nb::handle layout, bool pin_memory) {
        const DimVector shape = size_list_arg(size, "full");  // PyTorch's parser reads the size first
        check_dense_layout(layout, "full");
        check_factory_out("aten::full", out);
        Scalar v = fill_value(value, "full", " (position 2)");
        FactoryArgs a = factory_args(dtype_or_out(dtype, out), device_or_out(device, out), requires_grad,
                                     v.natural_dtype(), "full");
        Tensor t = pinned_if(full(shape, v, a.dtype, a.device), pin_memory);
        return into_out("full", finish(t, a), out, {});
      },
      nb::arg("size").none(), nb::arg("fill_value").none(), nb::kw_only(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("out") = nb::none(),
      nb::arg("layout") = nb::none(), nb::arg("pin_memory") = false);
  m.def(
      "full_like",
      [](nb::handle input, nb::handle value, nb::handle dtype, nb::handle device, bool requires_grad,
         nb::handle layout, nb::handle memory_format, bool pin_memory) -> nb::object {
        const Tensor& x = like_input(input, "full_like");
        if (!like_in_cpp(x, memory_format, layout))
          return like_via_layouts("full_like", x, nb::make_tuple(value),
                                  like_kwargs(dtype, device, requires_grad, pin_memory), memory_format,
                                  layout);
        Scalar v = fill_value(value, "full_like", " (position 2)");
        FactoryArgs a = factory_args(dtype, device.is_none() ? device_object(x.device()) : device,
                                     requires_grad, x.dtype(), "full_like");
        return wrap(finish(pinned_if(full(x.sizes(), v, a.dtype, a.device), pin_memory), a));
      },
      nb::arg("input"), nb::arg("fill_value"), nb::kw_only(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("layout") = nb::none(),
      nb::arg("memory_format") = nb::none(), nb::arg("pin_memory") = false);
}

}  // namespace tandem::py
