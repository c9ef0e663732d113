"""nn.functional attention and bag-of-embeddings functions (re-exported by nn.functional): scaled dot-product
attention (argument checks here, the computation in one C++ op), multi-head attention and embedding_bag, both
compositions of tandem ops (projections, the attention op, index_select/index_add), so autograd and every
device come for free."""
import math
import warnings

import tandem

from .. import _C
from .._autocast import active as _amp_active, run as _amp_run
from .._layouts import _parser_type_name
from .._transfer_guard import _crossing
from . import functional as F  # linear and attention through the installed functions: modes see them
from .functional import dropout, embedding, softmax
from .parameter import untracked

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward", "embedding_bag"]

# At most this many attention scores per block of query rows; 0 leaves the choice to the C++ op (its tuned
# default). Tests set 1 to run every query row as its own block.
_SCORES_PER_BLOCK = 0


def _check_attention_argument_types(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """What PyTorch's argument parser refuses before the op runs (TypeError with the parser's words)."""
    fn = "scaled_dot_product_attention()"
    for position, (name, t) in enumerate((("query", query), ("key", key), ("value", value)), 1):
        if not isinstance(t, tandem.Tensor):
            raise TypeError(f"{fn}: argument '{name}' (position {position}) must be Tensor, not {_parser_type_name(t)}")
    if attn_mask is not None and not isinstance(attn_mask, tandem.Tensor):
        raise TypeError(f"{fn}: argument 'attn_mask' must be Tensor, not {_parser_type_name(attn_mask)}")
    for name, v, optional in (("dropout_p", dropout_p, False), ("scale", scale, True)):
        if not (isinstance(v, (int, float)) or (optional and v is None)
                or (isinstance(v, tandem.Tensor) and v.dim() == 0)):  # the parser takes a 0-dim tensor too
            raise TypeError(f"{fn}: argument '{name}' must be float, not {_parser_type_name(v)}")
    for name, v in (("is_causal", is_causal), ("enable_gqa", enable_gqa)):
        if not isinstance(v, bool):
            raise TypeError(f"{fn}: argument '{name}' must be bool, not {_parser_type_name(v)}")


def _flash_cpu_reads_mask_rows(query, key, value, attn_mask, dropout_p):
    """Whether PyTorch's CPU backend choice gets as far as reading attn_mask.size(-2) (its flash kernel's mask
    check, after the shape, dropout and batch checks): 4-D query, key and value of one batch size, no dropout, a
    mask without grad, no empty input. A 0-d or 1-d mask then raises IndexError; elsewhere it broadcasts."""
    return (query.dim() == key.dim() == value.dim() == 4 and dropout_p == 0.0 and not attn_mask.requires_grad
            and query.shape[0] == key.shape[0] == value.shape[0]
            and min(query.numel(), key.numel(), value.numel()) > 0)


def _check_attention_inputs(query, key, value, attn_mask, dropout_p, is_causal):
    if dropout_p < 0.0:  # PyTorch's CPU backend choice (its fused kernel) words the refusal this way
        raise RuntimeError("scaled_dot_product_attention_flash_attention: Currently do not support dropout > 0\n"
                           f"hint: dropout_p must be in [0, 1], got {dropout_p}")
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if not query.dtype == key.dtype == value.dtype:
        names = [t.dtype._cpp_type_name for t in (query, key, value)]
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: {names[0]} "
                           f"key.dtype: {names[1]} and value.dtype: {names[2]} instead.")
    if not (query.is_floating_point() or query.is_complex()):  # PyTorch's kernels read the inputs as float
        raise RuntimeError(f"expected scalar type Float but found {query.dtype._scalar_type_name}\n"
                           "hint: attention takes floating-point query, key and value")
    if dropout_p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if attn_mask is not None:
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        if attn_mask.dtype not in (tandem.bool, tandem.float32, query.dtype):
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                               f"attn_mask.dtype: {attn_mask.dtype._cpp_type_name} and  query.dtype: "
                               f"{query.dtype._cpp_type_name} instead.")
        if attn_mask.dim() < 2 and _flash_cpu_reads_mask_rows(query, key, value, attn_mask, dropout_p):
            if attn_mask.dim() == 0:
                raise IndexError("Dimension specified as -2 but tensor has no dimensions")
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value over the last two dims, batch dims broadcast, as PyTorch's
    math backend. A bool ``attn_mask`` is True where a query may attend; a float one is added to the scores;
    ``is_causal`` hides the keys after each query (top-left aligned when L != S); rows that may attend nothing
    give zeros; ``enable_gqa`` shares each key/value head among query heads; ``scale`` defaults to 1/sqrt(E).

    One C++ op (src/ops/attention.cpp): blocks of query rows (causal blocks skip the keys no row sees), one
    autograd node that keeps only the inputs, the output and each row's logsumexp, and a backward that
    recomputes each block's probabilities, so memory stays linear in the sequence length. CUDA dropout draws are
    regenerated in the backward from the forward's generator offset; CPU dropout keeps PyTorch's noise for the
    whole score matrix (its math backend's draws, so a seed gives its masks), quadratic memory as PyTorch's."""
    if _amp_active():  # PyTorch's autocast list: lower
        return _amp_run("lower", scaled_dot_product_attention,
                        query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    _check_attention_argument_types(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    _check_attention_inputs(query, key, value, attn_mask, dropout_p, is_causal)
    return _C._scaled_dot_product_attention(query, key, value, attn_mask, float(dropout_p), bool(is_causal),
                                            None if scale is None else float(scale), bool(enable_gqa),
                                            _SCORES_PER_BLOCK)


# ---- multi-head attention (PyTorch's F.multi_head_attention_forward, minus its fused fast path) ---------------
def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """True for batched (3-D) input, False for unbatched (2-D); PyTorch's AssertionErrors otherwise."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A float (additive) mask: a bool mask's True entries become -inf; float masks pass unchanged."""
    if mask is None:
        return None
    if mask.dtype != tandem.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if mask.is_floating_point():
        return mask
    return tandem.zeros(mask.shape, dtype=target_type, device=mask.device).masked_fill_(mask, float("-inf"))


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, tandem.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _same_layout(fn, query, key, value):
    """fn applied to query, key and value, keeping which of them are the same tensor (self-attention then
    projects with one GEMM)."""
    if key is value:
        if query is key:
            query = key = value = fn(query)
        else:
            query, key = fn(query), fn(key)
            value = key
        return query, key, value
    return fn(query), fn(key), fn(value)


def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v projected by the packed (3E, E) weight: one GEMM for self-attention, two for shared key/value."""
    embed_dim = q.size(-1)
    if k is v:
        if q is k:
            return F.linear(q, w, b).chunk(3, dim=-1)
        w_q, w_kv = w.split([embed_dim, 2 * embed_dim])
        b_q, b_kv = (None, None) if b is None else b.split([embed_dim, 2 * embed_dim])
        return (F.linear(q, w_q, b_q),) + tuple(F.linear(k, w_kv, b_kv).chunk(2, dim=-1))
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    eq, ek, ev = q.size(-1), k.size(-1), v.size(-1)
    for name, w, shape in (("query", w_q, (eq, eq)), ("key", w_k, (eq, ek)), ("value", w_v, (eq, ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (eq,):
            raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {b.shape}")
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _append_zero_column(mask):
    """The mask for one more key (bias_k or the zero attention), which every query may attend."""
    return tandem.cat([mask, mask.new_zeros(list(mask.shape[:-1]) + [1])], dim=-1)


def _split_heads(t, length, batch_heads, head_dim):
    """(length, batch, heads * head_dim) -> (batch * heads, length, head_dim)."""
    return t.reshape(length, batch_heads, head_dim).transpose(0, 1)


def _check_static(static, name, batch_heads, head_dim):
    if static.size(0) != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """nn.MultiheadAttention's computation on (L, N, E) / unbatched (L, E) input, as PyTorch: project, split
    heads, attend (through scaled_dot_product_attention unless the weights are wanted), merge heads, project.
    Returns (output, weights) where weights is None unless need_weights."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = _same_layout(lambda t: t.unsqueeze(1), query, key, value)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint says attn_mask is causal: attention builds that mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, *biases)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                               f"{(bsz * num_heads, tgt_len, src_len)}.")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = tandem.cat([k, bias_k.repeat(1, bsz, 1)])  # PyTorch's repeat: a wrong size is cat's error
        v = tandem.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else _append_zero_column(attn_mask)
        key_padding_mask = None if key_padding_mask is None else _append_zero_column(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    batch_heads = bsz * num_heads
    q = _split_heads(q, tgt_len, batch_heads, head_dim)
    k = _split_heads(k, k.shape[0], batch_heads, head_dim) if static_k is None else _check_static(
        static_k, "static_k", batch_heads, head_dim)
    v = _split_heads(v, v.shape[0], batch_heads, head_dim) if static_v is None else _check_static(
        static_v, "static_v", batch_heads, head_dim)
    if add_zero_attn:
        k = tandem.cat([k, k.new_zeros((batch_heads, 1, head_dim))], dim=1)
        v = tandem.cat([v, v.new_zeros((batch_heads, 1, head_dim))], dim=1)
        attn_mask = None if attn_mask is None else _append_zero_column(attn_mask)
        key_padding_mask = None if key_padding_mask is None else _append_zero_column(key_padding_mask)
    src_len = k.size(1)

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
                            .reshape(batch_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:  # the weights themselves are wanted: PyTorch's explicit path (a fully masked row gives NaN)
        # baddbmm as PyTorch: a mask of another float dtype than the query is its "Input dtypes must be the same"
        q_scaled = q * math.sqrt(1.0 / head_dim)
        scores = (tandem.bmm(q_scaled, k.transpose(-2, -1)) if attn_mask is None
                  else tandem.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1)))
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        out = tandem.matmul(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F.linear(out, out_proj_weight, out_proj_bias)
        out = out.reshape(tgt_len, bsz, out.size(-1))  # not -1: an empty sequence has no size to infer
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        return (out, weights) if is_batched else (out.squeeze(1), weights.squeeze(0))

    if attn_mask is not None:
        attn_mask = (attn_mask.unsqueeze(0) if attn_mask.size(0) == 1
                     else attn_mask.reshape(bsz, num_heads, -1, src_len))
    q, k, v = (t.reshape(bsz, num_heads, t.size(1), head_dim) for t in (q, k, v))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias)
    out = out.reshape(tgt_len, bsz, out.size(-1))
    return (out if is_batched else out.squeeze(1)), None


# ---- embedding_bag -------------------------------------------------------------------------------------------
def _renorm_rows_(weight, input, max_norm, norm_type):
    """Rescale in place, untracked, the rows ``input`` picks whose norm exceeds max_norm (PyTorch's
    embedding_renorm_, which embedding_bag runs before the lookup)."""
    with tandem.no_grad():
        index = input.reshape(-1).long()
        rows = untracked(weight).index_select(0, index)
        norms = rows.norm(p=norm_type, dim=1, keepdim=True)
        scale = tandem.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        untracked(weight).index_copy_(0, index, rows * scale)


def _reduce_dense_bags(indices, weight, keep, per_sample_weights, mode, scale_grad_by_freq=False, sparse=False,
                       padding_idx=None):
    """Reduce the rows picked by ``indices`` (bags, length) over each bag; ``keep`` (or None: all) marks the
    entries that count. scale_grad_by_freq divides each row's gradient by its count in all the bags (as
    PyTorch's, which counts the whole input); sparse gives the weight a sparse gradient without the padding
    entries."""
    rows = embedding(indices, weight, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse,
                     padding_idx=padding_idx if sparse else None)
    if mode == "max":
        if keep is None:
            return rows.max(dim=1).values
        best = rows.masked_fill(keep.logical_not().unsqueeze(-1), float("-inf")).max(dim=1).values
        return best.masked_fill(keep.any(dim=1, keepdim=True).logical_not(), 0.0)  # empty bags give zeros
    rows, per_sample_weights, low = _accumulate_in_float(rows, per_sample_weights)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(-1)
    if keep is not None:
        rows = rows.masked_fill(keep.logical_not().unsqueeze(-1), 0.0)
    total = _rounded(rows.sum(dim=1), low)
    if mode == "sum":
        return total
    count = max(indices.size(1), 1) if keep is None else keep.sum(dim=1, keepdim=True).clamp(min=1)
    return _rounded(total.float() / count, low) if low is not None else total / count


def _accumulate_in_float(rows, per_sample_weights):
    """PyTorch's bag kernels sum 16-bit rows in float32 and round each bag's sum once (a mean divides that rounded
    sum): (rows, per_sample_weights, the 16-bit dtype or None) to sum in float32."""
    if rows.dtype not in (tandem.float16, tandem.bfloat16):
        return rows, per_sample_weights, None
    return rows.float(), None if per_sample_weights is None else per_sample_weights.float(), rows.dtype


def _rounded(t, low):
    return t if low is None else t.to(low)


def _check_offsets(offsets, length):
    """PyTorch's offset checks; they need the values on the host, so (like PyTorch) they run on cpu only."""
    if offsets.device.type != "cpu" or offsets.numel() == 0:
        return
    first, last = (int(x) for x in tandem.stack([offsets[0], offsets[-1]]).tolist())
    if first != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {first}")
    if last > length:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {length} but got offsets[-1] of "
                           f"{last}")


def _bags_from_offsets(input, weight, offsets, num_bags, keep, per_sample_weights, mode, include_last_offset,
                       scale_grad_by_freq=False, sparse=False, padding_idx=None):
    """Bags of a 1-D input: sum and mean add each entry into its bag (index_add); max pads the bags to the longest
    one (read on the host) and reduces them densely."""
    length = input.numel()
    offsets = offsets.long()
    starts = offsets.narrow(0, 0, num_bags)
    if mode == "max":
        ends = offsets.narrow(0, 1, num_bags) if include_last_offset else tandem.cat(
            [offsets.narrow(0, 1, num_bags - 1), offsets.new_full((1,), length)])
        sizes = ends - starts
        with _crossing("F.embedding_bag(mode='max')"):  # the longest bag sets the padded width
            longest = int(sizes.max().item()) if num_bags and length else 0
        if longest == 0:
            return weight.new_zeros((num_bags, weight.size(1)))
        steps = tandem.arange(longest, device=input.device)
        positions = (starts.unsqueeze(1) + steps).clamp(max=length - 1)
        inside = steps < sizes.unsqueeze(1)
        indices = input.index_select(0, positions.reshape(-1)).reshape(num_bags, longest)
        keep = inside if keep is None else inside & keep.index_select(0, positions.reshape(-1)).reshape(inside.shape)
        return _reduce_dense_bags(indices, weight, keep, None, mode)
    # Entry i belongs to the last bag starting at or before i (offsets are sorted): count the starts up to i.
    # Entries past offsets[-1] with include_last_offset land in one extra bag that is dropped.
    starts_at = tandem.zeros(length + 1, dtype=tandem.int64, device=input.device).index_add(
        0, offsets.clamp(max=length), tandem.ones_like(offsets))
    bag_of = (starts_at.cumsum(0).narrow(0, 0, length) - 1).clamp(min=0)
    rows = embedding(input, weight, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse,
                     padding_idx=padding_idx if sparse else None)
    rows, per_sample_weights, low = _accumulate_in_float(rows, per_sample_weights)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(-1)
    if keep is not None:
        rows = rows.masked_fill(keep.logical_not().unsqueeze(-1), 0.0)
    slots = offsets.numel()
    total = _rounded(rows.new_zeros((slots, weight.size(1))).index_add(0, bag_of, rows).narrow(0, 0, num_bags), low)
    if mode == "sum":
        return total
    counted = rows.new_ones((length,)) if keep is None else keep.to(rows.dtype)
    count = rows.new_zeros((slots,)).index_add(0, bag_of, counted).narrow(0, 0, num_bags)
    return _rounded(total.float() / count.clamp(min=1).unsqueeze(-1), low) if low is not None else (
        total / count.clamp(min=1).unsqueeze(-1))


def _check_bag_indices(input, rows):
    """PyTorch's RuntimeError for an index outside the weight's rows. On the CPU only, as PyTorch (which asserts
    on the device): on a GPU the check would cost a synchronisation, and index_select's own check still raises."""
    if input.device.type != "cpu" or input.numel() == 0:
        return
    flat = input.reshape(-1)
    bad = ((flat < 0) | (flat >= rows)).nonzero()
    if bad.numel():
        i = int(bad[0, 0])
        raise RuntimeError(f"Index {i} of input takes value {int(flat[i])} which is not in the valid range "
                           f"[0, {rows})")


# The dtypes ATen's argument checks name by a legacy tensor type (torch.FloatTensor); the others it names by
# backend and scalar type (CPUBFloat16Type, CUDABoolType).
_LEGACY_TENSOR_TYPES = {tandem.uint8, tandem.int8, tandem.int16, tandem.int32, tandem.int64, tandem.float16,
                        tandem.float32, tandem.float64}


def _checked_type_name(t):
    """How PyTorch's checkScalarTypes/checkSameType messages name tensor ``t``'s type."""
    if t.dtype in _LEGACY_TENSOR_TYPES:
        return t.type()
    return f"{'CUDA' if t.is_cuda else 'CPU'}{t.dtype._scalar_type_name}Type"


def _check_bag_weight_dtypes(weight, per_sample_weights):
    """PyTorch's checks: a floating table, and per-sample weights of exactly its dtype (no promotion: float64
    weights made by NumPy into a float32 table are refused, not silently turned into a float64 output)."""
    if not weight.is_floating_point():
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"Half, BFloat16, Float, Double; but got {_checked_type_name(weight)} instead (while "
                           "checking arguments for embedding_bag)")
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                           f"#1 'per_sample_weights'; but type {_checked_type_name(weight)} does not equal "
                           f"{_checked_type_name(per_sample_weights)} (while checking arguments for embedding_bag)"
                           f"\nhint: give the weights the table's dtype, e.g. "
                           f"per_sample_weights.to({str(weight.dtype)})")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sum, mean or max of bags of rows of ``weight``: each row of a 2-D ``input`` is a bag, or the runs of a 1-D
    ``input`` that start at ``offsets``. Entries equal to ``padding_idx`` are left out (mean does not count them);
    empty bags give zeros; ``per_sample_weights`` scales each entry (mode='sum' only). Unlike PyTorch the picked
    rows are materialised (index_select, then index_add or a padded max), ``scale_grad_by_freq`` divides each
    row's gradient by its count in the whole input (sum and mean). ``sparse=True`` gives the weight a sparse COO
    gradient, as PyTorch's: one entry per looked-up index, padding entries left out (nn/_sparse_grad.py)."""
    if _amp_active():  # unlisted in PyTorch's autocast: its inner sum/mean must not turn the result into float32
        return _amp_run("none", lambda *a: embedding_bag(*a, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                                                          per_sample_weights, include_last_offset, padding_idx),
                        input, weight, offsets)
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type "
                             f"{_class_repr(offsets)}")
        if input.size(1) == 0:  # PyTorch's bag offsets are arange(0, numel, step=bag length)
            raise RuntimeError("step must be nonzero")
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    # ATen promotes the indices and offsets to their common dtype first, then checks it (as the indices' type)
    common = input.dtype if offsets is None else tandem.promote_types(input.dtype, offsets.dtype)
    if common not in (tandem.int64, tandem.int32):
        named = tandem.empty(0, dtype=common, device=input.device)
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {_checked_type_name(named)} instead (while checking arguments for "
                           "embedding_bag)")
    input = input.to(common)
    offsets = None if offsets is None else offsets.to(common)
    # PyTorch's order: the mode check in Python, then the kernel's dtype checks, then its index checks.
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    _check_bag_weight_dtypes(weight, per_sample_weights)
    if include_last_offset and input.dim() == 1 and offsets.numel() < 1:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    _check_bag_indices(input, weight.size(0))
    if max_norm is not None:
        _renorm_rows_(weight, input, max_norm, norm_type)
    keep = None
    if padding_idx is not None:
        rows = weight.size(0)
        if not -rows <= padding_idx < rows:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{rows} through {rows - 1}, "
                               f"but got {padding_idx}")
        keep = input != padding_idx % rows
    if input.dim() == 2:
        return _reduce_dense_bags(input, weight, keep, per_sample_weights, mode, scale_grad_by_freq, sparse,
                                  padding_idx)
    _check_offsets(offsets, input.numel())
    num_bags = offsets.numel() - 1 if include_last_offset else offsets.numel()
    if num_bags <= 0:
        return weight.new_zeros((0, weight.size(1)))
    return _bags_from_offsets(input, weight, offsets, num_bags, keep, per_sample_weights, mode, include_last_offset,
                              scale_grad_by_freq, sparse, padding_idx)


def _class_repr(x):
    """repr(type(x)), with a tensor's class under its public name (tandem.Tensor, as PyTorch's torch.Tensor)."""
    return "<class 'tandem.Tensor'>" if isinstance(x, tandem.Tensor) else repr(type(x))
