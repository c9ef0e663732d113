"""Random numbers: reproducibility, statistics, thread-count independence, generator state, errors."""
import math

import pytest
import torch

import tandem

FLOATS = ["float16", "bfloat16", "float32", "float64"]
N = 100_000


def values(t):
    return torch.tensor(t.tolist(), dtype=torch.float64)


def first_line(exc):
    return str(exc.value).splitlines()[0]


@pytest.fixture
def threads():
    """Restores the thread count a test changes."""
    saved = tandem.get_num_threads()
    yield
    tandem.set_num_threads(saved)


# ---- reproducibility ----

@pytest.mark.parametrize("draw", [
    lambda d: tandem.rand(3, 5, device=d),
    lambda d: tandem.randn(17, device=d, dtype=tandem.float64),
    lambda d: tandem.randint(-4, 9, (33,), device=d),
    lambda d: tandem.randperm(50, device=d),
    lambda d: tandem.bernoulli(tandem.full((40,), 0.3, device=d)),
    lambda d: tandem.empty(7, device=d).normal_(2.0, 3.0),
])
def test_same_seed_same_numbers_and_draws_advance(draw, device):
    tandem.manual_seed(1234)
    a, b = draw(device).tolist(), draw(device).tolist()
    tandem.manual_seed(1234)
    assert draw(device).tolist() == a
    assert draw(device).tolist() == b
    assert a != b  # the second draw continues the stream
    tandem.manual_seed(4321)
    assert draw(device).tolist() != a


@pytest.mark.parametrize("dtype", FLOATS)
def test_prefix_of_a_draw_is_a_shorter_draw(dtype, device):
    # CUDA: element i depends only on (seed, offset, i), so a shorter draw is a prefix of a longer one. CPU: the
    # MT19937 stream is read in order, so a uniform draw is (randn is not: PyTorch's blockwise Box-Muller pairs
    # element j with j + 8 and redraws a partial last block).
    draw = tandem.rand if device == "cpu" else tandem.randn
    g = tandem.Generator(device=device)
    dt = getattr(tandem, dtype)
    long = draw(101, dtype=dt, device=device, generator=g.manual_seed(9)).tolist()
    short = draw(37, dtype=dt, device=device, generator=g.manual_seed(9)).tolist()
    assert long[:37] == short


def test_generators_are_independent_streams():
    g1 = tandem.Generator().manual_seed(5)
    g2 = tandem.Generator().manual_seed(5)
    a = tandem.rand(10, generator=g1).tolist()
    tandem.rand(100)  # the default generator does not affect g2
    assert tandem.rand(10, generator=g2).tolist() == a
    tandem.manual_seed(5)
    assert tandem.rand(10).tolist() == a  # same seed as the default generator, same stream


def test_non_contiguous_in_place_follows_pytorchs_order():
    # CPU: PyTorch's serial kernels visit a strided tensor in memory order (its dims by stride); CUDA (emulated
    # here): values follow the row-major element order.
    x = tandem.zeros(6, 4).t()
    assert not x.is_contiguous()
    x.uniform_(generator=tandem.Generator().manual_seed(3))
    assert x.tolist() == tandem.rand(6, 4, generator=tandem.Generator().manual_seed(3)).t().tolist()
    if tandem.cuda.is_available():
        y = tandem.zeros(6, 4, device="cuda").t()
        y.uniform_(generator=tandem.Generator(device="cuda").manual_seed(3))
        want = tandem.rand(4, 6, device="cuda", generator=tandem.Generator(device="cuda").manual_seed(3))
        assert y.tolist() == want.tolist()


# ---- statistics ----

@pytest.mark.parametrize("dtype", FLOATS)
def test_rand_is_uniform_in_unit_interval(dtype, device):
    tandem.manual_seed(0)
    v = values(tandem.rand(N, dtype=getattr(tandem, dtype), device=device))
    assert v.min() >= 0 and v.max() < 1
    assert abs(v.mean() - 0.5) < 0.01
    assert abs(v.std() - math.sqrt(1 / 12)) < 0.01


@pytest.mark.parametrize("dtype", FLOATS)
def test_randn_is_standard_normal(dtype, device):
    tandem.manual_seed(0)
    v = values(tandem.randn(N, dtype=getattr(tandem, dtype), device=device))
    assert abs(v.mean()) < 0.02
    assert abs(v.std() - 1) < 0.02
    assert abs((v.abs() < 1).double().mean() - 0.6827) < 0.01  # the bell shape, not just its moments


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_and_normal_in_place(dtype, device):
    tandem.manual_seed(1)
    dt = getattr(tandem, dtype)
    u = values(tandem.empty(N, dtype=dt, device=device).uniform_(-2, 6))
    assert u.min() >= -2 and u.max() < 6 and abs(u.mean() - 2) < 0.05
    n = values(tandem.empty(N, dtype=dt, device=device).normal_(3, 2))
    assert abs(n.mean() - 3) < 0.05 and abs(n.std() - 2) < 0.05
    assert values(tandem.empty(5, dtype=dt, device=device).normal_(1.5, 0)).tolist() == [1.5] * 5


def test_randint_range_and_coverage(device):
    tandem.manual_seed(2)
    t = tandem.randint(-3, 4, (N,), device=device)
    assert t.dtype is tandem.int64
    assert set(t.tolist()) == set(range(-3, 4))
    assert abs(values(t).mean()) < 0.03
    assert set(tandem.randint(5, (1000,), device=device).tolist()) == set(range(5))
    wide = tandem.randint(-2**63, 2**63 - 1, (1000,), device=device).tolist()
    assert min(wide) < -2**61 and max(wide) > 2**61
    big = tandem.randint(0, 2**40, (1000,), device=device).tolist()
    assert 0 <= min(big) and max(big) < 2**40 and max(big) > 2**39


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "float16", "bfloat16", "float64"])
def test_randint_dtypes(dtype, device):
    high = 2 if dtype == "bool" else 100
    t = tandem.randint(0, high, (500,), dtype=getattr(tandem, dtype), device=device)
    assert t.dtype is getattr(tandem, dtype)
    v = values(t)
    assert v.min() >= 0 and v.max() < high and (v == v.round()).all()


@pytest.mark.parametrize("n", [0, 1, 2, 5, 1000, 70_000])
def test_randperm_is_a_permutation(n, device):
    t = tandem.randperm(n, device=device)
    assert t.dtype is tandem.int64 and tuple(t.shape) == (n,)
    assert sorted(t.tolist()) == list(range(n))
    if n >= 5:
        assert t.tolist() != list(range(n))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float16", "float32"])
def test_randperm_dtypes(dtype, device):
    t = tandem.randperm(200, dtype=getattr(tandem, dtype), device=device)
    assert sorted(int(v) for v in t.tolist()) == list(range(200))


def test_bernoulli(device):
    tandem.manual_seed(3)
    assert abs(values(tandem.empty(N, device=device).bernoulli_(0.3)).mean() - 0.3) < 0.01
    assert tandem.zeros(8, device=device).bernoulli_(0.0).tolist() == [0.0] * 8
    assert tandem.zeros(8, device=device).bernoulli_(1.0).tolist() == [1.0] * 8
    b = tandem.empty(N, dtype=tandem.bool, device=device).bernoulli_()
    assert b.dtype is tandem.bool and abs(values(b).mean() - 0.5) < 0.01
    p = tandem.tensor([0.0, 1.0, 0.0, 1.0], device=device)
    assert tandem.bernoulli(p).tolist() == [0.0, 1.0, 0.0, 1.0]
    assert tandem.bernoulli(tandem.tensor([0.5], dtype=tandem.float64, device=device)).dtype is tandem.float64
    # a tensor p broadcasts to the output
    x = tandem.empty(3, 4, dtype=tandem.int32, device=device).bernoulli_(tandem.tensor([1.0, 0.0, 1.0, 0.0], device=device))
    assert x.tolist() == [[1, 0, 1, 0]] * 3
    assert abs(values(tandem.bernoulli(tandem.zeros(N, device=device), 0.7)).mean() - 0.7) < 0.01


# ---- thread-count independence ----

@pytest.mark.parametrize("draw", [
    lambda: tandem.rand(N),
    lambda: tandem.randn(N, dtype=tandem.float64),
    lambda: tandem.randint(0, 1000, (N,)),
    lambda: tandem.randperm(N),
    lambda: tandem.empty(N).bernoulli_(0.4),
    lambda: tandem.arange(0, N, 0.5),
    lambda: tandem.linspace(-1, 1, N),
])
def test_results_independent_of_thread_count(draw, threads):
    tandem.set_num_threads(1)
    assert tandem.get_num_threads() == 1
    tandem.manual_seed(11)
    one = draw().tolist()
    tandem.set_num_threads(2)
    tandem.manual_seed(11)
    assert draw().tolist() == one


# ---- generator state ----

def test_generator_api():
    g = tandem.Generator()
    assert g.manual_seed(77) is g
    assert g.initial_seed() == 77
    assert str(g.device) == "cpu"
    s = g.seed()
    assert g.initial_seed() == s
    assert tandem.manual_seed(-1).initial_seed() == 2**64 - 1
    assert tandem.manual_seed(8) is tandem.default_generator
    assert tandem.initial_seed() == 8
    assert isinstance(tandem.seed(), int)


def test_state_save_restore():
    g = tandem.Generator().manual_seed(21)
    tandem.rand(5, generator=g)
    state = g.get_state()
    assert state.dtype is tandem.uint8 and tuple(state.shape) == (5056,)  # PyTorch's CPUGeneratorImplState
    a = tandem.randn(9, generator=g).tolist()
    tandem.randn(9, generator=g)
    g.set_state(state)
    assert tandem.randn(9, generator=g).tolist() == a
    # a state moves between generators
    h = tandem.Generator()
    h.set_state(state)
    assert tandem.randn(9, generator=h).tolist() == a
    saved = tandem.get_rng_state()
    b = tandem.rand(4).tolist()
    tandem.set_rng_state(saved)
    assert tandem.rand(4).tolist() == b


def test_state_errors():
    g = tandem.Generator()
    with pytest.raises(RuntimeError, match="state size to be 3"):
        g.set_state(tandem.zeros(3, dtype=tandem.uint8))
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        g.set_state(tandem.zeros(16))
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        tandem.manual_seed(2**64)


# ---- shapes, dtypes, keywords ----

def test_shapes_dtypes_and_keywords(device):
    assert tuple(tandem.rand(2, 3, device=device).shape) == (2, 3)
    assert tuple(tandem.rand((2, 3), device=device).shape) == (2, 3)
    assert tuple(tandem.randn([4], device=device).shape) == (4,)
    assert tuple(tandem.rand(size=(2, 1), device=device).shape) == (2, 1)
    assert tuple(tandem.rand([], device=device).shape) == ()
    assert tuple(tandem.randn(0, 3, device=device).shape) == (0, 3)
    assert tandem.rand(2).dtype is tandem.float32
    for name in FLOATS:
        assert tandem.randn(2, dtype=getattr(tandem, name), device=device).dtype is getattr(tandem, name)
    assert tandem.rand(2, requires_grad=True).requires_grad
    assert tuple(tandem.randint(0, 10, size=(2, 2), device=device).shape) == (2, 2)
    assert tuple(tandem.randint(low=1, high=3, size=(5,)).shape) == (5,)
    x = tandem.zeros(3, 2, dtype=tandem.float64, device=device)
    assert tandem.rand_like(x).dtype is tandem.float64 and tuple(tandem.randn_like(x).shape) == (3, 2)
    assert tandem.rand_like(x, dtype=tandem.float16).dtype is tandem.float16
    r = tandem.randint_like(x, 3, 5)
    assert r.dtype is tandem.float64 and set(r.tolist()[0]) <= {3.0, 4.0}
    assert max(tandem.randint_like(x, 2).tolist()[0]) < 2
    g = tandem.Generator(device=device)
    for fn in (tandem.rand_like, tandem.randn_like):
        assert fn(x, generator=g.manual_seed(1)).tolist() == fn(x, generator=g.manual_seed(1)).tolist()


# ---- errors: PyTorch's first line, then a hint ----

@pytest.mark.parametrize("call,exc,msg", [
    (lambda m: m.randint(5, 5, (3,)), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=5 >= to=5"),
    (lambda m: m.randint(0, 300, (3,), dtype=m.uint8), RuntimeError, "to - 1 is out of bounds for unsigned char"),
    (lambda m: m.randint(-1, 3, (3,), dtype=m.uint8), RuntimeError, "from is out of bounds for unsigned char"),
    (lambda m: m.randint(0, 3, (3,), dtype=m.bool), RuntimeError, "to - 1 is out of bounds for bool"),
    (lambda m: m.rand(3, dtype=m.int64), NotImplementedError, "\"check_uniform_bounds\" not implemented for 'Long'"),
    (lambda m: m.randn(3, dtype=m.int32), NotImplementedError, "\"normal_kernel_cpu\" not implemented for 'Int'"),
    (lambda m: m.empty(3).uniform_(2, 1), RuntimeError,
     "uniform_ expects to return a [from, to) range, but found from=2 > to=1"),
    (lambda m: m.empty(3, dtype=m.float16).uniform_(0, 1e6), RuntimeError, "to is out of bounds for c10::Half"),
    (lambda m: m.empty(3).normal_(0, -1), RuntimeError, "normal expects std >= 0.0, but found std -1"),
    (lambda m: m.empty(3).bernoulli_(1.5), RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    (lambda m: m.bernoulli(m.tensor([1.5])), RuntimeError,
     "Expected p_in >= 0 && p_in <= 1 to be true, but got false."),
    (lambda m: m.bernoulli(m.tensor([1, 0])), NotImplementedError,
     "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'"),
    (lambda m: m.randperm(-1), RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    (lambda m: m.randperm(300, dtype=m.uint8), RuntimeError,
     "value cannot be converted to type uint8_t without overflow"),
    (lambda m: m.randperm(3000, dtype=m.float16), RuntimeError, "n cannot be greater than 2049 for Half type."),
    (lambda m: m.randperm(3, dtype=m.bool), NotImplementedError, "\"randperm\" not implemented for 'Bool'"),
    (lambda m: m.randint(0, 5, (2,), requires_grad=True), RuntimeError,
     "Only Tensors of floating point and complex dtype can require gradients"),
])
def test_errors_match_torch(call, exc, msg):
    with pytest.raises(exc) as ours:
        call(tandem)
    with pytest.raises(exc) as theirs:
        call(torch)
    assert first_line(ours) == msg
    assert first_line(theirs).startswith(msg)
    assert "hint:" in str(ours.value)


def test_generator_argument_errors():
    # rand has two overloads in PyTorch (with and without a generator): its listing of both
    with pytest.raises(TypeError, match=r"^rand\(\) received an invalid combination of arguments - got \(int, "
                                        r"generator=int\), but expected one of:\n \* \(tuple of ints size, \*, "
                                        r"torch.Generator generator, Tensor out = None"):
        tandem.rand(2, generator=3)
    # uniform_ has one: its own error, the type named as PyTorch names it
    with pytest.raises(TypeError, match="^uniform_\\(\\): argument 'generator' must be tandem.Generator, not Tensor"):
        tandem.ones(2).uniform_(generator=tandem.ones(1))


# ---- multinomial ----

def test_multinomial_with_replacement_frequencies(device):
    tandem.manual_seed(4)
    w = tandem.tensor([1.0, 0.0, 3.0, 4.0], device=device)
    t = tandem.multinomial(w, N, replacement=True)
    assert t.dtype is tandem.int64 and tuple(t.shape) == (N,)
    counts = torch.bincount(torch.tensor(t.tolist()), minlength=4).double() / N
    torch.testing.assert_close(counts, torch.tensor([0.125, 0.0, 0.375, 0.5], dtype=torch.float64), atol=0.01, rtol=0)


def test_multinomial_without_replacement(device):
    tandem.manual_seed(5)
    rows = 20_000
    w = tandem.tensor([[1.0, 2.0, 0.0, 5.0]] * rows, device=device)
    first = tandem.multinomial(w, 1)
    assert tuple(first.shape) == (rows, 1)
    counts = torch.bincount(torch.tensor(first.tolist()).flatten(), minlength=4).double() / rows
    torch.testing.assert_close(counts, torch.tensor([0.125, 0.25, 0.0, 0.625], dtype=torch.float64), atol=0.015,
                               rtol=0)
    full = tandem.multinomial(w, 4).tolist()
    assert all(sorted(r) == [0, 1, 2, 3] and r[3] == 2 for r in full)  # a permutation; zero weight comes last
    assert tandem.multinomial(tandem.tensor([0.0, 1.0, 2.0], device=device), 2).tolist() in ([1, 2], [2, 1])
    g = tandem.Generator(device=device)
    a = w.multinomial(3, generator=g.manual_seed(1)).tolist()
    assert w.multinomial(3, generator=g.manual_seed(1)).tolist() == a


@pytest.mark.parametrize("replacement", [False, True])
def test_multinomial_independent_of_thread_count(replacement, threads):
    w = tandem.rand(300, 50)
    tandem.set_num_threads(1)
    tandem.manual_seed(6)
    one = tandem.multinomial(w, 20, replacement).tolist()
    tandem.set_num_threads(2)
    tandem.manual_seed(6)
    assert tandem.multinomial(w, 20, replacement).tolist() == one


@pytest.mark.parametrize("call,msg", [
    (lambda m: m.multinomial(m.tensor([0.0, 1.0, 2.0]), 4),
     "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    (lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1), "invalid multinomial distribution (sum of probabilities <= 0)"),
    (lambda m: m.multinomial(m.tensor([-1.0, 1.0]), 1, True),
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda m: m.multinomial(m.tensor([float("nan"), 1.0]), 1),
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda m: m.multinomial(m.ones(2, 2, 2), 1), "prob_dist must be 1 or 2 dim"),
    (lambda m: m.multinomial(m.tensor([1, 2]), 1), "multinomial only supports floating-point dtypes for input, got: Long"),
    (lambda m: m.multinomial(m.ones(3), 0), "cannot sample n_sample <= 0 samples"),
])
def test_multinomial_errors_match_torch(call, msg):
    with pytest.raises(RuntimeError) as ours:
        call(tandem)
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    assert first_line(ours) == msg == first_line(theirs)
    assert "hint:" in str(ours.value)


# ---- tandem.normal ----

def test_normal_forms_shapes_and_statistics(device):
    tandem.manual_seed(7)
    mean = tandem.tensor([0.0, 10.0], device=device)
    std = tandem.tensor([1.0, 3.0], device=device)
    v = torch.tensor(tandem.normal(mean, std.expand(N // 2, 2)).tolist(), dtype=torch.float64)
    assert tuple(v.shape) == (N // 2, 2)
    torch.testing.assert_close(v.mean(0), torch.tensor([0.0, 10.0], dtype=torch.float64), atol=0.05, rtol=0)
    torch.testing.assert_close(v.std(0), torch.tensor([1.0, 3.0], dtype=torch.float64), atol=0.05, rtol=0)
    assert tuple(tandem.normal(mean, 2.0).shape) == (2,)
    assert tuple(tandem.normal(1.0, std).shape) == (2,)
    assert tuple(tandem.normal(mean).shape) == (2,)
    t = tandem.normal(2.0, 0.5, (3, 4), dtype=tandem.float64, device=device)
    assert t.dtype is tandem.float64 and tuple(t.shape) == (3, 4)
    assert tandem.normal(tandem.zeros(3, dtype=tandem.float16), tandem.ones(3)).dtype is tandem.float16
    g = tandem.Generator(device=device)
    assert (tandem.normal(mean, std, generator=g.manual_seed(2)).tolist()
            == tandem.normal(mean, std, generator=g.manual_seed(2)).tolist())


@pytest.mark.parametrize("call,exc,msg", [
    (lambda m: m.normal(m.zeros(3), -m.ones(3)), RuntimeError, "normal expects all elements of std >= 0.0"),
    (lambda m: m.normal(m.zeros(3), -1.0), RuntimeError, "normal expects std >= 0.0, but found std -1"),
    (lambda m: m.normal(m.zeros(3, dtype=m.int64), 1.0), NotImplementedError,
     "\"normal_kernel_cpu\" not implemented for 'Long'"),
])
def test_normal_errors_match_torch(call, exc, msg):
    with pytest.raises(exc) as ours:
        call(tandem)
    with pytest.raises(exc) as theirs:
        call(torch)
    assert first_line(ours) == msg == first_line(theirs)
    assert "hint:" in str(ours.value)


# ---- CUDA draws are counter-based: reproducible, and the same bits on a real GPU and the emulated one (which
# runs the CPU's Philox kernels); ranges are the same bits on cpu and cuda ----

def _named(f, name):
    f.__name__ = name
    return f


def _weights(d):
    return tandem.tensor([[1.0, 0.0, 3.0, 4.0, 0.5], [2.0, 2.0, 0.0, 1.0, 1.0], [0.1, 0.2, 0.3, 0.4, 0.5]], device=d)


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="no CUDA device (set TANDEM_EMULATE_CUDA=2)")
@pytest.mark.parametrize("draw", [
    *[lambda d, t=t: tandem.rand(1001, dtype=getattr(tandem, t), device=d) for t in FLOATS],
    *[lambda d, t=t: tandem.randn(1001, dtype=getattr(tandem, t), device=d) for t in FLOATS],
    lambda d: tandem.empty(999, dtype=tandem.float64, device=d).uniform_(-3.0, 5.0),
    lambda d: tandem.empty(999, device=d).normal_(2.0, 3.0),
    lambda d: tandem.randint(-50, 50, (777,), dtype=tandem.int8, device=d),
    lambda d: tandem.randint(0, 2**40, (777,), device=d),
    lambda d: tandem.randperm(3000, dtype=tandem.int32, device=d),
    lambda d: tandem.randperm(3000, device=d),
    lambda d: tandem.empty(555, dtype=tandem.bool, device=d).bernoulli_(0.3),
    lambda d: tandem.bernoulli(tandem.rand(555, dtype=tandem.float64, device=d)),
    lambda d: tandem.multinomial(_weights(d), 50, replacement=True),
    lambda d: tandem.multinomial(_weights(d), 4),
    *[_named(f, "range") for f in (
        lambda d: tandem.arange(-3.0, 7.0, 0.1, device=d),
        lambda d: tandem.arange(0, 1000, 0.7, dtype=tandem.float16, device=d),
        lambda d: tandem.linspace(-1.0, 3.0, 1001, device=d),
        lambda d: tandem.linspace(0, 100, 77, dtype=tandem.int32, device=d))],
])
def test_cuda_draws_are_reproducible_and_ranges_match_cpu(draw):
    tandem.manual_seed(2024)
    first = draw("cuda").tolist()
    tandem.rand(3)  # the CPU generator's stream is not the CUDA one's
    tandem.manual_seed(2024)
    assert draw("cuda").tolist() == first
    if "range" in draw.__name__:
        assert draw("cpu").tolist() == first


@pytest.mark.parametrize("make", [
    lambda L, d: L.randint(0, 5, (3,), layout=L.strided, pin_memory=False, device=d),
    lambda L, d: L.randint(5, (2, 2), layout=None, device=d),
    lambda L, d: L.randperm(4, layout=L.strided, pin_memory=False, device=d),
    lambda L, d: L.normal(0.0, 1.0, (2,), layout=L.strided, pin_memory=False, device=d),
    lambda L, d: L.tril_indices(3, 4, 1, layout=L.strided, device=d),
    lambda L, d: L.triu_indices(3, 3, layout=None, device=d),
], ids=["randint", "randint-high", "randperm", "normal", "tril_indices", "triu_indices"])
@pytest.mark.parametrize("device", ["cpu", "cuda:0"])
def test_random_and_index_factories_take_a_strided_layout_as_pytorchs(make, device):
    ours, theirs = make(tandem, device), make(torch, "cpu")
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype)[7:] == str(theirs.dtype)[6:]
    assert ours.device == tandem.device(device) and ours.layout is tandem.strided


@pytest.mark.parametrize("call,error,message", [
    (lambda L: L.randint(0, 5, (2,), layout=L.sparse_coo), NotImplementedError,
     "randint(): layout=tandem.sparse_coo is not supported\nhint: tandem's factories make strided tensors"),
    (lambda L: L.randperm(3, layout=L.sparse_csr), NotImplementedError, "randperm(): layout=tandem.sparse_csr"),
    (lambda L: L.tril_indices(3, 3, layout="strided"), TypeError,
     "tril_indices(): argument 'layout' must be torch.layout, not str"),
    (lambda L: L.normal(L.ones(2), 1.0, layout=L.strided), TypeError,
     "normal() received an invalid combination of arguments - got (Tensor, float, layout="),
])
def test_layout_errors(call, error, message):
    with pytest.raises(error) as caught:
        call(tandem)
    assert str(caught.value).startswith(message)
    with pytest.raises(error if error is TypeError else Exception):
        call(torch)  # PyTorch refuses these too (it makes sparse tensors only where it has kernels for them)
