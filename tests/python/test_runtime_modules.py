"""The runtime modules training scripts touch besides tensors (docs/compat.md, "Runtime modules"):
backends.cudnn and the matmul/determinism flags, compile/compiler/_dynamo, jit, random, types, nn.attention
and utils.checkpoint, each checked against PyTorch's behaviour."""
import copy
import subprocess
import sys
import typing
import warnings

import pytest
import torch

import tandem
from oracle import assert_same_error, raised


# backends.cudnn and the matmul flags


def test_cudnn_flags_have_pytorch_defaults_and_checks():
    cudnn = tandem.backends.cudnn
    for name in ("enabled", "benchmark", "deterministic", "allow_tf32", "benchmark_limit"):
        assert getattr(cudnn, name) == getattr(torch.backends.cudnn, name), name
    assert cudnn.is_available() is tandem.cuda.is_available()
    assert cudnn.version() is None
    try:
        cudnn.benchmark = True
        cudnn.deterministic = True
        assert cudnn.benchmark is True and tandem.backends.cudnn.deterministic is True
        with cudnn.flags(enabled=True, benchmark=False, deterministic=False):
            assert cudnn.benchmark is False and cudnn.deterministic is False
        assert cudnn.benchmark is True and cudnn.deterministic is True
    finally:
        cudnn.benchmark = False
        cudnn.deterministic = False
    for name, bad in (("enabled", 3), ("benchmark", "x"), ("deterministic", None), ("allow_tf32", 1),
                      ("benchmark_limit", "x")):
        assert_same_error(lambda lib: setattr(lib.backends.cudnn, name, bad))
        assert getattr(cudnn, name) == getattr(torch.backends.cudnn, name)


def test_cudnn_imports_as_a_module():
    out = subprocess.run([sys.executable, "-c", "import tandem.backends.cudnn as c; c.benchmark = True; "
                          "import tandem; print(tandem.backends.cudnn.benchmark)"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_reduced_precision_reduction_flags():
    matmul = tandem.backends.cuda.matmul
    for name in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
        assert getattr(matmul, name) is getattr(torch.backends.cuda.matmul, name) is True
        try:
            setattr(matmul, name, False)
            assert getattr(matmul, name) is False
            setattr(matmul, name, (True, False))
            assert getattr(matmul, name) is True
        finally:
            setattr(matmul, name, True)
        assert_same_error(lambda lib: setattr(lib.backends.cuda.matmul, name, "x"))


def test_float32_matmul_precision_follows_allow_tf32():
    matmul = tandem.backends.cuda.matmul
    assert tandem.get_float32_matmul_precision() == "highest" and matmul.allow_tf32 is False
    try:
        tandem.set_float32_matmul_precision("medium")
        assert matmul.allow_tf32 is True and tandem.get_float32_matmul_precision() == "medium"
        tandem.set_float32_matmul_precision("high")
        assert matmul.allow_tf32 is True and tandem.get_float32_matmul_precision() == "high"
        matmul.allow_tf32 = False
        assert tandem.get_float32_matmul_precision() == "highest"
        tandem.set_float32_matmul_precision("highest")
        matmul.allow_tf32 = True  # set directly: PyTorch reads that back as "high"
        assert tandem.get_float32_matmul_precision() == "high"
    finally:
        tandem.set_float32_matmul_precision("highest")
    assert matmul.allow_tf32 is False
    with pytest.warns(UserWarning, match="^foo is not one of 'highest', 'high', or 'medium'; the current"
                                         "setFloat32MatmulPrecision call has no effect.$"):
        tandem.set_float32_matmul_precision("foo")
    assert tandem.get_float32_matmul_precision() == "highest"
    assert_same_error(lambda lib: lib.set_float32_matmul_precision(3))


def test_deterministic_algorithms_flags_match_pytorch():
    try:
        for lib in (torch, tandem):
            assert lib.are_deterministic_algorithms_enabled() is False
            lib.use_deterministic_algorithms(True, warn_only=True)
            assert lib.are_deterministic_algorithms_enabled() is True
            assert lib.is_deterministic_algorithms_warn_only_enabled() is True
            assert lib.get_deterministic_debug_mode() == 1
            lib.use_deterministic_algorithms(False, warn_only=True)
            assert lib.are_deterministic_algorithms_enabled() is False
            assert lib.is_deterministic_algorithms_warn_only_enabled() is True
            lib.set_deterministic_debug_mode("error")
            assert lib.get_deterministic_debug_mode() == 2 and lib.are_deterministic_algorithms_enabled()
        assert_same_error(lambda lib: lib.use_deterministic_algorithms(1))
        assert_same_error(lambda lib: lib.use_deterministic_algorithms(True, warn_only=1))
        assert_same_error(lambda lib: lib.set_deterministic_debug_mode("x"))
        assert_same_error(lambda lib: lib.set_deterministic_debug_mode(5))
        assert_same_error(lambda lib: lib.set_deterministic_debug_mode(1.5))
    finally:
        for lib in (torch, tandem):
            lib.use_deterministic_algorithms(False)
    assert tandem.is_deterministic_algorithms_warn_only_enabled() is False


# compile, compiler, _dynamo


def test_compile_wraps_a_module_as_pytorch_does():
    model = tandem.nn.Linear(3, 2)
    for kwargs in ({}, dict(mode="max-autotune", fullgraph=True, dynamic=True), dict(backend="eager"),
                   dict(backend=lambda gm, example_inputs: gm), dict(options={"triton.cudagraphs": False})):
        compiled = tandem.compile(model, **kwargs)
        assert isinstance(compiled, tandem._dynamo.eval_frame.OptimizedModule) and compiled._orig_mod is model
    assert tandem.compile(model, disable=True) is model
    torch_model = torch.nn.Linear(3, 2)
    theirs, ours = torch.compile(torch_model), tandem.compile(model)
    assert type(ours).__name__ == type(theirs).__name__ == "OptimizedModule"
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert repr(ours) == repr(theirs)
    # A compiled PyTorch model's checkpoint (prefixed keys) loads into a compiled tandem model.
    ours.load_state_dict({k: tandem.tensor(v.tolist()) for k, v in theirs.state_dict().items()})
    assert model.weight.tolist() == torch_model.weight.tolist()
    x = tandem.ones(4, 3)
    assert ours(x).tolist() == model(x).tolist()
    # Attribute reads and writes, training included, go through to the original.
    assert ours.in_features == 3 and ours.weight is model.weight
    ours.eval()
    assert model.training is False and ours.training is False and "training" not in ours.__dict__
    ours.train()
    assert model.training is True
    ours.note = "kept"
    assert model.note == "kept"
    del ours.note
    assert not hasattr(model, "note")
    copied = copy.deepcopy(ours)
    assert isinstance(copied, type(ours)) and copied._orig_mod is not model
    assert copied._orig_mod.weight.tolist() == model.weight.tolist()

    @tandem.compile
    def f(x):
        return x + 1

    @tandem.compile(mode="reduce-overhead", fullgraph=True)
    def g(x):
        return x * 2

    assert f.__name__ == "f" and g.__name__ == "g"
    assert f(tandem.ones(2)).tolist() == [2.0, 2.0] and g(tandem.ones(2)).tolist() == [2.0, 2.0]


@pytest.mark.parametrize("kwargs", [dict(mode="foo"), dict(mode="max-autotune", options={"a": 1}),
                                    dict(mode="foo", disable=True), dict(mode=3)])
def test_compile_argument_errors_match_pytorch(kwargs):
    assert_same_error(lambda lib: lib.compile(lambda x: x, **kwargs))


def test_compile_non_callable_and_decorator_errors():
    assert_same_error(lambda lib: lib.compile(3))
    assert_same_error(lambda lib: lib.compile(mode="foo")(lambda x: x))
    assert_same_error(lambda lib: lib.compiler.disable(3))
    for kwargs in (dict(backend="foo"), dict(backend="foo", disable=True)):
        err, want = raised(lambda: tandem.compile(lambda x: x, **kwargs)), raised(lambda: torch.compile(
            lambda x: x, **kwargs))
        assert isinstance(err, RuntimeError) and type(err).__name__ == type(want).__name__ == "InvalidBackend"
        assert str(err) == str(want)


def test_compiler_and_dynamo_names():
    def f(x):
        return x

    assert tandem.compiler.disable(f) is f
    assert tandem.compiler.disable(recursive=False)(f) is f
    assert tandem.compiler.is_compiling() is False and tandem.compiler.is_dynamo_compiling() is False
    assert tandem.compiler.reset() is None and tandem.compiler.cudagraph_mark_step_begin() is None
    assert tandem.compiler.list_backends() == torch.compiler.list_backends()
    assert "inductor" in tandem.compiler.list_backends(exclude_tags=None)
    assert tandem._dynamo.disable(f) is f and tandem._dynamo.reset() is None
    tandem._dynamo.mark_dynamic(tandem.ones(2, 3), 0)
    assert tandem._dynamo.config.cache_size_limit == torch._dynamo.config.cache_size_limit
    assert tandem._dynamo.config.suppress_errors == torch._dynamo.config.suppress_errors
    tandem._dynamo.config.cache_size_limit = 64
    assert tandem._dynamo.config.cache_size_limit == 64
    tandem._dynamo.config.cache_size_limit = 8
    assert_same_error(lambda lib: setattr(lib._dynamo.config, "no_such_knob", 1))


# jit


def test_jit_script_and_trace_return_the_callable():
    model = tandem.nn.Linear(2, 2)
    with pytest.warns(FutureWarning, match="`torch.jit.script` is deprecated"):
        assert tandem.jit.script(model) is model
    calls = []

    def f(x, y=None):
        calls.append(tandem.jit.is_tracing())
        return x * 2

    with pytest.warns(FutureWarning, match="`torch.jit.trace` is deprecated"):
        assert tandem.jit.trace(f, tandem.ones(2)) is f
    assert calls == [True] and tandem.jit.is_tracing() is False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tandem.jit.trace(f, (tandem.ones(2), tandem.ones(2))) is f
        assert tandem.jit.trace(f, example_kwarg_inputs={"x": tandem.ones(2)}) is f
    assert len(calls) == 3


def test_jit_results_pass_pytorchs_type_checks():
    """What script/trace return passes isinstance against PyTorch's classes for them, as PyTorch's objects do;
    objects never scripted or traced do not."""
    import torch

    jit = tandem.jit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scripted = jit.script(tandem.nn.Linear(2, 2))
        traced = jit.trace(tandem.nn.Linear(2, 2), tandem.ones(1, 2))

        def f(x):
            return x * 2

        def g(x):
            return x + 1

        scripted_f, traced_g = jit.script(f), jit.trace(g, tandem.ones(2))
        theirs = {"scripted": torch.jit.script(torch.nn.Linear(2, 2)),
                  "traced": torch.jit.trace(torch.nn.Linear(2, 2), torch.ones(1, 2))}
    classes = ("ScriptModule", "RecursiveScriptModule", "TracedModule", "TopLevelTracedModule", "ScriptFunction")
    for name, ours in (("scripted", scripted), ("traced", traced)):
        for cls in classes:
            assert isinstance(ours, getattr(jit, cls)) == isinstance(theirs[name], getattr(torch.jit, cls)), (name, cls)
    assert isinstance(scripted_f, jit.ScriptFunction) and isinstance(traced_g, jit.ScriptFunction)
    assert not isinstance(scripted_f, jit.ScriptModule)
    plain = tandem.nn.Linear(2, 2)
    assert not any(isinstance(x, getattr(jit, cls)) for x in (plain, len, 3, lambda x: x) for cls in classes)
    assert isinstance(scripted, tandem.nn.Module) and scripted(tandem.ones(1, 2)).shape == (1, 2)


def test_jit_trace_runs_the_module_once_like_pytorch():
    """Tracing a BatchNorm in training mode updates its running statistics once, in both libraries."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(8, 3, generator=g)
    bn_t, bn = torch.nn.BatchNorm1d(3), tandem.nn.BatchNorm1d(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.trace(bn_t, x, check_trace=False)
        tandem.jit.trace(bn, tandem.tensor(x.tolist()))
    assert int(bn.num_batches_tracked) == int(bn_t.num_batches_tracked) == 1
    torch.testing.assert_close(torch.tensor(bn.running_mean.tolist()), bn_t.running_mean)
    torch.testing.assert_close(torch.tensor(bn.running_var.tolist()), bn_t.running_var)


def test_jit_trace_errors_match_pytorch():
    assert_same_error(lambda lib: lib.jit.trace(lambda x: x))
    assert_same_error(lambda lib: lib.jit.script(3))


def test_jit_decorators_and_helpers():
    def f(x):
        return x

    assert tandem.jit.ignore(f) is f and tandem.jit.ignore(drop=True)(f) is f
    assert tandem.jit.unused(f) is f and tandem.jit.export(f) is f
    assert tandem.jit.is_scripting() is False
    assert tandem.jit.Final is typing.Final is torch.jit.Final
    assert tandem.jit.annotate(int, 3) == 3
    assert tandem.jit.wait(tandem.jit.fork(lambda a, b: a + b, 1, b=2)) == 3


def test_jit_save_and_load_say_use_state_dict(tmp_path):
    (tmp_path / "m.pt").write_bytes(b"PK")  # load checks that the path exists first, as PyTorch's
    for call in (lambda: tandem.jit.save(tandem.jit.script(tandem.nn.Linear(2, 2)), tmp_path / "m.pt"),
                 lambda: tandem.jit.load(tmp_path / "m.pt")):
        with pytest.raises(NotImplementedError, match=r"(?s)torch\.jit\.(save|load).*hint: .*state_dict"):
            call()


# random and types


def test_random_module_reuses_tandem_seeding():
    r = tandem.random
    assert r.manual_seed is tandem.manual_seed and r.get_rng_state is tandem.get_rng_state
    assert r.default_generator is tandem.default_generator
    r.manual_seed(5)
    assert r.initial_seed() == 5
    state = r.get_rng_state()
    a = tandem.rand(4)
    r.set_rng_state(state)
    assert tandem.rand(4).tolist() == a.tolist()
    s = r.seed()
    assert isinstance(s, int) and r.initial_seed() == s


def test_fork_rng_restores_the_cpu_generator():
    tandem.manual_seed(1)
    before = tandem.rand(3)
    tandem.manual_seed(1)
    with tandem.random.fork_rng(devices=[]):
        tandem.rand(100)
        tandem.manual_seed(42)
    assert tandem.rand(3).tolist() == before.tolist()
    tandem.manual_seed(1)
    with tandem.random.fork_rng(enabled=False):
        tandem.rand(3)
    assert tandem.rand(3).tolist() != before.tolist()
    assert_same_error(lambda lib: lib.random.fork_rng(devices=3).__enter__())


def test_types_aliases():
    T = tandem.types
    assert T._dtype is tandem.dtype and T._device is tandem.device
    assert typing.get_args(T.Number) == (int, float, bool) and T._Number == (int, float, bool)
    assert set(typing.get_args(T.Device)) == {tandem.device, str, int, type(None)}
    assert T._int is int and T._float is float and T._bool is bool
    assert set(T.__all__) <= set(torch.types.__all__)


# nn.attention


def test_sdpa_backend_enum_matches_pytorch():
    A = tandem.nn.attention
    assert {n: int(v.value) for n, v in A.SDPBackend.__members__.items()} == \
        {n: int(v.value) for n, v in torch.nn.attention.SDPBackend.__members__.items()}
    assert repr(A.SDPBackend.MATH) == repr(torch.nn.attention.SDPBackend.MATH)
    assert A.WARN_FOR_UNFUSED_KERNELS is False


def test_sdpa_kernel_is_a_no_op_for_the_result(device):
    A = tandem.nn.attention
    F = tandem.nn.functional
    q = tandem.randn(2, 3, 4, 8).to(device)
    expected = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    for backends in (A.SDPBackend.FLASH_ATTENTION, [A.SDPBackend.MATH, A.SDPBackend.EFFICIENT_ATTENTION], []):
        with A.sdpa_kernel(backends) as ctx:
            assert ctx == {}
            got = F.scaled_dot_product_attention(q, q, q, is_causal=True)
        assert got.tolist() == expected.tolist()
    for bad in ("math", (A.SDPBackend.MATH,), 0):
        torch_bad = bad if not isinstance(bad, tuple) else (torch.nn.attention.SDPBackend.MATH,)
        assert_same_error(lambda lib: lib.nn.attention.sdpa_kernel(
            bad if lib is tandem else torch_bad).__enter__())


# utils.checkpoint


def make_model(device, dropout=0.0):
    tandem.manual_seed(0)
    layers = [tandem.nn.Linear(5, 8), tandem.nn.Tanh(), tandem.nn.Dropout(dropout), tandem.nn.Linear(8, 8),
              tandem.nn.GELU(), tandem.nn.Linear(8, 3)]
    return tandem.nn.Sequential(*layers).to(device=device, dtype=tandem.float64)


def grads_of(model, x, run):
    model.zero_grad()
    if x.requires_grad:
        x.grad = None
    tandem.manual_seed(7)  # the dropout masks
    out = run(model, x)
    (out * out).sum().backward()
    return [p.grad.clone() for p in model.parameters()], (x.grad.clone() if x.requires_grad else None), out


def assert_same_grads(a, b):
    (pa, xa, oa), (pb, xb, ob) = a, b
    assert oa.tolist() == ob.tolist()
    for ga, gb in zip(pa, pb):
        assert ga.tolist() == gb.tolist()
    assert (xa is None) == (xb is None)
    if xa is not None:
        assert xa.tolist() == xb.tolist()


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_gradients_equal_plain_ones(device, use_reentrant):
    model = make_model(device)
    x = tandem.randn(4, 5, dtype=tandem.float64, device=device).requires_grad_()
    plain = grads_of(model, x, lambda m, v: m(v))
    ck = grads_of(model, x, lambda m, v: tandem.utils.checkpoint.checkpoint(m, v, use_reentrant=use_reentrant))
    assert_same_grads(plain, ck)
    assert ck[2].grad_fn is not None and "Checkpoint" in ck[2].grad_fn.name()


def test_checkpoint_with_dropout_replays_the_cpu_generator():
    model = make_model("cpu", dropout=0.5)
    x = tandem.randn(4, 5, dtype=tandem.float64).requires_grad_()
    plain = grads_of(model, x, lambda m, v: m(v))
    for use_reentrant in (True, False):
        ck = grads_of(model, x, lambda m, v: tandem.utils.checkpoint.checkpoint(m, v, use_reentrant=use_reentrant))
        assert_same_grads(plain, ck)


def test_checkpoint_without_preserved_rng_draws_new_dropout_masks():
    model = make_model("cpu", dropout=0.5)
    x = tandem.randn(16, 5, dtype=tandem.float64).requires_grad_()
    plain = grads_of(model, x, lambda m, v: m(v))
    ck = grads_of(model, x, lambda m, v: tandem.utils.checkpoint.checkpoint(m, v, use_reentrant=False,
                                                                            preserve_rng_state=False))
    assert plain[1].tolist() != ck[1].tolist()


def test_checkpoint_inputs_without_grad(device):
    """Non-reentrant: the parameters still get their gradients; reentrant: PyTorch's warning, no graph."""
    model = make_model(device)
    x = tandem.randn(4, 5, dtype=tandem.float64, device=device)
    plain = grads_of(model, x, lambda m, v: m(v))
    ck = grads_of(model, x, lambda m, v: tandem.utils.checkpoint.checkpoint(m, v, use_reentrant=False))
    assert_same_grads(plain, ck)
    # A closure over the model, as scripts write around a block, finds the same parameters.
    ck = grads_of(model, x, lambda m, v: tandem.utils.checkpoint.checkpoint(lambda a: m(a), v, use_reentrant=False))
    assert_same_grads(plain, ck)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients will be None"):
        out = tandem.utils.checkpoint.checkpoint(model, x, use_reentrant=True)
    assert out.requires_grad is torch.utils.checkpoint.checkpoint(
        torch.nn.Linear(5, 3), torch.randn(2, 5), use_reentrant=True).requires_grad is False
    with tandem.no_grad():
        assert tandem.utils.checkpoint.checkpoint(model, x, use_reentrant=False).requires_grad is False


def test_checkpoint_keyword_arguments_and_tuple_outputs():
    x = tandem.randn(3, dtype=tandem.float64).requires_grad_()
    w = tandem.randn(3, dtype=tandem.float64).requires_grad_()

    def f(a, scale=1.0, bias=None):
        return a * scale + bias, (a * a).argmax()

    out, idx = tandem.utils.checkpoint.checkpoint(f, x, use_reentrant=False, scale=3.0, bias=w)
    assert idx.requires_grad is False and idx.dtype == tandem.int64
    out.sum().backward()
    assert x.grad.tolist() == [3.0] * 3 and w.grad.tolist() == [1.0] * 3


def test_checkpoint_argument_errors_match_pytorch():
    def case(lib, **kw):
        return lambda L: L.utils.checkpoint.checkpoint(
            L.nn.Linear(2, 2), L.ones(1, 2, requires_grad=True), **kw)

    assert_same_error(lambda L: case(L, use_reentrant=True, foo=1)(L))
    assert_same_error(lambda L: case(L, use_reentrant=True, context_fn=lambda: (None, None))(L))
    assert_same_error(lambda L: case(L, use_reentrant=False, determinism_check="x")(L))
    assert_same_error(lambda L: L.utils.checkpoint.checkpoint_sequential(
        L.nn.Sequential(L.nn.Linear(2, 2)), 1, L.ones(1, 2), use_reentrant=True, foo=1))
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        tandem.utils.checkpoint.checkpoint(tandem.nn.Linear(2, 2), tandem.ones(1, 2, requires_grad=True))


def test_checkpoint_reentrant_needs_an_output_with_grad():
    x = tandem.ones(2, requires_grad=True)
    out = tandem.utils.checkpoint.checkpoint(lambda a: a.detach() * 2, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="none of output has requires_grad=True"):
        out.sum().backward()


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_sequential_gradients_equal_plain_ones(device, use_reentrant):
    model = make_model(device)
    x = tandem.randn(4, 5, dtype=tandem.float64, device=device).requires_grad_()
    plain = grads_of(model, x, lambda m, v: m(v))
    for segments in (1, 2, 3, 6):
        ck = grads_of(model, x, lambda m, v: tandem.utils.checkpoint.checkpoint_sequential(
            m, segments, v, use_reentrant=use_reentrant))
        assert_same_grads(plain, ck)
    ck = grads_of(model, x, lambda m, v: tandem.utils.checkpoint.checkpoint_sequential(
        list(m), 2, v, use_reentrant=use_reentrant))
    assert_same_grads(plain, ck)


def test_checkpoint_sequential_matches_pytorch_values():
    torch.manual_seed(0)
    model_t = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 2)).double()
    model = tandem.nn.Sequential(tandem.nn.Linear(4, 6), tandem.nn.Tanh(), tandem.nn.Linear(6, 2)).double()
    model.load_state_dict({k: tandem.tensor(v.tolist(), dtype=tandem.float64) for k, v in model_t.state_dict().items()})
    x_t = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    x = tandem.tensor(x_t.tolist(), dtype=tandem.float64).requires_grad_()
    torch.utils.checkpoint.checkpoint_sequential(model_t, 2, x_t, use_reentrant=False).pow(2).sum().backward()
    tandem.utils.checkpoint.checkpoint_sequential(model, 2, x, use_reentrant=False).pow(2).sum().backward()
    torch.testing.assert_close(torch.tensor(x.grad.tolist(), dtype=torch.float64), x_t.grad)
    for p, p_t in zip(model.parameters(), model_t.parameters()):
        torch.testing.assert_close(torch.tensor(p.grad.tolist(), dtype=torch.float64), p_t.grad)


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_recomputes_under_the_forwards_autocast_state(device, reentrant):
    """The recompute in backward runs under the autocast state of the forward (the engine suspends autocast in
    backward; checkpoint lifts that), so gradients equal the plain model's and no activations are kept."""
    model = make_model(device).float()
    x = tandem.randn(4, 5, device=device).requires_grad_()
    device_type = device.split(":")[0]
    seen = []

    def segment(v):
        h = model[0](v)
        seen.append(h.dtype)
        for layer in list(model)[1:]:
            h = layer(h)
        return h

    def run(m, v):
        with tandem.autocast(device_type, dtype=tandem.bfloat16):
            return tandem.utils.checkpoint.checkpoint(segment, v, use_reentrant=reentrant).float()

    def plain(m, v):
        with tandem.autocast(device_type, dtype=tandem.bfloat16):
            return segment(v).float()

    expected = grads_of(model, x, plain)
    seen.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = grads_of(model, x, run)
    assert seen == [tandem.bfloat16, tandem.bfloat16]  # the forward, then the recompute in backward
    assert_same_grads(expected, got)
    assert not tandem.is_autocast_enabled(device_type)


def test_checkpoint_replays_cuda_dropout():
    """The CUDA generator's state is saved with the CPU's, so the recompute draws the same dropout mask: the
    checkpointed gradient equals the plain one."""
    if not tandem.cuda.is_available():
        pytest.skip("needs a CUDA device (real or emulated)")

    def segment(a):
        return tandem.nn.functional.dropout(a * 3.0, p=0.5, training=True)

    def grad_of(run):
        tandem.manual_seed(7)
        a = tandem.ones(64, device="cuda:0", requires_grad=True)
        run(a).sum().backward()
        return a.grad

    plain = grad_of(segment)
    for reentrant in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = grad_of(lambda a: tandem.utils.checkpoint.checkpoint(segment, a, use_reentrant=reentrant))
        assert got.device == tandem.device("cuda:0")
        assert tandem.equal(got, plain)
    assert 0 < int((plain == 0).sum()) < 64  # the mask did drop some elements


def test_cuda_rng_state_round_trip_and_fork_rng():
    if not tandem.cuda.is_available():
        pytest.skip("needs a CUDA device (real or emulated)")
    cuda = tandem.cuda
    state = cuda.get_rng_state()
    assert state.dtype == tandem.uint8 and state.device == tandem.device("cpu")
    first = tandem.rand(4, device="cuda:0")
    cuda.set_rng_state(state)
    assert tandem.equal(tandem.rand(4, device="cuda:0"), first)
    with tandem.random.fork_rng():
        inside = tandem.rand(4, device="cuda:0")
    assert tandem.equal(tandem.rand(4, device="cuda:0"), inside)  # fork_rng undid the draw
    assert len(cuda.get_rng_state_all()) == cuda.device_count() == len(cuda.default_generators)
    cuda.manual_seed(3)
    assert cuda.initial_seed() == 3
    if cuda.device_count() > 1:
        cuda.manual_seed_all(5)
        assert [g.initial_seed() for g in cuda.default_generators] == [5] * cuda.device_count()
        with cuda.device(1):
            cuda.manual_seed(9)
            assert cuda.initial_seed() == 9
        assert cuda.initial_seed() == 5


def test_module_names_do_not_shadow_and_import_is_light():
    assert callable(tandem.compile) and tandem.compiler.compile is tandem.compile
    for name in ("jit", "testing", "random", "types", "compiler", "_dynamo"):
        assert getattr(tandem, name).__name__ == f"tandem.{name}"
    out = subprocess.run([sys.executable, "-c", "import sys, tandem; print('torch' in sys.modules)"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert copy.deepcopy(tandem.nn.Linear(2, 2)) is not None


def test_cpp_extension_imports_and_refuses_to_build():
    # Programs import it at start-up and try to build an optional kernel, falling back to plain code on failure.
    import torch.utils.cpp_extension as theirs
    from tandem.utils import cpp_extension as ours
    assert {n for n in dir(theirs) if n.isupper()} >= {"CUDA_HOME", "ROCM_HOME", "IS_WINDOWS", "IS_MACOS"}
    assert ours.ROCM_HOME is None and ours.IS_WINDOWS is False and ours.IS_HIP_EXTENSION is False
    assert ours.is_ninja_available() == theirs.is_ninja_available()
    assert ours.get_default_build_root() == theirs.get_default_build_root()
    for build in (lambda: ours.load("fused_op", ["op.cpp"]), lambda: ours.load_inline("fused_op", "int f();"),
                  lambda: ours.CUDAExtension("fused_op", ["op.cu"]), lambda: ours.BuildExtension()):
        with pytest.raises(RuntimeError, match="^Error building extension.*cannot build against tandem\nhint: "):
            build()


def test_cpp_extension_ninja_check(monkeypatch):
    from tandem.utils import cpp_extension as ours
    monkeypatch.setattr(ours.shutil, "which", lambda name: None)
    assert ours.is_ninja_available() is False
    with pytest.raises(RuntimeError, match="^Ninja is required to load C\\+\\+ extensions"):
        ours.verify_ninja_availability()
    import torch.utils.cpp_extension as theirs
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", "/tmp/elsewhere")  # read by PyTorch's builds, not by this query
    assert ours.get_default_build_root() == theirs.get_default_build_root()
