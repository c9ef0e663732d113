// Scaled dot-product attention as one op (F.scaled_dot_product_attention): softmax(q k^T * scale + mask) v
// over blocks of query rows (and, for is_causal, only the keys those rows can see), built from the gemm slot
// and the public elementwise, softmax and reduction ops, so every device runs it. The forward keeps only the
// per-row logsumexp besides its inputs and output; the backward recomputes each block's probabilities from it
// (flash-attention style), so the saved state is linear in the sequence length.
#pragma once
#include <array>
#include <optional>

#include "core/philox.h"
#include "core/tensor.h"

namespace tandem {

struct AttentionOptions {
  double dropout_p = 0.0;       // <= 0: no dropout
  bool is_causal = false;       // top-left aligned: query row i sees keys 0..i
  std::optional<double> scale;  // default 1/sqrt(E)
  bool enable_gqa = false;      // key/value heads shared by query heads (dim -3)
  int64_t block_scores = 0;     // at most this many scores per block; 0: the tuned default
};

// What the forward decided and the backward repeats: the same blocks, scale and dropout draws.
struct AttentionConfig {
  double scale = 1.0;
  bool is_causal = false;
  double dropout_p = 0.0;
  PhiloxState dropout;  // where the dropout draws start (each block's draws follow from its first score)
  // CPU: PyTorch's dropout noise for every score, (batch..., L, S) in the compute dtype (0 or 1/(1-p)), drawn
  // as its math backend draws it (bernoulli_ over the whole matrix), so a seed gives PyTorch's masks.
  Tensor dropout_noise;
  int64_t block_scores = 0;
};

// query (..., L, E), key (..., S, E), value (..., S, Ev), batch dims broadcast; attn_mask (undefined: none)
// is bool (True: may attend) or floating (added to the scores) and broadcasts to (..., L, S). Rows that may
// attend nothing give zeros. float16/bfloat16 are computed in float32. Records one autograd node.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, const AttentionOptions& options);

// The gradients of query, key, value and (when `mask_grad`, a floating mask) attn_mask, each in its input's
// shape, from that of the output; logsumexp is what the forward saved. Not differentiable itself.
std::array<Tensor, 4> scaled_dot_product_attention_backward(const Tensor& grad, const Tensor& query,
                                                            const Tensor& key, const Tensor& value,
                                                            const Tensor& attn_mask, const Tensor& out,
                                                            const Tensor& logsumexp,
                                                            const AttentionConfig& config, bool mask_grad);

// The forward's dropout factors (0 or 1/(1-p)) for every score, shape (batch..., L, S) in the compute dtype:
// what a differentiable (create_graph) backward multiplies by.
Tensor scaled_dot_product_attention_dropout(const Tensor& query, const Tensor& key, const Tensor& value,
                                            const Tensor& attn_mask, const AttentionConfig& config);

}  // namespace tandem
