// The Python number/sequence protocol of Tensor: item(), tolist(), float(t), int(t), bool(t), len(t), ...
#include <atomic>
#include <cstring>
#include <vector>

#include "autograd/grad_mode.h"
#include "backend/crossing.h"
#include "bindings.h"
#include "core/error.h"
#include "ops/copy.h"
#include "ops/view.h"

namespace tandem::py {

namespace {

nb::object scalar_object(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool:
      return nb::bool_(s.to_bool());
    case Scalar::Kind::Int:
      if (s.is_big_unsigned())
        return nb::steal(PyLong_FromUnsignedLongLong(static_cast<uint64_t>(s.to_int())));
      return nb::int_(s.to_int());
    case Scalar::Kind::Complex:
      return nb::steal(PyComplex_FromDoubles(s.to_complex().re, s.to_complex().im));
    default:
      return nb::float_(s.to_double());
  }
}

template <typename T>
nb::object to_py(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (is_complex_type_v<T>)
    return nb::steal(PyComplex_FromDoubles(static_cast<double>(v.re), static_cast<double>(v.im)));
  else if constexpr (std::is_same_v<T, bool>)
    return nb::bool_(v);
  else if constexpr (std::is_same_v<T, uint64_t>)
    return nb::steal(PyLong_FromUnsignedLongLong(v));
  else if constexpr (std::is_integral_v<T>)
    return nb::int_(static_cast<int64_t>(v));
  else
    return nb::float_(static_cast<double>(static_cast<opmath_t<T>>(v)));
}

// Builds nested lists with an explicit stack of frames (no recursion over user-sized input). Each list is
// made with its length and its items set in place (a list whose remaining items are still null is valid to
// free if a conversion fails part way), which halves the cost of a small tensor's tolist() against appending.
nb::object new_list(int64_t size) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(size));
  if (!list) throw nb::python_error();
  return nb::steal(list);
}

template <typename T>
nb::object tolist_impl(const Tensor& host) {
  const char* base = static_cast<const char*>(host.data_ptr());
  const int64_t nd = host.dim(), es = static_cast<int64_t>(sizeof(T));
  if (nd == 0) return to_py<T>(base);
  struct Frame {
    PyObject* list;  // owned by the list above it (the root by `root`)
    int64_t dim, next, offset;
  };
  nb::object root = new_list(host.sizes()[0]);
  std::vector<Frame> stack{{root.ptr(), 0, 0, 0}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    const int64_t size = host.sizes()[f.dim], stride = host.strides()[f.dim];
    if (f.dim == nd - 1) {
      for (int64_t i = 0; i < size; ++i)
        PyList_SET_ITEM(f.list, i, to_py<T>(base + (f.offset + i * stride) * es).release().ptr());
      stack.pop_back();
    } else if (f.next == size) {
      stack.pop_back();
    } else {
      PyObject* child = new_list(host.sizes()[f.dim + 1]).release().ptr();
      PyList_SET_ITEM(f.list, f.next, child);
      Frame next{child, f.dim + 1, 0, f.offset + f.next * stride};
      f.next++;
      stack.push_back(next);
    }
  }
  return root;
}

// tolist() of a device tensor copies it to the host first (one counted transfer), as PyTorch does.
Tensor to_host(const Tensor& t) {
  return t.device().is_cpu() ? t : to_device(t, Device(), std::nullopt, false);
}

Scalar one_value(const Tensor& t, const char* what) {
  TANDEM_CHECK(t.numel() == 1, Runtime, "a Tensor with ", t.numel(),
               " elements cannot be converted to Scalar", "\nhint: ", what,
               " needs exactly one element; reduce first (e.g. x.sum()) or index one element");
  return item(t);
}

// float() and int() refuse other sizes with Python's ValueError (item() with a RuntimeError), as PyTorch.
Scalar one_number(const Tensor& t, const char* what) {
  TANDEM_CHECK(t.numel() == 1, Value,
               "only one element tensors can be converted to Python scalars\nhint: ", what,
               " needs exactly one element; this tensor has ", t.numel());
  return item(t);
}

// float() / int() of a complex value: PyTorch takes the real part only when the imaginary part is zero.
const Scalar& real_value(const Scalar& s, const char* c_type) {
  TANDEM_CHECK(!s.is_complex() || s.to_complex().im == 0.0, Runtime, "value cannot be converted to type ",
               c_type, " without overflow\nhint: take the part you want first, e.g. float(t.real) or abs(t)");
  return s;
}

}  // namespace

void init_protocol(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
  // Crossing scopes tell tandem.transfer_guard which reads were asked for by name (backend/crossing.h).
  tensor.def(
      "item",
      [](const Tensor& t) {
        CrossingScope scope(".item()", true, !t.device().is_cpu());
        return scalar_object(one_value(t, "item()"));
      },
      "The value of a one-element tensor as a Python number.");
  tensor.def(
      "tolist",
      [](const Tensor& t) {
        CrossingScope scope(".tolist()", true, !t.device().is_cpu());
        Tensor h = to_host(t);
        return dispatch_any_dtype(h.dtype(), [&](auto tag) {
          using T = typename decltype(tag)::type;
          return tolist_impl<T>(h);
        });
      },
      "The values as (nested) Python lists of numbers.");
  tensor.def("__float__", [](const Tensor& t) {
    // PyTorch's warning, once per process as there (float() only, not item() or int())
    static std::atomic<bool> warned{false};
    if (t.requires_grad() && autograd::GradMode::is_enabled() && !warned.exchange(true) &&
        PyErr_WarnEx(
            PyExc_UserWarning,
            "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
            "Consider using tensor.detach() first.",
            1) != 0)
      throw nb::python_error();  // a warnings filter made it an error
    CrossingScope scope("float()", false, !t.device().is_cpu());
    return real_value(one_number(t, "float()"), "double").to_double();
  });
  tensor.def("__int__", [](const Tensor& t) {
    CrossingScope scope("int()", false, !t.device().is_cpu());
    Scalar v = real_value(one_number(t, "int()"), "int64_t");
    if (v.is_int() || v.is_bool()) return scalar_object(v.is_int() ? v : Scalar(v.to_int()));  // uint64's too
    // A float goes through Python's int(float), as PyTorch: exact past int64, ValueError for NaN,
    // OverflowError for an infinity.
    PyObject* r = PyLong_FromDouble(v.to_double());
    if (!r) throw nb::python_error();
    return nb::steal(r);
  });
  tensor.def("__bool__", [](const Tensor& t) {
    TANDEM_CHECK(t.numel() == 1, Runtime, "Boolean value of Tensor with ",
                 t.numel() ? "more than one value" : "no values",
                 " is ambiguous\nhint: use t.any() or t.all() to reduce to one value");
    CrossingScope scope("bool()", false, !t.device().is_cpu());
    return item(t).to_bool();
  });
  tensor.def("__index__", [](const Tensor& t) {
    TANDEM_CHECK(!is_floating(t.dtype()) && !is_complex(t.dtype()) && t.numel() == 1, Type,
                 "only integer tensors of a single element can be converted to an index");
    CrossingScope scope("__index__()", false, !t.device().is_cpu());
    Scalar v = item(t);
    return scalar_object(v.is_int() ? v : Scalar(v.to_int()));
  });
  tensor.def("__len__", [](const Tensor& t) {
    TANDEM_CHECK(t.dim() > 0, Type, "len() of a 0-d tensor");
    return t.sizes()[0];
  });
  tensor.def("__iter__", [](nb::handle self) {
    const Tensor& t = self_tensor(self, "__iter__");
    TANDEM_CHECK(t.dim() > 0, Type, "iteration over a 0-d tensor");
    nb::list parts;
    for (const Tensor& p : unbind(t, 0)) parts.append(wrap(p));
    return nb::iter(parts);
  });
}

}  // namespace tandem::py
