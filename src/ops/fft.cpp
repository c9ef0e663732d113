#include "ops/fft.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "autograd/formula_node.h"
#include "autograd/formulas_fft.h"
#include "autograd/node.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/fft_kernels.h"
#include "ops/copy.h"
#include "ops/view.h"

namespace tandem {

namespace {

// dims wrapped to [0, x.dim()) and checked unique, with PyTorch's messages.
DimVector wrap_fft_dims(const char* op, const Tensor& x, IntArrayRef dims) {
  DimVector out;
  for (int64_t d : dims) {
    TANDEM_CHECK(x.dim() > 0, Index, "Dimension specified as ", d, " but tensor has no dimensions");
    out.push_back(wrap_dim(d, x.dim()));
  }
  DimVector sorted = out;
  std::sort(sorted.begin(), sorted.end());
  TANDEM_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), Runtime,
               "FFT dims must be unique");
  (void)op;
  return out;
}

const FftKernels& fft_for(const Tensor& x) {
  const FftKernels& k = fft_kernels(x.device().type);
  if (x.device().is_cpu()) {
    TANDEM_CHECK(
        k.c2c, Runtime, "tandem.fft: tandem was built without FFTW, so it has no FFT on the CPU",
        "\nhint: install libfftw3-dev (FFTW 3) and rebuild tandem; or move the tensor to a CUDA device");
  } else {
    TANDEM_CHECK(k.c2c, Runtime, "tandem.fft: tandem was built without an FFT library for ", x.device().str(),
                 "\nhint: rebuild tandem with cuFFT (the CUDA toolkit) for CUDA, or with FFTW for the CPU");
  }
  return k;
}

double norm_scale(FftNorm norm, double signal_numel) {
  switch (norm) {
    case FftNorm::ByRootN:
      return 1.0 / std::sqrt(signal_numel);
    case FftNorm::ByN:
      return 1.0 / signal_numel;
    default:
      return 1.0;
  }
}

// x's dims reordered: the untransformed ones first (in order), then `dims` (in their given order), which
// the kernels transform as the last dims of a contiguous (batch, n_1, ..., n_k) tensor.
DimVector transform_last(int64_t ndim, const DimVector& dims) {
  DimVector perm;
  for (int64_t d = 0; d < ndim; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) perm.push_back(d);
  for (int64_t d : dims) perm.push_back(d);
  return perm;
}
DimVector inverse_permutation(const DimVector& perm) {
  DimVector inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

// The (batch, n_1, ..., n_k) shape of a permuted tensor whose last k dims are transformed.
DimVector batched_shape(const Tensor& permuted, size_t k) {
  const auto& s = permuted.sizes();
  const size_t lead = s.size() - k;
  int64_t batch = 1;
  for (size_t i = 0; i < lead; ++i) batch *= s[i];
  DimVector shape{batch};
  for (size_t i = lead; i < s.size(); ++i) shape.push_back(s[i]);
  return shape;
}

// v[from, to) as a DimVector.
DimVector part(const DimVector& v, size_t from, size_t to) {
  return DimVector(std::span<const int64_t>(v.data() + from, to - from));
}

enum class Kind { C2C, R2C, C2R };

// One kernel call over `dims` (at most the device's max_rank of them): in is permuted so the dims come
// last and made contiguous, the output is allocated in that order and returned permuted back (a view:
// contiguous when the dims were already the last ones, in order). `out_last` is the output size along
// dims.back() (r2c: n / 2 + 1, c2r: the real length, c2c: unchanged).
Tensor run_kernel(Kind kind, const Tensor& x, const DimVector& dims, bool forward, double scale,
                  int64_t out_last, DType out_dtype) {
  const FftKernels& k = fft_for(x);
  const DimVector perm = transform_last(x.dim(), dims);
  Tensor in = permute(x, perm);
  // c2r kernels may overwrite their input: they always get a copy of their own.
  if (kind == Kind::C2R) {
    Tensor copy = empty(in.sizes(), in.dtype(), in.device());
    copy_(copy, in);
    in = copy;
  } else {
    in = contiguous(in);
  }
  DimVector out_sizes(in.sizes());
  out_sizes[out_sizes.size() - 1] = out_last;
  Tensor out = empty(out_sizes, out_dtype, x.device());
  if (out.numel() > 0) {
    const size_t rank = dims.size();
    Tensor in_b = reshape(in, batched_shape(in, rank));
    Tensor out_b = reshape(out, batched_shape(out, rank));
    if (kind == Kind::C2C)
      k.c2c(in_b, out_b, forward, scale);
    else if (kind == Kind::R2C)
      k.r2c(in_b, out_b, scale);
    else
      k.c2r(in_b, out_b, scale);
  }
  return permute(out, inverse_permutation(perm));
}

int64_t max_rank_for(const Tensor& x) { return std::max<int64_t>(1, fft_for(x).max_rank); }

// Transformed sizes must be positive (PyTorch's message).
void check_sizes(const Tensor& x, const DimVector& dims) {
  for (int64_t d : dims)
    TANDEM_CHECK(x.size(d) >= 1, Runtime, "Invalid number of data points (", x.size(d), ") specified");
}

double signal_numel(const Tensor& x, const DimVector& dims) {
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(x.size(d));
  return n;
}

// c2c over dims in groups of at most max_rank (the scale applied once, by the first group).
Tensor c2c_groups(const Tensor& x, DimVector dims, bool forward, double scale) {
  const int64_t max_rank = max_rank_for(x);
  Tensor r = x;
  while (!dims.empty()) {
    const size_t take = std::min<size_t>(dims.size(), static_cast<size_t>(max_rank));
    DimVector group = part(dims, dims.size() - take, dims.size());
    dims.resize(dims.size() - take);
    r = run_kernel(Kind::C2C, r, group, forward, scale, r.size(group.back()), r.dtype());
    scale = 1.0;
  }
  return r;
}

}  // namespace

Tensor fft_c2c(const Tensor& x, IntArrayRef dims_in, FftNorm norm, bool forward) {
  profiler::RecordScope profile_scope("aten::_fft_c2c", x, dims_in, norm, forward);
  TANDEM_CHECK(is_complex(x.dtype()), Runtime, "_fft_c2c: expected a complex input tensor, but got ",
               dtype_title(x.dtype()), "\nhint: tandem.fft.fft takes real tensors too (it converts them)");
  DimVector dims = wrap_fft_dims("_fft_c2c", x, dims_in);
  check_sizes(x, dims);
  if (dims.empty()) return clone(x);  // fftn(x, dim=()): nothing to transform
  const double scale = norm_scale(norm, signal_numel(x, dims));
  Tensor out = autograd::without_grad([&] { return c2c_groups(x, dims, forward, scale); });
  if (autograd::should_record(x)) autograd::record_fft_c2c(x, dims, norm, forward, out);
  return out;
}

Tensor fft_r2c(const Tensor& x, IntArrayRef dims_in, FftNorm norm, bool onesided) {
  profiler::RecordScope profile_scope("aten::_fft_r2c", x, dims_in, norm, onesided);
  TANDEM_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, Runtime,
               "_fft_r2c: expected a Float or Double input tensor, but got ", dtype_title(x.dtype()),
               "\nhint: convert it first, e.g. x.float()");
  DimVector dims = wrap_fft_dims("_fft_r2c", x, dims_in);
  TANDEM_CHECK(!dims.empty(), Runtime, "_fft_r2c: expected at least one dim to transform");
  check_sizes(x, dims);
  const double scale = norm_scale(norm, signal_numel(x, dims));
  const DType cdtype = complex_dtype_for(x.dtype());
  // The full spectrum is the complex transform of the real signal (the redundant half costs a factor two;
  // fft/ifft of real input, whose speed matters less than rfft's).
  if (!onesided) return fft_c2c(to_dtype(x, cdtype), dims, norm, true);
  // The last max_rank dims (with the halved one) in one r2c call, then c2c over the rest.
  const size_t take = std::min<size_t>(dims.size(), static_cast<size_t>(max_rank_for(x)));
  DimVector last = part(dims, dims.size() - take, dims.size());
  DimVector rest = part(dims, 0, dims.size() - take);
  Tensor out = autograd::without_grad([&] {
    Tensor r =
        run_kernel(Kind::R2C, x, last, true, rest.empty() ? scale : 1.0, x.size(last.back()) / 2 + 1, cdtype);
    return rest.empty() ? r : c2c_groups(r, rest, true, scale);
  });
  if (autograd::should_record(x)) autograd::record_fft_r2c(x, dims, norm, out);
  return out;
}

Tensor fft_c2r(const Tensor& x, IntArrayRef dims_in, FftNorm norm, int64_t last_dim_size) {
  profiler::RecordScope profile_scope("aten::_fft_c2r", x, dims_in, norm, last_dim_size);
  TANDEM_CHECK(is_complex(x.dtype()), Runtime, "_fft_c2r: expected a complex input tensor, but got ",
               dtype_title(x.dtype()), "\nhint: tandem.fft.irfft takes real tensors too (it converts them)");
  DimVector dims = wrap_fft_dims("_fft_c2r", x, dims_in);
  TANDEM_CHECK(!dims.empty(), Runtime, "_fft_c2r: expected at least one dim to transform");
  TANDEM_CHECK(last_dim_size >= 1, Runtime, "Invalid number of data points (", last_dim_size, ") specified");
  const int64_t half = last_dim_size / 2 + 1;
  TANDEM_CHECK(x.size(dims.back()) >= half, Runtime, "_fft_c2r: a real length of ", last_dim_size, " needs ",
               half, " complex values along dim ", dims.back(), ", but the input has ", x.size(dims.back()),
               "\nhint: tandem.fft.irfft(x, n=...) pads the input as needed");
  check_sizes(x, dims);
  // Extra entries are ignored: the narrowed view (whose own node pads the gradient back with zeros).
  if (x.size(dims.back()) != half) return fft_c2r(narrow(x, dims.back(), 0, half), dims, norm, last_dim_size);
  double n = static_cast<double>(last_dim_size);
  for (size_t i = 0; i + 1 < dims.size(); ++i) n *= static_cast<double>(x.size(dims[i]));
  const double scale = norm_scale(norm, n);
  // c2c (backward) over the leading dims beyond max_rank, then one c2r call over the last max_rank.
  const size_t take = std::min<size_t>(dims.size(), static_cast<size_t>(max_rank_for(x)));
  DimVector last = part(dims, dims.size() - take, dims.size());
  DimVector rest = part(dims, 0, dims.size() - take);
  Tensor out = autograd::without_grad([&] {
    Tensor in = rest.empty() ? x : c2c_groups(x, rest, false, 1.0);
    return run_kernel(Kind::C2R, in, last, false, scale, last_dim_size, complex_value_dtype(x.dtype()));
  });
  if (autograd::should_record(x)) autograd::record_fft_c2r(x, dims, norm, out);
  return out;
}

}  // namespace tandem
