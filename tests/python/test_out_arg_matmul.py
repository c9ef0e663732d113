"""out= on the matrix products (mm, matmul, bmm, addmm, baddbmm, addbmm, mv, addmv, dot, vdot, outer/ger, addr,
inner, kron, tensordot, cross, chain_matmul, linalg.matmul/multi_dot/vecdot), checked against PyTorch: values,
the out object returned, resizing with PyTorch's warning, and PyTorch's errors (dtype, autograd, device) with
their exact text."""
import warnings

import numpy as np
import pytest
import torch

import tandem

M = [[0.9, 0.2, 0.1], [0.2, 0.8, 0.3], [0.1, 0.3, 0.7]]


def pair(values, device, dtype="float32"):
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    return t, tandem.tensor(values, dtype=getattr(tandem, dtype), device=device)


def m(device, dtype="float32"):
    return pair(M, device, dtype)


def v(device, dtype="float32"):
    return pair(M[0], device, dtype)


def b3(device, dtype="float32"):
    return pair([M, M], device, dtype)


# name -> (operands builder, keyword arguments): each builder returns [(torch, tandem), ...].
CASES = {
    "mm": (lambda d: [m(d), m(d)], {}),
    "matmul": (lambda d: [m(d), m(d)], {}),
    "matmul_1d_1d": (lambda d: [v(d), v(d)], {}),
    "matmul_2d_1d": (lambda d: [m(d), v(d)], {}),
    "matmul_1d_2d": (lambda d: [v(d), m(d)], {}),
    "matmul_3d_2d": (lambda d: [b3(d), m(d)], {}),
    "matmul_3d_3d": (lambda d: [b3(d), b3(d)], {}),
    "bmm": (lambda d: [b3(d), b3(d)], {}),
    "addmm": (lambda d: [m(d), m(d), m(d)], {"beta": 0.5, "alpha": 2.0}),
    "baddbmm": (lambda d: [b3(d), b3(d), b3(d)], {"beta": 0.5, "alpha": 2.0}),
    "addbmm": (lambda d: [m(d), b3(d), b3(d)], {}),
    "mv": (lambda d: [m(d), v(d)], {}),
    "addmv": (lambda d: [v(d), m(d), v(d)], {"alpha": 3}),
    "dot": (lambda d: [v(d), v(d)], {}),
    "vdot": (lambda d: [v(d), v(d)], {}),
    "outer": (lambda d: [v(d), v(d)], {}),
    "ger": (lambda d: [v(d), v(d)], {}),
    "addr": (lambda d: [m(d), v(d), v(d)], {}),
    "inner": (lambda d: [m(d), m(d)], {}),
    "kron": (lambda d: [m(d), m(d)], {}),
    "tensordot": (lambda d: [m(d), m(d)], {"dims": 1}),
    "cross": (lambda d: [m(d), m(d)], {"dim": 1}),
    "chain_matmul": (lambda d: [m(d), m(d), m(d)], {}),
    "linalg.matmul": (lambda d: [m(d), m(d)], {}),
    "linalg.multi_dot": (lambda d: [m(d), m(d), m(d)], {"_list": True}),
    "linalg.vecdot": (lambda d: [m(d), m(d)], {}),
}


def function(lib, name):
    obj = lib
    for part in name.split("_")[0].split(".") if name.startswith("matmul_") else name.split("."):
        obj = getattr(obj, part)
    return obj


def call(lib, name, operands, kwargs, out):
    kwargs = dict(kwargs)
    as_list = kwargs.pop("_list", False)
    args = [list(operands)] if as_list else list(operands)
    return function(lib, name)(*args, **kwargs, out=out)


def both(name, device, out_dtype=None, out_shape=(0,), requires_grad=False, out_requires_grad=False):
    """Calls `name` with out= in PyTorch and in tandem; (torch outcome, tandem outcome), each (result, out, error,
    warnings)."""
    build, kwargs = CASES[name]
    pairs = build(device)
    outcomes = []
    for lib, k in ((torch, 0), (tandem, 1)):
        operands = [p[k].requires_grad_(requires_grad) if requires_grad else p[k] for p in pairs]
        dtype = getattr(lib, out_dtype) if out_dtype else operands[0].dtype
        extra = {} if lib is torch else {"device": device}
        out = lib.empty(out_shape, dtype=dtype, requires_grad=out_requires_grad, **extra)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result, error = call(lib, name, operands, kwargs, out), None
            except (RuntimeError, TypeError) as e:
                result, error = None, e
        # (PyTorch's C++ warnings end with where they were triggered)
        messages = [str(w.message).split(" (Triggered internally")[0] for w in caught
                    if "was resized" in str(w.message)]
        outcomes.append((result, out, error, messages))
    return outcomes


def values(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_the_out_object(name, device):
    (t_result, t_out, t_error, _), (result, out, error, _) = both(name, device)
    assert t_error is None and error is None, error
    assert result is out and t_result is t_out
    assert tuple(out.shape) == tuple(t_out.shape) and out.device == tandem.device(device)
    assert str(out.dtype).split(".")[-1] == str(t_out.dtype).split(".")[-1]
    np.testing.assert_allclose(values(out), values(t_out), rtol=1e-5, atol=1e-6)


def first_line(error):
    return str(error).split("\nhint:")[0]


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("out_dtype", ["float64", "int64"])
def test_dtype_of_out_is_checked_as_pytorch(name, out_dtype, device):
    (_, t_out, t_error, _), (_, out, error, _) = both(name, device, out_dtype=out_dtype)
    if t_error is None:  # outer, ger, addr, kron: the result only has to cast to out's dtype
        assert error is None, error
        np.testing.assert_allclose(values(out), values(t_out), rtol=1e-5, atol=1e-6)
    else:
        assert type(error) is type(t_error) and first_line(error) == str(t_error).split("\n")[0]


@pytest.mark.parametrize("name", list(CASES))
def test_resizing_warns_as_pytorch(name, device):
    (_, t_out, _, t_warnings), (_, out, _, got_warnings) = both(name, device, out_shape=(2, 2))
    if name == "matmul_1d_2d":  # PyTorch's warning names its intermediate shape [1, n]; tandem's says [n]
        assert len(got_warnings) == len(t_warnings) == 1
    else:
        assert got_warnings == t_warnings and len(t_warnings) == (0 if name == "addbmm" else 1)
    assert tuple(out.shape) == tuple(t_out.shape) and out.is_contiguous()
    (_, _, _, t_quiet), (_, _, _, quiet) = both(name, device, out_shape=(0,))
    assert quiet == t_quiet == []


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("which", ["input", "out"])
def test_autograd_errors_are_pytorchs(name, which, device):
    kwargs = {"requires_grad": True} if which == "input" else {"out_requires_grad": True}
    (_, _, t_error, _), (_, out, error, _) = both(name, device, out_shape=(), **kwargs)
    if t_error is None:  # PyTorch's compositions (inner, tensordot) write a recorded result into out
        assert error is None, error
        assert out.grad_fn is None
    else:
        assert type(error) is type(t_error) and first_line(error) == str(t_error).split("\n")[0]


def test_no_grad_allows_inputs_that_require_grad(device):
    a = tandem.tensor(M, device=device, requires_grad=True)
    out = tandem.empty(0, device=device)
    with tandem.no_grad():
        assert tandem.mm(a, a, out=out) is out
    assert out.grad_fn is None and not out.requires_grad


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) cuda device")
@pytest.mark.parametrize("fn", [lambda L, a, o: L.mm(a, a, out=o), lambda L, a, o: L.bmm(a[None], a[None], out=o),
                                lambda L, a, o: L.addmm(a, a, a, out=o), lambda L, a, o: L.matmul(a, a, out=o),
                                lambda L, a, o: L.baddbmm(a[None], a[None], a[None], out=o)])
def test_out_on_another_device_is_an_error(fn):
    a = tandem.tensor(M)
    with pytest.raises(RuntimeError, match="^Expected out tensor to have device cpu, but got cuda:0 instead"):
        fn(tandem, a, tandem.empty(3, 3, device="cuda:0"))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have device cuda:0, but got cpu instead"):
        fn(tandem, a.to("cuda:0"), tandem.empty(3, 3))


def test_out_may_be_an_operand_and_gets_the_product(device):
    # PyTorch's kernels overwrite an operand passed as out while reading it (torch.mm(a, b, out=a) is wrong);
    # tandem computes into a temporary first, so the product is right. addmm with out=input agrees with PyTorch.
    t, a = m(device)
    want = (t @ t.flip(0)).numpy()
    assert tandem.mm(a, a.flip(0), out=a) is a
    np.testing.assert_allclose(values(a), want, rtol=1e-6)
    (t, c), (tx, x) = m(device), m(device)
    ref = torch.addmm(t, tx, tx.flip(0), out=t)
    assert tandem.addmm(c, x, x.flip(0), out=c) is c
    np.testing.assert_allclose(values(c), values(ref), rtol=1e-6)
    tb, b = b3(device)
    want = (tb @ tb).numpy()
    assert tandem.bmm(b, b, out=b) is b
    np.testing.assert_allclose(values(b), want, rtol=1e-6)
    tv, x = v(device)
    want = (torch.tensor(M) @ tv).numpy()
    tandem.mv(tandem.tensor(M, device=device), x, out=x)
    np.testing.assert_allclose(values(x), want, rtol=1e-6)


def test_non_contiguous_out_keeps_its_strides(device):
    t, a = m(device)
    t_out, out = torch.empty(3, 3).t(), tandem.empty(3, 3, device=device).t()
    torch.mm(t, t.flip(1), out=t_out)
    assert tandem.mm(a, a.flip(1), out=out) is out
    assert tuple(out.stride()) == tuple(t_out.stride()) == (1, 3)
    np.testing.assert_allclose(values(out), values(t_out), rtol=1e-6)
    rows = tandem.zeros(3, 6, device=device)
    tandem.matmul(a, a, out=rows[:, ::2])
    np.testing.assert_allclose(values(rows[:, ::2]), values(t @ t), rtol=1e-6)
    assert values(rows[:, 1::2]).tolist() == [[0.0] * 3] * 3


def test_out_bumps_the_version_and_an_expanded_out_is_refused(device):
    _, a = m(device)
    out = tandem.empty(3, 3, device=device)
    version = out._version
    tandem.mm(a, a, out=out)
    assert out._version > version
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to tensor"):
        tandem.mm(a, a, out=tandem.empty(1, 3, device=device).expand(3, 3))


def test_autocast_does_not_apply_to_out_forms():
    # PyTorch's autocast lists the functional ops only: mm(..., out=) runs in the operands' dtype.
    t, a = m("cpu")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ref = torch.mm(t, t, out=torch.empty(3, 3))
    with tandem.autocast("cpu", dtype=tandem.bfloat16):
        out = tandem.mm(a, a, out=tandem.empty(3, 3))
    assert ref.dtype == torch.float32 and out.dtype == tandem.float32
    np.testing.assert_allclose(values(out), values(ref), rtol=1e-6)


def test_bad_out_arguments():
    _, a = m("cpu")
    with pytest.raises(TypeError, match=r"^mm\(\): argument 'out' must be Tensor, not int"):
        tandem.mm(a, a, out=3)
    with pytest.raises(TypeError, match=r"^baddbmm\(\): argument 'out' must be Tensor, not int"):
        tandem.baddbmm(a[None], a[None], a[None], out=3)
    with pytest.raises(TypeError):  # PyTorch's einsum has no out=
        tandem.einsum("ij,jk->ik", a, a, out=tandem.empty(0))
    with pytest.raises(TypeError):
        torch.einsum("ij,jk->ik", torch.eye(2), torch.eye(2), out=torch.empty(0))


def test_sort_and_topk_take_a_pair_of_outs(device):
    t, a = m(device)
    values_out, indices_out = tandem.empty(0, device=device), tandem.empty(0, dtype=tandem.int64, device=device)
    r = tandem.sort(a, dim=1, out=(values_out, indices_out))
    ref = torch.sort(t, dim=1, out=(torch.empty(0), torch.empty(0, dtype=torch.int64)))
    assert r.values is values_out and r.indices is indices_out and type(r).__name__ == type(ref).__name__ == "sort_out"
    np.testing.assert_array_equal(values(indices_out), ref.indices.numpy())
    r = tandem.topk(a, 2, out=[values_out, indices_out])
    assert r[0] is values_out and tuple(values_out.shape) == (3, 2)
    with pytest.raises(TypeError, match=r"^topk\(\): argument 'out' must be tuple of 2 Tensors"):
        tandem.topk(a, 2, out=values_out)
