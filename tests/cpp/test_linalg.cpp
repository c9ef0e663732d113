// The gemm kernel slot against a plain triple loop, over operand layouts the front ends produce: row-major,
// transposed, padded rows, neither stride 1 (copied for BLAS), zero strides (broadcast) and batches.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/kernel_table.h"

using namespace tandem;

namespace {

struct Layout {
  int64_t rs, cs;
};

// Fills `storage` so that element (i, j) of an r x c matrix with strides (rs, cs) holds a small integer.
template <typename T>
void fill(std::vector<T>& storage, int64_t r, int64_t c, Layout l, int seed) {
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j)
      storage[i * l.rs + j * l.cs] = T(static_cast<float>((i * 7 + j * 3 + seed) % 5 - 2));
}

template <typename T>
void check_gemm(DType dtype, int64_t m, int64_t n, int64_t k, Layout la, Layout lb, double alpha,
                double beta) {
  auto extent = [](int64_t r, int64_t c, Layout l) { return (r - 1) * l.rs + (c - 1) * l.cs + 1; };
  std::vector<T> a(extent(m, k, la)), b(extent(k, n, lb)), out(m * n);
  fill(a, m, k, la, 1);
  fill(b, k, n, lb, 2);
  for (int64_t i = 0; i < m * n; ++i) out[i] = T(static_cast<float>(i % 3));
  std::vector<double> want(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += static_cast<double>(a[i * la.rs + p * la.cs]) * static_cast<double>(b[p * lb.rs + j * lb.cs]);
      want[i * n + j] = alpha * s + beta * static_cast<double>(out[i * n + j]);
    }
  GemmArgs g;
  g.dtype = dtype;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = {a.data(), la.rs, la.cs, {}};
  g.b = {b.data(), lb.rs, lb.cs, {}};
  g.out = {out.data(), n, 1, {}};
  g.alpha = alpha;
  g.beta = beta;
  kernel_table(DeviceType::CPU).linalg.gemm(g);
  for (int64_t i = 0; i < m * n; ++i) EXPECT_DOUBLE_EQ(static_cast<double>(out[i]), want[i]) << "at " << i;
}

template <typename T>
void check_all_layouts(DType dtype) {
  for (auto [m, n, k] : {std::tuple{5, 4, 3}, {1, 4, 3}, {5, 1, 3}, {1, 1, 6}, {4, 4, 1}}) {
    const std::vector<Layout> layouts_a = {{k, 1},     {1, m}, {k + 2, 1}, {1, m + 3},
                                           {2 * k, 2}, {0, 1}, {1, 0}};
    const std::vector<Layout> layouts_b = {{n, 1},     {1, k}, {n + 1, 1}, {1, k + 2},
                                           {3 * n, 3}, {0, 1}, {1, 0}};
    for (Layout la : layouts_a)
      for (Layout lb : layouts_b) {
        check_gemm<T>(dtype, m, n, k, la, lb, 1.0, 0.0);
        check_gemm<T>(dtype, m, n, k, la, lb, 2.0, -1.0);
      }
  }
}

}  // namespace

TEST(Gemm, Float32Layouts) { check_all_layouts<float>(DType::Float32); }
TEST(Gemm, Float64Layouts) { check_all_layouts<double>(DType::Float64); }
TEST(Gemm, Int32Layouts) { check_all_layouts<int32_t>(DType::Int32); }
TEST(Gemm, BFloat16Layouts) { check_all_layouts<BFloat16>(DType::BFloat16); }

TEST(Gemm, BroadcastBatchAndEmptyInnerDim) {
  // out[b] = a[b] @ w for 3 batches with w shared (batch stride 0).
  std::vector<float> a(3 * 2 * 2), w = {1, 2, 3, 4}, out(3 * 2 * 2, -7.0f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  GemmArgs g;
  g.dtype = DType::Float32;
  g.batch_sizes = {3};
  g.m = g.n = g.k = 2;
  g.a = {a.data(), 2, 1, {4}};
  g.b = {w.data(), 2, 1, {0}};
  g.out = {out.data(), 2, 1, {4}};
  kernel_table(DeviceType::CPU).linalg.gemm(g);
  for (int b = 0; b < 3; ++b)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        EXPECT_FLOAT_EQ(out[b * 4 + i * 2 + j], a[b * 4 + i * 2] * w[j] + a[b * 4 + i * 2 + 1] * w[2 + j]);
  // k == 0 with beta == 0 writes zeros over whatever the output held.
  g.k = 0;
  kernel_table(DeviceType::CPU).linalg.gemm(g);
  for (float v : out) EXPECT_EQ(v, 0.0f);
}
