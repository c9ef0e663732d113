// Turns a CPU kernel slot into an asynchronous one for the emulated device: the call's arguments are copied
// into a task (tensors by handle, iterators by value) and the task runs on the device's current stream.
#pragma once
#include <optional>
#include <tuple>
#include <type_traits>

#include "backend/emulated/emulated_backend.h"
#include "backend/emulated/register_emulated.h"
#include "backend/transfer.h"
#include "core/profiler.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "kernels/index_kernels.h"
#include "kernels/linalg_kernels.h"
#include "kernels/tensor_iterator.h"

namespace tandem::emulated {

// Hold<Arg>: how an argument of a kernel slot is kept inside a queued task, and given back to the kernel.
// Values and const references to plain structs are copied; tensors are kept by handle.
template <typename Arg>
struct Hold {
  using type = std::remove_cvref_t<Arg>;
  static_assert(!std::is_pointer_v<type> && std::is_copy_constructible_v<type>,
                "add a Hold<> specialisation for this kernel argument type");
  static const type& keep(const type& a) { return a; }
  static type& use(type& a) { return a; }
};
template <>
struct Hold<const Tensor&> {
  using type = Tensor;
  static Tensor keep(const Tensor& t) { return t; }
  static const Tensor& use(const Tensor& t) { return t; }
};
template <>
struct Hold<TensorIterator&> {
  using type = TensorIterator;
  static const TensorIterator& keep(TensorIterator& it) { return it; }
  static TensorIterator& use(TensorIterator& it) { return it; }
};
template <>
struct Hold<const Scalar*> {
  using type = std::optional<Scalar>;
  static std::optional<Scalar> keep(const Scalar* s) { return s ? std::optional<Scalar>(*s) : std::nullopt; }
  static const Scalar* use(const std::optional<Scalar>& s) { return s ? &*s : nullptr; }
};
template <>
struct Hold<IntArrayRef> {
  using type = DimVector;
  static DimVector keep(IntArrayRef a) { return DimVector(a); }
  static IntArrayRef use(const DimVector& v) { return v; }
};

// The device a call runs on: that of its first tensor or iterator argument.
// (An undefined tensor marks an output the caller does not want.)
inline std::optional<Device> device_of_arg(const Tensor& t) {
  return t.defined() ? std::optional<Device>(t.device()) : std::nullopt;
}
inline std::optional<Device> device_of_arg(const TensorIterator& it) { return it.device(); }
inline std::optional<Device> device_of_arg(const GemmArgs& g) { return g.device; }
inline std::optional<Device> device_of_arg(const IndexPlan& p) { return p.device; }
template <typename T>
std::optional<Device> device_of_arg(const T&) {
  return std::nullopt;
}
template <typename... Args>
Device device_of(const Args&... args) {
  std::optional<Device> found;
  ((found = found ? found : device_of_arg(args)), ...);
  return *found;
}

// AsyncSlot<Fn>::call<Get> has the slot's signature; Get::fn() returns the CPU kernel to run, Get::name() the
// kernel's name for the profiler. Slots that
// return a value (a status the front end checks) run synchronously: the host needs the answer now. Those
// reads go through read_results_on_host, so they are device->host crossings as on a real device.
template <typename Fn>
struct AsyncSlot;
template <typename R, typename... Args>
struct AsyncSlot<R (*)(Args...)> {
  template <typename Get>
  static R call(Args... args) {
    auto fn = Get::fn();
    R result{};
    Device device = device_of(args...);
    profiler::KernelLaunch launch =
        profiler::recording() ? profiler::kernel_launch() : profiler::KernelLaunch{};
    read_results_on_host(device, sizeof(R), [&] {
      emulated_backend().run_and_wait(device, [&] {
        profiler::Range range(launch.session ? profiler::begin_kernel(Get::name(), device, launch)
                                             : profiler::Token{});
        result = fn(args...);
      });
    });
    return result;
  }
};
// Raw pointers other than optional scalars are results the host reads right after the call.
template <typename Arg>
constexpr bool is_out_pointer_v = std::is_pointer_v<Arg> && !std::is_same_v<Arg, const Scalar*>;
template <typename Arg>
constexpr size_t out_bytes_v = is_out_pointer_v<Arg> ? sizeof(std::remove_pointer_t<Arg>) : 0;

template <typename... Args>
struct AsyncSlot<void (*)(Args...)> {
  template <typename Get>
  static void call(Args... args) {
    auto fn = Get::fn();
    Device device = device_of(args...);
    if constexpr ((is_out_pointer_v<Args> || ...)) {
      profiler::KernelLaunch launch =
          profiler::recording() ? profiler::kernel_launch() : profiler::KernelLaunch{};
      read_results_on_host(device, (out_bytes_v<Args> + ...), [&] {
        emulated_backend().run_and_wait(device, [&] {
          profiler::Range range(launch.session ? profiler::begin_kernel(Get::name(), device, launch)
                                               : profiler::Token{});
          fn(args...);
        });
      });
    } else {
      auto held = std::make_tuple(typename Hold<Args>::type(Hold<Args>::keep(args))...);
      auto task = [fn, held]() mutable { std::apply([&](auto&... h) { fn(Hold<Args>::use(h)...); }, held); };
      if (profiler::recording()) [[unlikely]] {
        // The profiler times the kernel on the device's worker, linked to the op that queued it.
        emulated_backend().enqueue(device, [task, device, launch = profiler::kernel_launch()]() mutable {
          profiler::Range range(profiler::begin_kernel(Get::name(), device, launch));
          task();
        });
        return;
      }
      emulated_backend().enqueue(device, std::move(task));
    }
  }
};

}  // namespace tandem::emulated
