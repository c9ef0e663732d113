"""The ninth program sweep: whole programs after the official PyTorch tutorials and recipes, each written once
against a module called `torch`, run with PyTorch and with tandem standing in for it, and their results compared.
The programs live in sweep9_basics.py (the tensors and autograd tours, "Learning PyTorch with examples", "What is
torch.nn really?", zeroing gradients), sweep9_saving.py (checkpoints, several models, warmstarting, across
devices, load_state_dict with mmap/assign, swap_tensors, the state_dict anatomy), sweep9_modules.py (the
nn.Module API, state_dict hooks, torch.utils.benchmark, the profiler, shapes on the meta device),
sweep9_sequences.py (seq2seq with attention, char-RNN classification and generation, a Transformer language
model), sweep9_vision.py (spatial transformer, style transfer with LBFGS, FGSM, DCGAN, channels last) and
sweep9_runtime.py (DQN, a custom Dataset with transforms, TorchScript and torch.compile, torch.export). The
focused tests below cover what they found (docs/compat.md, "Program sweep 9")."""
import importlib
import io
import logging

import numpy as np
import pytest

import sweep9_basics
import sweep9_modules
import sweep9_runtime
import sweep9_saving
import sweep9_sequences
import sweep9_vision
import tandem
from test_programs_sweeputil import program_test

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep9_basics, sweep9_saving, sweep9_modules, sweep9_sequences, sweep9_vision, sweep9_runtime)


test_program_matches_pytorch = program_test(_MODULES, DEVICES)


def _outcome(call):
    try:
        result = call()
    except Exception as exc:  # the error type and message are what is compared
        return type(exc).__name__, str(exc).split("\nhint:")[0].replace("tandem._C.", "torch.").replace("tandem.",
                                                                                                        "torch.")
    return "ok", result


# ---- load_state_dict: each child sees only its own keys, taken from its parent's dict after the parent loaded ----
def _child_dict_transcript(lib):
    nn = lib.nn
    seen = []

    class Renaming(nn.Module):  # an old checkpoint called the child "old"; the parent renames its keys
        def __init__(self):
            super().__init__()
            self.new = nn.Linear(2, 2)

        def _load_from_state_dict(self, state_dict, prefix, *args):
            for key in [k for k in state_dict if k.startswith(prefix + "old.")]:
                state_dict[key.replace(prefix + "old.", prefix + "new.")] = state_dict.pop(key)
            super()._load_from_state_dict(state_dict, prefix, *args)

    class Greedy(nn.Linear):  # a child that edits the dict it is given
        def _load_from_state_dict(self, state_dict, prefix, *args):
            seen.append((prefix, sorted(state_dict), type(state_dict).__name__))
            state_dict[prefix + "junk"] = lib.zeros(1)
            super()._load_from_state_dict(state_dict, prefix, *args)

    model = nn.Sequential(Renaming(), Greedy(2, 2), Greedy(2, 2))
    source = {"0.old.weight": lib.ones(2, 2), "0.old.bias": lib.ones(2), "1.weight": lib.ones(2, 2),
              "1.bias": lib.ones(2), "2.weight": lib.ones(2, 2), "2.bias": lib.ones(2)}
    result = model.load_state_dict(source, strict=False)
    return seen, result.missing_keys, result.unexpected_keys, model[0].new.weight.sum().item(), sorted(source)


def test_each_child_loads_from_its_own_keys_as_pytorch():
    assert _child_dict_transcript(tandem) == _child_dict_transcript(torch)


def test_a_child_load_pre_hook_sees_only_its_keys():
    def keys_seen(lib):
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 1))
        seen = []
        model[1]._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: seen.append(sorted(sd)))
        model.load_state_dict(model.state_dict())
        return seen

    assert keys_seen(tandem) == keys_seen(torch) == [["1.bias", "1.weight"]]


# ---- torch.utils.benchmark's fuzzer ------------------------------------------------------------------------------
def _fuzz_transcript(lib, seed, n, **options):
    bm = importlib.import_module(f"{lib.__name__}.utils.benchmark")
    fuzzer = bm.Fuzzer(
        parameters=[bm.FuzzedParameter("k0", 1, 128, distribution="loguniform"),
                    [bm.FuzzedParameter("k1", 1, 64, distribution="loguniform"),
                     bm.FuzzedParameter("d", 1, 3, distribution="uniform", strict=True)],
                    bm.FuzzedParameter("scale", 0.5, 1.5, distribution="uniform")],
        tensors=[bm.FuzzedTensor("x", size=("k0", "k1", 3), steps=(1, 2, 1), dim_parameter="d",
                                 probability_contiguous=options.get("p", 0.5), min_elements=8, max_elements=8192),
                 bm.FuzzedTensor("y", size=("k1", 4), dtype=lib.int32, max_allocation_bytes=2048)],
        constraints=[lambda p: p["k0"] >= p["k1"] // 4], seed=seed)
    rows = []
    for tensors, properties, params in fuzzer.take(n):
        rows.append((params, {k: (list(v.shape), v.stride(), str(v.dtype).split(".")[-1]) for k, v in tensors.items()},
                     {k: (p["numel"], [int(i) for i in p["order"]], p["steps"], p["is_contiguous"], p["dtype"]
                          .split(".")[-1]) for k, p in properties.items()}))
    return rows, fuzzer.rejection_rate


@pytest.mark.parametrize("seed", [0, 123, 2024])
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0])
def test_fuzzer_draws_the_same_parameters_sizes_and_layouts_as_pytorch(seed, p):
    assert _fuzz_transcript(tandem, seed, 6, p=p) == _fuzz_transcript(torch, seed, 6, p=p)


def test_fuzzed_tensor_values_follow_the_seed_and_a_custom_constructor():
    bm = tandem.utils.benchmark

    def take(seed):
        fuzzer = bm.Fuzzer(parameters=[bm.FuzzedParameter("n", 2, 9, distribution="uniform")],
                           tensors=[bm.FuzzedTensor("x", size=("n", 4)),
                                    bm.FuzzedTensor("i", size=("n",), dtype=tandem.int64),
                                    bm.FuzzedTensor("c", size=(3,), tensor_constructor=lambda size, dtype, **kw:
                                                    tandem.full(size, float(kw["n"]), dtype=dtype))], seed=seed)
        return next(iter(fuzzer.take(1)))

    first, again, other = take(5), take(5), take(6)
    assert tandem.equal(first[0]["x"], again[0]["x"]) and not tandem.equal(first[0]["x"], other[0]["x"])
    x, i, c = first[0]["x"], first[0]["i"], first[0]["c"]
    assert x.dtype == tandem.float32 and bool(((x >= 0) & (x < 1)).all())
    assert i.dtype == tandem.int64 and bool(((i >= 1) & (i < 127)).all())
    assert c.tolist() == [float(first[2]["n"])] * 3


def test_fuzzer_aliases_and_custom_distributions():
    bm = tandem.utils.benchmark
    fuzzer = bm.Fuzzer(parameters=[bm.FuzzedParameter("a", 3, 9, distribution="uniform"),
                                   bm.FuzzedParameter("b", distribution={1: 0.5, bm.ParameterAlias("a"): 0.5})],
                       tensors=[bm.FuzzedTensor("x", size=("a", "b"))], seed=1)
    rows = [(params["a"], params["b"], list(t["x"].shape)) for t, _, params in fuzzer.take(40)]
    assert all(b in (1, a) and shape == [a, b] for a, b, shape in rows)
    assert {b == 1 for _, b, _ in rows} == {True, False}
    assert repr(bm.ParameterAlias("a")) == "ParameterAlias[alias_to: a]"


def _fuzzer_errors(lib):
    bm = importlib.import_module(f"{lib.__name__}.utils.benchmark")
    P, T = bm.FuzzedParameter, bm.FuzzedTensor
    return [
        lambda: P("a", 1, 2, distribution="normal"),
        lambda: P("a", distribution={1: -0.5, 2: 1.5}),
        lambda: bm.Fuzzer(parameters=[P("x", 1, 2, distribution="uniform")], tensors=[T("x", size=(2,))]),
        lambda: list(bm.Fuzzer(parameters=[P("a", 1, 2, distribution="uniform")], tensors=[],
                               constraints=[lambda p: False], seed=0).take(1)),
        lambda: list(bm.Fuzzer(parameters=[P("a", 1, 2, distribution="uniform")], tensors=[T("x", size=("a",),
                               min_elements=5)], seed=0).take(1)),
        lambda: bm.Fuzzer(parameters=[P("a", 1, 2, distribution="uniform")], tensors=[], seed=0).rejection_rate,
    ]


@pytest.mark.parametrize("index", range(len(_fuzzer_errors(tandem))))
def test_fuzzer_refusals_match_pytorch(index):
    assert _outcome(_fuzzer_errors(tandem)[index]) == _outcome(_fuzzer_errors(torch)[index])


def test_fuzzer_refuses_alias_cycles_and_unnormalised_distributions():
    bm = tandem.utils.benchmark
    with pytest.raises(ValueError, match="ParameterAlias cycle detected"):
        list(bm.Fuzzer(parameters=[bm.FuzzedParameter("a", distribution={bm.ParameterAlias("b"): 1.0}),
                                   bm.FuzzedParameter("b", distribution={bm.ParameterAlias("a"): 1.0})],
                       tensors=[], seed=0).take(1))
    with pytest.raises(AssertionError, match="Distribution is not normalized"):
        bm.FuzzedParameter("a", distribution={1: 0.5, 2: 0.6})
    with pytest.raises(AssertionError, match="'minval' must be None"):
        bm.FuzzedParameter("a", 1, None, distribution={1: 1.0})


# ---- torch._logging.set_logs --------------------------------------------------------------------------------------
def _logging_transcript(lib):
    name = lib.__name__
    levels = []

    def record():
        levels.append([logging.getLogger(f"{name}{suffix}").level for suffix in ("._dynamo", "._inductor", ".fx")])

    try:
        lib._logging.set_logs(dynamo=logging.DEBUG, graph_code=True, recompiles=True)
        record()
        lib._logging.set_logs(inductor=logging.INFO, modules={"torch.fx": logging.ERROR})
        record()
        lib._logging.set_logs(all=logging.ERROR)
        record()
        levels.append(logging.getLogger(name).level)
        outcomes = [_outcome(lambda: lib._logging.set_logs(dynamo="loud")),
                    _outcome(lambda: lib._logging.set_logs(graph_code=5)),
                    _outcome(lambda: lib._logging.set_logs(nothing=True))]
    finally:
        lib._logging.set_logs()
    record()
    levels.append(logging.getLogger(name).level)
    return levels, outcomes


def test_set_logs_sets_the_component_levels_as_pytorch():
    assert _logging_transcript(tandem) == _logging_transcript(torch)


def test_set_logs_records_the_artifacts_and_keeps_pytorchs_keywords():
    import inspect  # noqa: PLC0415
    try:
        tandem._logging.set_logs(graph_code=True, guards=False, recompiles=True)
        assert tandem._logging.enabled_artifacts == {"graph_code", "recompiles"}
    finally:
        tandem._logging.set_logs()
    assert tandem._logging.enabled_artifacts == set()
    ours = inspect.signature(tandem._logging.set_logs).parameters
    theirs = inspect.signature(torch._logging.set_logs).parameters
    assert set(ours) == set(theirs)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in ours.values())


# ---- torch.compiler.set_stance and the compiled-autograd knob --------------------------------------------------------
def _stance_transcript(lib):
    found = [type(lib.compiler.set_stance("anything")).__name__]
    lib.compiler.set_stance("default")
    found.append(_outcome(lambda: lib.compiler.set_stance("force_eager", force_backend="eager")))
    compiled = lib.compile(lambda t: t * 3)
    with lib.compiler.set_stance("force_eager"):
        found.append(compiled(lib.ones(2)).tolist())

    @lib.compiler.set_stance("eager_on_recompile")
    def call(t):
        return compiled(t)

    found.append(call(lib.ones(1)).tolist())
    found.append(lib._dynamo.config.compiled_autograd)
    return found


def test_set_stance_runs_and_refuses_as_pytorch():
    assert _stance_transcript(tandem) == _stance_transcript(torch)


def test_set_stance_is_kept_and_restored():
    from tandem._compiler_stance import current_stance  # noqa: PLC0415
    assert current_stance().stance == "default"
    with tandem.compiler.set_stance("force_eager"):
        assert current_stance().stance == "force_eager"
    seen = []
    decorated = tandem.compiler.set_stance("eager_on_recompile")(lambda: seen.append(current_stance().stance))
    assert current_stance().stance == "default"
    decorated()
    assert seen == ["eager_on_recompile"] and current_stance().stance == "default"
    tandem.compiler.set_stance("force_eager")
    try:
        assert current_stance().stance == "force_eager"
    finally:
        tandem.compiler.set_stance()
    assert current_stance().stance == "default"


# ---- torch.export -------------------------------------------------------------------------------------------------
def _export_module(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2)
            self.register_buffer("shift", lib.tensor([1.0, -1.0]))
            self.register_buffer("scratch", lib.ones(1), persistent=False)

        def forward(self, x, extra=None, *, scale=1.0):
            return (self.lin(x).relu() + self.shift) * scale + self.scratch

    model = Net()
    with lib.no_grad():
        model.lin.weight.copy_(lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3)))
        model.lin.bias.copy_(lib.tensor([0.1, -0.2]))
    return model


def _export_transcript(lib):
    export = importlib.import_module(f"{lib.__name__}.export")
    model = _export_module(lib)
    x = lib.tensor(np.arange(12.0).reshape(4, 3) / 10, dtype=lib.float32)
    ep = export.export(model, (x,))
    batch = export.Dim("batch", min=3, max=8)
    sig = ep.graph_signature
    found = [type(ep).__name__, list(sig.parameters), list(sig.buffers), list(sig.user_inputs),
             list(sig.non_persistent_buffers), sorted(ep.state_dict), sorted(ep.constants), ep.range_constraints,
             [round(v, 5) for v in ep.module()(x).flatten().tolist()], isinstance(ep.module(), lib.fx.GraphModule), ep.example_inputs[1]]
    calls = [lambda: ep.module()(x[:2]), lambda: ep.module()(x[:, :2]), lambda: ep(x),
             lambda: ep.module()(x, x), lambda: ep.module()(x.double()),
             lambda: export.export(model, x), lambda: export.export(lambda t: t, (x,)),
             lambda: export.Dim("b", min=4, max=4), lambda: export.Dim("not a name"),
             lambda: export.export(model, (x,), dynamic_shapes=[{0: batch}, None])]
    found += [_outcome(call)[:2] for call in calls]
    for shapes in ({"x": {0: batch}}, ({0: batch},), [{0: batch}]):
        dynamic = export.export(model, (x,), dynamic_shapes=shapes)
        found += [[str(v) for v in dynamic.range_constraints.values()], dynamic.module()(x[:3]).shape[0]]
        found += [_outcome(lambda: dynamic.module()(lib.ones(n, 3)))[:2] for n in (2, 9)]
    found.append([repr(export.Dim(*a, **k)) for a, k in ((("a",), {}), (("a",), {"min": 2}), (("a",), {"max": 9}),
                                                           (("a",), {"min": 1, "max": 9}))])
    auto = export.export(model, (x,), dynamic_shapes={"x": {0: export.Dim.AUTO}})
    found += [auto.module()(lib.ones(7, 3)).shape[0], [str(v) for v in auto.range_constraints.values()]]
    return found


def test_export_matches_pytorch():
    ours, theirs = _export_transcript(tandem), _export_transcript(torch)
    ours[7] = {str(k): str(v) for k, v in ours[7].items()}
    theirs[7] = {str(k): str(v) for k, v in theirs[7].items()}
    for got, want in zip(ours, theirs):
        assert got == want


@pytest.mark.parametrize("device", DEVICES)
def test_export_two_inputs_sharing_a_dim_and_keyword_inputs(device):
    export = tandem.export
    model = tandem.nn.Bilinear(3, 4, 2).to(device)
    a, b = tandem.ones(5, 3, device=device), tandem.ones(5, 4, device=device)
    n = export.Dim("n", max=50)
    ep = export.export(model, (a,), {"input2": b}, dynamic_shapes={"input1": {0: n}, "input2": {0: n}})
    out = ep.module()(a[:2], input2=b[:2])
    assert out.device == a.device and tandem.equal(out, model(a[:2], b[:2]))
    with pytest.raises(AssertionError, match=r"Guard failed: input2.size\(\)\[0\] == input1.size\(\)\[0\]"):
        ep.module()(a[:2], input2=b[:3])
    assert list(ep.graph_signature.user_inputs) == ["input1", "input2"]


def test_exported_program_saves_loads_and_prints():
    export = tandem.export
    model = _export_module(tandem)
    x = tandem.ones(4, 3)
    ep = export.export(model, (x,), dynamic_shapes={"x": {0: export.Dim("batch", min=3, max=8)}})
    buffer = io.BytesIO()
    export.save(ep, buffer)
    buffer.seek(0)
    loaded = export.load(buffer)
    assert tandem.equal(loaded.module()(x[:3]), model(x[:3]))
    with pytest.raises(AssertionError, match=r"Guard failed: x.size\(\)\[0\] <= 8"):
        loaded.module()(tandem.ones(9, 3))
    text = str(ep)
    assert text.startswith("ExportedProgram:\n") and "lin.weight: PARAMETER target='lin.weight'" in text
    assert "x: USER_INPUT" in text and "Range constraints: {'batch': VR[3, 8]}" in text
    with pytest.raises(TypeError, match="must be an instance of 'ExportedProgram'"):
        export.save(model, io.BytesIO())
    with pytest.raises(RuntimeError, match="no exported program"):
        buffer = io.BytesIO()
        tandem.save({"x": 1}, buffer)
        buffer.seek(0)
        export.load(buffer)


def _extra_files_transcript(lib):
    ep = lib.export.export(lib.nn.Linear(2, 2), (lib.ones(1, 2),))
    buffer = io.BytesIO()
    lib.export.save(ep, buffer, extra_files={"meta.txt": "hello", "notes": "x"})
    buffer.seek(0)
    wanted = {"meta.txt": "", "missing": "kept"}
    lib.export.load(buffer, extra_files=wanted)
    return wanted, _outcome(lambda: lib.export.save(ep, io.BytesIO(), extra_files={"b": b"bytes"}))


def test_export_extra_files_round_trip_as_pytorch():
    assert _extra_files_transcript(tandem) == _extra_files_transcript(torch)


def test_export_refuses_data_dependent_control_flow():
    class Gate(tandem.nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    # PyTorch's error type (GuardOnDataDependentSymNode, a RuntimeError), the tracer's words after its first line
    with pytest.raises(RuntimeError, match="control flow"):
        tandem.export.export(Gate(), (tandem.ones(2),))


# ---- what the programs found that needs C++ (strict xfails, so that a fix has to remove them) ----------------------
def test_swap_tensors_after_a_product_with_a_number():
    # The node of a product with (or a quotient by) a Python number keeps only the number, as PyTorch's
    # MulBackward0 does, so swap_tensors sees no third reference; the gradient is the number's.
    a = tandem.ones(2, requires_grad=True)
    b = a * 2
    c = a / 4
    tandem.utils.swap_tensors(a, tandem.zeros(2))
    assert a.tolist() == [0.0, 0.0] and b.tolist() == [2.0, 2.0] and c.tolist() == [0.25, 0.25]
    # The graph reached the swapped leaf's accumulator: its backward fails as PyTorch's does.
    with pytest.raises(RuntimeError, match="Trying to execute AccumulateGrad node that was poisoned by swap_tensors"):
        (b.sum() + c.sum()).backward()
    x, d = tandem.ones(3, requires_grad=True), tandem.tensor([2.0, 4.0], requires_grad=True)
    ((3 * x * x / 2).sum() + (6 / d).sum()).backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0] and d.grad.tolist() == [-1.5, -0.375]


def test_grad_fn_exposes_its_saved_tensors():
    a = tandem.ones(3, requires_grad=True)
    assert a.exp().grad_fn._saved_result.tolist() == pytest.approx([np.e] * 3)
    assert (a * a).grad_fn._saved_self.tolist() == [1.0] * 3


def test_next_functions_list_a_numbers_slot_as_none():
    b = tandem.ones(2, requires_grad=True).sin()
    assert (2 * b).grad_fn.next_functions[1] == (None, 0)


def test_accumulate_grad_variable_is_the_leaf():
    a = tandem.ones(2, requires_grad=True)
    assert (a * a).grad_fn.next_functions[0][0].variable is a
