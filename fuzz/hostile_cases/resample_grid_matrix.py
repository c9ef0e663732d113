"""interpolate, grid_sample, affine_grid and pad as argument matrices, beyond resample_pad_fold.py and
spatial_ops.py: interpolate's every mode (nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area)
crossed with inputs of rank 3, 4 and 5 and with sizes and scale factors (both given, neither, zero, negative,
float sizes, a list of the wrong length, NaN and inf scales, scales that round to zero) and align_corners /
antialias / recompute_scale_factor given where the mode refuses them; grid_sample's modes crossed with padding modes,
align_corners, grids of the wrong rank, last dim, batch, dtype and device, empty inputs; affine_grid with thetas
of the wrong shape and sizes of the wrong length, zero and negative; pad's modes crossed with pads of odd length,
negative pads that crop past the input, pads past the input for reflect, empty inputs and values for modes that
take none."""
import math

from . import R

NAN, INF = math.nan, math.inf
F = lambda L: L.nn.functional  # noqa: E731

INPUTS = {
    "3d": lambda L, d: R(L, (1, 2, 5), d, "float32"),
    "4d": lambda L, d: R(L, (1, 2, 5, 4), d, "float32"),
    "5d": lambda L, d: R(L, (1, 2, 3, 4, 5), d, "float32"),
    "2d": lambda L, d: R(L, (2, 5), d, "float32"),
    "4d_empty_batch": lambda L, d: R(L, (0, 2, 5, 4), d, "float32"),
    "4d_empty_spatial": lambda L, d: R(L, (1, 2, 0, 4), d, "float32"),
    "4d_int": lambda L, d: R(L, (1, 2, 5, 4), d, "float32").long(),
    "4d_double": lambda L, d: R(L, (1, 2, 5, 4), d, "float64"),
    "4d_half": lambda L, d: R(L, (1, 2, 5, 4), d, "float16"),
}
MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area", "bogus")
ARGS = {
    "size_int": {"size": 3},
    "size_tuple_wrong_len": {"size": (3, 3, 3, 3)},
    "size_zero": {"size": 0},
    "size_negative": {"size": -2},
    "size_float": {"size": 3.0},
    "size_and_scale": {"size": 3, "scale_factor": 2.0},
    "neither": {},
    "scale_2": {"scale_factor": 2.0},
    "scale_zero": {"scale_factor": 0.0},
    "scale_negative": {"scale_factor": -1.0},
    "scale_tiny": {"scale_factor": 0.01},
    "scale_nan": {"scale_factor": NAN},
    "scale_inf": {"scale_factor": INF},
    "scale_list_wrong_len": {"scale_factor": [2.0, 2.0, 2.0, 2.0]},
    "scale_int": {"scale_factor": 2},
    "align_corners_true": {"scale_factor": 2.0, "align_corners": True},
    "align_corners_false": {"scale_factor": 2.0, "align_corners": False},
    "antialias": {"size": 3, "antialias": True},
    "recompute": {"scale_factor": 1.7, "recompute_scale_factor": True},
    "recompute_with_size": {"size": 3, "recompute_scale_factor": True},
}

CASES = {}
for _mode in MODES:
    for _in, _x in INPUTS.items():
        for _a, _kw in ARGS.items():
            if _in in ("3d", "4d", "5d") or _a in ("size_int", "scale_2"):
                CASES[f"interpolate/{_mode}/{_in}/{_a}"] = lambda L, d, m=_mode, x=_x, kw=_kw: F(L).interpolate(
                    x(L, d), mode=m, **kw)

GRID_MODES = ("bilinear", "nearest", "bicubic", "bogus")
PADDINGS = ("zeros", "border", "reflection", "bogus")


def grid(L, d, shape=(1, 3, 2, 2), dtype="float32"):
    return R(L, shape, d, dtype, 1.2)


for _m in GRID_MODES:
    for _p in PADDINGS:
        for _ac in (False, True):
            CASES[f"grid_sample/{_m}/{_p}/ac_{_ac}"] = lambda L, d, m=_m, p=_p, ac=_ac: F(L).grid_sample(
                R(L, (1, 2, 4, 5), d, "float32"), grid(L, d), mode=m, padding_mode=p, align_corners=ac)
    CASES[f"grid_sample/{_m}/5d"] = lambda L, d, m=_m: F(L).grid_sample(
        R(L, (1, 2, 3, 4, 5), d, "float32"), grid(L, d, (1, 2, 2, 2, 3)), mode=m, align_corners=False)
GRID_BAD = {
    "grid_last_dim_3": lambda L, d: (R(L, (1, 2, 4, 5), d, "float32"), grid(L, d, (1, 3, 2, 3))),
    "grid_rank_3": lambda L, d: (R(L, (1, 2, 4, 5), d, "float32"), grid(L, d, (3, 2, 2))),
    "grid_batch_2": lambda L, d: (R(L, (1, 2, 4, 5), d, "float32"), grid(L, d, (2, 3, 2, 2))),
    "grid_double": lambda L, d: (R(L, (1, 2, 4, 5), d, "float32"), grid(L, d, dtype="float64")),
    "grid_int": lambda L, d: (R(L, (1, 2, 4, 5), d, "float32"), grid(L, d).long()),
    "grid_cpu": lambda L, d: (R(L, (1, 2, 4, 5), d, "float32"), grid(L, "cpu")),
    "grid_nan": lambda L, d: (R(L, (1, 2, 4, 5), d, "float32"), grid(L, d) * NAN),
    "grid_inf": lambda L, d: (R(L, (1, 2, 4, 5), d, "float32"), grid(L, d) * INF),
    "grid_empty": lambda L, d: (R(L, (1, 2, 4, 5), d, "float32"), grid(L, d, (1, 0, 2, 2))),
    "input_empty_spatial": lambda L, d: (R(L, (1, 2, 0, 5), d, "float32"), grid(L, d)),
    "input_empty_batch": lambda L, d: (R(L, (0, 2, 4, 5), d, "float32"), grid(L, d, (0, 3, 2, 2))),
    "input_int": lambda L, d: (R(L, (1, 2, 4, 5), d, "float32").long(), grid(L, d).long()),
    "input_half": lambda L, d: (R(L, (1, 2, 4, 5), d, "float16"), grid(L, d, dtype="float16")),
    "input_3d": lambda L, d: (R(L, (2, 4, 5), d, "float32"), grid(L, d, (2, 3, 2))),
    "input_5d_grid_4d": lambda L, d: (R(L, (1, 2, 3, 4, 5), d, "float32"), grid(L, d)),
    "input_noncontiguous": lambda L, d: (R(L, (1, 2, 5, 4), d, "float32").transpose(2, 3), grid(L, d)),
}
for _g, _make in GRID_BAD.items():
    for _m in ("bilinear", "nearest", "bicubic"):
        CASES[f"grid_sample/{_g}/{_m}"] = lambda L, d, mk=_make, m=_m: F(L).grid_sample(
            *mk(L, d), mode=m, align_corners=False)
CASES["grid_sample/bicubic_5d"] = lambda L, d: F(L).grid_sample(R(L, (1, 2, 3, 4, 5), d, "float32"),
                                                                grid(L, d, (1, 2, 2, 2, 3)), mode="bicubic")
CASES["grid_sample/align_corners_none"] = lambda L, d: F(L).grid_sample(R(L, (1, 2, 4, 5), d, "float32"), grid(L, d))

THETAS = {
    "ok": lambda L, d: R(L, (2, 2, 3), d, "float32", 1.0),
    "3d_ok": lambda L, d: R(L, (2, 3, 4), d, "float32", 1.0),
    "wrong_rows": lambda L, d: R(L, (2, 3, 3), d, "float32", 1.0),
    "2d": lambda L, d: R(L, (2, 3), d, "float32", 1.0),
    "int": lambda L, d: R(L, (2, 2, 3), d, "float32", 1.0).long(),
    "double": lambda L, d: R(L, (2, 2, 3), d, "float64", 1.0),
    "half": lambda L, d: R(L, (2, 2, 3), d, "float16", 1.0),
    "empty_batch": lambda L, d: R(L, (0, 2, 3), d, "float32", 1.0),
}
SIZES = {"4d": [2, 1, 3, 4], "5d": [2, 1, 2, 3, 4], "3d": [2, 1, 3], "batch_mismatch": [3, 1, 3, 4],
         "zero_h": [2, 1, 0, 4], "negative": [2, 1, -3, 4], "one": [2, 1, 1, 1], "6d": [2, 1, 2, 2, 2, 2],
         "empty_batch": [0, 1, 3, 4]}
for _t, _th in THETAS.items():
    for _s, _size in SIZES.items():
        for _ac in (False, True):
            CASES[f"affine_grid/{_t}/{_s}/ac_{_ac}"] = lambda L, d, th=_th, s=_size, ac=_ac: F(L).affine_grid(
                th(L, d), s, align_corners=ac)

PAD_MODES = ("constant", "reflect", "replicate", "circular", "bogus")
PADS = {"ok_1": (1, 1), "ok_2": (1, 2, 0, 1), "ok_3": (1, 0, 1, 0, 1, 0), "odd": (1,), "odd_3": (1, 1, 1),
        "too_many": (1,) * 8, "negative_crop": (-1, -1), "negative_past": (-3, -3), "past_input": (5, 5),
        "equal_input": (4, 4), "zero": (0, 0), "float": (1.0, 1.0), "empty": ()}
PAD_INPUTS = {"3d": lambda L, d: R(L, (1, 2, 4), d, "float32"), "4d": lambda L, d: R(L, (1, 2, 4, 3), d, "float32"),
              "2d": lambda L, d: R(L, (2, 4), d, "float32"), "empty_3d": lambda L, d: R(L, (1, 2, 0), d, "float32"),
              "int_3d": lambda L, d: R(L, (1, 2, 4), d, "float32").long(),
              "bool_3d": lambda L, d: R(L, (1, 2, 4), d, "float32") > 0,
              "5d": lambda L, d: R(L, (1, 1, 2, 3, 4), d, "float32"), "1d": lambda L, d: R(L, (4,), d, "float32")}
for _m in PAD_MODES:
    for _p, _pads in PADS.items():
        for _in, _x in PAD_INPUTS.items():
            if _in in ("3d", "4d") or _p in ("ok_1", "ok_2", "ok_3"):
                CASES[f"pad/{_m}/{_p}/{_in}"] = lambda L, d, m=_m, p=_pads, x=_x: F(L).pad(x(L, d), p, mode=m)
    CASES[f"pad/{_m}/value_given"] = lambda L, d, m=_m: F(L).pad(R(L, (1, 2, 4), d, "float32"), (1, 1), mode=m,
                                                                 value=2.0)
    CASES[f"pad/{_m}/value_nan"] = lambda L, d, m=_m: F(L).pad(R(L, (1, 2, 4), d, "float32"), (1, 1), mode=m,
                                                               value=NAN)
CASES["pad/constant/value_none"] = lambda L, d: F(L).pad(R(L, (1, 2, 4), d, "float32"), (1, 1), value=None)
CASES["pad/constant/value_int_on_int"] = lambda L, d: F(L).pad(R(L, (1, 2, 4), d, "float32").long(), (1, 1), value=3)
CASES["pad/constant/value_float_on_int"] = lambda L, d: F(L).pad(R(L, (1, 2, 4), d, "float32").long(), (1, 1),
                                                                 value=2.5)
CASES["pad/constant/value_complex"] = lambda L, d: F(L).pad(R(L, (1, 2, 4), d, "float32"), (1, 1), value=1j)
CASES["pad/pad_list"] = lambda L, d: F(L).pad(R(L, (1, 2, 4), d, "float32"), [1, 1])
CASES["pad/pad_tensor"] = lambda L, d: F(L).pad(R(L, (1, 2, 4), d, "float32"), L.tensor([1, 1]))
CASES["pad/pad_none"] = lambda L, d: F(L).pad(R(L, (1, 2, 4), d, "float32"), None)
CASES["pad/pad_int"] = lambda L, d: F(L).pad(R(L, (1, 2, 4), d, "float32"), 1)

KNOWN = {
    **{f"grid_sample/grid_cpu/{m}": "cuda-only: a CPU grid with a GPU input is refused as PyTorch's CUDA grid_sampler "
                                    "refuses it ('expected input and grid to be on same device'); the oracle runs on "
                                    "the CPU" for m in ("bilinear", "nearest", "bicubic")},
    **{f"grid_sample/input_int/{m}": "cuda-only: on a GPU the kernel names itself grid_sampler_2d_cuda, PyTorch's "
                                     "CUDA name; its CPU kernel is grid_sampler_2d_cpu_kernel_impl"
       for m in ("bilinear", "nearest", "bicubic")},
}
