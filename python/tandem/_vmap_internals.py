"""torch._vmap_internals: PyTorch's older vmap, which libraries still import (pytorch-minimize's torchmin builds
its Hessians and Jacobians with ``_vmap(hvp)(eye)``). It is tandem.func.vmap's loop with the older API's rules:
func returns a Tensor or a tuple of Tensors (None entries too with allow_none_pass_through), out_dims is an int
or a tuple of ints, and random calls inside are not checked."""
import functools
import warnings

from . import _C
from ._func_vmap import _name, _process_in_dims
from .utils._pytree import tree_unflatten

Tensor = _C.Tensor


def _validate_outputs(outputs, func, allow_none):
    if isinstance(outputs, Tensor):
        return
    if not isinstance(outputs, tuple):
        raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                         f"{type(outputs)} as the return.")
    for idx, output in enumerate(outputs):
        if isinstance(output, Tensor) or (allow_none and output is None):
            continue
        raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                         f"{type(output)} for return {idx}.")


def _check_out_dims_is_int_or_int_tuple(out_dims, func):
    if isinstance(out_dims, int):
        return
    if not isinstance(out_dims, tuple) or not all(isinstance(d, int) for d in out_dims):
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int or a tuple of "
                         "int representing where in the outputs the vmapped dimension should appear.")


def _vmap(func, in_dims=0, out_dims=0, allow_none_pass_through=False):
    @functools.wraps(func)
    def wrapped(*args):
        _check_out_dims_is_int_or_int_tuple(out_dims, func)
        batch, flat_in_dims, flat_args, args_spec = _process_in_dims(func, in_dims, args)
        results = []
        for b in range(batch):
            element = [a if d is None else a.select(d, b) for a, d in zip(flat_args, flat_in_dims)]
            out = func(*tree_unflatten(element, args_spec))
            _validate_outputs(out, func, allow_none_pass_through)
            results.append(out)
        if isinstance(results[0], Tensor):
            return _stack(func, [results], out_dims, 1)[0]
        return tuple(_stack(func, list(zip(*results)), out_dims, len(results[0])))
    return wrapped


def _stack(func, columns, out_dims, count):
    """One tensor per output: the elements' values stacked along that output's out_dim (None stays None)."""
    if isinstance(out_dims, tuple) and len(out_dims) != count:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must have one dim per output "
                         f"(got {count} outputs) of {_name(func)}.")
    dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * count
    return [None if column[0] is None else _C.stack(list(column), d) for column, d in zip(columns, dims)]


def vmap(func, in_dims=0, out_dims=0):
    warnings.warn("Please use `torch.vmap` instead of `torch._vmap_internals.vmap`.", FutureWarning, stacklevel=2)
    return _vmap(func, in_dims, out_dims)
