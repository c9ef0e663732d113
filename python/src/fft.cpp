// Bindings of tandem.fft's primitive ops (ops/fft.h) as private _C functions with PyTorch's names and
// arguments (torch._fft_c2c, _fft_r2c, _fft_c2r), and the out= step of the public functions;
// python/tandem/fft.py turns n/s/dim/norm into these calls.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "core/error.h"
#include "kernels/fft_kernels.h"
#include "ops/copy.h"
#include "ops/fft.h"
#include "ops/out_arg.h"

namespace tandem::py {

namespace {

FftNorm to_norm(int64_t normalization) {
  TANDEM_CHECK(normalization >= 0 && normalization <= 2, Value, "Invalid normalization mode: ", normalization,
               "\nhint: 0 (none), 1 (by sqrt(n)) or 2 (by n)");
  return static_cast<FftNorm>(normalization);
}

// `result` written into out with PyTorch's rules: fft outputs must be complex (c2r ones floating), out keeps
// its dtype, and an out with elements and another shape is resized with PyTorch's warning.
nb::object fft_into_out(const std::string& fn, const Tensor& result, nb::handle out, const Tensor& input) {
  Tensor& o = expect_tensor(out, fn.c_str(), "out");
  if (is_complex(result.dtype())) {
    TANDEM_CHECK(is_complex(o.dtype()), Runtime, fn, " expects a complex output tensor, but got ",
                 dtype_title(o.dtype()),
                 "\nhint: pass out=tandem.empty(0, dtype=", dtype_name(result.dtype()), ")");
  } else {
    TANDEM_CHECK(is_floating(o.dtype()), Runtime, fn, " expects a floating point output tensor, but got ",
                 dtype_title(o.dtype()),
                 "\nhint: pass out=tandem.empty(0, dtype=", dtype_name(result.dtype()), ")");
  }
  return into_out(fn.c_str(), result, out, {&input});
}

}  // namespace

void init_fft(nb::module_& m) {
  m.def(
      "_fft_c2c",
      [](const Tensor& x, const std::vector<int64_t>& dim, int64_t normalization, bool forward) {
        return fft_c2c(x, dim, to_norm(normalization), forward);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("normalization"), nb::arg("forward"));
  m.def(
      "_fft_r2c",
      [](const Tensor& x, const std::vector<int64_t>& dim, int64_t normalization, bool onesided) {
        return fft_r2c(x, dim, to_norm(normalization), onesided);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("normalization"), nb::arg("onesided"));
  m.def(
      "_fft_c2r",
      [](const Tensor& x, const std::vector<int64_t>& dim, int64_t normalization, int64_t last_dim_size) {
        return fft_c2r(x, dim, to_norm(normalization), last_dim_size);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("normalization"), nb::arg("last_dim_size"));
  // The FFT library a device type's kernels use ("FFTW", "cuFFT"), or "" for a build without one (the tests
  // skip there; tandem.fft raises "built without FFTW").
  m.def(
      "_fft_library",
      [](nb::handle device) { return std::string(fft_kernels(to_device(device).type).library); },
      nb::arg("device"));
  m.def("_fft_into_out", &fft_into_out, nb::arg("fn"), nb::arg("result"), nb::arg("out"), nb::arg("input"));
}

}  // namespace tandem::py
