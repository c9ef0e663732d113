// Invariants every tensor a fuzz target produces must keep. A broken one aborts with the tensor's geometry,
// which libFuzzer records as a crash (and saves the input that caused it).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <tandem/tandem.h>

namespace tandem::fuzz {

// Tensors up to this many elements are materialised and compared element by element; larger ones (expand
// makes them cheaply) get the bounds check only, which is arithmetic.
constexpr int64_t kMaxCheckedNumel = 4096;

[[noreturn]] inline void fail(const char* what, const Tensor& t) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n  sizes %s strides %s offset %lld storage %zu bytes\n",
               what, t.shape_str().c_str(), shape_to_string(t.strides()).c_str(),
               static_cast<long long>(t.storage_offset()), t.storage()->nbytes());
  std::abort();
}

// A contiguous float64 tensor whose element i holds i, so a value names the storage slot it came from.
inline Tensor iota(IntArrayRef sizes) {
  Tensor t = empty(sizes, DType::Float64);
  auto* p = t.data<double>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<double>(i);
  return t;
}

// Calls f(storage index) for every element of t in row-major order (t's bounds already checked).
template <typename F>
void for_each_offset(const Tensor& t, F f) {
  if (t.numel() == 0) return;
  DimVector index(t.dim(), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t offset = t.storage_offset();
    for (int64_t d = 0; d < t.dim(); ++d) offset += index[d] * t.strides()[d];
    f(offset);
    for (int64_t d = t.dim() - 1; d >= 0 && ++index[d] == t.sizes()[d]; --d) index[d] = 0;
  }
}

// The geometry is self-consistent and every element lies inside the storage (arithmetic only).
inline void check_geometry(const Tensor& t) {
  if (t.sizes().size() != t.strides().size()) fail("sizes and strides differ in length", t);
  __int128 numel = 1, lo = t.storage_offset(), hi = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] < 0) fail("negative size", t);
    numel *= t.sizes()[d];
    if (numel > std::numeric_limits<int64_t>::max()) numel = std::numeric_limits<int64_t>::max();
    __int128 span = static_cast<__int128>(t.sizes()[d] - (t.sizes()[d] > 0)) * t.strides()[d];
    (span < 0 ? lo : hi) += span;
  }
  if (numel != t.numel()) fail("numel differs from the product of the sizes", t);
  if (t.numel() == 0) return;
  __int128 slots = t.storage()->nbytes() / t.element_size();
  if (lo < 0 || hi >= slots) fail("an element lies outside the storage", t);
}

// Up to kMaxCheckedNumel elements: the contiguous copy holds exactly the bytes the geometry addresses, and
// view(-1) and back round-trips (in place for a contiguous tensor). t's geometry must already be checked.
inline void check_values(const Tensor& t) {
  if (t.numel() == 0 || t.numel() > kMaxCheckedNumel) return;
  Tensor c = contiguous(t);
  if (!c.is_contiguous() || c.sizes() != t.sizes()) fail("contiguous() changed the shape", t);
  const auto* base = static_cast<const char*>(t.storage()->data());
  const auto* copied = static_cast<const char*>(c.data_ptr());
  const size_t width = t.element_size();
  int64_t i = 0;
  for_each_offset(t, [&](int64_t offset) {
    if (std::memcmp(copied + width * i++, base + width * offset, width) != 0)
      fail("contiguous() copied another element", t);
  });
  Tensor back = view(view(c, DimVector{-1}), t.sizes());
  if (back.data_ptr() != c.data_ptr() || !back.is_contiguous() || back.sizes() != t.sizes())
    fail("view(-1) and back did not round-trip", t);
  if (t.is_contiguous() && view(t, DimVector{-1}).data_ptr() != t.data_ptr())
    fail("a contiguous tensor did not view as 1-D in place", t);
}

inline void check_tensor(const Tensor& t) {
  check_geometry(t);
  check_values(t);
}

}  // namespace tandem::fuzz
