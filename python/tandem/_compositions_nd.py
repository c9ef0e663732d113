"""torch.histogramdd, nonzero_static (and Tensor.nonzero_static) and empty_permuted as compositions of tandem ops (every device, no new
kernels), with PyTorch's signatures, checks and messages."""
import builtins
import math

import tandem

from ._out import write_out
from ._return_types import result_type

_histogramdd_result = result_type("histogramdd", ["hist", "bin_edges"])


def _dim_edges(column, count, low, high, dtype):
    """count + 1 evenly spaced edges from low to high (the column's own min and max when not given; an empty
    range is widened by 1/2 on each side, as PyTorch's)."""
    if low is None:
        if column.numel():
            low, high = column.min().item(), column.max().item()
        else:
            low = high = 0.0
    if low == high:
        low, high = low - 0.5, high + 0.5
    return tandem.linspace(low, high, count + 1, dtype=dtype, device=column.device)


def _c10_name(dtype):
    """C++'s name of a float dtype in PyTorch's messages: double, float, c10::Half, c10::BFloat16."""
    name = dtype._scalar_type_name
    return name.lower() if name in ("Double", "Float") else f"c10::{name}"


def _check_weight(input, weight):
    """PyTorch's refusals of a histogramdd weight: one value per point (input's shape without its last dim), of
    input's dtype. Before, a weight of another shape failed inside the masking with an IndexError."""
    if tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                           f"input tensor excluding its innermost dimension, but got input with shape "
                           f"{list(input.shape)} and weight with shape {list(weight.shape)}")
    if weight.dtype != input.dtype:
        raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should "
                           f"have the same dtype, but got input({_c10_name(input.dtype)}), and "
                           f"weight({_c10_name(weight.dtype)})")


def histogramdd(input, bins, *, range=None, weight=None, density=False):  # noqa: A002  (PyTorch's names)
    """The D-dimensional histogram of the points input[..., :] (D = input.size(-1)): hist of shape (bins_0, ...,
    bins_{D-1}) and the edges of each dimension. bins is a count for every dimension, one count per dimension,
    or one tensor of increasing edges per dimension; a point counts in a bin when edge_i <= x < edge_{i+1}, the
    last bin including its right edge; points outside are left out."""
    if not input.is_floating_point():
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{input.dtype._scalar_type_name}'")
    D = input.size(-1)
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    points = input.reshape(-1, D)
    if isinstance(bins, int):
        bins = [bins] * D
    bins = list(bins)
    if len(bins) != D:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if weight is not None:
        _check_weight(input, weight)
    if range is not None and len(range) != 2 * D:
        raise RuntimeError(f"torch.histogramdd: for a {D}-dimensional histogram range should have {2 * D} "
                           f"elements, but got {len(range)}")
    edges = []
    for d, b in enumerate(bins):
        if isinstance(b, tandem.Tensor):
            edges.append(b.to(dtype=input.dtype, device=input.device))
            continue
        if b <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for dimension {d}")
        low, high = (None, None) if range is None else (range[2 * d], range[2 * d + 1])
        edges.append(_dim_edges(points[:, d], b, low, high, input.dtype))
    counts = [e.numel() - 1 for e in edges]
    flat = tandem.zeros(points.size(0), dtype=tandem.int64, device=input.device)
    inside = tandem.ones(points.size(0), dtype=tandem.bool, device=input.device)
    for d, e in enumerate(edges):
        x = points[:, d]
        # the bin of x: edges at or below it, less one; the right edge itself belongs to the last bin
        index = (tandem.searchsorted(e, x.contiguous(), right=True) - 1).clamp(max=counts[d] - 1)
        inside &= (x >= e[0]) & (x <= e[-1])
        flat = flat * counts[d] + index.clamp(min=0)
    weights = None if weight is None else weight.reshape(-1)[inside].to(input.dtype)
    total = math.prod(counts)
    hist = tandem.bincount(flat[inside], weights=weights, minlength=total)[:total].to(input.dtype).reshape(counts)
    if density:
        volume = tandem.ones((), dtype=input.dtype, device=input.device)
        for d, e in enumerate(edges):
            shape = [1] * D
            shape[d] = counts[d]
            volume = volume * e.diff().reshape(shape)
        hist = hist / (hist.sum() * volume)
    return _histogramdd_result(hist, tuple(edges))


_REQUIRED = object()


def _int_argument(value, label):
    """PyTorch's parser for an int argument: an int (or a one-element integer tensor), never a bool or float."""
    if isinstance(value, tandem.Tensor) and value.numel() == 1 and not value.is_floating_point() \
            and value.dtype != tandem.bool:
        return int(value.item())
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"nonzero_static(): argument '{label}' must be int, not {type(value).__name__}")
    return value


def nonzero_static(input, *, size=_REQUIRED, fill_value=-1, out=None):
    """nonzero(input) as a (size, input.dim()) int64 tensor whatever the count: cut to its first `size` rows, or
    padded with rows of fill_value."""
    if not isinstance(input, tandem.Tensor):
        raise TypeError(f"nonzero_static(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if size is _REQUIRED:
        raise TypeError('nonzero_static() missing 1 required positional arguments: "size"')
    size, fill_value = _int_argument(size, "size"), _int_argument(fill_value, "fill_value")
    if out is not None:
        return write_out("nonzero_static", nonzero_static(input, size=size, fill_value=fill_value), out, [input])
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = tandem.nonzero(input)[:size]
    pad = tandem.full((size - found.size(0), found.size(1)), fill_value, dtype=tandem.int64, device=input.device)
    return tandem.cat([found, pad])


def _tensor_nonzero_static(self, *, size=_REQUIRED, fill_value=-1):
    return nonzero_static(self, size=size, fill_value=fill_value)


_tensor_nonzero_static.__name__ = _tensor_nonzero_static.__qualname__ = "nonzero_static"
_tensor_nonzero_static.__doc__ = "nonzero_static(*, size, fill_value=-1) -> LongTensor: see tandem.nonzero_static."
if not hasattr(tandem.Tensor, "nonzero_static"):
    tandem.Tensor.nonzero_static = _tensor_nonzero_static


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialised tensor of shape `size` whose dims lie in memory in the order physical_layout gives
    (outermost first): empty_permuted((N, C, H, W), (0, 2, 3, 1)) is channels-last."""
    size, order = list(size), list(physical_layout)
    if len(order) != len(size):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    if sorted(order) != list(builtins.range(len(size))):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-len(size)}, {len(size) - 1}], "
                         f"but got {max(order, key=abs)})")
    physical = tandem.empty([size[d] for d in order], dtype=dtype, device=device, pin_memory=pin_memory)
    logical = physical.permute([order.index(d) for d in builtins.range(len(size))])
    return logical.requires_grad_() if requires_grad else logical
