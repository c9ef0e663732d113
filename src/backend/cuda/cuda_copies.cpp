// CudaBackend's memory and copies. Every copy runs on the calling thread's current stream of the device, so
// it is ordered after the kernels that produced its source. Blocking copies return once done (they are the
// sync points transfer.cpp counts); pageable host memory over kStagedMin goes through the staging ring.
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "core/long_work.h"

namespace tandem::cuda {

namespace {
// Below this a pageable copy goes straight to cudaMemcpyAsync: the driver stages small copies well enough.
constexpr size_t kStagedMin = size_t{1} << 20;

Device cuda_device(int index) { return Device(DeviceType::CUDA, static_cast<int16_t>(index)); }

// The host waits for one non_blocking device-to-host copy through the event recorded after it.
class CopyDone final : public PendingWrite {
 public:
  CopyDone(cudaEvent_t done) : done_(done) {}
  ~CopyDone() override { (void)cudaEventDestroy(done_); }  // no throwing from a destructor
  void wait() override {
    LongWorkRegion region;
    TANDEM_CUDA_CHECK(cudaEventSynchronize(done_));
  }

 private:
  cudaEvent_t done_;
};

cudaEvent_t record_done(cudaStream_t stream) {
  cudaEvent_t e = nullptr;
  TANDEM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  TANDEM_CUDA_CHECK(cudaEventRecord(e, stream));
  return e;
}
}  // namespace

DataPtr CudaBackend::allocate(size_t nbytes, Device device) {
  return allocate_on(nbytes, device.index, stream(device.index, current_stream(device.index)));
}

DataPtr CudaBackend::allocate_on(size_t nbytes, int device, cudaStream_t s) {
  return allocator_->allocate(nbytes, device, s);
}

DataPtr CudaBackend::allocate_pinned(size_t nbytes) { return pinned_.allocate(nbytes); }
bool CudaBackend::is_pinned(const void* ptr) { return pinned_.is_pinned(ptr); }

// Blocking copies wait for the device: other Python threads run meanwhile. The region opens before the
// staging ring's mutex (see core/long_work.h).
void CudaBackend::copy_host_to_device(void* dst, const void* src, size_t n, Device device) {
  DeviceGuard guard(device);
  cudaStream_t s = stream(device.index, current_stream(device.index));
  LongWorkRegion region;
  if (n >= kStagedMin && !is_pinned(src)) {
    state(device.index).staging.host_to_device(dst, src, n, s);
    return;
  }
  TANDEM_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s));
  TANDEM_CUDA_CHECK(cudaStreamSynchronize(s));
}

void CudaBackend::copy_device_to_host(void* dst, const void* src, size_t n, Device device) {
  DeviceGuard guard(device);
  cudaStream_t s = stream(device.index, current_stream(device.index));
  LongWorkRegion region;
  if (n >= kStagedMin && !is_pinned(dst)) {
    state(device.index).staging.device_to_host(dst, src, n, s);
    return;
  }
  TANDEM_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s));
  TANDEM_CUDA_CHECK(cudaStreamSynchronize(s));
}

void CudaBackend::copy_within_device(void* dst, const void* src, size_t n, Device device) {
  DeviceGuard guard(device);
  TANDEM_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice,
                                    stream(device.index, current_stream(device.index))));
}

// Only pinned memory can be written asynchronously; into pageable memory the copy is a blocking one.
IntrusivePtr<PendingWrite> CudaBackend::copy_device_to_host_async(void* dst, const void* src, size_t n,
                                                                  Device device) {
  if (!is_pinned(dst)) {
    copy_device_to_host(dst, src, n, device);
    return {};
  }
  DeviceGuard guard(device);
  cudaStream_t s = stream(device.index, current_stream(device.index));
  TANDEM_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s));
  return IntrusivePtr<PendingWrite>(new CopyDone(record_done(s)));
}

void CudaBackend::copy_host_to_device_async(void* dst, const void* src, size_t n, Device device,
                                            const Storage& host_owner) {
  if (!is_pinned(src)) {
    copy_host_to_device(dst, src, n, device);
    return;
  }
  release_finished_reads();
  DeviceGuard guard(device);
  cudaStream_t s = stream(device.index, current_stream(device.index));
  TANDEM_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s));
  cudaEvent_t done = record_done(s);
  std::lock_guard<std::mutex> lock(reads_mu_);
  in_flight_reads_.push_back({done, device.index, host_owner});
}

// Drops the host storages of finished non_blocking host-to-device copies (oldest first; the rest are
// checked at the next copy or device sync).
void CudaBackend::release_finished_reads() {
  std::deque<InFlightRead> finished;
  {
    std::lock_guard<std::mutex> lock(reads_mu_);
    while (!in_flight_reads_.empty()) {
      cudaError_t err = cudaEventQuery(in_flight_reads_.front().done);
      if (err == cudaErrorNotReady) {
        (void)cudaGetLastError();  // an answer, not an error for the next launch check to report
        break;
      }
      TANDEM_CUDA_CHECK(err);
      finished.push_back(std::move(in_flight_reads_.front()));
      in_flight_reads_.pop_front();
    }
  }
  for (InFlightRead& r : finished) {
    DeviceGuard guard(cuda_device(r.device));
    TANDEM_CUDA_CHECK(cudaEventDestroy(r.done));
  }  // the storages are released here, outside the lock (their deleters take other locks)
}

}  // namespace tandem::cuda
