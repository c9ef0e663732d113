"""functional_call: run a module with some of its parameters and buffers replaced by given tensors (for
per-sample gradients, meta-learning, DataParallel replicas), restoring the originals afterwards, as
torch.nn.utils.stateless / torch.func."""
import contextlib
import warnings
from collections.abc import Sequence

from ..._C import Tensor

__all__ = ["functional_call"]


def _tied_names(module):
    """Each parameter/buffer name mapped to every name sharing that tensor (tied weights)."""
    by_id = {}
    for prefix, mod in module.named_modules(remove_duplicate=False):
        base = prefix + "." if prefix else ""
        for store in (mod._parameters, mod._buffers):
            for key, t in store.items():
                if t is not None:
                    by_id.setdefault(id(t), []).append(base + key)
    return {name: names for names in by_id.values() for name in names}


def _check_tensor(value):
    """PyTorch's accessor takes a tensor or None (a parameter set to None) for every name."""
    if not isinstance(value, Tensor) and value is not None:
        raise TypeError(f"{value} is not an instance of tandem.Tensor")


def _submodule(module, path):
    """The module at a dotted path, named as PyTorch's accessor names a missing one."""
    for part in path:
        try:
            module = getattr(module, part)
        except AttributeError:
            raise AttributeError(f"{module._get_name()} has no attribute `{part}`") from None
    return module


def _swap(module, name, value):
    """Puts `value` where `name` points (a parameter, a buffer or a plain attribute, which may be missing) and
    returns how to put the old one back."""
    *path, attr = name.split(".")
    mod = _submodule(module, path)
    for store in (mod._parameters, mod._buffers):
        if attr in store:
            old = store[attr]
            store[attr] = value  # bypasses the Parameter-type check on purpose: any tensor may stand in
            return store, attr, old
    old = mod.__dict__.get(attr, _MISSING)
    if old is not _MISSING and not isinstance(old, Tensor) and old is not None:
        raise TypeError(f"attribute `{attr}`: {old} is not an instance of tandem.Tensor")
    mod.__dict__[attr] = value
    return mod.__dict__, attr, old


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    tensors = parameters_and_buffers
    if tie_weights:
        given = list(parameters_and_buffers.keys())
        tensors = dict(parameters_and_buffers)
        tied = _tied_names(module)
        for name in given:
            others = tied.get(name, ())
            if len({id(parameters_and_buffers[o]) for o in others if o in given}) > 1:
                raise ValueError(f"functional_call got multiple values for keys {sorted(others)}, which are tied. "
                                 "Consider using tie_weights=False")
            for other in others:
                tensors.setdefault(other, parameters_and_buffers[name])
    if strict:
        own = dict(module.named_parameters(remove_duplicate=False))
        own.update(dict(module.named_buffers(remove_duplicate=False)))
        missing = [k for k in own if k not in tensors]
        unexpected = [k for k in tensors if k not in own]
        errors = []
        if unexpected:
            errors.append("Unexpected key(s): {}.".format(", ".join(map(repr, unexpected))))
        if missing:
            errors.append("Missing key(s): {}.".format(", ".join(map(repr, missing))))
        if errors:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                  "\n\t".join(errors)))
    saved = []
    try:
        for name, value in tensors.items():
            _check_tensor(value)
            saved.append(_swap(module, name, value))
        yield
    finally:
        for store, attr, old in reversed(saved):
            if old is _MISSING:
                store.pop(attr, None)
            else:
                store[attr] = old


_MISSING = object()


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Deprecated spelling of tandem.func.functional_call (warns as PyTorch does)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the named parameters/buffers (a dict) replaced by the given tensors."""
    from ..parallel import DataParallel
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def func_functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                         strict=False):
    """tandem.func.functional_call: a dict, or a sequence of dicts with distinct keys."""
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        merged, repeated = {}, []
        for d in parameter_and_buffer_dicts:
            for k, v in d.items():
                if k in merged and k not in repeated:
                    repeated.append(k)
                merged[k] = v
        if repeated:  # every repeated key, listed as PyTorch lists them
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, merged, args, kwargs, tie_weights=tie_weights, strict=strict)
