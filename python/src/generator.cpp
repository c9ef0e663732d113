// Bindings of tandem.Generator, the seeding functions and the thread-count knobs (registered from
// init_random).
#include <nanobind/stl/string.h>

#include <cstring>

#include "bindings.h"
#include "core/error.h"
#include "core/float_mode.h"
#include "core/generator.h"
#include "core/parallel.h"
#include "ops/copy.h"

namespace tandem::py {

namespace {

// A Python int in [-2^63, 2^64) as a 64-bit seed (negative seeds wrap, as in PyTorch). A bool, float, str or
// tensor is refused with PyTorch's RuntimeError, a NumPy integer with its TypeError (tandem.manual_seed
// int()s its seed first, so it takes those).
uint64_t to_seed(nb::handle h) {
  const bool integer =
      !PyBool_Check(h.ptr()) && !is_tensor(h) && !PyFloat_Check(h.ptr()) && PyIndex_Check(h.ptr());
  TANDEM_CHECK(integer, Runtime, "manual_seed expected a long, but got ",
               is_tensor(h) ? "Tensor" : Py_TYPE(h.ptr())->tp_name, "\nhint: seeds are Python ints");
  TANDEM_CHECK(PyLong_Check(h.ptr()), Type, "an integer is required\nhint: pass int(seed)");
  nb::handle value = h;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow == 0) return static_cast<uint64_t>(v);
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(value.ptr());
    if (!PyErr_Occurred()) return u;
    PyErr_Clear();
  }
  TANDEM_THROW(Value, "Overflow when unpacking long long\nhint: seeds must lie in [-2^63, 2^64)");
}

Tensor state_tensor(const Generator& g) {
  Generator::State s = g.state();
  const int64_t size[1] = {static_cast<int64_t>(s.size())};
  Tensor t = empty(size, DType::UInt8, Device());
  std::memcpy(t.data_ptr(), s.data(), s.size());
  return t;
}

void set_state_from(Generator& g, nb::handle h) {
  TANDEM_CHECK(is_tensor(h), Type, "expected a torch.ByteTensor, but got ", Py_TYPE(h.ptr())->tp_name);
  TANDEM_CHECK(as_tensor_ref(h).dtype() == DType::UInt8, Type,
               "RNG state must be a torch.ByteTensor\nhint: pass the uint8 tensor get_state() returned");
  TANDEM_CHECK(
      as_tensor_ref(h).is_contiguous(), Runtime,
      "RNG state must be contiguous\nhint: pass the tensor get_state() returned, or .contiguous() of it");
  const Tensor& t = as_tensor_ref(h);
  TANDEM_CHECK(t.device().is_cpu(), Runtime, "RNG state must be a CPU tensor\nhint: move it with .cpu()");
  g.set_state(static_cast<const uint8_t*>(t.data_ptr()), static_cast<size_t>(t.numel()));
}

}  // namespace

void init_generator(nb::module_& m) {
  nb::class_<Generator>(m, "Generator")
      .def(
          "__init__",
          [](Generator* g, nb::args args, nb::kwargs kwargs) {
            // Generator(device=None), with the errors of PyTorch's own signature.
            TANDEM_CHECK(args.size() <= 1, Type, "Generator() takes from 0 to 1 positional arguments but ",
                         args.size(), " were given");
            nb::handle device = args.size() ? args[0] : nb::handle(Py_None);
            for (auto [key, value] : kwargs) {
              const std::string name = nb::cast<std::string>(key);
              TANDEM_CHECK(name == "device", Type, "Generator() got an unexpected keyword argument '", name,
                           "'");
              TANDEM_CHECK(args.size() == 0, Type, "Generator() got multiple values for argument 'device'");
              device = value;
            }
            // PyTorch's parser takes a device, a str (or UTF-8 bytes) or an int (an ordinal) here.
            TANDEM_CHECK(device.is_none() || PyUnicode_Check(device.ptr()) || PyBytes_Check(device.ptr()) ||
                             PyLong_Check(device.ptr()) ||
                             nb::isinstance(device, nb::module_::import_("tandem._C").attr("device")),
                         Type, "Generator(): argument 'device' must be torch.device, not ",
                         Py_TYPE(device.ptr())->tp_name);
            new (g) Generator(device.is_none() ? Device() : to_device(device));
          })
      .def_prop_ro("device", [](const Generator& g) { return device_object(g.device()); })
      .def(
          "manual_seed",
          [](Generator& g, nb::handle seed) -> Generator& {
            g.manual_seed(to_seed(seed));
            return g;
          },
          nb::arg("seed").none(), nb::rv_policy::reference)
      .def("seed", &Generator::seed)
      .def("initial_seed", &Generator::initial_seed)
      .def("get_state", &state_tensor)
      .def(
          "set_state", [](Generator& g, nb::handle state) { set_state_from(g, state); },
          nb::arg("new_state").none())
      .def("__repr__",
           [](const Generator& g) { return "<tandem.Generator device='" + g.device().str() + "'>"; });

  m.attr("default_generator") = nb::cast(&default_generator(Device()), nb::rv_policy::reference);
  // The default generator of a CUDA ordinal (tandem.cuda.get_rng_state and friends; the Python side resolves
  // "cuda" to the current device and checks the ordinal against the device count).
  m.def(
      "_cuda_default_generator",
      [](int index) -> Generator& { return default_generator(Device(DeviceType::CUDA, int16_t(index))); },
      nb::arg("index"), nb::rv_policy::reference);
  m.def(
      "manual_seed", [](nb::handle seed) -> Generator& { return manual_seed_all(to_seed(seed)); },
      nb::arg("seed").none(), nb::rv_policy::reference);
  m.def("seed", [] {
    uint64_t s = default_generator(Device()).seed();
    manual_seed_all(s);
    return s;
  });
  m.def("initial_seed", [] { return default_generator(Device()).initial_seed(); });
  m.def("get_rng_state", [] { return state_tensor(default_generator(Device())); });
  m.def(
      "set_rng_state", [](nb::handle state) { set_state_from(default_generator(Device()), state); },
      nb::arg("new_state").none());

  m.def(
      "_set_flush_denormal", [](bool on) { return set_flush_denormal(on); }, nb::arg("mode"));
  m.def("get_num_threads", [] { return get_num_threads(); });
  m.def(
      "set_num_threads",
      [](int n) {
        TANDEM_CHECK(n > 0, Runtime, "set_num_threads expects a positive integer\nhint: pass 1 or more");
        set_num_threads(n);
      },
      nb::arg("num"));
}

}  // namespace tandem::py
