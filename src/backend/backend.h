// The per-device-type backend interface. A backend registers itself at start-up (kernels/startup.cpp wires
// backends and kernel tables together); the core never names a concrete device (no #ifdef CUDA outside
// backend/). A device type with no registered backend answers with a clear error that says why it is missing.
#pragma once
#include <cstddef>
#include <string>

#include "core/device.h"
#include "core/device_registry.h"
#include "core/storage.h"

namespace tandem {

// A backend is its device type's allocator (the slot core allocates through) plus copies and sync.
class Backend : public DeviceAllocator {
 public:
  // Plain byte copies. Every host<->device crossing goes through these two, so diagnostics hook here.
  virtual void copy_host_to_device(void* dst, const void* src, size_t nbytes, Device device) = 0;
  virtual void copy_device_to_host(void* dst, const void* src, size_t nbytes, Device device) = 0;
  virtual void copy_within_device(void* dst, const void* src, size_t nbytes, Device device) = 0;
  // non_blocking copies: queued on the device's current stream when the host side is pinned memory, and
  // otherwise done synchronously (the defaults). copy_device_to_host_async returns what host code must wait
  // for before reading dst (null when the copy has already finished); copy_host_to_device_async keeps
  // `host_owner` (the source's storage) alive until the copy has read it.
  virtual IntrusivePtr<PendingWrite> copy_device_to_host_async(void* dst, const void* src, size_t nbytes,
                                                               Device device) {
    copy_device_to_host(dst, src, nbytes, device);
    return {};
  }
  virtual void copy_host_to_device_async(void* dst, const void* src, size_t nbytes, Device device,
                                         const Storage& host_owner) {
    copy_host_to_device(dst, src, nbytes, device);
  }
  virtual void synchronize(Device device) = 0;
  virtual int device_count() const = 0;
  // Bytes held by live allocations on this backend's devices (on the CPU: the cached size classes, blocks of
  // 128 KiB or more), so tests can check that a loop's memory stays flat.
  virtual size_t live_bytes() = 0;
};

// Also registers `backend` as the type's allocator.
void register_backend(DeviceType type, Backend* backend);
// The backend for a type (starting the type first), or a RuntimeError explaining why it is unavailable.
Backend& backend_for(DeviceType type);

// Defined per build configuration: cpu/ always; cuda/ registers the real GPUs when a driver finds some (and
// otherwise sets the reason there are none) and says whether it did.
void register_cpu_backend();
// The meta device (backend/meta): no memory; copies into it are dropped, copies out of it raise.
void register_meta_backend();
bool register_cuda_backend();

}  // namespace tandem
