// Direct type slots for Tensor's hottest operators: x[i], x[i] = v, and x + y, x - y, x * y, x / y with their
// in-place forms. Tensor's operators are methods (__getitem__, __add__, ...: the tensor_method descriptors of
// torch_function.cpp over nanobind functions), so CPython fills the type's slots with its generic
// dispatchers, which look the method up by name on every use and call it through the descriptor's
// __torch_function__ check and nanobind's argument dispatch. The slots here take plain operands
// (tandem.Tensor itself; Python ints, floats and bools; index items of those kinds, slices, None and
// Ellipsis) while no TorchFunctionMode or DisableTorchFunction switch is in effect, when neither wrapper
// would do anything, and call the implementations directly. Any other call takes the method's way: through
// the generic dispatcher the slot replaced, or for the binary operators through the method itself (binary()
// below), so __torch_function__, subclasses (a Python subclass gets CPython's dispatchers again) and the
// other operand's reflected operator behave as before. Assigning a method on the class later (Tensor.__add__
// = f) makes CPython put its dispatcher back, so the assignment is honoured (and _operator_slots_installed()
// says False).
#include <array>

#include "bindings.h"
#include "core/error.h"
#include "torch_function.h"

namespace tandem::py {

namespace {

PyTypeObject* tensor_type = nullptr;
binaryfunc generic_subscript = nullptr;
objobjargproc generic_ass_subscript = nullptr;
std::array<binaryfunc, 4> generic_inplace{};
// The operators' method names, interned: {__add__, __radd__}, {__sub__, __rsub__}, ...
std::array<std::array<PyObject*, 2>, 4> method_names{};

bool is_plain_tensor(PyObject* o) { return Py_TYPE(o) == tensor_type && nb::inst_ready(o); }
bool is_plain_number(PyObject* o) {
  PyTypeObject* t = Py_TYPE(o);
  return t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type;
}
bool is_plain_index_item(PyObject* o) {
  PyTypeObject* t = Py_TYPE(o);
  return t == &PyLong_Type || t == &PySlice_Type || o == Py_None || o == Py_Ellipsis || t == tensor_type;
}
bool is_plain_index(PyObject* index) {
  if (!PyTuple_CheckExact(index)) return is_plain_index_item(index);
  for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(index); i < n; ++i)
    if (!is_plain_index_item(PyTuple_GET_ITEM(index, i))) return false;
  return true;
}

// A C slot has no nanobind call around it: exceptions become the Python error here.
template <typename Call>
PyObject* guarded(Call&& call) {
  try {
    return call().release().ptr();
  } catch (...) {
    set_error_from_exception(std::current_exception());
    return nullptr;
  }
}

PyObject* subscript(PyObject* self, PyObject* index) {
  if (!torch_function_idle() || !is_plain_tensor(self) || !is_plain_index(index))
    return generic_subscript(self, index);
  return guarded([&] { return nb::cast(tensor_getitem(as_tensor_ref(self), index)); });
}

int ass_subscript(PyObject* self, PyObject* index, PyObject* value) {
  // `del x[i]` (value null): PyTorch's TypeError, unless a subclass defines __delitem__ (CPython then gives
  // the subclass its own slot).
  if (!value) {
    PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
    return -1;
  }
  if (!torch_function_idle() || !is_plain_tensor(self) || !is_plain_index(index) ||
      !(is_plain_number(value) || is_plain_tensor(value)))
    return generic_ass_subscript(self, index, value);
  try {
    tensor_setitem(as_tensor_ref(self), index, value);
    return 0;
  } catch (...) {
    set_error_from_exception(std::current_exception());
    return -1;
  }
}

// self.name(other) through the method on self's type (the tensor_method descriptor, with its
// __torch_function__ dispatch): NotImplemented when the type has none.
PyObject* call_method(PyObject* self, PyObject* name, PyObject* other) {
  PyObject* method = _PyType_Lookup(Py_TYPE(self), name);  // borrowed
  if (!method) Py_RETURN_NOTIMPLEMENTED;
  Py_INCREF(method);
  PyObject* result;
  if (PyType_HasFeature(Py_TYPE(method), Py_TPFLAGS_METHOD_DESCRIPTOR)) {
    PyObject* args[] = {self, other};
    result = PyObject_Vectorcall(method, args, 2, nullptr);
  } else {
    descrgetfunc get = Py_TYPE(method)->tp_descr_get;
    PyObject* bound = get ? get(method, self, reinterpret_cast<PyObject*>(Py_TYPE(self))) : Py_NewRef(method);
    result = bound ? PyObject_CallOneArg(bound, other) : nullptr;
    Py_XDECREF(bound);
  }
  Py_DECREF(method);
  return result;
}

template <ArithmeticOperator op>
binaryfunc& binary_slot(PyNumberMethods& number) {
  switch (op) {
    case ArithmeticOperator::Add:
      return number.nb_add;
    case ArithmeticOperator::Sub:
      return number.nb_subtract;
    case ArithmeticOperator::Mul:
      return number.nb_multiply;
    case ArithmeticOperator::TrueDiv:
      break;
  }
  return number.nb_true_divide;
}

// Python calls a binary slot as the left operand's (a's type has it) or, after the left one declined, as the
// right operand's. CPython's generic dispatcher cannot be the fallback here (it only calls __add__ for a type
// whose slot is itself), so this does its part: a.__add__(b) for a tensor on the left, else b.__radd__(a).
// CPython's own order around it (a right operand whose type subclasses the left's goes first) is unchanged.
template <ArithmeticOperator op>
PyObject* binary(PyObject* a, PyObject* b) {
  if (torch_function_idle()) {
    if (is_plain_tensor(a) && (is_plain_tensor(b) || is_plain_number(b)))
      return guarded([&] { return tensor_operator(op, as_tensor_ref(a), b, false); });
    if (is_plain_tensor(b) && is_plain_number(a))  // a number's own operator declined: b's reflected one
      return guarded([&] { return tensor_operator(op, as_tensor_ref(b), a, true); });
  }
  const auto& names = method_names[static_cast<size_t>(op)];
  PyNumberMethods* left = Py_TYPE(a)->tp_as_number;
  if (left && binary_slot<op>(*left) == &binary<op>) return call_method(a, names[0], b);
  return call_method(b, names[1], a);
}

template <ArithmeticOperator op>
PyObject* inplace(PyObject* self, PyObject* other) {
  if (torch_function_idle() && is_plain_tensor(self) && (is_plain_tensor(other) || is_plain_number(other)))
    return guarded([&] { return tensor_inplace_operator(op, self, other); });
  return generic_inplace[static_cast<size_t>(op)](self, other);
}

// Replaces `slot` by `direct`, keeping what was there as the fallback; false when the class has no method
// for it (nothing to speed up) or the slot is already direct.
template <typename Fn>
bool install(Fn& slot, Fn& fallback, Fn direct) {
  if (!slot || slot == direct) return false;
  fallback = slot;
  slot = direct;
  return true;
}

template <ArithmeticOperator op>
void install_arithmetic(PyNumberMethods& number, binaryfunc& inplace_slot, const char* name,
                        const char* reflected) {
  auto& names = method_names[static_cast<size_t>(op)];
  if (!names[0]) names = {PyUnicode_InternFromString(name), PyUnicode_InternFromString(reflected)};
  if (!names[0] || !names[1]) throw nb::python_error();
  if (binary_slot<op>(number)) binary_slot<op>(number) = &binary<op>;
  install(inplace_slot, generic_inplace[static_cast<size_t>(op)], &inplace<op>);
}

bool slots_installed() {
  PyNumberMethods* number = tensor_type->tp_as_number;
  return tensor_type->tp_as_mapping->mp_subscript == &subscript &&
         tensor_type->tp_as_mapping->mp_ass_subscript == &ass_subscript &&
         number->nb_add == &binary<ArithmeticOperator::Add> &&
         number->nb_inplace_add == &inplace<ArithmeticOperator::Add> &&
         number->nb_subtract == &binary<ArithmeticOperator::Sub> &&
         number->nb_inplace_subtract == &inplace<ArithmeticOperator::Sub> &&
         number->nb_multiply == &binary<ArithmeticOperator::Mul> &&
         number->nb_inplace_multiply == &inplace<ArithmeticOperator::Mul> &&
         number->nb_true_divide == &binary<ArithmeticOperator::TrueDiv> &&
         number->nb_inplace_true_divide == &inplace<ArithmeticOperator::TrueDiv>;
}

}  // namespace

void init_operator_slots(nb::module_& m) {
  // Called by the package once Tensor's operator methods are final (tandem/__init__.py): the generic
  // dispatchers CPython made for them are the fallbacks.
  m.def("_install_operator_slots", [] {
    tensor_type = reinterpret_cast<PyTypeObject*>(nb::type<Tensor>().ptr());
    PyMappingMethods* mapping = tensor_type->tp_as_mapping;
    PyNumberMethods* number = tensor_type->tp_as_number;
    TANDEM_CHECK(mapping && number, Runtime, "_install_operator_slots: Tensor has no operator slots");
    install(mapping->mp_subscript, generic_subscript, &subscript);
    install(mapping->mp_ass_subscript, generic_ass_subscript, &ass_subscript);
    install_arithmetic<ArithmeticOperator::Add>(*number, number->nb_inplace_add, "__add__", "__radd__");
    install_arithmetic<ArithmeticOperator::Sub>(*number, number->nb_inplace_subtract, "__sub__", "__rsub__");
    install_arithmetic<ArithmeticOperator::Mul>(*number, number->nb_inplace_multiply, "__mul__", "__rmul__");
    install_arithmetic<ArithmeticOperator::TrueDiv>(*number, number->nb_inplace_true_divide, "__truediv__",
                                                    "__rtruediv__");
    PyType_Modified(tensor_type);
    return slots_installed();
  });
  // Whether every direct slot is in place (tests: a later assignment on the class would have removed one).
  m.def("_operator_slots_installed", [] { return tensor_type && slots_installed(); });
}

}  // namespace tandem::py
