"""Where PyTorch's fused inference kernels for nn.MultiheadAttention and nn.TransformerEncoderLayer give other values
than the composed forward tandem always runs. In inference (eval mode, nothing requiring grad) PyTorch calls
_native_multi_head_attention / _transformer_encoder_layer_fwd, whose softmax over a query row with every key masked
is NaN; the composed path's attention (scaled_dot_product_attention) gives such a row zero weights instead. And the
fused encoder layer reads its masks as bool ones (fused_layer_masks). The functions here decide, with PyTorch's
conditions, whether a fused kernel would run, and give the composed forward that kernel's masks and NaN rows."""
import tandem


def _inference_args(args):
    """PyTorch's device and grad conditions on a fused kernel's tensor arguments."""
    if any(t is not None and t.device.type not in ("cpu", "cuda") for t in args):
        return False
    return not (tandem.is_grad_enabled() and any(t is not None and t.requires_grad for t in args))


def mha_takes_fused_path(mha, query, key, value, key_padding_mask, attn_mask):
    """PyTorch's MultiheadAttention fast-path conditions (its masks as given: floating masks are refused)."""
    if any(m is not None and (m.is_floating_point() or m.is_complex()) for m in (attn_mask, key_padding_mask)):
        return False
    if (not tandem.backends.mha.get_fastpath_enabled() or query.dim() != 3 or query is not key or key is not value
            or mha.training or mha.num_heads % 2 or not mha.batch_first or mha.bias_k is not None
            or mha.bias_v is not None or mha.add_zero_attn or not mha._qkv_same_embed_dim
            or mha.in_proj_weight is None or mha.in_proj_bias is None or tandem.is_autocast_enabled()):
        return False
    if query.dtype != mha.in_proj_weight.dtype or query.dtype != mha.in_proj_bias.dtype:
        return False
    return _inference_args((query, mha.in_proj_weight, mha.in_proj_bias, mha.out_proj.weight, mha.out_proj.bias))


def encoder_layer_takes_fused_path(layer, src):
    """PyTorch's TransformerEncoderLayer fast-path conditions (after its masks were made canonical)."""
    attn = layer.self_attn
    if (not tandem.backends.mha.get_fastpath_enabled() or src.dim() != 3 or layer.training or not attn.batch_first
            or attn.in_proj_bias is None or not attn._qkv_same_embed_dim or not layer.activation_relu_or_gelu
            or layer.norm1.eps != layer.norm2.eps or attn.num_heads % 2 or tandem.is_autocast_enabled()):
        return False
    if any(m._forward_hooks or m._forward_pre_hooks for m in layer.modules()):
        return False
    return _inference_args((src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias,
                            layer.norm1.weight, layer.norm1.bias, layer.norm2.weight, layer.norm2.bias,
                            layer.linear1.weight, layer.linear1.bias, layer.linear2.weight, layer.linear2.bias))


def nan_where_no_key(output, key_padding_mask, attn_mask, num_heads):
    """`output` (N, L, E) with NaN at the query positions whose every key is masked (by the key padding mask
    (N, S) and the attention mask (L, S) or (N * num_heads, L, S), canonical float masks or bool ones with True =
    masked), in any head, as the fused kernels give them."""
    blocked = None
    if key_padding_mask is not None:
        blocked = _masked(key_padding_mask)[:, None, None, :]  # (N, 1, 1, S)
    if attn_mask is not None:
        am = _masked(attn_mask)
        am = am[None, None] if am.dim() == 2 else am.view(output.shape[0], num_heads, *am.shape[-2:])
        blocked = am if blocked is None else blocked | am
    if blocked is None:
        return output
    no_key = blocked.all(-1).any(1)  # (N, L)
    return output.masked_fill(no_key.unsqueeze(-1), float("nan"))


def _masked(mask):
    return mask if mask.dtype == tandem.bool else tandem.isneginf(mask)


def fused_layer_masks(src_mask, key_padding_mask, num_heads, src):
    """The masks PyTorch's fused encoder layer applies, given the layer's canonical float masks: it adds the two
    (as its merge_masks does) and masks every position whose sum is not zero, so a float mask acts as a bool one
    (an additive bias such as ALiBi's masks where nonzero). Returned as canonical masks for the composed forward:
    (attention mask, key padding mask)."""
    if src_mask is None and key_padding_mask is None:
        return None, None
    if src_mask is None:
        return None, _as_float_mask(key_padding_mask != 0, src.dtype)
    if key_padding_mask is None:
        return _as_float_mask(src_mask != 0, src.dtype), None
    seq, batch = src_mask.shape[-2:], src.shape[0]
    attn = src_mask[None, None] if src_mask.dim() == 2 else src_mask.view(batch, -1, *seq)
    merged = (attn + key_padding_mask[:, None, None, :]).expand(batch, num_heads, *seq)
    return _as_float_mask(merged.reshape(batch * num_heads, *seq) != 0, src.dtype), None


def _as_float_mask(masked, dtype):
    return tandem.zeros(masked.shape, dtype=dtype, device=masked.device).masked_fill_(masked, float("-inf"))
