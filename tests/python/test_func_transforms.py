"""tandem.func (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap, linearize, stack_module_state)
against torch.func: values (float64), result structure, dtype, device and requires_grad, nesting (grad of grad,
vmap of grad: the per-sample-gradient recipe), interaction with the caller's autograd, and error types and
messages. Each case is one function written with methods both libraries share, run under both."""
import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error, rand_values


def pair(*shapes, device="cpu", seed=0):
    """The same float64 values as tandem tensors on `device` and as torch tensors (one per shape)."""
    values = [rand_values(*s, seed=seed + i) for i, s in enumerate(shapes)]
    ours = [tandem.tensor(v, dtype=tandem.float64, device=device) for v in values]
    theirs = [torch.tensor(v, dtype=torch.float64) for v in values]
    return ours, theirs


def assert_tree(ours, theirs, device, requires_grad=False):
    """Same containers (tuple/list/dict) and, at the leaves, the same values, dtypes, device and requires_grad."""
    if isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), (type(ours), ours)
        for o, t in zip(ours, theirs):
            assert_tree(o, t, device, requires_grad)
        return
    if isinstance(theirs, dict):
        assert type(ours) is type(theirs) and list(ours) == list(theirs)
        for k in theirs:
            assert_tree(ours[k], theirs[k], device, requires_grad)
        return
    assert isinstance(ours, tandem.Tensor), type(ours)
    assert ours.requires_grad == theirs.requires_grad == requires_grad, (ours.requires_grad, theirs.requires_grad)
    assert_same(ours.detach(), theirs.detach(), device=device)


def run_both(case, device, *shapes, requires_grad=False):
    ours, theirs = pair(*shapes, device=device)
    assert_tree(case(tandem, *ours), case(torch, *theirs), device, requires_grad)


# ---------------------------------------------------------------- grad, grad_and_value

GRAD_CASES = {
    "scalar": (lambda lib, x: lib.func.grad(lambda x: (x.sin() * x).sum())(x), [(4,)]),
    "argnums_tuple": (lambda lib, x, y: lib.func.grad(lambda x, y: (x * y.exp()).sum(), argnums=(0, 1))(x, y),
                      [(3,), (3,)]),
    "argnum_negative": (lambda lib, x, y: lib.func.grad(lambda x, y: (x * y ** 2).sum(), argnums=-1)(x, y),
                        [(2, 3), (2, 3)]),
    "has_aux": (lambda lib, x: lib.func.grad(lambda x: ((x ** 3).sum(), (x.cos(), {"n": x.sum()})), has_aux=True)(x),
                [(5,)]),
    "value": (lambda lib, x: lib.func.grad_and_value(lambda x: x.tanh().pow(2).mean())(x), [(2, 2)]),
    "value_aux": (lambda lib, x: lib.func.grad_and_value(lambda x: (x.sum(), x * 2), has_aux=True)(x), [(3,)]),
    "dict_argument": (lambda lib, w, b: lib.func.grad(lambda p, z: (p["w"] @ z + p["b"]).pow(2).sum())(
        {"w": w, "b": b}, lib.ones(3, dtype=w.dtype, device=w.device)), [(2, 3), (2,)]),
    "kwargs_not_differentiated": (lambda lib, x, y: lib.func.grad(lambda x, scale: (x * scale).sum())(x, scale=y),
                                  [(3,), (3,)]),
    "unused_input_is_zero": (lambda lib, x, y: lib.func.grad(lambda x, y: (x * 2).sum(), argnums=1)(x, y),
                             [(3,), (2,)]),
    "constant_output": (lambda lib, x: lib.func.grad(lambda x: lib.ones((), dtype=x.dtype, device=x.device))(x),
                        [(3,)]),
    "grad_of_grad": (lambda lib, x: lib.func.grad(lambda x: lib.func.grad(lambda x: (x.sin() * x).sum())(x).sum())(x),
                     [(4,)]),
    "grad_of_grad_of_grad": (lambda lib, x: lib.func.grad(lambda a: lib.func.grad(
        lambda b: lib.func.grad(lambda c: (c ** 4).sum())(b).sum())(a).sum())(x), [(3,)]),
    "no_perturbation_confusion": (lambda lib, x: lib.func.grad(
        lambda x: lib.func.grad(lambda y: (x * y).sum())(x).sum())(x), [(3,)]),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_grad_matches_torch(name, device):
    case, shapes = GRAD_CASES[name]
    run_both(case, device, *shapes)


def test_grad_keeps_the_callers_graph(device):
    """A tensor the function closes over that requires grad: the gradient stays differentiable w.r.t. it."""
    def case(lib, x, w):
        w = w.requires_grad_()
        g = lib.func.grad(lambda x: ((x * w).sum()) ** 2)(x)
        assert g.requires_grad and g.grad_fn is not None
        g.pow(2).sum().backward()
        return g.detach(), w.grad

    run_both(case, device, (3,), (3,))


def test_grad_of_an_input_that_requires_grad(device):
    def case(lib, x):
        x = x.requires_grad_()
        g = lib.func.grad(lambda x: (x ** 3).sum())(x)
        (gx,) = lib.autograd.grad(g.sum(), x)
        return g.detach(), gx

    run_both(case, device, (4,))


def test_grad_ignores_an_enclosing_no_grad(device):
    def case(lib, x):
        with lib.no_grad():
            return lib.func.grad(lambda x: (x.exp() * x).sum())(x)

    run_both(case, device, (3,))


GRAD_ERRORS = [
    lambda lib: lib.func.grad(lambda x: x * 2)(lib.ones(3)),
    lambda lib: lib.func.grad(lambda x: 3.0)(lib.ones(3)),
    lambda lib: lib.func.grad(lambda x: x.sum(), has_aux=True)(lib.ones(3)),
    lambda lib: lib.func.grad(lambda x: x.sum(), argnums=2)(lib.ones(3)),
    lambda lib: lib.func.grad(lambda x: x.sum(), argnums=(0, 0))(lib.ones(3)),
    lambda lib: lib.func.grad(lambda x: x.sum(), argnums=())(lib.ones(3)),
    lambda lib: lib.func.grad(lambda x: x.sum(), argnums=[0])(lib.ones(3)),
    lambda lib: lib.func.grad(lambda x: x.sum(), argnums=0.5)(lib.ones(3)),
    lambda lib: lib.func.grad(lambda x, n: x.sum(), argnums=1)(lib.ones(3), 2),
]


@pytest.mark.parametrize("case", GRAD_ERRORS)
def test_grad_errors_match_torch(case):
    assert_same_error(case)


# ---------------------------------------------------------------- vjp, jvp, linearize

def test_vjp_matches_torch(device):
    def case(lib, x, y, v):
        out, fn = lib.func.vjp(lambda x, y: x * y.exp(), x, y)
        return out, fn(v), fn(v * 2)  # vjp_fn can be called again

    run_both(case, device, (3,), (3,), (3,))


def test_vjp_tuple_output_and_aux(device):
    def case(lib, x, v):
        out, fn, aux = lib.func.vjp(lambda x: ((x.sin(), x.sum()), x.cos()), x, has_aux=True)
        return out, fn((v, v.sum())), aux

    run_both(case, device, (4,), (4,))


def test_vjp_of_vjp(device):
    def case(lib, x, v):
        def inner(x):
            return lib.func.vjp(lambda x: x ** 3, x)[1](v)[0]
        return lib.func.vjp(inner, x)[1](v)

    run_both(case, device, (3,), (3,))


VJP_ERRORS = [
    lambda lib: lib.func.vjp(lambda x: x, lib.ones(3))[1]((lib.ones(3),)),
    lambda lib: lib.func.vjp(lambda x: (x, x), lib.ones(3))[1](lib.ones(3)),
    lambda lib: lib.func.vjp(lambda x: 3, lib.ones(3)),
    lambda lib: lib.func.vjp(lambda x: x, lib.ones(3), has_aux=True),
    lambda lib: lib.func.vjp(lambda x: x, 3.0),
]


@pytest.mark.parametrize("case", VJP_ERRORS)
def test_vjp_errors_match_torch(case):
    assert_same_error(case)


def test_vjp_of_an_integer_output_is_refused():
    with pytest.raises(RuntimeError, match=r"^vjp\(f, \.\.\.\): All outputs of f must be floating-point or complex "
                                           r"Tensors, got Tensor with dtype tandem.int64$"):
        tandem.func.vjp(lambda x: x.long(), tandem.ones(3))


JVP_CASES = {
    "single": (lambda lib, x, t: lib.func.jvp(lambda x: x.sin() * x, (x,), (t,)), [(4,), (4,)]),
    "two_inputs_tuple_out": (lambda lib, x, y, t, u: lib.func.jvp(lambda x, y: (x * y, (x ** 2).sum()), (x, y),
                                                                  (t, u)), [(3,), (3,), (3,), (3,)]),
    "has_aux": (lambda lib, x, t: lib.func.jvp(lambda x: (x.exp(), x.sum()), (x,), (t,), has_aux=True),
                [(2, 2), (2, 2)]),
    "independent_output": (lambda lib, x, t: lib.func.jvp(lambda x: lib.ones(2, dtype=x.dtype, device=x.device),
                                                          (x,), (t,)), [(3,), (3,)]),
    "jvp_of_grad": (lambda lib, x, t: lib.func.jvp(lib.func.grad(lambda x: (x.sin() * x ** 2).sum()), (x,), (t,)),
                    [(4,), (4,)]),
    "linearize": (lambda lib, x, t: (lambda r: (r[0], r[1](t), r[1](t * 3)))(
        lib.func.linearize(lambda x: x.tanh() * 2, x)), [(3,), (3,)]),
    "through_conv_and_pooling": (lambda lib, x, w, t, u: lib.func.jvp(lambda x, w: small_cnn(lib, x, w), (x, w),
                                                                       (t, u)), [(1, 1, 6, 6), (2, 1, 3, 3)] * 2),
}


def small_cnn(lib, x, w):
    F = lib.nn.functional
    y = F.conv2d(x, w, padding=1, stride=1).tanh()
    return F.avg_pool2d(F.max_pool2d(y, 2), 1) + F.adaptive_avg_pool2d(y, (3, 3))


@pytest.mark.parametrize("name", list(JVP_CASES))
def test_jvp_matches_torch(name, device):
    case, shapes = JVP_CASES[name]
    run_both(case, device, *shapes)


JVP_ERRORS = [
    lambda lib: lib.func.jvp(lambda x: x, lib.ones(3), lib.ones(3)),
    lambda lib: lib.func.jvp(lambda x: x, (lib.ones(3),), [lib.ones(3)]),
    lambda lib: lib.func.jvp(lambda x: x, (), ()),
    lambda lib: lib.func.jvp(lambda x: x, (3.0,), (1.0,)),
    lambda lib: lib.func.jvp(lambda x: 3, (lib.ones(3),), (lib.ones(3),)),
    lambda lib: lib.func.jvp(lambda x: x, (lib.ones(3),), (lib.ones(3),), has_aux=True),
    lambda lib: lib.func.jvp(lambda x: lib.ones(2), (lib.ones(3),), (lib.ones(3),), strict=True),
    lambda lib: lib.func.jvp(lambda x: x, (lib.ones(3),), (lib.ones(2),)),
]


@pytest.mark.parametrize("case", JVP_ERRORS)
def test_jvp_errors_match_torch(case):
    assert_same_error(case)


# ---------------------------------------------------------------- jacrev, jacfwd, hessian

JAC_CASES = {
    "vector": (lambda lib, jac, x: jac(lambda x: x.sin() * x.sum())(x), [(4,)]),
    "matrix_in_out": (lambda lib, jac, x: jac(lambda x: x @ x.t())(x), [(2, 3)]),
    "scalar_out": (lambda lib, jac, x: jac(lambda x: (x ** 2).sum())(x), [(3,)]),
    "argnums_tuple": (lambda lib, jac, x, y: jac(lambda x, y: x * y.exp(), argnums=(0, 1))(x, y), [(3,), (3,)]),
    "tuple_output": (lambda lib, jac, x: jac(lambda x: (x.exp(), x.sum(), x[:2] * 3))(x), [(3,)]),
    "has_aux": (lambda lib, jac, x: jac(lambda x: (x.cos(), x.sin()), has_aux=True)(x), [(3,)]),
    "dict_input": (lambda lib, jac, w, b: jac(lambda p: p["w"].sum(0) * p["b"])({"w": w, "b": b}),
                   [(2, 3), (3,)]),
    "jac_of_jac": (lambda lib, jac, x: jac(jac(lambda x: x.sin() * x.prod()))(x), [(3,)]),
}


@pytest.mark.parametrize("which", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("name", list(JAC_CASES))
def test_jacobians_match_torch(name, which, device):
    case, shapes = JAC_CASES[name]
    run_both(lambda lib, *xs: case(lib, getattr(lib.func, which), *xs), device, *shapes)


@pytest.mark.parametrize("name", ["scalar", "argnums"])
def test_hessian_matches_torch(name, device):
    if name == "scalar":
        run_both(lambda lib, x: lib.func.hessian(lambda x: (x ** 3).sum() * x[0])(x), device, (3,))
    else:
        run_both(lambda lib, x, y: lib.func.hessian(lambda x, y: (x.sin() * y).sum(), argnums=(0, 1))(x, y), device,
                 (2,), (2,))


def test_hessian_through_conv_and_pooling_matches_torch(device):
    run_both(lambda lib, x, w: lib.func.hessian(lambda w: small_cnn(lib, x, w).pow(2).sum())(w), device,
             (1, 1, 6, 6), (2, 1, 3, 3))


JAC_ERRORS = [
    lambda lib: lib.func.jacrev(lambda x: x, chunk_size=0),
    lambda lib: lib.func.jacfwd(lambda x: x, randomness="sometimes")(lib.ones(2)),
    lambda lib: lib.func.jacrev(lambda x: x, argnums=1)(lib.ones(2)),
    lambda lib: lib.func.jacrev(lambda x: 3)(lib.ones(2)),
    lambda lib: lib.func.jacrev(lambda x: x)(lib.ones(2, dtype=lib.complex64)),
]


@pytest.mark.parametrize("case", JAC_ERRORS)
def test_jacobian_errors_match_torch(case):
    assert_same_error(case)


# ---------------------------------------------------------------- vmap

VMAP_CASES = {
    "default": (lambda lib, x: lib.func.vmap(lambda a: a.sum() * a)(x), [(4, 3)]),
    "in_dims_none": (lambda lib, x, y: lib.func.vmap(lambda a, b: a @ b, in_dims=(0, None))(x, y), [(4, 3), (3,)]),
    "in_dim_1": (lambda lib, x: lib.func.vmap(lambda a: a.cumsum(0), in_dims=1)(x), [(3, 5)]),
    "in_dim_negative": (lambda lib, x: lib.func.vmap(lambda a: a * 2, in_dims=-1)(x), [(2, 3, 4)]),
    "nested_in_dims": (lambda lib, x, y: lib.func.vmap(lambda p, s: p[0] * p[1] + s, in_dims=((0, 1), None))(
        (x, y), 2.0), [(3, 2), (2, 3)]),
    "dict_in_dims": (lambda lib, x, y: lib.func.vmap(lambda d: d["a"] - d["b"], in_dims=({"a": 0, "b": None},))(
        {"a": x, "b": y}), [(4, 2), (2,)]),
    "out_dims_1": (lambda lib, x: lib.func.vmap(lambda a: a.outer(a), out_dims=1)(x), [(3, 2)]),
    "out_dims_negative": (lambda lib, x: lib.func.vmap(lambda a: a * 3, out_dims=-1)(x), [(3, 2)]),
    "out_dims_tuple": (lambda lib, x: lib.func.vmap(lambda a: (a * 2, a.sum()), out_dims=(1, 0))(x), [(2, 3)]),
    "out_dims_none_for_unbatched": (lambda lib, x, y: lib.func.vmap(lambda a, b: (a * 2, b), (0, None),
                                                                    out_dims=(0, None))(x, y), [(3, 2), (4,)]),
    "unbatched_output_is_expanded": (lambda lib, x, y: lib.func.vmap(lambda a, b: b * 2, in_dims=(0, None))(x, y),
                                     [(3, 2), (4,)]),
    "kwargs_not_mapped": (lambda lib, x, y: lib.func.vmap(lambda a, scale: a * scale)(x, scale=y), [(3, 2), (2,)]),
    "nested_vmap": (lambda lib, x: lib.func.vmap(lib.func.vmap(lambda a: a ** 2 + 1))(x), [(2, 3)]),
    "nested_vmap_outer_product": (lambda lib, x, y: lib.func.vmap(lib.func.vmap(lambda a, b: a * b, (None, 0)),
                                                                  (0, None))(x, y), [(3,), (4,)]),
    "chunk_size": (lambda lib, x: lib.func.vmap(lambda a: a.exp(), chunk_size=2)(x), [(5, 2)]),
    "vmap_of_grad": (lambda lib, x: lib.func.vmap(lib.func.grad(lambda a: (a.sin() * a).sum()))(x), [(4, 3)]),
    "vmap_of_jacrev": (lambda lib, x: lib.func.vmap(lib.func.jacrev(lambda a: a.sin() * a.sum()))(x), [(2, 3)]),
    "grad_of_vmap": (lambda lib, x: lib.func.grad(lambda a: lib.func.vmap(lambda r: r.pow(3).sum())(a).sum())(x),
                     [(3, 2)]),
    "vmap_of_vjp": (lambda lib, x, v: lib.func.vmap(lambda a, w: lib.func.vjp(lambda z: z.exp() * z, a)[1](w))(x, v),
                    [(3, 2), (3, 2)]),
}


@pytest.mark.parametrize("name", list(VMAP_CASES))
def test_vmap_matches_torch(name, device):
    case, shapes = VMAP_CASES[name]
    run_both(case, device, *shapes)


def test_vmap_keeps_the_callers_graph(device):
    def case(lib, x):
        x = x.requires_grad_()
        y = lib.func.vmap(lambda a: a.sin() * a.sum())(x)
        y.sum().backward()
        return y.detach(), x.grad

    run_both(case, device, (3, 2))


def test_vmap_randomness(device):
    x = tandem.zeros(4, 3, device=device)
    tandem.manual_seed(0)
    same = tandem.func.vmap(lambda a: a + tandem.rand(3, device=device), randomness="same")(x)
    assert same.device == tandem.device(device) and tuple(same.shape) == (4, 3)
    assert all(tandem.equal(same[i], same[0]) for i in range(4))
    different = tandem.func.vmap(lambda a: a + tandem.rand(3, device=device), randomness="different")(x)
    assert len({tuple(different[i].tolist()) for i in range(4)}) == 4
    state = tandem.get_rng_state()
    with pytest.raises(RuntimeError, match=r"^vmap: called random operation while in randomness error mode\. Please "
                                           r"either use the 'same' or 'different' randomness flags on vmap or "
                                           r"perform the randomness operation out of vmap$"):
        tandem.func.vmap(lambda a: a + tandem.rand(3, device=device))(x)
    if device == "cpu":
        assert tandem.equal(tandem.get_rng_state(), state)  # the refused call drew nothing in the end


def test_top_level_vmap_is_func_vmap():
    assert tandem.vmap is tandem.func.vmap and torch.vmap is torch.func.vmap


def test_vmap_keeps_the_function_name():
    def scaled(a):
        return a * 2

    assert tandem.func.vmap(scaled).__name__ == torch.func.vmap(scaled).__name__ == "scaled"
    assert tandem.func.grad(scaled).__name__ == "scaled"


VMAP_ERRORS = [
    lambda lib: lib.func.vmap(lambda a: a, in_dims=(0, 0))(lib.ones(3)),
    lambda lib: lib.func.vmap(lambda a: a, in_dims=5)(lib.ones(3)),
    lambda lib: lib.func.vmap(lambda a: a, in_dims=-3)(lib.ones(2, 3)),
    lambda lib: lib.func.vmap(lambda a, b: a, in_dims=(0, 0))(lib.ones(3), lib.ones(2)),
    lambda lib: lib.func.vmap(lambda a: a, in_dims=[0])(lib.ones(3)),
    lambda lib: lib.func.vmap(lambda a: a, in_dims=None)(lib.ones(3)),
    lambda lib: lib.func.vmap(lambda a: a, in_dims=(None,))(lib.ones(3)),
    lambda lib: lib.func.vmap(lambda a: a, in_dims=(1.5,))(lib.ones(3)),
    lambda lib: lib.func.vmap(lambda a: a, in_dims=0)(3),
    lambda lib: lib.func.vmap(lambda: 1)(),
    lambda lib: lib.func.vmap(lambda a: 3)(lib.ones(3)),
    lambda lib: lib.func.vmap(lambda a: a, out_dims=(0, 1))(lib.ones(3)),
    lambda lib: lib.func.vmap(lambda a: (a, a), out_dims=(0, 1, 2))(lib.ones(3)),
    lambda lib: lib.func.vmap(lambda a: a, out_dims="x")(lib.ones(3)),
    lambda lib: lib.func.vmap(lambda a: a, out_dims=None)(lib.arange(3.0)),
    lambda lib: lib.func.vmap(lambda a: a, chunk_size=0),
    lambda lib: lib.func.vmap(lambda a: a, randomness="sometimes"),
    lambda lib: lib.func.vmap(lambda a: a.sum(), out_dims=1)(lib.ones(3)),
]


@pytest.mark.parametrize("case", VMAP_ERRORS)
def test_vmap_errors_match_torch(case):
    assert_same_error(case)


# ---------------------------------------------------------------- the tutorials' recipes

def small_models(seed=0):
    """A torch MLP and a tandem MLP with the same float64 weights."""
    torch.manual_seed(seed)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    ours = tandem.nn.Sequential(tandem.nn.Linear(3, 4), tandem.nn.Tanh(), tandem.nn.Linear(4, 2)).double()
    with tandem.no_grad():
        for p, q in zip(ours.parameters(), theirs.parameters()):
            p.copy_(tandem.tensor(q.detach().tolist(), dtype=tandem.float64))
    return ours, theirs


def test_per_sample_gradients_recipe(device):
    """PyTorch's per-sample-gradients tutorial: vmap(grad(compute_loss)) over functional_call."""
    ours, theirs = small_models()
    ours.to(device)

    def case(lib, model, data, targets):
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def compute_loss(params, buffers, sample, target):
            predictions = lib.func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
            return lib.nn.functional.mse_loss(predictions, target.unsqueeze(0))

        per_sample = lib.func.vmap(lib.func.grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data,
                                                                                            targets)
        # the same gradients one sample at a time with ordinary autograd
        for i in range(data.shape[0]):
            model.zero_grad()
            lib.nn.functional.mse_loss(model(data[i:i + 1]), targets[i:i + 1]).backward()
            for k, p in model.named_parameters():
                assert lib.allclose(per_sample[k][i], p.grad)
        return per_sample

    (data, targets), (tdata, ttargets) = pair((5, 3), (5, 2), device=device, seed=3)
    assert_tree(case(tandem, ours, data, targets), case(torch, theirs, tdata, ttargets), device)


def test_model_ensembling_recipe(device):
    """PyTorch's model-ensembling tutorial: stack_module_state, then vmap over functional_call."""
    pairs = [small_models(seed) for seed in range(3)]
    for ours, _ in pairs:
        ours.to(device)

    def case(lib, models, x):
        params, buffers = lib.func.stack_module_state(models)
        assert all(p.requires_grad and p.is_leaf for p in params.values())
        base = models[0]

        def fmodel(params, buffers, x):
            return lib.func.functional_call(base, (params, buffers), (x,))

        return lib.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x), params

    ours_x, theirs_x = pair((4, 3), device=device, seed=5)
    out, params = case(tandem, [m for m, _ in pairs], ours_x[0])
    tout, tparams = case(torch, [m for _, m in pairs], theirs_x[0])
    assert_tree(out, tout, device, requires_grad=True)
    assert_tree(params, tparams, device, requires_grad=True)


STACK_ERRORS = [
    lambda lib: lib.func.stack_module_state([]),
    lambda lib: lib.func.stack_module_state([lib.nn.Linear(2, 2), lib.nn.Linear(2, 2).eval()]),
    lambda lib: lib.func.stack_module_state([lib.nn.Linear(2, 2), lib.nn.Tanh()]),
    lambda lib: lib.func.stack_module_state([lib.nn.Linear(2, 2), lib.nn.Linear(2, 2).requires_grad_(False)]),
]


@pytest.mark.parametrize("case", STACK_ERRORS)
def test_stack_module_state_errors_match_torch(case):
    assert_same_error(case)


# ---------------------------------------------------------------- pytree specs (they appear in messages)

@pytest.mark.parametrize("tree", [
    lambda lib: (lib.ones(1), [lib.ones(1), {"a": lib.ones(1), "b": 3}]),
    lambda lib: lib.ones(1),
    lambda lib: (None,),
    lambda lib: {"x": [1, 2], "y": ()},
])
def test_treespec_matches_torch(tree):
    from tandem.utils import _pytree as ours
    from torch.utils import _pytree as theirs

    leaves, spec = ours.tree_flatten(tree(tandem))
    tleaves, tspec = theirs.tree_flatten(tree(torch))
    assert repr(spec) == repr(tspec) and len(leaves) == len(tleaves)
    assert ours.tree_unflatten(leaves, spec).__class__ is tree(tandem).__class__


def test_jvp_refuses_a_backward_without_a_graph():
    """jvp differentiates a vjp: a backward that records no graph (here a custom Function's) is refused rather
    than giving a silent zero. (The Function has the setup_context and jvp staticmethods that PyTorch's transforms
    ask for; tandem differentiates its backward instead of calling its jvp.)"""
    class FirstOrder(tandem.autograd.Function):
        @staticmethod
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return (g * 2 * x).detach()

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return 2 * x * t

    with pytest.raises(NotImplementedError, match=r"^jvp\(f, primals, tangents\): tandem computes jvp as the "
                                                  r"derivative of a vector-Jacobian product, .*\nhint: use the "
                                                  r"reverse-mode transforms \(vjp, jacrev\)"):
        tandem.func.jvp(FirstOrder.apply, (tandem.ones(3),), (tandem.ones(3),))


def test_replace_all_batch_norm_modules_matches_torch(device):
    def case(lib, x):
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4),
                                  lib.nn.InstanceNorm1d(2, track_running_stats=True))
        assert lib.func.replace_all_batch_norm_modules_(model) is model
        bn, inorm = model[1], model[2]
        assert bn.running_mean is None and bn.running_var is None and bn.num_batches_tracked is None
        assert not bn.track_running_stats
        assert inorm.track_running_stats and inorm.running_mean is not None
        assert [n for n, _ in model.named_buffers()] == ["2.running_mean", "2.running_var", "2.num_batches_tracked"]
        model.eval()  # still normalizes with the batch's statistics
        with lib.no_grad():
            for p in model.parameters():
                p.fill_(0.5)
        return model[:2].to(x.device).double()(x).detach()

    run_both(case, device, (5, 3))


def test_functionalize_and_debug_unwrap():
    def f(x):
        y = x.clone()
        y.add_(1)
        x.mul_(2)
        return y

    for lib in (tandem, torch):
        x = lib.ones(3)
        assert lib.func.functionalize(f)(x).tolist() == [2.0, 2.0, 2.0] and x.tolist() == [2.0, 2.0, 2.0]
        assert lib.func.debug_unwrap(x) is x
    assert_same_error(lambda lib: lib.func.functionalize(f, remove="everything"))
