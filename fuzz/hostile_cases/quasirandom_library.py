"""quasirandom.SobolEngine and torch.library misuse. SobolEngine: dimension 0, negative, past 21201, a float, a
string; draw(n) with n negative, zero, a float; fast_forward negative; draw_base2 off balance; dtype and out= of the
wrong kind; scramble with seeds of odd types. torch.library: custom_op with bad names, missing or wrong
mutates_args, missing or unsupported annotations, kernels that return the wrong type or alias an input, the same
name registered twice, register_kernel/register_fake/register_autograd misuse; Library kinds, bad schema strings,
definitions repeated or made in an IMPL library, bad dispatch keys.

Operators stay registered for the life of the process, and the worker runs a case several times, so every case
makes fresh names (`h8lib::op<k>`, namespaces `h8def<k>`); the counter is scrubbed from messages and results
(`op<k>` reads `opN`), so both libraries' runs compare."""
import itertools
import re

from . import Case, R

_counter = itertools.count()
_SCRUB = re.compile(r"(?<![A-Za-z])(op|h8def|h8impl)\d+")


def _scrub(value):
    if isinstance(value, str):
        return _SCRUB.sub(r"\1N", value)
    if isinstance(value, (list, tuple)):
        return type(value)(_scrub(v) for v in value)
    return value


def scrubbed(case):
    """case(L, d) with the fresh names' counters read as N in its result and in its exception's message."""
    def run(L, d):
        try:
            return _scrub(case(L, d))
        except Exception as e:  # noqa: BLE001 - re-raised with the same type
            message = _scrub(str(e))
            if message == str(e):
                raise
            try:
                replacement = type(e)(message)
            except Exception:  # noqa: BLE001 - an exception type with another constructor: keep the original
                raise e from None
            raise replacement from None
    return run


def fresh(prefix="op"):
    return f"{prefix}{next(_counter)}"


def op_name():
    return f"h8lib::{fresh()}"


# ---- SobolEngine
def sobol(L, *args, **kwargs):
    return L.quasirandom.SobolEngine(*args, **kwargs)


def draws(L, engine_args, *calls):
    """The results of the calls (method name, args, kwargs) made one after another on one engine."""
    engine = sobol(L, *engine_args[0], **engine_args[1])
    out = []
    for name, args, kwargs in calls:
        result = getattr(engine, name)(*args, **kwargs)
        out.append(result if not isinstance(result, L.quasirandom.SobolEngine) else engine.num_generated)
    return out


def plain(*args, **kwargs):
    return (args, kwargs)


def call(name, *args, **kwargs):
    return (name, args, kwargs)


# ---- custom_op
def custom(L, fn, name=None, **kwargs):
    return L.library.custom_op(name or op_name(), **kwargs)(fn)


def _annotated(L):
    def f(x: L.Tensor) -> L.Tensor:
        return x * 2
    return f


def _with_int(L):
    def f(x: L.Tensor, k: int = 2) -> L.Tensor:
        return x * k
    return f


def _mutating(L):
    def f(x: L.Tensor, y: L.Tensor) -> None:
        x.add_(y)
    return f


def _returns(L, make):
    def f(x: L.Tensor) -> L.Tensor:
        return make(x)
    return f


def _no_annotations(x):
    return x


def _dict_annotation(L):
    def f(x: L.Tensor, opts: dict) -> L.Tensor:
        return x
    return f


def _no_return_annotation(L):
    def f(x: L.Tensor):
        return x
    return f


def _kwarg_only_tensor(L):
    def f(x: L.Tensor, *, y: L.Tensor) -> L.Tensor:
        return x + y
    return f


def _no_tensors(L):
    def f(n: int) -> L.Tensor:
        return L.ones(n)
    return f


def run_op(L, d, fn, *call_args, mutates_args=(), **kwargs):
    op = custom(L, fn(L), mutates_args=mutates_args, **kwargs)
    return op(*[a(L, d) if callable(a) else a for a in call_args])


def x3(L, d):
    return R(L, (3,), d)


def registered_twice(L, d):
    name = op_name()
    custom(L, _annotated(L), name, mutates_args=())
    op = custom(L, _returns(L, lambda x: x * 3), name, mutates_args=())
    return op(x3(L, d))


def autograd_case(L, d, backward, setup_context=None, op_fn=_annotated, mutates_args=()):
    op = custom(L, op_fn(L), mutates_args=mutates_args)
    op.register_autograd(backward, setup_context=setup_context)
    x = x3(L, d).requires_grad_()
    op(x).sum().backward()
    return x.grad


def _saves_input(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def kernel_for(L, d, device_types, register_on=None):
    op = custom(L, _annotated(L), mutates_args=(), device_types=device_types)
    if register_on is not None:
        op.register_kernel(register_on)(lambda x: x * 5)
    return op(x3(L, d))


def fake_for(L, target):
    return L.library.register_fake(target(L), lambda x: x)


# ---- Library / define / impl
def library(L, kind, ns=None):
    return L.library.Library(ns or fresh("h8def"), kind)


def define(L, schema, kind="DEF"):
    return library(L, kind).define(schema)


def define_twice(L, d):
    lib = library(L, "DEF")
    lib.define("dup(Tensor x) -> Tensor")
    lib.define("dup(Tensor x) -> Tensor")


def def_twice_namespace(L, d):
    ns = fresh("h8def")
    a = L.library.Library(ns, "DEF")
    b = L.library.Library(ns, "DEF")
    return a, b


def def_after_first_collected(L, d):
    """A "DEF" Library's registrations last as long as the object: once it is collected the namespace is free."""
    ns = fresh("h8def")
    first = L.library.Library(ns, "DEF")
    first.define("f(Tensor x) -> Tensor")
    del first
    second = L.library.Library(ns, "DEF")
    second.define("f(Tensor x) -> Tensor")
    return second.kind


def define_and_impl(L, d, key, schema="f(Tensor x) -> Tensor", kernel=None, args=None):
    ns = fresh("h8def")
    lib = L.library.Library(ns, "DEF")
    lib.define(schema)
    lib.impl("f", kernel or (lambda x: x * 2), key)
    op = getattr(getattr(L.ops, ns), "f")
    return op(*(args or (x3(L, d),)))


def impl_undefined(L, d):
    ns = fresh("h8impl")
    lib = L.library.Library(ns, "IMPL")
    lib.impl("nothing", lambda x: x, "CPU")
    return getattr(getattr(L.ops, ns), "nothing")(x3(L, d))


def op_missing(L, d):
    return getattr(L.ops, fresh("h8def")).nothing


CASES = {
    # ---- SobolEngine: construction
    "sobol/dimension_zero": lambda L, d: sobol(L, 0),
    "sobol/dimension_negative": lambda L, d: sobol(L, -3),
    "sobol/dimension_past_max": lambda L, d: sobol(L, 21202),
    "sobol/dimension_huge": lambda L, d: sobol(L, 2**63),
    "sobol/dimension_float": lambda L, d: sobol(L, 2.0).draw(2),
    "sobol/dimension_string": lambda L, d: sobol(L, "3"),
    "sobol/dimension_none": lambda L, d: sobol(L, None),
    "sobol/dimension_bool": lambda L, d: sobol(L, True).draw(3),
    "sobol/dimension_tensor": lambda L, d: sobol(L, L.tensor(2)).draw(2),
    "sobol/seed_string": lambda L, d: sobol(L, 2, scramble=True, seed="7").draw(2).shape,
    "sobol/seed_float": lambda L, d: sobol(L, 2, scramble=True, seed=1.5).draw(2).shape,
    "sobol/seed_negative": lambda L, d: sobol(L, 2, scramble=True, seed=-1).draw(2).shape,
    "sobol/seed_huge": lambda L, d: sobol(L, 2, scramble=True, seed=2**70).draw(2).shape,
    "sobol/seed_unscrambled_ignored": lambda L, d: sobol(L, 2, seed="anything").draw(4),
    "sobol/scramble_string": lambda L, d: sobol(L, 2, scramble="yes", seed=3).draw(2).shape,
    "sobol/repr_scrambled": lambda L, d: repr(sobol(L, 3, scramble=True, seed=5)),
    "sobol/repr_plain": lambda L, d: repr(sobol(L, 3)),
    # ---- SobolEngine: drawing
    "sobol/draw_values": lambda L, d: sobol(L, 4).draw(8),
    "sobol/draw_zero": lambda L, d: draws(L, plain(3), call("draw", 0), call("draw", 2)),
    "sobol/draw_negative": lambda L, d: sobol(L, 3).draw(-1),
    "sobol/draw_negative_after_some": lambda L, d: draws(L, plain(3), call("draw", 2), call("draw", -1)),
    "sobol/draw_float": lambda L, d: sobol(L, 3).draw(2.0),
    "sobol/draw_string": lambda L, d: sobol(L, 3).draw("2"),
    "sobol/draw_none": lambda L, d: sobol(L, 3).draw(None),
    "sobol/draw_tensor_n": lambda L, d: sobol(L, 3).draw(L.tensor(3)),
    "sobol/draw_dtype_float32": lambda L, d: sobol(L, 3).draw(4, dtype=L.float32),
    "sobol/draw_dtype_float16": lambda L, d: sobol(L, 3).draw(4, dtype=L.float16),
    "sobol/draw_dtype_int64": lambda L, d: sobol(L, 3).draw(4, dtype=L.int64),
    "sobol/draw_dtype_bool": lambda L, d: sobol(L, 3).draw(4, dtype=L.bool),
    "sobol/draw_dtype_string": lambda L, d: sobol(L, 3).draw(4, dtype="float32"),
    "sobol/draw_out": lambda L, d: (lambda out: (sobol(L, 2).draw(3, out=out), out)[1])(L.zeros(3, 2,
                                                                                         dtype=L.float64)),
    "sobol/draw_out_wrong_shape": lambda L, d: (lambda out: (sobol(L, 2).draw(3, out=out), out)[1])(
        L.zeros(5, dtype=L.float64)),
    "sobol/draw_out_int": lambda L, d: (lambda out: (sobol(L, 2).draw(3, out=out), out)[1])(
        L.zeros(3, 2, dtype=L.int64)),
    "sobol/draw_out_device": lambda L, d: (lambda out: (sobol(L, 2).draw(3, out=out), out)[1])(
        L.zeros(3, 2, device=d)),
    "sobol/draw_out_list": lambda L, d: sobol(L, 2).draw(3, out=[0.0] * 6),
    "sobol/draw_then_continue": lambda L, d: draws(L, plain(2), call("draw", 3), call("draw", 5)),
    "sobol/draw_base2": lambda L, d: draws(L, plain(2), call("draw_base2", 2), call("draw_base2", 2)),
    "sobol/draw_base2_off_balance": lambda L, d: draws(L, plain(2), call("draw", 3), call("draw_base2", 2)),
    "sobol/draw_base2_negative": lambda L, d: sobol(L, 2).draw_base2(-1),
    "sobol/draw_base2_float": lambda L, d: sobol(L, 2).draw_base2(1.5),
    "sobol/draw_base2_zero": lambda L, d: sobol(L, 2).draw_base2(0),
    "sobol/fast_forward": lambda L, d: draws(L, plain(3), call("fast_forward", 5), call("draw", 2)),
    "sobol/fast_forward_zero": lambda L, d: draws(L, plain(3), call("fast_forward", 0), call("draw", 2)),
    "sobol/fast_forward_negative": lambda L, d: draws(L, plain(3), call("fast_forward", -2), call("draw", 2)),
    "sobol/fast_forward_negative_after": lambda L, d: draws(L, plain(3), call("draw", 4), call("fast_forward", -2),
                                                            call("draw", 2)),
    "sobol/fast_forward_float": lambda L, d: sobol(L, 3).fast_forward(2.5),
    "sobol/reset": lambda L, d: draws(L, plain(3), call("draw", 3), call("reset"), call("draw", 2)),
    "sobol/num_generated": lambda L, d: draws(L, plain(3), call("draw", 3), call("fast_forward", 4)),
    "sobol/scrambled_shape": lambda L, d: sobol(L, 5, scramble=True, seed=0).draw(7).shape,
    "sobol/scrambled_in_unit_cube": lambda L, d: bool(((lambda p: (p >= 0).all() & (p < 1).all())(
        sobol(L, 5, scramble=True, seed=0).draw(64)))),
    # ---- custom_op: names, mutates_args, annotations
    "custom_op/no_namespace": scrubbed(lambda L, d: custom(L, _annotated(L), "justname", mutates_args=())),
    "custom_op/two_separators": scrubbed(lambda L, d: custom(L, _annotated(L), "a::b::c", mutates_args=())),
    "custom_op/empty_name": scrubbed(lambda L, d: custom(L, _annotated(L), "h8lib::", mutates_args=())),
    "custom_op/mutates_args_missing": scrubbed(lambda L, d: L.library.custom_op(op_name())(_annotated(L))),
    "custom_op/mutates_args_unknown": scrubbed(lambda L, d: run_op(L, d, _annotated, x3, mutates_args="unknown")),
    "custom_op/mutates_args_other_string": scrubbed(lambda L, d: run_op(L, d, _annotated, x3, mutates_args="x")),
    "custom_op/mutates_args_missing_name": scrubbed(lambda L, d: run_op(L, d, _annotated, x3,
                                                                        mutates_args=("nothere",))),
    "custom_op/mutates_args_int_argument": scrubbed(lambda L, d: run_op(L, d, _with_int, x3, mutates_args=("k",))),
    "custom_op/mutates_args_list": scrubbed(lambda L, d: run_op(L, d, _mutating, x3, x3, mutates_args=["x"])),
    "custom_op/mutates_args_none": scrubbed(lambda L, d: run_op(L, d, _annotated, x3, mutates_args=None)),
    "custom_op/mutating_ok": scrubbed(lambda L, d: (lambda x: (run_op(L, d, _mutating, lambda L, d: x, x3,
                                                                      mutates_args=("x",)), x)[1])(x3(L, d))),
    "custom_op/mutating_undeclared": scrubbed(lambda L, d: run_op(L, d, _mutating, x3, x3)),
    "custom_op/no_annotations": scrubbed(lambda L, d: custom(L, _no_annotations, mutates_args=())),
    "custom_op/dict_annotation": scrubbed(lambda L, d: custom(L, _dict_annotation(L), mutates_args=())),
    "custom_op/no_return_annotation": scrubbed(lambda L, d: custom(L, _no_return_annotation(L), mutates_args=())),
    "custom_op/kwarg_only_tensor": scrubbed(lambda L, d: custom(L, _kwarg_only_tensor(L), mutates_args=())),
    "custom_op/not_callable": scrubbed(lambda L, d: L.library.custom_op(op_name(), mutates_args=())(5)),
    "custom_op/schema_mismatch": scrubbed(lambda L, d: L.library.custom_op(
        op_name(), mutates_args=(), schema="(Tensor(a!) x) -> ()")(_annotated(L))),
    "custom_op/schema_bad": scrubbed(lambda L, d: L.library.custom_op(
        op_name(), mutates_args=(), schema="(Tensor x -> Tensor")(_annotated(L))),
    "custom_op/registered_twice": scrubbed(registered_twice),
    # ---- custom_op: calls and kernels
    "custom_op/call_ok": scrubbed(lambda L, d: run_op(L, d, _annotated, x3)),
    "custom_op/call_with_float_for_tensor": scrubbed(lambda L, d: run_op(L, d, _annotated, 1.5)),
    "custom_op/call_with_list_for_tensor": scrubbed(lambda L, d: run_op(L, d, _annotated, [1.0, 2.0])),
    "custom_op/call_too_many": scrubbed(lambda L, d: run_op(L, d, _annotated, x3, x3)),
    "custom_op/call_missing": scrubbed(lambda L, d: run_op(L, d, _annotated)),
    "custom_op/call_float_for_int": scrubbed(lambda L, d: run_op(L, d, _with_int, x3, 2.5)),
    "custom_op/call_unknown_keyword": scrubbed(lambda L, d: custom(L, _annotated(L), mutates_args=())(
        x3(L, d), y=1)),
    "custom_op/kernel_returns_int": scrubbed(lambda L, d: run_op(L, d, lambda L: _returns(L, lambda x: 3), x3)),
    "custom_op/kernel_returns_tuple": scrubbed(lambda L, d: run_op(L, d, lambda L: _returns(L, lambda x: (x * 1,)),
                                                                   x3)),
    "custom_op/kernel_returns_none": scrubbed(lambda L, d: run_op(L, d, lambda L: _returns(L, lambda x: None), x3)),
    "custom_op/kernel_returns_input": scrubbed(lambda L, d: run_op(L, d, lambda L: _returns(L, lambda x: x), x3)),
    "custom_op/kernel_returns_view": scrubbed(lambda L, d: run_op(L, d, lambda L: _returns(L, lambda x: x[1:]),
                                                                  x3)),
    "custom_op/kernel_raises": scrubbed(lambda L, d: run_op(L, d, lambda L: _returns(L, lambda x: 1 / 0), x3)),
    "custom_op/device_types_cuda_only_on_cpu": scrubbed(lambda L, d: kernel_for(L, "cpu", "cuda")),
    "custom_op/device_types_bad": scrubbed(lambda L, d: kernel_for(L, d, "tpu")),
    "custom_op/register_kernel_bad_device": scrubbed(lambda L, d: kernel_for(L, d, None, "tpu")),
    "custom_op/register_kernel_cpu": scrubbed(lambda L, d: kernel_for(L, "cpu", None, "cpu")),
    "custom_op/register_kernel_no_tensor_args": scrubbed(lambda L, d: custom(
        L, _no_tensors(L), mutates_args=()).register_kernel("cpu")(lambda n: None)),
    "custom_op/register_kernel_list": scrubbed(lambda L, d: kernel_for(L, "cpu", None, ["cpu", "cuda"])),
    # ---- register_fake / register_autograd
    "register_fake/no_namespace": scrubbed(lambda L, d: fake_for(L, lambda L: "noname")),
    "register_fake/unknown_op": scrubbed(lambda L, d: fake_for(L, lambda L: op_name())),
    "register_fake/not_an_op": scrubbed(lambda L, d: fake_for(L, lambda L: 5)),
    # (the function's repr, with its address, is in the message: the type only)
    "register_fake/a_function": Case(scrubbed(lambda L, d: fake_for(L, lambda L: (lambda x: x))), "any-message"),
    "register_autograd/ok": scrubbed(lambda L, d: autograd_case(L, d, lambda ctx, g: g * 3)),
    "register_autograd/saves_input": scrubbed(lambda L, d: autograd_case(
        L, d, lambda ctx, g: g * ctx.saved_tensors[0], _saves_input)),
    "register_autograd/returns_two": scrubbed(lambda L, d: autograd_case(L, d, lambda ctx, g: (g, g))),
    "register_autograd/returns_wrong_shape": scrubbed(lambda L, d: autograd_case(L, d, lambda ctx, g: g[:1])),
    "register_autograd/returns_int": scrubbed(lambda L, d: autograd_case(L, d, lambda ctx, g: 3)),
    "register_autograd/returns_list": scrubbed(lambda L, d: autograd_case(L, d, lambda ctx, g: [g * 2])),
    "register_autograd/saved_without_setup": scrubbed(lambda L, d: autograd_case(
        L, d, lambda ctx, g: g * ctx.saved_tensors[0])),
    "register_autograd/mutating_op": scrubbed(lambda L, d: custom(L, _mutating(L), mutates_args=("x",))
                                              .register_autograd(lambda ctx, g: g)),
    "register_autograd/no_formula_backward": scrubbed(lambda L, d: (lambda x: run_op(
        L, d, _annotated, lambda L, d: x).sum().backward())(x3(L, d).requires_grad_())),
    "register_autograd/string_unknown": scrubbed(lambda L, d: L.library.register_autograd(
        op_name(), lambda ctx, g: g)),
    # ---- Library / define / impl
    "Library/bad_kind": scrubbed(lambda L, d: library(L, "BAD")),
    "Library/def_twice_namespace": scrubbed(def_twice_namespace),
    "Library/def_after_first_collected": scrubbed(def_after_first_collected),
    "Library/fragment_twice_ok": scrubbed(lambda L, d: (lambda ns: [repr(L.library.Library(ns, "FRAGMENT"))
                                                                    for _ in range(2)])(fresh("h8def"))),
    "define/ok": scrubbed(lambda L, d: define(L, "f(Tensor x) -> Tensor")),
    "define/missing_paren": scrubbed(lambda L, d: define(L, "f(Tensor x -> Tensor")),
    "define/unknown_type": scrubbed(lambda L, d: define(L, "f(Tenso x) -> Tensor")),
    "define/no_return": scrubbed(lambda L, d: define(L, "f(Tensor x) ->")),
    "define/no_arrow": scrubbed(lambda L, d: define(L, "f(Tensor x)")),
    "define/no_name": scrubbed(lambda L, d: define(L, "(Tensor x) -> Tensor")),
    "define/empty": scrubbed(lambda L, d: define(L, "")),
    "define/duplicate_argument": scrubbed(lambda L, d: define(L, "f(Tensor x, Tensor x) -> Tensor")),
    "define/bad_default": scrubbed(lambda L, d: define(L, "f(Tensor x, int k=abc) -> Tensor")),
    "define/overload_name": scrubbed(lambda L, d: define(L, "f.out(Tensor x) -> Tensor")),
    "define/in_impl_library": scrubbed(lambda L, d: define(L, "f(Tensor x) -> Tensor", "IMPL")),
    "define/twice": scrubbed(define_twice),
    "define/bad_alias_analysis": scrubbed(lambda L, d: library(L, "DEF").define("f(Tensor x) -> Tensor", "WRONG")),
    "define/function_form_no_namespace": scrubbed(lambda L, d: L.library.define("noname", "(Tensor x) -> Tensor")),
    "impl/ok_cpu": scrubbed(lambda L, d: define_and_impl(L, "cpu", "CPU")),
    "impl/composite_implicit": scrubbed(lambda L, d: define_and_impl(L, d, "CompositeImplicitAutograd")),
    "impl/bad_dispatch_key": scrubbed(lambda L, d: define_and_impl(L, d, "NotAKey")),
    "impl/cuda_key_called_on_cpu": scrubbed(lambda L, d: define_and_impl(L, "cpu", "CUDA")),
    "impl/undefined_op": scrubbed(impl_undefined),
    "impl/function_form_bad_device": scrubbed(lambda L, d: L.library.impl(op_name(), "tpu")(lambda x: x)),
    "impl/call_with_int_for_tensor": scrubbed(lambda L, d: define_and_impl(L, "cpu", "CPU", args=(3,))),
    "impl/kernel_wrong_arity": scrubbed(lambda L, d: define_and_impl(L, "cpu", "CPU", kernel=lambda: 1)),
    "ops/missing_op": scrubbed(op_missing),
}


KNOWN = {
    "sobol/dimension_float": "PyTorch's TypeError comes from its internal zeros(dimension, MAXBIT) call (\"zeros() "
                             "takes 1 positional argument but 2 were given\"); tandem's names the float",
    "sobol/dimension_bool": "PyTorch's TypeError comes from its internal zeros() call; tandem's says an integer is "
                            "required",
    "custom_op/dict_annotation": "tandem.Tensor's class is tandem._C.Tensor, so the listing of valid types and the "
                                 "signature read torch._C.Tensor where PyTorch's read torch.Tensor",
    "custom_op/mutates_args_int_argument": "the signature in the message shows tandem._C.Tensor (PyTorch's: "
                                           "torch.Tensor)",
    "custom_op/mutates_args_missing_name": "the signature in the message shows tandem._C.Tensor (PyTorch's: "
                                           "torch.Tensor)",
    "custom_op/no_return_annotation": "the signature in the message shows tandem._C.Tensor (PyTorch's: torch.Tensor)",
    "custom_op/kernel_returns_input": "the message names the kernel's module; PyTorch's names its own "
                                      "torch._library.custom_ops module",
    "custom_op/kernel_returns_view": "the message names the kernel's module; PyTorch's names its own "
                                     "torch._library.custom_ops module",
    "custom_op/not_callable": "tandem refuses a non-callable with inspect's TypeError; PyTorch's AttributeError comes "
                              "from reading its __globals__",
    "custom_op/device_types_cuda_only_on_cpu": "PyTorch's NotImplementedError goes on to list its dispatcher's keys "
                                               "(Meta, BackendSelect, Python, ...); tandem names the device types "
                                               "with kernels",
    "impl/cuda_key_called_on_cpu": "PyTorch's NotImplementedError lists its dispatcher's keys; tandem lists the "
                                   "keys with kernels",
    "custom_op/device_types_bad": "the device parser lists tandem's device types (cpu, cuda), PyTorch's all of its",
    "custom_op/register_kernel_bad_device": "the device parser lists tandem's device types, PyTorch's all of its",
    "impl/function_form_bad_device": "the device parser lists tandem's device types, PyTorch's all of its",
}
