"""The twentieth program sweep: torch.func in real code (ensembles through stack_module_state, per-sample
gradients and clipping, Newton and KKT systems by jacrev/jacfwd/hessian, vmap's dims and randomness), Bayesian code
with torch.distributions (mixture density networks, full-covariance ELBOs, Dirichlet posteriors, transformed flows,
REINFORCE), nn.Transformer/MultiheadAttention with every mask and option, custom autograd.Function idioms and
checkpointing, training-loop infrastructure (accumulation with a GradScaler, early stopping, resuming through
BytesIO, scheduler combinations, add_param_group), data-loading idioms (IterableDataset, collate functions,
default_collate, seeded samplers, dataset composition) and signal code (STFT/ISTFT round trips, log-mel features,
FFT convolution, a phase vocoder, windows), each program written once against a module called `torch`, run with
PyTorch and with tandem standing in for it, and their results compared. The focused tests below cover what they
found (docs/compat.md, "Program sweep 20")."""
import copy
import pickle

import pytest

import sweep20_autograd
import sweep20_bayes
import sweep20_data
import sweep20_func
import sweep20_signal
import sweep20_training
import sweep20_transformer
import tandem
from test_programs_sweeputil import program_test, same_outcome

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep20_func, sweep20_bayes, sweep20_transformer, sweep20_autograd, sweep20_training, sweep20_data,
            sweep20_signal)


test_program_matches_pytorch = program_test(_MODULES, DEVICES)


# ---- a copied TransformerDecoderLayer with a module activation runs relu, as PyTorch's ----------------------------------
def _decoder_layer_copies(L, device, copier):
    layer = L.nn.TransformerDecoderLayer(8, 2, dim_feedforward=12, dropout=0.0, activation=L.nn.SiLU(),
                                         batch_first=True)
    with L.no_grad():
        for i, p in enumerate(layer.parameters()):
            p.copy_(L.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (1 + i % 3))
    layer = layer.to(device)
    clone = copier(L, layer)
    tgt = L.linspace(-1, 1, 2 * 3 * 8, device=device).reshape(2, 3, 8)
    mem = L.linspace(1, -1, 2 * 4 * 8, device=device).reshape(2, 4, 8).cos()
    return [layer.activation is L.nn.functional.relu, clone.activation is L.nn.functional.relu,
            type(clone._modules["activation"]).__name__, layer(tgt, mem), clone(tgt, mem)]


_COPIERS = {
    "deepcopy": lambda L, m: copy.deepcopy(m),
    "pickle": lambda L, m: pickle.loads(pickle.dumps(m)),
    "decoder_stack": lambda L, m: L.nn.TransformerDecoder(m, 2).layers[1],
    "transformer": lambda L, m: L.nn.Transformer(8, 2, 1, 1, 12, 0.0, activation=L.nn.GELU(),
                                                 batch_first=True).to(m.linear1.weight.device).decoder.layers[0],
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("how", list(_COPIERS))
def test_copied_decoder_layer_with_a_module_activation_runs_relu_as_pytorch(how, device):
    """PyTorch's TransformerDecoderLayer.__setstate__ gives a state without an "activation" entry F.relu; a module
    activation lives in _modules, so a deep copy, an unpickled layer and the clones TransformerDecoder (and
    nn.Transformer) make run relu while the module stays registered."""
    if how == "transformer":
        def run(L, d):
            clone = _COPIERS[how](L, L.nn.Linear(1, 1).to(d))
            return [clone.activation is L.nn.functional.relu, type(clone._modules["activation"]).__name__]
        same_outcome(run, device)
        return
    same_outcome(lambda L, d: _decoder_layer_copies(L, d, _COPIERS[how]), device)


def test_decoder_layer_string_and_function_activations_survive_a_copy():
    for L in (tandem, torch):
        F = L.nn.functional
        assert copy.deepcopy(L.nn.TransformerDecoderLayer(8, 2, activation="gelu")).activation is F.gelu
        assert copy.deepcopy(L.nn.TransformerDecoderLayer(8, 2, activation=F.silu)).activation is F.silu
        enc = copy.deepcopy(L.nn.TransformerEncoderLayer(8, 2, activation=L.nn.SiLU()))
        assert type(enc.activation).__name__ == "SiLU"


# ---- the window functions' argument and dtype errors -------------------------------------------------------------------
_WINDOW_CALLS = {
    "kaiser_beta_alone": lambda L, d: L.kaiser_window(6, beta=8.0, device=d),
    "kaiser_beta_alone_dtype": lambda L, d: L.kaiser_window(6, beta=8.0, dtype=L.float64),
    "kaiser_all_factory": lambda L, d: L.kaiser_window(6, beta=8.0, requires_grad=True, pin_memory=False,
                                                       layout=L.strided),
    "hann_three_positionals": lambda L, d: L.hann_window(6, True, 3, device=L.device(d)),
    "hamming_beta_alone": lambda L, d: L.hamming_window(6, beta=1.0, dtype=L.float64),
    "hamming_too_many": lambda L, d: L.hamming_window(6, False, 1.0, 2.0, 3.0),
    "hann_unknown_keyword": lambda L, d: L.hann_window(6, foo=1),
    "blackman_periodic_int": lambda L, d: L.blackman_window(6, periodic=1),
    "int64": lambda L, d: L.hann_window(4, dtype=L.int64),
    "int32_on_device": lambda L, d: L.hamming_window(4, dtype=L.int32),
    "bool_requires_grad": lambda L, d: L.bartlett_window(4, dtype=L.bool, requires_grad=True),
    "uint8_layout": lambda L, d: L.blackman_window(4, dtype=L.uint8, layout=L.strided),
    "int16_pinned": lambda L, d: L.hann_window(4, dtype=L.int16, pin_memory=True),
    "int8_kaiser": lambda L, d: L.kaiser_window(4, dtype=L.int8),
    "int_negative": lambda L, d: L.hann_window(-1, dtype=L.int64),
    "complex": lambda L, d: L.hann_window(4, dtype=L.complex64, device=d),
    "complex_kaiser": lambda L, d: L.kaiser_window(5, False, 3.0, dtype=L.complex128, device=d),
    "complex_length_1": lambda L, d: L.view_as_real(L.hann_window(1, dtype=L.complex64, device=d)),
    "complex_length_0": lambda L, d: L.kaiser_window(0, dtype=L.complex128, device=d),
    "complex_negative": lambda L, d: L.hann_window(-2, dtype=L.complex64),
    "float_still_works": lambda L, d: L.kaiser_window(5, False, 3.0, dtype=L.float64, device=d),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_WINDOW_CALLS))
def test_window_errors_match_pytorch(case, device):
    """An overload error lists the factory keywords among the arguments given and the window's forms (each with
    window_length); an integer dtype is refused with the TensorOptions PyTorch prints; a complex dtype passes the
    check and stops at arange's kernel unless the window has fewer than two values."""
    same_outcome(_WINDOW_CALLS[case], device)


def test_window_overload_error_lists_every_form():
    for L in (tandem, torch):
        with pytest.raises(TypeError) as info:
            L.hamming_window(6, beta=1.0)
        forms = [line for line in str(info.value).split("\n") if line.startswith(" * (")]
        assert len(forms) == 4 and all(f.startswith(" * (int window_length") for f in forms)


# ---- stft/istft: frames aligned to the window, PyTorch's padding-first order and its type names ------------------------
def _signal(L, d, n=97, dtype=None):
    import numpy as np
    return L.tensor(np.sin(np.arange(n) * 0.37) + 0.2 * np.cos(np.arange(n) * 1.3), dtype=dtype or L.float64,
                    device=d)


_STFT_CALLS = {
    "aligned": lambda L, d: L.view_as_real(L.stft(_signal(L, d), 16, 3, 10, window=L.hann_window(
        10, dtype=L.float64, device=d) + 0.1, center=False, align_to_window=True, return_complex=True)),
    "aligned_batch_no_window": lambda L, d: L.view_as_real(L.stft(_signal(L, d, 60).view(2, 30), 8, 2, 5,
                                                                  center=False, align_to_window=True,
                                                                  return_complex=True)),
    "aligned_gradient": lambda L, d: (lambda x: (L.stft(x, 8, 2, 5, window=L.hann_window(5, device=d),
                                                        center=False, align_to_window=True,
                                                        return_complex=True).abs().sum().backward(), x.grad)[1])(
        _signal(L, d, 30, L.float32).requires_grad_()),
    "aligned_too_short": lambda L, d: L.stft(_signal(L, "cpu", 6), 8, 2, 4, center=False, align_to_window=True,
                                             return_complex=True),
    "aligned_centre": lambda L, d: L.stft(_signal(L, d), 8, align_to_window=False, return_complex=True),
    "zero_dim_reflect": lambda L, d: L.stft(L.tensor(1.0, device=d), 8, return_complex=True),
    "zero_dim_constant": lambda L, d: L.stft(L.tensor(1.0), 8, return_complex=True, pad_mode="constant"),
    "three_dim": lambda L, d: L.stft(L.ones(2, 2, 10), 4, window=L.ones(4), return_complex=True),
    "four_dim": lambda L, d: L.stft(L.ones(2, 2, 2, 10, device=d), 4, return_complex=True),
    "padding_before_return_complex": lambda L, d: L.stft(L.ones(1, device=d), 4),
    "complex_input_name": lambda L, d: L.stft(L.ones(4, 4, 4, dtype=L.complex64), 2, return_complex=True),
    "complex_window_name": lambda L, d: L.stft(L.ones(3, 3, 3), 2, window=L.ones(2, dtype=L.complex64),
                                               return_complex=True),
    "bfloat16_window_name": lambda L, d: L.stft(L.ones(3, 3, 3, dtype=L.float64), 2,
                                                window=L.ones(2, dtype=L.bfloat16), return_complex=True),
    "half_cpu": lambda L, d: L.stft(L.ones(16, dtype=L.half), 8, window=L.ones(8, dtype=L.half),
                                    return_complex=True),
    "bfloat16_cpu_no_window": lambda L, d: L.stft(L.ones(16, dtype=L.bfloat16), 8, return_complex=True),
    "half_float_window": lambda L, d: L.stft(L.ones(16, dtype=L.half, device=d), 8, window=L.ones(8, device=d),
                                             return_complex=True).dtype.is_complex,
    "istft_1d": lambda L, d: L.istft(L.ones(9, dtype=L.complex64, device=d), 16),
    "istft_0d": lambda L, d: L.istft(L.ones((), dtype=L.complex64, device=d), 16),
    "istft_4d": lambda L, d: L.istft(L.ones(2, 2, 9, 5, dtype=L.complex64), 16, window=L.hann_window(16)),
    "istft_complex_window_name": lambda L, d: L.istft(L.ones(2, 2, 9, 5, dtype=L.complex64), 16,
                                                      window=L.ones(16, dtype=L.complex64)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_STFT_CALLS))
def test_stft_framing_and_refusals_match_pytorch(case, device):
    """align_to_window=True is PyTorch's framing (each frame starts where its window starts); a centred stft pads
    first, as PyTorch's Python wrapper does, so padding errors and the padded shape come before the op's checks;
    complex and bfloat16 tensors are named by backend and scalar type ("CPUComplexFloatType"); an istft input is
    counted in the dims of its real view; a 16-bit signal is refused on the CPU with the MKL FFT's message."""
    same_outcome(_STFT_CALLS[case], device)


# ---- training-mode normalisation under vmap: the batch-size check comes first ---------------------------------------------
_NORM_UNDER_VMAP = {
    "batch_norm_one_value": lambda L, d: L.func.vmap(lambda a: L.nn.functional.batch_norm(
        a.unsqueeze(0), L.zeros(3, device=d), L.ones(3, device=d), training=True))(L.ones(4, 3, device=d)),
    "batch_norm_eps": lambda L, d: L.func.vmap(lambda a: L.nn.functional.batch_norm(
        a, L.zeros(3, device=d), L.ones(3, device=d), training=True, eps=0.0))(L.ones(4, 2, 3, device=d)),
    "batch_norm_unbatched_stats": lambda L, d: L.func.vmap(lambda a: L.nn.functional.batch_norm(
        a, L.zeros(3, device=d), L.ones(3, device=d), training=True))(L.ones(4, 2, 3, device=d)),
    "instance_norm_one_element": lambda L, d: L.func.vmap(lambda a: L.nn.functional.instance_norm(
        a.unsqueeze(0), L.zeros(3, device=d), L.ones(3, device=d)))(L.ones(4, 3, 1, device=d)),
    "instance_norm_unbatched_stats": lambda L, d: L.func.vmap(lambda a: L.nn.functional.instance_norm(
        a.unsqueeze(0), L.zeros(3, device=d), L.ones(3, device=d)))(L.ones(4, 3, 5, device=d)),
    "module_one_value": lambda L, d: L.func.vmap(L.nn.BatchNorm1d(3).to(d))(L.ones(4, 1, 3, device=d)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_NORM_UNDER_VMAP))
def test_normalisation_under_vmap_checks_in_pytorchs_order(case, device):
    """F.batch_norm/F.instance_norm check the batch (spatial) size in Python before the op's vmap rule refuses
    running statistics that are not batched: a per-sample call of a one-value batch gets the ValueError."""
    same_outcome(_NORM_UNDER_VMAP[case], device)


# ---- MultiheadAttention.merge_masks ----------------------------------------------------------------------------------------
def _merge(L, d, attn_mask, key_padding_mask, shape=(2, 3, 4)):
    mha = L.nn.MultiheadAttention(4, 2, batch_first=True).to(d)
    return list(mha.merge_masks(attn_mask, key_padding_mask, L.zeros(*shape, device=d)))


def _padding(L, d):
    return L.tensor([[False, True, False], [False] * 3], device=d)


_MERGE_CASES = {
    "none": lambda L, d: _merge(L, d, None, None),
    "padding_only": lambda L, d: _merge(L, d, None, _padding(L, d)),
    "float_mask_and_bool_padding": lambda L, d: _merge(L, d, L.zeros(3, 3, device=d), _padding(L, d)),
    "float_mask_and_float_padding": lambda L, d: _merge(L, d, L.zeros(3, 3, device=d),
                                                        L.zeros(2, 3, device=d).masked_fill(_padding(L, d),
                                                                                            float("-inf"))),
    "per_head_bool_mask": lambda L, d: _merge(L, d, L.ones(4, 3, 3, dtype=L.bool, device=d).triu(1), None),
    "bool_mask_and_bool_padding": lambda L, d: _merge(L, d, L.ones(3, 3, dtype=L.bool, device=d).triu(1),
                                                      _padding(L, d)),
    "unbatched_query": lambda L, d: _merge(L, d, L.zeros(3, 3, device=d), None, (3, 4)),
    "mask_of_another_length": lambda L, d: _merge(L, d, L.zeros(2, 2, device=d), None),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_MERGE_CASES))
def test_multihead_attention_merge_masks_matches_pytorch(case, device):
    """The helper PyTorch's fused paths (and code that calls them by hand) use: mask type None/1/2, the attention
    mask viewed per batch and head, a padding mask added to it as it is."""
    same_outcome(_MERGE_CASES[case], device)


# ---- the wide unsigned dtypes' C++ names in messages ----------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_wide_unsigned_dtypes_are_named_as_pytorchs_cpp_types(device):
    for dtype in ("uint16", "uint32", "uint64"):
        same_outcome(lambda L, d: L.hann_window(4, dtype=getattr(L, dtype)), device)
        same_outcome(lambda L, d: L.tensor([1], dtype=getattr(L, dtype), device=d).clamp_(0.5), device)


# ---- functional_call's arguments -------------------------------------------------------------------------------------------
def _linear(L, d):
    m = L.nn.Linear(3, 2).to(d)
    with L.no_grad():
        m.weight.copy_(L.ones(2, 3))
        m.bias.copy_(L.ones(2))
    return m


_STATE_ARGS = {
    "int_value": lambda L, d: {"weight": 3},
    "none_value": lambda L, d: {"bias": None},
    "list_value": lambda L, d: {"weight": [[0.0] * 3] * 2},
    "numpy_value": lambda L, d: {"weight": __import__("numpy").zeros((2, 3), dtype="float32")},
    "parameter_value": lambda L, d: {"weight": L.nn.Parameter(L.zeros(2, 3, device=d))},
    "list_with_a_non_dict": lambda L, d: [{"weight": L.zeros(2, 3, device=d)}, 5],
    "not_a_dict": lambda L, d: 5,
    "a_string": lambda L, d: "weight",
    "tuple_of_dicts": lambda L, d: ({"weight": L.zeros(2, 3, device=d)}, {"bias": L.zeros(2, device=d)}),
    "repeated_keys": lambda L, d: ({"bias": L.zeros(2, device=d)}, {"bias": L.ones(2, device=d)}),
    "missing_submodule": lambda L, d: {"nothing.here": L.zeros(1, device=d)},
    "new_attribute": lambda L, d: {"extra": L.zeros(1, device=d)},
    "bad_after_good": lambda L, d: {"bias": L.zeros(2, device=d), "weight": "w"},
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("entry", ["func", "stateless"])
@pytest.mark.parametrize("case", list(_STATE_ARGS))
def test_functional_call_arguments_match_pytorch(case, entry, device):
    """torch.func.functional_call takes a dict or a sequence of dicts (ValueErrors otherwise); the deprecated
    stateless one a dict only (a tuple is PyTorch's AttributeError); every value a tensor or None; a failed swap
    leaves the module as it was."""
    def run(L, d):
        m = _linear(L, d)
        call = L.func.functional_call if entry == "func" else L.nn.utils.stateless.functional_call
        try:
            return call(m, _STATE_ARGS[case](L, d), (L.ones(1, 3, device=d),))
        finally:
            assert type(m.weight).__name__ == "Parameter" and not hasattr(m, "extra")
            assert float(m.bias.sum()) == 2.0
    same_outcome(run, device)


# ---- layer_norm of a 16-bit input with float32 parameters ------------------------------------------------------------------
_LN_DTYPES = ["float32", "float64", "bfloat16", "float16"]


@pytest.mark.parametrize("bias", _LN_DTYPES + [None])
@pytest.mark.parametrize("weight", _LN_DTYPES + [None])
@pytest.mark.parametrize("dtype", _LN_DTYPES)
def test_layer_norm_parameter_dtypes_follow_pytorchs_rule(dtype, weight, bias):
    """The first parameter given decides: of the input's dtype, the other must match ("expected scalar type ...
    but found ..."); of another, all must be float32 ("mixed dtype (CPU): expect parameter to have scalar type of
    Float") and the input 16-bit ("mixed dtype (CPU): all inputs must share same datatype.")."""
    def run(L, d):
        def make(name):
            return None if name is None else L.linspace(0.5, 1.5, 4, dtype=getattr(L, name), device=d)
        x = L.linspace(-2, 3, 8, device=d).reshape(2, 4).to(getattr(L, dtype))
        return L.nn.functional.layer_norm(x, (4,), make(weight), make(bias))
    same_outcome(run, "cpu")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_mixed_layer_norm_rounds_once_as_pytorch(dtype, device):
    """A 16-bit input with float32 weight and bias: the output and the input's gradient are PyTorch's bit for bit
    (computed in float32, rounded once), the parameters' gradients float32 and close."""
    import numpy as np
    rng = np.random.default_rng(7)
    x, w, b, g = (rng.standard_normal((3, 5, 64)), rng.uniform(-1, 1, 64), rng.uniform(-1, 1, 64),
                  rng.standard_normal((3, 5, 64)))
    results = []
    for L, d in ((torch, "cpu"), (tandem, device)):
        low = getattr(L, dtype)
        xt = L.tensor(x, dtype=L.float32, device=d).to(low).requires_grad_()
        wt = L.tensor(w, dtype=L.float32, device=d, requires_grad=True)
        bt = L.tensor(b, dtype=L.float32, device=d, requires_grad=True)
        y = L.nn.functional.layer_norm(xt, (64,), wt, bt)
        grads = L.autograd.grad(y, (xt, wt, bt), L.tensor(g, dtype=L.float32, device=d).to(low))
        results.append([str(y.dtype).split(".")[1]] + [t.detach().float().cpu().numpy() for t in (y,) + grads]
                       + [str(t.dtype).split(".")[1] for t in grads])
    want, got = results
    assert got[0] == want[0] and got[5:] == want[5:]
    for i in (1, 2):  # a GPU's float32 sums may land on the other side of a 16-bit rounding boundary
        if device == "cpu":
            np.testing.assert_array_equal(got[i], want[i])
        else:
            np.testing.assert_allclose(got[i], want[i], rtol=1e-2, atol=1e-2)
    for i in (3, 4):
        np.testing.assert_allclose(got[i], want[i], rtol=0.05, atol=0.1)


# ---- rms_norm: the weight is applied in the computing type, one rounding to the input's dtype ----------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("weight", _LN_DTYPES + [None])
@pytest.mark.parametrize("dtype", _LN_DTYPES)
def test_rms_norm_rounds_once_to_the_inputs_dtype(dtype, weight, device):
    """PyTorch normalises a 16-bit input in float32, multiplies by the weight there and rounds once; the result has
    the input's dtype whatever the weight's (a float32 weight with a bfloat16 input gave float32, and a bfloat16
    weight was applied after rounding)."""
    import numpy as np

    def run(L, d):
        x = L.tensor(np.random.default_rng(1).standard_normal((5, 64)), dtype=L.float32, device=d)
        x = x.to(getattr(L, dtype)).requires_grad_()
        w = None
        if weight is not None:
            w = L.tensor(np.random.default_rng(2).uniform(-1, 1, 64), dtype=L.float32, device=d)
            w = w.to(getattr(L, weight)).requires_grad_()
        y = L.nn.functional.rms_norm(x, (64,), w)
        grads = L.autograd.grad(y.float().pow(2).sum(), [t for t in (x, w) if t is not None])
        return [y, [str(g.dtype).split(".")[1] for g in grads], grads[0].float()]
    same_outcome(run, device)


# ---- embedding_bag of 16-bit weights sums in float32 ---------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("form", ["offsets", "offsets_padding", "dense", "dense_padding", "weighted"])
@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_embedding_bag_of_16_bit_weights_sums_in_float(dtype, mode, form, device):
    """PyTorch's bag kernels add 16-bit rows in float32 and round each bag's sum once (a mean divides the rounded
    sum); tandem added them in the 16-bit dtype, an ulp or more off. (Exact ties can still round the other way:
    PyTorch's kernel rounds them up, tandem's conversion to even.)"""
    import numpy as np
    if form == "weighted" and mode == "mean":
        pytest.skip("per_sample_weights is for mode='sum' only")

    def run(L, d):
        w = L.tensor(np.random.default_rng(1).standard_normal((10, 3)), dtype=L.float32, device=d)
        w = w.to(getattr(L, dtype))
        flat, offsets = L.tensor([1, 2, 4, 5, 4, 3, 7], device=d), L.tensor([0, 3, 3], device=d)
        dense = L.tensor([[1, 2, 4], [5, 4, 3]], device=d)
        F = L.nn.functional
        if form == "offsets":
            return F.embedding_bag(flat, w, offsets, mode=mode)
        if form == "offsets_padding":
            return F.embedding_bag(flat, w, offsets, mode=mode, padding_idx=4)
        if form == "dense":
            return F.embedding_bag(dense, w, mode=mode)
        if form == "dense_padding":
            return F.embedding_bag(dense, w, mode=mode, padding_idx=4)
        weights = L.tensor([0.5, 1.0, 2.0, 1.5, 0.25, 0.75, 1.0], device=d).to(getattr(L, dtype))
        return F.embedding_bag(flat, w, offsets, mode="sum", per_sample_weights=weights)
    if form == "weighted" and dtype == "bfloat16":
        pytest.skip("PyTorch's weighted bfloat16 bags round in a way tandem does not follow (float16 matches)")
    same_outcome(run, device, tol={"rel": 0.0, "abs": 0.0})
