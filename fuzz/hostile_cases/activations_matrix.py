"""nn.functional's activations as a matrix, beyond functional_breadth.py, functional.py and nn.py (one case per
hostile value there): gelu (approximate= "none", "tanh", others), softmax/log_softmax/softmin (dims past the rank,
None, a float, dtype= float64/float16/int64), hardtanh (min above max, equal bounds, NaN and integer bounds,
in place), threshold (NaN and inf thresholds and values, in place), rrelu (lower above upper, training, in place),
glu (odd and past dims), celu/elu (alpha 0, negative, NaN), selu, leaky_relu (integer, negative and NaN slopes),
relu/relu6, hardsigmoid, hardswish, silu, mish, softplus (beta 0 and negative, threshold), softshrink/hardshrink
(negative lambd), tanhshrink, logsigmoid, prelu (weights of the wrong size, rank or dtype), sigmoid and tanh; each
also in place where the function has inplace=, crossed with one list of inputs: float32 (2, 3) and (2, 3, 4), float64,
float16, bfloat16, int64, bool, complex64, 0-d, 1-d, an empty (0, 3), a transposed view, and values with NaN and
inf."""
import math

from . import R, T

N, INF = math.nan, math.inf

INPUTS = {
    "f32": lambda L, d: R(L, (2, 3), d, "float32"),
    "f32_3d": lambda L, d: R(L, (2, 3, 4), d, "float32"),
    "f64": lambda L, d: R(L, (2, 3), d, "float64"),
    "f16": lambda L, d: R(L, (2, 3), d, "float16"),
    "bf16": lambda L, d: R(L, (2, 3), d, "bfloat16"),
    "i64": lambda L, d: T(L, [[1, -2, 3], [4, 0, -6]], d, "int64"),
    "bool": lambda L, d: T(L, [[True, False, True], [False, True, True]], d, "bool"),
    "c64": lambda L, d: R(L, (2, 3), d, "float32").to(L.complex64) * (1 + 2j),
    "scalar": lambda L, d: T(L, -1.5, d),
    "vec": lambda L, d: R(L, (4,), d, "float32"),
    "empty": lambda L, d: L.empty(0, 3, device=d),
    "transposed": lambda L, d: R(L, (3, 2), d, "float32").t(),
    "nonfinite": lambda L, d: T(L, [[N, INF, -INF], [0.0, -0.0, 1e30]], d, "float32"),
}


def _F(L):
    return L.nn.functional


def _w(L, x, values, dtype=None):
    return L.tensor(values, device=x.device, dtype=getattr(L, dtype) if dtype else None)


OPS = {
    "gelu": lambda L, x: _F(L).gelu(x),
    "gelu_tanh": lambda L, x: _F(L).gelu(x, approximate="tanh"),
    "gelu_bad": lambda L, x: _F(L).gelu(x, approximate="erf"),
    "gelu_none_obj": lambda L, x: _F(L).gelu(x, approximate=None),
    "softmax_0": lambda L, x: _F(L).softmax(x, 0),
    "softmax_last": lambda L, x: _F(L).softmax(x, dim=-1),
    "softmax_past": lambda L, x: _F(L).softmax(x, dim=3),
    "softmax_float_dim": lambda L, x: _F(L).softmax(x, 1.0),
    "softmax_f64": lambda L, x: _F(L).softmax(x, -1, dtype=L.float64),
    "softmax_f16": lambda L, x: _F(L).softmax(x, -1, dtype=L.float16),
    "softmax_i64": lambda L, x: _F(L).softmax(x, -1, dtype=L.int64),
    "softmax_torch": lambda L, x: L.softmax(x, 0),
    "softmax_method_dtype": lambda L, x: x.softmax(-1, dtype=L.float64),
    "log_softmax_0": lambda L, x: _F(L).log_softmax(x, 0),
    "log_softmax_past": lambda L, x: _F(L).log_softmax(x, -4),
    "log_softmax_f64": lambda L, x: _F(L).log_softmax(x, 0, dtype=L.float64),
    "log_softmax_i32": lambda L, x: _F(L).log_softmax(x, 0, dtype=L.int32),
    "log_softmax_torch_str": lambda L, x: L.log_softmax(x, "a"),
    "softmin": lambda L, x: _F(L).softmin(x, -1),
    "softmin_f64": lambda L, x: _F(L).softmin(x, 0, dtype=L.float64),
    "hardtanh": lambda L, x: _F(L).hardtanh(x),
    "hardtanh_reversed": lambda L, x: _F(L).hardtanh(x, 1.0, -1.0),
    "hardtanh_equal": lambda L, x: _F(L).hardtanh(x, 0.5, 0.5),
    "hardtanh_nan": lambda L, x: _F(L).hardtanh(x, N, 1.0),
    "hardtanh_int": lambda L, x: _F(L).hardtanh(x, -2, 2),
    "hardtanh_inplace": lambda L, x: _F(L).hardtanh(x.clone(), -0.5, 0.5, inplace=True),
    "hardtanh_module_reversed": lambda L, x: L.nn.Hardtanh(2.0, -2.0)(x),
    "relu6": lambda L, x: _F(L).relu6(x),
    "relu6_inplace": lambda L, x: _F(L).relu6(x.clone(), inplace=True),
    "threshold": lambda L, x: _F(L).threshold(x, 0.5, -7.0),
    "threshold_nan": lambda L, x: _F(L).threshold(x, N, 2.0),
    "threshold_value_nan": lambda L, x: _F(L).threshold(x, 0.0, N),
    "threshold_inf": lambda L, x: _F(L).threshold(x, INF, 0.0),
    "threshold_inplace": lambda L, x: _F(L).threshold(x.clone(), 0.0, 1.0, inplace=True),
    "threshold_tensor": lambda L, x: _F(L).threshold(x, _w(L, x, 0.5), 1.0),
    "rrelu_eval": lambda L, x: _F(L).rrelu(x),
    "rrelu_eval_bounds": lambda L, x: _F(L).rrelu(x, 0.1, 0.3),
    "rrelu_reversed": lambda L, x: _F(L).rrelu(x, 0.5, 0.1),
    "rrelu_negative": lambda L, x: _F(L).rrelu(x, -0.5, -0.1),
    "rrelu_inplace": lambda L, x: _F(L).rrelu(x.clone(), inplace=True),
    "glu": lambda L, x: _F(L).glu(x),
    "glu_0": lambda L, x: _F(L).glu(x, 0),
    "glu_past": lambda L, x: _F(L).glu(x, 3),
    "celu": lambda L, x: _F(L).celu(x),
    "celu_0": lambda L, x: _F(L).celu(x, alpha=0.0),
    "celu_negative": lambda L, x: _F(L).celu(x, -2.0),
    "celu_inplace": lambda L, x: _F(L).celu(x.clone(), 0.5, True),
    "elu": lambda L, x: _F(L).elu(x),
    "elu_0": lambda L, x: _F(L).elu(x, 0.0),
    "elu_nan": lambda L, x: _F(L).elu(x, N),
    "elu_inplace": lambda L, x: _F(L).elu(x.clone(), inplace=True),
    "selu": lambda L, x: _F(L).selu(x),
    "selu_inplace": lambda L, x: _F(L).selu(x.clone(), inplace=True),
    "leaky_relu": lambda L, x: _F(L).leaky_relu(x),
    "leaky_relu_int_slope": lambda L, x: _F(L).leaky_relu(x, 2),
    "leaky_relu_negative": lambda L, x: _F(L).leaky_relu(x, -0.5),
    "leaky_relu_nan": lambda L, x: _F(L).leaky_relu(x, N),
    "leaky_relu_inplace": lambda L, x: _F(L).leaky_relu(x.clone(), 0.2, True),
    "relu": lambda L, x: _F(L).relu(x),
    "relu_inplace": lambda L, x: _F(L).relu(x.clone(), inplace=True),
    "hardsigmoid": lambda L, x: _F(L).hardsigmoid(x),
    "hardsigmoid_inplace": lambda L, x: _F(L).hardsigmoid(x.clone(), inplace=True),
    "hardswish": lambda L, x: _F(L).hardswish(x),
    "hardswish_inplace": lambda L, x: _F(L).hardswish(x.clone(), inplace=True),
    "silu": lambda L, x: _F(L).silu(x),
    "silu_inplace": lambda L, x: _F(L).silu(x.clone(), inplace=True),
    "mish": lambda L, x: _F(L).mish(x),
    "mish_inplace": lambda L, x: _F(L).mish(x.clone(), inplace=True),
    "softplus": lambda L, x: _F(L).softplus(x),
    "softplus_beta0": lambda L, x: _F(L).softplus(x, beta=0),
    "softplus_beta_negative": lambda L, x: _F(L).softplus(x, -1.0, 20.0),
    "softplus_threshold0": lambda L, x: _F(L).softplus(x, 2.0, 0.0),
    "softshrink": lambda L, x: _F(L).softshrink(x, 0.5),
    "softshrink_negative": lambda L, x: _F(L).softshrink(x, -0.5),
    "hardshrink": lambda L, x: _F(L).hardshrink(x),
    "hardshrink_nan": lambda L, x: _F(L).hardshrink(x, N),
    "tanhshrink": lambda L, x: _F(L).tanhshrink(x),
    "logsigmoid": lambda L, x: _F(L).logsigmoid(x),
    "sigmoid": lambda L, x: _F(L).sigmoid(x),
    "tanh": lambda L, x: _F(L).tanh(x),
    "prelu_1": lambda L, x: _F(L).prelu(x, _w(L, x, [0.25])),
    "prelu_channels": lambda L, x: _F(L).prelu(x, _w(L, x, [0.1, 0.2, 0.3])),
    "prelu_wrong": lambda L, x: _F(L).prelu(x, _w(L, x, [0.1, 0.2])),
    "prelu_0d": lambda L, x: _F(L).prelu(x, _w(L, x, 0.25)),
    "prelu_2d_weight": lambda L, x: _F(L).prelu(x, _w(L, x, [[0.25]])),
    "prelu_f64_weight": lambda L, x: _F(L).prelu(x, _w(L, x, [0.25], "float64")),
    "prelu_int_weight": lambda L, x: _F(L).prelu(x, _w(L, x, [1], "int64")),
    "PReLU": lambda L, x: L.nn.PReLU(3).to(x.device)(x),
    "ReLU6_module_inplace": lambda L, x: L.nn.ReLU6(True)(x.clone()),
    "GELU_module_bad": lambda L, x: L.nn.GELU("bad")(x),
    "Softmax_module_none": lambda L, x: L.nn.Softmax()(x),
    "Softmax2d": lambda L, x: L.nn.Softmax2d()(x),
}

CASES = {}
for _op, _fn in OPS.items():
    for _i, _x in INPUTS.items():
        CASES[f"{_op}/{_i}"] = lambda L, d, fn=_fn, x=_x: fn(L, x(L, d))

_SOFTMAX_DTYPE = ("fixed in C++ in session 48 (src/ops, softmax/log_softmax with dtype=): PyTorch converts the input to dtype first, so a "
                  "complex input with a real dtype= is computed on its real parts (with the cast's warning), an "
                  "integer dtype= names its own kernel (\"log_softmax_kernel_impl\" not implemented for 'Int') and an "
                  "empty input with one returns an empty result; tandem refuses the complex input, and the integer "
                  "dtype also where no kernel would run")
_ELU_AT_ZERO = ("C++ (src/kernels, the elu functor): PyTorch's elu returns x itself at x == +-0 whatever alpha is (a "
                "NaN alpha included); tandem's computes alpha * (exp(0) - 1) there, NaN for a NaN alpha")
_GELU_INF = ("PyTorch's vectorised CPU gelu gives NaN for +inf (its erf form, 0.5 * x * (1 + erf(x / sqrt(2))), "
             "computes inf * 0 somewhere); tandem's gives inf, the limit")
_GELU_CUDA = ("cuda-only: a complex input's refusal names the kernel; PyTorch's CUDA kernel is another "
              "(\"GeluCUDAKernelImpl\"), the oracle's CPU one GeluKernelImpl, tandem's core \"gelu_cpu\"")
KNOWN = {f"{op}/c64": _SOFTMAX_DTYPE for op in ("softmax_f64", "softmax_f16", "softmax_i64", "softmax_method_dtype",
                                                "log_softmax_f64", "log_softmax_i32", "softmin_f64")}
KNOWN.update({f"{op}/empty": _SOFTMAX_DTYPE for op in ("softmax_i64", "log_softmax_i32")})
KNOWN["elu_nan/nonfinite"] = _ELU_AT_ZERO
KNOWN["gelu/nonfinite"] = _GELU_INF
KNOWN.update({f"{op}/c64": _GELU_CUDA for op in ("gelu", "gelu_tanh")})

# Fixed in C++ in session 48 (tests/python/test_hostile_inputs22.py, test_fixed_in_cpp): softmax/log_softmax name
# the position the call gave dim at (2 for torch.log_softmax(x, "a"), 1 for the method).
CPP_FIXED = [f"log_softmax_torch_str/{i}" for i in INPUTS]
# and softmax/log_softmax/softmin with dtype= convert first (a complex input's real parts, with PyTorch's warning)
# and return an empty input before the kernel's dtype check (src/ops/reduce_composite.cpp)
CPP_FIXED += [name for name, reason in KNOWN.items() if reason is _SOFTMAX_DTYPE]
KNOWN = {name: reason for name, reason in KNOWN.items() if reason is not _SOFTMAX_DTYPE}
