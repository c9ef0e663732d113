// The dtype=/device=/requires_grad= keywords shared by the range and random factories.
#pragma once
#include "bindings.h"
#include "core/error.h"
#include "ops/out_arg.h"
#include "ops/pinned.h"

namespace tandem::py {

// The device factories use when none is given: cpu unless tandem.set_default_device or `with
// tandem.device(...)` changed it for this thread (PyTorch keeps it per thread too). Defined in
// dtype_device.cpp.
Device& default_factory_device();
inline Device device_or_default(nb::handle device) {
  return device.is_none() ? default_factory_device() : to_device(device);
}

inline void check_requires_grad(bool requires_grad, DType dtype) {
  TANDEM_CHECK(
      !requires_grad || is_floating(dtype) || is_complex(dtype), Runtime,
      "Only Tensors of floating point and complex dtype can require gradients\nhint: pass a floating "
      "dtype such as tandem.float32, or drop requires_grad=True");
}

// pin_memory=True is for CPU tensors only, as in PyTorch.
inline void check_pinnable(Device device) {
  TANDEM_CHECK(device.is_cpu(), Runtime,
               "Only dense CPU tensors can be pinned\nhint: drop pin_memory=True for a ",
               "tensor made directly on ", device.str());
}

// A fresh factory result in pinned host memory when pin_memory=True (every factory takes the keyword).
inline Tensor pinned_if(Tensor t, bool pin_memory) {
  if (!pin_memory) return t;
  check_pinnable(t.device());
  return tandem::pin_memory(t);
}

// Marks a fresh factory result as a leaf that requires grad.
inline Tensor with_requires_grad(Tensor t, bool requires_grad) {
  check_requires_grad(requires_grad, t.dtype());
  if (requires_grad) t.impl()->ensure_autograd().requires_grad = true;
  return t;
}

// A factory's out=: as in PyTorch the values are made in out's dtype and on out's device; a dtype= or a
// device type that differs from out's is refused (PyTorch's messages); into_out then writes the values into
// out. PyTorch's factories refuse an out that requires grad before making anything, naming the ATen op
// ("aten::zeros(): functions with out=...").
inline void check_factory_out(const char* aten_op, nb::handle out) {
  if (is_tensor(out)) check_out_autograd(aten_op, as_tensor_ref(out), {});
}
// A factory's dtype= (not None): a NumPy dtype or a string is PyTorch's parser error naming the function
// ("zeros(): argument 'dtype' must be torch.dtype, not type"). Defined in dtype_device.cpp.
DType dtype_arg(nb::handle h, const char* fn);

inline nb::object dtype_or_out(nb::handle dtype, nb::handle out) {
  if (!is_tensor(out)) return nb::borrow(dtype);
  const DType given = as_tensor_ref(out).dtype();
  if (dtype.is_none()) return dtype_object(given);
  const DType asked = to_dtype(dtype);
  TANDEM_CHECK(asked == given, Runtime, "dtype ", dtype_title(asked),
               " does not match dtype of out parameter (", dtype_title(given),
               ")\nhint: leave dtype= away (the values are made in out's dtype)");
  return nb::borrow(dtype);
}
inline nb::object device_or_out(nb::handle device, nb::handle out) {
  if (!is_tensor(out)) return nb::borrow(device);
  const Device given = as_tensor_ref(out).device();
  if (device.is_none()) return device_object(given);
  const Device asked = to_device(device);
  TANDEM_CHECK(asked.type == given.type, Runtime, "device type ", device_type_name(asked.type),
               " does not match device type of out parameter (", device_type_name(given.type),
               ")\nhint: leave device= away (the values are made on out's device)");
  return nb::borrow(device);
}

// The keywords a *_like factory passes on when tandem/_layouts.py lays its result out (layouts.h).
inline nb::dict like_kwargs(nb::handle dtype, nb::handle device, bool requires_grad,
                            bool pin_memory = false) {
  nb::dict kwargs;
  kwargs["dtype"] = dtype;
  kwargs["device"] = device;
  kwargs["requires_grad"] = requires_grad;
  if (pin_memory) kwargs["pin_memory"] = true;
  return kwargs;
}

}  // namespace tandem::py
