"""Regression tests for what the nineteenth round of the differential hostile-input harness (fuzz/hostile_diff.py,
the seeded_streams, generator_ranges, distributions_matrix, advanced_indexing, scatter_gather_matrix and
resample_grid_matrix tables) found and fixed in tandem's Python layer: one case per finding, taken by name from the
harness's own tables (so the test runs the expression the harness ran) and run with PyTorch (the oracle, on the
CPU) and tandem on every device. The direct tests below check the neighbours of each fix the tables do not reach,
the seeded CPU streams bit for bit, and the findings whose cause is in C++ run as strict xfails, so the session that
fixes them sees them pass."""
import copy
import math
import os
import pickle
import sys
import warnings

import pytest

torch = pytest.importorskip("torch")

from hostile_helpers import X, assert_matches_pytorch, fixed_cases, needs_cpp  # noqa: E402

import tandem  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "fuzz"))
from hostile_cases import (advanced_indexing, distributions_matrix, generator_ranges,  # noqa: E402
                           resample_grid_matrix, scatter_gather_matrix, seeded_streams)

FIXED = [(generator_ranges, f"Generator/{name}") for name in (
    "device_setattr", "get_state_arg", "graphsafe_get_state", "manual_seed_kwarg", "manual_seed_no_arg", "seed_arg",
    "set_state_kwarg", "set_state_no_arg")]
FIXED += [(generator_ranges, f"normal_/{std}/{dtype}") for std in ("std_nan", "std_negative")
          for dtype in ("bool", "uint8", "int8", "int16", "int32", "int64")]
FIXED += [(distributions_matrix, name) for name in (
    "HalfCauchy/log_prob_float64", "kl/ContinuousBernoulli_Uniform", "kl/Uniform_Beta", "kl/Uniform_Chi2",
    "kl/Uniform_ContinuousBernoulli", "kl/Uniform_Gamma", "register_kl/not_type")]
FIXED += [(resample_grid_matrix, f"affine_grid/half/one/ac_{ac}") for ac in (False, True)]
FIXED += [(resample_grid_matrix, f"interpolate/{mode}/{rank}/size_float")
          for mode in ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area", "bogus")
          for rank in ("3d", "4d", "5d")]
FIXED += [(resample_grid_matrix, f"interpolate/{mode}/{rank}/{scale}") for scale in ("scale_nan", "scale_inf")
          for mode, rank in (("area", "3d"), ("area", "4d"), ("area", "5d"), ("bicubic", "3d"), ("bicubic", "5d"),
                             ("bilinear", "3d"), ("bilinear", "5d"), ("bogus", "3d"), ("bogus", "4d"), ("bogus", "5d"),
                             ("linear", "4d"), ("linear", "5d"), ("trilinear", "3d"), ("trilinear", "4d"))]

CASES = fixed_cases(FIXED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_matches_pytorch(name, device):
    assert_matches_pytorch(CASES[name], device)


# Neighbours of the Generator fixes: every method's argument count and keywords in CPython's words for PyTorch's
# C methods, graph-safe state refused, device read-only, and the methods still working (chaining, replay, copies).
def _g(L):
    return L.Generator().manual_seed(3)


GENERATOR = {
    "manual_seed_two": lambda L, d: _g(L).manual_seed(1, 2),
    "manual_seed_kwarg_and_arg": lambda L, d: _g(L).manual_seed(1, seed=2),
    "seed_kwarg": lambda L, d: _g(L).seed(x=1),
    "get_state_kwarg": lambda L, d: _g(L).get_state(a=1),
    "set_state_two": lambda L, d: _g(L).set_state(_g(L).get_state(), 1),
    "initial_seed_arg": lambda L, d: _g(L).initial_seed(1),
    "clone_state_arg": lambda L, d: _g(L).clone_state(1),
    "graphsafe_set_state": lambda L, d: _g(L).graphsafe_set_state(_g(L)),
    "graphsafe_set_state_no_arg": lambda L, d: _g(L).graphsafe_set_state(),
    "manual_seed_chains": lambda L, d: (lambda g: g.manual_seed(5) is g and g.initial_seed())(_g(L)),
    "set_state_chains": lambda L, d: (lambda g: g.set_state(g.get_state()) is g)(_g(L)),
    "device_reads": lambda L, d: str(_g(L).device),
    "replay_after_set_state": lambda L, d: (lambda g, s: (L.rand(4, generator=g), g.set_state(s),
                                                          L.rand(4, generator=g))[::2])(_g(L), _g(L).get_state()),
}


@pytest.mark.parametrize("name", sorted(GENERATOR))
def test_generator_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(GENERATOR[name], device)


def test_generator_copies_still_continue_the_stream():
    g = tandem.Generator().manual_seed(11)
    tandem.rand(3, generator=g)
    for copied in (copy.deepcopy(g), pickle.loads(pickle.dumps(g)), g.clone_state()):
        assert tandem.equal(tandem.rand(5, generator=copied), tandem.rand(5, generator=copy.deepcopy(g)))


# Neighbours of the normal_ fix: std is checked before the dtype, in every argument form, and a valid std still
# reaches the kernel's dtype error; arguments the parser refuses stay its errors.
NORMAL = {
    "int_std_keyword": lambda L, d: L.zeros(2, dtype=L.int64, device=d).normal_(std=-2.0),
    "int_std_int": lambda L, d: L.zeros(2, dtype=L.int64, device=d).normal_(0, -2),
    "int_std_ok": lambda L, d: L.zeros(2, dtype=L.int64, device=d).normal_(0.0, 2.0),
    "bool_std_inf": lambda L, d: L.zeros(2, dtype=L.bool, device=d).normal_(0.0, math.inf),
    "float_std_negative": lambda L, d: L.zeros(2, device=d).normal_(0.0, -1.0),
    "int_std_negative_bad_generator": lambda L, d: L.zeros(2, dtype=L.int64, device=d).normal_(0.0, -1.0,
                                                                                             generator=3),
    "half_std_zero": lambda L, d: L.ones(3, dtype=L.float16, device=d).normal_(2.0, 0.0),
}


@pytest.mark.parametrize("name", sorted(NORMAL))
def test_normal_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(NORMAL[name], device, first_line=name != "int_std_negative_bad_generator")


# Neighbours of the interpolate fixes: a non-integer size reaches the kernel's parser (or the adaptive pool's) after
# the mode and rank checks; NaN/inf scales are Python's int() errors where PyTorch recomputes the size, the kernel's
# overflow error where it does not; valid sizes and scales still resample.
def _x(L, d, rank):
    return X(L, (1, 2, 5, 4, 3)[:rank], d)


INTERPOLATE = {
    "size_str_nearest": lambda L, d: L.nn.functional.interpolate(_x(L, d, 3), size="a"),
    "size_float_tensor_nearest": lambda L, d: L.nn.functional.interpolate(_x(L, d, 3), size=L.tensor(3.0)),
    "size_float_antialias": lambda L, d: L.nn.functional.interpolate(_x(L, d, 4), size=3.0, mode="bilinear",
                                                                     antialias=True),
    "size_float_bicubic_antialias": lambda L, d: L.nn.functional.interpolate(_x(L, d, 4), size=3.0, mode="bicubic",
                                                                             antialias=True),
    "size_float_list_still_type_error": lambda L, d: L.nn.functional.interpolate(_x(L, d, 4), size=[3.0, 3]),
    "size_int_tensor_ok": lambda L, d: L.nn.functional.interpolate(_x(L, d, 3), size=L.tensor([3])),
    "scale_nan_recompute_nearest": lambda L, d: L.nn.functional.interpolate(
        _x(L, d, 3), scale_factor=math.nan, recompute_scale_factor=True),
    "scale_inf_recompute_bilinear": lambda L, d: L.nn.functional.interpolate(
        _x(L, d, 4), scale_factor=math.inf, mode="bilinear", recompute_scale_factor=True),
    "scale_nan_nearest_kernel": lambda L, d: L.nn.functional.interpolate(_x(L, d, 3), scale_factor=math.nan),
    "scale_huge_area": lambda L, d: L.nn.functional.interpolate(_x(L, d, 3), scale_factor=1e30, mode="area"),
    "scale_huge_area_3d": lambda L, d: L.nn.functional.interpolate(_x(L, d, 5), scale_factor=1e30, mode="area"),
    "scale_area_ok": lambda L, d: L.nn.functional.interpolate(_x(L, d, 4), scale_factor=0.5, mode="area"),
    "scale_recompute_ok": lambda L, d: L.nn.functional.interpolate(_x(L, d, 4), scale_factor=1.7, mode="bilinear",
                                                                   recompute_scale_factor=True),
    "adaptive_avg_pool1d_float_size": lambda L, d: L.nn.functional.adaptive_avg_pool1d(_x(L, d, 3), [3.0]),
}


@pytest.mark.parametrize("name", sorted(INTERPOLATE))
def test_interpolate_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(INTERPOLATE[name], device)


# The 1-d adaptive pools read output_size as PyTorch's int-list parser does (interpolate's area mode reaches them):
# None and True were silent output sizes (the input's length, 1), a float list the core's 'output_size()' words.
@pytest.mark.parametrize("fn", ["adaptive_avg_pool1d", "adaptive_max_pool1d"])
@pytest.mark.parametrize("output_size", [None, True, [True], [None], 3.0, [3.0], (2, 3.0), "a", (2, 3), [3], 3, 0])
def test_adaptive_pool1d_output_size_matches_pytorch(fn, output_size, device):
    assert_matches_pytorch(lambda L, d: getattr(L.nn.functional, fn)(X(L, (1, 2, 5), d), output_size), device)


# Neighbours of the affine_grid fix: any one-step spatial axis of a half or bfloat16 theta is the factory's error,
# before the batch check; float32 and sizes above one still build the grid.
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("size", [[1, 1, 1, 4], [1, 1, 3, 1], [1, 1, 2, 1, 4], [3, 1, 1, 4], [1, 1, 2, 3]])
def test_affine_grid_one_step_axes_match_pytorch(dtype, size, device):
    rows = len(size) - 2

    def case(L, d):
        theta = X(L, (1, rows, rows + 1), d).to(getattr(L, dtype))
        return L.nn.functional.affine_grid(theta, size, align_corners=False)

    assert_matches_pytorch(case, device)


# Neighbours of the distribution fixes: KL through x log x at both ends of [0, 1], the ContinuousBernoulli/Uniform
# pairs on either side of [0, 1], HalfCauchy's log_prob of a Python number and of a float64 value, register_kl of
# a class that is not a distribution (PyTorch registers it).
def _D(L):
    return L.distributions


DISTRIBUTIONS = {
    "kl_uniform_to_one_beta": lambda L, d: _D(L).kl_divergence(_D(L).Uniform(L.tensor([0.5], device=d), 1.0),
                                                               _D(L).Beta(L.tensor([2.0], device=d), 3.0)),
    "kl_uniform_zero_one_gamma": lambda L, d: _D(L).kl_divergence(_D(L).Uniform(L.tensor([0.0], device=d), 1.0),
                                                                  _D(L).Gamma(L.tensor([2.0], device=d), 3.0)),
    "kl_uniform_inside_cb": lambda L, d: _D(L).kl_divergence(_D(L).Uniform(L.tensor([0.2], device=d), 0.7),
                                                             _D(L).ContinuousBernoulli(L.tensor([0.3], device=d))),
    "kl_cb_wide_uniform": lambda L, d: _D(L).kl_divergence(_D(L).ContinuousBernoulli(L.tensor([0.3], device=d)),
                                                           _D(L).Uniform(L.tensor([-0.5], device=d), 1.5)),
    "kl_cb_narrow_uniform": lambda L, d: _D(L).kl_divergence(_D(L).ContinuousBernoulli(L.tensor([0.3], device=d)),
                                                             _D(L).Uniform(L.tensor([0.1], device=d), 0.5)),
    "half_cauchy_python_float": lambda L, d: _D(L).HalfCauchy(L.tensor([2.0], device=d)).log_prob(0.5),
    "half_cauchy_float64_scale": lambda L, d: _D(L).HalfCauchy(L.tensor([2.0], dtype=L.float64, device=d)).log_prob(
        L.tensor([0.5], device=d)),
    "half_cauchy_negative_value": lambda L, d: _D(L).HalfCauchy(L.tensor([2.0], device=d),
                                                                validate_args=False).log_prob(L.tensor([-0.5])),
    "half_normal_keeps_value_dtype": lambda L, d: _D(L).HalfNormal(L.tensor([2.0], device=d)).log_prob(
        L.tensor([0.5], dtype=L.float64, device=d)),
    "register_kl_second_not_class": lambda L, d: _D(L).register_kl(_D(L).Normal, "x"),
    "register_kl_any_class": lambda L, d: callable(_D(L).register_kl(int, float)),
}


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_distribution_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(DISTRIBUTIONS[name], device)


# The seeded CPU stream: the table's draws that match PyTorch bit for bit stay so (a sample across samplers and
# dtypes; the harness runs all 700), compared exactly on the CPU.
STREAM_SAMPLE = sorted(name for name in seeded_streams.CASES if name not in seeded_streams.KNOWN and (
    "/n33/" in name or "/n7/" in name or name.startswith(("randint/", "randperm/", "normal/", "multinomial/",
                                                          "poisson/", "bernoulli/", "random_2/int64/"))))


@pytest.mark.parametrize("name", STREAM_SAMPLE)
def test_seeded_stream_matches_pytorch_bit_for_bit(name):
    case = seeded_streams.CASES[name]
    expected, got = case.fn(torch, "cpu"), case.fn(tandem, "cpu")
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert got.float().tolist() == expected.float().tolist() if got.dtype == tandem.bfloat16 else \
        got.tolist() == expected.tolist()


# Findings whose cause is in C++ (their KNOWN entries in the tables say what to change): strict xfails, so the
# session that makes the change sees them pass and removes them here and in KNOWN.
NEEDS_CPP = needs_cpp((seeded_streams, generator_ranges, distributions_matrix, advanced_indexing,
                       scatter_gather_matrix))
CPP_CASES = fixed_cases(NEEDS_CPP)


@pytest.mark.parametrize("name", sorted(CPP_CASES))
@pytest.mark.xfail(strict=True, reason="C++: the table's KNOWN entry names the change")
def test_needs_cpp(name):
    case = CPP_CASES[name]
    mode = next(getattr(table.CASES[n], "mode", "close") for table, n in NEEDS_CPP
                if f"{table.__name__.rsplit('.', 1)[1]}/{n}" == name)
    if mode == "exact":  # the seeded draws: bit for bit
        expected, got = case(torch, "cpu"), case(tandem, "cpu")
        assert got.tolist() == expected.tolist()
    elif name.startswith("distributions_matrix/"):  # float64 values within the harness's float64 tolerance
        expected, got = case(torch, "cpu"), case(tandem, "cpu")
        torch.testing.assert_close(torch.tensor(got.tolist(), dtype=torch.float64), expected, rtol=1e-7, atol=1e-9)
    else:
        assert_matches_pytorch(case, "cpu", shape_only=mode == "shape")


# Fixed in C++ after the round (session 46): index_add/index_copy/index_reduce check the source in PyTorch's order
# (src/ops/index_select.cpp, check_index_func_source); index_put_ and setitem check the values' broadcast before
# their dtype and the indices' range last (src/ops/indexing.cpp); setitem reads the value before the index and
# takes a number through one int64 index or a 0-d mask as index_fill_ (python/src/indexing.cpp); randint's bool or
# float bound is its overloads' listing (python/src/tensor.cpp, symint_arg).
# Fixed in C++ after the round (session 45): randint and random_ on a floating dtype take PyTorch's bounds
# (src/ops/random.cpp, floating_random_bounds): moved to integers the dtype holds, refused past its range (randint
# to float16 returned inf), warned past 2^digits; the values drawn with the moved bounds are PyTorch's. x[True] = v
# is a basic write (the value converted); gather/scatter take an empty 1-d index whatever self's rank.
CPP_FIXED = fixed_cases(
    [(generator_ranges, name) for name in ("randint/float16_high", "randint/tensor_1d_high",
                                           "Generator/device_bytes")] +
    [(generator_ranges, f"{s}/generator_{b}") for s in generator_ranges.SAMPLERS for b in generator_ranges.BAD_GENERATORS
     if b != "class" and f"{s}/generator_{b}" in generator_ranges.CASES] +
    [(advanced_indexing, f"setitem/bool_true/{v}") for v in ("tensor_int64", "tensor_bad_broadcast")] +
    [(advanced_indexing, f"index_put_/{i}/{dt}/acc_True") for i in ("bool_mask_wrong", "float", "too_many")
     for dt in ("float64", "int64")] +
    [(advanced_indexing, f"setitem/{i}/tensor_int64") for i in (
        "complex", "float", "float_0d", "int16", "int8", "requires_grad_index")] +
    [(advanced_indexing, f"setitem/{i}/complex_scalar") for i in (
        "cpu_index", "int64_max", "list_floats", "list_ints", "long_1d", "long_2d", "long_empty", "long_negative",
        "long_negative_past", "long_past", "numpy_array")] +
    [(scatter_gather_matrix, name) for name in sorted(scatter_gather_matrix.CASES)
     if ("/empty_1d/" in name or name.startswith(("take_along_dim/int64_", "take_along_dim/past/",
                                                   "take_along_dim/negative/", "index_add_alpha/negative/",
                                                   "index_add_alpha/past/")))
     and name not in scatter_gather_matrix.KNOWN] +
    [(scatter_gather_matrix, name) for name in sorted(scatter_gather_matrix.CASES)
     if name.split("/")[:2] in (["index_add", "ok"], ["index_add_alpha", "ok"], ["index_copy", "ok"],
                                ["index_reduce_prod", "ok"]) and name not in scatter_gather_matrix.KNOWN] +
    [(advanced_indexing, f"index_put_/{i}/{v}/acc_{a}") for i in ("past", "negative_past")
     for v, a in (("per_index", True), ("wrong", False), ("wrong", True))] +
    [(advanced_indexing, f"setitem/{i}/tensor_bad_broadcast") for i in ("int64_max", "long_negative_past",
                                                                        "long_past")] +
    [(advanced_indexing, f"setitem/slice_step_negative/{v}") for v in ("list", "none", "str")] +
    [(advanced_indexing, name) for name in ("setitem/two_tensors_mismatch/tensor_int64",
                                            "setitem/bool_mask_0d/complex_scalar", "setitem/uint8_as_mask/complex_scalar",
                                            "setitem_int/uint8_as_mask/nan")] +
    [(generator_ranges, f"randint/{b}_high") for b in ("bool", "nan")])


_DRAWS = {f"generator_ranges/{n}" for n in ("randint/tensor_1d_high",)}  # random values: shapes and dtypes only


@pytest.mark.parametrize("name", sorted(CPP_FIXED))
def test_fixed_in_cpp(name, device):
    assert_matches_pytorch(CPP_FIXED[name], device, shape_only=name in _DRAWS)


FLOATING_BOUNDS = {
    "random_past_2_24": lambda L: L.empty(3).random_(0, 2 ** 25),
    "randint_past_2_24": lambda L: L.randint(0, 2 ** 25, (3,), dtype=L.float32),
    "randint_huge_float32": lambda L: L.randint(2 ** 60, 2 ** 60 + 5, (2,), dtype=L.float32),
    "random_float16_from_past_range": lambda L: L.empty(2, dtype=L.float16).random_(-70000, 0),
    "randint_float16_to_past_range": lambda L: L.randint(0, 70000, (3,), dtype=L.float16),
    "randint_float16_rounded_bounds": lambda L: L.randint(2049, 2050, (2,), dtype=L.float16),
    "random_float16_from_past_top": lambda L: L.empty(2, dtype=L.float16).random_(3000, None),
    "random_float16_from_at_top": lambda L: L.empty(2, dtype=L.float16).random_(2048, None),
    "random_bfloat16_past_2_8": lambda L: L.empty(2, dtype=L.bfloat16).random_(-1000, 1000),
    "random_float64_past_2_53": lambda L: L.empty(2, dtype=L.float64).random_(2 ** 60, 2 ** 61),
    "random_float16_default": lambda L: L.empty(3, dtype=L.float16).random_(),
    "random_float16_to": lambda L: L.empty(3, dtype=L.float16).random_(5),
    "random_float32_from_none": lambda L: L.empty(3).random_(-5, None),
    "random_just_past_2_24": lambda L: L.empty(3).random_(2 ** 24 + 1, 2 ** 24 + 2),
    "random_negative_past_2_24": lambda L: L.empty(3).random_(-(2 ** 24) - 3, -(2 ** 24) - 1),
}


@pytest.mark.parametrize("name", sorted(FLOATING_BOUNDS))
def test_floating_random_bounds_are_pytorchs(name):
    """Values (seeded CPU stream), errors and the precision warnings, as PyTorch's."""
    outcomes = []
    for lib in (torch, tandem):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.manual_seed(0)
            try:
                result = FLOATING_BOUNDS[name](lib).tolist()
            except RuntimeError as e:
                result = str(e).split("\n")[0]
        outcomes.append((result, [str(w.message).split(" (Triggered internally")[0] for w in caught]))
    assert outcomes[0] == outcomes[1]
