// tandem._C bindings of the device layer: Tensor.to/.cpu/.cuda and the primitives behind tandem.cuda.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "backend/accelerator.h"
#include "backend/crossing.h"
#include "backend/math_flags.h"
#include "backend/transfer.h"
#include "bindings.h"
#include "core/error.h"
#include "kernels/startup.h"
#include "layouts.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/pinned.h"

namespace tandem::py {

void init_allocation_sites(nb::module_& m);  // allocation_sites.cpp

namespace {

// PyTorch's TypeError for a to() call that matches none of its three forms, naming what was passed as its
// parser does (invalid_arguments.cpp): the keywords last-first, each followed by ", " when there are no
// positionals. The first form (six entries, its "*" counted) is explained when six arguments were given; as
// its parameters all have defaults, which that code takes for their names and types, every keyword is
// "incorrect" and every argument mismatched.
[[noreturn]] void invalid_to_call(const nb::args& args, const nb::kwargs& kwargs) {
  std::vector<std::string> positionals, keywords;
  for (nb::handle a : args) positionals.push_back(parser_type_name(a));
  for (auto [k, v] : kwargs)
    keywords.insert(keywords.begin(), nb::cast<std::string>(k) + "=" + parser_type_name(v));
  auto listed = [&](const std::vector<std::string>& p, const std::vector<std::string>& k, const char* mark) {
    std::string text;
    for (const std::string& t : p) text += (text.empty() ? "" : ", ") + (mark + t + mark);
    for (const std::string& t : k) text += p.empty() ? mark + t + mark + ", " : ", " + (mark + t + mark);
    return text;
  };
  std::string first_form_reason;
  if (args.size() + kwargs.size() == 6) {
    if (kwargs.size() == 0) {
      first_form_reason = "      didn't match because some of the arguments have invalid types: (" +
                          listed(positionals, {}, "!") + ")\n";
    } else {
      std::string names;
      for (auto it = kwargs.begin(); it != kwargs.end(); ++it)
        names.insert(0, nb::cast<std::string>((*it).first) + (names.empty() ? "" : ", "));
      first_form_reason = "      didn't match because some of the keywords were incorrect: " + names + "\n";
    }
  }
  TANDEM_THROW(Type, "to() received an invalid combination of arguments - got (",
               listed(positionals, keywords, ""),
               "), but expected one of:\n * (torch.device device = None, torch.dtype dtype = None, bool "
               "non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n",
               first_form_reason,
               " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format "
               "memory_format = None)\n * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
               "torch.memory_format memory_format = None)\n");
}

bool is_device_like(nb::handle h) {
  return nb::isinstance<PyDevice>(h) || nb::isinstance<nb::str>(h) ||
         (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr()));
}

// PyTorch's errors for a to() call of five arguments, read as its first form (device=None, dtype=None,
// non_blocking=False, copy=False, *, memory_format=None): too many positionals, an argument of the wrong type
// (with its position when given positionally), a keyword repeating a positional or unknown. Returns when the
// call is a valid one of that form.
void check_first_form(const nb::args& args, const nb::kwargs& kwargs) {
  const size_t n = args.size();
  if (n > 4) TANDEM_THROW(Type, "to() takes from 0 to 4 positional arguments but ", n, " were given");
  struct Param {
    const char* name;
    const char* type;
    bool (*fits)(nb::handle);
  };
  static const Param params[] = {
      {"device", "torch.device", [](nb::handle h) { return h.is_none() || is_device_like(h); }},
      {"dtype", "torch.dtype", [](nb::handle h) { return h.is_none() || is_dtype_like(h); }},
      {"non_blocking", "bool", [](nb::handle h) { return PyBool_Check(h.ptr()) != 0; }},
      {"copy", "bool", [](nb::handle h) { return PyBool_Check(h.ptr()) != 0; }},
      {"memory_format", "torch.memory_format",
       [](nb::handle h) { return h.is_none() || parser_type_name(h) == "torch.memory_format"; }}};
  for (size_t i = 0; i < std::size(params); ++i) {
    const Param& p = params[i];
    const bool positional = i < n && i < 4;  // memory_format is keyword-only
    if (!positional && !kwargs.contains(p.name)) continue;
    nb::object v = positional ? nb::borrow(args[i]) : nb::object(kwargs[p.name]);
    if (!p.fits(v)) {
      const std::string where = positional ? " (position " + std::to_string(i + 1) + ")" : "";
      TANDEM_THROW(Type, "to(): argument '", p.name, "'", where, " must be ", p.type, ", not ",
                   parser_type_name(v));
    }
  }
  for (auto [k, v] : kwargs) {
    const std::string key = nb::cast<std::string>(k);
    size_t i = 0;
    while (i < std::size(params) && key != params[i].name) ++i;
    if (i == std::size(params)) TANDEM_THROW(Type, "to() got an unexpected keyword argument '", key, "'");
    if (i < n) TANDEM_THROW(Type, "to() got multiple values for argument '", key, "'");
  }
}

// Tensor.to(...) in PyTorch's three forms: to(device=None, dtype=None, non_blocking=False, copy=False),
// to(dtype, non_blocking=False, copy=False) and to(other, non_blocking=False, copy=False), each with a
// keyword-only memory_format. A Python float, bool or complex stands for a 0-dim CPU tensor of its type (the
// third form, as PyTorch's parser reads it). Anything else is PyTorch's "invalid combination" TypeError.
nb::object tensor_to(nb::handle self, nb::args args, nb::kwargs kwargs) {
  const Tensor& x = self_tensor(self, "to");
  std::optional<Device> device;
  std::optional<DType> dtype;
  bool copy = false, non_blocking = false;
  nb::handle memory_format = nb::none();
  const size_t n = args.size();
  // Five arguments fit the first form alone, which PyTorch's parser then reads for its specific errors; six
  // or more fit none.
  if (n + kwargs.size() == 5) check_first_form(args, kwargs);
  if (n + kwargs.size() > 5) invalid_to_call(args, kwargs);
  bool device_form = true;  // the first form (its keywords device= and dtype= are allowed)
  size_t flags_from = 0;    // where the positional non_blocking and copy start
  // The third form with its tensor named: x.to(tensor=y)
  const bool tensor_keyword = n == 0 && kwargs.contains("tensor");
  if (tensor_keyword) {
    nb::object other = kwargs["tensor"];
    if (!is_tensor(other)) invalid_to_call(args, kwargs);
    device = as_tensor_ref(other).device();
    dtype = as_tensor_ref(other).dtype();
    device_form = false;
  }
  if (n > 0) {
    nb::handle a = args[0];
    PyObject* p = a.ptr();
    if (is_dtype_like(a)) {
      dtype = to_dtype(a);
    } else if (is_tensor(a)) {
      device = as_tensor_ref(a).device();
      dtype = as_tensor_ref(a).dtype();
    } else if (PyFloat_Check(p) || PyBool_Check(p) || PyComplex_Check(p)) {
      device = Device(DeviceType::CPU, 0);
      dtype = PyBool_Check(p) ? DType::Bool : PyFloat_Check(p) ? DType::Float64 : DType::Complex128;
    } else if (a.is_none() || is_device_like(a)) {
      if (!a.is_none()) device = to_device(a);
      if (n > 1 && !args[1].is_none()) {
        if (!is_dtype_like(args[1])) invalid_to_call(args, kwargs);
        dtype = to_dtype(args[1]);
      }
      flags_from = 2;
    } else {
      invalid_to_call(args, kwargs);
    }
    if (flags_from == 0) {
      device_form = false;
      flags_from = 1;
      if (n > 3) invalid_to_call(args, kwargs);
    }
    for (size_t i = flags_from; i < n; ++i) {
      if (!PyBool_Check(args[i].ptr())) invalid_to_call(args, kwargs);
      (i == flags_from ? non_blocking : copy) = args[i].ptr() == Py_True;
    }
  }
  for (auto [k, v] : kwargs) {
    const std::string key = nb::cast<std::string>(k);
    const bool positional_too = (key == "non_blocking" && n > flags_from) ||
                                (key == "copy" && n > flags_from + 1) || (key == "device" && n > 0) ||
                                (key == "dtype" && n > 1);
    if (positional_too) invalid_to_call(args, kwargs);
    if ((key == "dtype" || key == "device") && !device_form) invalid_to_call(args, kwargs);
    if (key == "tensor" && tensor_keyword) continue;
    if (key == "dtype" && (v.is_none() || is_dtype_like(v)))
      dtype = to_optional_dtype(v);
    else if (key == "device" && (v.is_none() || is_device_like(v)))
      device = to_optional_device(v);
    else if ((key == "copy" || key == "non_blocking") && PyBool_Check(v.ptr()))
      (key == "copy" ? copy : non_blocking) = v.ptr() == Py_True;
    else if (key == "memory_format" && (v.is_none() || parser_type_name(v) == "torch.memory_format"))
      memory_format = v;
    else
      invalid_to_call(args, kwargs);
  }
  Device target = device.value_or(x.device());
  CrossingScope scope(".to()", true, !(x.device().is_cpu() && target.is_cpu()));
  Tensor out;
  if (dtype && is_complex(x.dtype()) && !is_complex(*dtype)) {  // the cast first, on x's device
    warn_if_discarding_imag(x.dtype(), *dtype);
    out = to_device(cast_discarding_imag(x, *dtype), target, std::nullopt, false, non_blocking);
  } else {
    out = to_device(x, target, dtype, copy, non_blocking);
  }
  // PyTorch returns the very same object when nothing changes.
  nb::object result = out.is_same(x) ? nb::borrow(self) : wrap(std::move(out));
  if (memory_format.is_none()) return result;
  return layouts("to")(self, result,
                       memory_format);  // the layout memory_format asks for (tandem/_layouts.py)
}

nb::dict stats_dict(const DeviceMemoryStats& s) {
  nb::dict d;
  d["allocated_bytes.all.current"] = s.allocated;
  d["allocated_bytes.all.peak"] = s.max_allocated;
  d["reserved_bytes.all.current"] = s.reserved;
  d["reserved_bytes.all.peak"] = s.max_reserved;
  d["num_alloc_retries"] = s.alloc_retries;
  d["num_ooms"] = s.ooms;
  d["allocation.all.allocated"] = s.allocations;
  d["allocation.all.freed"] = s.frees;
  d["total_bytes"] = s.total;
  return d;
}

int device_index(nb::handle h) {
  if (h.is_none()) return cuda_backend().current_device();
  Device d = to_device(h);
  TANDEM_CHECK(d.is_cuda(), Value, "Expected a cuda device, but got: ", d.str());
  return cuda_backend().resolve(d).index;
}

// Tensor.record_stream(stream). The caching allocator reuses freed memory on the stream it was allocated
// for; work that another stream still has queued on it must be declared, as in PyTorch.
void record_stream(const Tensor& t, nb::handle stream) {
  TANDEM_CHECK(
      !t.device().is_cpu(), NotImplemented,
      "Could not run 'aten::record_stream' with arguments from the 'CPU' backend.\n"
      "hint: record_stream only applies to cuda tensors (streams order GPU work); guard the call with "
      "`if t.is_cuda:`");
  TANDEM_CHECK(nb::hasattr(stream, "stream_id") && nb::hasattr(stream, "device_index"), Type,
               "record_stream(): argument 'stream' must be tandem.cuda.Stream, not ",
               nb::inst_name(stream).c_str(),
               "\nhint: pass a tandem stream, e.g. tandem.cuda.current_stream()");
  int device = nb::cast<int>(stream.attr("device_index"));
  auto id = nb::cast<StreamId>(stream.attr("stream_id"));
  TANDEM_CHECK(device == t.device().index, Runtime, "record_stream(): the stream is on cuda:", device,
               " but the tensor is on ", t.device().str(),
               "\nhint: pass a stream of the tensor's device, e.g. tandem.cuda.current_stream(t.device)");
  if (!t.storage()->owner().ptr) return;  // an empty tensor has no memory to protect
  TANDEM_CHECK(
      cuda_backend().record_stream(t.storage()->owner(), device, id), Runtime,
      "record_stream(): this tensor's memory was not allocated by tandem (it was imported, e.g. through "
      "DLPack or __cuda_array_interface__), so tandem cannot delay its reuse\n"
      "hint: call record_stream on the producer's tensor, which owns the memory");
}

}  // namespace

void init_cuda(nb::module_& m) {
  init_allocation_sites(m);
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
  tensor.def("to", &tensor_to,
             "Returns the tensor on another device and/or dtype (itself if nothing changes).");
  tensor.def(
      "cpu",
      [](nb::handle self, bool non_blocking) -> nb::object {
        const Tensor& x = self_tensor(self, "cpu");
        if (x.device().is_cpu()) return nb::borrow(self);
        CrossingScope scope(".cpu()", true);
        return wrap(to_device(x, Device(), std::nullopt, false, non_blocking));
      },
      nb::arg("non_blocking") = false,
      "A copy in host memory (the tensor itself when it already is on the CPU). With non_blocking=True the "
      "copy lands in pinned memory and returns at once; reading the result waits for the copy.");
  tensor.def(
      "cuda",
      [](nb::handle self, nb::handle device, bool non_blocking) -> nb::object {
        const Tensor& x = self_tensor(self, "cuda");
        Device target = device.is_none() ? Device(DeviceType::CUDA) : to_device(device);
        TANDEM_CHECK(target.is_cuda(), Value, "Invalid device, must be cuda device");
        CrossingScope scope(".cuda()", true);
        Tensor out = to_device(x, target, std::nullopt, false, non_blocking);
        if (out.is_same(x)) return nb::borrow(self);
        return wrap(std::move(out));
      },
      nb::arg("device").none() = nb::none(), nb::arg("non_blocking") = false);
  tensor.def(
      "pin_memory",
      [](nb::handle self) -> nb::object {
        const Tensor& x = self_tensor(self, "pin_memory");
        Tensor out = pin_memory(x);
        if (out.is_same(x)) return nb::borrow(self);
        return wrap(std::move(out));
      },
      "A copy in pinned (page-locked) host memory, or the tensor itself when it already is pinned.");
  tensor.def(
      "is_pinned", [](const Tensor& t) { return is_pinned(t); }, "Whether the tensor is in pinned memory.");
  tensor.def("get_device", [](const Tensor& t) { return t.device().is_cpu() ? -1 : t.device().index; });
  tensor.def(
      "record_stream", &record_stream, nb::arg("stream").none(),
      "Marks the tensor's memory as used by work on `stream` (a stream other than the one it was allocated "
      "on): once freed, the memory is not reused before the work queued on `stream` by then has run.");

  m.def("_cuda_is_available", [] { return cuda_available(); });
  m.def("_cuda_device_count", [] { return cuda_available() ? cuda_backend().device_count() : 0; });
  m.def("_cuda_current_device", [] { return cuda_backend().current_device(); });
  m.def(
      "_cuda_set_device", [](nb::handle d) { cuda_backend().set_current_device(device_index(d)); },
      nb::arg("device").none());
  m.def("_cuda_device_index", &device_index, nb::arg("device").none());
  m.def(
      "_cuda_properties",
      [](nb::handle d) {
        DeviceProperties p = cuda_backend().properties(device_index(d));
        nb::dict out;
        out["name"] = p.name;
        out["total_memory"] = p.total_memory;
        out["major"] = p.major;
        out["minor"] = p.minor;
        out["multi_processor_count"] = p.multi_processor_count;
        out["is_emulated"] = p.emulated;
        return out;
      },
      nb::arg("device").none());
  m.def(
      "_cuda_synchronize",
      [](nb::handle d) {
        CrossingScope scope("tandem.cuda.synchronize()", true);
        synchronize_device(Device(DeviceType::CUDA, static_cast<int16_t>(device_index(d))));
      },
      nb::arg("device").none());
  m.def(
      "_cuda_memory_stats",
      [](nb::handle d) { return stats_dict(cuda_backend().memory_stats(device_index(d))); },
      nb::arg("device").none());
  m.def(
      "_cuda_reset_peak_memory_stats",
      [](nb::handle d) { cuda_backend().reset_peak_memory_stats(device_index(d)); },
      nb::arg("device").none());
  m.def(
      "_cuda_largest_live_allocations",
      [](nb::handle d, size_t n) { return cuda_backend().largest_live_allocations(device_index(d), n); },
      nb::arg("device").none(), nb::arg("count"));
  m.def(
      "_cuda_mem_get_info",
      [](nb::handle d) {
        auto [free, total] = cuda_backend().mem_get_info(device_index(d));
        return nb::make_tuple(free, total);
      },
      nb::arg("device").none());
  m.def("_cuda_empty_cache", [] {
    if (cuda_available()) cuda_backend().empty_cache();
  });
  m.def(
      "_cuda_create_stream", [](nb::handle d) { return cuda_backend().create_stream(device_index(d)); },
      nb::arg("device").none());
  m.def(
      "_cuda_current_stream", [](nb::handle d) { return cuda_backend().current_stream(device_index(d)); },
      nb::arg("device").none());
  m.def("_cuda_set_stream", [](int device, StreamId s) { cuda_backend().set_current_stream(device, s); });
  m.def("_cuda_synchronize_stream", [](int device, StreamId s) {
    CrossingScope scope("Stream.synchronize()", true);
    synchronize_stream(Device(DeviceType::CUDA, static_cast<int16_t>(device)), s);
  });
  m.def("_cuda_query_stream", [](int device, StreamId s) { return cuda_backend().query_stream(device, s); });
  m.def("_cuda_create_event", [](bool timing) { return cuda_backend().create_event(timing); });
  m.def("_cuda_destroy_event", [](EventId e) {
    if (cuda_available()) cuda_backend().destroy_event(e);
  });
  m.def("_cuda_record_event",
        [](EventId e, int device, StreamId s) { cuda_backend().record_event(e, device, s); });
  m.def("_cuda_wait_event",
        [](EventId e, int device, StreamId s) { cuda_backend().wait_event(e, device, s); });
  m.def("_cuda_synchronize_event", [](EventId e, int device) {
    CrossingScope scope("Event.synchronize()", true);
    synchronize_event(Device(DeviceType::CUDA, static_cast<int16_t>(device)), e);
  });
  m.def("_cuda_query_event", [](EventId e) { return cuda_backend().query_event(e); });
  m.def("_cuda_elapsed_ms", [](EventId a, EventId b) { return cuda_backend().elapsed_ms(a, b); });
  m.def("_cuda_is_built", [] { return cuda_backend_built(); });
#ifdef TANDEM_CUDA_VERSION
  m.attr("_cuda_version") = TANDEM_CUDA_VERSION;  // the toolkit it was built with (CMakeLists.txt)
#else
  m.attr("_cuda_version") = nb::none();
#endif
#ifdef TANDEM_CUDA_ARCHITECTURES
  m.attr("_cuda_architectures") = TANDEM_CUDA_ARCHITECTURES;  // CMAKE_CUDA_ARCHITECTURES, space-separated
#else
  m.attr("_cuda_architectures") = nb::none();
#endif
  m.def("_get_allow_tf32", [] { return allow_tf32(); });
  m.def("_set_allow_tf32", [](bool allow) { set_allow_tf32(allow); });
  m.def("_cuda_sleep", [](double ms) {
    AcceleratorBackend& b = cuda_backend();
    int device = b.current_device();
    b.delay_stream(device, b.current_stream(device), ms);
  });
  m.def("_cuda_missing_reason", []() -> std::string {
    try {
      cuda_backend();
      return "";
    } catch (const Error& e) {
      return e.what();
    }
  });
  m.def("_transfer_stats", [] {
    TransferStats s = transfer_stats();
    nb::dict d;
    d["host_to_device_copies"] = s.host_to_device_copies;
    d["host_to_device_bytes"] = s.host_to_device_bytes;
    d["device_to_host_copies"] = s.device_to_host_copies;
    d["device_to_host_bytes"] = s.device_to_host_bytes;
    d["device_to_device_copies"] = s.device_to_device_copies;
    d["device_to_device_bytes"] = s.device_to_device_bytes;
    d["synchronizations"] = s.synchronizations;
    d["non_blocking_copies"] = s.non_blocking_copies;
    return d;
  });
  m.def("_reset_transfer_stats", &reset_transfer_stats);
}

}  // namespace tandem::py
