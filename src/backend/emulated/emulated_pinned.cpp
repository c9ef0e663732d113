// Pinned host memory and non_blocking copies on the emulated device. "Pinned" blocks are plain host memory
// that the backend remembers, so the rules of real CUDA hold here too and the Python API is testable: a copy
// to or from pinned memory is queued on the stream and returns at once; any other copy is synchronous.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <thread>

#include "backend/emulated/emulated_backend.h"
#include "core/error.h"

namespace tandem::emulated {

namespace {
struct PinnedBlock {
  EmulatedBackend* backend;
  void* ptr;
};

// The host waits for one queued copy by its place in the stream.
class QueuedWrite final : public PendingWrite {
 public:
  QueuedWrite(WorkQueue& queue, uint64_t seq) : queue_(queue), seq_(seq) {}
  void wait() override { queue_.wait_for(seq_); }

 private:
  WorkQueue& queue_;  // streams live as long as the backend, which is never destroyed
  uint64_t seq_;
};
}  // namespace

void release_pinned(void* ctx) {
  auto* block = static_cast<PinnedBlock*>(ctx);
  {
    std::lock_guard<std::mutex> lock(block->backend->pinned_mu_);
    block->backend->pinned_.erase(reinterpret_cast<uintptr_t>(block->ptr));
  }
  std::free(block->ptr);
  delete block;
}

DataPtr EmulatedBackend::allocate_pinned(size_t nbytes) {
  void* p = nullptr;
  size_t size = nbytes ? nbytes : 1;
  TANDEM_CHECK(posix_memalign(&p, 256, size) == 0, OutOfMemory, "could not allocate ", nbytes,
               " bytes of pinned host memory\nhint: pin smaller tensors");
  {
    std::lock_guard<std::mutex> lock(pinned_mu_);
    pinned_[reinterpret_cast<uintptr_t>(p)] = size;
  }
  return DataPtr(p, new PinnedBlock{this, p}, &release_pinned);
}

bool EmulatedBackend::is_pinned(const void* ptr) {
  auto addr = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(pinned_mu_);
  auto it = pinned_.upper_bound(addr);
  if (it == pinned_.begin()) return false;
  --it;
  return addr < it->first + it->second;
}

IntrusivePtr<PendingWrite> EmulatedBackend::copy_device_to_host_async(void* dst, const void* src, size_t n,
                                                                      Device device) {
  if (!is_pinned(dst)) {
    copy_device_to_host(dst, src, n, device);
    return {};
  }
  WorkQueue& q = queue(device.index, current_stream(device.index));
  uint64_t seq = q.push([=] { std::memcpy(dst, src, n); });
  return IntrusivePtr<PendingWrite>(new QueuedWrite(q, seq));
}

void EmulatedBackend::copy_host_to_device_async(void* dst, const void* src, size_t n, Device device,
                                                const Storage& host_owner) {
  if (!is_pinned(src)) {
    copy_host_to_device(dst, src, n, device);
    return;
  }
  release_finished_reads();
  WorkQueue& q = queue(device.index, current_stream(device.index));
  uint64_t seq = q.push([=] { std::memcpy(dst, src, n); });
  std::lock_guard<std::mutex> lock(reads_mu_);
  in_flight_reads_.push_back({&q, seq, host_owner});
}

void EmulatedBackend::release_finished_reads() {
  std::vector<InFlightRead> finished;
  {
    std::lock_guard<std::mutex> lock(reads_mu_);
    auto done = std::stable_partition(in_flight_reads_.begin(), in_flight_reads_.end(),
                                      [](const InFlightRead& r) { return !r.queue->done(r.seq); });
    std::move(done, in_flight_reads_.end(), std::back_inserter(finished));
    in_flight_reads_.erase(done, in_flight_reads_.end());
  }
}  // the storages are released here, outside the lock

void EmulatedBackend::delay_stream(int device, StreamId stream, double ms) {
  queue(device, stream).push([ms] {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
  });
}

}  // namespace tandem::emulated
