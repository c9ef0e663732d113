// A C++ program on tandem's public API: fits y = 2x + 1 by gradient descent with autograd, on the CPU and,
// when there is one (a GPU, or TANDEM_EMULATE_CUDA=1), on a CUDA device. Exits non-zero unless both fits
// converge.
#include <tandem/tandem.h>

#include <cmath>
#include <cstdio>

namespace {

bool fit(tandem::Device device) {
  using namespace tandem;
  Tensor x = reshape(linspace(Scalar(-1.0), Scalar(1.0), 64, DType::Float32, device), DimVector{64, 1});
  Tensor y = add(mul(x, Scalar(2.0)), Scalar(1.0));
  Tensor w = requires_grad(full(DimVector{1, 1}, Scalar(0.0), DType::Float32, device));
  Tensor b = requires_grad(full(DimVector{1}, Scalar(0.0), DType::Float32, device));
  double loss_value = 0;
  for (int step = 0; step < 300; ++step) {
    Tensor err = sub(add(matmul(x, w), b), y);
    Tensor loss = mean(mul(err, err));
    backward(loss);
    {
      NoGradGuard no_grad;
      sub_(w, mul(grad(w), Scalar(0.5)));
      sub_(b, mul(grad(b), Scalar(0.5)));
      fill_(grad(w), Scalar(0.0));
      fill_(grad(b), Scalar(0.0));
    }
    loss_value = item(loss).to_double();
  }
  double w_fit = item(w).to_double(), b_fit = item(b).to_double();
  std::printf("%s: w = %.4f, b = %.4f, loss = %.2e\n", device.str().c_str(), w_fit, b_fit, loss_value);
  return std::fabs(w_fit - 2.0) < 1e-3 && std::fabs(b_fit - 1.0) < 1e-3;
}

}  // namespace

int main() {
  try {
    bool ok = fit(tandem::Device());
    if (tandem::cuda_available()) ok = fit(tandem::Device(tandem::DeviceType::CUDA, 0)) && ok;
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
