// The one place where C++ error kinds become Python exception types.
#include "bindings.h"
#include "core/error.h"

namespace tandem::py {

void init_errors(nb::module_& m) {
  // Owned by the module; the translator keeps a borrowed handle.
  static nb::handle oom = PyErr_NewExceptionWithDoc(
      "tandem.OutOfMemoryError",
      "Raised when an allocation fails. The process and the device keep working afterwards.",
      PyExc_RuntimeError, nullptr);
  m.attr("OutOfMemoryError") = nb::steal(oom);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      PyObject* type = PyExc_RuntimeError;
      switch (e.kind()) {
        case ErrorKind::Type: type = PyExc_TypeError; break;
        case ErrorKind::Value: type = PyExc_ValueError; break;
        case ErrorKind::Index: type = PyExc_IndexError; break;
        case ErrorKind::NotImplemented: type = PyExc_NotImplementedError; break;
        case ErrorKind::OutOfMemory: type = oom.ptr(); break;
        case ErrorKind::Runtime: type = PyExc_RuntimeError; break;
      }
      PyErr_SetString(type, e.what());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(oom.ptr(), "out of memory: a host allocation failed\nhint: use smaller tensors");
    }
  });
}

}  // namespace tandem::py
