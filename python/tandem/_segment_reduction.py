"""torch.segment_reduce: reduce consecutive segments of one axis (sum, mean, max, min, prod), the segments given by
lengths or offsets, with PyTorch's argument checks.

A composition: each position along the axis gets its segment's id (searchsorted of the segment ends), and one
scatter_reduce folds it into that segment, so it runs and differentiates on every device. Positions outside every
segment (offsets not starting at 0, lengths not covering the axis with unsafe=True) go to a spare slot that is
dropped; PyTorch reads past the data when segments run beyond the axis, tandem clamps them to it."""
import numbers

from . import _C

__all__ = ["segment_reduce"]

_REDUCTIONS = {"sum": "sum", "mean": "mean", "prod": "prod", "max": "amax", "amax": "amax", "min": "amin",
               "amin": "amin"}
_FLOATING = (_C.float32, _C.float64, _C.float16, _C.bfloat16)
_INDEX = (_C.int32, _C.int64)
_INTERNAL_ASSERT = "  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"


def _check_arguments(data, reduce, lengths, indices, offsets, axis, unsafe, initial):
    """The argument parser's TypeErrors, as PyTorch words them."""
    def wrong(label, kind, value, position=None):
        where = f" (position {position})" if position else ""
        return TypeError(f"segment_reduce(): argument '{label}'{where} must be {kind}, not {type(value).__name__}")

    if not isinstance(data, _C.Tensor):
        raise wrong("data", "Tensor", data, 1)
    if not isinstance(reduce, str):
        raise wrong("reduce", "str", reduce, 2)
    for label, value in (("lengths", lengths), ("indices", indices), ("offsets", offsets)):
        if value is not None and not isinstance(value, _C.Tensor):
            raise wrong(label, "Tensor", value)
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise wrong("axis", "int", axis)
    if not isinstance(unsafe, bool):
        raise wrong("unsafe", "bool", unsafe)
    if initial is not None and not isinstance(initial, numbers.Number):
        raise wrong("initial", "Number", initial)


def _wrap_axis(axis, ndim):
    top = max(ndim, 1)
    if not -top <= axis < top:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-top}, {top - 1}], but got {axis})")
    return axis % top


def _segment_bounds(data, lengths, offsets, axis, unsafe):
    """(starts of the first segment, ends of every segment, kernel name): starts shaped (*outer, 1), ends shaped
    (*outer, segments), both int64. Offsets win when both are given (as in PyTorch); only lengths are validated
    unless unsafe."""
    import tandem  # noqa: PLC0415

    bounds = offsets if offsets is not None else lengths
    kernel = "_segment_reduce_offsets_cpu_kernel1" if offsets is not None else "_segment_reduce_lengths_cpu_kernel1"
    if data.device != bounds.device:
        raise RuntimeError("Expected data.get_device() == lengths_value.get_device() to be true, but got false."
                           + _INTERNAL_ASSERT)
    if data.dim() < bounds.dim():
        raise RuntimeError("Expected data.dim() >= lengths_value.dim() to be true, but got false." + _INTERNAL_ASSERT)
    if axis != bounds.dim() - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis}.")
    if tuple(bounds.shape[:-1]) != tuple(data.shape[:axis]):
        raise RuntimeError(f"segment_reduce(): expected lengths/offsets of shape {tuple(data.shape[:axis])} + "
                           f"(segments,), got {tuple(bounds.shape)}\nhint: one row of segments for each index of "
                           "the dims before axis")
    if offsets is not None:
        if offsets.shape[-1] == 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension -1: "
                               f"{list(data.shape[:axis]) + [-1] + list(data.shape[axis + 1:])}")
        if offsets.dtype not in _INDEX:
            raise NotImplementedError(f'"{kernel}" not implemented for \'{offsets.dtype._scalar_type_name}\'')
        offsets = offsets.to(_C.int64)
        return offsets[..., :1], offsets[..., 1:], offsets.diff(dim=-1), kernel
    if not unsafe:
        if bool(lengths.min() < 0):
            raise RuntimeError("lengths contains negative value!")
        if not bool((lengths.sum(-1) == data.shape[axis]).all()):
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                               "data.size(lengths.dim()-1) when !unsafe.")
    if lengths.dtype not in _INDEX:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{lengths.dtype._scalar_type_name}\'')
    lengths = lengths.to(_C.int64)
    starts = tandem.zeros(tuple(lengths.shape[:-1]) + (1,), dtype=_C.int64, device=lengths.device)
    return starts, lengths.cumsum(-1), lengths, kernel


def _segment_ids(starts, ends, size):
    """Each position's segment along the axis, (*outer, size); `segments` (a spare slot) where none covers it."""
    import tandem  # noqa: PLC0415

    segments = ends.shape[-1]
    positions = tandem.arange(size, device=ends.device).expand(tuple(ends.shape[:-1]) + (size,)).contiguous()
    ids = tandem.searchsorted(ends.contiguous(), positions, right=True)
    last = ends[..., -1:] if segments else starts
    outside = (positions < starts) | (positions >= last)
    return ids.masked_fill(outside, segments)


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    """Reduce each segment of `axis`: the output has data's shape with axis sized to the number of segments. An
    empty segment gives `initial`, or the reduction's identity (0, 1, -inf, inf; nan for mean)."""
    import tandem  # noqa: PLC0415

    _check_arguments(data, reduce, lengths, indices, offsets, axis, unsafe, initial)
    axis = _wrap_axis(axis, data.dim())
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    starts, ends, counts, _ = _segment_bounds(data, lengths, offsets, axis, unsafe)
    if bool((counts < 0).any()):
        raise RuntimeError("Expected segment_length >= 0 to be true, but got false." + _INTERNAL_ASSERT)
    if data.dtype not in _FLOATING:
        raise NotImplementedError(f'"_segment_reduce_cpu" not implemented for \'{data.dtype._scalar_type_name}\'')
    return _reduce(data, _REDUCTIONS[reduce], starts, ends, axis, initial)


def _reduce(data, how, starts, ends, axis, initial):
    import tandem  # noqa: PLC0415

    segments, size = ends.shape[-1], data.shape[axis]
    flat = data  # at least 1-D: a 0-D data fails the dim check against lengths
    trailing = flat.dim() - axis - 1
    ids = _segment_ids(starts, ends, size)
    index = ids.reshape(tuple(ids.shape) + (1,) * trailing).expand(tuple(flat.shape))
    slots = list(flat.shape)
    slots[axis] = segments + 1

    def scatter(values, how, fill, include_self):
        base = tandem.full(slots, fill, dtype=values.dtype, device=values.device)
        return base.scatter_reduce(axis, index, values, how, include_self=include_self).narrow(axis, 0, segments)

    # how many positions each segment really covers (clamped to the axis), shaped to broadcast against the output
    covered = scatter(tandem.ones_like(flat), "sum", 0, False)
    if how == "mean":
        total = scatter(flat, "sum", 0, False)
        if initial is None:
            return total / covered  # 0 / 0: nan for an empty segment, as PyTorch's
        mean = (total + initial) / covered
        return tandem.where(covered == 0, tandem.full_like(mean, initial), mean)
    if how in ("sum", "prod"):
        identity = 0 if how == "sum" else 1
        return scatter(flat, how, identity if initial is None else initial, True)
    # max/min: initial only competes with the data after the scatter, so a tie with it leaves the whole gradient
    # with the data (PyTorch counts only data elements equal to the result)
    bound = float("-inf") if how == "amax" else float("inf")
    out = scatter(flat, how, bound, False)
    if initial is None:
        return out
    beaten = (out < initial) if how == "amax" else (out > initial)
    return tandem.where(beaten | (covered == 0), tandem.full_like(out, initial), out)
