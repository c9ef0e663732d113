"""Tensor factories and conversions as a matrix over hostile arguments, beyond factories.py, creation_odd.py,
tensor_creation_from_data.py and device_dtype_parsing.py (one case per hostile value there): zeros, ones, empty,
full, rand, randn, zeros(*sizes), empty_strided, new_zeros and new_full with twenty-three size forms (lists, (), 0,
negative sizes, floats, bools, None, str, 0-d and 1-d tensors, NumPy ints, sizes past int64 and past memory, NaN and
inf); twenty factories (the above, randint, arange, linspace, logspace, eye, tensor, as_tensor, scalar_tensor, the
*_like forms) with twenty-four keyword forms (dtype= int64, bool, complex64, float16, uint8, a Python type, a str, an
int, a NumPy type, None; device= of bad kinds; requires_grad=True on integer dtypes, requires_grad= of a str;
layout=; memory_format= channels_last, preserve_format, contiguous_format); full and full_like with fourteen fill
values crossed with six dtypes; arange, linspace and logspace with NaN, inf, huge, negative, float and tensor bounds
and steps; eye with bad n and m."""
import math

import numpy as np

from . import R, Case

N, INF = math.nan, math.inf


def S(fn):
    """A random or uninitialised result: compared by dtype and shape (errors as usual)."""
    return Case(fn, "shape")


SIZES = {
    "tuple": lambda L: (2, 3),
    "list": lambda L: [2, 3],
    "size": lambda L: L.Size([2, 3]),
    "empty_tuple": lambda L: (),
    "zero": lambda L: 0,
    "zero_dim": lambda L: (0, 3),
    "negative": lambda L: -1,
    "negative_in_tuple": lambda L: (2, -1),
    "float": lambda L: 2.0,
    "float_in_tuple": lambda L: (2.0, 3),
    "bool": lambda L: True,
    "bool_in_tuple": lambda L: (True, 2),
    "none": lambda L: None,
    "str": lambda L: "2",
    "str_in_tuple": lambda L: (2, "3"),
    "tensor_0d": lambda L: L.tensor(3),
    "tensor_0d_float": lambda L: L.tensor(3.0),
    "tensor_1d": lambda L: L.tensor([2, 3]),
    "numpy_int": lambda L: np.int64(3),
    "huge": lambda L: (2**40, 2**40),
    "past_int64": lambda L: 2**63,
    "nan": lambda L: N,
    "inf": lambda L: INF,
}

SIZE_FACTORIES = {
    "zeros": lambda L, d, s: L.zeros(s, device=d),
    "ones": lambda L, d, s: L.ones(s, device=d),
    "empty": lambda L, d, s: L.empty(s, device=d),
    "full": lambda L, d, s: L.full(s, 1.5, device=d),
    "rand": lambda L, d, s: L.rand(s, device=d),
    "randn": lambda L, d, s: L.randn(s, device=d),
    "zeros_varargs": lambda L, d, s: L.zeros(*s, device=d) if isinstance(s, (tuple, list)) else L.zeros(s, s, device=d),
    "empty_strided": lambda L, d, s: L.empty_strided(s, (1,) * len(s) if isinstance(s, (tuple, list)) else 1,
                                                     device=d),
    "new_zeros": lambda L, d, s: L.ones(1, device=d).new_zeros(s),
    "new_full": lambda L, d, s: L.ones(1, device=d).new_full(s, 2.0),
}
_RANDOM = ("empty", "rand", "randn", "empty_strided")

KWARGS = {
    "int64": lambda L, d: {"dtype": L.int64, "device": d},
    "bool": lambda L, d: {"dtype": L.bool, "device": d},
    "complex64": lambda L, d: {"dtype": L.complex64, "device": d},
    "float16": lambda L, d: {"dtype": L.float16, "device": d},
    "uint8": lambda L, d: {"dtype": L.uint8, "device": d},
    "python_float": lambda L, d: {"dtype": float, "device": d},
    "python_int": lambda L, d: {"dtype": int, "device": d},
    "dtype_str": lambda L, d: {"dtype": "float32", "device": d},
    "dtype_int": lambda L, d: {"dtype": 3, "device": d},
    "dtype_numpy": lambda L, d: {"dtype": np.float32, "device": d},
    "dtype_none": lambda L, d: {"dtype": None, "device": d},
    "device_gpu": lambda L, d: {"device": "gpu"},
    "device_bad_index": lambda L, d: {"device": "cpu:x"},
    "device_negative": lambda L, d: {"device": -1},
    "device_float": lambda L, d: {"device": 1.5},
    "grad_int": lambda L, d: {"dtype": L.int64, "device": d, "requires_grad": True},
    "grad_bool": lambda L, d: {"dtype": L.bool, "device": d, "requires_grad": True},
    "grad_float": lambda L, d: {"device": d, "requires_grad": True},
    "grad_str": lambda L, d: {"device": d, "requires_grad": "yes"},
    "layout_strided": lambda L, d: {"device": d, "layout": L.strided},
    "layout_str": lambda L, d: {"device": d, "layout": "strided"},
    "channels_last": lambda L, d: {"device": d, "memory_format": L.channels_last},
    "preserve_format": lambda L, d: {"device": d, "memory_format": L.preserve_format},
    "contiguous_format": lambda L, d: {"device": d, "memory_format": L.contiguous_format},
}


def _src(L, d):
    return R(L, (2, 3), d, "float32")


KW_FACTORIES = {
    "zeros": lambda L, d, kw: L.zeros((2, 3), **kw),
    "ones": lambda L, d, kw: L.ones(2, 3, **kw),
    "empty": lambda L, d, kw: L.empty((2, 3), **kw),
    "full": lambda L, d, kw: L.full((2, 3), 1, **kw),
    "rand": lambda L, d, kw: L.rand(2, 3, **kw),
    "randint": lambda L, d, kw: L.randint(0, 5, (2, 3), **kw),
    "arange": lambda L, d, kw: L.arange(5, **kw),
    "arange_float": lambda L, d, kw: L.arange(0, 1, 0.25, **kw),
    "linspace": lambda L, d, kw: L.linspace(0, 1, 5, **kw),
    "logspace": lambda L, d, kw: L.logspace(0, 1, 5, **kw),
    "eye": lambda L, d, kw: L.eye(3, **kw),
    "empty_strided": lambda L, d, kw: L.empty_strided((2, 3), (3, 1), **kw),
    "tensor": lambda L, d, kw: L.tensor([[1, 2], [3, 4]], **kw),
    "as_tensor": lambda L, d, kw: L.as_tensor([1.5, 2.5], **kw),
    "scalar_tensor": lambda L, d, kw: L.scalar_tensor(2, **kw),
    "zeros_like": lambda L, d, kw: L.zeros_like(_src(L, d), **kw),
    "ones_like": lambda L, d, kw: L.ones_like(_src(L, d), **kw),
    "full_like": lambda L, d, kw: L.full_like(_src(L, d), 2, **kw),
    "empty_like": lambda L, d, kw: L.empty_like(_src(L, d), **kw),
    "randn_like": lambda L, d, kw: L.randn_like(_src(L, d), **kw),
}
_KW_RANDOM = ("empty", "rand", "randint", "empty_strided", "empty_like", "randn_like")

FILL_VALUES = {
    "nan": N,
    "inf": INF,
    "neg_inf": -INF,
    "int64_max": 2**63 - 1,
    "past_int64": 2**63,
    "past_uint64": 2**64,
    "below_int64": -2**63 - 1,
    "big_float": 1e300,
    "bool": True,
    "complex": 1 + 2j,
    "str": "a",
    "tensor_0d": "tensor_0d",
    "tensor_1d": "tensor_1d",
    "numpy": np.float64(1.5),
}
FILL_DTYPES = ("None", "int64", "uint8", "bool", "float16", "complex64")


def _fill(L, value):
    if value == "tensor_0d":
        return L.tensor(2.5)
    if value == "tensor_1d":
        return L.tensor([1.0, 2.0])
    return value


def _dtype(L, name):
    return None if name == "None" else getattr(L, name)


RANGES = {  # (start, end, step) of arange
    "end_nan": (0, N, 1),
    "end_inf": (0, INF, 1),
    "start_inf": (-INF, 0, 1),
    "step_zero": (0, 5, 0),
    "step_negative": (0, 5, -1),
    "step_nan": (0, 5, N),
    "step_tiny": (0, 1, 1e-300),
    "end_huge": (0, 2**62, 1),
    "end_float": (0, 5.5, 1),
    "bounds_equal": (3, 3, 1),
    "reversed": (5, 0, -2),
    "bool_end": (0, True, 1),
    "str_end": (0, "5", 1),
    "tensor_end": (0, "tensor_5", 1),
    "tensor_step": (0, 5, "tensor_2"),
    "complex_end": (0, 5j, 1),
    "past_int64": (0, 2**63, 2**62),
}
RANGE_DTYPES = ("None", "int64", "float16", "uint8", "bool")


def _bound(L, value):
    if value == "tensor_5":
        return L.tensor(5)
    if value == "tensor_2":
        return L.tensor(2)
    return value


SPACES = {  # (start, end, steps) of linspace and logspace
    "ok": (0, 1, 5),
    "steps_negative": (0, 1, -1),
    "steps_zero": (0, 1, 0),
    "steps_one": (0, 1, 1),
    "steps_float": (0, 1, 2.5),
    "steps_bool": (0, 1, True),
    "steps_tensor": (0, 1, "tensor_5"),
    "steps_huge": (0, 1, 2**40),
    "start_nan": (N, 1, 3),
    "end_inf": (0, INF, 3),
    "reversed": (1, 0, 4),
    "big": (-1e300, 1e300, 3),
    "complex_end": (0, 1j, 3),
    "tensor_end": (0, "tensor_5", 3),
    "str_end": (0, "1", 3),
}
SPACE_DTYPES = ("None", "int64", "float16", "complex64", "bool")

EYE_N = {"negative": -1, "zero": 0, "float": 2.5, "bool": True, "huge": 2**40, "str": "a", "tensor": "tensor_5",
         "ok": 3}
EYE_M = {"none": None, "negative": -1, "zero": 0, "ok": 4, "float": 2.5}

CASES = {}
for _f, _fn in SIZE_FACTORIES.items():
    for _s, _size in SIZES.items():
        _case = lambda L, d, fn=_fn, size=_size: fn(L, d, size(L))  # noqa: E731
        CASES[f"size/{_f}/{_s}"] = S(_case) if _f in _RANDOM else _case
for _f, _fn in KW_FACTORIES.items():
    for _k, _kw in KWARGS.items():
        _case = lambda L, d, fn=_fn, kw=_kw: fn(L, d, kw(L, d))  # noqa: E731
        CASES[f"kw/{_f}/{_k}"] = S(_case) if _f in _KW_RANDOM else _case
for _v, _value in FILL_VALUES.items():
    for _t in FILL_DTYPES:
        CASES[f"full/{_v}/{_t}"] = lambda L, d, v=_value, t=_t: L.full((2,), _fill(L, v), dtype=_dtype(L, t),
                                                                       device=d)
        CASES[f"full_like/{_v}/{_t}"] = lambda L, d, v=_value, t=_t: L.full_like(
            L.zeros(2, device=d), _fill(L, v), dtype=_dtype(L, t))
for _r, (_a, _b, _c) in RANGES.items():
    for _t in RANGE_DTYPES:
        CASES[f"arange/{_r}/{_t}"] = lambda L, d, a=_a, b=_b, c=_c, t=_t: L.arange(
            _bound(L, a), _bound(L, b), _bound(L, c), dtype=_dtype(L, t), device=d)
for _r, (_a, _b, _c) in SPACES.items():
    for _t in SPACE_DTYPES:
        CASES[f"linspace/{_r}/{_t}"] = lambda L, d, a=_a, b=_b, c=_c, t=_t: L.linspace(
            _bound(L, a), _bound(L, b), _bound(L, c), dtype=_dtype(L, t), device=d)
        CASES[f"logspace/{_r}/{_t}"] = lambda L, d, a=_a, b=_b, c=_c, t=_t: L.logspace(
            _bound(L, a), _bound(L, b), _bound(L, c), 2.0, dtype=_dtype(L, t), device=d)
for _n, _nv in EYE_N.items():
    for _m, _mv in EYE_M.items():
        CASES[f"eye/{_n}/{_m}"] = lambda L, d, n=_nv, m=_mv: (
            L.eye(_bound(L, n), device=d) if m is None else L.eye(_bound(L, n), m, device=d))

_ALLOC = ("PyTorch's allocator failure reads \"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: "
          "can't allocate memory\" (and a size past int64 its internal \"numel: integer multiplication overflow\"); "
          "tandem's OutOfMemoryError says \"DefaultCPUAllocator: not enough memory: you tried to allocate N bytes\" "
          "(the size it tried, for the dtype it computes in)")
_KEYWORDS = ("C++ (python/src, the factory bindings' keyword casters): a device= of a bad type is PyTorch's \"zeros(): "
             "argument 'device' must be torch.device, not float\" (tandem's device caster has its own words); for the "
             "factories PyTorch overloads (arange, eye, linspace, rand, randint, randn_like) a dtype=, layout=, "
             "requires_grad=, device= or memory_format= it refuses is the \"received an invalid combination of "
             "arguments\" listing; zeros/ones/empty's requires_grad=\"yes\" and memory_format= are \"must be bool, not "
             "str\" and \"unexpected keyword argument 'memory_format'\" (nanobind's \"incompatible function "
             "arguments\"); randint's bool dtype refuses its bound (\"to - 1 is out of bounds for bool\") before "
             "requires_grad")
# Fixed in C++ in session 48 (tests/python/test_hostile_inputs22.py, test_fixed_in_cpp): sizes one by one whose
# first is no int are "zeros() takes 1 positional argument but 2 were given" (python/src/tensor.cpp); full's value is
# converted with PyTorch's overflow check and C type names (2**63 into float16, 1e300 into complex64, a complex into
# uint8: src/ops/value_range.cpp), and so are linspace's complex64 ends.
CPP_FIXED = ([f"size/zeros_varargs/{s}" for s in ("none", "tensor_0d_float", "tensor_1d", "bool", "bool_in_tuple",
                                                  "float", "float_in_tuple", "inf", "nan", "str")] +
             [f"{fn}/{v}/{t}" for fn in ("full", "full_like") for v, t in (
                 ("big_float", "complex64"), ("complex", "uint8"), ("past_int64", "float16"))] +
             ["linspace/big/complex64"] +
             # and after it: rand/randn's listing for a size that is none, full/new_full's size a tuple or list only
             # (python/src/tensor.cpp size_list_arg), eye's listing (python/src/factories.cpp)
             [f"size/{fn}/{s}" for fn in ("rand", "randn") for s in (
                 "bool_in_tuple", "float_in_tuple", "none", "tensor_0d_float", "tensor_1d", "bool", "float", "inf", "nan",
                 "str")] +
             [f"size/{fn}/{s}" for fn in ("full", "new_full") for s in (
                 "past_int64", "none", "tensor_0d", "zero", "numpy_int", "negative")] +
             [f"eye/{n}/{m}" for n in ("bool", "float", "str") for m in ("none", "float", "negative", "ok", "zero")] +
             [f"eye/{n}/float" for n in ("huge", "negative", "ok", "tensor", "zero")] +
             [f"kw/eye/{k}" for k in ("channels_last", "contiguous_format", "grad_str", "preserve_format")])
_ARANGE = ("C++ (python/src and src/ops, arange): a str bound is PyTorch's listing of its overloads; a bound past"
           " int64 is computed in double for a floating or uint8 dtype (tandem's int caster refuses it), and a "
           "bool dtype is refused (\"arange_cpu\" not implemented for 'Bool') before the bounds")
_LINSPACE = ("C++ (src/ops and python/src, linspace): complex ends with a real dtype are PyTorch's "
             "\"torch.linspace(): inferred dtype c10::complex<float> can't be safely cast to passed dtype Long\", "
             "a bool dtype with 0 or 1 steps is taken (no kernel runs) and with 2**40 steps the allocation fails first; its listing for a bad steps or end "
             "names the keywords in another order and leaves out dtype=None")
_UNPACK = ("a str after the first element of a size list is PyTorch's \"failed to unpack the object at pos 2 with "
           "error ...\"; tandem's _ints says \"found element of type str at pos 1\" (as round 21 left it for dim "
           "lists)")
KNOWN = {name: _ALLOC for name in (
    "arange/end_huge/float16", "arange/end_huge/uint8", "eye/huge/ok", "eye/huge/none", "size/empty_strided/huge",
    *(f"{fn}/steps_huge/{t}" for fn in ("linspace", "logspace") for t in ("None", "complex64", "float16", "int64")),
    "logspace/steps_huge/bool")}
KNOWN.update({f"kw/{fn}/{k}": _KEYWORDS for fn in KW_FACTORIES if fn not in (
    "logspace", "empty_strided", "scalar_tensor", "tensor", "as_tensor") for k in ("device_float",)})
KNOWN.update({f"kw/{fn}/{k}": _KEYWORDS for fn in ("arange", "arange_float", "eye", "linspace", "rand", "randint",
                                                    "randn_like")
              for k in ("dtype_int", "dtype_str", "dtype_numpy", "layout_str")})
KNOWN.update({f"kw/{fn}/grad_str": _KEYWORDS for fn in ("arange", "arange_float", "eye", "linspace", "randn_like",
                                                         "empty", "ones", "zeros")})
KNOWN.update({f"kw/{fn}/{k}": _KEYWORDS for fn in ("arange", "arange_float", "eye", "linspace", "ones", "zeros")
              for k in ("channels_last", "contiguous_format", "preserve_format")})
KNOWN["kw/randint/grad_bool"] = _KEYWORDS
KNOWN.update({f"arange/past_int64/{t}": _ARANGE for t in ("float16", "uint8", "bool")})
KNOWN.update({f"arange/str_end/{t}": _ARANGE for t in RANGE_DTYPES})
KNOWN.update({"linspace/steps_huge/bool": _LINSPACE,
              "linspace/steps_one/bool": _LINSPACE, "linspace/steps_zero/bool": _LINSPACE})
KNOWN.update({f"linspace/complex_end/{t}": _LINSPACE for t in ("bool", "float16", "int64")})
KNOWN.update({f"linspace/{r}/{t}": _LINSPACE for r in ("steps_bool", "steps_float", "str_end") for t in SPACE_DTYPES})
KNOWN["size/empty_strided/str_in_tuple"] = _UNPACK
for _name in CPP_FIXED:
    KNOWN.pop(_name, None)
