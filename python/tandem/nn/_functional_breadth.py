"""Less common nn.functional entries (bilinear, rrelu, max_unpool*, channel_shuffle, gumbel_softmax, pdist), each a
short composition of tandem ops so autograd and every device come for free."""
import warnings

import tandem

from .._autocast import active as _amp_active, run as _amp_run
from .._layouts import follow_input_layout
from .parameter import untracked

__all__ = ["bilinear", "rrelu", "rrelu_", "max_unpool1d", "max_unpool2d", "max_unpool3d", "channel_shuffle",
           "native_channel_shuffle", "gumbel_softmax", "pdist"]


def _ntuple(value, n):
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]. Under autocast it follows
    PyTorch's lists (promote on CUDA, unlisted on the CPU): the einsum inside must not run in lower precision."""
    if _amp_active():
        return _amp_run("cuda_promote", bilinear, input1, input2, weight, bias)
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for dim, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):  # PyTorch names the first mismatch
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {dim}: got {a} and {b}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, but got {weight.dim()} dimensions")
    if input1.shape[-1] != weight.shape[1]:  # PyTorch's checks and words
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    out = tandem.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out + bias if bias is not None else out


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn uniformly from [lower, upper] per element in training, and is
    (lower + upper) / 2 otherwise."""
    number = tandem.nn.functional._number
    lower, upper = number(lower, "rrelu", "lower"), number(upper, "rrelu", "upper")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        slope = (lower + upper) / 2
        return tandem.nn.functional.leaky_relu(input, slope, inplace=inplace)
    # PyTorch's kernel draws one float64 uniform per element <= 0, in order, between the bounds rounded to the
    # computation type (float below float64): the same draws here, so a seed gives its slopes.
    x = untracked(input)
    drawn = x <= 0
    bounds = (lower, upper) if x.dtype == tandem.float64 else tandem.tensor([lower, upper]).tolist()
    noise = tandem.empty(int(drawn.sum()), dtype=tandem.float64, device=x.device).uniform_(*bounds)
    slope = tandem.ones_like(x)
    slope[drawn] = noise.to(x.dtype)
    if inplace:
        return input.mul_(slope)
    return input * slope


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    n = len(kernel_size)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        ret = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for d in range(n):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
        ret = list(output_size)
    for d in range(n):
        if ret[d] < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return ret


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n):
    kernel_size = _ntuple(kernel_size, n)
    stride = kernel_size if stride is None else _ntuple(stride, n)
    padding = _ntuple(padding, n)
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"max_unpooling{n}d(): Expected {n + 1}D or {n + 2}D tensor, but got input with sizes "
                           f"{list(input.shape)}")
    if indices.dtype != tandem.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype._scalar_type_name}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    if input.numel() and not input.is_floating_point():  # PyTorch's kernels: floating dtypes (1-d runs as 2-d)
        raise NotImplementedError(f"\"max_unpool{3 if n == 3 else 2}d\" not implemented for "
                                  f"'{input.dtype._scalar_type_name}'\nhint: unpool a floating-point copy, e.g. "
                                  "input.float()")
    out_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    lead = list(input.shape[:-n])
    plane = 1
    for s in out_size:
        plane *= s
    window = 1
    for s in input.shape[len(lead):]:
        window *= s
    flat_idx = indices.reshape(*lead, window)  # not -1: an empty batch leaves -1 undetermined
    if flat_idx.numel() > 0:
        bad = (flat_idx < 0) | (flat_idx >= plane)
        if bool(bad.any()):
            first = int(flat_idx[bad].reshape(-1)[0])
            raise RuntimeError(f"Found an invalid max index: {first} (output volumes are of size "
                               f"{'x'.join(str(s) for s in out_size)})")
    out = tandem.zeros(*lead, plane, dtype=input.dtype, device=input.device)
    out = out.scatter(len(lead), flat_idx, input.reshape(*lead, window))
    return out.reshape(*lead, *out_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    # channels-last in, channels-last out, as PyTorch's (its max_unpool3d is row-major either way)
    return follow_input_layout(_max_unpool(input, indices, kernel_size, stride, padding, output_size, 2), input)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


def channel_shuffle(input, groups):
    """Splits the channels into `groups` groups and interleaves them: (N, g*k, ...) -> (N, k*g, ...)."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = input.shape[0], list(input.shape[2:])
    return follow_input_layout(input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest), input)


native_channel_shuffle = channel_shuffle


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution; with hard=True the result is one-hot in the forward pass and
    has the soft sample's gradient (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -tandem.empty_like(untracked(logits)).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.detach().max(dim, keepdim=True)[1]
    y_hard = tandem.zeros_like(untracked(logits)).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def pdist(input, *args, p=2):
    """Pairwise p-norm distances between the rows of a 2-D input (PyTorch's F.pdist is torch.pdist)."""
    from .._compositions_more import pdist as torch_pdist  # noqa: PLC0415
    return torch_pdist(input, *args, p=p)
