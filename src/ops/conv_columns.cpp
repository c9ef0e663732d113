#include "ops/conv_columns.h"

#include <algorithm>

#include "core/parallel.h"
#include "kernels/kernel_table.h"
#include "ops/gemm_launch.h"
#include "ops/view.h"

namespace tandem {

void im2col(const Tensor& cols, const Tensor& input, const Window2d& g) {
  if (cols.numel() > 0) kernel_table(input.device().type).nn.im2col(cols, input, g);
}

void col2im(const Tensor& out, const Tensor& cols, const Window2d& g) {
  if (out.numel() > 0) kernel_table(cols.device().type).nn.col2im(out, cols, g);
}

int64_t batch_per_round(const Window2d& g, Device device) {
  const int64_t whole = std::max<int64_t>(g.n, 1);
  if (device.type != DeviceType::CPU || get_num_threads() > 1) return whole;
  const int64_t per_element = std::max<int64_t>(1, g.c * g.kh * g.kw * g.oh * g.ow);
  return std::clamp<int64_t>((int64_t{1} << 18) / per_element, 1, whole);
}

bool per_element_on_threads(const Window2d& g, Device device) {
  return device.type == DeviceType::CPU && get_num_threads() > 1 && g.n >= get_num_threads();
}

Tensor leading_columns(const Tensor& buffer, int64_t cols) {
  const int64_t rows = buffer.size(0);
  if (cols == buffer.size(1)) return buffer;
  return view(narrow(view(buffer, DimVector{-1}), 0, 0, rows * cols), DimVector{rows, cols});
}

Tensor group_slice(const Tensor& t, int64_t dim, int64_t gi, int64_t groups) {
  if (groups == 1) return t;
  const int64_t size = t.size(dim) / groups;
  return narrow(t, dim, gi * size, size);
}

Tensor per_batch(const Tensor& cols, int64_t n) {
  const int64_t rows = cols.size(0), l = n == 0 ? 0 : cols.size(1) / n;
  return permute(view(cols, DimVector{rows, n, l}), DimVector{1, 0, 2});
}

Tensor channel_rows(const Tensor& t, int64_t c0, int64_t count) {
  Tensor rows = view(t, DimVector{t.size(0), t.size(1), t.size(2) * t.size(3)});
  return count == t.size(1) ? rows : narrow(rows, 1, c0, count);
}

void gemm_per_batch(const Tensor& a, const Tensor& b, const Tensor& out, bool accumulate) {
  launch_gemm(expand(unsqueeze(a, 0), DimVector{out.size(0), a.size(0), a.size(1)}), b, out, 1.0,
              accumulate ? 1.0 : 0.0);
}

}  // namespace tandem
