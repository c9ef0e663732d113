"""Transformer, its encoder/decoder stacks and layers, with PyTorch's submodule names so state_dict keys match.
There is no fused encoder-layer kernel or nested tensor: every layer runs its ordinary forward, and where PyTorch's
encoder would take its nested-tensor path, the stack reproduces what that path returns (zeros at padding)."""
import copy
import warnings

import tandem

from .. import functional as F
from .. import init
from .._functional_attention import _canonical_mask, _none_or_dtype
from ._fused_inference import encoder_layer_takes_fused_path, fused_layer_masks, nan_where_no_key
from .activation import GELU, ReLU
from .activation_attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    """(sz, sz) float mask: 0 on and below the diagonal, -inf above it (position i sees positions 0..i)."""
    # PyTorch's construction, so a negative or float size is full()'s error
    return tandem.triu(tandem.full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


# PyTorch's stacks compare a given mask with the causal one (a device read) when is_causal is None, only to
# pick a faster kernel; attention with the causal mask itself gives the same values, so the stacks here pass
# is_causal through as given.
class Transformer(Module):
    """Encoder-decoder transformer ("Attention Is All You Need"), as PyTorch's nn.Transformer."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **factory)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **factory)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer``, then the optional ``norm``. ``use_nested_tensor`` is set as
    PyTorch sets it; when PyTorch would run its nested-tensor path (see _nested_path_lengths), the layers run on the
    padded batch with the equivalent key padding mask and the padded positions come out as zeros, as PyTorch's
    to_padded_tensor(0.0) gives them."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check
        why_not = _why_not_fast_path(encoder_layer)
        self.use_nested_tensor = bool(enable_nested_tensor) and not why_not
        if enable_nested_tensor and why_not:  # PyTorch's warning, so programs see the same output
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask", _none_or_dtype(mask),
                                               "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        kept = _nested_path_positions(self, src, mask, src_key_padding_mask)
        if kept is not None:  # the nested path sees each sequence's first `length` tokens, however the mask ran
            src_key_padding_mask = _canonical_mask(kept.logical_not(), "src_key_padding_mask", None, "", src.dtype)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=bool(is_causal), src_key_padding_mask=src_key_padding_mask)
        if kept is not None:
            output = output.masked_fill(kept.logical_not().unsqueeze(-1), 0.0)
        return output if self.norm is None else self.norm(output)


def _nested_path_positions(encoder, src, mask, key_padding_mask):
    """Where PyTorch's TransformerEncoder would pack the batch into a nested tensor (inference without grad, a key
    padding mask and no attention mask, a fast-path layer), the (N, L) bool of the positions that path keeps: each
    sequence's first `length` tokens, `length` counting its unmasked keys. None where PyTorch runs the padded batch."""
    first = encoder.layers[0]
    if (not tandem.backends.mha.get_fastpath_enabled() or not getattr(encoder, "use_nested_tensor", False)
            or first.training or src.dim() != 3 or key_padding_mask is None or mask is not None
            or tandem.is_autocast_enabled() or src.device.type not in ("cpu", "cuda")):
        return None
    attn = first.self_attn
    weights = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias,
               first.norm1.weight, first.norm1.bias, first.norm2.weight, first.norm2.bias, first.linear1.weight,
               first.linear1.bias, first.linear2.weight, first.linear2.bias)
    if tandem.is_grad_enabled() and any(t is not None and t.requires_grad for t in weights):
        return None
    if tuple(key_padding_mask.shape) != tuple(src.shape[:2]):  # packing the batch by the mask needs (N, L)
        raise RuntimeError("Mask size should match input size")
    valid = key_padding_mask.logical_not()
    if getattr(encoder, "mask_check", True) and bool((valid[:, 1:] & ~valid[:, :-1]).any()):
        return None  # PyTorch's check: padding only at the end of each sequence
    lengths = valid.sum(-1, keepdim=True)
    return tandem.arange(src.shape[1], device=src.device).unsqueeze(0) < lengths


def _why_not_fast_path(layer):
    """PyTorch's reason an encoder layer does not qualify for its nested-tensor fast path ('' when it does)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    reasons = [(layer.norm_first, "norm_first was True"),
               (not attn.batch_first, "self_attn.batch_first was not True(use batch_first for better inference "
                                      "performance)"),
               (not attn._qkv_same_embed_dim, "self_attn._qkv_same_embed_dim was not True"),
               (attn.in_proj_bias is None, "self_attn was passed bias=False"),
               (not layer.activation_relu_or_gelu, "activation_relu_or_gelu was not True"),
               (layer.norm1.eps != layer.norm2.eps, f"norm1.eps was not equal to {name}.norm2.eps"),
               (attn.num_heads % 2 == 1, "self_attn.num_heads is odd")]
    return next((f"{name}.{why}" for failed, why in reasons if failed), "")


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer``, then the optional ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        self.layers[0]  # PyTorch reads the first layer's batch_first: a decoder with no layers is an IndexError
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=bool(tgt_is_causal),
                           memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


class TransformerEncoderLayer(Module):
    """Self-attention then feed-forward, each with a residual and LayerNorm (after each block, or before it with
    ``norm_first``)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **factory)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation
        # PyTorch's record of the activation (1 relu, 2 gelu, 0 other), which TransformerEncoder reads.
        if self.activation is F.relu or isinstance(self.activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif self.activation is F.gelu or isinstance(self.activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        fused = encoder_layer_takes_fused_path(self, src)
        if fused and src.shape[-1] != self.self_attn.embed_dim:  # the fused layer's attention checks it first
            raise RuntimeError(f"passed-in embed_dim {self.self_attn.embed_dim} didn't match last dim of query "
                               f"{src.shape[-1]}")
        if fused:  # PyTorch's fused layer reads its masks as bool ones and takes no is_causal hint
            src_mask, src_key_padding_mask = fused_layer_masks(src_mask, src_key_padding_mask,
                                                               self.self_attn.num_heads, src)
            is_causal = False
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        if fused:  # and NaN where a query has no key left
            x = nan_where_no_key(x, src_key_padding_mask, src_mask, self.self_attn.num_heads)
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's ``memory``, then feed-forward, each with a residual and
    LayerNorm (after each block, or before it with ``norm_first``)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **factory)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 bias=bias, **factory)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def __setstate__(self, state):
        # PyTorch's layer gives a state without an "activation" entry F.relu (meant for layers pickled before the
        # argument existed). A module activation lives in _modules, so every copy or unpickling of such a layer
        # (TransformerDecoder's clones included) runs relu in PyTorch; kept, since models trained there rely on it.
        if "activation" not in state:
            state["activation"] = F.relu
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))
