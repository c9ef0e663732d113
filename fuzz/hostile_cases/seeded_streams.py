"""Seeded draws compared bit for bit: tandem's CPU stream reproduces PyTorch's (MT19937 and its transforms), so each
sampler (rand, randn, randint, randperm, normal in its forms, bernoulli, multinomial, poisson, the *_like factories
and the in-place fills uniform_, normal_, random_, exponential_, geometric_, log_normal_, cauchy_, bernoulli_)
crossed with dtypes (float16, bfloat16, float32, float64 and the integer dtypes a sampler takes), sizes (1, 7, 16 and
33 elements: the vectorised normal path starts at 16; a non-contiguous view) and the stream drawn from (the global
generator after manual_seed, a private Generator) must give PyTorch's values exactly. The draw is made on the CPU
and the result moved to the device under test (a GPU's stream is its own, in PyTorch too)."""
from . import Case

SIZES = {"n1": 1, "n7": 7, "n16": 16, "n33": 33}
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("bool", "uint8", "int8", "int16", "int32", "int64")


def E(fn):
    return Case(fn, "exact")


def _draw(draw, private):
    """draw(L, g) from a stream seeded with 1234: the global one (g None) or a private Generator."""
    def case(L, d):
        if private:
            g = L.Generator().manual_seed(1234)
        else:
            L.manual_seed(1234)
            g = None
        out = draw(L, g)
        return out.to(d) if hasattr(out, "to") else out
    return case


def _fill(method, *args, dtype, n, strided=False):
    def draw(L, g):
        base = L.empty(n, 2, dtype=getattr(L, dtype))[:, 0] if strided else L.empty(n, dtype=getattr(L, dtype))
        kw = {"generator": g} if g is not None else {}
        return getattr(base, method)(*args, **kw)
    return draw


def _gkw(g):
    return {"generator": g} if g is not None else {}


DRAWS = {}
for _dt in FLOATS:
    for _sn, _n in SIZES.items():
        DRAWS[f"rand/{_dt}/{_sn}"] = lambda L, g, dt=_dt, n=_n: L.rand(n, dtype=getattr(L, dt), **_gkw(g))
        DRAWS[f"randn/{_dt}/{_sn}"] = lambda L, g, dt=_dt, n=_n: L.randn(n, dtype=getattr(L, dt), **_gkw(g))
        for _m, _a in (("uniform_", (-2.0, 3.0)), ("normal_", (1.0, 2.0)), ("exponential_", (2.0,)),
                       ("geometric_", (0.3,)), ("log_normal_", (0.0, 0.5)), ("cauchy_", (1.0, 2.0)),
                       ("bernoulli_", (0.3,)), ("random_", ()), ("random_", (0, 10))):
            _key = f"{_m}{len(_a) if _m == 'random_' else ''}/{_dt}/{_sn}"
            DRAWS[_key] = _fill(_m, *_a, dtype=_dt, n=_n)
        DRAWS[f"normal_/{_dt}/{_sn}_strided"] = _fill("normal_", 1.0, 2.0, dtype=_dt, n=_n, strided=True)
        DRAWS[f"rand_like/{_dt}/{_sn}"] = lambda L, g, dt=_dt, n=_n: L.rand_like(L.empty(n, dtype=getattr(L, dt)))
        DRAWS[f"randn_like/{_dt}/{_sn}"] = lambda L, g, dt=_dt, n=_n: L.randn_like(L.empty(n, dtype=getattr(L, dt)))
for _dt in INTS:
    for _sn, _n in (("n7", 7), ("n33", 33)):
        _hi = 2 if _dt == "bool" else 100
        DRAWS[f"randint/{_dt}/{_sn}"] = lambda L, g, dt=_dt, n=_n, hi=_hi: L.randint(
            0, hi, (n,), dtype=getattr(L, dt), **_gkw(g))
        DRAWS[f"random_0/{_dt}/{_sn}"] = _fill("random_", dtype=_dt, n=_n)
        DRAWS[f"random_1/{_dt}/{_sn}"] = _fill("random_", 2, dtype=_dt, n=_n)
        DRAWS[f"random_2/{_dt}/{_sn}"] = _fill("random_", 0, 2, dtype=_dt, n=_n)
        DRAWS[f"randint_like/{_dt}/{_sn}"] = lambda L, g, dt=_dt, n=_n, hi=_hi: L.randint_like(
            L.empty(n, dtype=getattr(L, dt)), hi)
        if _dt != "bool":
            DRAWS[f"geometric_/{_dt}/{_sn}"] = _fill("geometric_", 0.3, dtype=_dt, n=_n)
            DRAWS[f"bernoulli_/{_dt}/{_sn}"] = _fill("bernoulli_", 0.5, dtype=_dt, n=_n)
for _name, (_lo, _hi) in {"span_2_31": (0, 2 ** 31), "span_2_31_less_1": (0, 2 ** 31 - 1), "span_2_32": (0, 2 ** 32),
                          "span_2_32_plus_1": (0, 2 ** 32 + 1), "negative_span": (-2 ** 40, -2 ** 39),
                          "span_2_62": (-2 ** 61, 2 ** 61), "span_2_63": (-2 ** 62, 2 ** 62),
                          "int64_full": (-2 ** 63, 2 ** 63 - 1), "int64_top": (2 ** 63 - 10, 2 ** 63 - 1),
                          "int64_bottom": (-2 ** 63, -2 ** 63 + 3)}.items():
    DRAWS[f"randint/{_name}"] = lambda L, g, lo=_lo, hi=_hi: L.randint(lo, hi, (9,), **_gkw(g))
    DRAWS[f"random_2/int64/{_name}"] = _fill("random_", _lo, _hi, dtype="int64", n=9)
for _dt in ("int32", "int64", "float32", "float64"):
    DRAWS[f"random_from_none/{_dt}"] = _fill("random_", 3, None, dtype=_dt, n=9)
for _n in (0, 1, 2, 10, 33, 1000):
    DRAWS[f"randperm/n{_n}"] = lambda L, g, n=_n: L.randperm(n, **_gkw(g))[:40]
    DRAWS[f"randperm/n{_n}_int32"] = lambda L, g, n=_n: L.randperm(n, dtype=L.int32, **_gkw(g))[:40]
DRAWS["randperm/n1000_float64"] = lambda L, g: L.randperm(1000, dtype=L.float64, **_gkw(g))[:40]
for _dt in ("float32", "float64"):
    DRAWS[f"normal/tensor_tensor/{_dt}"] = lambda L, g, dt=_dt: L.normal(
        L.arange(20, dtype=getattr(L, dt)), L.ones(20, dtype=getattr(L, dt)), **_gkw(g))
    DRAWS[f"normal/tensor_float/{_dt}"] = lambda L, g, dt=_dt: L.normal(L.arange(20, dtype=getattr(L, dt)), 2.0,
                                                                        **_gkw(g))
    DRAWS[f"normal/float_tensor/{_dt}"] = lambda L, g, dt=_dt: L.normal(1.0, L.ones(20, dtype=getattr(L, dt)),
                                                                        **_gkw(g))
    DRAWS[f"bernoulli/tensor/{_dt}"] = lambda L, g, dt=_dt: L.bernoulli(L.linspace(0, 1, 33, dtype=getattr(L, dt)),
                                                                        **_gkw(g))
    DRAWS[f"bernoulli/p_float/{_dt}"] = lambda L, g, dt=_dt: L.bernoulli(L.empty(33, dtype=getattr(L, dt)), 0.25,
                                                                         **_gkw(g))
    DRAWS[f"poisson/{_dt}"] = lambda L, g, dt=_dt: L.poisson(L.linspace(0, 30, 17, dtype=getattr(L, dt)), **_gkw(g))
    DRAWS[f"multinomial/1d/{_dt}"] = lambda L, g, dt=_dt: L.multinomial(
        L.tensor([1.0, 2, 3, 4, 0, 5], dtype=getattr(L, dt)), 4, **_gkw(g))
    DRAWS[f"multinomial/replacement/{_dt}"] = lambda L, g, dt=_dt: L.multinomial(
        L.tensor([1.0, 2, 3, 4, 0, 5], dtype=getattr(L, dt)), 20, replacement=True, **_gkw(g))
    DRAWS[f"multinomial/2d/{_dt}"] = lambda L, g, dt=_dt: L.multinomial(
        L.tensor([[1.0, 2, 3], [0, 0, 1], [5, 1, 0]], dtype=getattr(L, dt)), 2, **_gkw(g))
DRAWS["normal/floats_size"] = lambda L, g: L.normal(0.5, 2.0, (33,), **_gkw(g))
DRAWS["normal/floats_size_float64"] = lambda L, g: L.normal(0.5, 2.0, (33,), dtype=L.float64, **_gkw(g))
DRAWS["normal/broadcast"] = lambda L, g: L.normal(L.zeros(3, 1), L.ones(1, 4), **_gkw(g))
DRAWS["poisson/large_rates"] = lambda L, g: L.poisson(L.tensor([5.0, 50.0, 500.0, 1e5]), **_gkw(g))
DRAWS["poisson/zero_rate"] = lambda L, g: L.poisson(L.zeros(5), **_gkw(g))
DRAWS["multinomial/one_category"] = lambda L, g: L.multinomial(L.tensor([0.0, 1.0, 0.0]), 1, **_gkw(g))
DRAWS["multinomial/many_categories"] = lambda L, g: L.multinomial(L.arange(1.0, 300.0), 50, **_gkw(g))
DRAWS["dropout/p_half"] = lambda L, g: L.nn.functional.dropout(L.ones(33), 0.5)
DRAWS["dropout/p_0_2_2d"] = lambda L, g: L.nn.functional.dropout(L.ones(4, 9), 0.2)
DRAWS["rand/2d_shape"] = lambda L, g: L.rand(3, 11, **_gkw(g))
DRAWS["randn/2d_shape"] = lambda L, g: L.randn(3, 11, **_gkw(g))
DRAWS["randn/zero_size"] = lambda L, g: L.randn(0, **_gkw(g))
DRAWS["two_draws/rand_then_randn"] = lambda L, g: L.cat([L.rand(5, **_gkw(g)), L.randn(17, **_gkw(g))])
DRAWS["two_draws/randn_odd_then_rand"] = lambda L, g: L.cat([L.randn(3, **_gkw(g)), L.rand(5, **_gkw(g))])

CASES = {}
for _key, _fn in DRAWS.items():
    CASES[f"{_key}/global"] = E(_draw(_fn, False))
    if not _key.startswith(("rand_like", "randn_like", "randint_like", "dropout")):  # these take no generator
        CASES[f"{_key}/generator"] = E(_draw(_fn, True))

# Where tandem's CPU stream still parts from PyTorch's (same seeds, same generator state): each a C++ change in
# src/ops/random_cpu_stream.cpp, held as a strict xfail by tests/python/test_hostile_inputs19.py.
# float64 exponential_/cauchy_ (the last bit) match since session 45: the CPU fills are PyTorch's kernels with libm
# (src/ops/random_cpu_stream.cpp, double_draws).
# float16/bfloat16 normal fills whose size is not a multiple of 16 match since session 45 (the tail block's uniforms
# follow the full blocks', as PyTorch's reduced-precision path draws them).
KNOWN = {}
