// Shared helpers for the binding files. Bindings only convert arguments and results: every decision about
// shapes, dtypes and devices is made by the C++ front ends.
#pragma once
// nanobind, with the int64_t argument caster that refuses bool (first: before any binding reads an int)
#include "int_caster.h"

#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "core/device.h"
#include "core/dtype.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "ops/out_arg.h"
#include "tensor_caster.h"

namespace nb = nanobind;

namespace tandem::autograd {
struct Node;
}

namespace tandem::py {

// The Python object for each dtype (tandem.float32, ...), created once at import.
struct PyDType {
  DType dtype;
};
nb::object dtype_object(DType d);
bool is_dtype(nb::handle h);
// A tandem dtype or one of the Python types that name dtypes (float, int, bool, complex), as PyTorch reads
// them.
bool is_dtype_like(nb::handle h);
DType to_dtype(nb::handle h);                          // TypeError for anything that is not a tandem.dtype
std::optional<DType> to_optional_dtype(nb::handle h);  // None -> nullopt
// The dtype cumsum/cumprod compute in, given their dtype= and out= (PyTorch's rule: without dtype= the input
// is cast to out's dtype first, so cumsum(float, out=int64) sums truncated values; with both they must
// agree).
std::optional<DType> scan_dtype(std::optional<DType> dtype, nb::handle out);

struct PyDevice {
  Device device;
};
Device to_device(nb::handle h);  // tandem.device, "cuda:0", "cpu", an int (a CUDA ordinal)
std::optional<Device> to_optional_device(nb::handle h);
nb::object device_object(Device d);

// Python bool/int/float and NumPy scalars -> Scalar. Returns false for anything else. An int from 2^63 to
// 2^64 - 1 (a uint64 value) is accepted only with allow_uint64, by callers whose op refuses it for any dtype
// but uint64 and the floats (fill_, full, tensor(), the binary ops); elsewhere it raises PyTorch's overflow
// error.
bool to_scalar(nb::handle h, Scalar& out, bool allow_uint64 = false);
// A Number argument (alpha=, beta=, a fill value) as PyTorch's parser reads one: a Python or NumPy number, or
// a 0-dim tensor that needs no gradient (`p.add_(u, alpha=-lr * ratio)`); anything else is its TypeError
// naming `fn`'s argument `arg`.
Scalar number_argument(nb::handle h, const char* fn, const char* arg);
// The name PyTorch's argument parser prints for an argument of a call it rejects (Tensor, torch.dtype, int).
std::string parser_type_name(nb::handle a);
// An int argument as PyTorch's parser reads one where a binding takes a Python object: an int or an object
// with __index__ (a NumPy integer, a 0-dim integer tensor), not a bool, float, None or a tensor with dims
// (TypeError "fn(): argument 'arg' (position N) must be int, not T"; position 0 leaves the position out); a
// value outside int64 is PyTorch's ValueError.
bool is_int_argument(nb::handle h);
// Whether PyTorch's parser reads a tuple or list whose first item is `h` as a list of ints (sizes, dims): an
// int that is no bool, or a one-element integral tensor (bool included). Later items need only be integers.
bool int_list_head(nb::handle h);
int64_t int_arg(nb::handle h, const char* fn, const char* arg, int position = 0);
// A PyTorch SymInt parameter (randint's bounds): int_arg's, and a one-element integral tensor of any shape
// (bool included) as its value.
int64_t symint_arg(nb::handle h, const char* fn, const char* arg, int position = 0);
// A str argument as PyTorch's parser reads one: a str, or bytes decoded as UTF-8 (UnicodeDecodeError
// otherwise); anything else is the TypeError "fn(): argument 'arg' must be str, not T".
std::string str_arg(nb::handle h, const char* fn, const char* arg);
// The fill value of full/full_like/new_full: a number, or a 0-dim tensor read as one (PyTorch's rule);
// anything else is PyTorch's TypeError naming `fn`'s argument.
Scalar fill_value(nb::handle value, const char* fn, const char* position);
// PyTorch's UserWarning when a conversion from `from` to `to` drops imaginary parts (complex -> real).
void warn_if_discarding_imag(DType from, DType to);
inline bool is_tensor(nb::handle h) { return nb::isinstance<Tensor>(h); }
inline Tensor& as_tensor_ref(nb::handle h) { return *nb::inst_ptr<Tensor>(h); }
// A Tensor argument, or a TypeError naming the function, the argument and what was passed.
Tensor& expect_tensor(nb::handle h, const char* fn, const char* arg);
// The `self` of a method bound with nb::handle (to return the very same Python object), which nanobind does
// not check: called unbound (tandem.Tensor.add_([1], 1)) it may be anything, so it is checked here, with
// Python's TypeError for a method descriptor applied to another type.
[[noreturn]] void throw_not_a_tensor_self(nb::handle self, const char* method);
inline Tensor& self_tensor(nb::handle self, const char* method) {
  if (__builtin_expect(is_tensor(self), 1)) return as_tensor_ref(self);
  throw_not_a_tensor_self(self, method);
}

// A view the user asked for (x[1:], x.view(...), x.as_subclass(C), ...): while grad mode is on, the view of a
// plain tensor remembers x as its base, as every PyTorch view does, so that a value with history written into
// x or the view later gives both PyTorch's history (CopySlices, AsStridedBackward) instead of being refused
// (autograd::track_view_write). `view` is returned; a result that does not share x's memory is left alone.
Tensor tracked_view(const Tensor& x, Tensor view);

// (2, 3), [2, 3], a single int, torch.Size, or *args of ints -> a shape.
DimVector to_shape(nb::handle h, const char* fn);
DimVector shape_from_args(nb::args args, const char* fn);
// A size that PyTorch's signature takes as a tuple or list only (full's, new_full's): a bare int, None or a
// tensor is its parser's "fn(): argument 'size' (position 1) must be tuple of ints, not int".
DimVector size_list_arg(nb::handle h, const char* fn);
// The same shape given either as varargs or as one keyword (zeros(size=(2, 3)), x.permute(dims=(1, 0))).
DimVector shape_from_args(nb::args args, nb::handle keyword, const char* fn, const char* keyword_name);
// `result` written into out= with PyTorch's rules (check, resize warning, copy) and out returned; without
// out, result itself (python/src/elementwise.cpp).
// `overlap`: which memory out may share with `inputs` (ops/out_arg.h's OutOverlap, checked after the resize).
nb::object into_out(const char* fn, const Tensor& result, nb::handle out,
                    std::initializer_list<const Tensor*> inputs, OutOverlap overlap = OutOverlap::Unchecked);
// into_out for ops whose out must have the result's dtype exactly: `dtype_error` (or null) is PyTorch's
// message for that op ({out} and {result} stand for the dtypes' names, {out_cpp} and {result_cpp} for their
// C++ spellings, {out_legacy} and {result_legacy} for the legacy type names such as torch.FloatTensor);
// without it, into_out's castable rule. Autograd is refused for `inputs`.
nb::object write_out(const char* fn, const Tensor& result, nb::handle out,
                     std::initializer_list<const Tensor*> inputs, const char* dtype_error,
                     OutOverlap overlap = OutOverlap::Unchecked);
// PyTorch's message when the out of a structured op (mm, sort, gather, softmax, ...) has another dtype.
inline constexpr const char* kStructuredOutDtype =
    "Expected out tensor to have dtype {result_cpp}, but got {out_cpp} instead";
// out=(values, indices) for a function with several results: `results` (a named tuple) as is without out;
// else each result written into its out (write_out's rules, with `indices_dtype_error` for the second result
// where the op words it apart) and the named tuple of the outs returned.
nb::object into_outs(const char* fn, nb::object results, nb::handle out,
                     std::initializer_list<const Tensor*> inputs,
                     const char* dtype_error = kStructuredOutDtype,
                     const char* indices_dtype_error = nullptr);
// A tuple of Python ints (what PyTorch returns for stride()/size()).
nb::object shape_object(IntArrayRef sizes);
// The sizes as a tandem.Size (python/src/size.cpp; a plain tuple before the package registers the class).
nb::object size_object(IntArrayRef sizes);
// A Tensor method's C fast path for a positional call on a plain tensor (args[0] is self, nargs counts it;
// torch_function.cpp's method descriptor tries it first when there are no keywords): the result, null with an
// error set for an error, or null without one where the bound method must run. Null for a method that has
// none (python/src/method_fast_paths.cpp).
using MethodFastPath = PyObject* (*)(PyObject* const* args, Py_ssize_t nargs);
MethodFastPath method_fast_path(std::string_view name);

nb::object wrap(Tensor t);

// Inside a catch block of a C slot (no nanobind call around it): sets the Python error that the exception in
// flight becomes, as nanobind's translation of a binding's exception would (python/src/errors.cpp).
void set_error_from_exception(const std::exception_ptr& p) noexcept;

// The implementations behind Tensor's operators, called by the bound methods and by the direct type slots
// (python/src/operator_slots.cpp). getitem/setitem: indexing.cpp; the arithmetic operators: elementwise.cpp
// (NotImplemented for an operand they do not understand; `self` of the in-place form is returned).
enum class ArithmeticOperator { Add, Sub, Mul, TrueDiv };
Tensor tensor_getitem(const Tensor& self, nb::handle index);
void tensor_setitem(const Tensor& self, nb::handle index, nb::handle value);
nb::object tensor_operator(ArithmeticOperator op, const Tensor& self, nb::handle other, bool reflected);
nb::object tensor_inplace_operator(ArithmeticOperator op, nb::handle self, nb::handle other);
void init_operator_slots(nb::module_& m);

void init_errors(nb::module_& m);
void init_complex(nb::module_& m);
void init_numpy_arg_names(nb::module_& m);
void init_builtin_function(nb::module_& m);
void init_torch_function(nb::module_& m);
void init_dtype_device(nb::module_& m);
void init_size(nb::module_& m);
void init_tensor(nb::module_& m);
void init_elementwise(nb::module_& m);
void init_special(nb::module_& m);  // after init_elementwise: adds overloads to its functions
void init_views(nb::module_& m);
void init_storage(nb::module_& m);  // as_strided, resize_, set_, storage primitives
void init_creation(nb::module_& m);
void init_protocol(nb::module_& m);
void init_reductions(nb::module_& m);
void init_indexing(nb::module_& m);
void init_random(nb::module_& m);
void init_numpy(nb::module_& m);
// The Tensor class's buffer-protocol slots (numpy_interop.cpp), installed where the class is created.
extern PyType_Slot tensor_buffer_slots[];
// Python objects owned through a tensor's autograd state (hooks, Function nodes), for the garbage collector.
int visit_autograd_objects(const Tensor& t, visitproc visit, void* arg);
void init_linalg(nb::module_& m);
void init_linalg_decomp(nb::module_& m);
void init_fft(nb::module_& m);
void init_cuda(nb::module_& m);
void init_conversions(nb::module_& m);
void init_autograd(nb::module_& m);
void init_autograd_graph(nb::module_& m);  // after init_autograd: adds to its Node class
// Drops a Python reference held by C++ state, taking the GIL (the last owner may be any thread).
void release_under_gil(nb::object& o);
// Python objects held by a node's own hooks and metadata (autograd_graph.cpp), for the garbage collector.
int visit_node_objects(const autograd::Node& node, visitproc visit, void* arg);
// A node's Python object, of the subclass of Node named after it (type(fn).__name__ == "ExpBackward0"; see
// autograd_node_types.cpp); None for a null node. Every binding that hands a node to Python goes through it.
nb::object node_object(const std::shared_ptr<autograd::Node>& n);
// The garbage collector's slots of the Node class (autograd_node_types.cpp).
PyType_Slot* node_slots();
// grad_fn._saved_<name>: the node's saved value PyTorch calls `name` ("self", "other", "result"), None when
// it saved none there; AttributeError for a name the node does not have (autograd_node_types.cpp).
nb::object node_saved_value(const autograd::Node& n, const std::string& name);
void init_serialization(nb::module_& m);
void init_nn(nb::module_& m);
void init_boundary(nb::module_& m);
void init_long_work(nb::module_& m);
void init_op_profiler(nb::module_& m);
void init_cpu_capability(nb::module_& m);
void init_distributed(nb::module_& m);
void init_autocast(nb::module_& m);
void init_scan_scatter(nb::module_& m);
void init_order_stats(nb::module_& m);
void init_unfold(nb::module_& m);
void init_attention(nb::module_& m);

// In-place methods return the object they were called on, as PyTorch's do: `x.add_(1) is x`, and `x += 1`
// keeps x's identity (tensors hash by identity). returning_self(name, f) turns f(const Tensor& self, args...)
// into the method (self, args...) that checks self (self_tensor: the method may be called unbound on
// anything), calls f and returns self.
template <typename F, typename Call = decltype(&F::operator())>
struct SelfReturning;
template <typename F, typename C, typename R, typename... Args>
struct SelfReturning<F, R (C::*)(const Tensor&, Args...) const> {
  static auto make(const char* name, F f) {
    return [name, f](nb::handle self, Args... args) -> nb::object {
      f(self_tensor(self, name), std::forward<Args>(args)...);
      return nb::borrow(self);
    };
  }
};
template <typename F>
auto returning_self(const char* name, F f) {
  return SelfReturning<F>::make(name, std::move(f));
}

}  // namespace tandem::py
