// CudaBackend: devices, properties, memory statistics, streams, events and interop. Copies and memory are
// in cuda_copies.cpp.
#include "backend/cuda/cuda_backend.h"

#include <array>
#include <chrono>
#include <thread>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "core/error.h"
#include "core/long_work.h"

namespace tandem::cuda {

namespace {
constexpr int kMaxDevices = 64;
// The calling thread's current stream on each device.
thread_local std::array<StreamId, kMaxDevices> t_current_stream{};

std::vector<size_t> total_memories(int count) {
  std::vector<size_t> totals;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    TANDEM_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
    totals.push_back(p.totalGlobalMem);
  }
  return totals;
}

cudaStream_t foreign_handle(uintptr_t foreign) {
  if (foreign == 1) return cudaStreamLegacy;
  if (foreign == 2) return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t>(foreign);
}

// "Not ready" is an answer, not a failure; cleared (as PyTorch does) so that the next launch check's
// cudaGetLastError cannot report it as an error of an unrelated kernel.
bool not_ready() {
  (void)cudaGetLastError();
  return false;
}

void CUDART_CB sleep_on_stream(void* ms) {
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(*static_cast<double*>(ms)));
  delete static_cast<double*>(ms);
}
}  // namespace

CudaBackend::CudaBackend(int device_count)
    : allocator_(std::make_unique<CudaAllocator>(total_memories(device_count))) {
  for (int i = 0; i < std::min(device_count, kMaxDevices); ++i) {
    auto d = std::make_unique<DeviceState>();
    cudaDeviceProp p{};
    TANDEM_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
    d->props.name = p.name;
    d->props.total_memory = p.totalGlobalMem;
    d->props.major = p.major;
    d->props.minor = p.minor;
    d->props.multi_processor_count = p.multiProcessorCount;
    d->props.emulated = false;
    d->streams.push_back(nullptr);  // the default stream, created on first use
    devices_.push_back(std::move(d));
  }
}

Device CudaBackend::resolve(Device device) {
  if (device.index < 0) return Device(device.type, static_cast<int16_t>(current_device()));
  TANDEM_CHECK(device.index < device_count(), Runtime,
               "CUDA error: invalid device ordinal\nhint: ", device.str(),
               " does not exist; this process has ", device_count(),
               " CUDA device(s): cuda:0 .. cuda:", device_count() - 1);
  return device;
}

int CudaBackend::current_device() const {
  int d = 0;
  TANDEM_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void CudaBackend::set_current_device(int index) {
  resolve(Device(DeviceType::CUDA, static_cast<int16_t>(index)));
  TANDEM_CUDA_CHECK(cudaSetDevice(index));
}

DeviceProperties CudaBackend::properties(int index) { return state(index).props; }
DeviceMemoryStats CudaBackend::memory_stats(int index) { return allocator_->stats(index); }
bool CudaBackend::record_stream(const DataPtr& data, int device, StreamId stream) {
  return allocator_->record_stream(data, this->stream(device, stream));
}
void CudaBackend::reset_peak_memory_stats(int index) { allocator_->reset_peak_stats(index); }
std::pair<size_t, size_t> CudaBackend::mem_get_info(int index) {
  DeviceGuard guard(Device(DeviceType::CUDA, static_cast<int16_t>(index)));
  size_t free = 0, total = 0;
  TANDEM_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return {free, total};
}
std::vector<size_t> CudaBackend::largest_live_allocations(int index, size_t count) {
  return allocator_->largest_live_allocations(index, count);
}
void CudaBackend::empty_cache() {
  allocator_->empty_cache();
  pinned_.empty_cache();
}

void CudaBackend::synchronize(Device device) {
  DeviceGuard guard(device);
  {
    LongWorkRegion region;  // other Python threads run while this one waits for the device
    TANDEM_CUDA_CHECK(cudaDeviceSynchronize());
  }
  release_finished_reads();
}

cudaStream_t CudaBackend::stream(int device, StreamId id) {
  DeviceState& d = state(device);
  std::lock_guard<std::mutex> lock(d.mu);
  TANDEM_CHECK(id >= 0 && id < static_cast<StreamId>(d.streams.size()), Runtime, "invalid stream ", id,
               " for cuda:", device);
  if (!d.streams[id]) {
    DeviceGuard guard(Device(DeviceType::CUDA, static_cast<int16_t>(device)));
    TANDEM_CUDA_CHECK(cudaStreamCreateWithFlags(&d.streams[id], cudaStreamNonBlocking));
  }
  return d.streams[id];
}

StreamId CudaBackend::create_stream(int device) {
  DeviceState& d = state(device);
  DeviceGuard guard(Device(DeviceType::CUDA, static_cast<int16_t>(device)));
  cudaStream_t s = nullptr;
  TANDEM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::lock_guard<std::mutex> lock(d.mu);
  d.streams.push_back(s);
  return static_cast<StreamId>(d.streams.size() - 1);
}

StreamId CudaBackend::current_stream(int device) { return t_current_stream[device]; }

void CudaBackend::set_current_stream(int device, StreamId id) {
  stream(device, id);  // validates
  t_current_stream[device] = id;
}

void CudaBackend::synchronize_stream(int device, StreamId id) {
  cudaStream_t s = stream(device, id);
  LongWorkRegion region;
  TANDEM_CUDA_CHECK(cudaStreamSynchronize(s));
}

bool CudaBackend::query_stream(int device, StreamId id) {
  cudaError_t err = cudaStreamQuery(stream(device, id));
  if (err == cudaErrorNotReady) return not_ready();
  TANDEM_CUDA_CHECK(err);
  return true;
}

CudaBackend::Event& CudaBackend::event(EventId id) {
  auto it = events_.find(id);
  TANDEM_CHECK(it != events_.end(), Runtime, "invalid CUDA event ", id);
  return it->second;
}

EventId CudaBackend::create_event(bool timing) {
  std::lock_guard<std::mutex> lock(events_mu_);
  events_[next_event_].timing = timing;
  return next_event_++;
}

void CudaBackend::destroy_event(EventId id) {
  std::lock_guard<std::mutex> lock(events_mu_);
  auto it = events_.find(id);
  if (it == events_.end()) return;
  if (it->second.handle) TANDEM_CUDA_CHECK(cudaEventDestroy(it->second.handle));
  events_.erase(it);
}

// A CUDA event belongs to the device it was created on; recording on another device re-creates it there.
void CudaBackend::record_event(EventId id, int device, StreamId s) {
  cudaStream_t st = stream(device, s);
  std::lock_guard<std::mutex> lock(events_mu_);
  Event& e = event(id);
  DeviceGuard guard(Device(DeviceType::CUDA, static_cast<int16_t>(device)));
  if (e.handle && e.device != device) {
    TANDEM_CUDA_CHECK(cudaEventDestroy(e.handle));
    e.handle = nullptr;
  }
  if (!e.handle) {
    TANDEM_CUDA_CHECK(
        cudaEventCreateWithFlags(&e.handle, e.timing ? cudaEventDefault : cudaEventDisableTiming));
    e.device = device;
  }
  TANDEM_CUDA_CHECK(cudaEventRecord(e.handle, st));
  e.recorded = true;
}

void CudaBackend::wait_event(EventId id, int device, StreamId s) {
  cudaStream_t st = stream(device, s);
  std::lock_guard<std::mutex> lock(events_mu_);
  Event& e = event(id);
  if (!e.recorded) return;  // never recorded: nothing to wait for, as in CUDA
  DeviceGuard guard(Device(DeviceType::CUDA, static_cast<int16_t>(device)));
  TANDEM_CUDA_CHECK(cudaStreamWaitEvent(st, e.handle, 0));
}

void CudaBackend::synchronize_event(EventId id) {
  cudaEvent_t h;
  {
    std::lock_guard<std::mutex> lock(events_mu_);
    Event& e = event(id);
    if (!e.recorded) return;
    h = e.handle;
  }
  LongWorkRegion region;
  TANDEM_CUDA_CHECK(cudaEventSynchronize(h));
}

bool CudaBackend::query_event(EventId id) {
  std::lock_guard<std::mutex> lock(events_mu_);
  Event& e = event(id);
  if (!e.recorded) return true;
  cudaError_t err = cudaEventQuery(e.handle);
  if (err == cudaErrorNotReady) return not_ready();
  TANDEM_CUDA_CHECK(err);
  return true;
}

double CudaBackend::elapsed_ms(EventId start, EventId end) {
  std::lock_guard<std::mutex> lock(events_mu_);
  Event& a = event(start);
  Event& b = event(end);
  TANDEM_CHECK(a.timing && b.timing, Runtime,
               "Both events must be created with argument 'enable_timing=True'.");
  TANDEM_CHECK(a.recorded && b.recorded, Runtime,
               "Both events must be recorded before calculating elapsed time.");
  // cudaEventElapsedTime needs both events completed; on two streams the start may finish after the end.
  TANDEM_CUDA_CHECK(cudaEventSynchronize(a.handle));
  TANDEM_CUDA_CHECK(cudaEventSynchronize(b.handle));
  float ms = 0;
  TANDEM_CUDA_CHECK(cudaEventElapsedTime(&ms, a.handle, b.handle));
  return ms;
}

// A host callback that sleeps holds the stream without a kernel; CUDA runs later work after it returns.
void CudaBackend::delay_stream(int device, StreamId s, double ms) {
  cudaStream_t st = stream(device, s);
  auto* arg = new double(ms);
  cudaError_t err = cudaLaunchHostFunc(st, &sleep_on_stream, arg);
  if (err != cudaSuccess) delete arg;
  TANDEM_CUDA_CHECK(err);
}

uintptr_t CudaBackend::native_stream(int device, StreamId s) {
  return reinterpret_cast<uintptr_t>(stream(device, s));
}

namespace {
// `waiter` waits for everything queued so far on `waited`, through a one-shot event.
void order_after(int device, cudaStream_t waiter, cudaStream_t waited) {
  DeviceGuard guard(Device(DeviceType::CUDA, static_cast<int16_t>(device)));
  cudaEvent_t e = nullptr;
  TANDEM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  TANDEM_CUDA_CHECK(cudaEventRecord(e, waited));
  TANDEM_CUDA_CHECK(cudaStreamWaitEvent(waiter, e, 0));
  TANDEM_CUDA_CHECK(cudaEventDestroy(e));  // released by CUDA once the wait is done
}
}  // namespace

void CudaBackend::foreign_stream_wait(int device, uintptr_t foreign, StreamId s) {
  order_after(device, foreign_handle(foreign), stream(device, s));
}

void CudaBackend::stream_wait_foreign(int device, StreamId s, uintptr_t foreign) {
  order_after(device, stream(device, s), foreign_handle(foreign));
}

int CudaBackend::native_pointer_device(const void* ptr) {
  cudaPointerAttributes attr{};
  cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
  if (err != cudaSuccess) {
    cudaGetLastError();  // an unknown pointer is an answer here, not an error to keep around
    return -1;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ? attr.device : -1;
}

}  // namespace tandem::cuda
