// The recording entry point of scaled_dot_product_attention (ops/attention.h); its node is in
// formulas_attention.cpp.
#pragma once
#include "core/tensor.h"
#include "ops/attention.h"

namespace tandem::autograd {

// One node for the whole attention: saves query, key, value, attn_mask (may be undefined), the output and
// the per-row logsumexp, nothing of size L x S.
void record_scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                         const Tensor& attn_mask, const Tensor& out, const Tensor& logsumexp,
                                         const AttentionConfig& config);

}  // namespace tandem::autograd
