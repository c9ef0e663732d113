// The per-device-type registry that core allocates through (as c10's allocator registry): each backend puts
// its allocator in its device type's slot at start-up, so core never names a backend. A device type can be
// started lazily (CUDA is: finding GPUs initialises the driver, which must not happen at import or before a
// fork); its starter runs once, on the first lookup of that type.
#pragma once
#include <cstddef>
#include <string>

#include "core/device.h"
#include "core/storage.h"

namespace tandem {

class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;
  // Allocates nbytes on `device`; throws OutOfMemory (never returns null). nbytes == 0 is allowed.
  virtual DataPtr allocate(size_t nbytes, Device device) = 0;
  // 'cuda' (no index) becomes the thread's current device; an index past the device count is an error.
  virtual Device resolve(Device device) { return device; }
};

void register_allocator(DeviceType type, DeviceAllocator* allocator);
// The allocator for a type (starting the type first), or a RuntimeError explaining why it is unavailable.
DeviceAllocator& allocator_for(DeviceType type);

// Runs `starter` the first time `type` is looked up (by allocator_for, backend_for or kernel_table).
void set_device_type_starter(DeviceType type, void (*starter)());
// Runs the starter of `type` if it has not run yet; cheap afterwards (one atomic load).
void start_device_type(DeviceType type);

// Why a device type has nothing registered, for its error: `first_line` is PyTorch's message for that case,
// `hint` the fix (set by a build without CUDA, or by a CUDA build that found no GPU).
void set_missing_device_reason(DeviceType type, std::string hint,
                               std::string first_line = "Torch not compiled with CUDA enabled");
[[noreturn]] void throw_missing_device(DeviceType type);

}  // namespace tandem
