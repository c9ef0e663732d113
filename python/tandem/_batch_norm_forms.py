"""PyTorch's ATen normalisation forms: native_batch_norm (output, save_mean, save_invstd), the batch_norm_* pieces
SyncBatchNorm is built from (per-rank statistics, gathering them across ranks, the elementwise transform and the
two-stage backward), batch_norm_update_stats, native_group_norm and native_dropout.

All are compositions of tandem ops, so they run on every device. In PyTorch batch_norm_stats, batch_norm_elemt,
batch_norm_gather_stats(_with_counts) and batch_norm_backward_reduce/_elemt have CUDA kernels only; tandem
computes them on the CPU too (as its SyncBatchNorm synchronises host tensors), with the CUDA results' meaning:
statistics in the accumulation dtype (float32 for 16-bit inputs), gathered statistics weighted by each rank's
count, and None for a backward_reduce result that was not asked for."""
import math

import tandem

from . import _C
from ._out import write_out, write_outs

Tensor = _C.Tensor

__all__ = ["native_batch_norm", "batch_norm_stats", "batch_norm_elemt", "batch_norm_gather_stats",
           "batch_norm_gather_stats_with_counts", "batch_norm_backward_reduce", "batch_norm_backward_elemt",
           "batch_norm_update_stats", "native_group_norm", "native_dropout"]

_LOW_PRECISION = (_C.float16, _C.bfloat16)


def _check_tensor(name, value, label, position):
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{label}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _channel_dims(input):
    """Every dim but the channel dim 1 (PyTorch's IndexError for an input without one)."""
    if input.dim() < 2:
        top = max(input.dim(), 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-top}, {top - 1}], but got 1)")
    return [0] + list(range(2, input.dim()))


def _per_channel(t, input):
    """A (C,) tensor shaped to broadcast against input (N, C, ...)."""
    return t.reshape([1, -1] + [1] * (input.dim() - 2))


def _accumulation_dtype(input):
    return _C.float32 if input.dtype in _LOW_PRECISION else input.dtype


def _check_mixed(input, *params):
    """PyTorch's rule: parameters share the input's dtype, except that a 16-bit input may take float32 ones."""
    allowed = {input.dtype} | ({_C.float32} if input.dtype in _LOW_PRECISION else set())
    if any(p is not None and p.dtype not in allowed for p in params):
        raise RuntimeError(f"mixed dtype ({'CUDA' if input.is_cuda else 'CPU'}): all inputs must share same "
                           "datatype.")


def _biased_stats(x, dims):
    """(mean, biased variance) over dims, in x's dtype; both differentiable."""
    return x.mean(dim=dims), _C._var_in_input_dtype(x, dims)


def _update_running(running_mean, running_var, mean, var, momentum, count):
    """running = (1 - momentum) running + momentum batch, the variance made unbiased (count / (count - 1); a
    single value gives nan, as PyTorch's)."""
    from .nn.parameter import untracked  # noqa: PLC0415

    unbiased = count / (count - 1) if count > 1 else math.nan
    if running_mean is not None:
        untracked(running_mean).mul_(1 - momentum).add_(mean.detach().to(running_mean.dtype) * momentum)
    if running_var is not None:
        untracked(running_var).mul_(1 - momentum).add_(var.detach().to(running_var.dtype) * (momentum * unbiased))


# ---- native_batch_norm ----

def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, *, out=None):
    """(output, save_mean, save_invstd): batch normalisation's kernels (ops/batch_norm.h). In training the batch
    statistics normalise and update the running ones in place, and come back as save_mean and
    save_invstd = 1 / sqrt(var + eps); in evaluation the running statistics normalise and save_mean, save_invstd
    are empty. Only the output is differentiable."""
    if out is not None:
        result = native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
        for o, r in zip(out, result) if isinstance(out, (tuple, list)) else ():
            if isinstance(o, Tensor) and o.dtype != r.dtype:  # PyTorch's out kernel checks the dtypes first
                raise RuntimeError(f"expected scalar type {r.dtype._scalar_type_name} but found "
                                   f"{o.dtype._scalar_type_name}\nhint: native_batch_norm's out= tensors take its "
                                   f"results' dtypes ({', '.join(str(t.dtype) for t in result)})")
        return write_outs("native_batch_norm", result, out, [input, weight, bias])
    _check_tensor("native_batch_norm", input, "input", 1)
    if not training:
        for label, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:  # PyTorch's native form raises ValueError here (F.batch_norm a RuntimeError)
                raise ValueError(f"{label} must be defined in evaluation mode")
    return _C._native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


# ---- the SyncBatchNorm pieces ----

def batch_norm_stats(input, eps):
    """(mean, invstd) of each channel of input (N, C, ...), invstd = 1 / sqrt(biased var + eps)."""
    _check_tensor("batch_norm_stats", input, "input", 1)
    dims = _channel_dims(input)
    mean, var = _biased_stats(input.detach().to(_accumulation_dtype(input)), dims)
    return mean, (var + eps).rsqrt()


def batch_norm_elemt(input, weight, bias, mean, invstd, eps, *, out=None):
    """(input - mean) * invstd * weight + bias per channel, in input's dtype (eps is not used: invstd has it)."""
    if out is not None:
        return write_out("batch_norm_elemt", batch_norm_elemt(input, weight, bias, mean, invstd, eps), out,
                         [input, weight, bias, mean, invstd])
    _check_tensor("batch_norm_elemt", input, "input", 1)
    _channel_dims(input)
    scale = invstd if weight is None else invstd * weight
    shift = -mean * scale
    if bias is not None:
        shift = shift + bias
    return tandem.addcmul(_per_channel(shift, input), input, _per_channel(scale, input)).to(input.dtype)


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts):
    """The global (mean, invstd) from each rank's row of mean and invstd (world, C), weighted by counts (world,);
    the running statistics are updated in place with the global ones (the variance unbiased)."""
    for label, value, position in (("input", input, 1), ("mean", mean, 2), ("invstd", invstd, 3),
                                   ("counts", counts, 8)):
        _check_tensor("batch_norm_gather_stats_with_counts", value, label, position)
    weights = counts.to(mean.dtype).reshape(-1, 1)
    total = weights.sum()
    global_mean = (weights * mean).sum(0) / total
    rank_var = invstd.pow(-2) - eps
    global_var = (weights * (rank_var + (mean - global_mean).pow(2))).sum(0) / total
    _update_running(running_mean, running_var, global_mean, global_var, momentum, float(total.item()))
    return global_mean.detach(), (global_var.detach() + eps).rsqrt()


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count):
    """batch_norm_gather_stats_with_counts with the same count for every rank."""
    _check_tensor("batch_norm_gather_stats", mean, "mean", 2)
    counts = tandem.full((mean.size(0),), count, dtype=mean.dtype, device=mean.device)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps,
                                               counts)


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """(sum_dy, sum_dy_xmu, grad_weight, grad_bias) per channel: sum(grad_out), sum(grad_out * (input - mean)),
    sum_dy_xmu * invstd and sum_dy; each only when its flag asks for it (None otherwise)."""
    _check_tensor("batch_norm_backward_reduce", grad_out, "grad_out", 1)
    dims = _channel_dims(input)
    acc = mean.dtype
    dy = grad_out.to(acc)
    sum_dy = dy.sum(dims)
    sum_dy_xmu = (dy * (input.to(acc) - _per_channel(mean, input))).sum(dims)
    grad_dtype = weight.dtype if weight is not None else acc
    return (sum_dy if input_g else None, sum_dy_xmu if input_g else None,
            (sum_dy_xmu * invstd).to(grad_dtype) if weight_g else None,
            sum_dy.to(grad_dtype) if bias_g else None)


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    """The input gradient from the global sums: (dy - sum_dy / n - (x - mean) invstd^2 sum_dy_xmu / n) invstd
    weight, n the total of count (each rank's element count per channel)."""
    _check_tensor("batch_norm_backward_elemt", grad_out, "grad_out", 1)
    _channel_dims(input)
    acc = mean.dtype
    n = count.to(acc).sum()
    mean_dy = _per_channel(sum_dy / n, input)
    mean_dy_xmu = _per_channel(sum_dy_xmu / n, input)
    istd = _per_channel(invstd, input)
    scale = istd if weight is None else istd * _per_channel(weight.to(acc), input)
    xmu = input.to(acc) - _per_channel(mean, input)
    return ((grad_out.to(acc) - mean_dy - xmu * istd * istd * mean_dy_xmu) * scale).to(input.dtype)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased var) of each channel, the running statistics updated in place (the variance unbiased).
    The results are in running_mean's dtype when given, else input's; they are not differentiable."""
    _check_tensor("batch_norm_update_stats", input, "input", 1)
    dims = _channel_dims(input)
    dtype = running_mean.dtype if running_mean is not None else input.dtype
    mean, var = _biased_stats(input.detach().to(dtype), dims)
    _update_running(running_mean, running_var, mean, var, momentum, input.numel() // max(input.size(1), 1))
    return mean, var


# ---- native_group_norm, native_dropout ----

def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(output, mean, rstd) with input seen as (N, C, HxW) and C split into `group` groups; mean and rstd are
    (N, group) and, as in PyTorch, differentiable too."""
    _check_tensor("native_group_norm", input, "input", 1)
    if input.numel() != N * C * HxW:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    if group <= 0 or C % group != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={group}")
    for label, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != C):
            raise RuntimeError(f"Expected {label} to be a vector of size equal to the number of channels in input, "
                               f"but got {label} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"GroupNormKernelImpl\" not implemented for '{input.dtype._scalar_type_name}'")
    _check_mixed(input, weight, bias)
    grouped = input.reshape(N, group, -1)
    mean, var = _biased_stats(grouped, [2])
    rstd = (var + eps).rsqrt()
    out = ((grouped - mean.unsqueeze(-1)) * rstd.unsqueeze(-1)).reshape(N, C, HxW)
    if weight is not None:
        out = out * weight.reshape(1, C, 1)
    if bias is not None:
        out = out + bias.reshape(1, C, 1)
    return out.reshape(input.shape).to(input.dtype), mean, rstd


def native_dropout(input, p, train):
    """(output, mask): in training (train True or None) each element is kept with probability 1 - p and
    scaled by 1 / (1 - p), mask marking the kept ones; otherwise output is a copy of input and mask all True."""
    _check_tensor("native_dropout", input, "input", 1)
    if train is not None and not train:
        return input.clone(), tandem.ones(tuple(input.shape), dtype=_C.bool, device=input.device)
    keep = 1 - p
    if not 0 <= keep <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={keep:g}")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input.dtype._scalar_type_name}")
    mask = tandem.rand(tuple(input.shape), device=input.device) < keep
    scale = 1 / keep if keep > 0 else 0.0
    return input * mask * scale, mask


def install(namespace):
    for name in __all__:
        namespace.setdefault(name, globals()[name])
