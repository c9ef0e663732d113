"""tandem.library: PyTorch's Python API for custom operators (torch.library).

``custom_op`` turns a Python function into an operator reachable as ``tandem.ops.<namespace>.<name>``, with
per-device kernels, a fake implementation and gradients; ``Library``/``define``/``impl`` is the older
schema-string form. Eager only: there is no graph compiler, so fake implementations are only run by
``opcheck`` (docs/library.md).
"""
import warnings
import weakref

from ._library import registry
from ._library.custom_op import CustomOpDef, custom_op, check_functional
from ._library.infer import infer_schema
from ._library.opcheck import opcheck, OpCheckError  # noqa: F401

__all__ = ["Library", "custom_op", "CustomOpDef", "define", "impl", "impl_abstract", "infer_schema", "opcheck",
           "register_autograd", "register_fake", "register_kernel"]

_KINDS = ("DEF", "IMPL", "FRAGMENT")
_DEFINED_NAMESPACES = {}  # namespace -> where its "DEF" library was made (PyTorch allows one per namespace)
# Dispatch keys PyTorch has that tandem's eager dispatcher does not run kernels from.
_UNSUPPORTED_KEYS = ("Autograd", "AutogradCPU", "AutogradCUDA", "AutogradOther", "ADInplaceOrView", "BackendSelect",
                     "Python", "Functionalize", "XLA", "MPS", "XPU", "HPU", "Lazy",
                     "PrivateUse1", "FuncTorchBatched")


def _dispatch_key(key):
    if key in registry.DISPATCH_KEYS:
        return key
    if key in _UNSUPPORTED_KEYS:
        raise NotImplementedError(f"tandem.library: kernels for dispatch key '{key}' are not supported (tandem "
                                  f"dispatches on {', '.join(registry.DISPATCH_KEYS)}); register the autograd "
                                  "formula with torch.library.register_autograd instead")
    raise RuntimeError(f"could not parse dispatch key: {key}")


class Library:
    """A group of operator definitions ("DEF", "FRAGMENT") or implementations ("IMPL") in one namespace."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        self._location = registry.caller()  # PyTorch's registrations name the line that made the library
        if kind == "DEF" and ns in _DEFINED_NAMESPACES:
            raise RuntimeError(f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put "
                               "all of your definitions in a single TORCH_LIBRARY block.  If you were trying to "
                               "specify implementations, consider using TORCH_LIBRARY_IMPL (which can be "
                               "duplicated).  If you really intended to define operators for a single namespace "
                               "in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to explicitly indicate "
                               f"this.  Previous registration of TORCH_LIBRARY was registered at "
                               f"{_DEFINED_NAMESPACES[ns]}; latest registration was registered at {self._location}")
        if kind == "DEF":
            _DEFINED_NAMESPACES[ns] = self._location
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        # As in PyTorch, what a Library registered lasts as long as the Library object: when it is collected its
        # operators and kernels go, and a "DEF" namespace is free again.
        self._defined, self._kernels = [], []
        weakref.finalize(self, _release, ns if kind == "DEF" else None, self._defined, self._kernels)

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Defines an operator from a schema string ("sin(Tensor x) -> Tensor"); returns its name."""
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        name = schema.split("(")[0].strip()
        if self.kind == "IMPL":
            raise RuntimeError(f'def("{name}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.  All '
                               "def()s should be placed in the (unique) TORCH_LIBRARY block for their namespace.  "
                               f"(Error occurred while processing TORCH_LIBRARY_IMPL block at {self._location})")
        op = registry.define(name.split("::")[0] if "::" in name else self.ns, schema, location=self._location)
        self._defined.append(op)
        return name.split(".")[0]

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=True):
        """Registers `fn` as the kernel of `op_name` (a name in this namespace or an OpOverload) for a dispatch key
        ("CPU", "CUDA", "CompositeImplicitAutograd", "CompositeExplicitAutograd", "Meta", "AutocastCPU",
        "AutocastCUDA")."""
        if with_keyset:
            raise NotImplementedError("tandem.library: with_keyset=True kernels are not supported (tandem has no "
                                      "dispatch key sets)")
        key = _dispatch_key(dispatch_key or self.dispatch_key or "CompositeImplicitAutograd")
        if isinstance(op_name, registry.OpOverload):
            qualname, overload = op_name._packet._qualified_op_name, op_name._schema.overload
        else:
            name, _, overload = op_name.partition(".")
            qualname = name if "::" in name else f"{self.ns}::{name}"
        registry.add_kernel(qualname, overload, key, fn)
        self._kernels.append((qualname, overload, key, fn))


def _release(namespace, defined, kernels):
    """What a collected Library registered, unregistered."""
    if namespace is not None:
        _DEFINED_NAMESPACES.pop(namespace, None)
    for op in defined:
        registry.undefine(op)
    for kernel in kernels:
        registry.remove_kernel(*kernel)


def _parse_qualname(qualname):
    ns, sep, name = qualname.partition("::")
    if not sep or not ns or not name:
        raise ValueError(f'Expected `qualname` to be of the form "namespace::name", but got {qualname}. The qualname '
                         "passed to the torch.library APIs must consist of a namespace and a name, e.g. aten::sin")
    return ns, name


def define(qualname, schema, *, lib=None, tags=()):
    """Defines the operator "namespace::name" with `schema` ("(Tensor x) -> Tensor")."""
    ns, name = _parse_qualname(qualname)
    registry.define(ns, name + schema)


def _device_types_key(device_type):
    """impl()'s `types`: a device type ("cpu", "cuda", "default"), or, as PyTorch also takes, a dispatch key's name
    ("CPU", "AutocastCUDA")."""
    if device_type in (None, "default"):
        return "CompositeExplicitAutograd"
    if device_type in registry.DISPATCH_KEYS or device_type in _UNSUPPORTED_KEYS:
        return _dispatch_key(device_type)
    return registry.device_key(device_type)


def impl(qualname, types, func=None, *, lib=None):
    """A kernel for "namespace::name" on device types ("cpu", "cuda", or "default": every device); also the older
    form impl(lib, name, dispatch_key) as a decorator."""
    if isinstance(qualname, Library):
        library, name, key = qualname, types, func or ""
        return lambda f: (library.impl(name, f, key), f)[1]
    ns, name = _parse_qualname(qualname)
    keys = [_device_types_key(t) for t in ([types] if types is None or isinstance(types, str) else types)]

    def register(f):
        for key in keys:
            registry.add_kernel(f"{ns}::{name.split('.')[0]}", name.partition(".")[2], key, f)
        return f

    return register if func is None else register(func)


def _resolve(op, caller):
    """A CustomOpDef, OpOverload, packet, or qualified name as (OpOverload, CustomOpDef or None); `caller` names the
    API in the error for another type."""
    if isinstance(op, CustomOpDef):
        return op._opoverload, op
    if isinstance(op, registry.OpOverloadPacket):
        op = op._resolve()
    if isinstance(op, str):
        _parse_qualname(op)
        op = registry.lookup(op)
    if not isinstance(op, registry.OpOverload):
        raise ValueError(f"{caller}({op}): got unexpected type for op: {type(op)}")
    return op, op._custom


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=True):
    """The fake implementation of an operator (by name, OpOverload or CustomOpDef); usable as a decorator."""
    overload, custom = _resolve(op, "register_fake")

    def register(f):
        if custom is not None:
            custom.register_fake(f)
        else:
            overload._fake = f
        return f

    return register if func is None else register(func)


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel=1):
    """register_fake's name before PyTorch 2.4 (warns, as PyTorch does)."""
    warnings.warn("`torch.library.impl_abstract` was renamed to `torch.library.register_fake`. Please use that "
                  "instead; we will remove `torch.library.impl_abstract` in a future version of PyTorch.",
                  FutureWarning, stacklevel=2)
    return register_fake(qualname, func, lib=lib)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Gradients for an operator (by name, OpOverload or CustomOpDef): see CustomOpDef.register_autograd."""
    if isinstance(op, str):
        ns, name = _parse_qualname(op)
        op = getattr(getattr(registry.ops, ns), name.split(".")[0])  # AttributeError for an unknown op, as PyTorch
    overload, custom = _resolve(op, "register_autograd")
    if custom is not None:
        custom.register_autograd(backward, setup_context=setup_context)
        return
    check_functional(overload, overload)
    overload._backward, overload._setup_context = backward, setup_context


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """A kernel of an operator for device types ("cpu", "cuda"); usable as a decorator."""
    overload, custom = _resolve(op, "register_kernel")
    if custom is not None:
        return custom.register_kernel(device_types, func)
    return impl(overload._packet._qualified_op_name + (f".{overload._schema.overload}" if overload._schema.overload
                                                        else ""), device_types, func)
