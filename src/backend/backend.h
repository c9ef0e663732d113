// The per-device-type backend interface. A backend registers itself at start-up; the core never names a
// concrete device (no #ifdef CUDA outside backend/). A device type with no registered backend answers with a
// clear error that says why it is missing.
#pragma once
#include <cstddef>
#include <string>

#include "core/device.h"
#include "core/storage.h"

namespace tandem {

class Backend {
 public:
  virtual ~Backend() = default;
  // Allocates nbytes on `device`; throws OutOfMemory (never returns null). nbytes == 0 is allowed.
  virtual DataPtr allocate(size_t nbytes, Device device) = 0;
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
  // 'cuda' (no index) becomes the thread's current device; an index past device_count() is an error.
  virtual Device resolve(Device device) { return device; }
};

void register_backend(DeviceType type, Backend* backend);
// The backend for a type, or a RuntimeError explaining why that device type is unavailable.
Backend& backend_for(DeviceType type);
bool has_backend(DeviceType type);
// Why a device type has no backend, for its error: `first_line` is PyTorch's message for that case, `reason`
// the hint (set by a build without CUDA, or by a CUDA build that found no GPU).
void set_missing_backend_reason(DeviceType type, std::string reason,
                                std::string first_line = "Torch not compiled with CUDA enabled");

// Defined per build configuration: cpu/ always, cuda/ or no_cuda/ for the CUDA slot.
void register_cpu_backend();
void register_cuda_backend();
// Whether this build has the real CUDA backend (defined next to register_cuda_backend).
bool cuda_backend_built();
inline void register_builtin_backends() {
  register_cpu_backend();
  register_cuda_backend();
}
// Runs register_builtin_backends once; cheap after the first call.
void ensure_builtin_backends();

}  // namespace tandem
