// The NumPy boundary on the host. Tensor exports its memory through the buffer protocol (so np.asarray(t) and
// t.numpy() are zero-copy views that keep the storage alive), and from_numpy imports any buffer without a
// copy (the storage's deleter releases the buffer, which drops the array). Only the buffer protocol and
// numpy.asarray are used, never NumPy's C API, so NumPy 1.x and 2.x both work.
#include <nanobind/stl/string.h>

#include <bit>
#include <cstring>
#include <utility>

#include "autograd/grad_mode.h"
#include "backend/crossing.h"
#include "bindings.h"
#include "core/error.h"
#include "factory_args.h"
#include "ops/copy.h"

namespace tandem::py {

void init_dlpack(nb::module_& m);                // dlpack.cpp
void init_cuda_array_interface(nb::module_& m);  // cuda_array_interface.cpp

namespace {

static_assert(sizeof(Py_ssize_t) == sizeof(int64_t), "shapes are handed to Python without conversion");

// PEP 3118 format characters, chosen so NumPy picks its canonical dtype (int64 is 'l' where long is 64-bit).
const char* buffer_format(DType d) {
  switch (d) {
    case DType::Bool:
      return "?";
    case DType::UInt8:
      return "B";
    case DType::Int8:
      return "b";
    case DType::Int16:
      return "h";
    case DType::Int32:
      return "i";
    case DType::Int64:
      return sizeof(long) == 8 ? "l" : "q";
    case DType::UInt16:
      return "H";
    case DType::UInt32:
      return "I";
    case DType::UInt64:
      return sizeof(long) == 8 ? "L" : "Q";
    case DType::Float16:
      return "e";
    case DType::Float32:
      return "f";
    case DType::Float64:
      return "d";
    case DType::BFloat16:
      return nullptr;  // NumPy has no bfloat16
    case DType::Complex64:
      return "Zf";
    case DType::Complex128:
      return "Zd";
  }
  return nullptr;
}

// What tandem.allow_host_conversion() allows on this thread (its context manager sets and restores it).
enum class HostConversion : int { Refuse = 0, AllowDevice = 1, AllowDeviceAndDetach = 2 };
thread_local HostConversion t_host_conversion = HostConversion::Refuse;

// The hint for a refused conversion: the hidden caller when NumPy asked implicitly, then the fix.
std::string host_conversion_hint(bool device_reason, bool implicit, const char* fix) {
  const char* scoped =
      "; to allow such conversions in one block of code, use `with tandem.allow_host_conversion():`";
  if (device_reason)
    return detail::concat(
        implicit ? "this was an implicit conversion to a NumPy array (np.asarray, pandas, "
                   "matplotlib, scikit-learn and friends call __array__), which never copies "
                   "from a device behind your back; "
                 : "",
        "call ", fix, " (or t.numpy(force=True) for a detached host copy)", implicit ? scoped : "");
  const char* tail = t_host_conversion == HostConversion::AllowDevice
                         ? " (this block uses allow_host_conversion(detach=False); detach=True detaches)"
                         : (implicit ? scoped : "");
  return detail::concat(implicit ? "this was an implicit conversion to a NumPy array (via __array__); " : "",
                        fix, " shares memory without gradient tracking; t.numpy(force=True) returns a copy",
                        tail);
}

// tandem.HostConversionError (for requires grad: RequiresGradConversionError) with PyTorch's first line.
[[noreturn]] void throw_host_conversion(const Tensor& t, bool device_reason, bool implicit) {
  const char* fix = device_reason ? (t.requires_grad() ? "t.detach().cpu().numpy()" : "t.cpu().numpy()")
                                  : "t.detach().numpy()";
  std::string first =
      device_reason
          ? detail::concat("can't convert ", t.device().str(),
                           " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
                           "memory first.")
          : "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.";
  detail::throw_error(device_reason ? ErrorKind::HostConversion : ErrorKind::HostConversionGrad,
                      first + "\nhint: " + host_conversion_hint(device_reason, implicit, fix),
                      {{"device", t.device()},
                       {"shape", std::vector<int64_t>(t.sizes().begin(), t.sizes().end())},
                       {"dtype", t.dtype()},
                       {"requires_grad", t.requires_grad()},
                       {"reason", std::string(device_reason ? "device" : "requires_grad")},
                       {"fix", std::string(fix)}});
}

// The errors of PyTorch's tensor_to_numpy, in its order (device, grad, dtype); `force` skips the first two,
// and so does an enclosing tandem.allow_host_conversion() block for what it allows. `implicit` is set when
// NumPy asked through __array__ or the buffer protocol (np.asarray, pandas, matplotlib, scikit-learn): the
// hint then names that hidden conversion as well as the explicit fix for this tensor.
void check_numpy_exportable(const Tensor& t, bool force, bool implicit = false) {
  if (!force) {
    if (!t.device().is_cpu() && t_host_conversion == HostConversion::Refuse)
      throw_host_conversion(t, true, implicit);
    // As PyTorch: inside no_grad a tensor that requires grad converts (nothing would be recorded anyway).
    if (t.requires_grad() && autograd::GradMode::is_enabled() &&
        t_host_conversion != HostConversion::AllowDeviceAndDetach)
      throw_host_conversion(t, false, implicit);
  }
  TANDEM_CHECK(buffer_format(t.dtype()), Type, "Got unsupported ScalarType ", dtype_title(t.dtype()),
               "\nhint: NumPy has no ", dtype_name(t.dtype()), "; convert first with t.float().numpy()");
}

bool is_f_contiguous(const Tensor& t) {
  int64_t expected = 1;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] == 1) continue;
    if (t.strides()[d] != expected) return t.numel() == 0;
    expected *= t.sizes()[d];
  }
  return true;
}

// What a Py_buffer of a tensor points at: the storage (kept alive even if the tensor is later re-pointed)
// and the shape and byte strides the buffer describes.
struct BufferExport {
  Storage storage;
  DimVector shape;
  DimVector byte_strides;
};

int fail_buffer(Py_buffer* view, const char* msg) {
  view->obj = nullptr;
  PyErr_SetString(PyExc_BufferError, msg);
  return -1;
}

// bf_getbuffer: refusals are BufferErrors carrying numpy()'s message; NumPy then falls back to __array__,
// which raises the same message with PyTorch's exception type.
int tensor_getbuffer(PyObject* self, Py_buffer* view, int flags) {
  const Tensor& t = as_tensor_ref(self);
  try {
    check_numpy_exportable(t, false, true);
  } catch (const Error& e) {
    return fail_buffer(view, e.what());
  }
  // Inside allow_host_conversion() a device tensor passes the check, but its memory is no host buffer:
  // refusing here makes NumPy fall back to __array__, which copies it to the host.
  if (!t.device().is_cpu())
    return fail_buffer(view, "device memory is not a host buffer; __array__ copies it");
  bool writeable = t.storage()->writeable();
  if ((flags & PyBUF_WRITABLE) && !writeable)
    return fail_buffer(view, "the tensor's memory is read-only; a writable buffer needs a copy (t.clone())");
  bool c_contig = t.is_contiguous();
  if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c_contig)
    return fail_buffer(view, "the tensor is not C-contiguous; call .contiguous() first");
  if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !is_f_contiguous(t))
    return fail_buffer(view, "the tensor is not Fortran-contiguous");
  if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c_contig && !is_f_contiguous(t))
    return fail_buffer(view, "the tensor is not contiguous; call .contiguous() first");
  if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c_contig)
    return fail_buffer(view, "the tensor is not contiguous and the consumer did not ask for strides");

  auto itemsize = static_cast<int64_t>(t.element_size());
  BufferExport* ex;
  try {
    ex = new BufferExport{t.storage(), t.sizes(), t.strides()};
    t.storage()->mark_exported();    // resize_ then keeps this block alive for the array
  } catch (const std::bad_alloc&) {  // no C++ exception may cross into CPython
    view->obj = nullptr;
    PyErr_NoMemory();
    return -1;
  }
  for (int64_t& s : ex->byte_strides) s *= itemsize;
  view->buf = t.data_ptr();
  view->obj = Py_NewRef(self);
  view->len = t.numel() * itemsize;
  view->itemsize = itemsize;
  view->readonly = !writeable;
  view->ndim = static_cast<int>(t.dim());
  view->format = (flags & PyBUF_FORMAT) ? const_cast<char*>(buffer_format(t.dtype())) : nullptr;
  view->shape = (flags & PyBUF_ND) ? reinterpret_cast<Py_ssize_t*>(ex->shape.data()) : nullptr;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES
                      ? reinterpret_cast<Py_ssize_t*>(ex->byte_strides.data())
                      : nullptr;
  view->suboffsets = nullptr;
  view->internal = ex;
  if (!(flags & PyBUF_ND)) view->ndim = 1;
  return 0;
}

void tensor_releasebuffer(PyObject*, Py_buffer* view) { delete static_cast<BufferExport*>(view->internal); }

// numpy.asarray, looked up once and held for the life of the process (a reference is kept on purpose, so
// rebinding np.asarray later cannot leave a dangling pointer).
PyObject* numpy_asarray() {
  static PyObject* fn = nb::object(nb::module_::import_("numpy").attr("asarray")).release().ptr();
  return fn;
}

nb::object asarray_of(nb::handle exporter) {
  PyObject* r = PyObject_CallOneArg(numpy_asarray(), exporter.ptr());
  if (!r) throw nb::python_error();
  return nb::steal(r);
}

// An alias of `t` without autograd state (what detach() will return), so a copy never records history.
Tensor detached_alias(const Tensor& t) { return make_view(t, t.sizes(), t.strides(), t.storage_offset()); }

nb::object tensor_to_numpy(nb::handle self, bool force, bool implicit) {
  const Tensor& t = self_tensor(self, "numpy");
  check_numpy_exportable(t, force, implicit);
  if (!force && t.device().is_cpu()) return asarray_of(self);  // zero-copy
  // A host copy (a counted transfer): force=True, or a device tensor inside allow_host_conversion().
  Tensor host = empty(t.sizes(), t.dtype(), Device());
  // For tandem.transfer_guard: numpy() names the copy, __array__ (np.asarray, pandas, ...) does not.
  CrossingScope scope(implicit ? "__array__" : ".numpy()", !implicit, !t.device().is_cpu());
  copy_(host, detached_alias(t));
  return asarray_of(wrap(std::move(host)));
}

// ---- Import ----------------------------------------------------------------------------------------------

// The Py_buffer lives on the heap for as long as the storage; releasing it drops the array.
void release_buffer(void* ctx) {
  auto* view = static_cast<Py_buffer*>(ctx);
  if (Py_IsInitialized()) {  // at interpreter teardown the array is already gone
    PyGILState_STATE gil = PyGILState_Ensure();
    PyBuffer_Release(view);
    PyGILState_Release(gil);
  }
  delete view;
}

struct BufferGuard {
  Py_buffer* view;
  ~BufferGuard() {
    if (view) release_buffer(view);
  }
};

// NumPy's name for the array's scalar type ("numpy.uint16"), for error messages.
std::string numpy_type_name(nb::handle obj, const char* format) {
  try {
    nb::object type = obj.attr("dtype").attr("type");
    return nb::cast<std::string>(type.attr("__module__")) + "." +
           nb::cast<std::string>(type.attr("__name__"));
  } catch (const nb::python_error&) {
    return std::string("buffer format '") + (format ? format : "B") + "'";
  }
}

[[noreturn]] void throw_unsupported_dtype(nb::handle obj, const char* format) {
  TANDEM_THROW(Type, "can't convert np.ndarray of type ", numpy_type_name(obj, format),
               ". The only supported types are: float64, float32, float16, complex64, complex128, int64, "
               "int32, int16, int8, uint64, uint32, uint16, uint8, and "
               "bool.\nhint: convert the array first, e.g. a.astype(np.float32) or a.astype(np.int64)");
}

enum class ByteOrder { Native, Swapped };

// The tandem dtype of a PEP 3118 format ("f", "<d", "=l"); false for anything else.
bool dtype_from_format(const char* format, Py_ssize_t itemsize, DType& out, ByteOrder& order) {
  if (!format) format = "B";
  order = ByteOrder::Native;
  constexpr bool little = std::endian::native == std::endian::little;
  if (*format == '@' || *format == '=')
    ++format;
  else if (*format == '<' || *format == '>' || *format == '!') {
    order = (*format == '<') == little ? ByteOrder::Native : ByteOrder::Swapped;
    ++format;
  }
  // Complex: "Zf" / "Zd" (NumPy's complex64 / complex128).
  if (format[0] == 'Z' && format[1] != '\0' && format[2] == '\0') {
    if (format[1] == 'f')
      out = DType::Complex64;
    else if (format[1] == 'd')
      out = DType::Complex128;
    else
      return false;
    return itemsize == static_cast<Py_ssize_t>(element_size(out));
  }
  if (format[0] == '\0' || format[1] != '\0') return false;
  switch (format[0]) {
    case '?':
      out = DType::Bool;
      return itemsize == 1;
    case 'B':
      out = DType::UInt8;
      return itemsize == 1;
    case 'b':
      out = DType::Int8;
      return itemsize == 1;
    case 'h':
    case 'i':
    case 'l':
    case 'q':
    case 'n':
      switch (itemsize) {
        case 2:
          out = DType::Int16;
          return true;
        case 4:
          out = DType::Int32;
          return true;
        case 8:
          out = DType::Int64;
          return true;
      }
      return false;
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
    case 'N':
      switch (itemsize) {
        case 2:
          out = DType::UInt16;
          return true;
        case 4:
          out = DType::UInt32;
          return true;
        case 8:
          out = DType::UInt64;
          return true;
      }
      return false;
    case 'e':
      out = DType::Float16;
      return itemsize == 2;
    case 'f':
      out = DType::Float32;
      return itemsize == 4;
    case 'd':
      out = DType::Float64;
      return itemsize == 8;
  }
  return false;
}

// How from_numpy treats layouts a tensor cannot alias (negative strides, swapped bytes).
enum class Layouts { Refuse, CopyFirst };

Tensor tensor_from_buffer(nb::handle obj, Layouts layouts) {
  if (!PyObject_CheckBuffer(obj.ptr()))
    TANDEM_THROW(Type, "expected np.ndarray (got ", nb::inst_name(obj).c_str(), ")");
  auto* view = new Py_buffer;
  if (PyObject_GetBuffer(obj.ptr(), view, PyBUF_RECORDS_RO) != 0) {
    delete view;
    if (!nb::hasattr(obj, "dtype")) throw nb::python_error();
    PyErr_Clear();  // e.g. datetime64, which NumPy refuses to export
    throw_unsupported_dtype(obj, nullptr);
  }
  BufferGuard guard{view};
  auto itemsize = static_cast<int64_t>(view->itemsize);
  DimVector sizes(IntArrayRef(view->shape, static_cast<size_t>(view->ndim))), strides(view->ndim);
  bool negative = false;
  int64_t extent = itemsize;
  for (int d = 0; d < view->ndim; ++d) {
    int64_t s = view->strides ? view->strides[d] : 0;
    TANDEM_CHECK(s % itemsize == 0, Value,
                 "given numpy array strides not a multiple of the element byte size. Copy the numpy array to "
                 "reallocate the memory.\nhint: pass a.copy()");
    negative |= s < 0;
    strides[d] = s / itemsize;
    extent += (sizes[d] - 1) * s;
  }
  if (!view->strides) strides = contiguous_strides(sizes);
  DType dtype;
  ByteOrder order;
  bool known = dtype_from_format(view->format, view->itemsize, dtype, order);
  // Kernels read elements through typed pointers, which must be aligned, but NumPy also makes arrays whose
  // data is not (np.frombuffer with an offset, fields of packed structured arrays). Strides are multiples of
  // the element size (checked above), so the first element's address decides.
  bool misaligned = known && compute_numel(sizes) > 0 &&
                    reinterpret_cast<uintptr_t>(view->buf) % static_cast<uintptr_t>(itemsize) != 0;
  // Kernels read bool elements as C++ bool, for which a byte other than 0 or 1 is undefined, but a NumPy bool
  // array can hold one (a uint8 array viewed as bool).
  if (known && dtype == DType::Bool && compute_numel(sizes) > 0) {
    nb::module_ np = nb::module_::import_("numpy");
    nb::object bytes = np.attr("asarray")(obj).attr("view")(np.attr("uint8"));
    if (nb::cast<bool>(np.attr("any")(np.attr("greater")(bytes, 1)).attr("item")())) {
      TANDEM_CHECK(
          layouts == Layouts::CopyFirst, Value,
          "given numpy array of bools holds bytes other than 0 and 1, which a tensor cannot share.\n"
          "hint: tandem.tensor(a) copies it as True/False; from_numpy can share a.view(np.uint8) != 0");
      return tensor_from_buffer(np.attr("not_equal")(bytes, 0), Layouts::Refuse);
    }
  }
  if ((negative || misaligned || (known && order == ByteOrder::Swapped)) && layouts == Layouts::CopyFirst) {
    // "CA": a C-contiguous, aligned array, copied only when `obj` is not one already.
    nb::object native =
        nb::module_::import_("numpy").attr("require")(obj, obj.attr("dtype").attr("newbyteorder")("="), "CA");
    return tensor_from_buffer(native, Layouts::Refuse);
  }
  TANDEM_CHECK(
      !negative, Value,
      "At least one stride in the given numpy array is negative, and tensors with negative strides are "
      "not currently supported. (You can probably work around this by making a copy of your array  "
      "with array.copy().) \nhint: tandem.tensor(a) copies such arrays; from_numpy only shares memory");
  TANDEM_CHECK(
      !known || order == ByteOrder::Native, Value,
      "given numpy array has byte order different from the native byte order. Conversion between byte "
      "orders is currently not supported.\nhint: a.astype(a.dtype.newbyteorder('=')) makes a native copy");
  if (!known) throw_unsupported_dtype(obj, view->format);
  TANDEM_CHECK(
      !misaligned, Value, "given numpy array is not aligned to its ", itemsize,
      "-byte elements, and a tensor can only share aligned memory.\nhint: tandem.tensor(a) copies it; "
      "from_numpy can share np.require(a, requirements='A'), an aligned copy");

  int64_t numel = compute_numel(sizes);
  size_t nbytes = numel == 0 ? 0 : static_cast<size_t>(extent);
  bool readonly = view->readonly;
  void* data = view->buf;
  guard.view = nullptr;  // from here on the storage owns the buffer
  auto storage = make_intrusive<StorageImpl>(DataPtr(data, view, &release_buffer), nbytes, Device());
  storage->set_writeable(!readonly);
  return Tensor(
      make_intrusive<TensorImpl>(std::move(storage), 0, std::move(sizes), std::move(strides), dtype));
}

// PyTorch warns too; tandem goes further and refuses in-place writes (check_writeable).
Tensor warn_if_readonly(Tensor t) {
  if (!t.storage()->writeable() &&
      PyErr_WarnEx(
          PyExc_UserWarning,
          "The given NumPy array is not writable. tandem marks the tensor read-only, so in-place "
          "operations on it raise.\nhint: pass a writable copy (np.array(a)) if you need to write to "
          "the tensor",
          1) != 0)
    throw nb::python_error();  // warnings turned into errors: `t` releases the buffer on the way out
  return t;
}

void finish_requires_grad(Tensor& t, bool requires_grad) {
  check_requires_grad(requires_grad, t.dtype());
  if (requires_grad) t.impl()->ensure_autograd().requires_grad = true;
}

}  // namespace

// tp_as_buffer of the Tensor class (installed with nb::type_slots in tensor.cpp).
PyType_Slot tensor_buffer_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(&tensor_getbuffer)},
                                     {Py_bf_releasebuffer, reinterpret_cast<void*>(&tensor_releasebuffer)},
                                     {0, nullptr}};

void init_numpy(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
  // numpy(*, force=False). The plain call is its own overload (no argument parsing: the boundary's hot path);
  // anything else is parsed here for PyTorch's messages: force is keyword-only and a bool.
  tensor.def(
      "numpy", [](nb::handle self) { return tensor_to_numpy(self, false, false); },
      "numpy(*, force=False): a NumPy array sharing memory with this CPU tensor (a copy with force=True).");
  tensor.def("numpy", [](nb::handle self, nb::args args, nb::kwargs kwargs) {
    TANDEM_CHECK(nb::len(args) == 0, Type, "numpy() takes 0 positional arguments but ", nb::len(args),
                 " was given\nhint: force is keyword-only: t.numpy(force=True)");
    bool force = false;
    for (auto [key, value] : kwargs) {
      const std::string name = nb::cast<std::string>(key);
      TANDEM_CHECK(name == "force", Type, "numpy() got an unexpected keyword argument '", name, "'");
      TANDEM_CHECK(PyBool_Check(value.ptr()), Type, "numpy(): argument 'force' must be bool, not ",
                   nb::inst_name(value).c_str());
      force = value.ptr() == Py_True;
    }
    return tensor_to_numpy(self, force, false);
  });
  // What __array__ calls: the same export, with errors that name the implicit conversion.
  tensor.def("_numpy_implicit", [](nb::handle self) { return tensor_to_numpy(self, false, true); });
  // The thread's allow_host_conversion() level (0 refuse, 1 device tensors, 2 also detach); returns the old.
  m.def("_set_host_conversion", [](int level) {
    TANDEM_CHECK(level >= 0 && level <= 2, Value, "host conversion level must be 0, 1 or 2, got ", level);
    return static_cast<int>(std::exchange(t_host_conversion, static_cast<HostConversion>(level)));
  });
  m.def(
      "from_numpy", [](nb::handle a) { return warn_if_readonly(tensor_from_buffer(a, Layouts::Refuse)); },
      nb::arg("ndarray"),
      "A tensor sharing memory with the NumPy array `ndarray` (zero-copy; the array stays alive with it).");
  // tandem.tensor(ndarray): always a copy, converted to `dtype`.
  m.def(
      "_tensor_from_array",
      [](nb::handle a, nb::handle dtype, nb::handle device, bool requires_grad) {
        Device target = device_or_default(device);
        Tensor shared = tensor_from_buffer(a, Layouts::CopyFirst);
        DType as = dtype.is_none() ? shared.dtype() : to_dtype(dtype);
        // One copy: converted on the host, or converted while crossing to the device.
        Tensor t = target.is_cpu() ? to_dtype(shared, as, true) : to_device(shared, target, as, true);
        finish_requires_grad(t, requires_grad);
        return t;
      },
      nb::arg("data"), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(),
      nb::arg("requires_grad") = false);
  // tandem.as_tensor(ndarray): shares memory when the dtype and device allow, as PyTorch does.
  m.def(
      "_as_tensor_from_array",
      [](nb::handle a, nb::handle dtype, nb::handle device) {
        Device target = device_or_default(device);
        Tensor shared = tensor_from_buffer(a, Layouts::CopyFirst);
        std::optional<DType> as = to_optional_dtype(dtype);
        Tensor t =
            target.is_cpu() ? (as ? to_dtype(shared, *as) : shared) : to_device(shared, target, as, false);
        return t.is_same(shared) ? warn_if_readonly(t) : t;
      },
      nb::arg("data"), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none());
  init_dlpack(m);
  init_cuda_array_interface(m);
}

}  // namespace tandem::py
