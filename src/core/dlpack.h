// The DLPack ABI (https://dmlc.github.io/dlpack/latest/c_api.html), written from the specification: the
// structs every framework agrees on to hand a tensor across without a copy. Layouts must match the spec
// exactly; the static_asserts below pin the sizes on 64-bit hosts.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tandem::dlpack {

// The ABI version these definitions follow. Versioned capsules carry it; a consumer accepts any 1.x.
constexpr uint32_t kMajorVersion = 1;
constexpr uint32_t kMinorVersion = 0;

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

// DLDeviceType (a C enum, so an int on the wire).
enum DLDeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,  // pinned host memory: readable from the CPU
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
};

struct DLDevice {
  int32_t device_type;  // a DLDeviceType
  int32_t device_id;
};

enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};

struct DLDataType {
  uint8_t code;  // a DLDataTypeCode
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null means compact row-major (allowed before 1.2)
  uint64_t byte_offset;
};

// Pre-1.0 ("legacy") managed tensor, carried in a capsule named "dltensor".
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

constexpr uint64_t kFlagReadOnly = 1ull << 0;
constexpr uint64_t kFlagIsCopied = 1ull << 1;

// 1.x managed tensor, carried in a capsule named "dltensor_versioned".
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

static_assert(sizeof(DLDevice) == 8 && sizeof(DLDataType) == 4);
static_assert(sizeof(void*) != 8 || sizeof(DLTensor) == 48);
static_assert(sizeof(void*) != 8 || sizeof(DLManagedTensor) == 64);
static_assert(sizeof(void*) != 8 || sizeof(DLManagedTensorVersioned) == 80);
static_assert(sizeof(void*) != 8 ||
              (offsetof(DLTensor, shape) == 24 && offsetof(DLTensor, byte_offset) == 40));
static_assert(sizeof(void*) != 8 || (offsetof(DLManagedTensorVersioned, flags) == 24 &&
                                     offsetof(DLManagedTensorVersioned, dl_tensor) == 32));

}  // namespace tandem::dlpack
