// The only functions through which bytes cross the host/device boundary, and the device syncs tandem does on
// the user's behalf. Each is counted (tandem.cuda.transfer_stats), so diagnostics hook here and nowhere else.
// Each entry point constructs a CrossingRecord (backend/crossing.h) first: the transfer guard and profiler.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/device.h"
#include "core/storage.h"

namespace tandem {

struct TransferStats {
  uint64_t host_to_device_copies = 0, host_to_device_bytes = 0;
  uint64_t device_to_host_copies = 0, device_to_host_bytes = 0;
  uint64_t device_to_device_copies = 0, device_to_device_bytes = 0;
  uint64_t synchronizations = 0;
  uint64_t non_blocking_copies = 0;  // of the host<->device copies above, those asked for with non_blocking
};

void copy_host_to_device(void* dst, Device device, const void* src, size_t nbytes);
void copy_device_to_host(void* dst, const void* src, Device device, size_t nbytes);
// Between two devices of one type (cuda:0 -> cuda:1), or within one device.
void copy_device_to_device(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);
void synchronize_device(Device device);
// The host waits for one stream, or for one event recorded on `device`: syncs too, counted and guarded alike.
void synchronize_stream(Device device, int64_t stream);
void synchronize_event(Device device, int64_t event);
// For a device whose memory the host can address (the emulated device): `run` makes a kernel's `nbytes` of
// results (a count, a bounds check) readable by the host and waits. Counted, guarded and profiled as the
// device->host copy of those results that a real device makes.
void read_results_on_host(Device device, size_t nbytes, const std::function<void()>& run);
// non_blocking copies (counted with the copies above). The device-to-host one returns at once when `dst`
// is pinned and registers the copy as a pending write of `dst_storage`, which every host read waits for;
// the host-to-device one keeps `src_storage` alive until the copy has read it.
void copy_device_to_host_async(void* dst, StorageImpl& dst_storage, const void* src, Device device,
                               size_t nbytes);
void copy_host_to_device_async(void* dst, Device device, const void* src, const Storage& src_storage,
                               size_t nbytes);

TransferStats transfer_stats();
void reset_transfer_stats();

}  // namespace tandem
