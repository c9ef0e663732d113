"""The CPU generator is PyTorch's: after manual_seed(s), tandem's CPU draws are PyTorch's CPU draws bit for bit
(MT19937 with PyTorch's transformations and consumption order; src/ops/random_cpu_stream.cpp), and the state is
PyTorch's get_rng_state layout, so states move between the two libraries. Checked against PyTorch itself."""
import warnings

import numpy as np
import pytest

import tandem

torch = pytest.importorskip("torch")


def _draw(lib, make, seed=0):
    lib.manual_seed(seed)
    out = make(lib)
    if out.dtype in (lib.float16, lib.bfloat16):
        out = out.double()
    return out.numpy(), str(out.dtype).split(".")[-1]


CASES = {
    "rand": lambda L: L.rand(5),
    "rand_f64": lambda L: L.rand(1000, dtype=L.float64),
    "rand_f16": lambda L: L.rand(1000, dtype=L.float16),
    "rand_bf16": lambda L: L.rand(1000, dtype=L.bfloat16),
    "uniform_bounds_f32": lambda L: L.empty(3000).uniform_(-0.37, 0.81),
    "uniform_bounds_f64": lambda L: L.empty(3000, dtype=L.float64).uniform_(-0.37, 0.81),
    "uniform_bounds_f16": lambda L: L.empty(2000, dtype=L.float16).uniform_(-0.3, 0.7),
    "uniform_bf16_wraps_to_from": lambda L: L.empty(2000, dtype=L.bfloat16).uniform_(-0.3, 0.7),
    "uniform_transposed": lambda L: L.empty(30, 10).t().uniform_(-1, 1),
    "uniform_sliced": lambda L: L.empty(30, 10)[:, ::2].uniform_(-1, 1),
    "randn_pairwise": lambda L: L.randn(3),
    "randn_cached_sample": lambda L: L.cat([L.randn(3), L.randn(1)]),
    "randn_blockwise": lambda L: L.randn(4096),
    "randn_partial_block": lambda L: L.randn(4097),
    "randn_mixed": lambda L: L.cat([L.randn(15), L.randn(20), L.randn(5)]),
    "randn_f64": lambda L: L.randn(100, dtype=L.float64),
    "randn_f64_pairwise": lambda L: L.randn(7, dtype=L.float64),
    "normal_mean_std": lambda L: L.empty(1000).normal_(2.0, 3.0),
    "normal_transposed": lambda L: L.empty(3, 10).t().normal_(),
    "normal_tensors": lambda L: L.normal(L.zeros(50), L.ones(50) * 2),
    "randn_like": lambda L: L.randn_like(L.empty(50)),
    "randint": lambda L: L.randint(0, 10, (100,)),
    "randint_wide": lambda L: L.randint(-5, 2 ** 40, (100,)),
    "randint_bias_bound": lambda L: L.randint(0, 2 ** 28, (50,)),
    "randint_below_bound": lambda L: L.randint(0, 2 ** 28 - 1, (50,)),
    "randint_int32": lambda L: L.randint(3, 1000, (100,), dtype=L.int32),
    "randint_like": lambda L: L.randint_like(L.empty(20), 0, 7),
    "random_from_to_f32": lambda L: L.empty(10).random_(5, 10),
    "random_int64_default": lambda L: L.empty(10, dtype=L.int64).random_(),
    "randperm": lambda L: L.randperm(100),
    "randperm_f32": lambda L: L.randperm(7, dtype=L.float32),
    "bernoulli_scalar": lambda L: L.empty(1000).bernoulli_(0.3),
    "bernoulli_f32_probs": lambda L: L.bernoulli(L.full((1000,), 0.3)),
    "bernoulli_f64_probs": lambda L: L.bernoulli(L.full((1000,), 0.3, dtype=L.float64)),
    "bernoulli_broadcast_probs": lambda L: L.empty(10, 20).bernoulli_(L.linspace(0, 1, 20)),
    "dropout": lambda L: L.nn.functional.dropout(L.ones(1000), 0.1),
    "dropout_module": lambda L: L.nn.Dropout(0.5)(L.arange(100.0)),
    "linear_weight": lambda L: L.nn.Linear(30, 20).weight.detach(),
    "linear_bias": lambda L: L.nn.Linear(30, 20).bias.detach(),
    "conv2d_weight": lambda L: L.nn.Conv2d(3, 8, 3).weight.detach(),
    "embedding": lambda L: L.nn.Embedding(100, 16).weight.detach(),
    "lstm": lambda L: L.nn.LSTM(10, 20).weight_hh_l0.detach(),
    "xavier_uniform": lambda L: L.nn.init.xavier_uniform_(L.empty(20, 30)),
    "kaiming_normal": lambda L: L.nn.init.kaiming_normal_(L.empty(20, 30)),
    "trunc_normal_wide": lambda L: L.nn.init.trunc_normal_(L.empty(20, 30), std=0.02),
    "trunc_normal_narrow": lambda L: L.nn.init.trunc_normal_(L.empty(20, 30), mean=0.0, std=1.0, a=1.0, b=1.5),
    "exponential_f32": lambda L: L.empty(100).exponential_(),
    "geometric": lambda L: L.empty(100).geometric_(0.3),
    "log_normal_f32": lambda L: L.empty(100).log_normal_(),
    "multinomial_replacement": lambda L: L.multinomial(L.tensor([0.1, 0.2, 0.7]), 20, replacement=True),
    "multinomial_rows": lambda L: L.multinomial(L.tensor([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]]), 6, True),
    "multinomial_one": lambda L: L.multinomial(L.tensor([[0.1, 0.2, 0.3, 0.4]] * 5), 1),
    "multinomial_no_replacement": lambda L: L.multinomial(L.tensor([0.1, 0.2, 0.3, 0.4]), 3),
    "categorical": lambda L: L.distributions.Categorical(L.tensor([0.2, 0.3, 0.5])).sample((20,)),
    "normal_distribution": lambda L: L.distributions.Normal(L.zeros(20), L.ones(20)).sample(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cpu_draws_are_pytorchs(name):
    got, got_dtype = _draw(tandem, CASES[name])
    want, want_dtype = _draw(torch, CASES[name])
    assert got_dtype == want_dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", [0, 1, 12345, 2 ** 32 + 7, 2 ** 63 + 5])
def test_many_seeds_and_long_streams(seed):
    """Across seeds (only the low 32 bits seed the engine, as PyTorch's) and past several 624-word blocks."""
    make = lambda L: L.cat([L.randn(2000), L.rand(1500), L.randint(0, 97, (1300,)).float()])  # noqa: E731
    np.testing.assert_array_equal(_draw(tandem, make, seed)[0], _draw(torch, make, seed)[0])


def test_state_is_pytorchs_layout_and_moves_between_libraries():
    tandem.manual_seed(3)
    torch.manual_seed(3)
    tandem.randn(5), torch.randn(5)  # leaves a cached normal sample in both
    state = tandem.get_rng_state()
    assert state.dtype == tandem.uint8 and state.shape == (5056,)
    np.testing.assert_array_equal(state.numpy(), torch.get_rng_state().numpy())
    # PyTorch's state in tandem (and back) continues PyTorch's stream
    torch_state = torch.get_rng_state()
    tandem.set_rng_state(tandem.from_numpy(torch_state.numpy().copy()))
    np.testing.assert_array_equal(tandem.randn(40).numpy(), torch.randn(40).numpy())
    torch.set_rng_state(torch.from_numpy(tandem.get_rng_state().numpy().copy()))
    np.testing.assert_array_equal(tandem.rand(7).numpy(), torch.rand(7).numpy())
    assert tandem.initial_seed() == torch.initial_seed() == 3


def test_generator_objects_follow_the_same_stream():
    g, h = tandem.Generator().manual_seed(11), torch.Generator().manual_seed(11)
    np.testing.assert_array_equal(tandem.randperm(50, generator=g).numpy(), torch.randperm(50, generator=h).numpy())
    np.testing.assert_array_equal(tandem.rand(9, generator=g).numpy(), torch.rand(9, generator=h).numpy())
    np.testing.assert_array_equal(g.get_state().numpy(), h.get_state().numpy())
    clone = tandem.Generator()
    clone.set_state(g.get_state())
    np.testing.assert_array_equal(tandem.rand(4, generator=clone).numpy(), tandem.rand(4, generator=g).numpy())


def test_bad_states_are_pytorchs_errors():
    with pytest.raises(RuntimeError, match=r"^Expected a CPUGeneratorImplState of size 5056 but found the input "
                                           r"RNG state size to be 16\n"):
        tandem.set_rng_state(tandem.zeros(16, dtype=tandem.uint8))
    bad = tandem.get_rng_state()
    bad[8:12] = 0  # left = 0
    with pytest.raises(RuntimeError, match=r"^Invalid mt19937 state"):
        tandem.set_rng_state(bad)
    with pytest.raises(RuntimeError, match=r"^Invalid mt19937 state"):
        torch.set_rng_state(torch.from_numpy(bad.numpy()))


def test_a_shuffled_training_run_is_pytorchs():
    """DataLoader(shuffle=True) seeds each epoch's order from the default generator as PyTorch does (its base
    seed first, then the sampler's seed), and dropout and init draw the same numbers: the same batches and the
    same losses (to float rounding) as PyTorch's run, with or without workers."""
    def run(lib, workers=0):
        lib.manual_seed(0)
        ds = lib.utils.data.TensorDataset(lib.arange(40.0).reshape(20, 2) / 40, lib.arange(20.0))
        model = lib.nn.Sequential(lib.nn.Linear(2, 8), lib.nn.Dropout(0.25), lib.nn.Linear(8, 1))
        opt = lib.optim.SGD(model.parameters(), lr=0.01)
        batches, losses = [], []
        for _ in range(3):
            for x, y in lib.utils.data.DataLoader(ds, batch_size=6, shuffle=True, num_workers=workers):
                loss = (model(x).squeeze(1) - y).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                batches.append(y.tolist())
                losses.append(loss.item())
        return batches, losses

    got, want = run(tandem), run(torch)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5)
    assert run(tandem, workers=2)[0] == want[0]


def test_samplers_and_random_split_are_pytorchs():
    for make in (lambda L: list(L.utils.data.RandomSampler(range(13))),
                 lambda L: list(L.utils.data.RandomSampler(range(13), replacement=True, num_samples=40)),
                 lambda L: list(L.utils.data.SubsetRandomSampler([5, 6, 7, 8])),
                 lambda L: list(L.utils.data.WeightedRandomSampler([0.1, 0.5, 0.4], 10)),
                 lambda L: [s.indices for s in L.utils.data.random_split(range(10), [0.3, 0.7])]):
        tandem.manual_seed(5)
        torch.manual_seed(5)
        assert make(tandem) == make(torch)


def test_cuda_draws_stay_counter_based():
    """CUDA generators (emulated here) keep Philox: a seed's values do not depend on how a draw is split."""
    if not tandem.cuda.is_available():
        pytest.skip("no cuda device (real or emulated)")
    tandem.manual_seed(1)
    whole = tandem.rand(64, device="cuda").cpu()
    tandem.manual_seed(1)
    again = tandem.rand(64, device="cuda").cpu()
    assert tandem.equal(whole, again)
    assert tandem.cuda.get_rng_state().numel() == 16


@pytest.mark.parametrize("causal", [False, True])
def test_attention_dropout_is_pytorchs(causal):
    """CPU scaled_dot_product_attention with dropout draws PyTorch's math-backend noise (bernoulli_ over the whole
    (batch, heads, L, S) matrix) and the backward reuses it: outputs and gradients equal to rounding."""
    def run(lib):
        lib.manual_seed(0)
        q, k, v = lib.randn(2, 3, 5, 4), lib.randn(2, 3, 6, 4), lib.randn(2, 3, 6, 4)
        q.requires_grad_()
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.3, is_causal=causal)
        out.sum().backward()
        return out.detach().numpy(), q.grad.numpy()

    (out, grad), (want_out, want_grad) = run(tandem), run(torch)
    np.testing.assert_allclose(out, want_out, rtol=0, atol=2e-6)
    np.testing.assert_allclose(grad, want_grad, rtol=0, atol=2e-6)


def test_a_transformer_layer_trains_as_pytorchs():
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.2, batch_first=True)
        y = layer(lib.randn(3, 7, 16))
        y.square().sum().backward()
        return y.detach().numpy(), layer.linear1.weight.grad.numpy()

    (y, grad), (want_y, want_grad) = run(tandem), run(torch)
    np.testing.assert_allclose(y, want_y, rtol=0, atol=1e-5)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-4, atol=1e-4)


class _NoisyDataset:
    """Each item draws from the worker's generators: tandem/torch, NumPy's global one and Python's random."""

    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 8

    def __getitem__(self, i):
        import random
        return self.lib.tensor([float(i), self.lib.rand(()).item(), float(np.random.rand()), random.random()])


def test_worker_seeding_is_pytorchs():
    """Workers seed tandem's generator, Python's random and NumPy (with PyTorch's SeedSequence state) from the
    base seed the main process drew as PyTorch does: the same per-item randomness with workers."""
    def run(lib):
        lib.manual_seed(3)
        loader = lib.utils.data.DataLoader(_NoisyDataset(lib), batch_size=2, num_workers=2)
        return [b.tolist() for b in loader]

    assert run(tandem) == run(torch)


_RANDOM_FORMS = {
    "default": lambda t: t.random_(), "to_5": lambda t: t.random_(5), "from_1_to_none": lambda t: t.random_(1, None)}
_RANDOM_SPANS = {
    "int64_almost_all": lambda t: t.random_(-2 ** 63, 2 ** 63 - 1),
    "int64_past_2_63": lambda t: t.random_(-2 ** 62, 2 ** 62 + 5),
    "int64_lowest_to_none": lambda t: t.random_(-2 ** 63, None), "int64_from_3_to_none": lambda t: t.random_(3, None),
    "int32_all": lambda t: t.random_(-2 ** 31, 2 ** 31 - 1), "int8_negative_to_none": lambda t: t.random_(-100, None)}
_SPAN_DTYPES = {"int64_almost_all": "int64", "int64_past_2_63": "int64", "int64_lowest_to_none": "int64",
                "int64_from_3_to_none": "int64", "int32_all": "int32", "int8_negative_to_none": "int8"}


def _random_outcome(lib, dtype, form):
    lib.manual_seed(9)
    try:
        flat = lib.empty(7, dtype=getattr(lib, dtype))
        strided = lib.empty(3, 4, dtype=getattr(lib, dtype)).t()
        form(flat)
        form(strided)
        return flat.tolist(), strided.tolist(), lib.rand(2).tolist()  # and the stream after them
    except (RuntimeError, NotImplementedError) as e:
        return type(e).__name__, str(e).split("\n")[0]


@pytest.mark.parametrize("form", sorted(_RANDOM_FORMS))
@pytest.mark.parametrize("dtype", ["int32", "int64", "int16", "int8", "uint8", "bool", "float32", "float64",
                                   "float16", "bfloat16", "uint16", "uint32", "uint64"])
def test_random_fills_are_pytorchs(dtype, form):
    """random_ in each form draws PyTorch's words: one 32-bit word per element for random_() of types narrower than
    64 bits (int32 too), 64-bit words from a span of 2^28 (random_(from, None) included); the unsigned types'
    no-bounds form is PyTorch's NotImplementedError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _random_outcome(tandem, dtype, _RANDOM_FORMS[form]) == _random_outcome(torch, dtype, _RANDOM_FORMS[form])


@pytest.mark.parametrize("span", sorted(_RANDOM_SPANS))
def test_random_wide_spans_are_pytorchs(span):
    """Spans of 2^63 and more (int64's whole range is the draw itself), and from-to-None up to the dtype's max."""
    dtype = _SPAN_DTYPES[span]
    assert _random_outcome(tandem, dtype, _RANDOM_SPANS[span]) == _random_outcome(torch, dtype, _RANDOM_SPANS[span])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n", [16, 17, 20, 33, 100])
def test_reduced_precision_normal_blocks_are_pytorchs(dtype, n):
    """float16/bfloat16 draw block by block in float: the tail block's uniforms follow the full blocks' (float32's
    path draws all n first), and the stream after it is PyTorch's."""
    def run(lib):
        lib.manual_seed(4)
        a = lib.randn(n, dtype=getattr(lib, dtype))
        b = lib.empty(n, dtype=getattr(lib, dtype)).normal_(1.5, 0.3)
        return a.tolist(), b.tolist(), lib.rand(3).tolist()

    assert run(tandem) == run(torch)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_geometric_counts_past_the_integer_range_are_pytorchs(dtype):
    """A tiny p gives counts past the integer type: PyTorch's x86 conversion (INT64_MIN, or through int32's
    INT32_MIN keeping the low bits), not a clamp."""
    def run(lib):
        lib.manual_seed(0)
        return lib.empty(6, dtype=getattr(lib, dtype)).geometric_(1e-300).tolist()

    assert run(tandem) == run(torch)


def test_cpu_stream_draws_refuse_other_devices_and_kinds():
    """The private C++ entries the Python fills call on the CPU: other devices and unknown kinds are errors."""
    with pytest.raises(RuntimeError, match=r"^exponential_: the CPU stream's draws need a CPU tensor, got meta"):
        tandem._C._cpu_double_draws_(tandem.empty(2, device="meta"), "exponential_", 1.0, 0.0, None)
    with pytest.raises(ValueError, match=r"^_cpu_double_draws_: unknown draw 'gamma_'"):
        tandem._C._cpu_double_draws_(tandem.empty(2), "gamma_", 1.0, 0.0, None)
    with pytest.raises(RuntimeError, match=r"^random_: the CPU stream's draws need a CPU tensor, got meta"):
        tandem._C._cpu_random_range_(tandem.empty(2, device="meta"), 0, 5, False, None)
