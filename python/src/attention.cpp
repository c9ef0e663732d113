// Bindings of scaled dot-product attention (ops/attention.h), called by nn.functional's front end
// (python/tandem/nn/_functional_attention.py), which checks the arguments with PyTorch's messages first.
#include <nanobind/stl/optional.h>

#include "bindings.h"
#include "ops/attention.h"

namespace tandem::py {

void init_attention(nb::module_& m) {
  m.def(
      "_scaled_dot_product_attention",
      [](const Tensor& query, const Tensor& key, const Tensor& value, std::optional<Tensor> attn_mask,
         double dropout_p, bool is_causal, std::optional<double> scale, bool enable_gqa,
         int64_t block_scores) {
        AttentionOptions options;
        options.dropout_p = dropout_p;
        options.is_causal = is_causal;
        options.scale = scale;
        options.enable_gqa = enable_gqa;
        options.block_scores = block_scores;
        return scaled_dot_product_attention(query, key, value, attn_mask ? *attn_mask : Tensor(), options);
      },
      nb::arg("query"), nb::arg("key"), nb::arg("value"), nb::arg("attn_mask").none() = nb::none(),
      nb::arg("dropout_p") = 0.0, nb::arg("is_causal") = false, nb::arg("scale").none() = nb::none(),
      nb::arg("enable_gqa") = false, nb::arg("block_scores") = 0);
}

}  // namespace tandem::py
