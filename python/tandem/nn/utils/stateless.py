"""functional_call: run a module with some of its parameters and buffers replaced by given tensors (for
per-sample gradients, meta-learning, DataParallel replicas), restoring the originals afterwards, as
torch.nn.utils.stateless / torch.func."""
import contextlib
import warnings

from ..._C import Tensor

__all__ = ["functional_call"]


def _owner(module, name):
    """(submodule, attribute) that the dotted `name` refers to."""
    *path, attr = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, attr


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


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    tensors = dict(parameters_and_buffers)
    if tie_weights:
        tied = _tied_names(module)
        for name in list(tensors):
            for other in tied.get(name, ()):
                if other in tensors and tensors[other] is not tensors[name]:
                    raise ValueError(f"functional_call got multiple values for keys ['{name}', '{other}'], which "
                                     "are tied. Consider using tie_weights=False")
                tensors.setdefault(other, tensors[name])
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
            mod, attr = _owner(module, name)
            for store in (mod._parameters, mod._buffers):
                if attr in store:
                    saved.append((store, attr, store[attr]))
                    store[attr] = value  # bypasses the Parameter-type check on purpose: any tensor may stand in
                    break
            else:
                saved.append((mod.__dict__, attr, mod.__dict__.get(attr, _MISSING)))
                mod.__dict__[attr] = value
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
    """module(*args, **kwargs) with the named parameters/buffers replaced by the given tensors (a dict, or a
    sequence of dicts with distinct keys)."""
    if isinstance(parameters_and_buffers, (list, tuple)):
        merged, repeated = {}, []
        for d in parameters_and_buffers:
            for k, v in d.items():
                if k in merged and k not in repeated:
                    repeated.append(k)
                merged[k] = v
        if repeated:  # every repeated key, listed as PyTorch lists them
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        parameters_and_buffers = merged
    for k, v in parameters_and_buffers.items():
        if not isinstance(v, Tensor):
            raise TypeError(f"Expected all elements of parameter_and_buffer_dicts to be dictionaries of tensors; "
                            f"got {type(v).__name__} for {k}")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
