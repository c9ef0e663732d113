// The C++ side of autograd: recording from front ends, a custom FormulaNode, the engine, grad mode.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "autograd/anomaly_mode.h"
#include "autograd/engine.h"
#include "autograd/formula_node.h"
#include "core/error.h"
#include "ops/copy.h"
#include "ops/elementwise.h"

namespace tandem {
namespace {

Tensor leaf(double v) {
  Tensor t = full(DimVector{1}, Scalar(v), DType::Float64);
  t.impl()->ensure_autograd().requires_grad = true;
  return t;
}
double value(const Tensor& t) { return item(t).to_double(); }
Tensor grad_of(const Tensor& t) { return *t.impl()->autograd()->grad; }

TEST(Autograd, FrontEndsRecordAndEngineAccumulates) {
  Tensor x = leaf(3.0);
  Tensor y = mul(x, x);  // 2x
  Tensor z = add(y, x);  // 2x + 1
  ASSERT_TRUE(z.requires_grad());
  EXPECT_EQ(z.impl()->autograd()->grad_fn->name(), "AddBackward0");
  autograd::backward({z}, {}, std::nullopt, false);
  EXPECT_DOUBLE_EQ(value(grad_of(x)), 7.0);
}

TEST(Autograd, GradModeGuardStopsRecording) {
  Tensor x = leaf(1.0);
  {
    autograd::GradModeGuard off(false);
    EXPECT_FALSE(exp(x).requires_grad());
  }
  EXPECT_TRUE(exp(x).requires_grad());
}

// What an op outside src/autograd does: compute with grad mode off, then attach a FormulaNode.
Tensor cube(const Tensor& x) {
  if (!autograd::should_record(x)) return mul(mul(x, x), x);
  Tensor out = autograd::without_grad([&] { return cube(x); });
  auto node = autograd::make_node("CubeBackward0", [](autograd::FormulaNode& n, const Tensor& g) {
    Tensor v = n.saved_tensor(0);
    return std::vector<Tensor>{mul(g, mul(mul(v, v), Scalar(3.0)))};
  });
  autograd::record(node, {&x}, out);
  node->saved.emplace_back(x, false);
  return out;
}

TEST(Autograd, CustomNodeAndHigherOrder) {
  Tensor x = leaf(2.0);
  Tensor y = cube(x);
  EXPECT_EQ(y.impl()->autograd()->grad_fn->name(), "CubeBackward0");
  std::vector<Tensor> g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true, false);
  EXPECT_DOUBLE_EQ(value(g[0]), 12.0);
  std::vector<Tensor> g2 = autograd::grad({g[0]}, {x}, {}, std::nullopt, false, false);
  EXPECT_DOUBLE_EQ(value(g2[0]), 12.0);  // d/dx 3x^2 = 6x
}

// A front end that records a node whose formula is not listed as holding for complex tensors
// (autograd/complex_formulas.cpp) cannot attach it to complex tensors: no silently wrong gradient.
TEST(Autograd, UncheckedFormulaRefusesComplex) {
  Tensor z = full(DimVector{1}, Scalar(complex<double>(1.0, 2.0)), DType::Complex128);
  z.impl()->ensure_autograd().requires_grad = true;
  Tensor out = autograd::without_grad([&] { return mul(z, z); });
  auto node = autograd::make_node(
      "CubeBackward0", [](autograd::FormulaNode&, const Tensor& g) { return std::vector<Tensor>{g}; });
  try {
    autograd::record(node, {&z}, out);
    FAIL() << "expected NotImplementedError";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotImplemented);
    EXPECT_EQ(
        std::string(e.what()).rfind("the derivative of CubeBackward0 is not implemented for complex", 0), 0u);
  }
  EXPECT_FALSE(out.requires_grad());
  // The listed ones record as usual.
  EXPECT_EQ(mul(z, z).impl()->autograd()->grad_fn->name(), "MulBackward0");
}

TEST(Autograd, LongGraphIsDestroyedWithoutRecursion) {
  Tensor x = leaf(1.0);
  Tensor y = x;
  for (int i = 0; i < 200000; ++i) y = mul(y, Scalar(1.0));
  y = Tensor();  // must not overflow the stack
  SUCCEED();
}

// Anomaly mode without the Python layer: no traceback is recorded, the NaN check still raises PyTorch's
// error.
TEST(Autograd, AnomalyModeRaisesOnNanGradients) {
  Tensor x = leaf(0.0);
  autograd::AnomalyMode::set_enabled(true);
  Tensor y = div(x, x);  // d/d(divisor) = -x / x^2 = nan at 0
  EXPECT_EQ(y.impl()->autograd()->grad_fn->forward_trace, nullptr);
  try {
    autograd::backward({y}, {}, std::nullopt, false);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("Function 'DivBackward0' returned nan values in its 1th output.", 0), 0u);
  }
  autograd::AnomalyMode::set_enabled(true, false);  // check_nan=false: the NaN reaches .grad
  Tensor z = div(x, x);
  autograd::backward({z}, {}, std::nullopt, false);
  EXPECT_TRUE(std::isnan(value(grad_of(x))));
  autograd::AnomalyMode::set_enabled(false);
  EXPECT_FALSE(autograd::AnomalyMode::is_enabled());
}

// Saved-tensors hooks from C++: each saved tensor is packed once at record time and unpacked in backward;
// a pack that stores a copy gives the same gradients even after the original is changed in place.
struct CopyingHooks final : autograd::SavedTensorHooks {
  struct Packed final : autograd::PackedTensor {
    explicit Packed(Tensor t, int* unpacks) : copy(std::move(t)), unpacks(unpacks) {}
    Tensor unpack() const override {
      ++*unpacks;
      return copy;
    }
    Tensor copy;
    int* unpacks;
  };
  std::shared_ptr<autograd::PackedTensor> pack(const Tensor& t) override {
    ++packs;
    EXPECT_FALSE(autograd::GradMode::is_enabled());
    return std::make_shared<Packed>(clone(t), &unpacks);
  }
  int packs = 0, unpacks = 0;
};

TEST(Autograd, SavedTensorHooksPackAndUnpack) {
  Tensor x = leaf(3.0);
  Tensor y = mul(x, Scalar(1.0));
  CopyingHooks hooks;
  autograd::set_current_saved_tensor_hooks(&hooks);
  Tensor z = mul(y, y);  // saves y twice
  Tensor e = exp(x);     // saves its output
  autograd::set_current_saved_tensor_hooks(nullptr);
  EXPECT_EQ(hooks.packs, 3);
  {
    autograd::GradModeGuard off(false);
    mul_(y, Scalar(2.0));  // the copies keep the old value (and there is no version check)
  }
  autograd::backward({add(z, e)}, {}, std::nullopt, false);
  EXPECT_EQ(hooks.unpacks, 3);
  EXPECT_DOUBLE_EQ(value(grad_of(x)), 6.0 + std::exp(3.0));
}

}  // namespace
}  // namespace tandem
