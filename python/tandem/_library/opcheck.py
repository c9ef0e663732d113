"""opcheck: runs an operator and its registered parts on sample inputs and checks them against each other, as
PyTorch's torch.library.opcheck does: the schema's mutation claims, the autograd registration, the fake
implementation's output metadata, and the forward/backward through autograd."""
from .. import _C
from ..autograd.grad_mode import no_grad
from . import registry

ALL_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_static",
                  "test_aot_dispatch_dynamic")
DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


class OpCheckError(Exception):
    pass


def _copy(value):
    """Fresh tensors with the same values (leaves keeping requires_grad), so each test sees unchanged inputs."""
    if isinstance(value, _C.Tensor):
        return value.detach().clone().requires_grad_(value.requires_grad)
    if isinstance(value, (list, tuple)):
        return type(value)(_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def _flat(value):
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flat(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _flat(v)]
    return [value]


def _named_inputs(op, args, kwargs):
    positional = [a for a in op._schema.arguments if not a.kwarg_only]
    return [*zip(positional, args), *((a, kwargs[a.name]) for a in op._schema.arguments if a.name in kwargs)]


def _same(a, b):
    return a.shape == b.shape and bool(((a == b) | ((a != a) & (b != b))).all())


def check_schema(op, args, kwargs):
    """Inputs the schema does not mark as mutable keep their values."""
    before = [(a, _copy(v)) for a, v in _named_inputs(op, args, kwargs)]
    with no_grad():
        op(*args, **kwargs)
    for (a, old), (_, new) in zip(before, _named_inputs(op, args, kwargs)):
        if a.type.is_write:
            continue
        olds, news = _flat(old), _flat(new)
        if any(isinstance(o, _C.Tensor) and not _same(o, n) for o, n in zip(olds, news)):
            raise RuntimeError(f"Argument {a.name} is not defined as mutable but was mutated")


def _has_autograd(op):
    return op._custom is not None or op._backward is not None or "CompositeImplicitAutograd" in op._kernels


def check_autograd_registration(op, args, kwargs):
    """An op whose inputs require grad either has autograd registered or gives outputs that do not require grad
    (outputs requiring grad without a registration come from autograd inside a backend kernel)."""
    tensors = [t for t in _flat([args, kwargs]) if isinstance(t, _C.Tensor)]
    if not any(t.requires_grad for t in tensors) or _has_autograd(op):
        return
    out = op(*args, **kwargs)
    if any(isinstance(o, _C.Tensor) and o.requires_grad and not any(o is t for t in tensors) for o in _flat(out)):
        raise AssertionError(
            f"{op.name()}: at least one output of this operator has requires_grad=True but the operator does not "
            "have an autograd kernel defined at an autograd key (e.g. DispatchKey::Autograd). This could mean that "
            "you have incorrectly registered an autograd kernel to a non-Autograd DispatchKey, which may lead to "
            "silently incorrect results. If your operator consists of regular PyTorch operations, consider not using "
            "an operator at all or registering your operator as CompositeImplicitAutograd. If you have an "
            "autograd.Function registered to a backend (CPU/CUDA/XPU) key, the correct location for it is the "
            "Autograd key.")


def _fake_impl(op):
    if op._fake is not None or "CompositeImplicitAutograd" in op._kernels:
        return op._fake or op._kernels["CompositeImplicitAutograd"]
    if not op._schema.returns:  # an op that returns nothing needs no fake implementation
        return lambda *a, **k: None
    if op._custom is not None:
        raise RuntimeError(f"There was no fake impl registered for {op._custom}. This is necessary for "
                           "torch.compile/export/fx tracing to work. Please use "
                           f"`{op._custom._init_fn.__name__}.register_fake` to add an fake impl.")
    raise NotImplementedError(f"{op._packet._qualified_op_name}: attempted to run this operator with Meta tensors, "
                              "but there was no fake impl or Meta kernel registered.")


def check_fake(op, args, kwargs):
    """The fake implementation, run on copies of the inputs, gives outputs with the real outputs' structure,
    shapes, dtypes, devices and strides. (tandem has no fake tensors: the fake implementation gets real ones.)"""
    fake = _fake_impl(op)
    with no_grad():
        real = op(*args, **kwargs)
        faked = fake(*_copy(args), **_copy(kwargs))
    reals, fakes = _flat(real), _flat(faked)
    if len(reals) != len(fakes) or type(real) is not type(faked) and isinstance(real, _C.Tensor):
        raise RuntimeError(f"When comparing the output of {op} on FakeTensor and concrete Tensors, the outputs "
                           f"differ in structure: {_describe(faked)} (fake) vs {_describe(real)} (real)")
    for r, f in zip(reals, fakes):
        if not isinstance(r, _C.Tensor):
            continue
        for what, a, b in (("Shapes", r.shape, f.shape), ("Dtypes", r.dtype, f.dtype),
                           ("Devices", r.device, f.device), ("Strides", r.stride(), f.stride())):
            if a != b:
                raise RuntimeError(f"When comparing the output of {op} on FakeTensor and concrete Tensors, found "
                                   f"mismatched tensor metadata: {what} {a} and {b} are not equal!")


def _describe(value):
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__} of {len(value)}"
    return type(value).__name__


def check_autograd_run(op, args, kwargs, rtol=None, atol=None):
    """What PyTorch checks by compiling the op with AOTAutograd, checked eagerly: the outputs with autograd on
    equal those with it off, and backward (when an input requires grad) gives each input a gradient of its own
    shape, dtype and device."""
    from ..testing import assert_close  # noqa: PLC0415  (tandem.testing imports tandem)

    with no_grad():
        expected = op(*_copy(args), **_copy(kwargs))
    args, kwargs = _copy(args), _copy(kwargs)
    out = op(*args, **kwargs)
    for a, b in zip(_flat(out), _flat(expected)):
        if isinstance(a, _C.Tensor):
            assert_close(a.detach(), b, rtol=rtol, atol=atol, equal_nan=True)
    inputs = [t for t in _flat([args, kwargs]) if isinstance(t, _C.Tensor) and t.requires_grad]
    outs = [o for o in _flat(out) if isinstance(o, _C.Tensor) and o.requires_grad]
    if not inputs or not outs:
        return
    from ..autograd import grad  # noqa: PLC0415

    grads = grad(outs, inputs, [_C.ones_like(o) for o in outs], allow_unused=True)
    for i, (t, g) in enumerate(zip(inputs, grads)):
        if g is not None and (g.shape != t.shape or g.dtype != t.dtype or g.device != t.device):
            raise RuntimeError(f"The backward of {op} gave input {i} a gradient of shape {list(g.shape)}, dtype "
                               f"{g.dtype}, device {g.device}, but the input has shape {list(t.shape)}, dtype "
                               f"{t.dtype}, device {t.device}")


_TESTERS = {"test_schema": check_schema, "test_autograd_registration": check_autograd_registration,
            "test_faketensor": check_fake, "test_aot_dispatch_static": check_autograd_run,
            "test_aot_dispatch_dynamic": check_autograd_run}


def opcheck(op, args, kwargs=None, *, test_utils=DEFAULT_TEST_UTILS, raise_exception=True, rtol=None, atol=None):
    """Checks that a custom op's registrations agree; returns {test name: "SUCCESS" or the exception} or, with
    raise_exception, raises OpCheckError at the first failure."""
    from .custom_op import CustomOpDef  # noqa: PLC0415

    if (rtol is None) != (atol is None):
        raise ValueError("opcheck(op, ...): if you specify one of rtol/atol, you must specify both")
    kwargs = {} if kwargs is None else kwargs
    if isinstance(op, CustomOpDef):
        op = op._opoverload
    if isinstance(op, registry.OpOverloadPacket):
        op = op._resolve()
    if not isinstance(op, registry.OpOverload):
        raise ValueError("opcheck(op, ...): op must be instance of torch._ops.OpOverload, e.g. "
                         f"torch.ops.aten.sin.default, got {type(op)}")
    if test_utils == "ALL":
        test_utils = ALL_TEST_UTILS
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not isinstance(test_utils, (tuple, list)) or not set(test_utils) <= set(ALL_TEST_UTILS):
        raise ValueError(f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be subset of "
                         f"{ALL_TEST_UTILS} but it was not")
    results = {}
    for name in test_utils:
        try:
            tester = _TESTERS[name]
            if tester is check_autograd_run:
                tester(op, _copy(args), _copy(kwargs), rtol=rtol, atol=atol)
            else:
                tester(op, _copy(args), _copy(kwargs))
            results[name] = "SUCCESS"
        except Exception as ex:  # noqa: BLE001  (each test's failure is reported, whatever it is)
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {ex} (scroll up for stack trace)") from ex
            results[name] = ex
    return results
