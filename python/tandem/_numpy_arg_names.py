"""NumPy's parameter names on tandem's Python-level functions, as PyTorch's argument parser takes them for its
native functions: `axis=` for `dim=`, `keepdims=` for `keepdim=`. The C++-bound functions and Tensor methods get
them in python/src/numpy_arg_names.cpp; this covers the ones written in Python (diff, tensor_split, cross,
linalg.norm, ...). A thin wrapper renames the keyword; a call without keywords pays one dict test."""
import functools
import inspect
import types

# (the function's own name, NumPy's name, PyTorch's words when a call gives both)
_PAIRS = (("dim", "axis", "got an unexpected keyword argument"),
          ("keepdim", "keepdims", "got an unexpected keyword argument"))


def _renames(fn):
    """(param, alias, how many positional arguments reach it or None, conflict) for each alias fn lacks."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return []
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return []  # it forwards keywords: whatever it calls decides
    names = list(params)
    found = []
    for param, alias, conflict in _PAIRS:
        if param not in params or alias in params:
            continue
        p = params[param]
        position = names.index(param) if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) else None
        found.append((param, alias, position, conflict))
    return found


def _with_numpy_names(fn, renames, module):
    name = fn.__name__

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs:
            for param, alias, position, conflict in renames:
                if alias in kwargs:
                    if param in kwargs or (position is not None and len(args) > position):
                        raise TypeError(f"{name}() {conflict} '{alias}'")
                    kwargs[param] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    call.__module__ = module  # pickled by reference through the namespace that holds the wrapper
    return call


def _install_in(namespace, module):
    for attr, fn in list(namespace.items()):
        if not isinstance(fn, types.FunctionType) or attr.startswith("_") or \
                not (fn.__module__ or "").startswith("tandem"):
            continue
        renames = _renames(fn)  # for a method, positions count self, as the wrapper's args do
        if renames:
            yield attr, _with_numpy_names(fn, renames, module)


def install(namespace):
    """Wraps the Python functions of tandem, tandem.linalg, tandem.special and tandem.fft, and Tensor's Python
    methods, that have `dim`/`keepdim` without NumPy's name."""
    import tandem
    for attr, wrapped in list(_install_in(namespace, "tandem")):
        namespace[attr] = wrapped
    for sub in ("linalg", "special", "fft"):
        module = getattr(tandem, sub)
        for attr, wrapped in list(_install_in(vars(module), module.__name__)):
            setattr(module, attr, wrapped)
    tensor = namespace["Tensor"]
    for attr, wrapped in list(_install_in(dict(vars(tensor)), "tandem")):
        setattr(tensor, attr, wrapped)
