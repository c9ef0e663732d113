// Storage: a block of memory on one device, owned through a DataPtr whose deleter knows how to give it back
// (to a caching allocator, to NumPy by dropping a reference, to a DLPack producer). That is what lets foreign
// buffers enter without a copy.
#pragma once
#include <atomic>
#include <cstddef>
#include <utility>

#include "core/device.h"
#include "core/intrusive_ptr.h"

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
      : ptr(std::exchange(o.ptr, nullptr)), ctx(std::exchange(o.ctx, nullptr)),
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

class StorageImpl : public RefCounted {
 public:
  StorageImpl(DataPtr data, size_t nbytes, Device device)
      : data_(std::move(data)), nbytes_(nbytes), device_(device) {}
  void* data() const { return data_.ptr; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  // Bumped by every in-place write; autograd compares it with the value saved at forward time.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }
  bool writeable() const { return writeable_; }
  void set_writeable(bool w) { writeable_ = w; }

 private:
  DataPtr data_;
  size_t nbytes_;
  Device device_;
  std::atomic<uint32_t> version_{0};
  bool writeable_ = true;
};

using Storage = IntrusivePtr<StorageImpl>;

}  // namespace tandem
