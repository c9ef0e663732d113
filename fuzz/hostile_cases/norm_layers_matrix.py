"""The normalization layers as a matrix, beyond nn_functional_shapes.py and nn_modules.py (one case per hostile value
there): batch_norm, layer_norm, group_norm, instance_norm, local_response_norm and rms_norm, as functions and as
modules, crossed with one list of inputs (float32 (N, C, L) and (N, C, H, W), a batch of 1, a 0-size batch,
float16, bfloat16, float64, int64, bool, 0-d, 1-d and complex): weight and bias of the wrong shape, eps negative,
zero and NaN, momentum None, running statistics of the wrong dtype and shape, num_groups that does not divide the
channels, normalized_shape that does not match, and gradients of the input and the affine parameters. The
channel count is 3 throughout, so an input without a channel dimension of 3 meets the parameters' shape checks."""
import math

from . import R, T

NAN = math.nan
C = 3

INPUTS = {
    "f32": lambda L, d: R(L, (4, C, 5), d, "float32"),
    "f32_4d": lambda L, d: R(L, (2, C, 2, 3), d, "float32"),
    "batch1": lambda L, d: R(L, (1, C, 4), d, "float32"),
    "batch1_2d": lambda L, d: R(L, (1, C), d, "float32"),
    "rows_2d": lambda L, d: R(L, (4, C), d, "float32"),
    "zero_batch": lambda L, d: L.empty(0, C, 5, device=d),
    "zero_length": lambda L, d: L.empty(2, C, 0, device=d),
    "f16": lambda L, d: R(L, (4, C, 5), d, "float16"),
    "bf16": lambda L, d: R(L, (4, C, 5), d, "bfloat16"),
    "f64": lambda L, d: R(L, (4, C, 5), d, "float64"),
    "int64": lambda L, d: R(L, (4, C, 5), d, "float64").round().to(L.int64),
    "bool": lambda L, d: R(L, (4, C, 5), d, "float64") > 0,
    "scalar_0d": lambda L, d: T(L, 1.5, d),
    "vector_1d": lambda L, d: T(L, [1.0, -2.0, 3.0], d),
    "complex": lambda L, d: R(L, (4, C, 5), d, "float32").to(L.complex64),
}


def _f(L):
    return L.nn.functional


def _ones(L, x, n=C, dtype=None):
    return L.ones(n, device=x.device, dtype=dtype or (x.dtype if x.is_floating_point() else L.float32))


def _zeros(L, x, n=C, dtype=None):
    return L.zeros(n, device=x.device, dtype=dtype or (x.dtype if x.is_floating_point() else L.float32))


def _stats(L, x, dtype=None, n=C):
    """Running mean and variance (both changed by a training step, so the case returns them)."""
    return _zeros(L, x, n, dtype), _ones(L, x, n, dtype) * 2


def _bn(L, x, training, dtype=None, n=C, **kw):
    rm, rv = _stats(L, x, dtype, n)
    out = _f(L).batch_norm(x, rm, rv, training=training, **kw)
    return out, rm, rv


def _module(L, x, make, train=True):
    m = make(L.nn).to(x.device)
    m.train(train)
    out = m(x)
    state = tuple(v for k, v in sorted(m.state_dict().items()) if k.startswith("running_"))
    return (out,) + state


def _last(x):
    return x.shape[-1] if x.dim() else 1


def _grads(L, x, fn, n=C):
    """Gradients of a weighted sum of fn's output with respect to x, weight and bias (each of n elements)."""
    x = x.detach().clone().requires_grad_()
    w = _ones(L, x, n).mul(1.5).requires_grad_()
    b = _zeros(L, x, n).add(0.25).requires_grad_()
    out = fn(L, x, w, b)
    (out * R(L, tuple(out.shape), str(out.device), "float64").to(out.dtype)).sum().backward()
    return x.grad, w.grad, b.grad


OPS = {
    # batch_norm, functional
    "bn_train": lambda L, x: _bn(L, x, True),
    "bn_train_no_stats": lambda L, x: _f(L).batch_norm(x, None, None, training=True),
    "bn_eval": lambda L, x: _bn(L, x, False),
    "bn_eval_no_stats": lambda L, x: _f(L).batch_norm(x, None, None, training=False),
    "bn_weight_short": lambda L, x: _f(L).batch_norm(x, None, None, _ones(L, x, C - 1), training=True),
    "bn_bias_long": lambda L, x: _f(L).batch_norm(x, None, None, None, _zeros(L, x, C + 1), training=True),
    "bn_weight_2d": lambda L, x: _f(L).batch_norm(x, *_stats(L, x), L.ones(1, C, device=x.device)),
    "bn_eps_negative": lambda L, x: _bn(L, x, True, eps=-0.5),
    "bn_eps_zero": lambda L, x: _bn(L, x, False, eps=0.0),
    "bn_eps_nan": lambda L, x: _bn(L, x, True, eps=NAN),
    "bn_momentum_none": lambda L, x: _bn(L, x, True, momentum=None),
    "bn_momentum_one": lambda L, x: _bn(L, x, True, momentum=1.0),
    "bn_stats_f64": lambda L, x: _bn(L, x, True, dtype=L.float64),
    "bn_stats_f64_eval": lambda L, x: _bn(L, x, False, dtype=L.float64),
    "bn_stats_int": lambda L, x: _bn(L, x, False, dtype=L.int64),
    "bn_stats_short": lambda L, x: _bn(L, x, True, n=C - 1),
    "bn_stats_short_eval": lambda L, x: _bn(L, x, False, n=C + 2),
    "bn_stats_cpu": lambda L, x: _f(L).batch_norm(x, L.zeros(C), L.ones(C), training=False),
    "bn_grad": lambda L, x: _grads(L, x, lambda L, x, w, b: _f(L).batch_norm(x, None, None, w, b, True)),
    "bn_grad_eval": lambda L, x: _grads(L, x, lambda L, x, w, b: _f(L).batch_norm(
        x, *_stats(L, x.detach()), w, b, False)),
    # batch_norm, modules
    "BatchNorm1d": lambda L, x: _module(L, x, lambda nn: nn.BatchNorm1d(C)),
    "BatchNorm1d_eval": lambda L, x: _module(L, x, lambda nn: nn.BatchNorm1d(C), False),
    "BatchNorm1d_momentum_none": lambda L, x: _module(L, x, lambda nn: nn.BatchNorm1d(C, momentum=None)),
    "BatchNorm1d_no_track_eval": lambda L, x: _module(L, x, lambda nn: nn.BatchNorm1d(
        C, track_running_stats=False), False),
    "BatchNorm1d_wrong_C": lambda L, x: _module(L, x, lambda nn: nn.BatchNorm1d(C + 1)),
    "BatchNorm2d": lambda L, x: _module(L, x, lambda nn: nn.BatchNorm2d(C)),
    "BatchNorm3d": lambda L, x: _module(L, x, lambda nn: nn.BatchNorm3d(C)),
    "BatchNorm1d_eps_negative": lambda L, x: _module(L, x, lambda nn: nn.BatchNorm1d(C, eps=-1.0)),
    # layer_norm
    "ln_last": lambda L, x: _f(L).layer_norm(x, x.shape[-1:]),
    "ln_int_shape": lambda L, x: _f(L).layer_norm(x, 5),
    "ln_list_shape": lambda L, x: _f(L).layer_norm(x, [C, 5]),
    "ln_empty_shape": lambda L, x: _f(L).layer_norm(x, ()),
    "ln_mismatch": lambda L, x: _f(L).layer_norm(x, (4,)),
    "ln_too_many_dims": lambda L, x: _f(L).layer_norm(x, (1, 1, 1, 1, 1)),
    "ln_weight_wrong": lambda L, x: _f(L).layer_norm(x, x.shape[-1:], L.ones(7, device=x.device)),
    "ln_bias_wrong": lambda L, x: _f(L).layer_norm(x, x.shape[-1:], None, L.zeros(2, device=x.device)),
    "ln_eps_negative": lambda L, x: _f(L).layer_norm(x, x.shape[-1:], eps=-10.0),
    "ln_eps_nan": lambda L, x: _f(L).layer_norm(x, x.shape[-1:], eps=NAN),
    "ln_eps_zero": lambda L, x: _f(L).layer_norm(x, x.shape[-1:], eps=0.0),
    "ln_shape_float": lambda L, x: _f(L).layer_norm(x, (5.0,)),
    "ln_shape_negative": lambda L, x: _f(L).layer_norm(x, (-5,)),
    "ln_grad": lambda L, x: _grads(L, x, lambda L, x, w, b: _f(L).layer_norm(x, x.shape[-1:], w, b), _last(x)),
    "LayerNorm": lambda L, x: _module(L, x, lambda nn: nn.LayerNorm(x.shape[-1:])),
    "LayerNorm_no_bias": lambda L, x: _module(L, x, lambda nn: nn.LayerNorm(5, bias=False)),
    "LayerNorm_no_affine": lambda L, x: _module(L, x, lambda nn: nn.LayerNorm([C, 5], elementwise_affine=False)),
    # group_norm
    "gn_3": lambda L, x: _f(L).group_norm(x, 3),
    "gn_1": lambda L, x: _f(L).group_norm(x, 1),
    "gn_not_dividing": lambda L, x: _f(L).group_norm(x, 2),
    "gn_zero": lambda L, x: _f(L).group_norm(x, 0),
    "gn_negative": lambda L, x: _f(L).group_norm(x, -1),
    "gn_weight_wrong": lambda L, x: _f(L).group_norm(x, 1, _ones(L, x, C + 1)),
    "gn_bias_wrong": lambda L, x: _f(L).group_norm(x, 3, None, _zeros(L, x, 1)),
    "gn_eps_negative": lambda L, x: _f(L).group_norm(x, 1, eps=-5.0),
    "gn_eps_nan": lambda L, x: _f(L).group_norm(x, 3, eps=NAN),
    "gn_grad": lambda L, x: _grads(L, x, lambda L, x, w, b: _f(L).group_norm(x, 1, w, b)),
    "GroupNorm": lambda L, x: _module(L, x, lambda nn: nn.GroupNorm(C, C)),
    "GroupNorm_not_dividing": lambda L, x: _module(L, x, lambda nn: nn.GroupNorm(2, C)),
    "GroupNorm_no_affine": lambda L, x: _module(L, x, lambda nn: nn.GroupNorm(1, C, affine=False)),
    # instance_norm
    "in_plain": lambda L, x: _f(L).instance_norm(x),
    "in_stats": lambda L, x: (lambda s: (_f(L).instance_norm(x, *s), *s))(_stats(L, x)),
    "in_stats_eval": lambda L, x: (lambda s: (_f(L).instance_norm(x, *s, use_input_stats=False), *s))(
        _stats(L, x)),
    "in_eval_no_stats": lambda L, x: _f(L).instance_norm(x, use_input_stats=False),
    "in_weight_wrong": lambda L, x: _f(L).instance_norm(x, weight=_ones(L, x, C + 2)),
    "in_stats_short": lambda L, x: _f(L).instance_norm(x, *_stats(L, x, n=C - 1)),
    "in_momentum_none": lambda L, x: _f(L).instance_norm(x, *_stats(L, x), momentum=None),
    "in_eps_negative": lambda L, x: _f(L).instance_norm(x, eps=-2.0),
    "in_grad": lambda L, x: _grads(L, x, lambda L, x, w, b: _f(L).instance_norm(x, weight=w, bias=b)),
    "InstanceNorm1d": lambda L, x: _module(L, x, lambda nn: nn.InstanceNorm1d(C)),
    "InstanceNorm1d_track": lambda L, x: _module(L, x, lambda nn: nn.InstanceNorm1d(C, track_running_stats=True)),
    "InstanceNorm1d_track_eval": lambda L, x: _module(L, x, lambda nn: nn.InstanceNorm1d(
        C, track_running_stats=True), False),
    "InstanceNorm1d_affine_wrong_C": lambda L, x: _module(L, x, lambda nn: nn.InstanceNorm1d(C + 1, affine=True)),
    "InstanceNorm2d": lambda L, x: _module(L, x, lambda nn: nn.InstanceNorm2d(C)),
    # local_response_norm
    "lrn_2": lambda L, x: _f(L).local_response_norm(x, 2),
    "lrn_size_0": lambda L, x: _f(L).local_response_norm(x, 0),
    "lrn_size_big": lambda L, x: _f(L).local_response_norm(x, 10, alpha=0.5, beta=1.0, k=2.0),
    "lrn_k_zero": lambda L, x: _f(L).local_response_norm(x, 3, k=0.0),
    "lrn_beta_negative": lambda L, x: _f(L).local_response_norm(x, 2, beta=-1.0),
    "lrn_grad": lambda L, x: _grads(L, x, lambda L, x, w, b: _f(L).local_response_norm(x, 2)),
    "LocalResponseNorm": lambda L, x: _module(L, x, lambda nn: nn.LocalResponseNorm(3)),
    # rms_norm
    "rms_last": lambda L, x: _f(L).rms_norm(x, x.shape[-1:]),
    "rms_int_shape": lambda L, x: _f(L).rms_norm(x, 5),
    "rms_mismatch": lambda L, x: _f(L).rms_norm(x, (4,)),
    "rms_empty_shape": lambda L, x: _f(L).rms_norm(x, []),
    "rms_weight_wrong": lambda L, x: _f(L).rms_norm(x, x.shape[-1:], L.ones(9, device=x.device)),
    "rms_eps_none": lambda L, x: _f(L).rms_norm(x, x.shape[-1:], eps=None),
    "rms_eps_negative": lambda L, x: _f(L).rms_norm(x, x.shape[-1:], eps=-100.0),
    "rms_eps_nan": lambda L, x: _f(L).rms_norm(x, x.shape[-1:], eps=NAN),
    "rms_weight_f64": lambda L, x: _f(L).rms_norm(x, x.shape[-1:], L.ones(x.shape[-1:], device=x.device,
                                                                           dtype=L.float64)),
    "rms_grad": lambda L, x: _grads(L, x, lambda L, x, w, b: _f(L).rms_norm(x, x.shape[-1:], w) + b, _last(x)),
    "RMSNorm": lambda L, x: _module(L, x, lambda nn: nn.RMSNorm(x.shape[-1:])),
    "RMSNorm_eps": lambda L, x: _module(L, x, lambda nn: nn.RMSNorm([C, 5], eps=1e-3)),
    "RMSNorm_no_affine": lambda L, x: _module(L, x, lambda nn: nn.RMSNorm(5, elementwise_affine=False)),
}

CASES = {}
for _op, _fn in OPS.items():
    for _i, _x in INPUTS.items():
        CASES[f"{_op}/{_i}"] = lambda L, d, fn=_fn, x=_x: fn(L, x(L, d))

_HALF_PRECISION = ("16-bit rounding: tandem's float16/bfloat16 results and gradients are as close to or closer to the "
                   "float64 answer than PyTorch's (checked; tandem computes the statistics in float32 and rounds "
                   "once), so they differ from PyTorch's by more than the half tolerance where the values are near 0")
_ONE_ELEMENT_GROUPS = ("a group of one element: tandem's x - mean is exactly 0 (PyTorch's float32 mean rounds, leaving "
                       "~1e-7, which rsqrt(eps) scales to 5e-5)")
_CPU_STATS = ("cuda-only: CPU running statistics with a GPU input are the device error, as in PyTorch's CUDA "
              "batch_norm (the oracle runs on the CPU, where everything is on one device)")
KNOWN = {f"bn_stats_cpu/{i}": _CPU_STATS for i in INPUTS if i not in ("zero_batch", "zero_length")}
KNOWN.update({f"{op}/{i}": _HALF_PRECISION for op in ("gn_grad", "in_grad", "ln_grad", "bn_grad",
                                                      "InstanceNorm1d_track") for i in ("f16", "bf16")})
KNOWN["GroupNorm/rows_2d"] = _ONE_ELEMENT_GROUPS
