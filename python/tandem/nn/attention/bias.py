"""torch.nn.attention.bias: causal masks as objects that scaled_dot_product_attention understands without building
them (`attn_mask=causal_lower_right(L, S)`).

CausalBias is a Tensor subclass, as PyTorch's, so it passes where a mask tensor is expected; its
__torch_function__ catches F.scaled_dot_product_attention and turns the bias into is_causal=True (upper-left, or
any square one) or into the materialised lower-right mask (tandem has no kernel that aligns the diagonal to the
lower right by itself). Any other function sees it as the plain tensor it is underneath."""
import warnings
from enum import IntEnum

import tandem

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(IntEnum):
    """Where the causal diagonal starts when the query and key lengths differ: UPPER_LEFT (query i sees keys 0..i,
    the same as is_causal=True) or LOWER_RIGHT (the last query sees every key: tril with offset S - L)."""
    UPPER_LEFT = 1
    LOWER_RIGHT = 2


class CausalBias(tandem.Tensor):
    """A causal mask of shape (seq_len_q, seq_len_kv), described by its variant rather than stored."""

    def __init__(self, variant, seq_len_q, seq_len_kv):
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        super().__init__()
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warnings.warn("Lower right causal bias will produce NaNs in the output when seq_len_q > seq_len_kv!",
                          stacklevel=2)

    def _materialize(self, device=None):
        """The mask as a bool tensor (True where a query may attend), on `device` (the CPU by default)."""
        ones = tandem.ones(self.seq_len_q, self.seq_len_kv, dtype=tandem.bool,
                           device=tandem.device("cpu") if device is None else device)
        if self.variant == CausalVariant.LOWER_RIGHT:
            return tandem.tril(ones, diagonal=self.seq_len_kv - self.seq_len_q)
        return tandem.tril(ones)

    @staticmethod
    def _dispatch(query, key, value, attn_mask, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        sdpa = tandem.nn.functional.scaled_dot_product_attention
        if attn_mask.seq_len_q == attn_mask.seq_len_kv or attn_mask.variant == CausalVariant.UPPER_LEFT:
            return sdpa(query, key, value, attn_mask=None, dropout_p=dropout_p, is_causal=True, scale=scale,
                        enable_gqa=enable_gqa)
        if attn_mask.variant == CausalVariant.LOWER_RIGHT:
            return sdpa(query, key, value, attn_mask=attn_mask._materialize(query.device), dropout_p=dropout_p,
                        is_causal=False, scale=scale, enable_gqa=enable_gqa)
        raise ValueError(f"CausalBias.variant must be a CausalVariant type, but found: {attn_mask.variant}")

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is tandem.nn.functional.scaled_dot_product_attention:
            return cls._dispatch(*args, **kwargs)
        return super().__torch_function__(func, types, args, kwargs)

    def __repr__(self):
        return repr(self._materialize())


def causal_upper_left(*size):
    """The causal bias aligned to the upper left: tril(ones(L, S)), what is_causal=True means."""
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.UPPER_LEFT, seq_len_q, seq_len_kv)


def causal_lower_right(*size):
    """The causal bias aligned to the lower right: tril(ones(L, S), diagonal=S - L)."""
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.LOWER_RIGHT, seq_len_q, seq_len_kv)
