// The one place where C++ error kinds become Python exception types, and where an error's details
// (core/error.h) become attributes of the Python exception.
#include <nanobind/stl/string.h>

#include <type_traits>

#include "bindings.h"
#include "core/error.h"
#include "core/warning.h"

namespace tandem::py {

// [(bytes, 'file.py:line' or None), ...], as OutOfMemoryError.largest_allocations and memory_summary() list.
nb::object allocations_object(const std::vector<SitedAllocation>& allocations) {
  nb::list out;
  for (const SitedAllocation& a : allocations)
    out.append(nb::make_tuple(a.bytes, a.site.empty() ? nb::none() : nb::object(nb::str(a.site.c_str()))));
  return out;
}

namespace {

// Owned by the module; the translator keeps borrowed handles.
struct ErrorTypes {
  nb::handle oom, device_mismatch, host_conversion, requires_grad_conversion;
};
ErrorTypes& error_types() {
  static ErrorTypes types;
  return types;
}

nb::handle new_error_type(nb::module_& m, const char* name, const char* doc, PyObject* bases) {
  std::string qualified = std::string("tandem.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (!type) throw nb::python_error();
  m.attr(name) = nb::steal(type);
  return type;
}

nb::object value_object(const ErrorValue& value) {
  return std::visit(
      [](const auto& v) -> nb::object {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, Device>) {
          return device_object(v);
        } else if constexpr (std::is_same_v<V, DType>) {
          return dtype_object(v);
        } else if constexpr (std::is_same_v<V, std::vector<int64_t>>) {
          return shape_object(IntArrayRef(v.data(), v.size()));
        } else if constexpr (std::is_same_v<V, std::vector<Device>>) {
          nb::list out;
          for (Device d : v) out.append(device_object(d));
          return nb::tuple(out);
        } else if constexpr (std::is_same_v<V, std::vector<SitedAllocation>>) {
          return allocations_object(v);
        } else {
          return nb::cast(v);
        }
      },
      value);
}

PyObject* type_of(const Error& e) {
  const ErrorTypes& types = error_types();
  switch (e.kind()) {
    case ErrorKind::Type:
      return PyExc_TypeError;
    case ErrorKind::Value:
      return PyExc_ValueError;
    case ErrorKind::Index:
      return PyExc_IndexError;
    case ErrorKind::NotImplemented:
      return PyExc_NotImplementedError;
    case ErrorKind::OutOfMemory:
      return types.oom.ptr();
    case ErrorKind::DeviceMismatch:
      return types.device_mismatch.ptr();
    case ErrorKind::HostConversion:
      return types.host_conversion.ptr();
    case ErrorKind::HostConversionGrad:
      return types.requires_grad_conversion.ptr();
    case ErrorKind::Runtime:
      return PyExc_RuntimeError;
  }
  return PyExc_RuntimeError;
}

void raise(const Error& e) {
  PyObject* type = type_of(e);
  if (e.details().empty()) {
    PyErr_SetString(type, e.what());
    return;
  }
  try {
    nb::object exc = nb::steal(PyObject_CallOneArg(type, nb::str(e.what()).ptr()));
    if (!exc) throw nb::python_error();
    for (const ErrorField& f : e.details()) nb::setattr(exc, f.name.c_str(), value_object(f.value));
    PyErr_SetObject(type, exc.ptr());
  } catch (const nb::python_error&) {
    PyErr_SetString(type, e.what());  // the message alone is still the whole story
  }
}

// The core's UserWarnings (core/warning.h: an out with elements that gets resized, writes into expanded
// tensors). A warnings filter that makes them errors raises from the op, before it writes.
void warn_user(const std::string& message) {
  nb::gil_scoped_acquire gil;
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) throw nb::python_error();
}

}  // namespace

void init_errors(nb::module_& m) {
  set_warning_handler(&warn_user);
  ErrorTypes& types = error_types();
  types.oom = new_error_type(
      m, "OutOfMemoryError",
      "Raised when an allocation fails (torch.cuda.OutOfMemoryError). The process and the device keep "
      "working afterwards.\n\nAttributes (device allocations): device, requested_bytes, allocated_bytes, "
      "reserved_bytes, free_bytes, total_bytes, largest_allocations (a list of (bytes, 'file.py:line' or "
      "None), largest first), fix.",
      PyExc_RuntimeError);
  types.device_mismatch = new_error_type(
      m, "DeviceMismatchError",
      "An op got operands on different devices (a RuntimeError, as in PyTorch).\n\nAttributes: devices (the "
      "two tandem.device), op, operand (the argument to move), expected_device, fix.",
      PyExc_RuntimeError);
  types.host_conversion = new_error_type(
      m, "HostConversionError",
      "A tensor could not become a NumPy array without an explicit step (a TypeError for device tensors, as "
      "in PyTorch).\n\nAttributes: device, shape, dtype, requires_grad, reason ('device' or "
      "'requires_grad'), fix.",
      PyExc_TypeError);
  nb::object grad_bases = nb::make_tuple(types.host_conversion, nb::handle(PyExc_RuntimeError));
  types.requires_grad_conversion = new_error_type(
      m, "RequiresGradConversionError",
      "numpy() of a tensor that requires grad: a HostConversionError with reason 'requires_grad' that is "
      "also a RuntimeError, so code written for PyTorch's RuntimeError keeps catching it.",
      grad_bases.ptr());
  // Documented attributes exist on every instance (None when an error does not carry them, e.g. a host OOM).
  for (const char* name : {"device", "requested_bytes", "allocated_bytes", "reserved_bytes", "free_bytes",
                           "total_bytes", "largest_allocations", "fix"})
    nb::setattr(types.oom, name, nb::none());
  for (const char* name : {"devices", "op", "operand", "expected_device", "fix"})
    nb::setattr(types.device_mismatch, name, nb::none());
  for (const char* name : {"device", "shape", "dtype", "requires_grad", "reason", "fix"})
    nb::setattr(types.host_conversion, name, nb::none());

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const nb::python_error&) {
      throw;  // a Python exception on its way through C++: nanobind restores it
    } catch (const nb::builtin_exception&) {
      throw;  // nb::type_error and friends: nanobind maps them
    } catch (...) {
      set_error_from_exception(std::current_exception());
    }
  });
}

void set_error_from_exception(const std::exception_ptr& p) noexcept {
  try {
    std::rethrow_exception(p);
  } catch (const Error& e) {
    raise(e);
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const nb::builtin_exception& e) {
    PyObject* type = PyExc_RuntimeError;
    switch (e.type()) {
      case nb::exception_type::stop_iteration:
        type = PyExc_StopIteration;
        break;
      case nb::exception_type::index_error:
        type = PyExc_IndexError;
        break;
      case nb::exception_type::key_error:
        type = PyExc_KeyError;
        break;
      case nb::exception_type::value_error:
        type = PyExc_ValueError;
        break;
      case nb::exception_type::type_error:
        type = PyExc_TypeError;
        break;
      case nb::exception_type::buffer_error:
        type = PyExc_BufferError;
        break;
      case nb::exception_type::import_error:
        type = PyExc_ImportError;
        break;
      case nb::exception_type::attribute_error:
        type = PyExc_AttributeError;
        break;
      default:
        break;
    }
    PyErr_SetString(type, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_SetString(error_types().oom.ptr(),
                    "out of memory: a host allocation failed\nhint: use smaller tensors");
  } catch (const std::length_error&) {  // a std container asked for more than it can hold
    PyErr_SetString(error_types().oom.ptr(),
                    "out of memory: a size too large to allocate was requested\nhint: use smaller tensors");
  } catch (const std::bad_cast&) {  // nanobind's cast_error: a Python value that did not convert in a binding
    PyErr_SetString(PyExc_TypeError,
                    "an argument could not be converted to the type the function takes (an integer outside "
                    "the 64-bit range, or an object of the wrong type)\nhint: check the types and ranges of "
                    "the arguments");
  }
  // No C++ library message ("std::...") reaches Python: anything else that escaped is a tandem bug.
  catch (const std::exception& e) {
    PyErr_Format(PyExc_RuntimeError,
                 "internal error in tandem (%s)\nhint: this is a bug in tandem; please report it with the "
                 "code that raised it",
                 e.what());
  } catch (...) {
    PyErr_SetString(
        PyExc_RuntimeError,
        "internal error in tandem (an unknown C++ exception)\nhint: this is a bug in tandem; please "
        "report it with the code that raised it");
  }
}

}  // namespace tandem::py
