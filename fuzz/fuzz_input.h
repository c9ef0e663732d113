// Reads libFuzzer's bytes as a small program: op codes, counts and integers. Integers are mostly small (the
// sizes and dims real code passes) with one-byte escapes to the edges where overflow bugs live, so mutations
// reach both. fuzz/make_corpus.py writes seeds in the same encoding; keep the two in step.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/small_vector.h"

namespace tandem::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  // The next byte, 0 once the input is used up (so every input decodes to something).
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // A value in [0, n).
  int choice(int n) { return byte() % n; }

  // A byte is a signed char (-120..127), except the eight most negative ones: 0x80 is an escape for the
  // next 8 bytes (little-endian) and 0x81-0x87 stand for values at the edges of int64 arithmetic.
  int64_t integer() {
    uint8_t b = byte();
    if (b < 0x80 || b > 0x87) return static_cast<int8_t>(b);
    if (b == 0x80) {
      uint64_t v = 0;
      for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(byte()) << (8 * i);
      int64_t out;
      std::memcpy(&out, &v, sizeof out);
      return out;
    }
    static constexpr int64_t kEdges[] = {std::numeric_limits<int64_t>::max(),
                                         std::numeric_limits<int64_t>::min(),
                                         int64_t{1} << 62,
                                         -(int64_t{1} << 62),
                                         int64_t{1} << 32,
                                         std::numeric_limits<int32_t>::max(),
                                         std::numeric_limits<int64_t>::max() / 3};
    return kEdges[b - 0x81];
  }

  // A count byte (up to max_len) followed by that many integers.
  DimVector int_list(int max_len) {
    DimVector out;
    for (int n = choice(max_len + 1); n > 0; --n) out.push_back(integer());
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace tandem::fuzz
