// DLPack: Tensor.__dlpack__ / __dlpack_device__ export a zero-copy capsule (versioned "dltensor_versioned"
// when the consumer asks for max_version >= (1, 0), legacy "dltensor" otherwise), and _from_dlpack_capsule
// imports one. Capsule protocol: the consumer renames the capsule to "used_..." and owns the managed tensor
// from then on; an unconsumed capsule frees it in its destructor. So the deleter runs exactly once either
// way. CUDA memory crosses only with a real CUDA backend (an emulated device's memory is host memory); the
// stream handshake makes the consumer's stream wait for the work tandem queued on the tensor.
#include "core/dlpack.h"
#include "backend/accelerator.h"
#include "bindings.h"
#include "core/error.h"
#include "ops/copy.h"
#include "ops/dlpack.h"

namespace tandem::py {

namespace {

using namespace tandem::dlpack;

constexpr const char* kLegacyName = "dltensor";
constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kUsedLegacyName = "used_dltensor";
constexpr const char* kUsedVersionedName = "used_dltensor_versioned";

DLDevice dl_device_of(Device d) {
  if (d.is_meta()) throw nb::value_error("Unknown device type meta for Dlpack");
  return d.is_cpu() ? DLDevice{kDLCPU, 0} : DLDevice{kDLCUDA, d.index < 0 ? 0 : d.index};
}

// DLPack's stream argument for CUDA: None means the legacy default stream, -1 asks for no synchronisation,
// 0 is disallowed (ambiguous), anything else is a cudaStream_t (1 legacy, 2 per-thread default).
void order_consumer_stream(const Tensor& t, nb::handle stream) {
  int64_t s = stream.is_none() ? 1 : nb::cast<int64_t>(stream);
  if (s == -1) return;
  if (s == 0)
    throw nb::value_error(
        "__dlpack__: stream=0 is ambiguous for CUDA\nhint: pass 1 for the legacy default stream, 2 for the "
        "per-thread default stream, a cudaStream_t as an int, or -1 for no synchronisation");
  AcceleratorBackend& b = cuda_backend();
  int device = t.device().index;
  b.foreign_stream_wait(device, static_cast<uintptr_t>(s), b.current_stream(device));
}

// Owns what a managed tensor points at: the tensor (so its storage) and copies of its shape and strides.
template <typename Managed>
struct ExportCtx {
  Tensor tensor;
  DimVector shape;
  DimVector strides;
  Managed managed{};
};

template <typename Managed>
void delete_export(Managed* self) {
  delete static_cast<ExportCtx<Managed>*>(self->manager_ctx);
}

template <typename Managed>
Managed* make_managed(const Tensor& t) {
  auto* ctx = new ExportCtx<Managed>{t, t.sizes(), t.strides()};
  t.storage()->mark_exported();  // resize_ then keeps this block alive for the consumer
  Managed& m = ctx->managed;
  m.manager_ctx = ctx;
  m.deleter = &delete_export<Managed>;
  m.dl_tensor = DLTensor{t.data_ptr(),
                         dl_device_of(t.device()),
                         static_cast<int32_t>(t.dim()),
                         dl_dtype(t.dtype()),
                         ctx->shape.data(),
                         ctx->strides.data(),
                         0};
  return &m;
}

// Frees the managed tensor of a capsule nobody consumed (a consumer renames it first).
void capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kVersionedName)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersionedName));
    if (m->deleter) m->deleter(m);
  } else if (PyCapsule_IsValid(capsule, kLegacyName)) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacyName));
    if (m->deleter) m->deleter(m);
  }
}

nb::object to_capsule(void* managed, const char* name) {
  PyObject* cap = PyCapsule_New(managed, name, &capsule_destructor);
  if (!cap) throw nb::python_error();
  return nb::steal(cap);
}

nb::object tensor_dlpack(const Tensor& t, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                         nb::handle copy) {
  if (t.device().is_meta())
    throw nb::buffer_error("Cannot pack tensors on meta\nhint: a meta tensor has no memory to share");
  if (t.requires_grad())
    throw nb::buffer_error(
        "Can't export tensors that require gradient, use tensor.detach()\nhint: t.detach() shares the same "
        "memory without autograd");
  bool versioned = !max_version.is_none() && nb::cast<int64_t>(max_version[0]) >= 1;
  bool copied = !copy.is_none() && nb::cast<bool>(copy);
  bool copy_forbidden = !copy.is_none() && !copied;
  Tensor alias = make_view(t, t.sizes(), t.strides(), t.storage_offset());  // no autograd state
  if (!dl_device.is_none()) {
    DLDevice want{nb::cast<int32_t>(dl_device[0]), nb::cast<int32_t>(dl_device[1])};
    DLDevice have = dl_device_of(t.device());
    if (want.device_type != have.device_type || want.device_id != have.device_id) {
      // The one cross-device export DLPack allows: a host copy of a device tensor, when copying is allowed.
      if (want.device_type != kDLCPU || t.device().is_cpu() || copy_forbidden)
        throw nb::buffer_error(
            copy_forbidden ? "__dlpack__: exporting to another device needs a copy, but copy=False was passed"
                           : "__dlpack__: can't export to another device; move the tensor there first "
                             "(t.to(...))");
      alias = to_device(alias, Device(), std::nullopt, false);
      copied = true;
    }
  }
  if (!alias.device().is_cpu()) {
    TANDEM_CHECK(
        cuda_backend().has_native_handles(), Runtime, "__dlpack__: ", alias.device().str(),
        " is an emulated device (TANDEM_EMULATE_CUDA): its memory is host memory that other "
        "libraries cannot use as CUDA memory\nhint: share a host copy instead (t.cpu()), or run on a "
        "machine with a GPU");
  } else if (!stream.is_none() && t.device().is_cpu()) {
    // PyTorch's AssertionError and message, which consumers written against PyTorch catch.
    PyErr_SetString(
        PyExc_AssertionError,
        "stream should be None on cpu.\nhint: a CPU tensor has no stream; call __dlpack__() without one");
    throw nb::python_error();
  }
  // The alias, or a fresh copy when the consumer asked for one.
  Tensor out = copied && alias.device() == t.device() ? clone(alias) : alias;
  // After the clone: the consumer's stream must also wait for the copy kernel queued just now.
  if (!out.device().is_cpu()) order_consumer_stream(out, stream);
  bool readonly = !out.storage()->writeable();
  if (!versioned) {
    if (readonly)
      throw nb::buffer_error(
          "Cannot export a read-only tensor through a legacy DLPack capsule, which cannot say it is "
          "read-only; "
          "pass max_version=(1, 0) or copy=True");
    return to_capsule(make_managed<DLManagedTensor>(out), kLegacyName);
  }
  DLManagedTensorVersioned* m = make_managed<DLManagedTensorVersioned>(out);
  m->version = {kMajorVersion, kMinorVersion};
  m->flags = (readonly ? kFlagReadOnly : 0) | (copied ? kFlagIsCopied : 0);
  try {
    return to_capsule(m, kVersionedName);
  } catch (...) {
    m->deleter(m);
    throw;
  }
}

// The storage's deleter for an imported tensor: hands the managed tensor back to its producer.
template <typename Managed>
void release_managed(void* ctx) {
  auto* m = static_cast<Managed*>(ctx);
  if (m->deleter) m->deleter(m);
}

// Checks the capsule's DLTensor (ops/dlpack.h), takes ownership, then marks the capsule consumed before
// anything else can throw.
template <typename Managed>
Tensor import_managed(PyObject* capsule, Managed* m, const char* used_name, bool readonly) {
  DLPackImport import = check_dltensor(m->dl_tensor);
  check_host_bools(import);
  DataPtr data(import.data, m, &release_managed<Managed>);
  PyCapsule_SetName(capsule, used_name);
  return wrap_dltensor(std::move(import), std::move(data), readonly);
}

Tensor tensor_from_capsule(nb::handle obj) {
  PyObject* cap = obj.ptr();
  TANDEM_CHECK(PyCapsule_CheckExact(cap), Type,
               "from_dlpack(): expected an object with __dlpack__ or a DLPack capsule (got ",
               nb::inst_name(obj).c_str(), ")");
  if (PyCapsule_IsValid(cap, kVersionedName)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, kVersionedName));
    TANDEM_CHECK(m->version.major == kMajorVersion, Runtime, "from_dlpack(): unsupported DLPack version ",
                 m->version.major, ".", m->version.minor, " (tandem reads ", kMajorVersion,
                 ".x)\nhint: ask the producer for max_version=(1, 0)");
    return import_managed(cap, m, kUsedVersionedName, m->flags & kFlagReadOnly);
  }
  if (PyCapsule_IsValid(cap, kLegacyName))
    return import_managed(cap, static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, kLegacyName)),
                          kUsedLegacyName, false);
  TANDEM_THROW(
      Runtime,
      "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, so "
      "you might have already constructed a tensor from it once.\nhint: call __dlpack__() again for a "
      "fresh capsule");
}

}  // namespace

void init_dlpack(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
  tensor.def("__dlpack__", &tensor_dlpack, nb::arg("stream") = nb::none(),
             nb::arg("max_version") = nb::none(), nb::arg("dl_device") = nb::none(),
             nb::arg("copy") = nb::none(),
             "A DLPack capsule viewing this tensor (versioned when max_version >= (1, 0)).");
  tensor.def(
      "__dlpack_device__",
      [](const Tensor& t) {
        DLDevice d = dl_device_of(t.device());
        // The type as tandem.utils.dlpack.DLDeviceType (an IntEnum), as PyTorch returns its own enum's
        // member.
        static const nb::handle device_types =
            nb::object(nb::module_::import_("tandem.utils.dlpack").attr("DLDeviceType")).release();
        return nb::make_tuple(device_types(static_cast<int>(d.device_type)), d.device_id);
      },
      "(DLPack device type, device id): (DLDeviceType.kDLCPU, 0) for the CPU, (kDLCUDA, i) for cuda:i.");
  m.def("_from_dlpack_capsule", &tensor_from_capsule, nb::arg("capsule"));
  m.attr("_DLPACK_MAX_VERSION") = nb::make_tuple(kMajorVersion, kMinorVersion);
}

}  // namespace tandem::py
