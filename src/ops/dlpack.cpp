#include "ops/dlpack.h"

#include "backend/accelerator.h"
#include "core/error.h"

namespace tandem {

using namespace dlpack;

namespace {

bool dtype_from_dl(DLDataType t, DType& out) {
  if (t.lanes != 1) return false;
  for (int i = 0; i < kNumDTypes; ++i) {
    DLDataType c = dl_dtype(static_cast<DType>(i));
    if (c.code == t.code && c.bits == t.bits) {
      out = static_cast<DType>(i);
      return true;
    }
  }
  return false;
}

// Where an imported tensor lives: host memory (incl. pinned) is cpu; CUDA memory needs real CUDA devices.
Device import_device(DLDevice d) {
  if (d.device_type == kDLCPU || d.device_type == kDLCUDAHost) return Device();
  TANDEM_CHECK(
      d.device_type == kDLCUDA || d.device_type == kDLCUDAManaged, NotImplemented,
      "from_dlpack(): DLPack device type ", d.device_type,
      " is not supported (tandem reads host and CUDA memory)\nhint: copy the tensor to the host in its "
      "own framework first (e.g. x.cpu())");
  bool native = cuda_available() && cuda_backend().has_native_handles();
  TANDEM_CHECK(native, Runtime, "from_dlpack(): the tensor lives in CUDA memory (device ", d.device_id,
               "), but this process has no real CUDA device (",
               cuda_available() ? "tandem's cuda devices are emulated" : "no CUDA backend",
               ")\nhint: copy it to the host in its own framework first (e.g. x.cpu())");
  TANDEM_CHECK(d.device_id >= 0 && d.device_id < cuda_backend().device_count(), Runtime,
               "from_dlpack(): CUDA device ", d.device_id, " does not exist here (",
               cuda_backend().device_count(), " visible)");
  return Device(DeviceType::CUDA, static_cast<int16_t>(d.device_id));
}

// True when every element of a host bool tensor is a 0 or 1 byte. Kernels read bool elements as C++ bool, for
// which any other byte is undefined behaviour, and a producer's bool array can hold one (NumPy's uint8 array
// viewed as bool). One pass over the elements, walking the strides (bytes between elements are not looked
// at).
bool host_bools_valid(const uint8_t* p, const DimVector& sizes, const DimVector& strides, size_t dim = 0) {
  if (dim == sizes.size()) return *p <= 1;
  for (int64_t i = 0; i < sizes[dim]; ++i)
    if (!host_bools_valid(p + i * strides[dim], sizes, strides, dim + 1)) return false;
  return true;
}

// More dims than any real tensor has: a corrupt ndim would otherwise make us read that many shape entries.
constexpr int32_t kMaxImportDims = 64;

}  // namespace

DLDataType dl_dtype(DType d) {
  auto bits = static_cast<uint8_t>(element_size(d) * 8);
  switch (dtype_category(d)) {
    case DTypeCategory::Bool:
      return {kDLBool, 8, 1};
    case DTypeCategory::Integral:
      return {is_unsigned_integral(d) ? kDLUInt : kDLInt, bits, 1};
    case DTypeCategory::Floating:
      return {d == DType::BFloat16 ? kDLBfloat : kDLFloat, bits, 1};
    case DTypeCategory::Complex:
      return {kDLComplex, bits, 1};
  }
  __builtin_unreachable();
}

DLPackImport check_dltensor(const DLTensor& dl) {
  Device device = import_device(dl.device);
  DType dtype;
  TANDEM_CHECK(dtype_from_dl(dl.dtype, dtype), Type, "from_dlpack(): unsupported DLPack dtype (code ",
               int(dl.dtype.code), ", bits ", int(dl.dtype.bits), ", lanes ", dl.dtype.lanes,
               ")\nhint: convert it in its own framework first to one of bool, uint8..uint64, int8..int64, "
               "float16, bfloat16, float32, float64");
  // A DLTensor comes from another library (or a hostile caller): check every field before reading through it.
  TANDEM_CHECK(dl.ndim >= 0 && dl.ndim <= kMaxImportDims, Value, "from_dlpack(): ndim ", dl.ndim,
               " is out of range (0 to ", kMaxImportDims, ")\nhint: the producer made a malformed DLTensor");
  TANDEM_CHECK(dl.ndim == 0 || dl.shape, Value, "from_dlpack(): the DLTensor has ", dl.ndim,
               " dims but a null shape\nhint: the producer made a malformed DLTensor");
  DimVector sizes(IntArrayRef(dl.shape, static_cast<size_t>(dl.ndim)));
  DimVector strides = dl.strides ? DimVector(IntArrayRef(dl.strides, static_cast<size_t>(dl.ndim)))
                                 : contiguous_strides(sizes);
  int64_t numel = compute_numel(sizes), extent = 1;  // compute_numel rejects negative sizes and overflow
  bool overflow = false;
  for (int32_t d = 0; d < dl.ndim; ++d) {
    TANDEM_CHECK(strides[d] >= 0, Value,
                 "from_dlpack(): tensors with negative strides are not supported\nhint: make a contiguous "
                 "copy in the producing framework first");
    int64_t span = 0;
    if (sizes[d] > 0) overflow |= __builtin_mul_overflow(sizes[d] - 1, strides[d], &span);
    overflow |= __builtin_add_overflow(extent, span, &extent);
  }
  size_t nbytes = 0;
  if (numel > 0)
    overflow |= __builtin_mul_overflow(static_cast<size_t>(extent), element_size(dtype), &nbytes);
  uintptr_t start = 0;
  overflow |= __builtin_add_overflow(reinterpret_cast<uintptr_t>(dl.data), dl.byte_offset, &start);
  overflow |= numel > 0 && start + nbytes < start;
  TANDEM_CHECK(!overflow, Value, "from_dlpack(): the DLTensor's shape, strides and byte_offset (",
               dl.byte_offset,
               ") reach past the end of the address space\nhint: the producer made a malformed "
               "DLTensor");
  TANDEM_CHECK(numel == 0 || dl.data, Value, "from_dlpack(): the DLTensor has ", numel,
               " elements but a null data pointer\nhint: the producer made a malformed DLTensor");
  // Kernels read elements as their C++ type, and vectorised loops rely on its alignment.
  TANDEM_CHECK(numel == 0 || start % element_size(dtype) == 0, Value,
               "from_dlpack(): the first element (data + ", "byte_offset ", dl.byte_offset,
               ") is not aligned to the element size (", element_size(dtype),
               " bytes)\nhint: copy the tensor to an aligned buffer in the producing framework first");
  // From the checked integer sum: null data plus an offset (allowed with no elements) is UB as pointer math.
  return DLPackImport{device, dtype, std::move(sizes), std::move(strides), reinterpret_cast<void*>(start),
                      nbytes};
}

void check_host_bools(const DLPackImport& import) {
  TANDEM_CHECK(import.dtype != DType::Bool || !import.device.is_cpu() || import.nbytes == 0 ||
                   host_bools_valid(static_cast<const uint8_t*>(import.data), import.sizes, import.strides),
               Value,
               "from_dlpack(): the bool tensor holds bytes other than 0 and 1, which a tensor cannot share\n"
               "hint: export it as uint8 and compare with 0 (tandem.from_dlpack(a.view(np.uint8)) != 0)");
}

Tensor wrap_dltensor(DLPackImport import, DataPtr data, bool readonly) {
  auto storage = make_intrusive<StorageImpl>(std::move(data), import.nbytes, import.device);
  storage->set_writeable(!readonly);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), 0, std::move(import.sizes),
                                           std::move(import.strides), import.dtype));
}

}  // namespace tandem
