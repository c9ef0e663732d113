"""MultiheadAttention, with PyTorch's parameter names so its state_dicts load unchanged."""
import tandem

from .. import init
from .._functional_attention import _canonical_mask, _none_or_dtype, _same_layout, multi_head_attention_forward
from ..parameter import Parameter
from ._fused_inference import mha_takes_fused_path, nan_where_no_key
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of size embed_dim // num_heads, as PyTorch's (without its fused
    inference kernel or nested tensors; where that kernel's values differ, see _fused_inference). Inputs are (L, N, E), (N, L, E) with ``batch_first``, or unbatched
    (L, E); ``kdim``/``vdim`` different from embed_dim give separate q/k/v projection weights."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(tandem.empty((3 * embed_dim, embed_dim), **factory))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(tandem.empty((embed_dim, embed_dim), **factory))
            self.k_proj_weight = Parameter(tandem.empty((embed_dim, self.kdim), **factory))
            self.v_proj_weight = Parameter(tandem.empty((embed_dim, self.vdim), **factory))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(tandem.empty(3 * embed_dim, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **factory)
        if add_bias_kv:
            self.bias_k = Parameter(tandem.empty((1, 1, embed_dim), **factory))
            self.bias_v = Parameter(tandem.empty((1, 1, embed_dim), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """PyTorch's helper for its fused kernels (batch-first query): (mask, mask_type), mask_type None for no
        mask, 1 for the key-padding mask alone, 2 for an attention mask viewed as (batch, heads, L, L), to which a
        padding mask is added (a plain sum: a bool padding mask counts 1 where a float mask means -inf)."""
        if attn_mask is None:
            return (key_padding_mask, 1) if key_padding_mask is not None else (None, None)
        batch, length, _ = query.shape
        if attn_mask.dim() == 3:
            merged = attn_mask.view(batch, -1, length, length)
        else:
            merged = attn_mask.view(1, 1, length, length).expand(batch, self.num_heads, -1, -1)
        if key_padding_mask is not None:
            merged = merged + key_padding_mask.view(batch, 1, 1, length).expand(-1, self.num_heads, -1, -1)
        return merged, 2

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        """(output, weights): weights are averaged over heads (or per head with average_attn_weights=False)
        and None when need_weights=False. In key_padding_mask and bool attn_masks, True means "do not attend"
        (the opposite of scaled_dot_product_attention's bool masks)."""
        is_batched = query.dim() == 3
        fast_path = mha_takes_fused_path(self, query, key, value, key_padding_mask, attn_mask)
        if fast_path and query.shape[-1] != self.embed_dim:  # _native_multi_head_attention's first check
            raise RuntimeError(f"passed-in embed_dim {self.embed_dim} didn't match last dim of query "
                               f"{query.shape[-1]}")
        fused = not need_weights and fast_path
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                           "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            query, key, value = _same_layout(lambda t: t.transpose(1, 0), query, key, value)
        separate = {} if self._qkv_same_embed_dim else {
            "use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
            "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        output, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal, **separate)
        if self.batch_first and is_batched:
            output = output.transpose(1, 0)
        if fused:  # PyTorch's fused kernel: NaN where a query has no key left (see _fused_inference)
            output = nan_where_no_key(output, key_padding_mask, attn_mask, self.num_heads)
        if fast_path and query.numel() == 0:  # the fused kernel returns no weights for an empty input
            weights = None
        return output, weights
