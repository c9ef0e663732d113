// tandem.dtype objects, tandem.device, default dtype and the promotion functions.
#include <nanobind/stl/string.h>

#include <array>

#include <vector>

#include "bindings.h"
#include "core/error.h"
#include "factory_args.h"
#include "ops/type_promotion.h"

namespace tandem::py {

namespace {
// Borrowed: the module owns the dtype objects, so nothing here outlives the interpreter.
std::array<nb::handle, kNumDTypes>& dtype_objects() {
  static std::array<nb::handle, kNumDTypes> objs;
  return objs;
}
}  // namespace

nb::object dtype_object(DType d) { return nb::borrow(dtype_objects()[static_cast<int>(d)]); }
bool is_dtype(nb::handle h) { return nb::isinstance<PyDType>(h); }
bool is_dtype_like(nb::handle h) {
  return is_dtype(h) || h.is(reinterpret_cast<PyObject*>(&PyFloat_Type)) ||
         h.is(reinterpret_cast<PyObject*>(&PyLong_Type)) || h.is(reinterpret_cast<PyObject*>(&PyBool_Type)) ||
         h.is(reinterpret_cast<PyObject*>(&PyComplex_Type));
}

namespace {
std::optional<DType> as_dtype(nb::handle h) {
  if (__builtin_expect(nb::isinstance<PyDType>(h), 1)) return nb::inst_ptr<PyDType>(h)->dtype;
  // Python's own types name the default dtypes, as in PyTorch (dtype=float, dtype=int, dtype=bool).
  if (h.is(reinterpret_cast<PyObject*>(&PyFloat_Type))) return DType::Float64;
  if (h.is(reinterpret_cast<PyObject*>(&PyLong_Type))) return DType::Int64;
  if (h.is(reinterpret_cast<PyObject*>(&PyBool_Type))) return DType::Bool;
  if (h.is(reinterpret_cast<PyObject*>(&PyComplex_Type))) return DType::Complex128;
  return std::nullopt;
}
}  // namespace

DType to_dtype(nb::handle h) {
  if (const std::optional<DType> d = as_dtype(h)) return *d;
  TANDEM_THROW(Type, "dtype must be a tandem.dtype (e.g. tandem.float32), not ", nb::inst_name(h).c_str(),
               "\nhint: NumPy dtypes are not accepted here; use tandem.float32, "
               "tandem.int64, ...");
}

DType dtype_arg(nb::handle h, const char* fn) {
  if (const std::optional<DType> d = as_dtype(h)) return *d;
  // The type's tp_name, as PyTorch's parser prints it (numpy.dtypes.Float32DType, type, str)
  TANDEM_THROW(Type, fn, "(): argument 'dtype' must be torch.dtype, not ", Py_TYPE(h.ptr())->tp_name,
               "\nhint: NumPy dtypes and strings are not dtypes here; use tandem.float32, tandem.int64, ...");
}
std::optional<DType> to_optional_dtype(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return to_dtype(h);
}

Device to_device(nb::handle h) {
  if (nb::isinstance<PyDevice>(h)) {
    const Device d = nb::inst_ptr<PyDevice>(h)->device;
    check_has_backend(d);  // a device object of a type tandem has no backend for (mps, xpu, ...)
    return d;
  }
  if (nb::isinstance<nb::str>(h)) return parse_device(nb::cast<std::string>(h));
  // PyTorch's parser decodes bytes as UTF-8 (UnicodeDecodeError otherwise)
  if (PyBytes_Check(h.ptr())) return parse_device(str_arg(h, "device", "device"));
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) {
    int64_t i = nb::cast<int64_t>(h);
    TANDEM_CHECK(i >= 0, Runtime, "Device index must not be negative");
    return Device(DeviceType::CUDA, static_cast<int16_t>(i));
  }
  TANDEM_THROW(Type, "device must be a tandem.device, a string such as 'cpu' or 'cuda:0', or an int, not ",
               nb::inst_name(h).c_str());
}
std::optional<Device> to_optional_device(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return to_device(h);
}
// tandem.device objects are immutable (no attributes; `with device:` keeps its state per thread, not in the
// object), so `t.device` hands out one object per device, made on first use and kept for the process (making
// a new one per read, nanobind's allocation and copy, took `t.device` to twice `t.dtype`'s time).
nb::object device_object(Device d) {
  constexpr int kCachedIndices = 65;  // -1 (none) and CUDA ordinals 0..63; others are made each time
  static nb::handle cache[kNumDeviceTypes][kCachedIndices];
  const int type = static_cast<int>(d.type), slot = d.index + 1;
  if (type < 0 || type >= kNumDeviceTypes || slot < 0 || slot >= kCachedIndices) return nb::cast(PyDevice{d});
  nb::handle& cached = cache[type][slot];
  if (!cached.is_valid()) cached = nb::cast(PyDevice{d}).release();
  return nb::borrow(cached);
}

Device& default_factory_device() {
  thread_local Device device;
  return device;
}

namespace {
// A device object made from a string, another device object or an int, of any of PyTorch's device types.
Device to_any_device(nb::handle h) {
  if (nb::isinstance<PyDevice>(h)) return nb::inst_ptr<PyDevice>(h)->device;
  if (nb::isinstance<nb::str>(h)) return parse_any_device(nb::cast<std::string>(h));
  return to_device(h);
}

// The device of a method's `self` bound as nb::handle (unchecked by nanobind; see self_tensor).
const Device& device_self(nb::handle self, const char* method) {
  TANDEM_CHECK(nb::isinstance<PyDevice>(self), Type, "descriptor '", method,
               "' for 'tandem.device' objects doesn't apply to a '", nb::inst_name(self).c_str(), "' object");
  return nb::inst_ptr<PyDevice>(self)->device;
}

// The defaults that `with tandem.device(...)` blocks replaced, innermost last, per thread.
std::vector<Device>& outer_default_devices() {
  thread_local std::vector<Device> stack;
  return stack;
}
}  // namespace

void init_dtype_device(nb::module_& m) {
  nb::class_<PyDType>(m, "dtype")
      .def_prop_ro("is_floating_point", [](const PyDType& d) { return is_floating(d.dtype); })
      .def_prop_ro("is_signed",
                   [](const PyDType& d) { return d.dtype != DType::Bool && !is_unsigned_integral(d.dtype); })
      .def_prop_ro("is_complex", [](const PyDType& d) { return is_complex(d.dtype); })
      .def_prop_ro("itemsize", [](const PyDType& d) { return element_size(d.dtype); })
      // PyTorch's two spellings of a dtype in its messages ("Long"; "long int"), for the Python front ends.
      .def_prop_ro("_scalar_type_name", [](const PyDType& d) { return std::string(dtype_title(d.dtype)); })
      .def_prop_ro("_cpp_type_name", [](const PyDType& d) { return std::string(dtype_cpp_name(d.dtype)); })
      .def("__repr__", [](const PyDType& d) { return "tandem." + std::string(dtype_name(d.dtype)); })
      .def("__reduce__", [](const PyDType& d) { return std::string(dtype_name(d.dtype)); });
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d = static_cast<DType>(i);
    nb::object obj = nb::cast(PyDType{d});
    m.attr(std::string(dtype_name(d)).c_str()) = obj;
    dtype_objects()[i] = obj;
  }
  auto alias = [&](const char* name, DType d) { m.attr(name) = dtype_object(d); };
  alias("float", DType::Float32);
  alias("double", DType::Float64);
  alias("half", DType::Float16);
  alias("short", DType::Int16);
  alias("int", DType::Int32);
  alias("long", DType::Int64);
  alias("cfloat", DType::Complex64);
  alias("cdouble", DType::Complex128);

  m.def(
      "get_default_dtype", [] { return dtype_object(default_float_dtype()); },
      "The dtype Python floats become (tandem.float32 unless changed).");
  m.def(
      "set_default_dtype",
      [](nb::handle h) {
        DType d = to_dtype(h);
        TANDEM_CHECK(is_floating(d), Type, "only floating-point types are supported as the default type");
        set_default_float_dtype(d);
      },
      "Sets the dtype Python floats become; float32 (default), float64, float16 or bfloat16.");
  m.def(
      "promote_types",
      [](nb::handle a, nb::handle b) { return dtype_object(promote_types(to_dtype(a), to_dtype(b))); },
      "The smallest dtype both inputs can be converted to without losing their category (PyTorch's table).");
  m.def(
      "result_type",
      [](nb::handle a, nb::handle b) {
        ResultTypeState s;
        for (nb::handle h : {a, b}) {
          Scalar sc;
          if (is_tensor(h))
            s.add(as_tensor_ref(h));
          else if (to_scalar(h, sc))
            s.add(sc);
          else
            TANDEM_THROW(Type, "result_type() expects tensors or numbers, got ", nb::inst_name(h).c_str());
        }
        return dtype_object(s.result());
      },
      "The dtype an arithmetic op on these operands returns (Python numbers do not widen a tensor's dtype).");

  nb::class_<PyDevice>(m, "device")
      .def(
          "__init__",
          [](PyDevice* self, nb::handle spec, nb::handle index) {
            Device d = to_any_device(spec);
            if (!index.is_none()) {
              TANDEM_CHECK(nb::isinstance<nb::str>(spec) && d.index < 0, Runtime,
                           "type (string) must not include an index because index was passed explicitly: ",
                           nb::cast<std::string>(nb::str(spec)));
              int64_t i = nb::cast<int64_t>(index);
              TANDEM_CHECK(i >= 0, Runtime, "Device index must not be negative");
              TANDEM_CHECK(!d.is_cpu() || i == 0, Runtime, "CPU device index must be -1 or zero, got ", i);
              d = Device(d.type, static_cast<int16_t>(i));
            }
            new (self) PyDevice{d};
          },
          nb::arg("type"), nb::arg("index") = nb::none())
      .def_prop_ro("type", [](const PyDevice& d) { return std::string(device_type_name(d.device.type)); })
      .def_prop_ro("index",
                   [](const PyDevice& d) -> nb::object {
                     if (d.device.index < 0) return nb::none();
                     return nb::int_(d.device.index);
                   })
      .def("__str__", [](const PyDevice& d) { return d.device.str(); })
      .def("__repr__",
           [](const PyDevice& d) {
             std::string s = "device(type='" + std::string(device_type_name(d.device.type)) + "'";
             if (d.device.index >= 0) s += ", index=" + std::to_string(d.device.index);
             return s + ")";
           })
      .def("__eq__",
           [](const PyDevice& d, nb::handle other) {
             if (nb::isinstance<PyDevice>(other)) return d.device == nb::inst_ptr<PyDevice>(other)->device;
             if (nb::isinstance<nb::str>(other)) {
               try {
                 return d.device == parse_any_device(nb::cast<std::string>(other));
               } catch (const Error&) {
                 return false;
               }
             }
             return false;
           })
      .def("__hash__",
           [](const PyDevice& d) { return static_cast<int64_t>(d.device.type) * 65536 + d.device.index; })
      // Pickled as PyTorch's (device, (type[, index])), so devices cross into worker processes and
      // checkpoints.
      .def("__reduce__",
           [](nb::handle self) {
             const Device& d = device_self(self, "__reduce__");
             nb::str type(device_type_name(d.type).data(), device_type_name(d.type).size());
             nb::tuple args = d.index < 0 ? nb::make_tuple(type) : nb::make_tuple(type, int64_t{d.index});
             return nb::make_tuple(self.type(), args);
           })
      // `with tandem.device("cuda:0"):` makes it the factories' default inside the block, as in PyTorch.
      .def("__enter__",
           [](nb::handle self) {
             const Device& d = device_self(self, "__enter__");
             check_has_backend(d);  // the factories inside the block could not make tensors there
             outer_default_devices().push_back(default_factory_device());
             default_factory_device() = d;
             return self;
           })
      .def("__exit__", [](const PyDevice&, nb::args) {
        std::vector<Device>& outer = outer_default_devices();
        if (outer.empty()) return;  // __exit__ without __enter__: nothing to restore
        default_factory_device() = outer.back();
        outer.pop_back();
      });

  m.def(
      "get_default_device", [] { return device_object(default_factory_device()); },
      "The device factory functions use when none is given (this thread's).");
  m.def(
      "set_default_device",
      [](nb::handle device) { default_factory_device() = device.is_none() ? Device() : to_device(device); },
      nb::arg("device").none(),
      "Sets the device factory functions (tensor, zeros, randn, arange, nn layers' parameters, ...) use when "
      "none is given, for this thread; None restores cpu.");
}

}  // namespace tandem::py
