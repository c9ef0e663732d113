"""The eighteenth program sweep: scientific machine learning, 3-D geometry and rendering, data pipelines, text from
scratch, evaluation metrics and hand-written optimisers, each program written once against a module called `torch`,
run with PyTorch and with tandem standing in for it, and their results compared. The programs live in
sweep18_physics.py (a heat-equation PINN, Hamiltonian and Lagrangian networks, a neural ODE through RK4, torch.func
physics losses, autograd.functional, a vmapped PINN ensemble, custom Functions under transforms, forward-mode AD),
sweep18_geometry.py (quaternions and slerp, so(3) maps, camera projection, NeRF rendering and hierarchical
sampling, sphere tracing), sweep18_data.py (pandas to tensors, samplers, random_split, dataset composition,
collation, a DataLoader pipeline), sweep18_text.py (BPE, n-grams, skip-gram, a char-CNN, perplexity, TF-IDF),
sweep18_metrics.py (ROC/PR, confusion scores, calibration, ranking, bootstrap intervals, regression metrics) and
sweep18_optim.py (Adam/AdamW/RMSprop by hand, Lookahead, a custom Optimizer, LR schedules). The focused tests
below cover what they found (docs/compat.md, "Program sweep 18")."""
import pytest

import sweep18_data
import sweep18_geometry
import sweep18_metrics
import sweep18_optim
import sweep18_physics
import sweep18_text
import tandem
from test_programs_sweeputil import program_test, same_outcome

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep18_physics, sweep18_geometry, sweep18_data, sweep18_text, sweep18_metrics, sweep18_optim)


test_program_matches_pytorch = program_test(_MODULES, DEVICES)


# ---- autograd.Function under torch.func transforms: PyTorch's setup_context, vmap-support and jvp checks ------------
def _functions(L):
    class OldStyle(L.autograd.Function):  # forward(ctx, ...): no setup_context
        @staticmethod
        def forward(ctx, v):
            return v * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Split(L.autograd.Function):  # setup_context, but neither a vmap rule nor a jvp
        @staticmethod
        def forward(v):
            return v * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Generated(Split):
        generate_vmap_rule = True

        @staticmethod
        def jvp(ctx, t):
            return t * 2

    class OwnRule(Split):
        @staticmethod
        def vmap(info, in_dims, v):
            return v * 2, in_dims[0]

    class BothRules(OwnRule):
        generate_vmap_rule = True

    return {"old": OldStyle, "split": Split, "generated": Generated, "own_rule": OwnRule, "both": BothRules}


_TRANSFORMS = {
    "vmap": lambda L, F, x: L.func.vmap(F.apply)(x),
    "grad": lambda L, F, x: L.func.grad(lambda v: F.apply(v).sum())(x),
    "grad_and_value": lambda L, F, x: L.func.grad_and_value(lambda v: F.apply(v).sum())(x),
    "vjp": lambda L, F, x: L.func.vjp(F.apply, x)[0],
    "jacrev": lambda L, F, x: L.func.jacrev(F.apply)(x),
    "jvp": lambda L, F, x: L.func.jvp(F.apply, (x,), (L.ones_like(x),)),
    "jacfwd": lambda L, F, x: L.func.jacfwd(F.apply)(x),
    "hessian": lambda L, F, x: L.func.hessian(lambda v: F.apply(v).sum())(x),
    "linearize": lambda L, F, x: L.func.linearize(F.apply, x)[1](L.ones_like(x)),
    "vmap_of_grad": lambda L, F, x: L.func.vmap(L.func.grad(lambda v: F.apply(v).sum()))(x.view(-1, 1)),
    "outside": lambda L, F, x: L.func.grad(lambda v: v.sum())(F.apply(x)),
    "functional_jacobian": lambda L, F, x: L.autograd.functional.jacobian(F.apply, x),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("function", ["old", "split", "generated", "own_rule", "both"])
@pytest.mark.parametrize("transform", list(_TRANSFORMS))
def test_custom_function_under_transforms_matches_pytorch(transform, function, device):
    """PyTorch refuses a Function without setup_context under any functorch transform, one without a vmap rule
    (or with both generate_vmap_rule and a vmap staticmethod) under vmap, jacfwd and hessian, and one without a
    jvp staticmethod under jvp, jacfwd, hessian and linearize; the supported ones compute."""
    def run(L, d):
        x = L.tensor([0.5, -1.0, 2.0], device=d)
        return _TRANSFORMS[transform](L, _functions(L)[function], x)
    same_outcome(run, device)


def test_tandems_own_functions_still_run_under_transforms():
    """tandem's internal Functions stand for PyTorch's native ops (binary cross-entropy, the LSTM layer), which
    every transform supports."""
    x = tandem.tensor([[0.2, 0.7], [0.9, 0.4]], requires_grad=False)
    y = tandem.tensor([[0.0, 1.0], [1.0, 0.0]])
    g = tandem.func.grad(lambda v: tandem.nn.functional.binary_cross_entropy(v, y))(x)
    want = torch.func.grad(lambda v: torch.nn.functional.binary_cross_entropy(v, torch.tensor(y.tolist())))(
        torch.tensor(x.tolist()))
    assert g.flatten().tolist() == pytest.approx(want.flatten().tolist())
    lstm = tandem.nn.LSTM(2, 3)
    out = tandem.func.vmap(lambda s: lstm(s)[0])(tandem.ones(2, 4, 2))
    assert list(out.shape) == [2, 4, 3]


def test_transform_state_is_restored_after_an_error():
    F = _functions(tandem)
    with pytest.raises(RuntimeError, match="does not have vmap support"):
        tandem.func.vmap(F["split"].apply)(tandem.ones(3))
    assert F["old"].apply(tandem.ones(3)).tolist() == [2.0, 2.0, 2.0]  # outside any transform: no checks


# ---- autograd.Function's vjp: PyTorch's alias of backward ----------------------------------------------------------
def _vjp_functions(L):
    class ByVjp(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def vjp(ctx, g):
            return g * 3

    class Both(ByVjp):
        @staticmethod
        def backward(ctx, g):
            return g * 3

    class Neither(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

    return {"vjp": ByVjp, "both": Both, "neither": Neither}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", ["vjp", "both", "neither"])
def test_function_vjp_alias_matches_pytorch(kind, device):
    def run(L, d):
        x = L.tensor([1.0, -2.0], device=d, requires_grad=True)
        y = _vjp_functions(L)[kind].apply(x)
        (g,) = L.autograd.grad(y.sum(), x)
        return y, g
    same_outcome(run, device)


def test_function_class_attributes_match_pytorch():
    for L in (tandem, torch):
        F = L.autograd.Function
        assert F.vjp is F.backward
        assert F.generate_vmap_rule is False
    with pytest.raises(NotImplementedError, match="^You must implement the jvp function for custom "
                                                  "autograd.Function to use it with forward mode AD.$"):
        tandem.autograd.Function.jvp(None, None)
    with pytest.raises(NotImplementedError, match="^To use autograd.Function with vmap, you must either override "
                                                  "the vmap staticmethod or set generate_vmap_rule=True.$"):
        tandem.autograd.Function.vmap(None, None)


# ---- batch norm under vmap: running statistics that are not batched are refused in training, as in PyTorch ---------
_BN_VMAP = {
    "module": lambda L, d: L.func.vmap(L.nn.BatchNorm1d(3).to(d))(L.ones(2, 4, 3, device=d)),
    "module_2d": lambda L, d: L.func.vmap(L.nn.BatchNorm2d(2).to(d))(L.ones(3, 4, 2, 2, 2, device=d)),
    "functional": lambda L, d: L.func.vmap(lambda x: L.nn.functional.batch_norm(
        x, L.zeros(3, device=d), L.ones(3, device=d), training=True))(L.ones(2, 4, 3, device=d)),
    "running_var_only_batched": lambda L, d: L.func.vmap(lambda x, rv: L.nn.functional.batch_norm(
        x, L.zeros(3, device=d), rv, training=True))(L.ones(2, 4, 3, device=d), L.ones(2, 3, device=d)),
    "eval_stats": lambda L, d: L.func.vmap(lambda x: L.nn.functional.batch_norm(
        x, L.zeros(3, device=d), L.ones(3, device=d), training=False))(L.ones(2, 4, 3, device=d)),
    "no_stats": lambda L, d: L.func.vmap(lambda x: L.nn.functional.batch_norm(x, None, None, training=True))(
        L.ones(2, 4, 3, device=d)),
    "batched_stats": lambda L, d: L.func.vmap(lambda x, rm, rv: L.nn.functional.batch_norm(x, rm, rv, training=True))(
        L.arange(24.0, device=d).view(2, 4, 3), L.zeros(2, 3, device=d), L.ones(2, 3, device=d)),
    "unbatched_input": lambda L, d: L.func.vmap(
        lambda x, rm, rv: L.nn.functional.batch_norm(x, rm, rv, training=True), in_dims=(None, 0, 0))(
        L.arange(12.0, device=d).view(4, 3), L.zeros(2, 3, device=d), L.ones(2, 3, device=d)),
    "instance_tracked": lambda L, d: L.func.vmap(L.nn.InstanceNorm1d(3, track_running_stats=True).to(d))(
        L.ones(2, 3, 4, device=d)),
    "instance_plain": lambda L, d: L.func.vmap(L.nn.InstanceNorm1d(3).to(d))(L.arange(24.0, device=d).view(2, 3, 4)),
    "eval_module": lambda L, d: L.func.vmap(L.nn.BatchNorm1d(3).to(d).eval())(L.ones(2, 4, 3, device=d)),
    "untracked": lambda L, d: L.func.vmap(L.nn.BatchNorm1d(3, track_running_stats=False).to(d))(
        L.arange(24.0, device=d).view(2, 4, 3)),
    "replaced": lambda L, d: L.func.vmap(L.func.replace_all_batch_norm_modules_(L.nn.BatchNorm1d(3).to(d)))(
        L.arange(24.0, device=d).view(2, 4, 3)),
    "ensemble": lambda L, d: L.func.vmap(
        lambda p, b, x: L.func.functional_call(L.nn.BatchNorm1d(3).to(d), (p, b), (x,)), in_dims=(0, 0, None))(
        *L.func.stack_module_state([L.nn.BatchNorm1d(3).to(d), L.nn.BatchNorm1d(3).to(d)]),
        L.arange(12.0, device=d).view(4, 3)),
    "outside_vmap": lambda L, d: L.nn.BatchNorm1d(3).to(d)(L.arange(12.0, device=d).view(4, 3)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_BN_VMAP))
def test_batch_norm_under_vmap_matches_pytorch(case, device):
    same_outcome(_BN_VMAP[case], device)


def test_batch_norm_under_vmap_leaves_running_stats_alone_when_refused():
    bn = tandem.nn.BatchNorm1d(3)
    with pytest.raises(RuntimeError, match="^Batch norm got a batched tensor as input while the running_mean or "
                                           "running_var, which will be updated in place, were not batched.\nIf you "
                                           "are using a module and do not need eval mode, please set "
                                           "`track_running_stats` to be False."):
        tandem.func.vmap(bn)(tandem.ones(2, 4, 3))
    # as in PyTorch: the module counted the batch before batch_norm refused it, the statistics are untouched
    assert bn.running_mean.tolist() == [0.0, 0.0, 0.0] and int(bn.num_batches_tracked) == 1
    out = bn(tandem.arange(12.0).view(4, 3))  # after the refusal, outside vmap, nothing is checked
    assert list(out.shape) == [4, 3]


# ---- ASGD's eta and mu: the parameter's dtype after load_state_dict, the scalar dtype when fresh -------------------
def _asgd_states(L, d, param_dtype, default_dtype, reload):
    previous = L.get_default_dtype()
    L.set_default_dtype(getattr(L, default_dtype))
    try:
        p = L.nn.Parameter(L.linspace(-1, 1, 4, dtype=L.float32, device=d))
        opt = L.optim.ASGD([p], lr=0.05, t0=2)
        for i in range(3):
            p.grad = L.linspace(0.3, 1.1, 4, dtype=L.float32, device=d) * (i + 1)
            opt.step()
        q = L.nn.Parameter(p.detach().to(getattr(L, param_dtype)).clone())
        opt2 = L.optim.ASGD([q], lr=0.05, t0=2)
        if reload:
            opt2.load_state_dict(opt.state_dict())
        for i in range(3):
            q.grad = L.linspace(0.3, 1.1, 4, dtype=q.dtype, device=d) * (i + 2)
            opt2.step()
        state = opt2.state[q]
        return [str(state["eta"].dtype), str(state["mu"].dtype), state["eta"].item(), state["mu"].item(),
                str(state["step"].dtype), q.detach()]
    finally:
        L.set_default_dtype(previous)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("param_dtype,default_dtype,reload", [
    ("float64", "float32", True), ("float32", "float32", True), ("float64", "float32", False),
    ("float64", "float64", False), ("float32", "float64", True)])
def test_asgd_scalar_state_dtypes_match_pytorch(param_dtype, default_dtype, reload, device):
    # the parameters agree to rounding (ASGD's add(alpha=) is one fused multiply-add in PyTorch's kernel)
    same_outcome(lambda L, d: _asgd_states(L, d, param_dtype, default_dtype, reload), device,
                 tol={"rel": 1e-12, "abs": 1e-7})


# ---- func.linearize: pytree primals, and jvp_fn's checks of its tangents (structure, shape, device, dtype) ----------
_LINEARIZE = {
    "ok": lambda L, x: L.func.linearize(lambda a, b: a * b.sum(), x, x * 2)[1](x, x),
    "dtype": lambda L, x: L.func.linearize(lambda a, b: a * b.sum(), x, x * 2)[1](x, x.double()),
    "int_dtype": lambda L, x: L.func.linearize(lambda a: a * 2, x)[1](x.long()),
    "shape": lambda L, x: L.func.linearize(lambda a, b: a * b.sum(), x, x * 2)[1](x, x[:1]),
    "count": lambda L, x: L.func.linearize(lambda a, b: a * b.sum(), x, x * 2)[1](x),
    "nested": lambda L, x: L.func.linearize(lambda a, b: a * b.sum(), x, x * 2)[1]((x, x)),
    "dict": lambda L, x: L.func.linearize(lambda d: d["a"] * d["b"].sum(), {"a": x, "b": x * 3})[1](
        {"a": x, "b": x * 0.5}),
    "dict_value": lambda L, x: L.func.linearize(lambda d: d["a"] * d["b"].sum(), {"a": x, "b": x * 3})[0],
    "dict_key": lambda L, x: L.func.linearize(lambda d: d["a"] * 2, {"a": x})[1]({"b": x}),
    "tuple_primal": lambda L, x: L.func.linearize(lambda t: t[0] * t[1], (x, x + 1))[1]((x * 0 + 1, x)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_LINEARIZE))
def test_linearize_matches_pytorch(case, device):
    same_outcome(lambda L, d: _LINEARIZE[case](L, L.tensor([0.5, -1.0, 2.0], device=d)), device)


@pytest.mark.skipif("cuda" not in DEVICES, reason="needs a cuda device")
def test_linearize_refuses_a_tangent_on_another_device():
    x = tandem.ones(2, device="cuda")
    _, jvp_fn = tandem.func.linearize(lambda a: a * 2, x)
    with pytest.raises(RuntimeError, match=r"^tangent:0 with device cpu in flattened pytree doesn't match the device "
                                           r"cuda:0 of the corresponding primal\.$"):
        jvp_fn(tandem.ones(2))


# ---- gradgradcheck under set_default_device: its random grad_outputs come from a CPU generator on the CPU ----------
@pytest.mark.skipif("cuda" not in DEVICES, reason="needs a cuda device")
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradgradcheck_under_a_cuda_default_device(dtype):
    tandem.set_default_device("cuda")
    try:
        x = tandem.tensor([0.5, -1.0, 2.0], dtype=getattr(tandem, dtype), requires_grad=True)
        assert x.device.type == "cuda"
        assert tandem.autograd.gradgradcheck(lambda v: (v * v).sin(), (x,))
    finally:
        tandem.set_default_device(None)
