"""The operator registry: OpOverload (one schema and its kernels), OpOverloadPacket (a name's overloads) and the
tandem.ops namespaces (tandem.ops.mylib.crop, tandem.ops.mylib.crop.default)."""
import inspect
import os

from .. import _C
from . import schema as _schema
from .autograd import call_with_autograd

_PACKETS = {}  # "ns::name" -> OpOverloadPacket
# Dispatch keys a kernel may be registered at; a device's key wins over CompositeExplicitAutograd, and a
# CompositeImplicitAutograd kernel runs instead of all of them (its own tandem ops give it gradients). An
# Autocast<DEVICE> kernel runs before all of them while autocast is on for the inputs' device type, as PyTorch's
# Autocast keys sit above Autograd (the kernel turns autocast off before it calls the op again).
DISPATCH_KEYS = ("CPU", "CUDA", "CompositeExplicitAutograd", "CompositeImplicitAutograd", "Meta", "AutocastCPU",
                 "AutocastCUDA")
_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}
_PENDING = {}  # (qualname, overload) -> {key: kernel}: PyTorch lets impl come before define


def device_key(device_type):
    """A device type ("cpu", "cuda") as its dispatch key, after tandem's check of the name."""
    _C.device(device_type)  # raises PyTorch's "Expected one of cpu, cuda device type ..." for an unknown one
    return _DEVICE_KEYS.get(device_type, device_type.upper())


def _tensors(values):
    for v in values:
        if isinstance(v, _C.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (t for t in v if isinstance(t, _C.Tensor))


_NOT_DISPATCHED = object()


def dispatch_torch_function(op, args, kwargs):
    """PyTorch's operators take part in __torch_function__ (FX records `torch.ops.aten.relu(proxy)` as that op, a
    mode sees the call): the handlers' result, or _NOT_DISPATCHED when no argument (nor an element of a list or
    tuple argument) nor a mode asks for dispatch."""
    from .. import overrides  # noqa: PLC0415 (tandem.overrides imports the package this module is part of)

    relevant = []
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, (list, tuple)):
            relevant.extend(value)
        else:
            relevant.append(value)
    if not overrides.has_torch_function(relevant):
        return _NOT_DISPATCHED
    return overrides.handle_torch_function(op, relevant, *args, **kwargs)


class OpOverload:
    """One overload of an operator: its schema, its kernels per dispatch key, and its fake and autograd parts."""

    def __init__(self, packet, schema):
        self._packet, self._schema = packet, schema
        self._overloadname = schema.overload or "default"
        self._kernels = _PENDING.pop((packet._qualified_op_name, schema.overload), {})
        self._fake = self._kernels.pop("Meta", None)
        self._backward = self._setup_context = None
        self._custom = None  # the CustomOpDef that made this op, if one did
        self._location = "<unknown>"  # where it was defined (define sets it)
        self.__name__ = self.__qualname__ = f"{packet._opname}.{self._overloadname}"  # PyTorch's 'crop.default'

    def name(self):
        return self._packet._qualified_op_name + (f".{self._schema.overload}" if self._schema.overload else "")

    @property
    def _namespace(self):
        return self._packet._namespace

    @property
    def _opname(self):
        return self._packet._opname

    def __repr__(self):
        return f"<OpOverload(op='{self._namespace}.{self._opname}', overload='{self._overloadname}')>"

    def __str__(self):
        return f"{self._namespace}.{self._opname}.{self._overloadname}"

    def __call__(self, *args, **kwargs):
        dispatched = dispatch_torch_function(self, args, kwargs)
        if dispatched is not _NOT_DISPATCHED:
            return dispatched
        args, kwargs = _schema.bind(self._schema, args, kwargs)
        autocast = self._autocast_kernel(args, kwargs)
        if autocast is not None:
            return autocast(*args, **kwargs)
        implicit = self._kernels.get("CompositeImplicitAutograd")
        if implicit is not None:
            return implicit(*args, **kwargs)
        if self._custom is not None or self._backward is not None:
            result = call_with_autograd(self, args, kwargs)
        else:
            result = self._call_kernel(args, kwargs)
        self._bump_mutated_versions(args, kwargs)
        return result

    def _autocast_kernel(self, args, kwargs):
        """The Autocast<DEVICE> kernel for the inputs' device type while autocast is on there, else None."""
        if "AutocastCPU" not in self._kernels and "AutocastCUDA" not in self._kernels:
            return None
        device_type = self._dispatch_device(args, kwargs)
        kernel = self._kernels.get(f"Autocast{device_type.upper()}")
        return kernel if kernel is not None and _C.is_autocast_enabled(device_type) else None

    def _named(self, args, kwargs):
        return dict(zip((a.name for a in self._schema.arguments if not a.kwarg_only), args), **kwargs)

    def _bump_mutated_versions(self, args, kwargs):
        """Arguments the schema marks as written count as modified in place (a kernel writing through NumPy
        would not tell autograd), so a copy saved for backward before the call fails its version check."""
        named = self._named(args, kwargs)
        for a in self._schema.arguments:
            if a.type.is_write and named.get(a.name) is not None:
                for t in _tensors([named[a.name]]):
                    _C._increment_version(t)

    def _dispatch_device(self, args, kwargs):
        """The device type whose kernel runs: meta when any tensor argument is on the meta device, cuda when any is
        on a cuda device, else cpu; for an op without tensor arguments, its Device argument's type."""
        values = [*args, *kwargs.values()]
        types = {t.device.type for t in _tensors(values)}
        if types:
            return "meta" if "meta" in types else "cuda" if "cuda" in types else "cpu"
        named = self._named(args, kwargs)
        for a in self._schema.arguments:
            if a.type.base == "Device" and named.get(a.name) is not None:
                return _C.device(named[a.name]).type
        return "cpu"

    def _kernel_for(self, device_type):
        kernel = self._kernels.get(_DEVICE_KEYS[device_type]) or self._kernels.get("CompositeExplicitAutograd")
        if kernel is None:
            raise NotImplementedError(
                f"Could not run '{self._packet._qualified_op_name}' with arguments from the "
                f"'{_DEVICE_KEYS[device_type]}' backend. This could be because the operator doesn't exist for this "
                f"backend. '{self._packet._qualified_op_name}' is only available for these backends: "
                f"{sorted(k for k in self._kernels)}.")
        return kernel

    def _call_kernel(self, args, kwargs):
        """Runs the kernel for the inputs' device (below autograd: what a registered backward wraps). Meta inputs
        run the fake implementation (the op's Meta kernel), as in PyTorch."""
        device_type = self._dispatch_device(args, kwargs)
        if device_type == "meta" and self._fake is not None:
            return self._fake(*args, **kwargs)
        if device_type == "meta" and self._custom is not None:
            raise RuntimeError(
                f"There was no fake impl registered for <CustomOpDef({self._packet._qualified_op_name})>. This is "
                "necessary for torch.compile/export/fx tracing to work. Please use "
                f"`{self._custom._name}.register_fake` to add an fake impl.")
        if self._custom is not None:
            return self._custom._run_kernel(device_type, args, kwargs)
        return self._kernel_for(device_type)(*args, **kwargs)


class OpOverloadPacket:
    """An operator name and its overloads; calling it calls the default (or only) overload."""

    def __init__(self, namespace, opname):
        self._namespace, self._opname = namespace, opname
        self._qualified_op_name = f"{namespace}::{opname}"
        self._overloads = {}
        self.__name__ = self.__qualname__ = opname

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._namespace}.{self._opname}')>"

    def __str__(self):
        return f"{self._namespace}.{self._opname}"

    def overloads(self):
        return list(self._overloads)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self._overloads[name]
        except KeyError:
            raise AttributeError(f"The underlying op of '{self}' has no overload name '{name}'") from None

    def _resolve(self):
        """The overload a call through the packet means: 'default' when defined, else the only one."""
        if "default" in self._overloads:
            return self._overloads["default"]
        if len(self._overloads) == 1:
            return next(iter(self._overloads.values()))
        raise RuntimeError(f"{self._qualified_op_name}: the call is ambiguous between overloads "
                           f"{self.overloads()}; call one of them (e.g. torch.ops.{self}.{self.overloads()[0]})")

    def __call__(self, *args, **kwargs):
        dispatched = dispatch_torch_function(self, args, kwargs)
        if dispatched is not _NOT_DISPATCHED:
            return dispatched
        return self._resolve()(*args, **kwargs)


def define(namespace, schema_text, *, replace=False, location=None):
    """Registers a schema ("name.overload(...) -> ...", the name may carry "namespace::") in `namespace`;
    returns the OpOverload. `replace` lets custom_op redefine a name, as PyTorch's does; `location` is the
    registration's file:line for the duplicate-registration message (its caller's by default)."""
    location = location or caller()
    parsed = _schema.parse_schema(schema_text)
    parsed.name = f"{namespace}::{parsed.name.split('::')[-1]}"
    packet = _PACKETS.setdefault(parsed.name, OpOverloadPacket(namespace, parsed.name.split("::")[1]))
    overload = parsed.overload or "default"
    if overload in packet._overloads and not replace:
        raise RuntimeError(f"Tried to register an operator ({parsed}) with the same name and overload name multiple "
                           "times. Each overload's schema should only be registered with a single call to def(). "
                           f"Duplicate registration: registered at {location}. Original registration: registered "
                           f"at {packet._overloads[overload]._location}")
    packet._overloads[overload] = OpOverload(packet, parsed)
    packet._overloads[overload]._location = location
    return packet._overloads[overload]


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tandem/


def caller():
    """The user's file:line that made a registration (the first frame outside tandem's package), for the
    registration messages."""
    frame = inspect.currentframe().f_back
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep):
        frame = frame.f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else "<unknown>"


def add_kernel(qualname, overload, key, kernel):
    """A kernel for a dispatch key; for an op not defined yet it waits for the definition (as in PyTorch)."""
    op = _PACKETS.get(qualname)
    op = op and op._overloads.get(overload or "default")
    if op is None:
        _PENDING.setdefault((qualname, overload), {})[key] = kernel
    elif key == "Meta":
        op._fake = kernel
    else:
        op._kernels[key] = kernel


def undefine(op):
    """Removes an overload that define() made (its Library was collected); the name goes with its last one."""
    packet = _PACKETS.get(op._packet._qualified_op_name)
    if packet is not None and packet._overloads.get(op._overloadname) is op:
        del packet._overloads[op._overloadname]
        if not packet._overloads:
            del _PACKETS[packet._qualified_op_name]


def remove_kernel(qualname, overload, key, kernel):
    """Removes a kernel add_kernel registered, if it is still the one there."""
    op = _PACKETS.get(qualname)
    op = op and op._overloads.get(overload or "default")
    if op is None:
        pending = _PENDING.get((qualname, overload), {})
        if pending.get(key) is kernel:
            del pending[key]
    elif key == "Meta":
        if op._fake is kernel:
            op._fake = None
    elif op._kernels.get(key) is kernel:
        del op._kernels[key]


def lookup(qualname):
    """The default (or only) overload of "ns::name[.overload]"; RuntimeError when no such operator exists."""
    name, _, overload = qualname.partition(".")
    packet = _PACKETS.get(name)
    op = packet and packet._overloads.get(overload or "default")
    if op is None:
        raise RuntimeError(f"operator {qualname} does not exist")
    return op


class _OpNamespace:
    """tandem.ops.<namespace>: the operators defined in it, by name."""

    def __init__(self, name):
        self.name = name

    def __getattr__(self, op_name):
        if op_name.startswith("__") and not op_name.endswith("__"):
            raise AttributeError(op_name)
        packet = _PACKETS.get(f"{self.name}::{op_name}")
        if packet is None and self.name == "aten":
            from . import aten  # noqa: PLC0415 (aten's table imports tandem, which imports this module)

            packet = aten.packet(op_name)
        if packet is None:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        return packet


class _Ops:
    """tandem.ops: one namespace object per library name (created on first use, as in PyTorch)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _OpNamespace(name)

    def load_library(self, path):
        """PyTorch loads a C++ extension's shared library here; such a library links against libtorch."""
        raise NotImplementedError(f"torch.ops.load_library({path!r}): tandem cannot load PyTorch C++ extension "
                                  "libraries (they are built against libtorch).\nhint: define the operator in Python "
                                  "with tandem.library.custom_op (docs/library.md)")


ops = _Ops()
