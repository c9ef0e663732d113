"""custom_op and CustomOpDef: a Python function made an operator (tandem.ops.<ns>.<name>), with per-device
kernels, a fake implementation for opcheck, and gradients from register_autograd."""
import contextlib
import inspect
import logging

from .. import _C
from . import registry
from .infer import infer_schema
from .schema import parse_schema

log = logging.getLogger(__name__)


def _storages(value):
    """The data pointers of a result's tensors (empty ones have none to share)."""
    for t in value if isinstance(value, (list, tuple)) else (value,):
        if isinstance(t, _C.Tensor) and t.numel() > 0:
            yield t, t.untyped_storage().data_ptr()


class CustomOpDef:
    """What custom_op returns: callable as the op, with methods that register its other parts."""

    def __init__(self, namespace, name, schema, fn):
        self._namespace, self._name, self._schema, self._init_fn = namespace, name, schema, fn
        self._backend_fns = {}  # device type (None: every device) -> kernel
        self._disabled_kernel = set()
        self._opoverload = registry.define(namespace, name + schema, replace=True)
        self._opoverload._custom = self
        if any(a.kwarg_only and a.type.is_tensor_like for a in self._opoverload._schema.arguments):
            raise NotImplementedError("custom_op with kwarg-only Tensor args. Please make your tensors not "
                                      f"kwarg-only. Got: {name}{schema}")

    @property
    def _qualname(self):
        return f"{self._namespace}::{self._name}"

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def register_kernel(self, device_types, fn=None, /):
        """A kernel for one device type or several ("cpu", "cuda"); usable as a decorator."""
        types = [device_types] if device_types is None or isinstance(device_types, str) else list(device_types)
        for t in types:
            if t is not None:
                registry.device_key(t)
        schema = self._opoverload._schema
        if device_types is not None and not any(a.type.is_tensor_like for a in schema.arguments) and not any(
                a.type.base == "Device" for a in schema.arguments):
            raise ValueError("Functions without tensor inputs are required to have a `device: torch.device` argument")

        def inner(fn):
            for t in types:
                self._backend_fns[t] = fn
            return fn

        return inner if fn is None else inner(fn)

    def register_fake(self, fn, /):
        """The op's behaviour on tensors whose data does not matter: outputs of the right shape, dtype and
        device. opcheck compares it with the real kernel's outputs."""
        self._opoverload._fake = fn
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """backward(ctx, *grads) -> one gradient per input; setup_context(ctx, inputs, output) saves what backward
        needs (with keyword_only_inputs too when the op has keyword-only arguments)."""
        check_functional(self._opoverload, self)
        self._opoverload._backward, self._opoverload._setup_context = backward, setup_context

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type, enabled=True):
        """Within the block, the kernel registered for device_type is off (the op's own function runs) or on."""
        action = "enable" if enabled else "disable"
        was_disabled = device_type in self._disabled_kernel
        if device_type not in self._backend_fns:
            log.warning("Attempted to %s kernel for %s but no kernel was registered for this device type.", action,
                        device_type)
        if enabled != was_disabled:
            log.warning("Attempted to %s kernel for %s but it was already %sd.", action, device_type, action)
        (self._disabled_kernel.discard if enabled else self._disabled_kernel.add)(device_type)
        try:
            yield
        finally:
            (self._disabled_kernel.add if was_disabled else self._disabled_kernel.discard)(device_type)

    def _run_kernel(self, device_type, args, kwargs):
        fn = self._backend_fns.get(device_type) or self._backend_fns.get(None)
        if fn is None:
            raise NotImplementedError(
                f"Could not run '{self._qualname}' with arguments from the '{registry.device_key(device_type)}' "
                f"backend. '{self._qualname}' has kernels for device types "
                f"{sorted(t for t in self._backend_fns if t is not None)} only.")
        if device_type in self._disabled_kernel:
            fn = self._init_fn
        result = fn(*args, **kwargs)
        self._check_no_aliasing(fn, args, kwargs, result)
        return result

    def _check_no_aliasing(self, fn, args, kwargs, result):
        """PyTorch's rule: an output is neither an input nor a view of one or of another output."""
        inputs = {p for v in (*args, *kwargs.values()) for _, p in _storages(v)}
        seen = set()
        for _, p in _storages(result):
            if p in inputs or p in seen:
                raise RuntimeError(
                    f"{self._name} (with implementation in {inspect.getmodule(fn)}): The output of this custom "
                    "operator (1) must not also be an input to this custom operator and (2) may not alias any inputs "
                    "to this custom operator or other returns. The most common way to trigger this error is if we "
                    "have y = custom_op(x) and y and x are the same Tensor. Please instead return a clone of the "
                    "offending output tensor(s) (e.g. return x.clone()) or refactor the custom operator to not "
                    "return y.")
            seen.add(p)


def check_functional(op, shown):
    if op._schema.is_mutable or op._schema.returns_alias:
        raise RuntimeError(f"Cannot register autograd formula for non-functional operator {shown} with schema "
                           f"{op._schema}. Please create a functional operator and register an autograd formula "
                           "for that.")


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wraps `fn` as the operator `name` ("namespace::name"); its schema comes from the type hints (or `schema`).
    Returns a CustomOpDef; without `fn`, a decorator that does so."""
    def inner(fn):
        schema_text = infer_schema(fn, mutates_args=mutates_args) if schema is None else schema
        namespace, opname = name.split("::")
        if schema is not None:
            parsed = parse_schema(opname + schema_text)
            if parsed.name != opname:  # a name in `schema` joins PyTorch's: the op is then not found
                raise AttributeError(f"'_OpNamespace' '{namespace}' object has no attribute '{opname}'")
            expected = set(parsed.mutated_arguments)
            if expected != set(mutates_args):
                raise ValueError(f"Attempted to create a custom op with `mutates_args={mutates_args}` and "
                                 f"`schema={schema}. The schema suggests that the op mutates {expected}which is "
                                 "different from what was provided to us in `mutates_args`. Please make these "
                                 "consistent.")
        result = CustomOpDef(namespace, opname, schema_text, fn)
        result.register_kernel(device_types)(fn)
        return result

    return inner if fn is None else inner(fn)
