#include "ops/copy.h"

#include <cstring>

#include "autograd/formulas.h"
#include "backend/backend.h"
#include "backend/crossing.h"
#include "backend/transfer.h"
#include "core/error.h"
#include "core/profiler.h"
#include "core/warning.h"
#include "kernels/cast_waypoint.h"
#include "kernels/kernel_table.h"
#include "kernels/tensor_iterator.h"
#include "ops/complex.h"
#include "ops/elementwise.h"
#include "ops/layout.h"
#include "ops/pinned.h"
#include "ops/value_range.h"

namespace tandem {

namespace {
// check_writeable without the expanded-tensor rule: for fill_, which writes one value into every element, so
// elements that share memory get the same value whatever the order (PyTorch fills expanded tensors too).
void check_writeable_memory(const Tensor& x, const char* op) {
  TANDEM_CHECK(
      !x.storage()->is_inference() || InferenceMode::is_enabled(), Runtime,
      "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to "
      "get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for "
      "more details.\nhint: the tensor was made under inference_mode; write into x.clone() instead");
  autograd::check_no_grad_view_write(x, false);
  TANDEM_CHECK(x.storage()->writeable(), Runtime, op,
               ": the tensor's memory is read-only (it comes from a non-writeable NumPy array)\nhint: "
               "copy it first with .clone(), or pass a writeable array (np.array(a)) to from_numpy");
}

// More than one element shares a memory location (a dim of stride 0 and size > 1).
bool is_expanded(const Tensor& x) {
  for (int64_t d = 0; d < x.dim(); ++d)
    if (x.strides()[d] == 0 && x.sizes()[d] > 1) return true;
  return false;
}

}  // namespace

void check_writeable(const Tensor& x, const char* op) {
  check_writeable_memory(x, op);
  // An empty tensor writes nothing, whatever its strides (a NumPy array's can be 0: np.zeros((2, 0, 3))).
  TANDEM_CHECK(x.numel() == 0 || !is_expanded(x), Runtime,
               "unsupported operation: more than one element of the written-to tensor refers to a single "
               "memory location. Please clone() the tensor before performing the operation.");
}

Tensor distinct_elements(const Tensor& x) {
  if (!is_expanded(x)) return x;
  DimVector sizes = x.sizes();
  for (int64_t d = 0; d < x.dim(); ++d)
    if (x.strides()[d] == 0) sizes[d] = std::min<int64_t>(sizes[d], 1);
  return make_view(x, sizes, x.strides(), x.storage_offset());
}

bool check_writeable_or_warn_expanded(const Tensor& x, const char* op, const char* example) {
  check_writeable_memory(x, op);
  if (x.numel() == 0 || !is_expanded(x)) return false;
  warn(std::string("Use of ") + op +
       " on expanded tensors is deprecated. Please clone() the tensor before performing this operation. This "
       "also applies to advanced indexing e.g. " +
       example);
  return true;
}

namespace {
// Where an asynchronous copy writes into host memory: taking data_ptr() would wait for earlier pending
// copies into the same storage, which the new copy need not do.
void* host_ptr_without_waiting(const Tensor& t) {
  if (t.storage()->shrunk()) t.impl()->check_within_storage();
  return static_cast<char*>(t.storage()->data_without_waiting()) +
         t.storage_offset() * static_cast<int64_t>(t.element_size());
}

// Bytes cross the boundary in one contiguous block through backend/transfer.h; layout and dtype changes
// happen on one side with the ordinary copy kernel. non_blocking applies to a direct copy (dst contiguous and
// of src's shape); a staged one ends with a host-side copy that has to wait anyway.
Tensor copy_across_devices(const Tensor& dst, const Tensor& src, bool non_blocking) {
  // The dtype conversion runs on the source's device; complex to real drops the imaginary parts as copy_ on
  // one device does (to_dtype refuses that; the binding gives PyTorch's warning).
  Tensor converted = src.dtype() == dst.dtype() ? src
                     : is_complex(src.dtype()) && !is_complex(dst.dtype())
                         ? cast_discarding_imag(src, dst.dtype())
                         : to_dtype(src, dst.dtype());
  Tensor staged = contiguous(converted);
  bool direct = dst.is_contiguous() && dst.sizes() == staged.sizes();
  Tensor target = direct ? dst : empty(staged.sizes(), dst.dtype(), dst.device());
  size_t n = staged.nbytes();
  CrossingSubject subject(src);  // the transfer guard names the user's tensor, not the staged copy
  bool async = non_blocking && direct;
  if (n) {
    if (src.device().is_cpu()) {
      if (async)
        copy_host_to_device_async(target.data_ptr(), dst.device(), staged.data_ptr(), staged.storage(), n);
      else
        copy_host_to_device(target.data_ptr(), dst.device(), staged.data_ptr(), n);
    } else if (dst.device().is_cpu()) {
      if (async) {
        copy_device_to_host_async(host_ptr_without_waiting(target), *target.storage(), staged.data_ptr(),
                                  src.device(), n);
      } else {
        copy_device_to_host(target.data_ptr(), staged.data_ptr(), src.device(), n);
      }
    } else {
      copy_device_to_device(target.data_ptr(), dst.device(), staged.data_ptr(), src.device(), n);
    }
  }
  if (!direct) return copy_(dst, target);
  dst.bump_version();
  return dst;
}
}  // namespace

Tensor copy_(const Tensor& dst, const Tensor& src, bool non_blocking) {
  profiler::RecordScope profile_scope("aten::copy_", dst, src, non_blocking);
  check_writeable(dst, "copy_");
  DimVector shape = broadcast_shapes(dst.sizes(), src.sizes());
  TANDEM_CHECK(shape == dst.sizes(), Runtime, "output with shape ", dst.shape_str(),
               " doesn't match the broadcast shape ", shape_to_string(shape));
  if (autograd::should_record(dst, src)) {
    autograd::check_inplace(dst);
    autograd::without_grad([&] { return copy_(dst, src, non_blocking); });
    if (autograd::is_differentiable(dst.dtype())) autograd::record_copy_(dst, src);
    return dst;
  }
  if (dst.numel() == 0) return dst;
  if (dst.device() != src.device()) return copy_across_devices(dst, src, non_blocking);
  copy_elements(dst, src);
  dst.bump_version();
  return dst;
}

void copy_elements(const Tensor& dst, const Tensor& src) {
  const DType waypoint = cast_waypoint(dst.dtype(), src.dtype());
  if (waypoint != dst.dtype()) {
    Tensor mid = empty(src.sizes(), waypoint, src.device());
    copy_elements(mid, src);
    copy_elements(dst, mid);
    return;
  }
  TensorIterator iter;
  iter.add_output(dst);
  iter.add_input(src);
  iter.build();
  kernel_table(dst.device().type).copy(iter);
}

Tensor empty_like(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::empty_like", x);
  return empty(x.sizes(), x.dtype(), x.device());
}
Tensor empty_like(const Tensor& x, DType dtype) {
  profiler::RecordScope profile_scope("aten::empty_like", x, dtype);
  return empty(x.sizes(), dtype, x.device());
}

Tensor to_dtype(const Tensor& x, DType dtype, bool copy) {
  if (x.dtype() == dtype && !copy)
    return x;  // (front ends call this on every input: no event when nothing is done)
  profiler::RecordScope profile_scope("aten::to", x, dtype, copy);
  // Front ends convert inputs to their compute dtype with this; a real compute dtype for a complex input
  // means the op has no complex form, and converting would silently drop the imaginary parts. The user's
  // explicit casts (x.float(), x.to(dtype)) go through cast_discarding_imag (ops/complex.h) instead.
  if (is_complex(x.dtype()) && !is_complex(dtype)) throw_dtype_not_implemented(nullptr, x.dtype());
  if (autograd::should_record(x)) {
    Tensor out = autograd::without_grad([&] { return to_dtype(x, dtype, copy); });
    return autograd::record_copy(x.dtype() == dtype ? "CloneBackward0" : "ToCopyBackward0", x, out);
  }
  Tensor out = empty_laid_out(x.sizes(), preserved_strides(x), dtype, x.device());
  copy_elements(out, x);
  return out;
}

namespace {
Tensor row_major_copy(const Tensor& x) {
  if (autograd::should_record(x)) {
    Tensor out = autograd::without_grad([&] { return row_major_copy(x); });
    return autograd::record_copy("CloneBackward0", x, out);
  }
  Tensor out = empty(x.sizes(), x.dtype(), x.device());
  copy_elements(out, x);
  return out;
}
}  // namespace

Tensor contiguous(const Tensor& x) {
  if (x.is_contiguous()) return x;  // no event, as PyTorch's contiguous() of a contiguous tensor
  profiler::RecordScope profile_scope("aten::contiguous", x);
  return row_major_copy(x);
}
Tensor clone(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::clone", x);
  return row_major_copy(x);
}

namespace {
// fill_'s body; `node` names the autograd node of a recorded fill (PyTorch's differ for fill_ and zero_).
Tensor fill_recorded_as(const Tensor& x, const Scalar& value, const char* node) {
  check_writeable_memory(x, "fill_");
  // PyTorch's CPU fill of a single element takes a fast path that rounds a value past float16's or bfloat16's
  // range to inf instead of refusing it (t[0] = 1e6 on a float16 tensor); any other fill checks the range.
  const bool one_16bit_cpu_element =
      x.device().is_cpu() && x.numel() == 1 && (x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16);
  if (!one_16bit_cpu_element || value.is_complex()) check_value_fits(value, x.dtype(), true);
  if (autograd::should_record(x)) {
    autograd::check_inplace(x);
    autograd::without_grad([&] { return fill_(x, value); });
    autograd::record_fill_(x, node);
    return x;
  }
  if (x.numel() == 0) return x;
  const Tensor target = distinct_elements(x);  // outlives the iterator, which keeps a pointer to it
  TensorIterator iter;
  iter.add_output(target);
  alignas(16) char buf[16];
  dispatch_any_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = value.to<T>();
    std::memcpy(buf, &v, sizeof(T));
  });
  iter.add_scalar_input(buf, x.dtype());
  iter.build();
  kernel_table(x.device().type).copy(iter);
  x.bump_version();
  return x;
}
}  // namespace

Tensor fill_(const Tensor& x, const Scalar& value) {
  profiler::RecordScope profile_scope("aten::fill_", x, value);
  return fill_recorded_as(x, value, "FillBackward2");
}

Tensor zero_(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::zero_", x);
  return fill_recorded_as(x, Scalar(int64_t{0}), "ZeroBackward0");
}

Tensor full(IntArrayRef sizes, const Scalar& value, DType dtype, Device device) {
  profiler::RecordScope profile_scope("aten::full", sizes, value, dtype, device);
  return fresh_result(fill_(empty(sizes, dtype, device), value));
}

Tensor to_device(const Tensor& x, Device device, std::optional<DType> dtype, bool copy, bool non_blocking) {
  profiler::RecordScope profile_scope("aten::to", x, device, dtype, copy, non_blocking);
  Device target = backend_for(device.type).resolve(device);
  DType d = dtype.value_or(x.dtype());
  if (target == x.device()) return to_dtype(x, d, copy);
  if (autograd::should_record(x)) {
    Tensor out = autograd::without_grad([&] { return to_device(x, device, dtype, copy, non_blocking); });
    return autograd::record_copy("ToCopyBackward0", x, out);
  }
  // As in PyTorch, a non_blocking copy to the host lands in pinned memory: only that can be written
  // asynchronously.
  Tensor out = non_blocking && target.is_cpu() ? empty_pinned(x.sizes(), d) : empty(x.sizes(), d, target);
  // Laid out as x (preserve_format): the same block of memory, its dims in x's order.
  if (DimVector strides = preserved_strides(x); !strides.empty())
    out.impl()->set_geometry(0, x.sizes(), std::move(strides));
  return fresh_result(copy_(out, x, non_blocking));
}

Scalar item(const Tensor& x) {
  TANDEM_CHECK(
      x.numel() == 1, Runtime, "a Tensor with ", x.numel(),
      " elements cannot be converted to Scalar\nhint: item() needs exactly one element; reduce first "
      "(e.g. x.sum().item()) or use x.tolist()");
  TANDEM_CHECK(
      !x.device().is_meta(), Runtime,
      "Tensor.item() cannot be called on meta tensors\nhint: a meta tensor has a shape and a dtype but "
      "no value; compute on a real device");
  alignas(16) char buf[16];  // the widest element: complex128
  if (x.device().is_cpu()) {
    std::memcpy(buf, x.data_ptr(), x.element_size());
  } else {
    CrossingSubject subject(x);
    copy_device_to_host(buf, x.data_ptr(), x.device(), x.element_size());
  }
  return dispatch_any_dtype(x.dtype(), [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    T v;
    std::memcpy(&v, buf, sizeof(T));
    return scalar_of(v);
  });
}

}  // namespace tandem
