// The DLPack importer's checks (check_dltensor, what from_dlpack runs on every capsule) on DLTensors whose
// every field is fuzzed: device, dtype, ndim, shape and strides (or null), byte_offset and data (a real
// buffer, null, or an address near the top of the address space). A DLTensor is either refused with a
// tandem::Error or imported as a tensor whose elements all lie in the range the checks computed; when that
// range is inside the real buffer, the tensor is also read (contiguous()) under AddressSanitizer. Shape and
// strides arrays hold exactly kMaxDims entries, so reading past a sane ndim is an ASan report too.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_input.h"
#include "ops/dlpack.h"
#include "tensor_checks.h"

namespace tandem::fuzz {
namespace {

using namespace dlpack;

constexpr size_t kMaxDims = 64;  // the importer's limit; larger ndims must be refused before any read
constexpr size_t kBufferBytes = 512;

int64_t small_or_any(FuzzInput& in, int small) {
  uint8_t b = in.byte();
  return b < 0xC0 ? b % small : in.integer();
}

int g_released = 0;
void count_release(void*) { ++g_released; }

}  // namespace
}  // namespace tandem::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tandem;
  using namespace tandem::dlpack;
  using fuzz::FuzzInput;
  FuzzInput in(data, size);
  // Bytes 0 and 1 only: a bool tensor's memory is trusted (DLPack imports without reading it, as in PyTorch).
  std::vector<uint8_t> buffer(fuzz::kBufferBytes);
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = (i * 7 / 3) & 1;
  std::vector<int64_t> shape(fuzz::kMaxDims, 1), strides(fuzz::kMaxDims, 1);

  DLTensor dl{};
  static constexpr int32_t kDevices[] = {kDLCPU,  kDLCPU,         kDLCPU, kDLCUDAHost,
                                         kDLCUDA, kDLCUDAManaged, kDLROCM};
  int device = in.choice(8);
  dl.device.device_type = device < 7 ? kDevices[device] : static_cast<int32_t>(in.integer());
  dl.device.device_id = static_cast<int32_t>(fuzz::small_or_any(in, 3));
  static constexpr uint8_t kBits[] = {8, 16, 32, 64};
  dl.dtype.code = static_cast<uint8_t>(in.choice(8));
  int bits = in.choice(5);
  dl.dtype.bits = bits < 4 ? kBits[bits] : in.byte();
  dl.dtype.lanes = in.choice(8) == 0 ? static_cast<uint16_t>(in.integer()) : 1;
  dl.ndim = static_cast<int32_t>(fuzz::small_or_any(in, 6));
  uint8_t pointers = in.byte();
  dl.shape = pointers & 1 ? nullptr : shape.data();
  dl.strides = pointers & 2 ? strides.data() : nullptr;
  for (size_t d = 0; d < 6; ++d) shape[d] = fuzz::small_or_any(in, 6);
  for (size_t d = 0; d < 6; ++d) strides[d] = fuzz::small_or_any(in, 9);
  switch (in.choice(4)) {
    case 0:
      dl.data = nullptr;
      break;
    case 1:  // near the top of the address space: must be refused, never read
      dl.data = reinterpret_cast<void*>(UINTPTR_MAX - static_cast<uintptr_t>(in.byte()) * 64);
      break;
    default:
      dl.data = buffer.data();
  }
  dl.byte_offset = in.choice(4) == 0 ? static_cast<uint64_t>(in.integer()) : in.byte() % 16;

  Tensor t;
  try {
    DLPackImport import = check_dltensor(dl);
    if (import.sizes.size() != static_cast<size_t>(dl.ndim) || import.device != Device())
      std::abort();  // accepted geometry must be the DLTensor's, and only host memory imports here
    fuzz::g_released = 0;
    auto first = reinterpret_cast<uintptr_t>(import.data), begin = reinterpret_cast<uintptr_t>(buffer.data());
    bool in_buffer =
        first >= begin && first - begin <= buffer.size() && import.nbytes <= begin + buffer.size() - first;
    if (in_buffer) check_host_bools(import);  // reads the elements: only over real memory
    t = wrap_dltensor(std::move(import),
                      DataPtr(reinterpret_cast<void*>(first), nullptr, &fuzz::count_release), false);
    fuzz::check_geometry(t);
    if (in_buffer) fuzz::check_values(t);
  } catch (const Error&) {
    return 0;  // refused with a typed tandem error
  }
  t = Tensor();
  if (fuzz::g_released != 1) std::abort();  // the producer's deleter runs exactly once
  return 0;
}
