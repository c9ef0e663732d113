"""Printing as a matrix, beyond printing.py (one option at a time): set_printoptions settings (precision 0, 1 and
10, threshold 0 and 5, edgeitems 0 and 1, linewidth 1 and 30, sci_mode on and off, the short and full profiles
and combinations of them) crossed with tensors of every printing path: small, large, mixed-magnitude, integral
and tiny floats, negative zero, NaN/inf, integer extremes, bool, uint8, half, bfloat16, float64, complex with
NaN, empty, 0-d, summarised 1-d and 3-d, a requires_grad result. The text is compared exactly but for the device
suffix and where the suffix wraps (the oracle runs on the CPU); each case restores the default options."""
import math
import re

from . import R, T


def text(s):
    """The printed text without the device suffix; the suffix items (size=, dtype=, grad_fn=, requires_grad=) read
    as one line, since on a GPU the device suffix decides where they wrap."""
    s = re.sub(r",\s*device='cuda:\d'", "", s).replace("tandem", "torch")
    return re.sub(r",\s*\n\s+(size|dtype|grad_fn|requires_grad)=", r", \1=", s)


def printed(make, options, how=repr):
    def fn(L, d):
        try:
            L.set_printoptions(**options)
            return text(how(make(L, d)))
        finally:
            L.set_printoptions(profile="default")
            L.set_printoptions(sci_mode=None)
    return fn


TENSORS = {
    "small": lambda L, d: R(L, (2, 3), d, "float32", 1.0),
    "large": lambda L, d: R(L, (2, 3), d, "float32", 1e6),
    "mixed": lambda L, d: T(L, [1e-5, 1.0, 12345.678], d),
    "integral": lambda L, d: T(L, [1.0, -2.0, 300.0], d),
    "tiny": lambda L, d: T(L, [1e-9, 2e-10], d),
    "neg_zero": lambda L, d: T(L, [-0.0, 0.0, 1.5], d),
    "nan_inf": lambda L, d: T(L, [math.nan, math.inf, -math.inf, 1.25], d),
    "int_extremes": lambda L, d: T(L, [-(2**63), 2**63 - 1, 0], d, "int64"),
    "bool": lambda L, d: T(L, [[True, False], [False, True]], d),
    "uint8": lambda L, d: T(L, [0, 255, 7], d, "uint8"),
    "half": lambda L, d: T(L, [0.1, 65504.0, -1e-3], d, "float16"),
    "bfloat16": lambda L, d: T(L, [0.1, 3e38, -1e-3], d, "bfloat16"),
    "float64": lambda L, d: T(L, [1.0 / 3, 2.0 / 3, 1e100], d, "float64"),
    "complex": lambda L, d: T(L, [1 + 2j, complex(math.nan, 1), -0.5j], d, "complex64"),
    "empty": lambda L, d: L.zeros(0, 3, device=d),
    "0d": lambda L, d: T(L, 3.14159, d),
    "long_1d": lambda L, d: L.arange(30.0, device=d) / 7,
    "summarised_3d": lambda L, d: L.arange(1200, device=d).reshape(10, 12, 10),
    "grad": lambda L, d: R(L, (3,), d).requires_grad_() * 2,
}

OPTIONS = {
    "precision_0": {"precision": 0},
    "precision_1": {"precision": 1},
    "precision_10": {"precision": 10},
    "threshold_0": {"threshold": 0},
    "threshold_5_edge_1": {"threshold": 5, "edgeitems": 1},
    "edgeitems_0": {"threshold": 5, "edgeitems": 0},
    "linewidth_1": {"linewidth": 1},
    "linewidth_30": {"linewidth": 30},
    "sci_on": {"sci_mode": True},
    "sci_off": {"sci_mode": False},
    "short": {"profile": "short"},
    "full_precision_2": {"profile": "full", "precision": 2},
}

CASES = {f"{o}/{t}": printed(make, opts) for o, opts in OPTIONS.items() for t, make in TENSORS.items()}
CASES.update({f"str/{o}/summarised_3d": printed(TENSORS["summarised_3d"], opts, str)
              for o, opts in OPTIONS.items() if o in ("threshold_0", "edgeitems_0", "linewidth_30")})
