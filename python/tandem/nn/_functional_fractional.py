"""fractional_max_pool2d/3d (Graham, 2014), as compositions: PyTorch's pseudo-random window starts are computed
from `_random_samples` with its formula (in the input's dtype, so the rounding matches), the windows are read
with one gather, and the max over each window gives values and flat indices; autograd differentiates the
gather/max pair."""
import math

import tandem

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
           "fractional_max_pool3d_with_indices"]


def _tuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


def _intervals(sample, in_size, out_size, pool, dtype):
    """Window starts (N, C, out_size) from samples (N, C) in [0, 1): PyTorch's generate_intervals."""
    if out_size <= 1:
        starts = tandem.zeros(*sample.shape, 0, dtype=tandem.int64, device=sample.device)
    else:
        alpha = tandem.tensor(float(in_size - pool), dtype=dtype, device=sample.device) / (out_size - 1)
        i = tandem.arange(out_size - 1, dtype=dtype, device=sample.device)
        s = sample.unsqueeze(-1)
        starts = ((i + s) * alpha).to(tandem.int64) - (s * alpha).to(tandem.int64)
    last = tandem.full((*sample.shape, 1), in_size - pool, dtype=tandem.int64, device=sample.device)
    return tandem.cat([starts, last], -1)


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, n, name):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    kernel_size = _tuple(kernel_size, n)
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}")
    for i in range(1, input.dim()):  # PyTorch's check (an unbatched input's channels, dim 0, are not checked)
        if input.shape[i] == 0:
            where = f"{name}()" if n == 2 else f"{name}_out()"
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{list(input.shape)} with dimension {i} being empty.")
    spatial = list(input.shape[-n:])
    if output_size is None:
        ratio = _tuple(output_ratio, n)
        output_size = [int(s * r) for s, r in zip(spatial, ratio)]
    output_size = list(_tuple(output_size, n))
    batched = input.dim() == n + 2
    x = input if batched else input.unsqueeze(0)
    nb, c = x.shape[0], x.shape[1]
    axis_names = ["height", "width"] if n == 2 else ["time", "height", "width"]
    for d in range(n):
        if output_size[d] + kernel_size[d] - 1 > spatial[d]:
            raise RuntimeError(f"{name}(): pool {axis_names[d]} {kernel_size[d]} too large relative to input "
                               f"{axis_names[d]} {spatial[d]}")
    if 0 in output_size:  # nothing to pool: empty results (values still depend on input, for backward)
        values = x.reshape(nb, c, math.prod(spatial))[:, :, :0].reshape(nb, c, *output_size)
        indices = tandem.zeros(nb, c, *output_size, dtype=tandem.int64, device=x.device)
        return (values, indices) if batched else (values.squeeze(0), indices.squeeze(0))
    if _random_samples is None:
        _random_samples = tandem.rand(nb, c, n, dtype=x.dtype, device=x.device)
    samples = _random_samples.to(x.dtype)
    # PyTorch's sample order: 2-d (width, height); 3-d (time, height, width).
    sample_axis = [1, 0] if n == 2 else [0, 1, 2]
    starts = [_intervals(samples[..., sample_axis[d]], spatial[d], output_size[d], kernel_size[d], x.dtype)
              for d in range(n)]
    # Flat index of every (output position, window offset): built axis by axis with broadcasting.
    flat = None
    for d in range(n):
        pos = starts[d].reshape(nb, c, *([1] * d), output_size[d], *([1] * (n - 1 - d)), *([1] * n))
        off = tandem.arange(kernel_size[d], device=x.device).reshape(*([1] * (2 + n + d)), kernel_size[d],
                                                                      *([1] * (n - 1 - d)))
        coord = pos + off
        flat = coord if flat is None else flat * spatial[d] + coord
    full = [nb, c] + output_size + list(kernel_size)
    # sizes spelled out, not -1: the batch or the channels may be empty
    window = math.prod(kernel_size)
    flat = flat.expand(*full).reshape(nb, c, math.prod(output_size) * window)
    windows = x.reshape(nb, c, math.prod(spatial)).gather(2, flat).reshape(nb, c, *output_size, window)
    values, which = windows.max(-1)
    indices = flat.reshape(nb, c, *output_size, window).gather(-1, which.unsqueeze(-1)).squeeze(-1)
    if not batched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return values, indices


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 2,
                                "fractional_max_pool2d")


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 3,
                                "fractional_max_pool3d")


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]
