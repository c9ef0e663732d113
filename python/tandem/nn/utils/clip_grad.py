"""Gradient clipping, as torch.nn.utils: by total norm (clip_grad_norm_, get_total_norm, clip_grads_with_norm_)
and by value (clip_grad_value_). Norms and scaling are tandem ops on each gradient's own device; `foreach` is
accepted for source compatibility (every tandem device takes the per-tensor path)."""
import functools
import types
import warnings

import tandem

from ..._C import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with tandem.no_grad():
            return func(*args, **kwargs)
    return wrapper


def _by_device_and_dtype(tensors):
    """The tensors grouped by (device, dtype), groups in first-seen order (PyTorch's order of partial norms)."""
    groups = {}
    for t in tensors:
        groups.setdefault((str(t.device), t.dtype), []).append(t)
    return groups.values()


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (as if concatenated into one vector), on the first tensor's device."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tandem.tensor(0.0)
    first_device = tensors[0].device
    norms = [tandem.norm(t, norm_type) for group in _by_device_and_dtype(tensors) for t in group]
    total_norm = tandem.norm(tandem.stack([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and bool(tandem.logical_or(total_norm.isnan(), total_norm.isinf())):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from "
            "`parameters` is non-finite, so it cannot be clipped. To disable "
            "this error and scale the gradients by the non-finite norm anyway, "
            "set `error_if_nonfinite=False`"
        )
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales every gradient in place by min(1, max_norm / (total_norm + 1e-6))."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = tandem.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for group in _by_device_and_dtype(grads):
        coef = clip_coef.to(group[0].device)
        for g in group:
            g.mul_(coef)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clips the gradients of `parameters` (a tensor or an iterable of them) so that their total norm is at most
    `max_norm`; returns the total norm before clipping as a 0-d tensor."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of clip_grad_norm_ (a FutureWarning, as in PyTorch)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient in place to [-clip_value, clip_value]."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for p in parameters:
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
