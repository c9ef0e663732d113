"""Printing tensors: repr/str/format of empty, 0-d, huge (summarised), NaN/inf, very large and very small values,
complex, bool, integer extremes, half precision, gradients and views; set_printoptions with bad arguments and its
profiles; format specs on 0-d and many-element tensors. The reprs are compared as text with the device suffix
dropped and whitespace runs read as one space (the oracle runs on the CPU); each case restores the default print options."""
import re

from . import R, T


def text(s):
    """The printed text without the device suffix, whitespace runs read as one space: on a GPU the suffix makes a
    line longer, so PyTorch (and tandem) may wrap the dtype onto the next line."""
    s = re.sub(r",\s*device='cuda:\d'", "", s).replace("tandem", "torch")
    return re.sub(r"\s+", " ", s)


def shown(t):
    return text(repr(t))


def with_options(L, make, **options):
    """repr(make()) under set_printoptions(**options), the defaults restored after."""
    try:
        L.set_printoptions(**options)
        return shown(make())
    finally:
        L.set_printoptions(profile="default")
        L.set_printoptions(sci_mode=None)


def set_options(L, **options):
    try:
        L.set_printoptions(**options)
        return None
    finally:
        L.set_printoptions(profile="default")
        L.set_printoptions(sci_mode=None)


CASES = {
    # ---- shapes
    "repr/empty_1d": lambda L, d: shown(L.zeros(0, device=d)),
    "repr/empty_2d": lambda L, d: shown(L.zeros(3, 0, device=d)),
    "repr/empty_int": lambda L, d: shown(L.zeros(0, 2, dtype=L.int32, device=d)),
    "repr/0d_float": lambda L, d: shown(T(L, 2.5, d)),
    "repr/0d_int": lambda L, d: shown(T(L, 7, d)),
    "repr/0d_bool": lambda L, d: shown(T(L, True, d)),
    "repr/3d": lambda L, d: shown(R(L, (2, 2, 3), d, "float32")),
    "repr/summarised_1d": lambda L, d: shown(L.arange(2000, device=d)),
    "repr/summarised_2d": lambda L, d: shown(L.arange(1200.0, device=d).reshape(30, 40)),
    "repr/summarised_3d": lambda L, d: shown(L.arange(1200, device=d).reshape(10, 12, 10)),
    "repr/wide_row": lambda L, d: shown(R(L, (2, 30), d, "float32")),
    "str/equals_repr": lambda L, d: text(str(R(L, (2, 2), d, "float32"))),
    # ---- values
    "repr/nan_inf": lambda L, d: shown(T(L, [float("nan"), float("inf"), -float("inf"), 1.5], d)),
    "repr/all_nan": lambda L, d: shown(T(L, [float("nan"), float("nan")], d)),
    "repr/large_values_sci": lambda L, d: shown(T(L, [1e10, 1.0, 3.5], d)),
    "repr/tiny_values_sci": lambda L, d: shown(T(L, [1e-10, 1.0], d)),
    "repr/integral_floats": lambda L, d: shown(T(L, [1.0, 200.0, -3.0], d)),
    "repr/mixed_magnitudes": lambda L, d: shown(T(L, [0.001, 1000.0, 12.5], d)),
    "repr/negative_zero": lambda L, d: shown(T(L, [-0.0, 0.0], d)),
    "repr/float64": lambda L, d: shown(T(L, [1.0 / 3, 2.0], d, "float64")),
    "repr/float16": lambda L, d: shown(T(L, [1.0 / 3, 65504.0], d, "float16")),
    "repr/bfloat16": lambda L, d: shown(T(L, [1.0 / 3, 3e38], d, "bfloat16")),
    "repr/int64_extremes": lambda L, d: shown(T(L, [-2**63, 2**63 - 1], d)),
    "repr/uint8": lambda L, d: shown(T(L, [0, 255], d, "uint8")),
    "repr/int8": lambda L, d: shown(T(L, [-128, 127], d, "int8")),
    "repr/bool": lambda L, d: shown(T(L, [True, False], d)),
    "repr/complex": lambda L, d: shown(T(L, [1 + 2j, -0.5j, 3.0], d)),
    "repr/complex_nan": lambda L, d: shown(T(L, [complex(float("nan"), 1), complex(1, float("inf"))], d)),
    "repr/complex128_large": lambda L, d: shown(T(L, [1e10 + 1j, 2.0], d, "complex128")),
    "repr/complex_0d": lambda L, d: shown(T(L, 1 - 1j, d)),
    # ---- autograd and views
    "repr/requires_grad": lambda L, d: shown(R(L, (2,), d, "float32").requires_grad_()),
    "repr/grad_fn": lambda L, d: shown(R(L, (2,), d, "float32").requires_grad_() * 2),
    "repr/view": lambda L, d: shown(L.arange(6.0, device=d).reshape(2, 3).t()),
    "repr/expanded": lambda L, d: shown(T(L, [1.0, 2.0], d).expand(3, 2)),
    "repr/parameter": lambda L, d: shown(L.nn.Parameter(T(L, [1.0, 2.0], d))),
    "repr/dtype": lambda L, d: repr(L.float16).replace("tandem", "torch"),
    "repr/device": lambda L, d: repr(L.device("cpu")).replace("tandem", "torch"),
    "repr/size": lambda L, d: repr(L.zeros(2, 3, device=d).shape).replace("tandem", "torch"),
    # ---- set_printoptions
    "set_printoptions/precision_2": lambda L, d: with_options(L, lambda: T(L, [1.23456, 2.5], d), precision=2),
    "set_printoptions/precision_0": lambda L, d: with_options(L, lambda: T(L, [1.6, 2.5], d), precision=0),
    "set_printoptions/precision_negative": lambda L, d: with_options(L, lambda: T(L, [1.6], d), precision=-1),
    "set_printoptions/precision_float": lambda L, d: with_options(L, lambda: T(L, [1.6], d), precision=2.5),
    "set_printoptions/threshold_small": lambda L, d: with_options(L, lambda: L.arange(10, device=d), threshold=5),
    "set_printoptions/edgeitems_1": lambda L, d: with_options(L, lambda: L.arange(10, device=d), threshold=5,
                                                              edgeitems=1),
    "set_printoptions/linewidth_20": lambda L, d: with_options(L, lambda: L.arange(12.0, device=d), linewidth=20),
    "set_printoptions/sci_mode_true": lambda L, d: with_options(L, lambda: T(L, [1.5, 2.0], d), sci_mode=True),
    "set_printoptions/sci_mode_false": lambda L, d: with_options(L, lambda: T(L, [1e-10, 1e10], d),
                                                                 sci_mode=False),
    "set_printoptions/profile_short": lambda L, d: with_options(L, lambda: T(L, [1.23456], d), profile="short"),
    "set_printoptions/profile_full": lambda L, d: with_options(L, lambda: L.arange(1500, device=d), profile="full"),
    "set_printoptions/profile_bad": lambda L, d: set_options(L, profile="tiny"),
    "set_printoptions/unknown_kwarg": lambda L, d: set_options(L, precison=3),
    "set_printoptions/threshold_str": lambda L, d: with_options(L, lambda: L.arange(10, device=d), threshold="5"),
    "set_printoptions/linewidth_zero": lambda L, d: with_options(L, lambda: L.arange(4.0, device=d), linewidth=0),
    # ---- format
    "format/0d_spec": lambda L, d: format(T(L, 2.5, d), ".3f"),
    "format/0d_int_spec": lambda L, d: format(T(L, 7, d), "05d"),
    "format/0d_empty_spec": lambda L, d: text(format(T(L, 2.5, d), "")),
    "format/1d_spec": lambda L, d: format(T(L, [1.0, 2.0], d), ".2f"),
    "format/1d_empty_spec": lambda L, d: text(format(T(L, [1.0, 2.0], d), "")),
    "format/1elem_1d_spec": lambda L, d: format(T(L, [1.0], d), ".2f"),
    "format/fstring_0d": lambda L, d: f"{T(L, 3.14159, d):.2f}",
    "format/0d_bool_spec": lambda L, d: format(T(L, True, d), "d"),
    "format/0d_complex_spec": lambda L, d: format(T(L, 1 + 2j, d), ".1f"),
    "format/0d_bad_spec": lambda L, d: format(T(L, 2.5, d), "q"),
}
