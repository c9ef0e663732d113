// The gradient of scaled_dot_product_attention (ops/attention.h): one node that saves the inputs, the output
// and the per-row logsumexp, and recomputes each block's probabilities in the blocked backward. Under
// create_graph the same gradients come from differentiable ops over the whole score matrix, so second-order
// code gets its own graph.
#include "autograd/formulas_attention.h"

#include <limits>

#include "autograd/node.h"
#include "autograd/sum_to.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/indexing.h"
#include "ops/linalg.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;

constexpr double kInf = std::numeric_limits<double>::infinity();

// dq, dk, dv (and dmask) from differentiable ops: P = softmax(scale q k^T + mask) recomputed whole, then
// dV = (P Z)^T dO, dS = P (Z dO V^T - rowsum(dO O)), dQ = scale dS K, dK = scale dS^T Q, dmask = dS.
Grads attention_grads_differentiable(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                                     const Tensor& mask, const Tensor& out, const AttentionConfig& c,
                                     bool mask_grad) {
  const DType ct = q.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  Tensor qc = to_dtype(q, ct), kc = to_dtype(k, ct), vc = to_dtype(v, ct), g = to_dtype(grad, ct);
  Tensor s = mul(matmul(qc, transpose(kc, -2, -1)), Scalar(c.scale));
  if (mask.defined())
    s = mask.dtype() == DType::Bool ? masked_fill(s, logical_not(mask), Scalar(-kInf))
                                    : add(s, to_dtype(mask, ct));
  if (c.is_causal) {
    Tensor rows =
        arange(Scalar(int64_t{0}), Scalar(q.size(-2)), Scalar(int64_t{1}), DType::Int64, q.device());
    Tensor keys =
        arange(Scalar(int64_t{0}), Scalar(k.size(-2)), Scalar(int64_t{1}), DType::Int64, q.device());
    s = masked_fill(s, gt(unsqueeze(keys, 0), unsqueeze(rows, 1)), Scalar(-kInf));
  }
  Tensor none = all(eq(s, Scalar(-kInf)), DimVector{-1}, true);  // rows that attend nothing give zeros
  Tensor p = masked_fill(softmax(masked_fill(s, none, Scalar(0.0)), -1), none, Scalar(0.0));
  Tensor z = c.dropout_p > 0.0 ? scaled_dot_product_attention_dropout(q, k, v, mask, c) : Tensor();
  Tensor pz = z.defined() ? mul(p, z) : p;
  Tensor dv = matmul(transpose(pz, -2, -1), g);
  Tensor dp = matmul(g, transpose(vc, -2, -1));
  if (z.defined()) dp = mul(dp, z);
  Tensor ds = mul(p, sub(dp, sum(mul(g, to_dtype(out, ct)), DimVector{-1}, true)));
  Tensor dq = mul(matmul(ds, kc), Scalar(c.scale));
  Tensor dk = mul(matmul(transpose(ds, -2, -1), qc), Scalar(c.scale));
  auto finish = [](const Tensor& t, const Tensor& like) {
    return to_dtype(sum_to(t, like.sizes()), like.dtype());
  };
  return {finish(dq, q), finish(dk, k), finish(dv, v), mask_grad ? finish(ds, mask) : Tensor()};
}

struct AttentionNode final : Node {
  std::string name() const override { return "ScaledDotProductFlashAttentionForCpuBackward0"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    Tensor q = q_.unpack(*this), k = k_.unpack(*this), v = v_.unpack(*this), out = out_.unpack(*this);
    Tensor mask = has_mask_ ? mask_.unpack(*this) : Tensor();
    const bool mask_grad = needs_input_grad(3);
    Grads r;
    if (GradMode::is_enabled()) {
      r = attention_grads_differentiable(grads[0], q, k, v, mask, out, config_, mask_grad);
    } else {
      auto g = scaled_dot_product_attention_backward(grads[0], q, k, v, mask, out, lse_.unpack(*this),
                                                     config_, mask_grad);
      r.assign(g.begin(), g.end());
    }
    for (size_t i = 0; i < r.size(); ++i)
      if (!needs_input_grad(i)) r[i] = Tensor();
    return r;
  }
  void release_saved() override {
    q_.release();
    k_.release();
    v_.release();
    mask_.release();
    out_.release();
    lse_.release();
  }
  SavedTensor q_, k_, v_, mask_, out_, lse_;
  bool has_mask_ = false;
  AttentionConfig config_;
};

}  // namespace

void record_scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                         const Tensor& attn_mask, const Tensor& out, const Tensor& logsumexp,
                                         const AttentionConfig& config) {
  auto node = std::make_shared<AttentionNode>();
  // A bool mask has no gradient; a floating one gets dS when it requires grad.
  const Tensor* mask = attn_mask.defined() && is_floating(attn_mask.dtype()) ? &attn_mask : nullptr;
  set_history(node, {&query, &key, &value, mask}, {&out});
  node->q_ = SavedTensor(query, false);
  node->k_ = SavedTensor(key, false);
  node->v_ = SavedTensor(value, false);
  node->has_mask_ = attn_mask.defined();
  if (node->has_mask_) node->mask_ = SavedTensor(attn_mask, false);
  node->out_ = SavedTensor(out, true);
  node->lse_ = SavedTensor(logsumexp, false);
  node->config_ = config;
}

}  // namespace tandem::autograd
