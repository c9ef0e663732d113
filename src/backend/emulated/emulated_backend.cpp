#include "backend/emulated/emulated_backend.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backend/allocation_sites.h"
#include "backend/out_of_memory.h"
#include "backend/size_class.h"
#include "core/error.h"

namespace tandem::emulated {

// A freed block that streams named by record_stream may still use: it waits here until the work they had
// queued when it was freed has run (each queue's sequence number then).
struct AwaitedBlock {
  void* ptr;
  size_t cls;
  StreamId stream;
  std::vector<std::pair<WorkQueue*, uint64_t>> waits;
};

struct EmulatedBackend::DeviceState {
  std::mutex mu;
  std::map<std::pair<StreamId, size_t>, std::vector<void*>> cache;  // (stream, size class) -> free blocks
  std::unordered_map<void*, size_t> live;                           // block -> size class
  std::vector<AwaitedBlock> awaited;
  DeviceMemoryStats stats;
  std::vector<std::unique_ptr<WorkQueue>> streams;  // [0] is the default stream

  // With mu held: gives back the blocks whose awaited work has run (all of them after a device sync).
  void reclaim_awaited() {
    std::erase_if(awaited, [&](const AwaitedBlock& b) {
      for (auto& [q, seq] : b.waits)
        if (!q->done(seq)) return false;
      give_back(b.ptr, b.cls, b.stream);
      return true;
    });
  }
  void give_back(void* ptr, size_t cls, StreamId stream) {
    live.erase(ptr);
    stats.allocated -= cls;
    stats.frees++;
    cache[{stream, cls}].push_back(ptr);
  }
};

struct EmulatedBackend::EventState {
  bool timing = false;
  WorkQueue* queue = nullptr;
  uint64_t seq = 0;
  std::chrono::steady_clock::time_point when{};
};

struct EmulatedBackend::BlockContext {
  EmulatedBackend* backend;
  int device;
  void* ptr;
  size_t cls;
  StreamId stream;                // the stream it was allocated for
  std::vector<StreamId> used_on;  // other streams named by record_stream (guarded by the device's mu)
};

namespace {
thread_local int t_current_device = 0;
// Current stream per device for this thread (device index -> stream id).
thread_local std::array<StreamId, 64> t_current_stream{};
}  // namespace

void release_block(void* ctx) {
  auto* c = static_cast<EmulatedBackend::BlockContext*>(ctx);
  c->backend->release(*c);
  delete c;
}

size_t parse_memory_size(const char* text) {
  if (!text || !*text) return 0;
  char* end = nullptr;
  double value = std::strtod(text, &end);
  if (end == text || value <= 0) return 0;
  std::string unit(end);
  unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
  for (auto& ch : unit) ch = static_cast<char>(std::tolower(ch));
  double scale = 1;
  if (unit.empty() || unit == "b")
    scale = 1;
  else if (unit == "kib" || unit == "k")
    scale = 1024.0;
  else if (unit == "mib" || unit == "m")
    scale = 1024.0 * 1024;
  else if (unit == "gib" || unit == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "kb")
    scale = 1e3;
  else if (unit == "mb")
    scale = 1e6;
  else if (unit == "gb")
    scale = 1e9;
  else
    return 0;
  return static_cast<size_t>(value * scale);
}

EmulatedBackend::EmulatedBackend(int devices, size_t capacity) : capacity_(capacity) {
  for (int i = 0; i < devices; ++i) {
    auto d = std::make_unique<DeviceState>();
    d->stats.total = capacity;
    d->streams.push_back(std::make_unique<WorkQueue>());
    devices_.push_back(std::move(d));
  }
}

EmulatedBackend::~EmulatedBackend() = default;

EmulatedBackend::DeviceState& EmulatedBackend::state(int index) { return *devices_[index]; }

Device EmulatedBackend::resolve(Device device) {
  if (device.index < 0) return Device(device.type, static_cast<int16_t>(t_current_device));
  TANDEM_CHECK(device.index < device_count(), Runtime,
               "CUDA error: invalid device ordinal\nhint: ", device.str(),
               " does not exist; this process has ", device_count(),
               " (emulated) CUDA device(s): cuda:0 .. cuda:", device_count() - 1);
  return device;
}

DataPtr EmulatedBackend::allocate(size_t nbytes, Device device) {
  int idx = device.index;
  DeviceState& d = state(idx);
  size_t cls = allocation_size_class(std::max<size_t>(nbytes, 1));
  StreamId stream = current_stream(idx);
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(d.mu);
    d.reclaim_awaited();
    auto it = d.cache.find({stream, cls});
    if (it != d.cache.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
    }
  }
  if (!p) {
    bool fits;
    {
      std::lock_guard<std::mutex> lock(d.mu);
      fits = d.stats.reserved + cls <= capacity_;
    }
    if (!fits) {
      // As on a GPU: give the cache back, then retry once before reporting out-of-memory.
      empty_cache();
      std::lock_guard<std::mutex> lock(d.mu);
      d.stats.alloc_retries++;
      fits = d.stats.reserved + cls <= capacity_;
    }
    if (!fits) throw_oom(idx, nbytes);
    if (posix_memalign(&p, 256, cls) != 0) throw_oom(idx, nbytes);
    std::lock_guard<std::mutex> lock(d.mu);
    d.stats.reserved += cls;
    d.stats.max_reserved = std::max(d.stats.max_reserved, d.stats.reserved);
  }
  std::lock_guard<std::mutex> lock(d.mu);
  d.live[p] = cls;
  d.stats.allocated += cls;
  d.stats.max_allocated = std::max(d.stats.max_allocated, d.stats.allocated);
  d.stats.allocations++;
  allocation_sites::note_allocation(device, p, cls);
  return DataPtr(p, new BlockContext{this, idx, p, cls, stream, {}}, &release_block);
}

// A freed block goes back to the cache of the stream it was allocated for at once. That is safe while work
// that still reads it is queued there: whoever gets the block next enqueues behind that work on the same
// stream, as with CUDA's allocator. Work on other streams is the user's to declare (record_stream): the
// block then waits until that work has run.
void EmulatedBackend::release(const BlockContext& block) {
  DeviceState& d = state(block.device);
  allocation_sites::note_free(block.ptr);
  std::vector<std::pair<WorkQueue*, uint64_t>> waits;
  {
    std::lock_guard<std::mutex> lock(d.mu);
    for (StreamId s : block.used_on) {
      WorkQueue& q = *d.streams[s];
      waits.emplace_back(&q, q.last_pushed());
    }
    if (waits.empty())
      d.give_back(block.ptr, block.cls, block.stream);
    else
      d.awaited.push_back({block.ptr, block.cls, block.stream, std::move(waits)});
  }
}

bool EmulatedBackend::record_stream(const DataPtr& data, int device, StreamId stream) {
  if (data.deleter != &release_block) return false;
  auto* block = static_cast<BlockContext*>(data.ctx);
  queue(device, stream);  // validates the stream
  DeviceState& d = state(block->device);
  std::lock_guard<std::mutex> lock(d.mu);
  auto& used = block->used_on;
  if (stream != block->stream && std::find(used.begin(), used.end(), stream) == used.end())
    used.push_back(stream);
  return true;
}

void EmulatedBackend::empty_cache() {
  for (int i = 0; i < device_count(); ++i) {
    synchronize(Device(DeviceType::CUDA, static_cast<int16_t>(i)));  // no queued work may touch freed memory
    DeviceState& d = state(i);
    std::lock_guard<std::mutex> lock(d.mu);
    d.reclaim_awaited();  // all of them: their streams have just been synchronised
    for (auto& [key, blocks] : d.cache) {
      for (void* p : blocks) std::free(p);
      d.stats.reserved -= key.second * blocks.size();
    }
    d.cache.clear();
  }
}

void EmulatedBackend::throw_oom(int device, size_t requested) {
  DeviceMemoryStats s = memory_stats(device);
  {
    std::lock_guard<std::mutex> lock(state(device).mu);
    state(device).stats.ooms++;
  }
  OutOfMemoryReport r;
  r.device = Device(DeviceType::CUDA, static_cast<int16_t>(device));
  r.requested = requested;
  r.total = capacity_;
  r.free = capacity_ > s.reserved ? capacity_ - s.reserved : 0;
  r.allocated = s.allocated;
  r.reserved = s.reserved;
  r.largest = largest_live_allocations(device, 3);
  r.note = "emulated device capped by TANDEM_EMULATE_CUDA_MEMORY";
  throw_out_of_memory(r);
}

DeviceMemoryStats EmulatedBackend::memory_stats(int index) {
  DeviceState& d = state(index);
  std::lock_guard<std::mutex> lock(d.mu);
  return d.stats;
}

void EmulatedBackend::reset_peak_memory_stats(int index) {
  DeviceState& d = state(index);
  std::lock_guard<std::mutex> lock(d.mu);
  d.stats.max_allocated = d.stats.allocated;
  d.stats.max_reserved = d.stats.reserved;
}

std::vector<size_t> EmulatedBackend::largest_live_allocations(int index, size_t count) {
  DeviceState& d = state(index);
  std::vector<size_t> sizes;
  {
    std::lock_guard<std::mutex> lock(d.mu);
    for (auto& [p, cls] : d.live) sizes.push_back(cls);
  }
  std::sort(sizes.rbegin(), sizes.rend());
  if (sizes.size() > count) sizes.resize(count);
  return sizes;
}

int EmulatedBackend::current_device() const { return t_current_device; }
void EmulatedBackend::set_current_device(int index) {
  resolve(Device(DeviceType::CUDA, static_cast<int16_t>(index)));
  t_current_device = index;
}

DeviceProperties EmulatedBackend::properties(int index) {
  DeviceProperties p;
  p.name =
      "tandem emulated CUDA device " + std::to_string(index) + " (host memory and CPU threads, for testing)";
  p.total_memory = capacity_;
  p.major = 0;
  p.minor = 0;
  p.multi_processor_count = 1;
  p.emulated = true;
  return p;
}

WorkQueue& EmulatedBackend::queue(int device, StreamId stream) {
  DeviceState& d = state(device);
  std::lock_guard<std::mutex> lock(d.mu);
  TANDEM_CHECK(stream >= 0 && stream < static_cast<StreamId>(d.streams.size()), Runtime, "invalid stream ",
               stream, " for cuda:", device);
  return *d.streams[stream];
}

void EmulatedBackend::enqueue(Device device, std::function<void()> task) {
  queue(device.index, current_stream(device.index)).push(std::move(task));
}

void EmulatedBackend::run_and_wait(Device device, std::function<void()> task) {
  WorkQueue& q = queue(device.index, current_stream(device.index));
  q.wait_for(q.push(std::move(task)));
}

// A copy from pageable host memory returns once the data has been read, as cudaMemcpy does.
void EmulatedBackend::copy_host_to_device(void* dst, const void* src, size_t n, Device device) {
  run_and_wait(device, [=] { std::memcpy(dst, src, n); });
}

void EmulatedBackend::copy_device_to_host(void* dst, const void* src, size_t n, Device device) {
  run_and_wait(device, [=] { std::memcpy(dst, src, n); });
}

void EmulatedBackend::copy_within_device(void* dst, const void* src, size_t n, Device device) {
  enqueue(device, [=] { std::memcpy(dst, src, n); });
}

void EmulatedBackend::synchronize(Device device) {
  DeviceState& d = state(device.index);
  std::vector<WorkQueue*> qs;
  {
    std::lock_guard<std::mutex> lock(d.mu);
    for (auto& q : d.streams) qs.push_back(q.get());
  }
  for (WorkQueue* q : qs) q->synchronize();
  release_finished_reads();
}

StreamId EmulatedBackend::create_stream(int device) {
  DeviceState& d = state(device);
  std::lock_guard<std::mutex> lock(d.mu);
  d.streams.push_back(std::make_unique<WorkQueue>());
  return static_cast<StreamId>(d.streams.size() - 1);
}
StreamId EmulatedBackend::current_stream(int device) {
  return device < static_cast<int>(t_current_stream.size()) ? t_current_stream[device] : 0;
}
void EmulatedBackend::set_current_stream(int device, StreamId stream) {
  queue(device, stream);  // validates
  t_current_stream[device] = stream;
}
void EmulatedBackend::synchronize_stream(int device, StreamId stream) { queue(device, stream).synchronize(); }
bool EmulatedBackend::query_stream(int device, StreamId stream) { return queue(device, stream).idle(); }

EventId EmulatedBackend::create_event(bool timing) {
  std::lock_guard<std::mutex> lock(events_mu_);
  auto e = std::make_shared<EventState>();
  e->timing = timing;
  events_[next_event_] = e;
  return next_event_++;
}
void EmulatedBackend::destroy_event(EventId event) {
  std::lock_guard<std::mutex> lock(events_mu_);
  events_.erase(event);
}

void EmulatedBackend::record_event(EventId event, int device, StreamId stream) {
  std::shared_ptr<EventState> e;
  {
    std::lock_guard<std::mutex> lock(events_mu_);
    e = events_.at(event);
  }
  WorkQueue& q = queue(device, stream);
  e->queue = &q;
  e->seq = q.push([e] { e->when = std::chrono::steady_clock::now(); });
}

void EmulatedBackend::wait_event(EventId event, int device, StreamId stream) {
  std::shared_ptr<EventState> e;
  {
    std::lock_guard<std::mutex> lock(events_mu_);
    e = events_.at(event);
  }
  if (!e->queue) return;  // never recorded: nothing to wait for, as in CUDA
  WorkQueue* src = e->queue;
  uint64_t seq = e->seq;
  WorkQueue& dst = queue(device, stream);
  if (src == &dst) return;
  dst.push([src, seq] { src->wait_for(seq); });
}

void EmulatedBackend::synchronize_event(EventId event) {
  std::shared_ptr<EventState> e;
  {
    std::lock_guard<std::mutex> lock(events_mu_);
    e = events_.at(event);
  }
  if (e->queue) e->queue->wait_for(e->seq);
}

bool EmulatedBackend::query_event(EventId event) {
  std::shared_ptr<EventState> e;
  {
    std::lock_guard<std::mutex> lock(events_mu_);
    e = events_.at(event);
  }
  return !e->queue || e->queue->done(e->seq);
}

double EmulatedBackend::elapsed_ms(EventId start, EventId end) {
  std::shared_ptr<EventState> a, b;
  {
    std::lock_guard<std::mutex> lock(events_mu_);
    a = events_.at(start);
    b = events_.at(end);
  }
  TANDEM_CHECK(a->timing && b->timing, Runtime,
               "Both events must be created with argument 'enable_timing=True'.");
  TANDEM_CHECK(a->queue && b->queue, Runtime,
               "Both events must be recorded before calculating elapsed time.");
  a->queue->wait_for(a->seq);
  b->queue->wait_for(b->seq);
  return std::chrono::duration<double, std::milli>(b->when - a->when).count();
}

}  // namespace tandem::emulated
