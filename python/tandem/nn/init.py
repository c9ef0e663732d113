"""nn.init: in-place initialisers with PyTorch's gain and fan rules, drawing from tandem's generators.

Each writes through an untracked view of the tensor (PyTorch runs them under no_grad), so initialising a
Parameter records nothing for autograd.
"""
import math
import warnings

import tandem

from .parameter import untracked


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (PyTorch's table)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of {['fan_in', 'fan_out']}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    untracked(tensor).uniform_(a, b, generator=generator)
    return tensor


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    untracked(tensor).normal_(mean, std, generator=generator)
    return tensor


def constant_(tensor, val):
    untracked(tensor).fill_(val)
    return tensor


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    untracked(tensor).zero_()
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.shape:
        return tensor  # PyTorch warns and leaves empty tensors alone
    fan = _calculate_correct_fan(tensor, mode)
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.shape:
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)



def _refuse_as_rejection_sampling(tensor, mean, std, a, b, mass):
    """PyTorch samples by rejection, starting from normal_ when [a, b] holds more than 30% of the mass and from
    uniform_(a, b) otherwise: those calls' refusals (an integer tensor; a > b) are its errors. The same tandem op
    raises them here, before anything is drawn (tandem's inverse-CDF sampling would return integers or swap)."""
    if tensor.is_floating_point() and (mass > 0.3 or a <= b):
        return
    target = untracked(tensor)
    target.normal_(mean, std) if mass > 0.3 else target.uniform_(a, b)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std^2) restricted to [a, b], by PyTorch's rejection sampling, step for step (so a seed gives its
    values): normal draws redrawn where they fall outside [a, b] when [a, b] holds more than 30% of the mass;
    otherwise uniform draws on [a, b], each kept with probability pdf(x) / pdf(mode), the rest redrawn."""
    if tensor.is_meta:
        return tensor
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    low, high = ((1.0 + math.erf((v - mean) / std / math.sqrt(2.0))) / 2.0 for v in (a, b))
    _refuse_as_rejection_sampling(tensor, mean, std, a, b, high - low)
    target = untracked(tensor)
    with tandem.no_grad():
        if high - low > 0.3:
            # the bounds as the tensor's dtype holds them, so the rejection test matches the stored values
            lo, hi = (tandem.tensor(v, dtype=tensor.dtype).item() for v in (a, b))
            result = target.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                result = tandem.where(outside, tandem.empty_like(result).normal_(mean, std, generator=generator),
                                      result)
            if result is not target:
                target.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_ratio(x):  # log(pdf(x) / pdf(mode)), in place in x
            return x.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

        candidates, accept = tandem.empty_like(target), tandem.empty_like(target)
        target.uniform_(a, b, generator=generator)
        pending = accept.uniform_(generator=generator).log_().gt(log_ratio(candidates.copy_(target)))
        result = target
        while pending.any():
            candidates.uniform_(a, b, generator=generator)
            result = tandem.where(pending, candidates, result)
            pending = tandem.where(pending, accept.uniform_(generator=generator).log_().gt(log_ratio(candidates)),
                                   pending)
        if result is not target:
            target.copy_(result)
    return tensor


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix over the flattened trailing dims, drawn as PyTorch draws it: Q of the QR of
    a normal matrix with R's diagonal made positive. tandem has no QR, so Q comes from classical Gram-Schmidt
    with re-orthogonalisation over the rows of the wide orientation: one step per row, each a few ops on the
    device, in float32 (float64 for float64 tensors) so that half-precision tensors get well-formed rows."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    work = tandem.float64 if tensor.dtype == tandem.float64 else tandem.float32
    flat = tandem.empty(rows, cols, dtype=work, device=tensor.device).normal_(0, 1, generator=generator)
    wide = flat if rows < cols else flat.t()
    q = tandem.zeros(wide.shape, dtype=work, device=tensor.device)
    for i in range(wide.size(0)):
        v = wide.narrow(0, i, 1)
        done = q.narrow(0, 0, i)
        for _ in range(2):  # "twice is enough" (Giraud et al.) for orthogonality to rounding
            v = v - tandem.matmul(tandem.matmul(v, done.t()), done)
        q.narrow(0, i, 1).copy_(v / tandem.norm(v))
    untracked(tensor).copy_((q if rows < cols else q.t()).reshape(tensor.shape) * gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """N(0, std^2) values with ceil(sparsity * rows) zeros in every column, at rows drawn without replacement
    (the head of a random permutation per column)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    # PyTorch zeros the first ceil(sparsity * rows) rows of a permutation by slicing, so a negative count drops
    # that many from the end (a count past rows zeros them all): the same slice's length here
    num_zeros = len(range(rows)[:math.ceil(sparsity * rows)])
    target = untracked(tensor)
    target.normal_(0, std, generator=generator)
    if num_zeros:
        # PyTorch zeros each column at the head of its own randperm, drawn from the default CPU generator (not
        # generator=): the same draws here, so a seed gives its zeros.
        for col in range(cols):
            target[tandem.randperm(rows)[:num_zeros].to(tensor.device), col] = 0
    return tensor


def dirac_(tensor, groups=1):
    """The identity of a conv layer: weight[g * out + d, d, centre...] = 1 for every group g, channel d."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    channels = min(out_per_group, sizes[1])
    target = untracked(tensor)
    target.zero_()
    d = tandem.arange(channels, device=tensor.device).reshape(1, channels).expand(groups, channels)
    g = tandem.arange(groups, device=tensor.device).reshape(groups, 1) * out_per_group
    centres = [tandem.full([groups * channels], s // 2, dtype=tandem.int64, device=tensor.device) for s in sizes[2:]]
    one = tandem.ones([], dtype=tensor.dtype, device=tensor.device)
    target.index_put_(((g + d).reshape(-1), d.reshape(-1), *centres), one)
    return tensor


def eye_(tensor):
    """The identity matrix (ones on the main diagonal of a 2-D tensor)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    untracked(tensor).copy_(tandem.eye(tensor.size(0), tensor.size(1), dtype=tensor.dtype, device=tensor.device))
    return tensor


def _make_deprecate(meth):
    """The pre-0.4 name of an initialiser (uniform for uniform_): warns as PyTorch does, then calls it."""
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning,
                      stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"{old_name}(...): deprecated in favor of tandem.nn.init.{new_name}."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)


# PyTorch's private cores of the initialisers above, which code written against its source imports
# (`from torch.nn.init import _no_grad_trunc_normal_`): the same fills, with PyTorch's positional arguments.
def _no_grad_uniform_(tensor, a, b, generator=None):
    return uniform_(tensor, a, b, generator)


def _no_grad_normal_(tensor, mean, std, generator=None):
    return normal_(tensor, mean, std, generator)


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    return trunc_normal_(tensor, mean, std, a, b, generator)


def _no_grad_fill_(tensor, val):
    return constant_(tensor, val)


def _no_grad_zero_(tensor):
    return zeros_(tensor)
