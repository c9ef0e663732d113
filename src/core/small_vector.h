// DimVector: sizes/strides with inline room for the common ranks, so creating a tensor does not hit the heap
// for its shape. Falls back to the heap past kInline dims.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>

namespace tandem {

class DimVector {
 public:
  static constexpr size_t kInline = 6;

  DimVector() = default;
  explicit DimVector(size_t n, int64_t value = 0) { resize(n, value); }
  DimVector(std::initializer_list<int64_t> v) { assign(v.begin(), v.size()); }
  DimVector(std::span<const int64_t> v) { assign(v.data(), v.size()); }
  DimVector(const DimVector& o) { assign(o.data(), o.size()); }
  DimVector(DimVector&& o) noexcept { steal(o); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o.data(), o.size());
    return *this;
  }
  DimVector& operator=(DimVector&& o) noexcept {
    if (this != &o) steal(o);
    return *this;
  }

  int64_t* data() { return heap_ ? heap_.get() : inline_; }
  const int64_t* data() const { return heap_ ? heap_.get() : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t back() const { return data()[size_ - 1]; }
  operator std::span<const int64_t>() const { return {data(), size_}; }

  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = value;
    size_ = n;
  }
  void push_back(int64_t v) {
    reserve(size_ + 1);
    data()[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    reserve(size_ + 1);
    int64_t* d = data();
    std::memmove(d + pos + 1, d + pos, (size_ - pos) * sizeof(int64_t));
    d[pos] = v;
    ++size_;
  }
  void erase(size_t pos) {
    int64_t* d = data();
    std::memmove(d + pos, d + pos + 1, (size_ - pos - 1) * sizeof(int64_t));
    --size_;
  }
  bool operator==(const DimVector& o) const {
    return size_ == o.size_ && std::equal(begin(), end(), o.begin());
  }
  bool operator!=(const DimVector& o) const { return !(*this == o); }

 private:
  void reserve(size_t n) {
    if (n <= capacity()) return;
    size_t cap = std::max(n, capacity() * 2);
    auto fresh = std::make_unique<int64_t[]>(cap);
    std::memcpy(fresh.get(), data(), size_ * sizeof(int64_t));
    heap_ = std::move(fresh);
    heap_cap_ = cap;
  }
  size_t capacity() const { return heap_ ? heap_cap_ : kInline; }
  void assign(const int64_t* src, size_t n) {
    if (n > capacity()) {
      heap_ = std::make_unique<int64_t[]>(n);
      heap_cap_ = n;
    }
    // copy_n, not memmove: an empty span's data() may be null, which memmove must not be given even for 0
    // bytes.
    std::copy_n(src, n, data());
    size_ = n;
  }
  void steal(DimVector& o) {
    if (o.heap_) {
      heap_ = std::move(o.heap_);
      heap_cap_ = o.heap_cap_;
      size_ = o.size_;
    } else {
      heap_.reset();
      assign(o.inline_, o.size_);
    }
    o.size_ = 0;
  }

  int64_t inline_[kInline];
  std::unique_ptr<int64_t[]> heap_;
  size_t heap_cap_ = 0;
  size_t size_ = 0;
};

using IntArrayRef = std::span<const int64_t>;

}  // namespace tandem
