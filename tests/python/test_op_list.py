"""The op list (src/kernels/op_list.def) as the tests see it through tandem._C: every op is either
differentiable, with PyTorch's node name and a gradient that passes gradcheck, or explicitly marked not
differentiable; each op's dtype rule matches what it does. A new line in the list is tested here without
editing any table."""
import pytest
import torch

import tandem
from tandem.autograd import gradcheck

UNARY = tandem._C._unary_ops()  # (name, rule, node name or None)
BINARY = tandem._C._binary_ops()
UNARY_RULES = {"Same", "NoBool", "Float", "FloatOnly", "Predicate", "Integral"}
BINARY_RULES = {"Arith", "ArithNoBool", "TrueDiv", "FloatOnly", "Integer", "IntDiv", "Compare", "Logical", "Bitwise"}

# Where PyTorch spells an op differently (PyTorch's name, keyword arguments).
TORCH_SPELLING = {"gelu": ("nn.functional.gelu", {}), "gelu_tanh": ("nn.functional.gelu", {"approximate": "tanh"}),
                  "silu": ("nn.functional.silu", {})}
# PyTorch has these only in torch.special.
TORCH_SPELLING.update({n: ("special." + n, {}) for n in ("i0e", "i1", "i1e", "erfcx", "ndtr", "ndtri", "log_ndtr", "entr",
                                                         "xlog1py", "zeta")})
# torch.special's Bessel functions and polynomials (tandem's ops keep the names without the prefix).
BESSEL = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
          "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
          "spherical_bessel_j0", "airy_ai")
POLYNOMIALS = tuple(p + "_polynomial_" + k for p in ("chebyshev", "shifted_chebyshev") for k in "tuvw") + (
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")
TORCH_SPELLING.update({n: ("special." + n, {}) for n in BESSEL + POLYNOMIALS})
# Floating ops PyTorch gives no derivative (their results never require grad).
NO_DERIVATIVE = {"scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai",
                 *POLYNOMIALS}
# PyTorch's ndtr is a composition (its grad_fn is MulBackward1); tandem's is one op with its own node.
NODE_DIFFERS = {"ndtr"}


def torch_fn(name):
    path, kwargs = TORCH_SPELLING.get(name, (name, {}))
    fn = torch
    for part in path.split("."):
        fn = getattr(fn, part)
    return lambda *args: fn(*args, **kwargs)


def smooth_input(device, seed=0, low=1.1, high=1.4):
    """float64 values away from every kink of the list's ops (0, integers, halves), where finite differences
    are exact enough for gradcheck."""
    g = torch.Generator().manual_seed(seed)
    values = (torch.rand(2, 3, generator=g, dtype=torch.float64) * (high - low) + low).tolist()
    return tandem.tensor(values, dtype=tandem.float64, device=device, requires_grad=True)


def test_the_list_is_complete_and_well_formed():
    names = [n for n, _, _ in UNARY] + [n for n, _, _ in BINARY]
    assert len(names) == len(set(names))
    assert {"exp", "neg", "isnan", "bitwise_not"} <= {n for n, _, _ in UNARY}
    assert {"add", "pow", "eq", "bitwise_and"} <= {n for n, _, _ in BINARY}
    assert {r for _, r, _ in UNARY} <= UNARY_RULES and {r for _, r, _ in BINARY} <= BINARY_RULES
    for name, _, _ in UNARY + BINARY:
        assert callable(getattr(tandem, name)) and callable(getattr(tandem.Tensor, name))
        assert callable(getattr(tandem.Tensor, name + "_"))


# Ops defined only inside (-1, 1) get inputs there (still away from 0, where abs-like kinks sit).
SMALL_DOMAIN = {"asin", "acos", "atanh", "erfinv", "logit", "ndtri"}


@pytest.mark.parametrize("name,rule,node", [u for u in UNARY if u[2] is not None], ids=lambda v: str(v))
def test_differentiable_unary_op(name, rule, node, device):
    x = smooth_input(device, low=0.3, high=0.6) if name in SMALL_DOMAIN else smooth_input(device)
    out = getattr(tandem, name)(x)
    assert out.grad_fn is not None and out.grad_fn.name() == node
    expected = torch_fn(name)(torch.tensor(x.tolist(), dtype=torch.float64, requires_grad=True))
    assert node == expected.grad_fn.name() or name in NODE_DIFFERS
    assert gradcheck(getattr(tandem, name), (x,))


@pytest.mark.parametrize("name,rule,node", [u for u in UNARY if u[2] is None], ids=lambda v: str(v))
def test_not_differentiable_unary_op(name, rule, node, device):
    # Only ops whose result is bool or integer, or that PyTorch does not differentiate, are marked so.
    if name in NO_DERIVATIVE:
        x = tandem.tensor([1.5, 0.5, 3.0], dtype=tandem.float64, device=device, requires_grad=True)
        out = getattr(tandem, name)(x)
        assert out.grad_fn is None and not out.requires_grad
        assert not torch_fn(name)(torch.tensor(x.tolist(), dtype=torch.float64, requires_grad=True)).requires_grad
        return
    assert rule in ("Predicate", "Integral")
    x = tandem.tensor([1, 0, 3], device=device)
    out = getattr(tandem, name)(x if rule == "Integral" else x.double())
    assert out.grad_fn is None and not out.requires_grad
    assert out.dtype == (tandem.bool if rule == "Predicate" else tandem.int64)


@pytest.mark.parametrize("name,rule,node", [b for b in BINARY if b[2] is not None], ids=lambda v: str(v))
def test_differentiable_binary_op(name, rule, node, device):
    a, b = smooth_input(device, 1), smooth_input(device, 2, low=2.1, high=2.4)
    if name == "zeta":  # zeta(s, q): s > 1, and no derivative in s (as in PyTorch)
        a, b = smooth_input(device, 2, low=2.1, high=2.4).detach(), smooth_input(device, 1)
    if name in ("igamma", "igammac"):  # no derivative in a either
        a = a.detach()
    out = getattr(tandem, name)(a, b)
    assert out.grad_fn is not None and out.grad_fn.name() == node
    ta = torch.tensor(a.tolist(), dtype=torch.float64, requires_grad=a.requires_grad)
    expected = torch_fn(name)(ta, torch.tensor(b.tolist(), dtype=torch.float64, requires_grad=True))
    if expected.grad_fn.name() != "torch::autograd::NotImplemented":  # floor_divide: PyTorch has no gradient
        assert node == expected.grad_fn.name()
    assert gradcheck(getattr(tandem, name), (a, b))


@pytest.mark.parametrize("name,rule,node", [b for b in BINARY if b[2] is None], ids=lambda v: str(v))
def test_not_differentiable_binary_op(name, rule, node, device):
    if name in NO_DERIVATIVE:
        x = tandem.tensor([0.3, 0.5, 3.0], dtype=tandem.float64, device=device, requires_grad=True)
        for args in ((x, x), (x, 3), (0.5, x)):
            out = getattr(tandem, name)(*args)
            assert out.grad_fn is None and not out.requires_grad
        return
    assert rule in ("Compare", "Logical", "Bitwise", "Integer") or name == "heaviside"
    a = tandem.tensor([1, 0, 3], device=device)
    out = getattr(tandem, name)(a, a)
    integer = rule in ("Bitwise", "Integer", "Arith")
    assert out.grad_fn is None and out.dtype == (tandem.int64 if integer else tandem.bool)
    if rule not in ("Bitwise", "Integer"):
        x = tandem.tensor([1.0, 0.0, 3.0], device=device, requires_grad=True)
        r = getattr(tandem, name)(x, x)
        assert r.grad_fn is None and not r.requires_grad


@pytest.mark.parametrize("expr,node", [
    (lambda x: x ** 2, "PowBackward0"), (lambda x: 2 ** x, "PowBackward2"), (lambda x: x % 2, "RemainderBackward0"),
    (lambda x: 2 - x, "RsubBackward1"), (lambda x: x - 2, "SubBackward0"), (lambda x: x * 2, "MulBackward0"),
])
def test_scalar_forms_use_pytorchs_node_names(expr, node):
    x = tandem.tensor([1.5, 2.5], dtype=tandem.float64, requires_grad=True)
    assert expr(x).grad_fn.name() == node
    assert expr(torch.tensor([1.5, 2.5], dtype=torch.float64, requires_grad=True)).grad_fn.name() == node
