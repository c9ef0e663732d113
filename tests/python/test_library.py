"""tandem.library (PyTorch's custom-operator API) and tandem.cond/while_loop, against PyTorch 2.15 (the oracle):
the tutorials' crop and numpy_sin ops on every device, gradients, opcheck, the older Library API, and the exact
errors for bad registrations, schemas and calls."""
import itertools
from typing import Optional, Sequence

import numpy as np
import pytest
import torch

import tandem
from tandem import Tensor
from oracle import to_torch

_ids = itertools.count()


def fresh(name):
    """A new op name per test (op names are global, as in PyTorch)."""
    return f"tlib::{name}_{next(_ids)}"


def make_numpy_sin(device_types=None):
    @tandem.library.custom_op(fresh("numpy_sin"), mutates_args=(), device_types=device_types)
    def numpy_sin(x: Tensor) -> Tensor:
        return tandem.from_numpy(np.sin(x.cpu().numpy())).to(x.device)

    @numpy_sin.register_fake
    def _(x):
        return tandem.empty_like(x)

    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()

    numpy_sin.register_autograd(backward, setup_context=setup_context)
    return numpy_sin


def make_crop():
    @tandem.library.custom_op(fresh("crop"), mutates_args=())
    def crop(pic: Tensor, box: Sequence[int]) -> Tensor:
        x0, y0, x1, y1 = box
        return tandem.from_numpy(np.ascontiguousarray(pic.cpu().numpy()[..., y0:y1, x0:x1])).to(pic.device)

    @crop.register_fake
    def _(pic, box):
        x0, y0, x1, y1 = box
        return pic.new_empty(*pic.shape[:-2], y1 - y0, x1 - x0)

    def setup_context(ctx, inputs, output):
        ctx.pic_shape = inputs[0].shape
        ctx.box = inputs[1]

    def backward(ctx, grad_output):
        x0, y0, x1, y1 = ctx.box
        grad = grad_output.new_zeros(ctx.pic_shape)
        grad[..., y0:y1, x0:x1] = grad_output
        return grad, None

    crop.register_autograd(backward, setup_context=setup_context)
    return crop


def test_numpy_sin_values_and_gradients(device):
    numpy_sin = make_numpy_sin()
    data = np.random.default_rng(0).standard_normal((3, 4))
    x = tandem.tensor(data, device=device, requires_grad=True)
    y = numpy_sin(x)
    assert y.device == x.device and y.dtype == tandem.float64
    y.sum().backward()
    tx = torch.tensor(data, requires_grad=True)
    tx.sin().sum().backward()
    np.testing.assert_allclose(to_torch(y.detach()).numpy(), tx.sin().detach().numpy())
    np.testing.assert_allclose(to_torch(x.grad).numpy(), tx.grad.numpy())
    assert y.grad_fn.name().startswith("GeneratedBackwardFor_tlib_numpy_sin")


def test_ops_namespace_resolves_the_op(device):
    numpy_sin = make_numpy_sin()
    ns, name = numpy_sin._qualname.split("::")
    packet = getattr(getattr(tandem.ops, ns), name)
    x = tandem.ones(3, device=device)
    assert tandem.equal(packet(x), numpy_sin(x)) and tandem.equal(packet.default(x), numpy_sin(x))
    assert repr(packet) == f"<OpOverloadPacket(op='{ns}.{name}')>"
    assert repr(packet.default) == f"<OpOverload(op='{ns}.{name}', overload='default')>"
    assert str(packet.default._schema) == f"{ns}::{name}(Tensor x) -> Tensor"
    assert repr(numpy_sin) == f"<CustomOpDef({ns}::{name})>"
    with pytest.raises(AttributeError, match=f"'_OpNamespace' '{ns}' object has no attribute 'nope'"):
        getattr(tandem.ops, ns).nope
    with pytest.raises(AttributeError, match=f"The underlying op of '{ns}.{name}' has no overload name 'foo'"):
        packet.foo
    with pytest.raises(NotImplementedError, match="tandem cannot load PyTorch C\\+\\+ extension libraries"):
        tandem.ops.load_library("extension_cpp.so")


def test_crop_matches_pytorch_and_opcheck_passes(device):
    crop = make_crop()
    data = np.random.default_rng(1).standard_normal((3, 8, 8)).astype(np.float32)
    pic = tandem.tensor(data, device=device, requires_grad=True)
    out = crop(pic, (1, 2, 5, 7))
    assert out.shape == (3, 5, 4) and out.dtype == tandem.float32 and out.device == pic.device
    (out * 2).sum().backward()
    tpic = torch.tensor(data, requires_grad=True)
    (tpic[..., 2:7, 1:5] * 2).sum().backward()
    np.testing.assert_array_equal(to_torch(out.detach()).numpy(), tpic[..., 2:7, 1:5].detach().numpy())
    np.testing.assert_array_equal(to_torch(pic.grad).numpy(), tpic.grad.numpy())
    result = tandem.library.opcheck(crop, (pic.detach().requires_grad_(), (0, 0, 2, 2)))
    assert result == {"test_schema": "SUCCESS", "test_autograd_registration": "SUCCESS", "test_faketensor": "SUCCESS",
                      "test_aot_dispatch_dynamic": "SUCCESS"}


def test_register_kernel_chooses_by_device(device):
    @tandem.library.custom_op(fresh("k"), mutates_args=())
    def k(x: Tensor) -> Tensor:
        return x + 1

    k.register_kernel("cuda")(lambda x: x + 2)
    x = tandem.zeros(2, device=device)
    expected = 2.0 if x.device.type == "cuda" else 1.0
    assert k(x).tolist() == [expected, expected]
    with k.set_kernel_enabled("cuda", enabled=False):
        assert k(x).tolist() == [1.0, 1.0]
    assert k(x).tolist() == [expected, expected]


def test_device_types_limits_the_kernel():
    @tandem.library.custom_op(fresh("only_cpu"), mutates_args=(), device_types="cpu")
    def only_cpu(x: Tensor) -> Tensor:
        return x.sin()

    assert only_cpu(tandem.zeros(1)).tolist() == [0.0]
    if tandem.cuda.is_available():  # real or emulated
        with pytest.raises(NotImplementedError, match="Could not run 'tlib::only_cpu_[0-9]+' with arguments from "
                                                      "the 'CUDA' backend"):
            only_cpu(tandem.zeros(1, device="cuda:0"))
    with pytest.raises(RuntimeError, match="^Expected one of cpu, cuda, ipu, .*, "
                                           "privateuseone device type at start of device string: tpu"):
        only_cpu.register_kernel("tpu")


def test_no_autograd_formula_raises_at_backward():
    @tandem.library.custom_op(fresh("nograd"), mutates_args=())
    def nograd(x: Tensor) -> Tensor:
        return x * 2

    y = nograd(tandem.ones(2, requires_grad=True))
    assert y.requires_grad
    with pytest.raises(RuntimeError, match=r"Trying to backward through tlib\.nograd_[0-9]+\.default but no autograd "
                                           "formula was registered. Please use register_autograd to add one."):
        y.sum().backward()


def test_keyword_only_and_tensor_list_gradients():
    @tandem.library.custom_op(fresh("weighted_sum"), mutates_args=())
    def weighted_sum(xs: list[Tensor], w: list[float], *, scale: float = 1.0) -> Tensor:
        return sum(x * wi for x, wi in zip(xs, w)) * scale

    seen = {}

    def setup_context(ctx, inputs, keyword_only_inputs, output):
        ctx.w, ctx.scale = inputs[1], keyword_only_inputs["scale"]

    def backward(ctx, grad):
        seen["needs"] = ctx.needs_input_grad
        return [grad * wi * ctx.scale for wi in ctx.w], None

    weighted_sum.register_autograd(backward, setup_context=setup_context)
    a, b = tandem.ones(2, requires_grad=True), tandem.ones(2, requires_grad=True)
    weighted_sum([a, b], [0.25, 0.75], scale=2.0).sum().backward()
    assert a.grad.tolist() == [0.5, 0.5] and b.grad.tolist() == [1.5, 1.5]
    assert seen["needs"] == ([True, True], False)


def test_backward_gradient_count_errors():
    @tandem.library.custom_op(fresh("kw"), mutates_args=())
    def kw(x: Tensor, y: float = 2.0) -> Tensor:
        return x * y

    x = tandem.ones(2, requires_grad=True)
    kw.register_autograd(lambda ctx, g: g)  # y left at its default is not an input: one gradient is enough
    assert tandem.autograd.grad(kw(x, 2.0).sum(), x)[0].tolist() == [1.0, 1.0]
    kw.register_autograd(lambda ctx, g: (g, None, None))
    with pytest.raises(RuntimeError, match=r"returned an incorrect number of gradients \(expected 1 or 2, got 3\)"):
        kw(x).sum().backward()
    kw.register_autograd(lambda ctx, g: (g, 1.0))
    with pytest.raises(RuntimeError, match="returned a non-None gradient for an input that was not passed"):
        kw(x).sum().backward()


def test_non_tensor_outputs_pass_through():
    @tandem.library.custom_op(fresh("two"), mutates_args=())
    def two(x: Tensor, n: int) -> tuple[Tensor, int]:
        return x.clone(), n

    two.register_autograd(lambda ctx, g, gn: (g * 3, None))
    x = tandem.ones(2, requires_grad=True)
    y, n = two(x, 3)
    assert n == 3
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_aliasing_outputs_are_refused():
    @tandem.library.custom_op(fresh("alias"), mutates_args=())
    def alias(x: Tensor) -> Tensor:
        return x.view(-1)

    with pytest.raises(RuntimeError, match=r"\(with implementation in .*\): The output of this custom operator \(1\) "
                                           "must not also be an input to this custom operator"):
        alias(tandem.ones(2))


def _f(x: Tensor, box: Sequence[int]) -> Tensor:
    return x.clone()


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(mutates_args="x"), ValueError, "mutates_args must either be a sequence of the names of the arguments that "
                                         "are mutated or the string 'unknown'. "),
    (dict(mutates_args=("y",)), ValueError, "infer_schema(func): {'y'} in mutates_args were not found in the custom "
                                            "op's signature."),
    (dict(mutates_args=("box",)), ValueError, "infer_schema(func): Parameter box is in mutable_args but only Tensors "
                                              "or collections of Tensors can be mutated"),
    (dict(mutates_args=(), schema="(Tensor(a!) x, SymInt[] box) -> Tensor"), ValueError,
     "Attempted to create a custom op with `mutates_args=()` and `schema=(Tensor(a!) x, SymInt[] box) -> Tensor. "
     "The schema suggests that the op mutates {'x'}which is different"),
    (dict(mutates_args=(), schema="(Tensor x -> Tensor"), RuntimeError, "expected ) but found 'arrow' here:"),
    (dict(mutates_args=(), schema="(Foo x) -> Tensor"), RuntimeError, "unknown type specifier."),
])
def test_bad_registrations(kwargs, error, message):
    with pytest.raises(error) as info:
        tandem.library.custom_op(fresh("bad"), **kwargs)(_f)
    assert message in str(info.value)
    with pytest.raises(error) as info:  # PyTorch raises the same type, with the same message
        torch.library.custom_op(fresh("bad"), **kwargs)(_torch_f)
    assert message in str(info.value)


def _torch_f(x: torch.Tensor, box: Sequence[int]) -> torch.Tensor:
    return x.clone()


def test_bad_names_and_missing_mutates_args():
    with pytest.raises(ValueError, match=r"not enough values to unpack \(expected 2, got 1\)"):
        tandem.library.custom_op("crop", mutates_args=())(_f)
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'mutates_args'"):
        tandem.library.custom_op("tlib::x")(_f)
    with pytest.raises(ValueError, match='Expected `qualname` to be of the form "namespace::name", but got foo.'):
        tandem.library.define("foo", "(Tensor x) -> Tensor")


def test_infer_schema_matches_pytorch():
    def t(x: Tensor, s: float = 1.5, n: int = 2, b: bool = True, st: str = "a", dt: tandem.dtype = tandem.float32,
          o: Optional[Tensor] = None, ys: Optional[list[int]] = None) -> tuple[Tensor, int]:
        pass

    def p(x: torch.Tensor, s: float = 1.5, n: int = 2, b: bool = True, st: str = "a", dt: torch.dtype = torch.float32,
          o: Optional[torch.Tensor] = None, ys: Optional[list[int]] = None) -> tuple[torch.Tensor, int]:
        pass

    for mutates in ((), "unknown", ("x", "o")):
        assert tandem.library.infer_schema(t, mutates_args=mutates) == torch.library.infer_schema(
            p, mutates_args=mutates)
    assert tandem.library.infer_schema(t, mutates_args=(), op_name="zz").startswith("zz(Tensor x,")

    def tup(x: Tensor, box: tuple[int, int]) -> Tensor:
        pass

    with pytest.raises(ValueError, match=r"Parameter box has unsupported type tuple\[int, int\]. We do not support "
                                         r"Tuple inputs in schema. .* For example, list\[int\]."):
        tandem.library.infer_schema(tup, mutates_args=())

    def noann(x, box: int) -> Tensor:
        pass

    with pytest.raises(ValueError, match="Parameter x must have a type annotation."):
        tandem.library.infer_schema(noann, mutates_args=())

    def noret(x: Tensor):
        pass

    with pytest.raises(ValueError, match="No return type annotation was provided. Please add one."):
        tandem.library.infer_schema(noret, mutates_args=())

    def kwtensor(x: Tensor, *, y: Tensor) -> Tensor:
        pass

    with pytest.raises(NotImplementedError, match="custom_op with kwarg-only Tensor args. Please make your tensors "
                                                  r"not kwarg-only. Got: kwt_[0-9]+\(Tensor x, \*, Tensor y\)"):
        tandem.library.custom_op(f"tlib::kwt_{next(_ids)}", mutates_args=())(kwtensor)


def test_call_argument_errors():
    @tandem.library.custom_op(fresh("cr"), mutates_args=())
    def cr(x: Tensor, box: Sequence[int], s: float = 1.0) -> Tensor:
        return x.clone()

    decl = r"Declaration: tlib::cr_[0-9]+\(Tensor x, SymInt\[\] box, float s=1\.\) -> Tensor"
    with pytest.raises(RuntimeError, match=r"cr_[0-9]+\(\) Expected a value of type 'List\[int\]' for argument 'box' "
                                           r"but instead found type 'str'.\nPosition: 1\nValue: 'ab'\n" + decl):
        cr(tandem.ones(1), "ab")
    with pytest.raises(RuntimeError, match=r"is missing value for argument 'box'. " + decl):
        cr(tandem.ones(1))
    with pytest.raises(RuntimeError, match=r"expected at most 3 argument\(s\) but received 4 argument\(s\)"):
        cr(tandem.ones(1), [1], 1.0, 2)
    assert cr(tandem.ones(1), [1], 2).tolist() == [1.0]  # an int for a float


def test_register_autograd_refuses_mutable_ops():
    @tandem.library.custom_op(fresh("inplace"), mutates_args=("x",))
    def inplace(x: Tensor) -> None:
        x.numpy()[:] = np.sin(x.numpy())

    x = tandem.ones(2)
    inplace(x)
    assert np.allclose(x.numpy(), np.sin(1.0))
    with pytest.raises(RuntimeError, match=r"Cannot register autograd formula for non-functional operator "
                                           r"<CustomOpDef\(tlib::inplace_[0-9]+\)> with schema "
                                           r"tlib::inplace_[0-9]+\(Tensor\(a0!\) x\) -> \(\)"):
        inplace.register_autograd(lambda ctx, g: g)
    assert tandem.library.opcheck(inplace, (tandem.ones(2),))["test_schema"] == "SUCCESS"


def test_mutated_arguments_count_as_modified_in_place():
    @tandem.library.custom_op(fresh("fill"), mutates_args=("x",))
    def fill(x: Tensor) -> None:
        x.numpy()[:] = 5

    y = tandem.ones(2, requires_grad=True).clone()
    z = (y * y).sum()  # saves y
    with tandem.no_grad():
        fill(y)
    assert y.tolist() == [5.0, 5.0]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_module_level_registration_by_name(device):
    name = fresh("modlevel")

    @tandem.library.custom_op(name, mutates_args=())
    def op(x: Tensor) -> Tensor:
        return x * 2

    tandem.library.register_kernel(name, "cuda", lambda x: x * 3)
    tandem.library.register_fake(name, lambda x: tandem.empty_like(x))
    tandem.library.register_autograd(name, lambda ctx, g: g * 10)
    x = tandem.ones(1, device=device, requires_grad=True)
    y = op(x)
    assert y.item() == (3.0 if device.startswith("cuda") else 2.0)
    y.backward()
    assert x.grad.item() == 10.0
    with pytest.warns(FutureWarning, match="`torch.library.impl_abstract` was renamed to `torch.library"):
        tandem.library.impl_abstract(name, lambda x: tandem.empty_like(x))
    with pytest.raises(RuntimeError, match="operator tlib::missing does not exist"):
        tandem.library.register_fake("tlib::missing", lambda x: x)
    with pytest.raises(AttributeError, match="'_OpNamespace' 'tlib' object has no attribute 'missing'"):
        tandem.library.register_autograd("tlib::missing", lambda ctx, g: g)


def test_opcheck_reports_failures():
    @tandem.library.custom_op(fresh("s"), mutates_args=())
    def s(x: Tensor) -> Tensor:
        return x.sin()

    x = tandem.ones(3)
    with pytest.raises(tandem.library.OpCheckError, match=r"opcheck\(op, ...\): test_faketensor failed with There "
                                                          r"was no fake impl registered for <CustomOpDef"):
        tandem.library.opcheck(s, (x,))
    result = tandem.library.opcheck(s, (x,), raise_exception=False)
    assert result["test_schema"] == "SUCCESS" and isinstance(result["test_faketensor"], RuntimeError)
    s.register_fake(lambda x: tandem.empty(2, dtype=x.dtype))
    with pytest.raises(tandem.library.OpCheckError, match="found mismatched tensor metadata: Shapes"):
        tandem.library.opcheck(s, (x,), test_utils="test_faketensor")
    s.register_fake(lambda x: tandem.empty_like(x))
    s.register_autograd(lambda ctx, g: g[:2])
    with pytest.raises(tandem.library.OpCheckError, match="test_aot_dispatch_dynamic failed"):
        tandem.library.opcheck(s, (tandem.ones(3, requires_grad=True),))

    @tandem.library.custom_op(fresh("mut"), mutates_args=())
    def mut(x: Tensor) -> None:
        x.numpy()[:] = 1

    with pytest.raises(tandem.library.OpCheckError, match="test_schema failed with Argument x is not defined as "
                                                          "mutable but was mutated"):
        tandem.library.opcheck(mut, (tandem.zeros(3),))
    with pytest.raises(ValueError, match="if you specify one of rtol/atol, you must specify both"):
        tandem.library.opcheck(mut, (x,), rtol=1.0)
    with pytest.raises(ValueError, match="expected test_utils to be subset of"):
        tandem.library.opcheck(mut, (x,), test_utils=("x",))
    with pytest.raises(ValueError, match="op must be instance of torch._ops.OpOverload"):
        tandem.library.opcheck(lambda x: x, (x,))


def test_library_define_and_impl(device):
    ns = f"tliblib{next(_ids)}"
    lib = tandem.library.Library(ns, "DEF")
    assert lib.define("mysin(Tensor x, float s=2.) -> Tensor") == "mysin"
    with pytest.raises(RuntimeError, match="with the same name and overload name multiple times"):
        lib.define("mysin(Tensor x, float s=2.) -> Tensor")
    op = getattr(tandem.ops, ns).mysin
    with pytest.raises(NotImplementedError, match=f"Could not run '{ns}::mysin' with arguments from the 'CPU' "
                                                  "backend"):
        op(tandem.ones(1))
    lib.impl("mysin", lambda x, s=2.0: x.sin() * s, "CPU")
    lib.impl("mysin", lambda x, s=2.0: x.sin() * s * 10, "CUDA")
    x = tandem.ones(1, device=device, requires_grad=True)
    y = op(x, 3.0)
    expected = np.sin(1.0) * 3 * (10 if device.startswith("cuda") else 1)
    assert np.isclose(y.item(), expected)
    y.backward()  # no autograd registration: gradients come from the kernel's own tandem ops
    assert np.isclose(x.grad.item(), expected / np.sin(1.0) * np.cos(1.0))
    with pytest.raises(tandem.library.OpCheckError, match="at least one output of this operator has requires_grad"):
        tandem.library.opcheck(op.default, (tandem.ones(1, requires_grad=True),),
                               test_utils="test_autograd_registration")
    frag = tandem.library.Library(ns, "FRAGMENT")
    frag.define("mycos(Tensor x) -> Tensor")
    frag.impl("mycos", lambda x: x.cos(), "CompositeImplicitAutograd")
    assert tandem.library.opcheck(getattr(tandem.ops, ns).mycos, (tandem.ones(1, requires_grad=True),))[
        "test_autograd_registration"] == "SUCCESS"
    with pytest.raises(RuntimeError, match=f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}"):
        tandem.library.Library(ns, "DEF")
    with pytest.raises(ValueError, match="Unsupported kind: BLAH"):
        tandem.library.Library(ns, "BLAH")
    with pytest.raises(RuntimeError, match="could not parse dispatch key: Foo"):
        frag.impl("mycos", lambda x: x, "Foo")
    impl_lib = tandem.library.Library(ns, "IMPL", "CPU")
    with pytest.raises(RuntimeError, match="Cannot define an operator inside of a TORCH_LIBRARY_IMPL block"):
        impl_lib.define("other(Tensor x) -> Tensor")
    impl_lib.impl("later", lambda x: x * 5)  # an impl may come before its definition
    frag.define("later(Tensor x) -> Tensor")
    assert getattr(tandem.ops, ns).later(tandem.ones(1)).item() == 5.0
    tandem.library.define(f"{ns}::plus", "(Tensor x) -> Tensor")
    tandem.library.impl(f"{ns}::plus", ["cpu", "cuda"], lambda x: x + 1)
    assert getattr(tandem.ops, ns).plus(tandem.zeros(1, device=device)).item() == 1.0


def test_cond_eager(device):
    x = tandem.ones(2, device=device, requires_grad=True)
    out = tandem.cond(tandem.tensor(True, device=device), lambda x: (x * x).sum(), lambda x: x.sum(), (x,))
    (g,) = tandem.autograd.grad(out, [x])
    assert g.tolist() == [2.0, 2.0]
    assert tandem.cond(False, lambda x: x + 1, lambda x: x - 1, [x]).tolist() == [0.0, 0.0]
    cases = [((tandem.tensor([True, False]), lambda x: x, lambda x: x, (x,)),
              "Expected pred to be bool or single-element tensor, but got"),
             (("a", lambda x: x, lambda x: x, (x,)), "Expected pred to be bool or tensor, but got a."),
             ((tandem.tensor(True), 1, lambda x: x, (x,)), "Expect both branches to be callable."),
             ((tandem.tensor(True), lambda x, n: x, lambda x, n: x, (x, 3)),
              "Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of tensor leaves")]
    for args, message in cases:
        with pytest.raises(RuntimeError, match=message.replace("(", r"\(")):
            tandem.cond(*args)
        with pytest.raises(RuntimeError, match=message.replace("(", r"\(")):
            torch.cond(*[to_torch(a) if isinstance(a, tandem.Tensor) else
                         tuple(to_torch(v.detach()) if isinstance(v, tandem.Tensor) else v for v in a)
                         if isinstance(a, tuple) else a for a in args])


def test_while_loop_eager(device):
    x = tandem.ones(2, device=device, requires_grad=True)
    i, y = tandem.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (tandem.tensor(0, device=device), x))
    assert i.item() == 3 and y.tolist() == [8.0, 8.0]
    y.sum().backward()
    assert x.grad.tolist() == [8.0, 8.0]
    n, z = tandem.while_loop(lambda n, x: n < 2, lambda n, x: (n + 1, x + n), (0, tandem.zeros(1, device=device)))
    assert n == 2 and z.item() == 1.0
    (same,) = tandem.while_loop(lambda x: x.sum() > 10, lambda x: (x * 2,), (x,))
    assert same is not x and same.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="Expect cond_fn and body_fn to be callable."):
        tandem.while_loop(1, lambda x: (x,), (x,))
    with pytest.raises(AssertionError, match="can only be of"):
        tandem.while_loop(lambda x: x < 10, lambda x: (x * 2,), (1.5,))
    with pytest.raises(RuntimeError, match="cond_fn must return a boolean scalar tensor or a boolean but got"):
        tandem.while_loop(lambda x: x < 10, lambda x: (x * 2,), (tandem.ones(2),))
    with pytest.raises(RuntimeError, match="Expected body_fn_output and carried_inputs to have same metadata but "
                                           "found:\npair\\[0\\] differ in 'shape"):
        tandem.while_loop(lambda x: x.sum() < 10, lambda x: (tandem.cat([x, x]),), (tandem.ones(2),))


def test_tensor_list_output_gradients(device):
    @tandem.library.custom_op(fresh("split2"), mutates_args=())
    def split2(x: Tensor, bias: Optional[Tensor] = None) -> list[Tensor]:
        b = 0 if bias is None else bias
        return [x[:2] * 2 + b, x[2:] * 3 + b]

    def backward(ctx, grads):
        g0, g1 = grads  # the grad of an unused output arrives as zeros, as in PyTorch
        return tandem.cat([g0 * 2, g1 * 3]), None

    split2.register_autograd(backward)
    x = tandem.ones(4, device=device, requires_grad=True)
    out = split2(x)
    assert isinstance(out, list) and out[0].tolist() == [2.0, 2.0] and out[1].device == x.device
    (out[0].sum() * 2).backward()
    assert x.grad.tolist() == [4.0, 4.0, 0.0, 0.0]
