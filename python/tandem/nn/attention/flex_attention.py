"""torch.nn.attention.flex_attention: attention whose scores a user function modifies (`score_mod`) and whose
pattern a user function masks (`mask_mod`, packed into a BlockMask by create_block_mask).

tandem computes FlexAttention as PyTorch's eager (math) path does: the whole score matrix in float32 (float64 for
float64 inputs), score_mod and mask_mod applied to it, a softmax in which fully masked rows give zeros, then the
product with the values. Where PyTorch vmaps the modifiers over scalar indices, tandem calls them once with index
tensors shaped to broadcast against the scores (b: (B,1,1,1), h: (1,H,1,1), q_idx: (1,1,L,1), kv_idx:
(1,1,1,S)): the elementwise code and tensor indexing that modifiers are written with (`bias[h, q_idx]`,
`document[q_idx] == document[kv_idx]`) give the same values either way. Gradients flow through the ordinary ops on
every device (PyTorch's CPU path has no backward). There is no fused kernel to compile, so the call does not
warn that it runs unfused; the BlockMask's block sparsity describes the mask but is not used to skip work."""
import inspect
import itertools
import math
import warnings
from typing import NamedTuple, TypedDict

import tandem

__all__ = ["BlockMask", "flex_attention", "AuxOutput", "AuxRequest", "FlexKernelOptions", "create_block_mask",
           "create_mask", "or_masks", "and_masks", "noop_mask"]

_DEFAULT_SPARSE_BLOCK_SIZE = 128
_LARGE_SPARSE_BLOCK_SIZE = 1 << 30  # the one block of "no block mask given"
_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = False  # PyTorch's switch; tandem always runs the modifiers eagerly
_WARNINGS_SHOWN = set()

_BLOCK_MASK_TOO_SMALL_ERROR = ("block_mask was created for a smaller length than you're using it for, you likely "
                               "need to create a new block mask.")
_BLOCK_MASK_TOO_LARGE_ERROR = ("block_mask was created for a larger length than you're using it for, you can either "
                               "1. create a new block mask with the correct length, or 2. 'adjust' the existing "
                               "block mask to the correct length by calling block_mask._adjust(q_len, kv_len). This "
                               "essentially 'crops' the block mask to the upper left corner, which does not work "
                               "for all mask_mods!")


class FlexKernelOptions(TypedDict, total=False):
    """Tuning knobs of PyTorch's generated kernels (block sizes, warps, stages, backend). tandem accepts and ignores
    them: its one implementation has nothing to tune."""


class AuxRequest(NamedTuple):
    """Which extra outputs flex_attention returns beside the attention: the rows' logsumexp, their largest score."""
    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    lse: object = None
    max_scores: object = None


def _warn_once(warning_id, message, category=UserWarning):
    if warning_id not in _WARNINGS_SHOWN:
        warnings.warn(message, category, stacklevel=3)
        _WARNINGS_SHOWN.add(warning_id)


def noop_mask(batch, head, token_q, token_kv):
    """The mask_mod that masks nothing."""
    return batch.new_ones(size=(), dtype=tandem.bool, device=batch.device)


def _identity(score, batch, head, token_q, token_kv):
    return score


def or_masks(*mask_mods):
    """The mask_mod that allows what any of `mask_mods` allows."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b, h, q_idx, kv_idx):
        result = b.new_zeros((), dtype=tandem.bool)
        for mask in mask_mods:
            result = result | mask(b, h, q_idx, kv_idx)
        return result
    return or_mask


def and_masks(*mask_mods):
    """The mask_mod that allows what all of `mask_mods` allow."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b, h, q_idx, kv_idx):
        result = b.new_ones((), dtype=tandem.bool)
        for mask in mask_mods:
            result = result & mask(b, h, q_idx, kv_idx)
        return result
    return and_mask


def _positional_count(fn):
    """How many positional arguments without a default `fn` takes: 5 for a score_mod, 4 for a mask_mod."""
    if hasattr(fn, "__code__"):
        return fn.__code__.co_argcount - len(getattr(fn, "__defaults__", None) or ())
    return sum(1 for p in inspect.signature(fn).parameters.values() if p.default is inspect.Parameter.empty)


def _is_score_mod(fn):
    count = _positional_count(fn)
    if count not in (4, 5):
        raise AssertionError(f"Expected 4 or 5 positional args, got {count}")
    return count == 5


def _grid_indices(B, H, L, S, device):
    """b, h, q_idx, kv_idx as int64 tensors shaped to broadcast to (B, H, L, S)."""
    def arange(n, dim):
        shape = [1, 1, 1, 1]
        shape[dim] = n
        return tandem.arange(n, device=device).view(shape)
    return arange(B, 0), arange(H, 1), arange(L, 2), arange(S, 3)


def _default_device(device):
    if device is None:
        accelerator = tandem.accelerator.current_accelerator()
        return accelerator if accelerator is not None else tandem.device("cpu")
    return tandem.device(device)


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device=None):
    """The (B, H, Q_LEN, KV_LEN) bool mask a mask_mod describes (for a score_mod: where it leaves a zero score
    finite). B or H None means 1."""
    device = _default_device(device)
    B, H = B or 1, H or 1
    b, h, m, n = _grid_indices(B, H, Q_LEN, KV_LEN, device)
    if _is_score_mod(mod_fn):
        out = mod_fn(tandem.zeros(B, H, Q_LEN, KV_LEN, device=device), b, h, m, n)
        return tandem.where(tandem.isneginf(out), False, True).expand(B, H, Q_LEN, KV_LEN)
    return tandem.as_tensor(mod_fn(b, h, m, n), device=device).expand(B, H, Q_LEN, KV_LEN)


def _dense_to_ordered(dense):
    """A 0/1 block matrix as (blocks per row, column indices with the row's blocks first), int32."""
    dense = dense.to(tandem.int32)
    return (dense.sum(dim=-1).to(tandem.int32),
            tandem.argsort(dense, dim=-1, descending=True, stable=True).to(tandem.int32))


def _ordered_to_dense(num_blocks, indices, num_cols):
    """The inverse of _dense_to_ordered: the first num_blocks[row] entries of indices[row] are set."""
    valid = tandem.arange(indices.shape[-1], device=indices.device) < num_blocks.unsqueeze(-1).long()
    dense = tandem.zeros(*indices.shape[:-1], num_cols + 1, dtype=tandem.int32, device=indices.device)
    dense.scatter_(-1, tandem.where(valid, indices.long(), num_cols), 1)  # invalid entries land in the extra column
    return dense[..., :num_cols].contiguous()


class BlockMask:
    """A mask in blocks of BLOCK_SIZE = (query rows, key columns): per block row, how many blocks are partly
    allowed (kv_num_blocks, their columns in kv_indices) and how many wholly (full_kv_num_blocks,
    full_kv_indices), the same by block column (q_*), the lengths it was made for, and the mask_mod it came from
    (what flex_attention applies)."""

    def __init__(self, seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices, q_num_blocks,
                 q_indices, full_q_num_blocks, full_q_indices, BLOCK_SIZE, mask_mod):
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        self.seq_lengths = tuple(seq_lengths)
        self.kv_num_blocks, self.kv_indices = kv_num_blocks, kv_indices
        self.full_kv_num_blocks, self.full_kv_indices = full_kv_num_blocks, full_kv_indices
        self.q_num_blocks, self.q_indices = q_num_blocks, q_indices
        self.full_q_num_blocks, self.full_q_indices = full_q_num_blocks, full_q_indices
        self.BLOCK_SIZE = tuple(BLOCK_SIZE)
        self.mask_mod = mask_mod
        # PyTorch's deterministic-backward schedule (CUDA flash kernels); kept so as_tuple has PyTorch's layout
        self.dq_write_order = self.dq_write_order_full = self.dq_kv_order = self.dq_kv_order_spt = None

    @classmethod
    def from_kv_blocks(cls, kv_num_blocks, kv_indices, full_kv_num_blocks=None, full_kv_indices=None,
                       BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, mask_mod=None, seq_lengths=None,
                       compute_q_blocks=True):
        """A BlockMask from its per-row block lists; the per-column lists are derived from them."""
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError("full_kv_num_blocks and full_kv_indices must be both provided or omitted")
        if isinstance(BLOCK_SIZE, int):
            BLOCK_SIZE = (BLOCK_SIZE, BLOCK_SIZE)
        if seq_lengths is None:
            seq_lengths = (kv_indices.shape[-2] * BLOCK_SIZE[0], kv_indices.shape[-1] * BLOCK_SIZE[1])
        kv_cols = -(-seq_lengths[1] // BLOCK_SIZE[1])
        q_lists = full_q_lists = (None, None)
        if compute_q_blocks:
            q_lists = _dense_to_ordered(_ordered_to_dense(kv_num_blocks, kv_indices, kv_cols).transpose(-2, -1))
            if full_kv_num_blocks is not None:
                full_q_lists = _dense_to_ordered(
                    _ordered_to_dense(full_kv_num_blocks, full_kv_indices, kv_cols).transpose(-2, -1))
        return cls(seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices, *q_lists,
                   *full_q_lists, BLOCK_SIZE, mask_mod if mask_mod is not None else noop_mask)

    @property
    def shape(self):
        return tuple(self.kv_indices.shape[:-2]) + self.seq_lengths

    def numel(self):
        return math.prod(self.shape)

    def sparsity(self):
        """The percentage of blocks that are skipped (neither partly nor wholly allowed)."""
        total = math.prod(self.kv_num_blocks.shape[:-1])
        for length, block in zip(self.seq_lengths, self.BLOCK_SIZE):
            total *= -(-length // block)
        computed = int(self.kv_num_blocks.sum())
        if self.full_kv_num_blocks is not None:
            computed += int(self.full_kv_num_blocks.sum())
        return 100 * (1 - computed / total)

    def to_dense(self):
        """The block matrix, 1 where a block is computed (partly or wholly allowed), int32."""
        dense = _ordered_to_dense(self.kv_num_blocks, self.kv_indices, self.kv_indices.shape[-1])
        if self.full_kv_num_blocks is not None:
            dense = dense | _ordered_to_dense(self.full_kv_num_blocks, self.full_kv_indices,
                                              self.full_kv_indices.shape[-1])
        return dense

    def to_string(self, grid_size=(20, 20), limit=4):
        """The block matrix drawn with characters (full, partial, empty), one drawing per (batch, head) up to
        `limit`, each shrunk to at most `grid_size` cells (-1: not shrunk)."""
        dense = self.to_dense()
        *batch_dims, rows, cols = dense.shape
        if grid_size == -1:
            max_rows, max_cols = rows, cols
        elif isinstance(grid_size, int):
            max_rows = max_cols = grid_size
        else:
            max_rows, max_cols = grid_size
        row_step, col_step = max(1, -(-rows // max_rows)), max(1, -(-cols // max_cols))

        def draw(index):
            mask = dense[index]
            text = f"{index}\n"
            for r in range(0, rows, row_step):
                for c in range(0, cols, col_step):
                    share = mask[r:r + row_step, c:c + col_step].float().mean().item()
                    text += ("█" if share == 1 else " " if share == 0 else "░") * 2
                text += "\n"
            return text

        drawings = []
        for count, index in enumerate(itertools.product(*[range(n) for n in batch_dims])):
            if count == limit:
                drawings += ["...", "To print out more, set BlockMask.to_string(limit=N)",
                             "You can also index (BlockMask[batch, head]) to choose a specific batch or head"]
                break
            drawings.append(draw(index))
        return "\n".join(drawings)

    def __str__(self):
        return f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, \n{self.to_string().strip()}\n)"

    __repr__ = __str__

    def as_tuple(self, flatten=True):
        sizes = (*self.seq_lengths, ) if flatten else (self.seq_lengths, )
        blocks = (*self.BLOCK_SIZE, ) if flatten else (self.BLOCK_SIZE, )
        return (*sizes, self.kv_num_blocks, self.kv_indices, self.full_kv_num_blocks, self.full_kv_indices,
                self.q_num_blocks, self.q_indices, self.full_q_num_blocks, self.full_q_indices,
                self.dq_write_order, self.dq_write_order_full, self.dq_kv_order, self.dq_kv_order_spt, *blocks,
                self.mask_mod)

    def to(self, device):
        """A copy with its tensors on `device`."""
        moved = [None if t is None else t.to(device) for t in
                 (self.kv_num_blocks, self.kv_indices, self.full_kv_num_blocks, self.full_kv_indices,
                  self.q_num_blocks, self.q_indices, self.full_q_num_blocks, self.full_q_indices)]
        return BlockMask(self.seq_lengths, *moved, self.BLOCK_SIZE, self.mask_mod)


def _to_block_lists(mask, q_block, kv_block, separate_full_blocks):
    """(partial, full) 0/1 block matrices of a (B, H, L, S) bool mask, padded with False to whole blocks."""
    B, H, L, S = mask.shape
    pad_q, pad_kv = -L % q_block, -S % kv_block
    padded = tandem.zeros(B, H, L + pad_q, S + pad_kv, dtype=tandem.int32, device=mask.device)
    padded[:, :, :L, :S] = mask.to(tandem.int32)
    counts = padded.view(B, H, (L + pad_q) // q_block, q_block, (S + pad_kv) // kv_block, kv_block).sum(dim=(3, 5))
    if not separate_full_blocks:
        return (counts > 0).to(tandem.int8), None
    whole = q_block * kv_block
    return ((counts > 0) & (counts < whole)).to(tandem.int8), (counts == whole).to(tandem.int8)


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None, BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                      _compile=False, separate_full_blocks=True, compute_dq_write_order=False, dq_kv_order=True):
    """The BlockMask of `mask_mod` for a (B, H, Q_LEN, KV_LEN) attention (B or H None: 1, shared by all), blocks of
    BLOCK_SIZE (an int or (query, key) sizes). compute_dq_write_order and dq_kv_order concern PyTorch's
    deterministic CUDA backward and change nothing here."""
    device = _default_device(device)
    if _is_score_mod(mask_mod):
        raise AssertionError(f"create-block_mask requires a mask_mod function! Got {mask_mod}")
    if _compile:
        warnings.warn("_compile flag on create_block_mask was originally added to work around a torch.compile "
                      "limitation. That limitation has since been addressed. So, to compile create_block_mask, we "
                      "suggest doing torch.compile(create_block_mask). This still works for now, but will be removed "
                      "in the future.", DeprecationWarning, stacklevel=2)
    if not isinstance(dq_kv_order, bool):
        raise ValueError("dq_kv_order must be a bool when using create_block_mask")
    q_block, kv_block = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else BLOCK_SIZE
    mask = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device)
    partial, full = _to_block_lists(mask, q_block, kv_block, separate_full_blocks)
    full_lists = _dense_to_ordered(full) if full is not None else (None, None)
    return BlockMask.from_kv_blocks(*_dense_to_ordered(partial), *full_lists, BLOCK_SIZE=(q_block, kv_block),
                                    mask_mod=mask_mod, seq_lengths=(Q_LEN, KV_LEN))


def _check_inputs(query, key, value, block_mask, enable_gqa):
    if query.is_nested or key.is_nested or value.is_nested:
        raise NotImplementedError("flex_attention does not support NestedTensor inputs, including "
                                  "torch.compile(flex_attention) with jagged NestedTensor inputs. Convert inputs to "
                                  "dense tensors before calling flex_attention.")
    if query.device != key.device or query.device != value.device:
        raise ValueError(f"Expected query, key, and value to have the same device type, but got query.device: "
                         f"{query.device}, key.device: {key.device}, and value.device: {value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise ValueError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                         f"{query.dim()}, key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if query.size(-1) != key.size(-1):
        raise ValueError(f"Expect query and key/value to have the same embedding dimension but got "
                         f"E={query.size(-1)} and E={key.size(-1)}.")
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    if not enable_gqa and query.size(-3) != key.size(-3):
        raise ValueError(f"Expect query and key/value to have the same number of heads but got Hq={query.size(-3)} "
                         f"and Hkv={key.size(-3)}. Try setting enable_gqa=True for GQA.")
    if enable_gqa and query.size(1) % key.size(1) != 0:
        raise ValueError(f"Expect number of query heads to be a multiple of kv heads for GQA but got "
                         f"Hq={query.size(1)} and Hkv={key.size(1)}.")
    if query.size(0) != key.size(0):
        if block_mask is None:
            raise ValueError(f"Expect query and key/value to have the same batch size, or non-none block_mask, but "
                             f"got block_mask=None, Bq={query.size(0)}, and Bkv={key.size(0)}.")
        if block_mask.kv_num_blocks.size(0) != query.size(0):
            raise ValueError(f"Expect query and key/value to have the same batch size, or block_mask and query to "
                             f"have the same batch size, but got Bq={query.size(0)}, Bkv={key.size(0)}, "
                             f"B_block_mask={block_mask.kv_num_blocks.size(0)}.")
    if block_mask is not None and block_mask.BLOCK_SIZE != (_LARGE_SPARSE_BLOCK_SIZE, _LARGE_SPARSE_BLOCK_SIZE):
        q_len, kv_len = query.size(-2), key.size(-2)
        mask_q, mask_kv = block_mask.shape[-2], block_mask.shape[-1]
        if q_len > mask_q or kv_len > mask_kv:
            raise RuntimeError(_BLOCK_MASK_TOO_SMALL_ERROR)
        if q_len < mask_q or kv_len < mask_kv:
            raise RuntimeError(_BLOCK_MASK_TOO_LARGE_ERROR)
        if query.device != block_mask.kv_num_blocks.device:
            raise RuntimeError(f"Expect q/k/v and block_mask to be on the same device but got {query.device} and "
                               f"{block_mask.kv_num_blocks.device}.")


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None, enable_gqa=False,
                   return_lse=False, kernel_options=None, *, return_aux=None):
    """softmax(score_mod(q @ k^T * scale) masked by block_mask.mask_mod) @ v for (B, H, L, E) queries and
    (B, Hkv, S, E) keys and values; with return_lse (deprecated) or return_aux=AuxRequest(lse=True,
    max_scores=True) also each row's logsumexp and largest score (natural log units; -inf for a row with
    nothing allowed, whose output is zeros)."""
    _check_inputs(query, key, value, block_mask, enable_gqa)
    if return_lse and return_aux is not None:
        raise ValueError("Cannot specify both return_lse and return_aux. return_lse is deprecated, please use "
                         "return_aux=AuxRequest(lse=True) instead.")
    if return_lse:
        _warn_once("deprecated_return_lse", "return_lse is deprecated and will be removed in v2.10. Please use "
                   "return_aux=AuxRequest(lse=True) instead.", FutureWarning)
    if scale is None:
        scale = 1.0 / math.sqrt(query.size(-1))
    work = tandem.float64 if query.dtype == tandem.float64 else tandem.float32
    groups = query.size(1) // key.size(1)
    if groups > 1:
        key, value = key.repeat_interleave(groups, dim=1), value.repeat_interleave(groups, dim=1)
    B, H, L, S = query.size(0), query.size(1), query.size(2), key.size(2)
    key, value = key.expand(B, *key.shape[1:]), value.expand(B, *value.shape[1:])
    scores = (query.to(work) @ key.to(work).transpose(-2, -1)) * scale
    b, h, m, n = _grid_indices(B, H, L, S, query.device)
    if score_mod is not None:
        scores = score_mod(scores, b, h, m, n).to(work).expand(B, H, L, S)
    if block_mask is not None and block_mask.mask_mod is not noop_mask:
        allowed = block_mask.mask_mod(b, h, m, n)
        scores = tandem.where(allowed, scores, tandem.tensor(-math.inf, dtype=work, device=scores.device))
    empty = (scores == -math.inf).all(dim=-1, keepdim=True)
    # a row with nothing allowed gives zeros (and no NaN gradients): its softmax runs on zeros and is discarded
    probs = tandem.softmax(scores.masked_fill(empty, 0.0), dim=-1).masked_fill(empty, 0.0)
    out = probs.to(query.dtype) @ value.to(query.dtype)
    want_lse = return_lse or (return_aux is not None and return_aux.lse)
    want_max = return_aux is not None and return_aux.max_scores
    lse = scores.logsumexp(dim=-1).masked_fill(empty.squeeze(-1), -math.inf) if want_lse else None
    max_scores = scores.amax(dim=-1) if want_max else None
    if return_aux is not None:
        return out, AuxOutput(lse=lse, max_scores=max_scores)
    if return_lse:
        return out, lse
    return out
