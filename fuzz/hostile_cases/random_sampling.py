"""Random sampling beyond factories.py's table: multinomial with negative/zero/inf/NaN weights and more samples
than categories, normal/bernoulli/poisson and the in-place fills (exponential_, geometric_, log_normal_, cauchy_,
uniform_, random_) with bad parameters, dtypes and shapes, randint/randperm bounds and outputs, Generator misuse
(wrong types, states, seeds) and manual_seed with odd values. Random results compare by dtype and shape only;
degenerate parameters (a zero std, p of 0 or 1) compare values."""
import math

from . import R, T, Case

N, INF = math.nan, math.inf


def S(fn):
    """A random result: compared by dtype and shape (errors as usual)."""
    return Case(fn, "shape")


def gen(L, seed=7, d="cpu"):
    """A seeded generator on device d (a draw on a GPU needs that GPU's generator, in PyTorch too)."""
    return L.Generator(device=d).manual_seed(seed)


def z(L, d, n=4, dtype=None):
    return L.zeros(n, device=d, dtype=getattr(L, dtype) if dtype else None)


def same_twice(L, d, draw):
    """draw(L, d) after the same manual_seed twice: the two draws are equal."""
    L.manual_seed(123)
    a = draw(L, d)
    L.manual_seed(123)
    return L.equal(a, draw(L, d))


def generator_replays(L, d, draw):
    """A generator's state saved and restored gives the same draw again."""
    g = gen(L)
    state = g.get_state()
    a = draw(L, d, g)
    g.set_state(state)
    return L.equal(a, draw(L, d, g))


def seeded(L, value):
    """manual_seed(value) on a fresh generator: its initial_seed (or the error)."""
    return L.Generator().manual_seed(value).initial_seed()


def global_seed(L, value):
    """The global manual_seed(value); the worker reseeds before every case, so no later case sees it."""
    try:
        return L.manual_seed(value).initial_seed()
    finally:
        L.manual_seed(0)


def fork_restores(L):
    """fork_rng gives the global generator's state back when it ends."""
    before = L.get_rng_state()
    with L.random.fork_rng():
        L.rand(3)
    return L.equal(before, L.get_rng_state())


CASES = {
    # ---- multinomial
    "multinomial/more_than_categories": S(lambda L, d: L.multinomial(T(L, [0.2, 0.3, 0.5], d), 4)),
    "multinomial/more_than_categories_2d": S(lambda L, d: L.multinomial(L.ones(2, 3, device=d), 5)),
    "multinomial/more_than_categories_replacement": S(lambda L, d: L.multinomial(T(L, [0.2, 0.8], d), 5, True)),
    "multinomial/negative_replacement": S(lambda L, d: L.multinomial(T(L, [1.0, -1.0], d), 2, True)),
    "multinomial/nan_replacement": S(lambda L, d: L.multinomial(T(L, [1.0, N], d), 2, True)),
    "multinomial/neg_inf": S(lambda L, d: L.multinomial(T(L, [1.0, -INF], d), 1)),
    "multinomial/inf_no_replacement": S(lambda L, d: L.multinomial(T(L, [1.0, INF], d), 1)),
    "multinomial/all_zero_replacement": S(lambda L, d: L.multinomial(T(L, [0.0, 0.0], d), 2, True)),
    "multinomial/row_nan_2d": S(lambda L, d: L.multinomial(T(L, [[1.0, 1.0], [N, 1.0]], d), 1)),
    "multinomial/row_negative_2d": S(lambda L, d: L.multinomial(T(L, [[1.0, 1.0], [-1.0, 1.0]], d), 1)),
    "multinomial/huge_weights": S(lambda L, d: L.multinomial(T(L, [1e308, 1e308], d, "float64"), 1)),
    "multinomial/denormal_weights": S(lambda L, d: L.multinomial(T(L, [1e-45, 0.0], d), 1)),
    "multinomial/zero_categories": S(lambda L, d: L.multinomial(L.ones(2, 0, device=d), 1)),
    "multinomial/samples_float": S(lambda L, d: L.multinomial(T(L, [0.5, 0.5], d), 1.0)),
    "multinomial/samples_tensor": S(lambda L, d: L.multinomial(T(L, [0.5, 0.5], d), T(L, 1, d))),
    "multinomial/bool_weights": S(lambda L, d: L.multinomial(T(L, [True, False], d), 1)),
    "multinomial/float64": S(lambda L, d: L.multinomial(T(L, [0.5, 0.5], d, "float64"), 2)),
    "multinomial/bfloat16": S(lambda L, d: L.multinomial(T(L, [0.5, 0.5], d, "bfloat16"), 2)),
    "multinomial/complex": S(lambda L, d: L.multinomial(T(L, [0.5j, 0.5], d), 1)),
    "multinomial/one_nonzero_exact": lambda L, d: L.multinomial(T(L, [[0.0, 2.0, 0.0], [5.0, 0.0, 0.0]], d), 1),
    "multinomial/permutation_exact": lambda L, d: L.multinomial(T(L, [1.0, 1.0, 1.0], d), 3).sort().values,
    "multinomial/generator": S(lambda L, d: L.multinomial(T(L, [0.5, 0.5], d), 2, generator=gen(L, d=d))),
    "multinomial/out": S(lambda L, d: (lambda o: (L.multinomial(T(L, [0.5, 0.5], d), 2, out=o), o)[1])(
        L.empty(0, dtype=L.int64, device=d))),
    "multinomial/out_float": S(lambda L, d: L.multinomial(T(L, [0.5, 0.5], d), 2, out=L.empty(0, device=d))),
    "multinomial/non_contiguous": S(lambda L, d: L.multinomial(L.ones(3, 2, device=d).t(), 2)),
    # ---- normal
    "normal/shapes_differ": S(lambda L, d: L.normal(L.zeros(2, 3, device=d), L.ones(3, 2, device=d))),
    "normal/shapes_differ_numel": S(lambda L, d: L.normal(L.zeros(2, 3, device=d), L.ones(4, device=d))),
    "normal/shapes_broadcast": S(lambda L, d: L.normal(L.zeros(2, 1, device=d), L.ones(3, device=d))),
    "normal/std_zero_exact": lambda L, d: L.normal(R(L, (3,), d, "float32"), 0.0),
    "normal/std_zero_tensor_exact": lambda L, d: L.normal(2.5, L.zeros(3, device=d)),
    "normal/std_nan": S(lambda L, d: L.normal(0.0, N, (3,), device=d)),
    "normal/std_inf": S(lambda L, d: L.normal(0.0, INF, (3,), device=d)),
    "normal/mean_nan": S(lambda L, d: L.normal(N, 1.0, (3,), device=d)),
    "normal/int_mean": S(lambda L, d: L.normal(T(L, [1, 2], d), 1.0)),
    "normal/int_std": S(lambda L, d: L.normal(0.0, T(L, [1, 2], d))),
    "normal/mean_tensor_size": S(lambda L, d: L.normal(L.zeros(3, device=d), 1.0, size=(3,))),
    "normal/floats_no_size": S(lambda L, d: L.normal(0.0, 1.0)),
    "normal/size_negative": S(lambda L, d: L.normal(0.0, 1.0, (-1,), device=d)),
    "normal/dtype_int": S(lambda L, d: L.normal(0.0, 1.0, (3,), device=d, dtype=L.int64)),
    "normal/dtype_float64": S(lambda L, d: L.normal(0.0, 1.0, (3,), device=d, dtype=L.float64)),
    "normal/generator": S(lambda L, d: L.normal(L.zeros(3, device=d), 1.0, generator=gen(L, d=d))),
    "normal/out_wrong_dtype": S(lambda L, d: L.normal(L.zeros(3, device=d), 1.0,
                                                      out=L.empty(3, device=d, dtype=L.int64))),
    "normal/complex_mean": S(lambda L, d: L.normal(L.zeros(3, device=d, dtype=L.complex64), 1.0)),
    "normal_/std_zero_exact": lambda L, d: z(L, d).normal_(3.0, 0.0),
    "normal_/std_nan": S(lambda L, d: z(L, d).normal_(0.0, N)),
    "normal_/mean_inf": S(lambda L, d: z(L, d).normal_(INF, 1.0)),
    "normal_/half": S(lambda L, d: z(L, d, dtype="float16").normal_()),
    "normal_/bool": S(lambda L, d: z(L, d, dtype="bool").normal_()),
    "normal_/complex": S(lambda L, d: z(L, d, dtype="complex64").normal_()),
    "randn/complex": S(lambda L, d: L.randn(3, device=d, dtype=L.complex128)),
    "randn/bool": S(lambda L, d: L.randn(3, device=d, dtype=L.bool)),
    "rand/bool": S(lambda L, d: L.rand(3, device=d, dtype=L.bool)),
    "rand/complex": S(lambda L, d: L.rand(3, device=d, dtype=L.complex64)),
    "rand/generator_int": S(lambda L, d: L.rand(3, device=d, generator=3)),
    "rand/size_tuple_and_int": S(lambda L, d: L.rand((2, 3), 4, device=d)),
    "rand_like/int": S(lambda L, d: L.rand_like(T(L, [1, 2], d))),
    "randn_like/int": S(lambda L, d: L.randn_like(T(L, [1, 2], d))),
    "randn_like/complex": S(lambda L, d: L.randn_like(T(L, [1j, 2j], d))),
    # ---- bernoulli
    "bernoulli/p_exact": lambda L, d: L.bernoulli(L.zeros(3, device=d), p=1.0),
    "bernoulli/p_zero_exact": lambda L, d: L.bernoulli(L.ones(3, device=d), p=0.0),
    "bernoulli/p_inf": S(lambda L, d: L.bernoulli(T(L, [0.5, INF], d))),
    "bernoulli/half": S(lambda L, d: L.bernoulli(T(L, [0.5, 0.5], d, "float16"))),
    "bernoulli/bool_input": S(lambda L, d: L.bernoulli(T(L, [True, False], d))),
    "bernoulli/generator": S(lambda L, d: L.bernoulli(T(L, [0.5, 0.5], d), generator=gen(L, d=d))),
    "bernoulli/out": S(lambda L, d: (lambda o: (L.bernoulli(T(L, [0.5, 0.5], d), out=o), o)[1])(
        L.empty(2, device=d))),
    "bernoulli_/p_shape_wrong": S(lambda L, d: z(L, d).bernoulli_(T(L, [0.5, 0.5, 0.5], d))),
    "bernoulli_/p_broadcast_grows": S(lambda L, d: z(L, d, 1).bernoulli_(T(L, [0.5, 0.5], d))),
    "bernoulli_/p_int_tensor": S(lambda L, d: z(L, d).bernoulli_(T(L, [0, 1, 1, 0], d))),
    "bernoulli_/p_above_one_scalar": S(lambda L, d: z(L, d).bernoulli_(1.5)),
    "bernoulli_/int_self_p_tensor": lambda L, d: z(L, d, 2, "int64").bernoulli_(T(L, [0.0, 1.0], d)),
    # ---- poisson / the in-place fills
    "poisson/zero_exact": lambda L, d: L.poisson(L.zeros(3, device=d)),
    "poisson/inf": S(lambda L, d: L.poisson(T(L, [INF, 1.0], d))),
    "poisson/huge": S(lambda L, d: L.poisson(T(L, [1e20, 1.0], d, "float64"))),
    "poisson/half": S(lambda L, d: L.poisson(T(L, [1.0, 2.0], d, "float16"))),
    "poisson/generator": S(lambda L, d: L.poisson(T(L, [1.0, 2.0], d), generator=gen(L, d=d))),
    "exponential_/negative": S(lambda L, d: z(L, d).exponential_(-1.0)),
    "exponential_/inf": S(lambda L, d: z(L, d).exponential_(INF)),
    "exponential_/nan": S(lambda L, d: z(L, d).exponential_(N)),
    "exponential_/int": S(lambda L, d: z(L, d, dtype="int64").exponential_()),
    "exponential_/half": S(lambda L, d: z(L, d, dtype="float16").exponential_(2.0)),
    "geometric_/p_zero": S(lambda L, d: z(L, d).geometric_(0.0)),
    "geometric_/p_one_exact": lambda L, d: z(L, d).geometric_(1.0),
    "geometric_/p_above_one": S(lambda L, d: z(L, d).geometric_(1.5)),
    "geometric_/p_negative": S(lambda L, d: z(L, d).geometric_(-0.5)),
    "geometric_/int": S(lambda L, d: z(L, d, dtype="int64").geometric_(0.5)),
    "geometric_/bool": S(lambda L, d: z(L, d, dtype="bool").geometric_(0.5)),
    "log_normal_/std_negative": S(lambda L, d: z(L, d).log_normal_(0.0, -1.0)),
    "log_normal_/std_zero": S(lambda L, d: z(L, d).log_normal_(0.0, 0.0)),
    "log_normal_/int": S(lambda L, d: z(L, d, dtype="int64").log_normal_()),
    "cauchy_/sigma_negative": S(lambda L, d: z(L, d).cauchy_(0.0, -1.0)),
    "cauchy_/sigma_zero": S(lambda L, d: z(L, d).cauchy_(0.0, 0.0)),
    "cauchy_/int": S(lambda L, d: z(L, d, dtype="int32").cauchy_()),
    "uniform_/from_equals_to_exact": lambda L, d: z(L, d).uniform_(2.0, 2.0),
    "uniform_/nan": S(lambda L, d: z(L, d).uniform_(N, 1.0)),
    "uniform_/range_overflow": S(lambda L, d: z(L, d).uniform_(-3e38, 3e38)),
    "uniform_/range_overflow_float64": S(lambda L, d: z(L, d, dtype="float64").uniform_(-1e308, 1e308)),
    "uniform_/half_range": S(lambda L, d: z(L, d, dtype="float16").uniform_(-60000, 60000)),
    "uniform_/bool": S(lambda L, d: z(L, d, dtype="bool").uniform_()),
    "uniform_/complex": S(lambda L, d: z(L, d, dtype="complex64").uniform_(0, 1)),
    "random_/from_equals_to": S(lambda L, d: z(L, d).random_(5, 5)),
    "random_/from_above_to": S(lambda L, d: z(L, d).random_(5, 2)),
    "random_/to_zero": S(lambda L, d: z(L, d).random_(0)),
    "random_/to_negative": S(lambda L, d: z(L, d).random_(-3)),
    "random_/uint8_to_300": S(lambda L, d: z(L, d, dtype="uint8").random_(0, 300)),
    "random_/int8_negative_from": S(lambda L, d: z(L, d, dtype="int8").random_(-200, 0)),
    "random_/float16_to_huge": S(lambda L, d: z(L, d, dtype="float16").random_(0, 70000)),
    "random_/one_value_exact": lambda L, d: z(L, d, dtype="int64").random_(7, 8),
    "random_/complex": S(lambda L, d: z(L, d, dtype="complex64").random_()),
    "random_/to_none": S(lambda L, d: z(L, d, dtype="int32").random_(0, None)),
    "random_/float_bounds": S(lambda L, d: z(L, d).random_(0.5, 3.5)),
    # ---- randint / randperm
    "randint/low_tensor": S(lambda L, d: L.randint(T(L, 0), 5, (3,), device=d)),
    "randint/size_tensor": S(lambda L, d: L.randint(5, T(L, [3]), device=d)),
    "randint/size_empty": S(lambda L, d: L.randint(5, (), device=d)),
    "randint/size_zero": S(lambda L, d: L.randint(5, (0, 3), device=d)),
    "randint/generator": S(lambda L, d: L.randint(5, (3,), device=d, generator=gen(L, d=d))),
    "randint/generator_str": S(lambda L, d: L.randint(5, (3,), device=d, generator="cpu")),
    "randint/out": S(lambda L, d: (lambda o: (L.randint(5, (3,), out=o), o)[1])(L.empty(0, device=d,
                                                                                         dtype=L.int32))),
    "randint/complex_dtype": S(lambda L, d: L.randint(5, (3,), device=d, dtype=L.complex64)),
    "randint/int64_max_high": S(lambda L, d: L.randint(2**63 - 1, (3,), device=d)),
    "randint/low_past_int64": S(lambda L, d: L.randint(-2**63 - 1, 0, (3,), device=d)),
    "randint_like/low_above_high": S(lambda L, d: L.randint_like(z(L, d), 5, 2)),
    "randint_like/int8_high_past": S(lambda L, d: L.randint_like(z(L, d, dtype="int8"), 300)),
    "randint_like/bool": S(lambda L, d: L.randint_like(z(L, d, dtype="bool"), 2)),
    "randperm/one": lambda L, d: L.randperm(1, device=d),
    "randperm/generator": S(lambda L, d: L.randperm(5, device=d, generator=gen(L, d=d))),
    "randperm/out_wrong_dtype": S(lambda L, d: L.randperm(5, out=L.empty(0, device=d, dtype=L.bool))),
    "randperm/out_float": S(lambda L, d: (lambda o: (L.randperm(5, out=o), o)[1])(L.empty(0, device=d))),
    "randperm/uint8_256": lambda L, d: L.randperm(256, device=d, dtype=L.uint8).sort().values,
    "randperm/uint8_257": S(lambda L, d: L.randperm(257, device=d, dtype=L.uint8)),
    "randperm/complex": S(lambda L, d: L.randperm(3, device=d, dtype=L.complex64)),
    "randperm/n_tensor": S(lambda L, d: L.randperm(T(L, 3), device=d)),
    # ---- Generator and seeds
    "Generator/bad_device": lambda L, d: L.Generator(device="nope"),
    "Generator/device_int": lambda L, d: L.Generator(device=3.5),
    "Generator/seed_negative": lambda L, d: seeded(L, -1),
    "Generator/seed_int64_min": lambda L, d: seeded(L, -2**63),
    "Generator/seed_below_int64": lambda L, d: seeded(L, -2**63 - 1),
    "Generator/seed_uint64_max": lambda L, d: seeded(L, 2**64 - 1),
    "Generator/seed_past_uint64": lambda L, d: seeded(L, 2**64),
    "Generator/seed_float": lambda L, d: seeded(L, 1.5),
    "Generator/seed_str": lambda L, d: seeded(L, "7"),
    "Generator/seed_bool": lambda L, d: seeded(L, True),
    "Generator/seed_tensor": lambda L, d: seeded(L, T(L, 7)),
    "Generator/seed_none": lambda L, d: seeded(L, None),
    "Generator/set_state_float": lambda L, d: gen(L).set_state(L.zeros(10)),
    "Generator/set_state_short": lambda L, d: gen(L).set_state(L.zeros(10, dtype=L.uint8)),
    "Generator/set_state_not_tensor": lambda L, d: gen(L).set_state([1, 2, 3]),
    "Generator/get_state_dtype": lambda L, d: gen(L).get_state().dtype,
    "Generator/replays_rand": lambda L, d: generator_replays(L, d, lambda L, d, g: L.rand(5, generator=g)),
    "Generator/replays_randperm": lambda L, d: generator_replays(L, d, lambda L, d, g: L.randperm(9, generator=g)),
    "Generator/replays_normal_": lambda L, d: generator_replays(L, d, lambda L, d, g: L.zeros(4).normal_(
        generator=g)),
    "Generator/initial_seed": lambda L, d: gen(L, 1234).initial_seed(),
    "Generator/device": lambda L, d: gen(L).device,
    "Generator/seed_returns_int": lambda L, d: type(L.Generator().seed()).__name__,
    "manual_seed/negative": lambda L, d: global_seed(L, -5),
    "manual_seed/past_uint64": lambda L, d: global_seed(L, 2**64),
    "manual_seed/float": lambda L, d: global_seed(L, 2.0),
    "manual_seed/str": lambda L, d: global_seed(L, "3"),
    "manual_seed/numpy_int": lambda L, d: global_seed(L, __import__("numpy").int64(5)),
    "manual_seed/reproduces_rand": lambda L, d: same_twice(L, d, lambda L, d: L.rand(5, device=d)),
    "manual_seed/reproduces_multinomial": lambda L, d: same_twice(L, d, lambda L, d: L.multinomial(
        L.ones(10, device=d), 5)),
    "set_rng_state/float": lambda L, d: L.set_rng_state(L.zeros(10)),
    "set_rng_state/list": lambda L, d: L.set_rng_state([0, 1]),
    "get_rng_state/dtype": lambda L, d: L.get_rng_state().dtype,
    "random.fork_rng/restores": lambda L, d: fork_restores(L),
}

_PARSER = "PyTorch's message lists its argument parser's overloads; the exception type is PyTorch's"
KNOWN = {
    "Generator/bad_device": "tandem lists the device types it has (cpu, cuda), PyTorch its twenty",
    "normal/floats_no_size": _PARSER, "rand/generator_int": _PARSER, "rand/size_tuple_and_int": _PARSER,
    "randint/generator_str": _PARSER, "randint/size_tensor": _PARSER,
}
