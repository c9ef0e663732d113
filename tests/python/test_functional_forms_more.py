"""nn.grad (conv input/weight gradients), linalg.polar and linalg.matrix_sqrth, Tensor.nonzero_static and the
overrides module against PyTorch: values, gradients (float64), dtypes, devices and errors."""
import warnings

import pytest
import torch

import tandem
from oracle import assert_close_to_torch, from_torch


def rand(*shape, seed=0, dtype=torch.float64):
    return torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))


# ---- nn.grad ----

CONV_CASES = [
    (1, (2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, dilation=1, groups=2)),
    (2, (2, 3, 7, 6), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2))),
    (3, (1, 2, 5, 5, 4), (3, 2, 2, 3, 2), dict(stride=1, padding=1, dilation=1)),
]


@pytest.mark.parametrize("n,x_shape,w_shape,kw", CONV_CASES)
def test_conv_grads_match_pytorch(device, n, x_shape, w_shape, kw):
    x, w = rand(*x_shape, seed=1), rand(*w_shape, seed=2)
    out_shape = getattr(torch.nn.functional, f"conv{n}d")(x, w, **kw).shape
    go = rand(*out_shape, seed=3).requires_grad_()
    wr, xr = w.clone().requires_grad_(), x.clone().requires_grad_()
    want_in = getattr(torch.nn.grad, f"conv{n}d_input")(x_shape, wr, go, **kw)
    want_w = getattr(torch.nn.grad, f"conv{n}d_weight")(xr, w_shape, go, **kw)
    go_t = from_torch(go.detach(), device).requires_grad_()
    w_t, x_t = from_torch(w, device).requires_grad_(), from_torch(x, device).requires_grad_()
    got_in = getattr(tandem.nn.grad, f"conv{n}d_input")(x_shape, w_t, go_t, **kw)
    got_w = getattr(tandem.nn.functional.grad, f"conv{n}d_weight")(x_t, tandem.Size(w_shape), go_t, **kw)
    assert_close_to_torch(got_in, want_in.detach(), device=device)
    assert_close_to_torch(got_w, want_w.detach(), device=device)
    # both results differentiate with respect to the operands given, as PyTorch's double backward
    (want_in.sum() + (want_w * want_w).sum()).backward()
    (got_in.sum() + (got_w * got_w).sum()).backward()
    for ours, ref in ((go_t, go), (w_t, wr), (x_t, xr)):
        assert_close_to_torch(ours.grad, ref.grad, device=device)


def test_conv_grad_without_grad_needs_no_graph():
    got = tandem.nn.grad.conv1d_input((2, 2, 7), tandem.randn(4, 2, 3), tandem.randn(2, 4, 5))
    assert got.grad_fn is None and not got.requires_grad


def test_conv_grad_errors():
    w, go = torch.randn(4, 2, 3), torch.randn(2, 4, 5)
    with pytest.raises(RuntimeError) as want:  # a channel count that does not fit the weight
        torch.nn.grad.conv1d_input((2, 3, 7), w, go)
    with pytest.raises(RuntimeError) as got:
        tandem.nn.grad.conv1d_input((2, 3, 7), from_torch(w), from_torch(go))
    assert str(got.value).splitlines()[0] == str(want.value)
    # an input size whose convolution does not give grad_output's shape (PyTorch: a oneDNN descriptor error)
    with pytest.raises(RuntimeError, match=r"conv1d_input: a convolution with an input of size \[2, 2, 9\] gives "
                                           r"an output of size \[2, 4, 7\], but grad_output has size \[2, 4, 5\]"):
        tandem.nn.grad.conv1d_input((2, 2, 9), from_torch(w), from_torch(go))
    with pytest.raises(RuntimeError, match="conv1d_weight: a convolution with a weight of size"):
        tandem.nn.grad.conv1d_weight(tandem.randn(2, 2, 7), (4, 2, 4), from_torch(go))
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        tandem.nn.grad.conv1d_input((2, 2, 7), from_torch(w).int(), from_torch(go).int())


# ---- linalg.polar, linalg.matrix_sqrth ----

@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 3), (5, 1)])
@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
def test_polar_matches_pytorch(device, shape, dtype):
    A = rand(*shape, seed=4, dtype=dtype).requires_grad_()
    U, H = torch.linalg.polar(A)
    a = from_torch(A.detach(), device).requires_grad_()
    got = tandem.linalg.polar(a)
    assert type(got).__name__ == "linalg_polar" and got._fields == ("U", "H")
    assert_close_to_torch(got.U, U.detach(), device=device)
    assert_close_to_torch(got.H, H.detach(), device=device)
    gU, gH = rand(*U.shape, seed=5, dtype=dtype), rand(*H.shape, seed=6, dtype=dtype)
    torch.autograd.backward([U, H], [gU, gH])
    tandem.autograd.backward([got.U, got.H], [from_torch(gU, device), from_torch(gH, device)])
    assert_close_to_torch(a.grad, A.grad, device=device)


def test_polar_gradient_at_repeated_singular_values():
    """An orthogonal A (every singular value 1): the SVD's own backward would divide by zero."""
    Q = torch.linalg.qr(rand(3, 3, seed=7))[0].requires_grad_()
    U, H = torch.linalg.polar(Q)
    (U.sum() + H.sum()).backward()
    q = from_torch(Q.detach()).requires_grad_()
    u, h = tandem.linalg.polar(q)
    (u.sum() + h.sum()).backward()
    assert_close_to_torch(q.grad, Q.grad)


def test_polar_single_result_gradients_and_out():
    A = rand(4, 3, seed=8).requires_grad_()
    a = from_torch(A.detach()).requires_grad_()
    torch.linalg.polar(A).H.pow(2).sum().backward()
    tandem.linalg.polar(a).H.pow(2).sum().backward()
    assert_close_to_torch(a.grad, A.grad)
    out = (tandem.empty(0, dtype=tandem.float64), tandem.empty(0, dtype=tandem.float64))
    res = tandem.linalg.polar(a.detach(), out=out)
    assert res.U is out[0] and tuple(out[1].shape) == (3, 3)


@pytest.mark.parametrize("A", [torch.randn(3, 4), torch.randn(3), torch.randn(3, 3).int(), torch.randn(2, 0, 0),
                               torch.randn(2, 3, 0)])
def test_polar_errors_and_empty_match_pytorch(A):
    try:
        want = torch.linalg.polar(A)
    except Exception as e:  # noqa: BLE001  (the same type and words are what is checked)
        with pytest.raises(type(e)) as got:
            tandem.linalg.polar(from_torch(A))
        assert str(got.value) == str(e)
        return
    got = tandem.linalg.polar(from_torch(A))
    assert tuple(got.U.shape) == tuple(want.U.shape) and tuple(got.H.shape) == tuple(want.H.shape)


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
def test_matrix_sqrth_matches_pytorch(device, dtype):
    M = rand(2, 3, 3, seed=9, dtype=dtype)
    M = (M @ M.mH + torch.eye(3, dtype=dtype)).requires_grad_()
    X = torch.linalg.matrix_sqrth(M)
    m = from_torch(M.detach(), device).requires_grad_()
    x = tandem.linalg.matrix_sqrth(m)
    assert_close_to_torch(x, X.detach(), device=device)
    G = rand(2, 3, 3, seed=10, dtype=dtype)
    X.backward(G)
    x.backward(from_torch(G, device))
    assert_close_to_torch(m.grad, M.grad, device=device)


def test_matrix_sqrth_repeated_eigenvalues_and_semidefinite():
    M = (2 * torch.eye(3, dtype=torch.float64)).requires_grad_()
    torch.linalg.matrix_sqrth(M).sum().backward()
    m = (2 * tandem.eye(3, dtype=tandem.float64)).requires_grad_()
    tandem.linalg.matrix_sqrth(m).sum().backward()
    assert_close_to_torch(m.grad, M.grad)
    assert_close_to_torch(tandem.linalg.matrix_sqrth(-tandem.eye(3)), torch.linalg.matrix_sqrth(-torch.eye(3)))


@pytest.mark.parametrize("A", [torch.randn(3, 4), torch.randn(3), torch.eye(3).int(), torch.eye(3).half()])
def test_matrix_sqrth_errors_match_pytorch(A):
    with pytest.raises(Exception) as want:
        torch.linalg.matrix_sqrth(A)
    with pytest.raises(want.type) as got:
        tandem.linalg.matrix_sqrth(from_torch(A))
    assert str(got.value) == str(want.value)


# ---- nonzero_static ----

@pytest.mark.parametrize("kw", [dict(size=2), dict(size=5), dict(size=5, fill_value=7), dict(size=0)])
def test_nonzero_static_matches_pytorch(device, kw):
    x = torch.tensor([[0, 1.5], [2, 0], [0, 3]])
    want = x.nonzero_static(**kw)
    assert_close_to_torch(from_torch(x, device).nonzero_static(**kw), want, device=device)
    assert_close_to_torch(tandem.nonzero_static(from_torch(x, device), **kw), want, device=device)


@pytest.mark.parametrize("kw", [dict(), dict(size=-1), dict(size=2.5), dict(size=True), dict(size=2, fill_value=1.5),
                                dict(size=2, fill_value=True)])
def test_nonzero_static_errors_match_pytorch(kw):
    x = torch.tensor([1.0, 0.0])
    with pytest.raises(Exception) as want:
        x.nonzero_static(**kw)
    with pytest.raises(want.type) as got:
        from_torch(x).nonzero_static(**kw)
    assert str(got.value) == str(want.value)
    with pytest.raises(TypeError, match="argument 'input' \\(position 1\\) must be Tensor, not list"):
        tandem.nonzero_static([1, 0], size=1)


# ---- overrides ----

class TensorLike:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("TensorLike", func.__name__, [t.__name__ for t in types], args, kwargs)


class Declines(TensorLike):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


class Unrelated:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def guarded(overrides):
    def f(a, b=None):
        if overrides.has_torch_function_variadic(a, b):
            return overrides.handle_torch_function(f, (a, b), a, b=b)
        return "plain"

    return f


def strip_module(value):
    return str(value).replace("tandem", "torch")


@pytest.mark.parametrize("args", [(1,), (TensorLike(),), (Declines(), TensorLike()), (TensorLike(), Declines())])
def test_handle_torch_function_matches_pytorch(args):
    want = guarded(torch.overrides)(*args)
    got = guarded(tandem.overrides)(*args)
    assert strip_module(got) == strip_module(want)


def test_no_implementation_error_matches_pytorch():
    with pytest.raises(TypeError) as want:
        guarded(torch.overrides)(Unrelated(), Declines())
    with pytest.raises(TypeError) as got:
        guarded(tandem.overrides)(Unrelated(), Declines())
    assert str(got.value) == str(want.value)


def test_modes_and_predicates_match_pytorch():
    results = []
    for mod in (torch, tandem):
        O = mod.overrides

        class Log(O.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                # the mode is popped while it runs: a nested guarded call sees no mode
                return ("mode", func.__name__, guarded(O)(1))

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Log():
                inside = (guarded(O)(1), O.has_torch_function(()), O.has_torch_function((1,)))
        x = mod.ones(2)
        results.append((inside, guarded(O)(1), O.is_tensor_like(x), O.is_tensor_like(mod.nn.Parameter(x)),
                        O.is_tensor_like(3), O.is_tensor_like(TensorLike()), O.has_torch_function([]),
                        O.is_tensor_method_or_property(mod.Tensor.add), O.is_tensor_method_or_property(mod.add)))
        with pytest.raises(TypeError, match="expected a sequence"):
            O.has_torch_function(5)
    assert results[0] == results[1]


def test_wrap_torch_function_and_base_mode():
    @tandem.overrides.wrap_torch_function(lambda a: (a,))
    def g(a):
        return "plain"

    assert g(1) == "plain" and g(TensorLike())[:2] == ("TensorLike", "g")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tandem.overrides.BaseTorchFunctionMode():
            assert guarded(tandem.overrides)(1) == "plain"


def test_overridable_and_ignored_functions_are_listed():
    """tandem's functions and methods dispatch; settings and data conversions do not (tandem/_builtin_functions.py)."""
    O = tandem.overrides
    overridable = O.get_overridable_functions()
    assert tandem.add in overridable[tandem] and tandem.linalg.eigh in overridable[tandem.linalg]
    assert tandem.Tensor.add in overridable[tandem.Tensor] and tandem.Tensor.__add__ in overridable[tandem.Tensor]
    ignored = O.get_ignored_functions()
    assert {tandem.is_tensor, tandem.manual_seed, tandem.set_default_dtype, tandem.from_numpy} <= ignored
    # Factories are listed as ignored, as PyTorch lists them (a mode still sees their calls).
    assert {tandem.zeros, tandem.tensor} <= ignored and tandem.zeros not in overridable[tandem]
    assert not ignored & {f for fs in overridable.values() for f in fs}
    assert O.get_testing_overrides()[tandem.add](1, 2) == -1
    assert not O.has_torch_function((tandem.ones(1), tandem.nn.Parameter(tandem.ones(1))))