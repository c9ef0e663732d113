#include "backend/transfer.h"

#include <atomic>
#include <vector>

#include "backend/accelerator.h"
#include "backend/backend.h"
#include "backend/crossing.h"
#include "backend/deferred_errors.h"

namespace tandem {

namespace {
struct Counters {
  std::atomic<uint64_t> h2d{0}, h2d_bytes{0}, d2h{0}, d2h_bytes{0}, d2d{0}, d2d_bytes{0}, syncs{0};
  std::atomic<uint64_t> non_blocking{0};
};
Counters& counters() {
  static Counters c;
  return c;
}
}  // namespace

void copy_host_to_device(void* dst, Device device, const void* src, size_t nbytes) {
  CrossingRecord crossing(CrossingKind::HostToDevice, Device(), device, nbytes);
  counters().h2d++;
  counters().h2d_bytes += nbytes;
  backend_for(device.type).copy_host_to_device(dst, src, nbytes, device);
}

void copy_device_to_host(void* dst, const void* src, Device device, size_t nbytes) {
  CrossingRecord crossing(CrossingKind::DeviceToHost, device, Device(), nbytes);
  counters().d2h++;
  counters().d2h_bytes += nbytes;
  backend_for(device.type).copy_device_to_host(dst, src, nbytes, device);
  raise_deferred_device_errors(device);
}

void copy_device_to_device(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  CrossingRecord crossing(CrossingKind::DeviceToDevice, src_device, dst_device, nbytes);
  counters().d2d++;
  counters().d2d_bytes += nbytes;
  Backend& b = backend_for(dst_device.type);
  if (dst_device == src_device) {
    b.copy_within_device(dst, src, nbytes, dst_device);
    return;
  }
  // A meta destination keeps nothing, so there is nothing to read (a meta source raises in its backend).
  if (dst_device.is_meta()) return;
  // Peer copy staged through the host: correct for every backend, and rare enough not to need a fast path.
  std::vector<char> staging(nbytes);
  backend_for(src_device.type).copy_device_to_host(staging.data(), src, nbytes, src_device);
  b.copy_host_to_device(dst, staging.data(), nbytes, dst_device);
}

void read_results_on_host(Device device, size_t nbytes, const std::function<void()>& run) {
  CrossingRecord crossing(CrossingKind::DeviceToHost, device, Device(), nbytes);
  counters().d2h++;
  counters().d2h_bytes += nbytes;
  run();
  raise_deferred_device_errors(device);
}

void copy_device_to_host_async(void* dst, StorageImpl& dst_storage, const void* src, Device device,
                               size_t nbytes) {
  CrossingRecord crossing(CrossingKind::DeviceToHost, device, Device(), nbytes);
  counters().d2h++;
  counters().d2h_bytes += nbytes;
  counters().non_blocking++;
  IntrusivePtr<PendingWrite> pending =
      backend_for(device.type).copy_device_to_host_async(dst, src, nbytes, device);
  if (pending) dst_storage.add_pending_write(std::move(pending));
}

void copy_host_to_device_async(void* dst, Device device, const void* src, const Storage& src_storage,
                               size_t nbytes) {
  CrossingRecord crossing(CrossingKind::HostToDevice, Device(), device, nbytes);
  counters().h2d++;
  counters().h2d_bytes += nbytes;
  counters().non_blocking++;
  backend_for(device.type).copy_host_to_device_async(dst, src, nbytes, device, src_storage);
}

void synchronize_device(Device device) {
  CrossingRecord crossing(CrossingKind::Sync, device, device, 0);
  counters().syncs++;
  backend_for(device.type).synchronize(device);
  raise_deferred_device_errors(device);
}

void synchronize_stream(Device device, int64_t stream) {
  CrossingRecord crossing(CrossingKind::Sync, device, device, 0);
  counters().syncs++;
  cuda_backend().synchronize_stream(device.index, stream);
}

void synchronize_event(Device device, int64_t event) {
  CrossingRecord crossing(CrossingKind::Sync, device, device, 0);
  counters().syncs++;
  cuda_backend().synchronize_event(event);
}

TransferStats transfer_stats() {
  Counters& c = counters();
  return {c.h2d, c.h2d_bytes, c.d2h, c.d2h_bytes, c.d2d, c.d2d_bytes, c.syncs, c.non_blocking};
}

void reset_transfer_stats() {
  Counters& c = counters();
  c.h2d = c.h2d_bytes = c.d2h = c.d2h_bytes = c.d2d = c.d2d_bytes = c.syncs = c.non_blocking = 0;
}

}  // namespace tandem
