// __cuda_array_interface__ (version 3), the protocol CuPy, Numba and PyTorch use to share CUDA memory:
// export as a Tensor property, import as a zero-copy tensor that keeps the producer's object alive. Only a
// real CUDA backend has device pointers; on emulated devices the property raises AttributeError (so libraries
// probing with hasattr() fall back to other paths) with the reason in its message.
#include "backend/accelerator.h"
#include "bindings.h"
#include "core/error.h"

namespace tandem::py {

namespace {

// NumPy-style type strings; bfloat16 has none, so it is shared through DLPack instead.
const char* typestr_of(DType d) {
  switch (d) {
    case DType::Bool:
      return "|b1";
    case DType::UInt8:
      return "|u1";
    case DType::Int8:
      return "|i1";
    case DType::Int16:
      return "<i2";
    case DType::Int32:
      return "<i4";
    case DType::Int64:
      return "<i8";
    case DType::UInt16:
      return "<u2";
    case DType::UInt32:
      return "<u4";
    case DType::UInt64:
      return "<u8";
    case DType::Float16:
      return "<f2";
    case DType::Float32:
      return "<f4";
    case DType::Float64:
      return "<f8";
    case DType::Complex64:
      return "<c8";
    case DType::Complex128:
      return "<c16";
    default:
      return nullptr;
  }
}

bool dtype_of_typestr(const std::string& s, DType& out) {
  if (s.size() < 3) return false;
  char order = s[0];
  if (order != '<' && order != '|' && order != '=') return false;  // big-endian data is not CUDA data
  std::string body = s.substr(1);
  for (int i = 0; i < kNumDTypes; ++i) {
    const char* t = typestr_of(static_cast<DType>(i));
    if (t && body == t + 1) {
      out = static_cast<DType>(i);
      return true;
    }
  }
  return false;
}

bool has_native_cuda() { return cuda_available() && cuda_backend().has_native_handles(); }

nb::object cuda_array_interface(const Tensor& t) {
  if (!t.device().is_cuda())
    throw nb::attribute_error(("Can't get __cuda_array_interface__ on non-CUDA tensor type: " +
                               std::string(dtype_name(t.dtype())) + " on " + t.device().str() +
                               " If CUDA data is required use tensor.cuda() to copy tensor to device memory.")
                                  .c_str());
  if (!has_native_cuda())
    throw nb::attribute_error(
        ("__cuda_array_interface__: " + t.device().str() +
         " is an emulated device (TANDEM_EMULATE_CUDA) whose memory is host memory; "
         "other libraries cannot use it as CUDA memory\nhint: share a host copy (t.cpu())")
            .c_str());
  if (t.requires_grad())
    TANDEM_THROW(Runtime,
                 "Can't get __cuda_array_interface__ on Variable that requires grad. If gradients aren't "
                 "required, use var.detach() to get Variable that doesn't require grad.\nhint: t.detach() "
                 "shares the same memory without autograd");
  const char* typestr = typestr_of(t.dtype());
  if (!typestr)
    throw nb::attribute_error(
        "__cuda_array_interface__ has no type string for bfloat16\nhint: share it through DLPack "
        "(tandem.utils.dlpack / __dlpack__), or convert it first (t.float())");
  nb::list shape, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    shape.append(t.sizes()[d]);
    strides.append(t.strides()[d] * static_cast<int64_t>(t.element_size()));
  }
  AcceleratorBackend& b = cuda_backend();
  int device = t.device().index;
  nb::dict iface;
  iface["shape"] = nb::tuple(shape);
  iface["typestr"] = typestr;
  // A zero-size tensor may have no memory; the protocol wants 0 then.
  uintptr_t ptr = t.numel() ? reinterpret_cast<uintptr_t>(t.data_ptr()) : 0;
  t.storage()->mark_exported();  // a consumer keeps this pointer: resize_ must not free the block under it
  iface["data"] = nb::make_tuple(ptr, !t.storage()->writeable());
  iface["strides"] = t.is_contiguous() ? nb::none() : nb::object(nb::tuple(strides));
  nb::list descr;  // the protocol's descr is a list of (name, typestr) tuples
  descr.append(nb::make_tuple("", typestr));
  iface["descr"] = descr;
  iface["version"] = 3;
  // The consumer synchronises with the stream tandem's pending work on this tensor was queued on.
  iface["stream"] = b.native_stream(device, b.current_stream(device));
  return iface;
}

// Drops the producer's object when the storage dies (from any thread, so the GIL is taken).
void release_producer(void* ctx) {
  if (Py_IsInitialized()) {
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(static_cast<PyObject*>(ctx));
    PyGILState_Release(gil);
  }
}

Tensor from_cuda_array_interface(nb::handle obj) {
  nb::dict iface = nb::cast<nb::dict>(obj.attr("__cuda_array_interface__"));
  int64_t version = iface.contains("version") ? nb::cast<int64_t>(iface["version"]) : 0;
  TANDEM_CHECK(version >= 2 && version <= 3, NotImplemented, "__cuda_array_interface__ version ", version,
               " is not supported (tandem reads versions 2 and 3)");
  TANDEM_CHECK(!iface.contains("mask") || iface["mask"].is_none(), NotImplemented,
               "__cuda_array_interface__ with a mask is not supported\nhint: fill the masked entries first");
  TANDEM_CHECK(
      has_native_cuda(), Runtime,
      "__cuda_array_interface__: the object holds CUDA memory, but this process has no real CUDA device "
      "(",
      cuda_available() ? "tandem's cuda devices are emulated" : "no CUDA backend",
      ")\nhint: copy it to the host in its own library first");
  std::string typestr = nb::cast<std::string>(iface["typestr"]);
  DType dtype = DType::Float32;
  TANDEM_CHECK(
      dtype_of_typestr(typestr, dtype), Type, "__cuda_array_interface__: unsupported typestr '", typestr,
      "'\nhint: convert it in its own library to bool, uint8..uint64, int8..int64 or float16..float64");
  nb::tuple data = nb::cast<nb::tuple>(iface["data"]);
  auto ptr = nb::cast<uintptr_t>(data[0]);
  bool readonly = nb::cast<bool>(data[1]);
  DimVector sizes;
  for (nb::handle s : nb::cast<nb::tuple>(iface["shape"])) sizes.push_back(nb::cast<int64_t>(s));
  DimVector strides = contiguous_strides(sizes);
  int64_t esize = static_cast<int64_t>(element_size(dtype));
  if (iface.contains("strides") && !iface["strides"].is_none()) {
    nb::tuple st = nb::cast<nb::tuple>(iface["strides"]);
    TANDEM_CHECK(st.size() == sizes.size(), Value, "__cuda_array_interface__: strides has ", st.size(),
                 " entries for ", sizes.size(), " dims");
    for (size_t d = 0; d < sizes.size(); ++d) {
      auto b = nb::cast<int64_t>(st[d]);
      TANDEM_CHECK(b >= 0 && b % esize == 0, Value, "__cuda_array_interface__: stride ", b,
                   " bytes is negative or not a multiple of the element size ", esize,
                   "\nhint: make a contiguous copy in the producing library first");
      strides[d] = b / esize;
    }
  }
  int64_t numel = compute_numel(sizes), extent = 1;
  for (size_t d = 0; d < sizes.size(); ++d) extent += (sizes[d] - 1) * strides[d];
  AcceleratorBackend& b = cuda_backend();
  int device = ptr ? b.native_pointer_device(reinterpret_cast<void*>(ptr)) : -1;
  TANDEM_CHECK(numel == 0 || device >= 0, Runtime,
               "__cuda_array_interface__: the data pointer is not CUDA device memory tandem can use");
  if (device < 0) device = b.current_device();  // an empty array: no memory, so any device will do
  // Our later work on this memory waits for what the producer queued on its stream. Version 3 names the
  // stream (None: nothing to wait for). Without the key (version 2 producers, among them PyTorch, whose
  // tensors come from work on the legacy default stream) we wait for the legacy default stream (1): our
  // streams are non-blocking, so without this our reads could overtake the producer's pending writes.
  if (numel) {  // an empty array has no memory to order
    if (!iface.contains("stream"))
      b.stream_wait_foreign(device, b.current_stream(device), 1);
    else if (!iface["stream"].is_none())
      b.stream_wait_foreign(device, b.current_stream(device), nb::cast<uintptr_t>(iface["stream"]));
  }
  size_t nbytes = numel == 0 ? 0 : static_cast<size_t>(extent * esize);
  PyObject* keep = obj.ptr();
  Py_INCREF(keep);
  DataPtr owner(reinterpret_cast<void*>(ptr), keep, &release_producer);
  auto storage = make_intrusive<StorageImpl>(std::move(owner), nbytes,
                                             Device(DeviceType::CUDA, static_cast<int16_t>(device)));
  storage->set_writeable(!readonly);
  return Tensor(
      make_intrusive<TensorImpl>(std::move(storage), 0, std::move(sizes), std::move(strides), dtype));
}

// The cudaStream_t of tandem's current stream on cuda:index, for the DLPack handshake; None when the cuda
// devices are emulated or absent.
nb::object native_stream(int index) {
  if (!has_native_cuda()) return nb::none();
  AcceleratorBackend& b = cuda_backend();
  // A producer's device id we do not have: no stream; importing the capsule then raises a clear error.
  if (index < 0 || index >= b.device_count()) return nb::none();
  return nb::int_(b.native_stream(index, b.current_stream(index)));
}

}  // namespace

void init_cuda_array_interface(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
  tensor.def_prop_ro(
      "__cuda_array_interface__", &cuda_array_interface,
      "CUDA Array Interface v3 of a cuda tensor (zero-copy sharing with CuPy, Numba, PyTorch).");
  m.def("_from_cuda_array_interface", &from_cuda_array_interface, nb::arg("obj"));
  m.def("_cuda_native_stream", &native_stream, nb::arg("index"));
  m.def("_cuda_has_native_handles", &has_native_cuda);
}

}  // namespace tandem::py
