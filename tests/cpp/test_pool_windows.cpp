// The pooling window math shared by the CPU and CUDA kernels (kernels/pool_windows.h). The CUDA backward
// kernels gather over outputs_reaching / adaptive_outputs_reaching; here every range is checked against the
// windows themselves, by brute force over many geometries, since the CUDA kernels cannot run on this machine.
#include <gtest/gtest.h>

#include "kernels/pool_windows.h"

namespace tandem {
namespace {

// A 1-D geometry along h (w == 1) with the output count PyTorch's floor/ceil formulas give.
Window2d rows(int64_t h, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  Window2d g;
  g.n = g.c = g.w = g.ow = 1;
  g.h = h;
  g.kh = k;
  g.sh = s;
  g.ph = p;
  g.dh = d;
  const int64_t span = (k - 1) * d + 1, room = h + 2 * p - span;
  g.oh = room < 0 ? 0 : (ceil_mode ? (room + s - 1) / s : room / s) + 1;
  if (ceil_mode && g.oh > 0 && (g.oh - 1) * s >= h + p) --g.oh;  // the last window must start inside
  return g;
}

bool inside(const OutputRange& r, int64_t o) { return o >= r.first && o <= r.last; }

TEST(PoolWindows, DilatedWindowsReachOnlyInsideTheirRange) {
  for (int64_t h = 1; h <= 9; ++h)
    for (int64_t k = 1; k <= 4; ++k)
      for (int64_t s = 1; s <= 3; ++s)
        for (int64_t d = 1; d <= 3; ++d)
          for (int64_t p = 0; p <= k / 2; ++p)
            for (bool ceil_mode : {false, true}) {
              const Window2d g = rows(h, k, s, p, d, ceil_mode);
              for (int64_t i = 0; i < h; ++i) {
                const OutputRange r = outputs_reaching(i, s, p, (k - 1) * d + 1, g.oh);
                for (int64_t o = 0; o < g.oh; ++o)
                  for (int64_t ky = 0; ky < k; ++ky) {
                    if (o * s - p + ky * d == i) {
                      EXPECT_TRUE(inside(r, o)) << h << k << s << d << p << i << o;
                    }
                  }
                EXPECT_GE(r.first, 0);
                EXPECT_LE(r.last, g.oh - 1);
              }
            }
}

TEST(PoolWindows, AvgWindowsHoldExactlyTheInputsOfTheirRange) {
  for (int64_t h = 1; h <= 9; ++h)
    for (int64_t k = 1; k <= 4; ++k)
      for (int64_t s = 1; s <= 3; ++s)
        for (int64_t p = 0; p <= k / 2; ++p)
          for (bool ceil_mode : {false, true})
            for (bool include_pad : {false, true}) {
              const Window2d g = rows(h, k, s, p, 1, ceil_mode);
              for (int64_t i = 0; i < h; ++i) {
                const OutputRange r = outputs_reaching(i, s, p, k, g.oh);
                for (int64_t o = 0; o < g.oh; ++o) {
                  const AvgWindow w = avg_window(g, o, 0, include_pad);
                  EXPECT_EQ(i >= w.y0 && i < w.y1, inside(r, o)) << h << k << s << p << i << o;
                }
              }
            }
}

TEST(PoolWindows, AdaptiveWindowsHoldExactlyTheInputsOfTheirRange) {
  for (int64_t in = 1; in <= 12; ++in)
    for (int64_t out = 1; out <= 12; ++out) {
      Window2d g;
      g.h = in;
      g.oh = out;
      g.w = g.ow = 1;
      for (int64_t j = 0; j < in; ++j) {
        const OutputRange r = adaptive_outputs_reaching(j, out, in);
        for (int64_t o = 0; o < out; ++o) {
          const AvgWindow w = adaptive_window(g, o, 0);
          EXPECT_EQ(j >= w.y0 && j < w.y1, inside(r, o)) << in << " " << out << " " << j << " " << o;
        }
      }
    }
}

}  // namespace
}  // namespace tandem
