"""tandem's public functions written in Python behave as PyTorch's, which are C functions: stored as a class
attribute (`class Block: conv = torch.conv3d`), such a function is not bound as a method, so `self.conv(x, w)`
passes no `self` (kornia relies on it). Each public Python function of tandem, tandem.linalg, tandem.special and
tandem.fft is replaced by a `_C.builtin_function` around it (python/src/builtin_function.cpp): called through
vectorcall, pickled by reference to its public name, printed as a built-in, the function kept as __wrapped__."""
import sys
import types

from . import _C


_WRAPPED = ("tandem", "tandem.linalg", "tandem.special", "tandem.fft")
# Modules whose functions are tandem's own under their names without being PyTorch's Python functions: the Array
# API namespace (its own namespace), and torch.functional, whose stft/istft/... are torch's C functions (they
# get the wrappers in install).
_NOT_SHARING = ("tandem.array_api", "tandem.functional")


def _shared_with_public_modules():
    """The functions another public module of tandem exposes too (tandem.vmap is tandem.func.vmap, tandem.manual_seed
    is tandem.random.manual_seed): PyTorch writes those in Python as well, and they keep their identity."""
    shared = set()
    for name, module in list(sys.modules.items()):
        if name.startswith("tandem.") and name not in _WRAPPED and module is not None and \
                not name.startswith(_NOT_SHARING) and not any(part.startswith("_") for part in name.split(".")):
            names = vars(module)
            public = names.get("__all__")  # without one, the functions it defines (not those it imports)
            shared.update(id(fn) for attr, fn in names.items() if type(fn) is types.FunctionType and
                          (attr in public if isinstance(public, (list, tuple)) else fn.__module__ == name))
    return shared


def _wrap_namespace(namespace, module_name, shared, wrappers):
    for attr, fn in list(namespace.items()):
        if attr.startswith("_") or not isinstance(fn, types.FunctionType) or \
                not (fn.__module__ or "").startswith("tandem") or id(fn) in shared:
            continue
        namespace[attr] = wrappers[id(fn)] = _C._builtin_function(fn, attr, module_name)


def install(namespace):
    shared, wrappers = _shared_with_public_modules(), {}
    _wrap_namespace(namespace, "tandem", shared, wrappers)
    for name in _WRAPPED[1:]:
        _wrap_namespace(vars(sys.modules[name]), name, shared, wrappers)
    functional = vars(sys.modules["tandem.functional"])  # torch.functional.istft is torch.istft
    for attr, fn in list(functional.items()):
        if type(fn) is types.FunctionType and id(fn) in wrappers:
            functional[attr] = wrappers[id(fn)]
