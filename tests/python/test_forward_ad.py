"""torch.autograd.forward_ad (dual_level, make_dual, unpack_dual) against PyTorch's forward mode: tangents of
elementwise math, modules, reductions, several duals, a primal that requires grad, a custom Function, the level's
rules and errors; and the documented differences (docs/autograd.md "Forward-mode AD")."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tandem  # noqa: E402
from hostile_helpers import assert_matches_pytorch  # noqa: E402
from oracle import assert_same_result  # noqa: E402


def _data(L, d, *shape, seed=0):
    values = np.random.default_rng(seed).uniform(-1, 1, shape)
    return L.tensor(values, dtype=L.float64, device=d)


def _jvp(L, d, fn, *shapes):
    """unpack_dual(fn(*duals)) with one random tangent per input: [primal, tangent, primal.requires_grad]."""
    fwAD = L.autograd.forward_ad
    with fwAD.dual_level():
        duals = [fwAD.make_dual(_data(L, d, *s, seed=i), _data(L, d, *s, seed=10 + i)) for i, s in enumerate(shapes)]
        primal, tangent = fwAD.unpack_dual(fn(L, *duals))
    return [primal, tangent, primal.requires_grad]


FUNCTIONS = {
    "sin_mul": (lambda L, x: x.sin() * 3, (4,)),
    "exp_log1p": (lambda L, x: L.exp(x) + L.log1p(x * x), (2, 3)),
    "tanh_chain": (lambda L, x: L.tanh(L.tanh(x) * 2 - x), (5,)),
    "sum_dim": (lambda L, x: (x * x).sum(1), (3, 4)),
    "softmax": (lambda L, x: L.softmax(x, 1), (2, 5)),
    "matmul": (lambda L, x: x @ x.T, (3, 3)),
    "indexing": (lambda L, x: x[1:, ::2] * x[0, 0], (3, 4)),
    "norm": (lambda L, x: L.linalg.vector_norm(x), (6,)),
    "cat_stack": (lambda L, x: L.stack([x, L.cat([x[1:], x[:1]])]).pow(2), (4,)),
    "where_relu": (lambda L, x: L.where(x > 0, x, 0.1 * x).relu(), (6,)),
    "two_inputs": (lambda L, x, y: x * y.cos() + y, (3,), (3,)),
    "broadcast": (lambda L, x, y: x.unsqueeze(1) - y, (3,), (2, 3)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_tangents_match_pytorch(name, device):
    fn, *shapes = FUNCTIONS[name]
    assert_matches_pytorch(lambda L, d: _jvp(L, d, fn, *shapes), device)


def _module_jvp(L, d):
    fwAD = L.autograd.forward_ad
    model = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.GELU(), L.nn.LayerNorm(4), L.nn.Linear(4, 2)).double().to(d)
    with L.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(_data(L, d, *p.shape, seed=20 + i))
    with fwAD.dual_level():
        out = model(fwAD.make_dual(_data(L, d, 5, 3), _data(L, d, 5, 3, seed=1)))
        primal, tangent = fwAD.unpack_dual(out)
    return [primal, tangent, primal.requires_grad]


def test_module_jvp_matches_pytorch(device):
    assert_matches_pytorch(_module_jvp, device)


def _levels_and_errors(L, d):
    fwAD = L.autograd.forward_ad
    x = _data(L, d, 3)
    found = []

    def attempt(fn):
        try:
            found.append(repr(fn()))
        except (RuntimeError, ValueError) as exc:
            found.append(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")

    attempt(lambda: fwAD.make_dual(x, x))
    attempt(lambda: fwAD.exit_dual_level())
    with fwAD.dual_level():
        attempt(lambda: fwAD.make_dual(x, _data(L, d, 2)))
        attempt(lambda: fwAD.make_dual(L.arange(3, device=d), x))
        attempt(lambda: fwAD.enter_dual_level())
        dual = fwAD.make_dual(x, x * 2)
        y = dual.exp()
        found.append(fwAD.unpack_dual(x).tangent)  # a tensor that is not dual
        found.append(fwAD.unpack_dual(x * 2).tangent)
        found.append(fwAD.unpack_dual(dual.detach() + 1).tangent)
        found.append(fwAD.unpack_dual(dual).tangent.tolist())
        found.append(fwAD.unpack_dual(dual * 0).tangent.tolist())
    found.append(fwAD.unpack_dual(y).tangent)  # the level is gone: no tangent
    found.append(fwAD.enter_dual_level())
    fwAD.exit_dual_level()
    return found


def test_level_rules_and_errors_match_pytorch(device):
    assert_matches_pytorch(_levels_and_errors, device)


def _primal_requires_grad(L, d):
    fwAD = L.autograd.forward_ad
    w = _data(L, d, 3).requires_grad_()
    with fwAD.dual_level():
        dual = fwAD.make_dual(w, L.ones_like(w))
        z = (dual * dual).sum()
        primal, tangent = fwAD.unpack_dual(z)
        info = [dual.is_leaf, primal.requires_grad, tangent.item()]
    (grad,) = L.autograd.grad(primal, w)  # the dual is a view of w: reverse mode reaches w through it
    return info + [grad]


def test_dual_of_a_tensor_that_requires_grad_matches_pytorch(device):
    assert_matches_pytorch(_primal_requires_grad, device)


def _custom_function(L, d):
    class Cube(L.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * x * g

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return 3 * x * x * t

    fwAD = L.autograd.forward_ad
    with fwAD.dual_level():
        x = _data(L, d, 4)
        return fwAD.unpack_dual(Cube.apply(fwAD.make_dual(x, L.ones_like(x)))).tangent


def test_custom_function_tangent_matches_pytorch(device):
    assert_matches_pytorch(_custom_function, device)


def test_tangent_agrees_with_func_jvp(device):
    fwAD = tandem.autograd.forward_ad
    x, t = _data(tandem, device, 4, 3), _data(tandem, device, 4, 3, seed=5)

    def f(v):
        return (v.sin() @ v.T).tanh()

    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(f(fwAD.make_dual(x, t))).tangent
    _, expected = tandem.func.jvp(f, (x,), (t,))
    assert tangent.device == tandem.device(device) and tangent.dtype == tandem.float64
    assert_same_result(tangent, torch.tensor(expected.cpu().tolist(), dtype=torch.float64), exact=False)


def test_documented_differences():
    fwAD = tandem.autograd.forward_ad
    x = tandem.ones(3, dtype=tandem.float64)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, tandem.ones_like(x))
        assert dual.requires_grad  # PyTorch's dual carries a tangent and does not require grad
        with tandem.no_grad():
            y = dual * 2
        assert fwAD.unpack_dual(y).tangent is None  # PyTorch's forward mode ignores grad mode: 2s
    assert tandem.autograd.forward_ad is fwAD


def _complex_tangents(L, d):
    fwAD = L.autograd.forward_ad
    x = L.tensor([0.5 + 0.2j, -1 + 1j], dtype=L.complex128, device=d)
    r = L.tensor([0.5, -1.0], dtype=L.float64, device=d)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, L.tensor([1 + 0.5j, 0.3 - 2j], dtype=L.complex128, device=d))
        real_dual = fwAD.make_dual(r, L.ones_like(r))
        return [fwAD.unpack_dual(y).tangent for y in (
            dual.sin(), dual.abs(), dual.conj() * dual, dual.real * dual, real_dual * (1 + 2j), dual * real_dual)]


def test_complex_tangents_match_pytorch(device):
    """Holomorphic (sin), non-holomorphic (abs, conj) and real-to-complex maps."""
    assert_matches_pytorch(_complex_tangents, device)


def _bad_arguments(L, d):
    fwAD = L.autograd.forward_ad
    x = L.ones(3, device=d)
    found = []

    def attempt(fn):
        try:
            found.append(repr(fn()))
        except (RuntimeError, TypeError) as exc:
            found.append(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")

    attempt(lambda: fwAD.unpack_dual(3).tangent)  # outside a level: anything unpacks to itself
    with fwAD.dual_level():
        attempt(lambda: fwAD.unpack_dual(3))
        attempt(lambda: fwAD.make_dual(x, x, level=5))
    attempt(lambda: fwAD.exit_dual_level(level=0))
    return found


def test_bad_arguments_match_pytorch(device):
    assert_matches_pytorch(_bad_arguments, device)
