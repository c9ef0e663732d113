"""interpolate's bilinear and bicubic modes for uint8 images, as PyTorch's CPU kernels compute them (torchvision's
resize of uint8 tensors lands here): each resized dim is one separable pass, the last dim first, with its weights
in 16-bit fixed point and the sum rounded and clipped to 0..255 after every pass. A float resample followed by a
cast would differ by one grey level here and there, which image pipelines that hash or compare outputs notice."""
import math

import tandem


def _filter(x, cubic, antialias):
    """The separable kernel at distance x: a triangle, or Keys' cubic (a = -0.5 with antialiasing as PIL,
    -0.75 without, as PyTorch's plain bicubic)."""
    from ._functional_interpolate import _cubic_far, _cubic_near
    if not cubic:
        return (1 - x).clamp(min=0)
    a = -0.5 if antialias else -0.75
    return tandem.where(x < 1, _cubic_near(x, a), _cubic_far(x, a).masked_fill(x >= 2, 0.0))


def _fixed_point_taps(in_size, out_size, scale, align_corners, cubic, antialias, device):
    """(index, int64 weight, precision): each output position's window of input positions, its normalised weights
    as integers scaled by 2**precision, the largest precision keeping every weight within int16."""
    from ._functional_interpolate import _area_scale
    if cubic and not antialias:
        index, weight = _clamped_cubic_taps(in_size, out_size, scale, align_corners, device)
        return index, *_fixed_point(weight)
    ratio = _area_scale(in_size, out_size, align_corners, scale)
    stretch = max(ratio, 1.0) if antialias else 1.0
    support = (2.0 if cubic else 1.0) * stretch
    taps = math.ceil(support) * 2 + 1 if antialias else (4 if cubic else 2)
    delta = 0.5 if align_corners and not antialias else 0.0  # aligned corners put centres on input pixels
    center = ratio * (tandem.arange(out_size, dtype=tandem.float64, device=device) + 0.5 - delta)
    low = (center - support + 0.5 + delta).trunc().clamp(min=0)
    count = ((center + support + 0.5 + delta).trunc().clamp(max=in_size) - low).clamp(0, taps).unsqueeze(1)
    j = tandem.arange(taps, dtype=tandem.float64, device=device)
    x = ((j + low.unsqueeze(1) - center.unsqueeze(1) + 0.5 - delta) / stretch).abs()
    weight = _filter(x, cubic, antialias).masked_fill(j >= count, 0.0)
    total = weight.sum(1, keepdim=True)
    weight = weight / total.masked_fill(total == 0, 1.0)
    return ((low.long().unsqueeze(1) + j.long()).clamp(max=in_size - 1), *_fixed_point(weight))


def _clamped_cubic_taps(in_size, out_size, scale, align_corners, device):
    """Plain bicubic's four taps with the float kernel's source index; a tap past the border lends its weight to
    the border pixel (PyTorch merges them before rounding to fixed point, so the merged weight is what rounds)."""
    from ._functional_interpolate import _linear_taps
    index, weight = _linear_taps(in_size, out_size, scale, align_corners, True, device)
    same = index.unsqueeze(2) == index.unsqueeze(1)  # (out, 4, 4): taps reading one pixel
    merged = (same.to(weight.dtype) * weight.unsqueeze(1)).sum(2)
    repeated = tandem.cat([tandem.zeros_like(index[:, :1], dtype=tandem.bool), index[:, 1:] == index[:, :-1]], 1)
    return index, merged.masked_fill(repeated, 0.0)


def _fixed_point(weight):
    """(int64 weights, precision): weight * 2**precision rounded half away from zero, with the largest precision
    (at most 22) that keeps the biggest weight's double within int16."""
    largest = weight.max().item()
    precision = 0
    while precision < 22 and int(0.5 + largest * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    scaled = weight * (1 << precision)
    return tandem.where(scaled < 0, scaled - 0.5, scaled + 0.5).trunc().long(), precision


def resample_uint8(input, output_size, scale_factors, align_corners, cubic, antialias):
    """The separable passes over the spatial dims whose size changes, last first, each in integers."""
    out = input
    for i in reversed(range(len(output_size))):
        dim, in_size, out_size = 2 + i, input.size(2 + i), output_size[i]
        if in_size == out_size:  # PyTorch skips an unchanged dim, whatever the scale
            continue
        scale = scale_factors[i] if scale_factors is not None else None
        index, weight, precision = _fixed_point_taps(in_size, out_size, scale, align_corners, cubic, antialias,
                                                     input.device)
        shape = list(out.shape)
        gathered = out.index_select(dim, index.reshape(-1)).long()
        gathered = gathered.reshape(shape[:dim] + list(index.shape) + shape[dim + 1:])
        weight_shape = [1] * (len(shape) + 1)
        weight_shape[dim:dim + 2] = list(weight.shape)
        total = (gathered * weight.reshape(weight_shape)).sum(dim + 1)
        rounding = (1 << (precision - 1)) if precision > 0 else 0
        out = tandem.div(total + rounding, 1 << precision, rounding_mode="floor").clamp_(0, 255).to(tandem.uint8)
    return out.clone() if out is input else out
