// Autocast state (tandem.is_autocast_enabled & co, what tandem.autocast sets on entry and exit) and the casts
// that the Python compositions among PyTorch's listed ops (linear, layer_norm, the losses, ...) make on
// entry, with autocast suspended inside them.
#include "ops/autocast.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "core/error.h"

namespace tandem::py {

namespace {

DeviceType device_type(const std::string& name) { return parse_device(name).type; }

// The rules the Python compositions use, by name (ops/autocast.h).
autocast::Rule rule_named(const std::string& name) {
  if (name == "lower") return autocast::kLower;
  if (name == "cuda_lower") return autocast::kCudaLower;
  if (name == "fp32") return autocast::kFp32;
  if (name == "cuda_fp32") return autocast::kCudaFp32;
  if (name == "promote") return autocast::kPromote;
  if (name == "cuda_promote") return autocast::kCudaPromote;
  if (name == "cpu_fp32") return autocast::kCpuFp32;
  if (name == "bce") return autocast::kBce;
  if (name == "none") return autocast::kNone;
  TANDEM_THROW(Value, "unknown autocast rule '", name, "'");
}

}  // namespace

void init_autocast(nb::module_& m) {
  m.def("_autocast_active", &autocast::is_active);
  m.def("_set_autocast_suspended", &autocast::set_suspended, nb::arg("suspended"));
  m.def(
      "is_autocast_enabled",
      [](std::optional<std::string> type) {
        return autocast::is_enabled(type ? device_type(*type) : DeviceType::CUDA);
      },
      nb::arg("device_type") = nb::none());
  m.def("set_autocast_enabled", [](bool on) { autocast::set_enabled(DeviceType::CUDA, on); });
  m.def("set_autocast_enabled",
        [](const std::string& type, bool on) { autocast::set_enabled(device_type(type), on); });
  m.def("get_autocast_dtype",
        [](const std::string& type) { return dtype_object(autocast::get_dtype(device_type(type))); });
  m.def("set_autocast_dtype", [](const std::string& type, nb::handle dtype) {
    autocast::set_dtype(device_type(type), to_dtype(dtype));
  });
  m.def("is_autocast_cache_enabled", &autocast::is_cache_enabled);
  m.def("set_autocast_cache_enabled", &autocast::set_cache_enabled);
  m.def("autocast_increment_nesting", &autocast::increment_nesting);
  m.def("autocast_decrement_nesting", &autocast::decrement_nesting);
  m.def("clear_autocast_cache", &autocast::clear_cache);
  m.def("_is_autocast_available", [](const std::string& type) {
    return type == "cpu" || type == "cuda";  // the device types tandem has
  });
  // (rule, fn, *args, **kwargs) -> fn(*args, **kwargs) with the tensor arguments cast as the listed op `rule`
  // names would cast them and autocast suspended while fn runs: what autocast::run does for the C++ ops, for
  // the Python compositions (their inner ops then keep the dtypes the rule chose, as in PyTorch, where each
  // is one op). Rule "none" only suspends: for compositions that are one op outside PyTorch's lists.
  m.def("_autocast_run", [](const std::string& rule, nb::callable fn, nb::args args, nb::kwargs kwargs) {
    std::vector<nb::handle> handles;
    for (nb::handle a : args) handles.push_back(a);
    for (auto [k, v] : kwargs) handles.push_back(v);
    std::vector<const Tensor*> present;
    for (nb::handle h : handles)
      if (is_tensor(h)) present.push_back(&as_tensor_ref(h));
    const autocast::Decision d = autocast::decide(rule_named(rule), present);
    // The cast of a tensor argument; the argument itself (a Parameter stays one) when the rule keeps it.
    auto cast_arg = [&](nb::handle h) -> nb::object {
      if (!is_tensor(h)) return nb::borrow(h);
      const Tensor& t = as_tensor_ref(h);
      Tensor cast = autocast::cast(d, t);
      return cast.is_same(t) ? nb::borrow(h) : wrap(std::move(cast));
    };
    nb::list cast_args;
    for (nb::handle a : args) cast_args.append(cast_arg(a));
    nb::dict cast_kwargs;
    for (auto [k, v] : kwargs) cast_kwargs[k] = cast_arg(v);
    autocast::SuspendGuard suspended;
    return fn(*nb::tuple(cast_args), **cast_kwargs);
  });
}

}  // namespace tandem::py
