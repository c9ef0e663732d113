"""affine_grid and grid_sample (the spatial-transformer pair), as compositions of tandem ops: coordinates are
un-normalised and padded with elementwise ops, the corner values are fetched with one gather per corner, and the
interpolation weights are products of the fractional parts. Autograd therefore gives the gradients for both the
input (gather's backward is a scatter-add) and the grid (through the weights, and through the border/reflection
padding, whose clamp/abs give PyTorch's zero or sign-flipped coordinate gradients)."""
import itertools
import math
import warnings

import tandem

from .._autocast import active as _amp_active, run as _amp_run

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def _base_coords(steps, align_corners, theta):
    """Normalised pixel-centre coordinates along one axis, in [-1, 1]."""
    if steps <= 1:
        return tandem.zeros(steps, dtype=theta.dtype, device=theta.device)
    coords = tandem.linspace(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    # Scaled in PyTorch's order (times steps - 1, then over steps, each rounded in theta's dtype): the ratio
    # rounded once in double lands some float32 coordinates an ulp off, and a grid point an ulp below a pixel
    # centre flips grid_sample's floor, so its gradient takes the other side's difference.
    return coords if align_corners else coords * (steps - 1) / steps


def affine_grid(theta, size, align_corners=None):
    """Sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps `theta` (N, 2, 3) or (N, 3, 4)."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    given, size = size, tuple(size)  # the messages show the size as given (a list, a tuple, a Size), as PyTorch's
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {given}. "
                             f"Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {given}. "
                             f"Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {given}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {given}")
    if 1 in spatial and theta.dtype in (tandem.float16, tandem.bfloat16):
        # PyTorch builds a one-step axis as at::tensor(0, theta.options()), whose CPU factory has no half kernels
        # (before the batch check, on every device)
        raise NotImplementedError(f"\"tensor_cpu\" not implemented for '{theta.dtype._scalar_type_name}'\n"
                                  "hint: build the grid from theta.float() and convert it back")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, "
                           f"{len(spatial) + 1}] but got: [{theta.shape[0]}, {len(spatial) + 1}].")
    # Base grid rows are (x, y[, z], 1) with x running along the last spatial axis.
    axes = [_base_coords(s, align_corners, theta) for s in reversed(spatial)]
    mesh = tandem.meshgrid(*reversed(axes), indexing="ij")  # each of shape spatial, ordered (z,) y, x
    ones = tandem.ones(spatial, dtype=theta.dtype, device=theta.device)
    base = tandem.stack(list(reversed(mesh)) + [ones], dim=-1).reshape(1, -1, len(spatial) + 1)
    grid = tandem.matmul(base, theta.transpose(1, 2))
    return grid.reshape(size[0], *spatial, len(spatial))


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    """PyTorch's reflect_coordinates: fold `coord` into [twice_low/2, twice_high/2] by mirroring."""
    if twice_low == twice_high:
        return tandem.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    dist = (coord - low).abs()
    flips = tandem.floor(dist.detach() / span)
    extra = dist - flips * span  # fmod, keeping the gradient of dist
    even = tandem.remainder(flips, 2) == 0
    return tandem.where(even, extra + low, (span - extra) + low)


def _pad(coord, size, padding_mode, align_corners):
    """Source coordinate after PyTorch's padding rule (zeros leaves it; out-of-range corners then read 0)."""
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size)
    return coord


def _clip(coord, size):
    """PyTorch's clip_coordinates: into [0, size - 1], a NaN coordinate (a NaN grid value, or an infinite one
    reflected) to 0."""
    coord = coord.clamp(0, size - 1)
    return tandem.where(tandem.isnan(coord), tandem.zeros_like(coord), coord)


def _fetch(flat_input, indices, sizes, out_shape):
    """input values at integer positions `indices` (one long tensor per spatial axis, shape (N, *out)), 0 where
    any index falls outside the input."""
    n, c = flat_input.shape[0], flat_input.shape[1]
    valid = None
    flat = None
    for idx, size in zip(indices, sizes):
        ok = (idx >= 0) & (idx < size)
        valid = ok if valid is None else valid & ok
        clamped = idx.clamp(0, size - 1)
        flat = clamped if flat is None else flat * size + clamped
    points = math.prod(out_shape)  # not -1: the batch may be empty
    gathered = flat_input.gather(2, flat.reshape(n, 1, points).expand(n, c, points))
    gathered = gathered.reshape(n, c, *out_shape)
    return gathered * valid.unsqueeze(1).to(flat_input.dtype)


def _cubic_weights(t):
    """PyTorch's cubic-convolution coefficients (A = -0.75) for taps at -1, 0, 1, 2 around the floor."""
    a = -0.75

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    opposite = 1 - t
    return [far(t + 1), near(t), near(opposite), far(opposite + 1)]


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples `input` (N, C, H, W) or (N, C, D, H, W) at the normalised locations `grid` (N, Ho, Wo, 2) or
    (N, Do, Ho, Wo, 3); grid[..., 0] indexes the width axis."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if _amp_active():  # grid_sampler is promoted by PyTorch's CUDA autocast (one dtype for input and grid)
        return _amp_run("cuda_promote", lambda x, g: grid_sample(x, g, mode, padding_mode, align_corners),
                        input, grid)
    if input.device != grid.device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but input is on "
                           f"{input.device} and grid is on {grid.device}")
    if not input.is_floating_point() and input.dim() in (4, 5):  # PyTorch's kernels take floats only; its
        # dtype check names the kernel before it compares the grid's dtype
        nsp = input.dim() - 2
        kernel = (("grid_sampler_2d_cpu_kernel_impl" if nsp == 2 else "grid_sampler3d_cpu")
                  if input.device.type == "cpu" else f"grid_sampler_{nsp}d_cuda")
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype._scalar_type_name}\'\n'
                                  f"hint: sample floating-point tensors, e.g. input.float()")
    if input.dtype != grid.dtype:  # PyTorch's words
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_type_name} but found "
                           f"{grid.dtype._scalar_type_name}\nhint: give input and grid one dtype")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    nsp = input.dim() - 2
    if grid.shape[-1] != nsp:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nsp} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        ranks = f"{input.dim()}D" if input.dim() in (4, 5) else "4D or 5D"
        raise RuntimeError(f"grid_sampler(): expected {ranks} input and grid with same number of dimensions, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    for d in range(2, input.dim()):
        if input.shape[d] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {d} being empty")
    sizes = list(input.shape[2:])  # (D,) H, W
    out_shape = list(grid.shape[1:-1])
    flat_input = input.reshape(input.shape[0], input.shape[1], math.prod(sizes))  # not -1: batch or channels may be 0
    # coords[i] is the source coordinate along spatial axis i (grid's last axis is reversed: x = width).
    raw = [_unnormalize(grid[..., nsp - 1 - i], sizes[i], align_corners) for i in range(nsp)]

    if mode == "bicubic":  # 4 taps per axis, each tap's index padded; separable as PyTorch's kernel sums them
        floors = [tandem.floor(c.detach()) for c in raw]
        weights = [[w.unsqueeze(1) for w in _cubic_weights(c - f)] for c, f in zip(raw, floors)]
        taps = {}
        for offsets in itertools.product(range(4), repeat=nsp):
            coords = [f + (t - 1) for f, t in zip(floors, offsets)]
            idx = [_pad(c, s, padding_mode, align_corners).to(tandem.int64) for c, s in zip(coords, sizes)]
            taps[offsets] = _fetch(flat_input, idx, sizes, out_shape)
        # interpolate along the last axis (width) first, then the next one out, each as x0*c0 + x1*c1 + x2*c2 +
        # x3*c3 (the order matters for 16-bit inputs, where every step rounds)
        for axis in reversed(range(nsp)):
            w = weights[axis]
            taps = {key: taps[key + (0,)] * w[0] + taps[key + (1,)] * w[1] + taps[key + (2,)] * w[2] +
                    taps[key + (3,)] * w[3] for key in {k[:axis] for k in taps}}
        return taps[()]

    coords = [_pad(c, s, padding_mode, align_corners) for c, s in zip(raw, sizes)]
    if mode == "nearest":
        idx = [tandem.round(c.detach()).to(tandem.int64) for c in coords]  # round half to even, as nearbyint
        out = _fetch(flat_input, idx, sizes, out_shape)
        if grid.requires_grad and tandem.is_grad_enabled():
            # PyTorch's nearest backward gives the grid a zero gradient (not None): add a zero that depends on it
            # (where's backward masks the gradient, so even a NaN one arrives as 0)
            zero = tandem.where(tandem.zeros_like(grid, dtype=tandem.bool), grid, 0).sum(-1)
            out = out + zero.unsqueeze(1)
        return out

    floors = [tandem.floor(c.detach()) for c in coords]
    fracs = [c - f for c, f in zip(coords, floors)]
    lows = [f.to(tandem.int64) for f in floors]
    out = None
    for corner in range(1 << nsp):
        idx, weight = [], None
        for axis in range(nsp):
            high = (corner >> (nsp - 1 - axis)) & 1
            idx.append(lows[axis] + high)
            w = fracs[axis] if high else 1 - fracs[axis]
            weight = w if weight is None else weight * w
        term = _fetch(flat_input, idx, sizes, out_shape) * weight.unsqueeze(1)
        out = term if out is None else out + term
    return out
