"""PyTorch's argument parser takes NumPy's `axis` wherever a function's parameter is `dim` (and `dim` where it is
`axis`, as in `concatenate`). tandem's reductions take both in their C++ bindings; the joining functions
(`cat`, `concat`, `concatenate`, `stack`) get the other name here, in a thin wrapper: d2l's box helpers call
`d2l.stack(..., axis=-1)` and `d2l.concat(..., axis=1)`. Other functions with a `dim` do not take `axis` yet
(docs/compat.md)."""

_UNSET = object()


def _dim(name, alias, value, alias_kwarg):
    """The dim from the positional/own-name value or the other name; both at once is PyTorch's TypeError."""
    if not alias_kwarg:
        return 0 if value is _UNSET else value
    bad = [k for k in alias_kwarg if k != alias or value is not _UNSET]
    if bad:
        raise TypeError(f"{name}() got an unexpected keyword argument '{bad[0]}'")  # PyTorch's words
    return alias_kwarg[alias]


def _joining(join, name, param):
    """join(tensors, dim, out=) under `name`; the usual call (no keyword but out) skips _dim."""
    alias = "axis" if param == "dim" else "dim"
    if param == "dim":
        def joined(tensors, dim=_UNSET, *, out=None, **alias_kwarg):
            if alias_kwarg or dim is _UNSET:
                dim = _dim(name, alias, dim, alias_kwarg)
            return join(tensors, dim) if out is None else join(tensors, dim, out=out)
    else:
        def joined(tensors, axis=_UNSET, *, out=None, **alias_kwarg):
            if alias_kwarg or axis is _UNSET:
                axis = _dim(name, alias, axis, alias_kwarg)
            return join(tensors, axis) if out is None else join(tensors, axis, out=out)
    joined.__name__ = joined.__qualname__ = name
    joined.__doc__ = join.__doc__
    joined.__module__ = "tandem"
    return joined


def install(namespace):
    for name, param in (("cat", "dim"), ("concat", "dim"), ("concatenate", "axis"), ("stack", "dim")):
        namespace[name] = _joining(namespace[name], name, param)
