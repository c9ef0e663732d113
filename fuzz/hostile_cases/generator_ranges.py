"""Generators and the samplers' arguments as a matrix, beyond rng_state.py and random_sampling.py: every sampler
(rand, randn, randint, randperm, normal, bernoulli, multinomial, poisson and the in-place fills) given a generator
that is not one (int, str, float, a tensor, a class, the torch module's Generator class itself); the Generator API
(construction from odd devices, seed/manual_seed/initial_seed with odd values, get_state/set_state with states of
the wrong dtype, size, rank, device or contents, clone_state, state as a property); each in-place fill crossed with
ranges that are empty, reversed, NaN, inf or past its dtype (from > to, to beyond the dtype's range, from below it)
on every dtype (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64); and the factories'
bounds as int64 extremes."""
import math

from . import Case

NAN, INF = math.nan, math.inf
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")


def S(fn):
    return Case(fn, "shape")


def z(L, d, dtype="float32", n=4):
    return L.zeros(n, device=d, dtype=getattr(L, dtype))


BAD_GENERATORS = {
    "int": lambda L: 3, "str": lambda L: "cpu", "float": lambda L: 1.5, "tensor": lambda L: L.zeros(1),
    "class": lambda L: L.Generator, "list": lambda L: [L.Generator()], "true": lambda L: True,
}

SAMPLERS = {
    "rand": lambda L, d, g: L.rand(3, device=d, generator=g),
    "randn": lambda L, d, g: L.randn(3, device=d, generator=g),
    "randint": lambda L, d, g: L.randint(0, 5, (3,), device=d, generator=g),
    "randperm": lambda L, d, g: L.randperm(4, device=d, generator=g),
    "normal_tensors": lambda L, d, g: L.normal(z(L, d), z(L, d) + 1, generator=g),
    "normal_floats": lambda L, d, g: L.normal(0.0, 1.0, (3,), device=d, generator=g),
    "bernoulli": lambda L, d, g: L.bernoulli(z(L, d) + 0.5, generator=g),
    "multinomial": lambda L, d, g: L.multinomial(z(L, d) + 1, 2, generator=g),
    "poisson": lambda L, d, g: L.poisson(z(L, d) + 1, generator=g),
    "uniform_": lambda L, d, g: z(L, d).uniform_(generator=g),
    "normal_": lambda L, d, g: z(L, d).normal_(generator=g),
    "random_": lambda L, d, g: z(L, d).random_(generator=g),
    "random_to": lambda L, d, g: z(L, d).random_(5, generator=g),
    "exponential_": lambda L, d, g: z(L, d).exponential_(generator=g),
    "geometric_": lambda L, d, g: z(L, d).geometric_(0.5, generator=g),
    "log_normal_": lambda L, d, g: z(L, d).log_normal_(generator=g),
    "cauchy_": lambda L, d, g: z(L, d).cauchy_(generator=g),
    "bernoulli_": lambda L, d, g: z(L, d).bernoulli_(0.5, generator=g),
}

CASES = {}
for _s, _fn in SAMPLERS.items():
    for _b, _g in BAD_GENERATORS.items():
        CASES[f"{_s}/generator_{_b}"] = S(lambda L, d, fn=_fn, g=_g: fn(L, d, g(L)))
    CASES[f"{_s}/generator_none"] = S(lambda L, d, fn=_fn: fn(L, d, None))


def _state_set(L, make):
    g = L.Generator()
    g.set_state(make(L))
    return g.initial_seed()


def _good_state(L):
    return L.Generator().manual_seed(5).get_state()


STATES = {
    "empty": lambda L: L.zeros(0, dtype=L.uint8),
    "float": lambda L: _good_state(L).float(),
    "int64": lambda L: _good_state(L).long(),
    "int8": lambda L: _good_state(L).to(L.int8),
    "bool": lambda L: _good_state(L).bool(),
    "2d": lambda L: _good_state(L).reshape(2, -1),
    "0d": lambda L: L.tensor(3, dtype=L.uint8),
    "one_short": lambda L: _good_state(L)[:-1],
    "one_long": lambda L: L.cat([_good_state(L), L.zeros(1, dtype=L.uint8)]),
    "strided": lambda L: L.stack([_good_state(L), _good_state(L)], 1)[:, 0],
    "zeros": lambda L: L.zeros(5056, dtype=L.uint8),
    "ones": lambda L: L.ones(5056, dtype=L.uint8),
    "list": lambda L: _good_state(L).tolist(),
    "numpy": lambda L: _good_state(L).numpy(),
    "bytes": lambda L: bytes(_good_state(L).tolist()),
    "none": lambda L: None,
    "requires_grad": lambda L: _good_state(L).float().requires_grad_(),
    "good": _good_state,
}
for _name, _make in STATES.items():
    CASES[f"set_state/{_name}"] = lambda L, d, make=_make: _state_set(L, make)
    CASES[f"set_rng_state/{_name}"] = lambda L, d, make=_make: (L.set_rng_state(make(L)), L.initial_seed())[1]


def _replay_after_set(L, d):
    g = L.Generator().manual_seed(9)
    s = g.get_state()
    a = L.rand(5, generator=g)
    g2 = L.Generator()
    g2.set_state(s)
    return L.equal(a, L.rand(5, generator=g2)), g2.initial_seed()


CASES["set_state/replays_in_other_generator"] = _replay_after_set
CASES["get_state/not_alias"] = lambda L, d: (lambda g: (g.get_state().zero_(), L.rand(2, generator=g))[1])(
    L.Generator().manual_seed(3))
CASES["get_state/dtype_shape"] = lambda L, d: (lambda s: (s.dtype, s.shape, s.device))(L.Generator().get_state())
CASES["get_state/seed_in_state"] = lambda L, d: L.Generator().manual_seed(77).get_state()[-16:]
CASES["get_state/after_draw"] = lambda L, d: (lambda g: (L.rand(3, generator=g), g.get_state()[:64])[1])(
    L.Generator().manual_seed(77))
CASES["get_state/after_odd_randn"] = lambda L, d: (lambda g: (L.randn(3, generator=g), g.get_state()[-24:])[1])(
    L.Generator().manual_seed(77))

SEEDS = {"zero": 0, "negative": -1, "int64_min": -2 ** 63, "uint64_max": 2 ** 64 - 1, "past_uint64": 2 ** 64,
         "below_int64": -2 ** 63 - 1, "float": 1.5, "float_int": 2.0, "nan": NAN, "str": "3", "none": None,
         "bool": True, "bytes": b"1", "huge": 10 ** 30}
for _name, _seed in SEEDS.items():
    CASES[f"manual_seed/{_name}"] = lambda L, d, s=_seed: L.Generator().manual_seed(s).initial_seed()
    CASES[f"global_manual_seed/{_name}"] = lambda L, d, s=_seed: (L.manual_seed(s).initial_seed(),
                                                                   L.manual_seed(0))[0]
    CASES[f"manual_seed_draw/{_name}"] = Case(
        lambda L, d, s=_seed: L.rand(4, generator=L.Generator().manual_seed(s)).to(d), "exact")

DEVICES = {"cpu_str": "cpu", "cpu_0": "cpu:0", "cpu_1": "cpu:1", "cuda_int_minus": -1, "empty": "", "bad": "gpu",
           "none": None, "device_obj": "DEVICE", "bytes": b"cpu", "float": 0.0, "list": ["cpu"],
           "upper": "CPU", "spaces": " cpu"}
for _name, _dev in DEVICES.items():
    CASES[f"Generator/device_{_name}"] = lambda L, d, dev=_dev: str(
        L.Generator(device=L.device("cpu") if dev == "DEVICE" else dev).device)
CASES["Generator/positional_device"] = lambda L, d: str(L.Generator("cpu").device)
CASES["Generator/two_positional"] = lambda L, d: L.Generator("cpu", "cpu")
CASES["Generator/unknown_kwarg"] = lambda L, d: L.Generator(seed=3)
CASES["Generator/seed_returns"] = lambda L, d: (lambda g: g.seed() == g.initial_seed())(L.Generator())
CASES["Generator/seed_arg"] = lambda L, d: L.Generator().seed(3)
CASES["Generator/manual_seed_returns_self"] = lambda L, d: (lambda g: g.manual_seed(1) is g)(L.Generator())
CASES["Generator/manual_seed_kwarg"] = lambda L, d: L.Generator().manual_seed(seed=4).initial_seed()
CASES["Generator/manual_seed_no_arg"] = lambda L, d: L.Generator().manual_seed()
CASES["Generator/initial_seed_default"] = lambda L, d: L.Generator().initial_seed()
CASES["Generator/set_state_kwarg"] = lambda L, d: L.Generator().set_state(new_state=_good_state(L)).initial_seed()
CASES["Generator/set_state_no_arg"] = lambda L, d: L.Generator().set_state()
CASES["Generator/get_state_arg"] = lambda L, d: L.Generator().get_state(1)
CASES["Generator/clone_state"] = lambda L, d: (lambda g: L.equal(
    L.rand(3, generator=g.clone_state()), L.rand(3, generator=g)))(L.Generator().manual_seed(8))
CASES["Generator/graphsafe_get_state"] = lambda L, d: type(L.Generator().graphsafe_get_state()).__name__
CASES["Generator/device_setattr"] = lambda L, d: setattr(L.Generator(), "device", "cpu")
CASES["Generator/subclass"] = lambda L, d: type("G", (L.Generator,), {})().manual_seed(3).initial_seed()
CASES["Generator/eq"] = lambda L, d: L.Generator() == L.Generator()
CASES["Generator/hash_is_int"] = lambda L, d: isinstance(hash(L.Generator()), int)
CASES["Generator/copy"] = lambda L, d: __import__("copy").copy(L.Generator().manual_seed(3)).initial_seed()
CASES["Generator/deepcopy"] = lambda L, d: __import__("copy").deepcopy(L.Generator().manual_seed(3)).initial_seed()
CASES["Generator/pickle"] = lambda L, d: __import__("pickle").loads(__import__("pickle").dumps(
    L.Generator().manual_seed(3))).initial_seed()
CASES["Generator/pickle_stream"] = lambda L, d: (lambda g: (L.rand(2, generator=g), L.rand(
    3, generator=__import__("pickle").loads(__import__("pickle").dumps(g))))[1])(L.Generator().manual_seed(3))


def fill_range(method, *args):
    return lambda L, d, dt: getattr(z(L, d, dt), method)(*args)


RANGES = {
    "random_/from_gt_to": fill_range("random_", 5, 2),
    "random_/from_eq_to": fill_range("random_", 3, 3),
    "random_/to_zero": fill_range("random_", 0),
    "random_/to_negative": fill_range("random_", -3),
    "random_/to_300": fill_range("random_", 300),
    "random_/to_2_16": fill_range("random_", 2 ** 16 + 1),
    "random_/to_2_24_plus": fill_range("random_", 2 ** 24 + 2),
    "random_/to_2_54": fill_range("random_", 2 ** 54),
    "random_/from_negative": fill_range("random_", -5, 5),
    "random_/from_minus_129": fill_range("random_", -129, 0),
    "random_/int32_span": fill_range("random_", -2 ** 31, 2 ** 31),
    "random_/int64_max_to": fill_range("random_", 0, 2 ** 63 - 1),
    "random_/past_int64": fill_range("random_", 0, 2 ** 63),
    "random_/from_none": fill_range("random_", 0, None),
    "random_/float_to": fill_range("random_", 2.5),
    "uniform_/from_gt_to": fill_range("uniform_", 3.0, 1.0),
    "uniform_/nan": fill_range("uniform_", NAN, 1.0),
    "uniform_/inf": fill_range("uniform_", 0.0, INF),
    "uniform_/huge_span": fill_range("uniform_", -1e308, 1e308),
    "uniform_/equal": fill_range("uniform_", 2.0, 2.0),
    "normal_/std_negative": fill_range("normal_", 0.0, -1.0),
    "normal_/std_zero": fill_range("normal_", 3.0, 0.0),
    "normal_/std_nan": fill_range("normal_", 0.0, NAN),
    "normal_/std_inf": fill_range("normal_", 0.0, INF),
    "normal_/mean_nan": fill_range("normal_", NAN, 1.0),
    "exponential_/lambda_zero": fill_range("exponential_", 0.0),
    "exponential_/lambda_negative": fill_range("exponential_", -1.0),
    "exponential_/lambda_nan": fill_range("exponential_", NAN),
    "exponential_/lambda_inf": fill_range("exponential_", INF),
    "geometric_/p_zero": fill_range("geometric_", 0.0),
    "geometric_/p_one": fill_range("geometric_", 1.0),
    "geometric_/p_nan": fill_range("geometric_", NAN),
    "log_normal_/std_zero": fill_range("log_normal_", 0.0, 0.0),
    "log_normal_/std_negative": fill_range("log_normal_", 0.0, -1.0),
    "log_normal_/mean_inf": fill_range("log_normal_", INF, 1.0),
    "cauchy_/sigma_zero": fill_range("cauchy_", 0.0, 0.0),
    "cauchy_/sigma_nan": fill_range("cauchy_", 0.0, NAN),
    "cauchy_/median_inf": fill_range("cauchy_", INF, 1.0),
    "bernoulli_/p_negative": fill_range("bernoulli_", -0.5),
    "bernoulli_/p_above_one": fill_range("bernoulli_", 1.5),
    "bernoulli_/p_nan": fill_range("bernoulli_", NAN),
    "bernoulli_/p_one": fill_range("bernoulli_", 1.0),
    "bernoulli_/p_tensor_bad": lambda L, d, dt: z(L, d, dt).bernoulli_(L.full((4,), 2.0, device=d)),
}
_DEGENERATE = ("from_eq_to", "std_zero", "equal", "p_one")  # deterministic results: compare values
for _r, _fn in RANGES.items():
    for _dt in DTYPES:
        _case = lambda L, d, fn=_fn, dt=_dt: fn(L, d, dt)
        CASES[f"{_r}/{_dt}"] = _case if any(k in _r for k in _DEGENERATE) else S(_case)

FACTORY_BOUNDS = {
    "randint/low_gt_high": lambda L, d: L.randint(5, 2, (3,), device=d),
    "randint/int64_max_high": lambda L, d: L.randint(2 ** 63 - 1, (3,), device=d),
    "randint/past_int64_high": lambda L, d: L.randint(2 ** 63, (3,), device=d),
    "randint/below_int64_low": lambda L, d: L.randint(-2 ** 63 - 1, 0, (3,), device=d),
    "randint/uint8_300": lambda L, d: L.randint(0, 300, (3,), dtype=L.uint8, device=d),
    "randint/uint8_negative_low": lambda L, d: L.randint(-1, 3, (3,), dtype=L.uint8, device=d),
    "randint/int8_200": lambda L, d: L.randint(0, 200, (3,), dtype=L.int8, device=d),
    "randint/bool_3": lambda L, d: L.randint(0, 3, (3,), dtype=L.bool, device=d),
    "randint/float16_high": lambda L, d: L.randint(0, 70000, (3,), dtype=L.float16, device=d),
    "randint/float32_2_25": lambda L, d: L.randint(0, 2 ** 25, (3,), dtype=L.float32, device=d),
    "randint/bfloat16_300": lambda L, d: L.randint(0, 300, (3,), dtype=L.bfloat16, device=d),
    "randint/complex": lambda L, d: L.randint(0, 3, (3,), dtype=L.complex64, device=d),
    "randint/size_int": lambda L, d: L.randint(0, 3, 3, device=d),
    "randint/size_negative": lambda L, d: L.randint(0, 3, (-1,), device=d),
    "randint/bool_high": lambda L, d: L.randint(True, (3,), device=d),
    "randint/tensor_high": lambda L, d: L.randint(L.tensor(5), (3,), device=d),
    "randint/tensor_1d_high": lambda L, d: L.randint(L.tensor([5]), (3,), device=d),
    "randint/nan_high": lambda L, d: L.randint(0, NAN, (3,), device=d),
    "randperm/int8_200": lambda L, d: L.randperm(200, dtype=L.int8, device=d),
    "randperm/uint8_256": lambda L, d: L.randperm(256, dtype=L.uint8, device=d),
    "randperm/uint8_257": lambda L, d: L.randperm(257, dtype=L.uint8, device=d),
    "randperm/float16_3000": lambda L, d: L.randperm(3000, dtype=L.float16, device=d),
    "randperm/bool": lambda L, d: L.randperm(2, dtype=L.bool, device=d),
    "randperm/bool_3": lambda L, d: L.randperm(3, dtype=L.bool, device=d),
    "randperm/complex": lambda L, d: L.randperm(3, dtype=L.complex64, device=d),
    "randperm/tensor_n": lambda L, d: L.randperm(L.tensor(3), device=d),
    "randperm/negative": lambda L, d: L.randperm(-1, device=d),
    "rand/int_dtype": lambda L, d: L.rand(3, dtype=L.int32, device=d),
    "rand/bool_dtype": lambda L, d: L.rand(3, dtype=L.bool, device=d),
    "randn/int_dtype": lambda L, d: L.randn(3, dtype=L.int64, device=d),
    "randn/complex": S(lambda L, d: L.randn(3, dtype=L.complex64, device=d)),
    "rand/complex128": S(lambda L, d: L.rand(3, dtype=L.complex128, device=d)),
    "normal/std_negative_tensor": lambda L, d: L.normal(z(L, d), z(L, d) - 1),
    "normal/std_nan_float": lambda L, d: L.normal(z(L, d), NAN),
    "normal/int_mean": lambda L, d: L.normal(L.zeros(3, dtype=L.int64, device=d), 1.0),
    "normal/shape_mismatch": S(lambda L, d: L.normal(z(L, d, n=4), z(L, d, n=6) + 1)),
    "normal/broadcast_fail": lambda L, d: L.normal(L.zeros(4, 2, device=d), L.ones(3, device=d)),
    "bernoulli/int_tensor": lambda L, d: L.bernoulli(L.ones(3, dtype=L.int64, device=d)),
    "bernoulli/bool_tensor": lambda L, d: L.bernoulli(L.ones(3, dtype=L.bool, device=d)),
    "bernoulli/half": lambda L, d: L.bernoulli(L.full((3,), 1.0, dtype=L.float16, device=d)),
    "bernoulli/p_nan_tensor": lambda L, d: L.bernoulli(L.full((3,), NAN, device=d)),
    "poisson/negative_rate": lambda L, d: L.poisson(z(L, d) - 1),
    "poisson/nan_rate": lambda L, d: L.poisson(z(L, d) + NAN),
    "poisson/inf_rate": lambda L, d: L.poisson(z(L, d) + INF),
    "poisson/int_rate": lambda L, d: L.poisson(L.ones(3, dtype=L.int64, device=d)),
    "poisson/half_rate": S(lambda L, d: L.poisson(L.ones(3, dtype=L.float16, device=d))),
    "multinomial/int_probs": lambda L, d: L.multinomial(L.ones(3, dtype=L.int64, device=d), 1),
    "multinomial/half_probs": S(lambda L, d: L.multinomial(L.ones(3, dtype=L.float16, device=d), 1)),
    "multinomial/num_samples_zero": lambda L, d: L.multinomial(z(L, d) + 1, 0),
    "multinomial/num_samples_negative": lambda L, d: L.multinomial(z(L, d) + 1, -1),
    "multinomial/3d": lambda L, d: L.multinomial(L.ones(2, 2, 2, device=d), 1),
    "multinomial/0d": lambda L, d: L.multinomial(L.tensor(1.0, device=d), 1),
    "multinomial/inf_weight": lambda L, d: L.multinomial(L.tensor([1.0, INF], device=d), 1),
    "multinomial/all_zero_row": lambda L, d: L.multinomial(L.tensor([[1.0, 1.0], [0.0, 0.0]], device=d), 1),
    "multinomial/num_samples_float": lambda L, d: L.multinomial(z(L, d) + 1, 2.0),
}
CASES.update({k: v if isinstance(v, Case) else S(v) for k, v in FACTORY_BOUNDS.items()})

# A generator of another type is PyTorch's invalid-combination listing for rand, randn, randint, bernoulli, bernoulli_,
# normal and random_, and names a tensor "Tensor" for the others, since session 45 (python/src/random.cpp
# to_generator with the registered overloads; python/tandem/_random_fills.py for random_).
_METACLASS = ("a class given as generator is named by its metaclass: PyTorch's Generator class is a "
              "CustomClassBaseMeta, tandem's a nanobind nb_type (the type of the type differs by design)")
_DEVICE_LIST = "tandem lists the device types it has (cpu, cuda, meta), PyTorch its twenty"
# randint/bool_high and randint/nan_high (a bool or float bound) are PyTorch's "invalid combination" listing since
# session 46 (python/src/tensor.cpp, symint_arg with randint's registered overloads).
# randint/tensor_1d_high (a one-element integer tensor as a bound: PyTorch's SymInt) is taken since session 45.
# randint/float16_high (randint(0, 70000, dtype=float16) returned inf) is PyTorch's RuntimeError since session 45:
# random_'s floating bounds (src/ops/random.cpp, floating_random_bounds) are checked for randint too.
KNOWN = {}
for _s in SAMPLERS:
    KNOWN[f"{_s}/generator_class"] = _METACLASS
KNOWN.update({
    "Generator/device_bad": _DEVICE_LIST, "Generator/device_upper": _DEVICE_LIST,
    "Generator/device_cpu_1": "C++ (src/core/device.cpp, python/src/dtype_device.cpp): tandem refuses a CPU device "
                              "index other than 0 everywhere ('CPU device index must be -1 or zero, got 1'); PyTorch "
                              "2.15 takes torch.device('cpu:1') (its tensors land on 'cpu')",
})
