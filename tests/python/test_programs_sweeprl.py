"""What the reinforcement-learning / graph-network / time-series program sweep (pytorch/examples, cleanrl,
minimalRL, pygcn, pyGAT, powerful-gnns, TCN, Time-Series-Library) found, each checked against PyTorch on every
device."""
import io
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import tandem
import tandem._creation as creation

ROWS_MESSAGE = ("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting the "
                "list to a single numpy.ndarray with numpy.array() before converting to a tensor.")


def _pytorch_warnings(code):
    """The warning messages a fresh PyTorch process gives for `code` (PyTorch warns some things once a process)."""
    script = ("import warnings, torch, numpy as np\nwith warnings.catch_warnings(record=True) as w:\n"
              "    warnings.simplefilter('always')\n" + "".join(f"    {line}\n" for line in code.splitlines()) +
              "print(repr([str(x.message).split(' (Triggered internally')[0] for x in w]))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return eval(out)  # noqa: S307 - a list of strings printed by the script above


# ---- torch.tensor(list of arrays) warns once, as PyTorch (minimalRL: torch.tensor(s_lst) of env observations) ----
ROW_CASES = [  # (data, warns): PyTorch warns when it copies a >= 1-d array element by element
    ("[np.zeros(2), np.ones(2)]", True), ("(np.zeros(2),)", True), ("[[np.zeros(2)]]", True),
    ("[[1.0, 2.0], np.zeros(2)]", True), ("[np.zeros((2, 2))]", True),
    ("[np.float32(1), np.float32(2)]", False),
    ("[np.zeros(0)]", False), ("[]", False)]


@pytest.mark.parametrize("data,warns", ROW_CASES)
@pytest.mark.parametrize("factory", ["tensor", "as_tensor", "Tensor", "FloatTensor"])
def test_tensor_from_a_list_of_arrays_warns_once_as_pytorch(device, monkeypatch, data, warns, factory):
    monkeypatch.setattr(creation, "_warned_array_rows", [])
    on_device = factory in ("tensor", "as_tensor")
    kwargs = {"device": device} if on_device else {}
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        out = getattr(tandem, factory)(eval(data), **kwargs)  # noqa: S307 - the cases above
        getattr(tandem, factory)(eval(data), **kwargs)  # noqa: S307 - once a process
    ours = [w for w in got if "numpy.ndarrays" in str(w.message)]
    assert [str(w.message) for w in ours] == ([ROWS_MESSAGE] if warns else [])
    assert all(w.filename == __file__ and w.category is UserWarning for w in ours)  # the caller's line
    ref = getattr(torch, factory)(eval(data))  # noqa: S307
    assert out.tolist() == ref.tolist() and str(out.dtype)[7:] == str(ref.dtype)[6:]
    assert out.device.type == (tandem.device(device).type if on_device else "cpu")


def test_list_of_arrays_message_is_pytorchs(device, monkeypatch):
    assert _pytorch_warnings("torch.tensor([np.zeros(2)])") == [ROWS_MESSAGE]
    monkeypatch.setattr(creation, "_warned_array_rows", [])
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        tandem.zeros(1, device=device).new_tensor([np.zeros(2)])
    assert [str(w.message) for w in got] == [ROWS_MESSAGE] and got[0].filename == __file__


# ---- torch.load: pickle_module and the TORCH_FORCE_*WEIGHTS_ONLY_LOAD variables (pytorch/examples
# time_sequence_prediction loads a pickled NumPy array; run on PyTorch 2.6+ with TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD) ----
class _Custom:  # a class a weights_only load refuses
    pass


def _checkpoint(lib, device):
    buf = io.BytesIO()
    lib.save({"w": lib.ones(2, device=device if lib is tandem else "cpu"), "obj": _Custom()}, buf)
    return buf


LOAD_CASES = [{}, {"pickle_module": pickle}, {"pickle_module": pickle, "weights_only": True},
              {"weights_only": False}, {"weights_only": True}, {"encoding": "latin1"},
              {"weights_only": False, "encoding": "latin1"}]
ENVIRONMENTS = [{}, {"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1"}, {"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "yes"},
                {"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "TRUE"}, {"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "0"},
                {"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "y", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}]


def _load_outcome(lib, buf, kwargs):
    buf.seek(0)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        try:
            out = lib.load(buf, **kwargs)
            result = ("ok", type(out["obj"]).__name__, out["w"].tolist())
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            result = (type(e).__name__, str(e).splitlines()[0].replace("tandem", "torch"))
    messages = [(str(w.message).replace("tandem", "torch"), w.filename == __file__) for w in got
                if "weights_only" in str(w.message) or "pickle_load_args" in str(w.message)]
    return result, messages


@pytest.mark.parametrize("environment", ENVIRONMENTS, ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()))
@pytest.mark.parametrize("kwargs", LOAD_CASES, ids=lambda k: ",".join(f"{a}={getattr(v, '__name__', v)}"
                                                                       for a, v in k.items()))
def test_load_weights_only_rules_match_pytorch(device, monkeypatch, environment, kwargs):
    for name in ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    got = _load_outcome(tandem, _checkpoint(tandem, device), kwargs)
    want = _load_outcome(torch, _checkpoint(torch, device), kwargs)
    # Which warnings, with which text, and whether the env warning names the caller's line (PyTorch's
    # pickle_load_args warning names its own serialization.py line, tandem's its own: compare only the text).
    assert got[0] == want[0]
    assert [m for m, _ in got[1]] == [m for m, _ in want[1]]
    assert [at for m, at in got[1] if "Environment" in m] == [at for m, at in want[1] if "Environment" in m]


# ---- torch.sparse.check_sparse_tensor_invariants, and the constructors' once-a-process warning (pytorch/examples
# gcn and pyGAT's sparse GAT build their adjacency with torch.sparse_coo_tensor) ----
import tandem.sparse._invariants as invariants  # noqa: E402

INVARIANTS_MESSAGE = ("Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur when "
                      "operating on a sparse tensor which violates the invariants, but checks incur performance "
                      "overhead. To silence this warning, explicitly opt in or out. See "
                      "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance. ")
UNSORTED_ROW = ([0, 2, 2], [1, 0], [1.0, 2.0])  # row 0's columns are not sorted: refused only when checked


@pytest.fixture
def fresh_invariants(monkeypatch):
    monkeypatch.setattr(invariants, "_state", {"enabled": None})
    monkeypatch.setattr(invariants, "_warned", [])


def _build(kind, device, **kwargs):
    if kind == "coo":
        return tandem.sparse_coo_tensor(tandem.tensor([[0], [1]], device=device), tandem.tensor([1.0], device=device),
                                        (2, 2), **kwargs)
    crow, col, values = (tandem.tensor(x, device=device) for x in UNSORTED_ROW)
    return tandem.sparse_csr_tensor(crow, col, values, (2, 2), **kwargs)


def _warned(fn):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        fn()
    return [(str(w.message).replace("tandem", "torch"), w.filename == __file__) for w in got
            if "invariant" in str(w.message)]


@pytest.mark.parametrize("kind", ["coo", "csr"])
def test_sparse_constructors_warn_once_while_the_flag_was_never_set(device, fresh_invariants, kind):
    assert _pytorch_warnings("i = torch.tensor([[0], [1]])\nv = torch.tensor([1.])\n"
                             "torch.sparse_coo_tensor(i, v, (2, 2))\ntorch.sparse_coo_tensor(i, v, (2, 2))") == \
        [INVARIANTS_MESSAGE]
    assert _warned(lambda: _build(kind, device, check_invariants=False)) == []  # an explicit argument: quiet
    assert _warned(lambda: _build(kind, device)) == [(INVARIANTS_MESSAGE, True)]  # at the caller's line
    assert _warned(lambda: _build(kind, device)) == []  # once a process


@pytest.mark.parametrize("quiet", [
    lambda: tandem.sparse.check_sparse_tensor_invariants.disable(),
    lambda: tandem.sparse.check_sparse_tensor_invariants.enable(),
    lambda: tandem.sparse.check_sparse_tensor_invariants(False).__enter__()], ids=["disable", "enable", "with"])
def test_setting_the_invariants_flag_silences_the_warning(device, fresh_invariants, quiet):
    quiet()
    assert _warned(lambda: _build("coo", device)) == []
    assert _warned(lambda: tandem.sparse.FloatTensor(tandem.tensor([[0], [1]]), tandem.tensor([1.0]),
                                                     tandem.Size([2, 2]))) == []  # legacy: never warns


def _in_context(manager, build):
    with manager:
        return build()


FLAG_SCENARIOS = {  # how a program sets the flag around building a CSR tensor with an unsorted row
    "default": lambda check, build: build(),
    "enable": lambda check, build: (check.enable(), build())[1],
    "disable": lambda check, build: (check.enable(), check.disable(), build())[2],
    "with": lambda check, build: _in_context(check(), build),
    "with-False-inside-enabled": lambda check, build: (check.enable(), _in_context(check(False), build))[1],
    "decorator": lambda check, build: check()(build)(),
    "argument-wins": lambda check, build: (check.enable(), build(check_invariants=False))[1],
}


@pytest.mark.parametrize("scenario", FLAG_SCENARIOS)
def test_invariants_flag_decides_the_csr_row_order_check_as_pytorch(device, fresh_invariants, scenario):
    def outcome(lib, dev):
        def build(**kwargs):
            crow, col, values = (lib.tensor(x, device=dev) for x in UNSORTED_ROW)
            return lib.sparse_csr_tensor(crow, col, values, (2, 2), **kwargs)
        check = lib.sparse.check_sparse_tensor_invariants
        saved = check.is_enabled()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the once-a-process warnings are tested above
                result = ("ok", FLAG_SCENARIOS[scenario](check, build).to_dense().tolist())
        except RuntimeError as e:
            result = ("RuntimeError", str(e))
        after = check.is_enabled()
        (check.enable if saved else check.disable)()
        return result, after

    assert outcome(tandem, device) == outcome(torch, "cpu")


def test_invariants_context_manager_refuses_nesting_itself_as_pytorch(fresh_invariants):
    for check in (tandem.sparse.check_sparse_tensor_invariants, torch.sparse.check_sparse_tensor_invariants):
        context = check()
        with context:
            with pytest.raises(RuntimeError, match="^This context manager instance is already activated. Use a "
                                                   "different context manager instance for context nesting.$"):
                context.__enter__()
        assert not check.is_enabled()


# ---- TransformerEncoder's enable_nested_tensor warning, as PyTorch's (pytorch/examples word_language_model builds
# nn.Transformer with batch_first=False) ----
ENCODER_CASES = {
    "default": lambda nn, L, d: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, device=d), 2),
    "batch_first": lambda nn, L, d: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, batch_first=True,
                                                                                     device=d), 2),
    "not-enabled": lambda nn, L, d: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, device=d), 2,
                                                          enable_nested_tensor=False),
    "norm_first": lambda nn, L, d: nn.TransformerEncoder(nn.TransformerEncoderLayer(
        8, 2, norm_first=True, batch_first=True, device=d), 1),
    "bias=False": lambda nn, L, d: nn.TransformerEncoder(nn.TransformerEncoderLayer(
        8, 2, bias=False, batch_first=True, device=d), 1),
    "tanh": lambda nn, L, d: nn.TransformerEncoder(nn.TransformerEncoderLayer(
        8, 2, activation=L.tanh, batch_first=True, device=d), 1),
    "gelu-string": lambda nn, L, d: nn.TransformerEncoder(nn.TransformerEncoderLayer(
        8, 2, activation="gelu", batch_first=True, device=d), 1),
    "GELU-module": lambda nn, L, d: nn.TransformerEncoder(nn.TransformerEncoderLayer(
        8, 2, activation=nn.GELU(), batch_first=True, device=d), 1),
    "odd-heads": lambda nn, L, d: nn.TransformerEncoder(nn.TransformerEncoderLayer(9, 3, batch_first=True,
                                                                                   device=d), 1),
    "other-layer": lambda nn, L, d: nn.TransformerEncoder(nn.Identity(), 1),
    "Transformer": lambda nn, L, d: nn.Transformer(8, 2, 1, 1, 16, device=d),
    "Transformer-batch_first": lambda nn, L, d: nn.Transformer(8, 2, 1, 1, 16, batch_first=True, device=d),
}


@pytest.mark.parametrize("case", ENCODER_CASES)
def test_transformer_encoder_nested_tensor_warning_matches_pytorch(device, case):
    def built(lib, dev):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            module = ENCODER_CASES[case](lib.nn, lib, dev)
        layer = (module.encoder if hasattr(module, "encoder") else module).layers[0]
        encoder = module.encoder if hasattr(module, "encoder") else module
        return [str(w.message) for w in got], getattr(layer, "activation_relu_or_gelu", None), \
            encoder.use_nested_tensor

    assert built(tandem, device) == built(torch, "cpu")


def test_nested_tensor_warning_names_the_callers_line():
    with pytest.warns(UserWarning, match="self_attn.batch_first was not True") as got:
        tandem.nn.TransformerEncoder(tandem.nn.TransformerEncoderLayer(8, 2), 1)
    assert got[0].filename == __file__


# ---- C++-bound functions (tandem.tanh) copy and pickle as PyTorch's builtins (an encoder layer with
# activation=torch.tanh is deep-copied by TransformerEncoder; Time-Series-Library and others pass torch.tanh) ----
@pytest.mark.parametrize("name", ["tanh", "relu", "exp", "Tensor.relu", "special.erfcx", "nn.functional.relu"])
def test_cpp_functions_copy_and_pickle_as_themselves(name):
    import copy
    function = tandem
    for part in name.split("."):
        function = getattr(function, part)
    assert copy.copy(function) is function and copy.deepcopy(function) is function
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        assert pickle.loads(pickle.dumps(function, protocol=protocol)) is function


def test_encoder_with_a_cpp_activation_runs_as_pytorch(device):
    def build(lib, dev):
        lib.manual_seed(0)
        return lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=lib.tanh,
                                                                        device=dev), 2, enable_nested_tensor=False)
    ref, ours = build(torch, "cpu"), build(tandem, device)
    ours.load_state_dict({k: tandem.tensor(v.numpy(), device=device) for k, v in ref.state_dict().items()})
    assert all(layer.activation is tandem.tanh for layer in ours.layers)
    x = np.random.default_rng(0).standard_normal((5, 3, 8)).astype(np.float32)
    got, want = ours(tandem.tensor(x, device=device)), ref(torch.tensor(x))
    assert got.device == tandem.device(device)
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-5)
    buf = io.BytesIO()
    tandem.save(ours, buf)  # the whole module, pickled with its activation
    buf.seek(0)
    again = tandem.load(buf, weights_only=False)
    assert again.layers[1].activation is tandem.tanh
    np.testing.assert_allclose(again(tandem.tensor(x, device=device)).detach().cpu().numpy(),
                               got.detach().cpu().numpy(), rtol=0, atol=0)


# ---- copy.deepcopy of a parametrized module (target networks: DDPG/TD3 deep-copy their actor and critic; TCN's
# layers use weight_norm, spectral-normed critics use parametrizations) ----
PARAMETRIZED = {
    "weight_norm": lambda nn, d: nn.utils.parametrizations.weight_norm(nn.Conv1d(2, 3, 3, device=d)),
    "spectral_norm": lambda nn, d: nn.utils.parametrizations.spectral_norm(nn.Linear(2, 3, device=d)),
    "orthogonal": lambda nn, d: nn.utils.parametrizations.orthogonal(nn.Linear(3, 3, device=d)),
    "in-a-model": lambda nn, d: nn.Sequential(nn.utils.parametrizations.weight_norm(nn.Linear(2, 3, device=d)),
                                              nn.Tanh(), nn.Linear(3, 1, device=d)),
}


@pytest.mark.parametrize("name", PARAMETRIZED)
def test_parametrized_modules_deep_copy_but_do_not_pickle_as_pytorch(device, name):
    import copy
    module = PARAMETRIZED[name](tandem.nn, device)
    module.eval()  # spectral_norm's power iteration runs only in training
    replica = copy.deepcopy(module)
    assert type(replica) is type(module) and replica is not module
    x = tandem.ones(1, 2, 5, device=device) if name == "weight_norm" else tandem.ones(1, 3 if name == "orthogonal"
                                                                                      else 2, device=device)
    assert tandem.equal(replica(x), module(x))
    assert list(replica.state_dict()) == list(PARAMETRIZED[name](torch.nn, "cpu").state_dict())
    for p_copy, p in zip(replica.parameters(), module.parameters()):
        assert p_copy is not p and p_copy.device == tandem.device(device)
    with tandem.no_grad():
        next(replica.parameters()).add_(1.0)  # the copy is independent of the original
    assert not tandem.equal(replica(x), module(x))
    shared = tandem.nn.ModuleList([module, module])  # one object twice stays one object (deepcopy's memo)
    twins = copy.deepcopy(shared)
    assert twins[0] is twins[1]
    with pytest.raises(RuntimeError, match="^Serialization of parametrized modules is only supported through "
                                           "state_dict\\(\\). See:\n"):
        pickle.dumps(module)


# ---- loss weights must be tensors, as PyTorch's argument parser says (zfjsail/gae-pytorch passes a NumPy float as
# pos_weight: PyTorch refuses it, tandem used to broadcast it) ----
def _loss_cases(lib, dev):
    F = lib.nn.functional

    def T(x, **kwargs):
        return lib.tensor(x, device=dev, **kwargs)
    x, y, p = T([0.5, -1.0]), T([1.0, 0.0]), T([0.6, 0.3])
    scores, label = T([[1.0, 2.0, 0.5]]), T([1])
    return {
        "bce_logits pos_weight numpy": lambda: F.binary_cross_entropy_with_logits(x, y, pos_weight=np.float64(2)),
        "bce_logits pos_weight float": lambda: F.binary_cross_entropy_with_logits(x, y, pos_weight=2.0),
        "bce_logits pos_weight int": lambda: F.binary_cross_entropy_with_logits(x, y, pos_weight=2),
        "bce_logits pos_weight list": lambda: F.binary_cross_entropy_with_logits(x, y, pos_weight=[2.0, 1.0]),
        "bce_logits pos_weight array": lambda: F.binary_cross_entropy_with_logits(x, y, pos_weight=np.ones(2)),
        "bce_logits pos_weight positional": lambda: F.binary_cross_entropy_with_logits(x, y, None, None, None,
                                                                                       "mean", 2.0),
        "bce_logits weight float": lambda: F.binary_cross_entropy_with_logits(x, y, weight=2.0),
        "bce_logits weight numpy": lambda: F.binary_cross_entropy_with_logits(x, y, weight=np.float32(2)),
        "bce_logits both": lambda: F.binary_cross_entropy_with_logits(x, y, weight=1.0, pos_weight=2.0),
        "bce_logits bad shape first": lambda: F.binary_cross_entropy_with_logits(x, T([1.0]), pos_weight=2.0),
        "bce_logits tensors": lambda: F.binary_cross_entropy_with_logits(x, y, weight=T([1.0, 0.5]),
                                                                         pos_weight=T(2.0)),
        "bce weight float": lambda: F.binary_cross_entropy(p, y, weight=2.0),
        "bce weight tensor": lambda: F.binary_cross_entropy(p, y, weight=T([2.0, 1.0])),
        "cross_entropy weight list": lambda: F.cross_entropy(scores, label, weight=[1.0, 2.0, 3.0]),
        "cross_entropy weight numpy": lambda: F.cross_entropy(scores, label, weight=np.float32(1)),
        "cross_entropy 3-d weight float": lambda: F.cross_entropy(lib.ones(1, 3, 2, device=dev), T([[1, 0]]),
                                                                  weight=2.0),
        "nll weight float": lambda: F.nll_loss(scores, label, weight=2.0),
        "nll weight array": lambda: F.nll_loss(scores, label, weight=np.ones(3)),
        "nll 1-d weight float": lambda: F.nll_loss(lib.ones(3, device=dev), T(1), weight=2.0),
        "multi_margin weight float": lambda: F.multi_margin_loss(scores, label, weight=2.0),
    }


@pytest.mark.parametrize("case", list(_loss_cases(torch, "cpu")))
def test_loss_weights_that_are_not_tensors_raise_as_pytorch(device, case):
    def outcome(lib, dev):
        try:
            return ("ok", round(float(_loss_cases(lib, dev)[case]()), 5))
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return (type(e).__name__, str(e).replace("tandem", "torch"))
    assert outcome(tandem, device) == outcome(torch, "cpu")


# ---- PyTorch tensors pickled with plain pickle load as tandem tensors (TCN word_cnn caches its corpus of
# LongTensors with pickle.dump; a run under tandem reads the cache a PyTorch run wrote) ----
class _TorchAsTandem(pickle.Unpickler):
    """What `import tandem as torch` does to a pickle's torch.* names."""

    def find_class(self, module, name):
        if module == "torch" or module.startswith("torch."):
            module = "tandem" + module[len("torch"):]
        return super().find_class(module, name)


def _plain_pickle_objects():
    base = torch.arange(12.0).reshape(3, 4)
    return {"float": torch.tensor([1.5, -2.0]), "long": torch.arange(5), "bool": torch.tensor([True, False]),
            "half": torch.tensor([1.0, 2.5], dtype=torch.float16), "bf16": torch.tensor([1.0, 3.0],
                                                                                       dtype=torch.bfloat16),
            "complex": torch.tensor([1 + 2j]), "transposed": base.t(), "row": base[1], "empty": torch.empty(0, 3),
            "scalar": torch.tensor(7), "param": torch.nn.Parameter(torch.ones(2)),
            "frozen": torch.nn.Parameter(torch.ones(1), requires_grad=False),
            "state_dict": torch.nn.Linear(2, 2).state_dict(), "list": [torch.ones(2, dtype=torch.int32)]}


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_pytorch_tensors_pickled_with_plain_pickle_load_into_tandem(protocol):
    objects = _plain_pickle_objects()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's TypedStorage deprecation warning
        data = pickle.dumps(objects, protocol=protocol)
    got = _TorchAsTandem(io.BytesIO(data)).load()

    def same(a, b):
        assert type(b).__name__ == ("Parameter" if isinstance(a, torch.nn.Parameter) else "Tensor")
        assert str(b.dtype)[7:] == str(a.dtype)[6:] and tuple(b.shape) == tuple(a.shape)
        assert b.requires_grad == a.requires_grad and b.device.type == "cpu"
        assert b.float().tolist() == a.float().tolist() if a.dtype == torch.bfloat16 else b.tolist() == a.tolist()

    for key, value in objects.items():
        if isinstance(value, dict):
            assert type(got[key]).__name__ == "OrderedDict" and list(got[key]) == list(value)
            for name in value:
                same(value[name], got[key][name])
        elif isinstance(value, list):
            same(value[0], got[key][0])
        else:
            same(value, got[key])


def test_damaged_pickled_storage_raises_clearly():
    from tandem.storage import _load_from_bytes
    good = torch.tensor([1.0, 2.0]).untyped_storage().__reduce__()[1][0]  # torch.save's legacy bytes
    assert _load_from_bytes(good) is not None
    for damaged, match in [(good[:-3], "^unexpected EOF, expected 3 more bytes"),
                           (b"\x80\x02K\x01.", "Invalid magic number"), (good[:20], "^Ran out of input"),
                           (good[:18], "^pickle data was truncated")]:
        with pytest.raises((pickle.UnpicklingError, RuntimeError, EOFError), match=match):  # PyTorch's errors
            _load_from_bytes(damaged)
    with pytest.raises(TypeError, match="expected bytes"):
        _load_from_bytes("text")


@pytest.mark.parametrize("data", ["[np.array(1.0), np.array(2.0)]", "[[np.array(1.0)]]", "(np.array(1),)",
                                  "[np.array(1.0), 2.0]", "[np.array(True)]", "[np.float32(1.0), np.array(2.0)]",
                                  "[2.0, np.array(1.0)]", "[[1.0], np.zeros(1)]"])
@pytest.mark.parametrize("factory", ["tensor", "as_tensor"])
def test_a_0d_array_first_in_a_nest_raises_as_pytorch(device, data, factory):
    """PyTorch reads the shape down the first elements and a 0-d array there has no len(); elsewhere it is a
    number."""
    def outcome(lib, **kwargs):
        try:
            return ("ok", getattr(lib, factory)(eval(data), **kwargs).tolist())  # noqa: S307 - the cases above
        except TypeError as e:
            return ("TypeError", str(e))
    assert outcome(tandem, device=device) == outcome(torch)
