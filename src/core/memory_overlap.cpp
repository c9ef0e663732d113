#include "core/memory_overlap.h"

#include <algorithm>

namespace tandem {

bool non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  DimVector dims;  // the dims that matter (size > 1), by increasing stride
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] != 1) dims.push_back(d);
  std::sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return t.strides()[a] < t.strides()[b]; });
  int64_t expected = 1;
  for (int64_t d : dims) {
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

namespace {

// How two dense tensors of one storage lie: apart, on the same bytes, or on some of the same bytes.
enum class Overlap { None, Same, Partial };
Overlap dense_overlap(const Tensor& written, const Tensor& read) {
  if (written.numel() == 0 || read.numel() == 0 || read.storage().get() != written.storage().get())
    return Overlap::None;
  if (!non_overlapping_and_dense(written) || !non_overlapping_and_dense(read)) return Overlap::None;
  const char* a = static_cast<const char*>(written.data_ptr());
  const char* b = static_cast<const char*>(read.data_ptr());
  const char* a_end = a + written.numel() * static_cast<int64_t>(written.element_size());
  const char* b_end = b + read.numel() * static_cast<int64_t>(read.element_size());
  if (a == b && a_end == b_end) return Overlap::Same;
  return a < b_end && b < a_end ? Overlap::Partial : Overlap::None;
}

}  // namespace

bool overlaps_partially(const Tensor& written, const Tensor& read) {
  if (read.impl() == written.impl()) return false;
  const Overlap o = dense_overlap(written, read);
  return o == Overlap::Partial || (o == Overlap::Same && written.strides() != read.strides());
}

bool shares_memory(const Tensor& written, const Tensor& read) {
  return dense_overlap(written, read) != Overlap::None;
}

}  // namespace tandem
