// Storage: a block of memory on one device, owned through a DataPtr whose deleter knows how to give it back
// (to a caching allocator, to NumPy by dropping a reference, to a DLPack producer). That is what lets foreign
// buffers enter without a copy.
#pragma once
#include <atomic>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "core/device.h"
#include "core/inference_mode.h"
#include "core/intrusive_ptr.h"
#include "core/profiler_flags.h"

namespace tandem {

struct DataPtr {
  void* ptr = nullptr;
  void* ctx = nullptr;                   // what the deleter needs (often == ptr)
  void (*deleter)(void* ctx) = nullptr;  // null: memory not owned

  DataPtr() = default;
  DataPtr(void* p, void* c, void (*d)(void*)) : ptr(p), ctx(c), deleter(d) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& o) noexcept
      : ptr(std::exchange(o.ptr, nullptr)),
        ctx(std::exchange(o.ctx, nullptr)),
        deleter(std::exchange(o.deleter, nullptr)) {}
  DataPtr& operator=(DataPtr&& o) noexcept {
    DataPtr tmp(std::move(o));
    std::swap(ptr, tmp.ptr);
    std::swap(ctx, tmp.ctx);
    std::swap(deleter, tmp.deleter);
    return *this;
  }
  ~DataPtr() {
    if (deleter) deleter(ctx);
  }
};

// Work that is still writing into a storage's memory: an asynchronous (non_blocking) device-to-host copy.
// A backend makes one per such copy; wait() blocks until the write is done and may be called repeatedly.
class PendingWrite : public RefCounted {
 public:
  virtual void wait() = 0;
};

class StorageImpl : public RefCounted {
 public:
  StorageImpl(DataPtr data, size_t nbytes, Device device)
      : data_(std::move(data)), nbytes_(nbytes), device_(device), inference_(InferenceMode::is_enabled()) {}
  // Memory still being written must not be freed under the copy. (A device error while waiting cannot be
  // raised from a destructor; the next CUDA call reports it.)
  ~StorageImpl() override {
    if (from_allocator_ && profiler::profiling_memory())
      profiler::note_memory(device_, -static_cast<int64_t>(nbytes_));
    if (!has_pending_.load(std::memory_order_acquire)) return;
    try {
      wait_pending_writes();
    } catch (...) {
    }
  }
  // The pointer host code reads and writes through: waits for pending writes first, so the result of a
  // non_blocking copy is never seen half-written. One relaxed-cost flag check when nothing is pending.
  void* data() const {
    if (__builtin_expect(has_pending_.load(std::memory_order_acquire), 0)) wait_pending_writes();
    return data_.ptr;
  }
  // The pointer without waiting: only for queuing more device work on the memory (another async copy).
  void* data_without_waiting() const { return data_.ptr; }
  // Who owns the memory (the allocator's context), for allocator bookkeeping such as record_stream.
  const DataPtr& owner() const { return data_; }
  void add_pending_write(IntrusivePtr<PendingWrite> write);
  bool has_pending_writes() const { return has_pending_.load(std::memory_order_acquire); }
  void wait_pending_writes() const;
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  // Bumped by every in-place write; autograd compares it with the value saved at forward time.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }
  void reset_version() { version_.store(0, std::memory_order_relaxed); }
  bool writeable() const { return writeable_; }
  // Allocated under inference_mode (core/inference_mode.h): the memory of inference tensors.
  bool is_inference() const { return inference_; }
  // Memory from the device's allocator (not a NumPy or DLPack buffer): the memory profiler counts its free.
  void set_from_allocator() { from_allocator_ = true; }
  void set_writeable(bool w) { writeable_ = w; }
  // Only memory from the device's allocator can be replaced by a bigger block (resize_); a NumPy or DLPack
  // buffer belongs to its producer (PyTorch: "Trying to resize storage that is not resizable").
  bool resizable() const { return from_allocator_; }
  // Exchanges the memory of two storages (resize_ grows a storage in place: every tensor on it, views
  // included, then sees the bigger block, as in PyTorch). Never while work on either is in flight.
  void swap_memory(StorageImpl& other) {
    std::swap(data_, other.data_);
    std::swap(nbytes_, other.nbytes_);
  }
  // resize_ made the storage smaller than it was (PyTorch programs free activations with resize_(0) and grow
  // them back): from then on each tensor checks its extent against nbytes() when it reads its data
  // (TensorImpl::data), so a tensor past the end raises instead of reading freed memory.
  void mark_shrunk() { shrunk_.store(true, std::memory_order_relaxed); }
  bool shrunk() const { return shrunk_.load(std::memory_order_relaxed); }
  // The memory was handed out with a reference to this storage (a NumPy buffer, a DLPack capsule): those
  // consumers keep reading the block they were given, so a block replaced by resize_ must outlive them.
  void mark_exported() { exported_ = true; }
  bool exported() const { return exported_; }
  // Keeps a replaced block (owned by `old`) alive as long as this storage.
  void retire(IntrusivePtr<StorageImpl> old) { retired_.push_back(std::move(old)); }

 private:
  DataPtr data_;
  size_t nbytes_;
  Device device_;
  std::atomic<uint32_t> version_{0};
  bool writeable_ = true;
  bool inference_;
  bool from_allocator_ = false;
  bool exported_ = false;
  std::atomic<bool> shrunk_{false};
  std::vector<IntrusivePtr<StorageImpl>> retired_;
  mutable std::atomic<bool> has_pending_{false};
  mutable std::mutex pending_mu_;
  mutable std::vector<IntrusivePtr<PendingWrite>> pending_;
};

using Storage = IntrusivePtr<StorageImpl>;

}  // namespace tandem
