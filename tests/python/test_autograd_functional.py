"""tandem.autograd.functional against torch.autograd.functional: values (float64), the tuple structure of
results, requires_grad of results, create_graph, the vectorize/strategy options, and every error's type and
message. Each function is written with methods both libraries share, so one body runs under both."""
import pytest
import torch

import tandem
from oracle import assert_same, rand_values
from tandem.autograd import functional as TF
from torch.autograd import functional as PF


def both(shapes, device, seed=0):
    """The same float64 values as tandem tensors on `device` and as torch tensors."""
    values = [rand_values(*s, seed=seed + i) if len(s) else rand_values(1, seed=seed + i)[0]
              for i, s in enumerate(shapes)]
    ours = [tandem.tensor(v, dtype=tandem.float64, device=device) for v in values]
    theirs = [torch.tensor(v, dtype=torch.float64) for v in values]
    return ours, theirs


def pack(tensors, as_tuple):
    return tuple(tensors) if as_tuple else tensors[0]


def assert_tree(ours, theirs, device=None, requires_grad=True):
    """Same nesting of tuples (lists, for forward-mode jacobians), and at the leaves the same values, shapes,
    dtypes and (unless requires_grad=False) requires_grad."""
    if isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), (type(ours), ours)
        for o, t in zip(ours, theirs):
            assert_tree(o, t, device, requires_grad)
        return
    assert isinstance(ours, tandem.Tensor), type(ours)
    assert not requires_grad or ours.requires_grad == theirs.requires_grad
    assert_same(ours.detach(), theirs.detach(), device=device)


def error_of(call):
    with pytest.raises(Exception) as excinfo:
        call()
    return type(excinfo.value), str(excinfo.value).splitlines()[0].replace("torch.", "tandem.")


# ---------------------------------------------------------------- jacobian / vjp / jvp on general functions

GENERAL = {  # name: (func, input shapes, inputs passed as a tuple)
    "vector": (lambda x: x.exp() * x.sin(), [(3,)], False),
    "matrix_to_vector": (lambda x: (x.tanh() @ x.t()).sum(1), [(2, 3)], False),
    "one_input_in_tuple": (lambda x: x ** 3, [(2,)], True),
    "two_inputs": (lambda x, y: (x * y.sin()).sum(0), [(2, 3), (3,)], True),
    "two_outputs": (lambda x: (x.exp(), (x * x).sum()), [(3,)], False),
    "tuple_in_tuple_out": (lambda x, y: (x * y, (x.sin() + y).sum()), [(3,), (3,)], True),
    "unused_input": (lambda x, y: x.exp(), [(2,), (3,)], True),
    "constant_output": (lambda x: x.detach() * 2, [(2,)], False),
}


def outputs_of(name, inputs):
    func, _, as_tuple = GENERAL[name]
    return func(*inputs) if as_tuple else func(inputs[0])


@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("name", sorted(GENERAL))
def test_jacobian(name, vectorize, device):
    func, shapes, as_tuple = GENERAL[name]
    ours, theirs = both(shapes, device)
    expected = PF.jacobian(func, pack(theirs, as_tuple), vectorize=vectorize)
    assert_tree(TF.jacobian(func, pack(ours, as_tuple), vectorize=vectorize), expected, device)


@pytest.mark.parametrize("name", sorted(GENERAL))
def test_vjp(name, device):
    func, shapes, as_tuple = GENERAL[name]
    ours, theirs = both(shapes, device)
    out = outputs_of(name, theirs)
    out_shapes = [o.shape for o in (out if isinstance(out, tuple) else (out,))]
    v_ours, v_theirs = both(out_shapes, device, seed=5)
    v_is_tuple = isinstance(out, tuple)
    expected = PF.vjp(func, pack(theirs, as_tuple), pack(v_theirs, v_is_tuple))
    assert_tree(TF.vjp(func, pack(ours, as_tuple), pack(v_ours, v_is_tuple)), expected, device)


@pytest.mark.parametrize("name", sorted(GENERAL))
def test_jvp(name, device):
    func, shapes, as_tuple = GENERAL[name]
    ours, theirs = both(shapes, device)
    v_ours, v_theirs = both(shapes, device, seed=5)
    expected = PF.jvp(func, pack(theirs, as_tuple), pack(v_theirs, as_tuple))
    assert_tree(TF.jvp(func, pack(ours, as_tuple), pack(v_ours, as_tuple)), expected, device)


# The double-backward trick needs every backward formula to be differentiable in its incoming gradient.
JVP_OPS = {
    "exp": lambda x: x.exp(), "log": lambda x: (x * x + 1).log(), "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(), "relu": lambda x: x.relu(), "div": lambda x: x / (x * x + 2),
    "pow": lambda x: (x * x + 1) ** 1.5, "sqrt": lambda x: (x * x + 1).sqrt(), "abs": lambda x: x.abs(),
    "mean": lambda x: x.mean(1), "softmax": lambda x: x.softmax(1), "log_softmax": lambda x: x.log_softmax(1),
    "matmul": lambda x: x @ x.t(), "transpose": lambda x: x.t().reshape(-1) * 2, "max": lambda x: x.amax(1),
    "index": lambda x: x[1] * x[0], "cumsum": lambda x: x.cumsum(1), "expand": lambda x: x.sum(0).expand(4, 3),
}


@pytest.mark.parametrize("name", sorted(JVP_OPS))
def test_jvp_through_op(name):
    ours, theirs = both([(2, 3)], "cpu")
    v_ours, v_theirs = both([(2, 3)], "cpu", seed=5)
    expected = PF.jvp(JVP_OPS[name], theirs[0], v_theirs[0])
    assert_tree(TF.jvp(JVP_OPS[name], ours[0], v_ours[0]), expected)


def test_v_may_be_omitted_for_one_element():
    ours, theirs = both([(1,)], "cpu")
    for ours_fn, torch_fn in [(TF.vjp, PF.vjp), (TF.jvp, PF.jvp), (TF.hvp, PF.hvp), (TF.vhp, PF.vhp)]:
        assert_tree(ours_fn(lambda x: (x ** 3).sum(), ours[0]), torch_fn(lambda x: (x ** 3).sum(), theirs[0]))


# ---------------------------------------------------------------- hessian / hvp / vhp on scalar functions

SCALAR = {
    "sum_cubes": (lambda x: (x ** 3).sum(), [(3,)], False),
    "matrix": (lambda x: (x.tanh() @ x.t()).sum(), [(2, 3)], False),
    "two_inputs": (lambda x, y: (x.exp() * y.sin()).sum(), [(3,), (3,)], True),
    "one_input_in_tuple": (lambda x: (x.sin() * x).sum(), [(2,)], True),
    "unused_input": (lambda x, y: (x * x * x).sum(), [(2,), (2,)], True),
}


@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("name", sorted(SCALAR))
def test_hessian(name, vectorize, device):
    func, shapes, as_tuple = SCALAR[name]
    ours, theirs = both(shapes, device)
    expected = PF.hessian(func, pack(theirs, as_tuple), vectorize=vectorize)
    assert_tree(TF.hessian(func, pack(ours, as_tuple), vectorize=vectorize), expected, device)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")  # raised inside PyTorch's vmap path
@pytest.mark.parametrize("name", ["vector", "two_inputs", "two_outputs", "tuple_in_tuple_out"])
def test_forward_mode_with_vectorize_gives_the_same_values(name):
    """tandem has no forward AD: strategy="forward-mode" with vectorize=True is answered by reverse mode. (PyTorch's
    vmapped results carry a grad_fn although nothing required grad; tandem's results need no grad.)"""
    func, shapes, as_tuple = GENERAL[name]
    ours, theirs = both(shapes, "cpu")
    assert_tree(TF.jacobian(func, pack(ours, as_tuple), vectorize=True, strategy="forward-mode"),
                PF.jacobian(func, pack(theirs, as_tuple), vectorize=True, strategy="forward-mode"),
                requires_grad=False)
    func = SCALAR["two_inputs"][0]
    (x, y), (tx, ty) = both([(3,), (3,)], "cpu")
    assert_tree(TF.hessian(func, (x, y), vectorize=True, outer_jacobian_strategy="forward-mode"),
                PF.hessian(func, (tx, ty), vectorize=True, outer_jacobian_strategy="forward-mode"),
                requires_grad=False)


@pytest.mark.parametrize("api", ["hvp", "vhp"])
@pytest.mark.parametrize("name", sorted(SCALAR))
def test_hvp_vhp(name, api, device):
    func, shapes, as_tuple = SCALAR[name]
    ours, theirs = both(shapes, device)
    v_ours, v_theirs = both(shapes, device, seed=5)
    expected = getattr(PF, api)(func, pack(theirs, as_tuple), pack(v_theirs, as_tuple))
    assert_tree(getattr(TF, api)(func, pack(ours, as_tuple), pack(v_ours, as_tuple)), expected, device)


# ---------------------------------------------------------------- create_graph, grad modes, side effects

CREATE_GRAPH = {
    "jacobian": lambda F, x, v: F.jacobian(lambda a: a.sin() * a, x, create_graph=True),
    "hessian": lambda F, x, v: F.hessian(lambda a: (a ** 3).sum(), x, create_graph=True),
    "vjp": lambda F, x, v: F.vjp(lambda a: a.sin() * a, x, v, create_graph=True),
    "jvp": lambda F, x, v: F.jvp(lambda a: a.sin() * a, x, v, create_graph=True),
    "hvp": lambda F, x, v: F.hvp(lambda a: (a.exp() * a).sum(), x, v, create_graph=True),
    "vhp": lambda F, x, v: F.vhp(lambda a: (a.exp() * a).sum(), x, v, create_graph=True),
}


@pytest.mark.parametrize("name", sorted(CREATE_GRAPH))
def test_create_graph_results_are_differentiable(name, device):
    (x, v), (tx, tv) = both([(3,), (3,)], device)
    x.requires_grad_()
    tx.requires_grad_()
    ours, theirs = CREATE_GRAPH[name](TF, x, v), CREATE_GRAPH[name](PF, tx, tv)
    assert_tree(ours, theirs, device)
    last = ours[-1] if isinstance(ours, tuple) else ours
    t_last = theirs[-1] if isinstance(theirs, tuple) else theirs
    (g,) = tandem.autograd.grad(last.sum(), x)
    (tg,) = torch.autograd.grad(t_last.sum(), tx)
    assert_same(g, tg, device=device)


def test_inputs_are_not_accumulated_and_grad_mode_is_restored():
    (x,), _ = both([(3,)], "cpu")
    x.requires_grad_()
    with tandem.no_grad():
        out, jac = TF.vjp(lambda a: a.exp(), x, tandem.ones(3, dtype=tandem.float64))
        assert not tandem.is_grad_enabled()
    assert x.grad is None and not out.requires_grad and not jac.requires_grad
    assert tandem.is_grad_enabled()


def test_captured_input_is_a_constant():
    """func sees fresh tensor objects, so an input it also captures from outside counts as a constant."""
    (x,), (tx,) = both([(3,)], "cpu")
    assert_tree(TF.jacobian(lambda a: a * x, x), PF.jacobian(lambda a: a * tx, tx))


# ---------------------------------------------------------------- errors: same type and first line as PyTorch

def _v(L, *shape):
    return L.ones(*shape, dtype=L.float64)


ERRORS = {
    "non_tensor_input": lambda L, F: F.jacobian(lambda x: x, 3),
    "list_input": lambda L, F: F.vjp(lambda x: x, [_v(L, 2)], _v(L, 2)),
    "non_tensor_in_tuple": lambda L, F: F.jvp(lambda x, y: x, (_v(L, 2), 3.0), (_v(L, 2), _v(L, 2))),
    "non_tensor_output": lambda L, F: F.jacobian(lambda x: 3, _v(L, 2)),
    "non_tensor_in_output_tuple": lambda L, F: F.vjp(lambda x: (x, 2), _v(L, 2), (_v(L, 2), _v(L, 2))),
    "non_tensor_v": lambda L, F: F.hvp(lambda x: x.sum(), _v(L, 2), [1.0, 2.0]),
    "bad_strategy": lambda L, F: F.jacobian(lambda x: x, _v(L, 2), strategy="sideways"),
    "hessian_bad_strategy": lambda L, F: F.hessian(lambda x: x.sum(), _v(L, 2), outer_jacobian_strategy="up"),
    "forward_mode_loop": lambda L, F: F.jacobian(lambda x: x, _v(L, 2), strategy="forward-mode"),
    "forward_mode_create_graph": lambda L, F: F.jacobian(lambda x: x, _v(L, 2), create_graph=True,
                                                         strategy="forward-mode"),
    "forward_mode_strict": lambda L, F: F.jacobian(lambda x: x, _v(L, 2), strict=True, vectorize=True,
                                                   strategy="forward-mode"),
    "forward_mode_hessian": lambda L, F: F.hessian(lambda x: (x * x).sum(), _v(L, 2),
                                                   outer_jacobian_strategy="forward-mode"),
    "vectorize_strict": lambda L, F: F.jacobian(lambda x: x.exp(), _v(L, 2), strict=True, vectorize=True),
    "strict_output_needs_no_grad": lambda L, F: F.vjp(lambda x: x.detach(), _v(L, 2), _v(L, 2), strict=True),
    "strict_jacobian_unused_input": lambda L, F: F.jacobian(lambda x, y: x.exp(), (_v(L, 2), _v(L, 2)),
                                                            strict=True),
    "strict_vjp_unused_input": lambda L, F: F.vjp(lambda x, y: x.exp(), (_v(L, 2), _v(L, 2)), _v(L, 2),
                                                  strict=True),
    "strict_jvp_unused_input": lambda L, F: F.jvp(lambda x, y: x.exp(), (_v(L, 2), _v(L, 2)),
                                                  (_v(L, 2), _v(L, 2)), strict=True),
    "strict_jacobian_linear_create_graph": lambda L, F: F.jacobian(lambda x: x * 2, _v(L, 2), strict=True,
                                                                   create_graph=True),
    "strict_hessian_linear": lambda L, F: F.hessian(lambda x: (x * 2).sum(), _v(L, 2), strict=True),
    "strict_hessian_quadratic_create_graph": lambda L, F: F.hessian(lambda x: (x * x).sum(), _v(L, 2),
                                                                    strict=True, create_graph=True),
    "strict_vhp_linear": lambda L, F: F.vhp(lambda x: (x * 2).sum(), _v(L, 2), _v(L, 2), strict=True),
    "strict_hvp_quadratic_create_graph": lambda L, F: F.hvp(lambda x: (x * x).sum(), _v(L, 2), _v(L, 2),
                                                            strict=True, create_graph=True),
    "strict_vhp_unused_input": lambda L, F: F.vhp(lambda x, y: (x ** 3).sum(), (_v(L, 2), _v(L, 2)),
                                                  (_v(L, 2), _v(L, 2)), strict=True),
    "vjp_v_none_for_vector_output": lambda L, F: F.vjp(lambda x: x.exp(), _v(L, 2)),
    "jvp_v_none_for_vector_input": lambda L, F: F.jvp(lambda x: x.exp(), _v(L, 2)),
    "hvp_v_none_for_vector_input": lambda L, F: F.hvp(lambda x: x.sum(), _v(L, 2)),
    "v_wrong_size": lambda L, F: F.vjp(lambda x: x.exp(), _v(L, 2), _v(L, 3)),
    "v_wrong_size_in_tuple": lambda L, F: F.jvp(lambda x, y: x * y, (_v(L, 2), _v(L, 2)), (_v(L, 2), _v(L, 1))),
    "v_tuple_too_long": lambda L, F: F.vhp(lambda x, y: (x * y).sum(), (_v(L, 2), _v(L, 2)), (_v(L, 2),) * 3),
    "v_tuple_for_single": lambda L, F: F.vjp(lambda x: x.exp(), _v(L, 2), (_v(L, 2), _v(L, 2))),
    "hessian_vector_output": lambda L, F: F.hessian(lambda x: x * x, _v(L, 2)),
    "hessian_tuple_output": lambda L, F: F.hessian(lambda x: (x.sum(), x.sum()), _v(L, 2)),
    "hvp_vector_output": lambda L, F: F.hvp(lambda x: x * x, _v(L, 2), _v(L, 2)),
    "vhp_tuple_output": lambda L, F: F.vhp(lambda x: (x.sum(),), _v(L, 2), _v(L, 2)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_pytorch(name):
    assert error_of(lambda: ERRORS[name](tandem, TF)) == error_of(lambda: ERRORS[name](torch, PF))
