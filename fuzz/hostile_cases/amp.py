"""torch.amp misuse: autocast with device types that are not strings or not devices, dtypes autocast does not
take (float64, int), nested and disabled regions, the ops' output dtypes inside a region (matmul, linear and sum
of low-precision inputs, float64 inputs left alone), custom_fwd/custom_bwd; GradScaler with inf and NaN gradients
(the step skipped, the scale backed off), unscale_ twice, step and update out of order, bad growth/backoff
factors, scale() of non-tensors, state dicts. The device type is the case's (cpu in PyTorch, cuda in tandem on a
GPU), with an explicit dtype where the defaults differ (bfloat16 on cpu, float16 on cuda)."""
import math

from . import R, T

N, INF = math.nan, math.inf


def dt(d):
    return d.split(":")[0]


def in_autocast(L, d, fn, dtype="bfloat16", **kw):
    with L.autocast(dt(d), dtype=getattr(L, dtype) if isinstance(dtype, str) else dtype, **kw):
        return fn()


def mm_dtype(L, d, dtype="bfloat16", **kw):
    """The dtype of a float32 matmul inside the region (the region's effect)."""
    return in_autocast(L, d, lambda: (R(L, (2, 3), d, "float32") @ R(L, (3, 2), d, "float32")).dtype, dtype, **kw)


def raised(fn):
    """The exception type fn raises (None when it returns)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is the result
        return type(e).__name__
    return None


def mm_dtype_at(L, d, device_type):
    """The dtype of a float32 matmul on d inside autocast(device_type, bfloat16) ('cuda:0': an indexed type)."""
    with L.autocast(device_type, dtype=L.bfloat16):
        return (R(L, (2, 3), d, "float32") @ R(L, (3, 2), d, "float32")).dtype


def scaler(L, d, **kw):
    return L.amp.GradScaler(dt(d), **kw)


def setup(L, d, grad):
    p = L.nn.Parameter(T(L, [1.0, 2.0], d))
    opt = L.optim.SGD([p], lr=0.1)
    p.grad = T(L, grad, d)
    return p, opt


def scaled_step(L, d, grad, init_scale=4.0, unscale=False, **kw):
    """One GradScaler step with gradient `grad` (already scaled): (the parameter after, the new scale)."""
    s = scaler(L, d, init_scale=init_scale, **kw)
    p, opt = setup(L, d, grad)
    if unscale:
        s.unscale_(opt)
    s.step(opt)
    s.update()
    return p.detach(), s.get_scale()


def unscaled_grad(L, d, grad, init_scale=4.0):
    s = scaler(L, d, init_scale=init_scale)
    p, opt = setup(L, d, grad)
    s.unscale_(opt)
    return p.grad


def growth(L, d, steps, **kw):
    """The scale after `steps` finite steps with growth_interval=2: it doubles every second step."""
    s = scaler(L, d, init_scale=2.0, growth_interval=2, **kw)
    p, opt = setup(L, d, [1.0, 1.0])
    scales = []
    for _ in range(steps):
        s.step(opt)
        s.update()
        scales.append(s.get_scale())
    return scales


def twice(L, d, first, second):
    s = scaler(L, d)
    p, opt = setup(L, d, [1.0, 1.0])
    first(s, opt)
    return second(s, opt)


CASES = {
    # ---- autocast construction
    "autocast/device_type_int": lambda L, d: L.autocast(0),
    "autocast/device_type_device": lambda L, d: L.autocast(L.device("cpu")),
    "autocast/device_type_bad": lambda L, d: L.autocast("gpu"),
    "autocast/device_type_with_index": lambda L, d: mm_dtype_at(L, d, d if ":" in d else d + ":0"),
    "autocast/dtype_float64": lambda L, d: mm_dtype(L, d, "float64"),
    "autocast/dtype_float32": lambda L, d: mm_dtype(L, d, "float32"),
    "autocast/dtype_int": lambda L, d: mm_dtype(L, d, "int32"),
    "autocast/dtype_str": lambda L, d: in_autocast(L, d, lambda: 1, dtype="float16"),
    "autocast/ok_bf16": lambda L, d: mm_dtype(L, d),
    "autocast/ok_fp16": lambda L, d: mm_dtype(L, d, "float16"),
    "autocast/disabled": lambda L, d: mm_dtype(L, d, enabled=False),
    "autocast/enabled_int": lambda L, d: mm_dtype(L, d, enabled=1),
    "autocast/enabled_none": lambda L, d: mm_dtype(L, d, enabled=None),
    "autocast/decorator_not_callable": lambda L, d: L.autocast(dt(d), dtype=L.bfloat16)(3),
    "autocast/decorator_ok": lambda L, d: L.autocast(dt(d), dtype=L.bfloat16)(
        lambda: (R(L, (2, 2), d, "float32") @ R(L, (2, 2), d, "float32")).dtype)(),
    # ---- op dtypes inside a region
    "autocast/nested_disabled_inner": lambda L, d: in_autocast(L, d, lambda: mm_dtype(L, d, enabled=False)),
    "autocast/restored_after": lambda L, d: (in_autocast(L, d, lambda: None),
                                             (R(L, (2, 2), d, "float32") @ R(L, (2, 2), d, "float32")).dtype),
    "autocast/restored_after_error": lambda L, d: (raised(lambda: in_autocast(L, d, lambda: 1 / 0)),
                                                   L.is_autocast_enabled(dt(d))),
    "autocast/float64_matmul_kept": lambda L, d: in_autocast(L, d, lambda: (R(L, (2, 2), d) @ R(L, (2, 2), d)).dtype),
    "autocast/int_matmul_kept": lambda L, d: in_autocast(L, d, lambda: (T(L, [[1, 2]], d) @ T(L, [[1], [2]], d))),
    "autocast/linear_dtype": lambda L, d: in_autocast(L, d, lambda: L.nn.functional.linear(
        R(L, (2, 3), d, "float32"), R(L, (4, 3), d, "float32")).dtype),
    "autocast/add_not_cast": lambda L, d: in_autocast(L, d, lambda: (R(L, (2,), d, "float32") + 1).dtype),
    "autocast/mixed_add_after_mm": lambda L, d: in_autocast(L, d, lambda: (
        R(L, (2, 2), d, "float32") @ R(L, (2, 2), d, "float32") + R(L, (2, 2), d, "float32")).dtype),
    "autocast/is_enabled_inside": lambda L, d: in_autocast(L, d, lambda: L.is_autocast_enabled(dt(d))),
    "autocast/get_dtype_inside": lambda L, d: in_autocast(L, d, lambda: L.get_autocast_dtype(dt(d)), "float16"),
    "autocast/backward_dtype": lambda L, d: (lambda w: (in_autocast(L, d, lambda: (
        R(L, (2, 3), d, "float32") @ w).sum()).backward(), w.grad.dtype)[1])(
        R(L, (3, 2), d, "float32").requires_grad_()),
    "is_autocast_available/bad": lambda L, d: L.amp.is_autocast_available("gpu"),
    "is_autocast_available/cpu": lambda L, d: L.amp.is_autocast_available("cpu"),
    "custom_fwd/cast_inputs": lambda L, d: L.amp.custom_fwd(lambda x: x.dtype, device_type=dt(d),
                                                            cast_inputs=L.float32)(R(L, (2,), d, "float64")),
    "custom_fwd/no_device_type": lambda L, d: L.amp.custom_fwd(lambda x: x)(R(L, (2,), d)),
    # ---- GradScaler
    "GradScaler/ok": lambda L, d: scaled_step(L, d, [4.0, 8.0]),
    "GradScaler/inf_grad_skips": lambda L, d: scaled_step(L, d, [INF, 8.0]),
    "GradScaler/nan_grad_skips": lambda L, d: scaled_step(L, d, [N, 8.0]),
    "GradScaler/unscale_then_step": lambda L, d: scaled_step(L, d, [4.0, 8.0], unscale=True),
    "GradScaler/unscale_inf_then_step": lambda L, d: scaled_step(L, d, [4.0, -INF], unscale=True),
    "GradScaler/unscale_values": lambda L, d: unscaled_grad(L, d, [4.0, -8.0]),
    "GradScaler/unscale_inf_values": lambda L, d: unscaled_grad(L, d, [INF, -8.0]),
    "GradScaler/unscale_twice": lambda L, d: twice(L, d, lambda s, o: s.unscale_(o), lambda s, o: s.unscale_(o)),
    "GradScaler/unscale_after_step": lambda L, d: twice(L, d, lambda s, o: s.step(o), lambda s, o: s.unscale_(o)),
    "GradScaler/step_twice": lambda L, d: twice(L, d, lambda s, o: s.step(o), lambda s, o: s.step(o)),
    "GradScaler/update_without_step": lambda L, d: scaler(L, d).update(),
    "GradScaler/update_after_scale_only": lambda L, d: (lambda s: (s.scale(T(L, 1.0, d)), s.update()))(
        scaler(L, d)),
    "GradScaler/step_with_closure": lambda L, d: twice(L, d, lambda s, o: None,
                                                       lambda s, o: s.step(o, closure=lambda: 0.0)),
    "GradScaler/growth": lambda L, d: growth(L, d, 5),
    "GradScaler/growth_factor_one": lambda L, d: scaler(L, d, growth_factor=1.0),
    "GradScaler/backoff_one": lambda L, d: scaler(L, d, backoff_factor=1.0),
    "GradScaler/backoff_custom": lambda L, d: scaled_step(L, d, [INF, 1.0], init_scale=8.0, backoff_factor=0.25),
    "GradScaler/init_scale_zero": lambda L, d: scaled_step(L, d, [1.0, 1.0], init_scale=0.0),
    "GradScaler/update_new_scale_float": lambda L, d: (lambda s: (s.scale(T(L, 1.0, d)), s.update(3.0),
                                                                  s.get_scale())[2])(scaler(L, d)),
    "GradScaler/update_new_scale_tensor_2": lambda L, d: (lambda s: (s.scale(T(L, 1.0, d)),
                                                                     s.update(T(L, [3.0, 4.0], d))))(scaler(L, d)),
    "GradScaler/update_new_scale_int_tensor": lambda L, d: (lambda s: (s.scale(T(L, 1.0, d)),
                                                                       s.update(T(L, [3], d))))(scaler(L, d)),
    "GradScaler/scale_tensor": lambda L, d: scaler(L, d, init_scale=3.0).scale(T(L, [1.0, 2.0], d)),
    "GradScaler/scale_list": lambda L, d: scaler(L, d, init_scale=3.0).scale([T(L, [1.0], d), T(L, 2.0, d)]),
    "GradScaler/scale_dict": lambda L, d: [type(v).__name__ for v in scaler(L, d, init_scale=3.0).scale(
        {"a": T(L, [1.0], d)})],
    "GradScaler/scale_number": lambda L, d: scaler(L, d).scale(2.0),
    "GradScaler/scale_nested": lambda L, d: scaler(L, d, init_scale=3.0).scale(((T(L, [1.0], d),), [T(L, 2.0, d)])),
    "GradScaler/disabled_passthrough": lambda L, d: (lambda s: (s.scale(T(L, [2.0], d)), s.is_enabled(),
                                                                s.get_scale()))(scaler(L, d, enabled=False)),
    "GradScaler/get_scale_before_use": lambda L, d: scaler(L, d, init_scale=5.0).get_scale(),
    "GradScaler/state_dict": lambda L, d: (lambda s: (s.scale(T(L, 1.0, d)), s.state_dict())[1])(scaler(L, d)),
    "GradScaler/load_empty_state": lambda L, d: scaler(L, d).load_state_dict({}),
    "GradScaler/load_state_roundtrip": lambda L, d: (lambda s, t: (t.load_state_dict(s.state_dict()),
                                                                   t.get_scale(), t.get_growth_interval())[1:])(
        scaler(L, d, init_scale=7.0, growth_interval=3), scaler(L, d)),
    "GradScaler/set_growth_factor": lambda L, d: (lambda s: (s.set_growth_factor(3.0), s.get_growth_factor())[1])(
        scaler(L, d)),
    "GradScaler/fp16_grads_unscale": lambda L, d: (lambda s, p: (s.unscale_(L.optim.SGD([p], lr=0.1)), p.grad)[1])(
        scaler(L, d), (lambda p: (setattr(p, "grad", T(L, [2.0], d, "float16")), p)[1])(
            L.nn.Parameter(T(L, [1.0], d, "float16")))),
    "GradScaler/device_bad": lambda L, d: L.amp.GradScaler("gpu").is_enabled(),
}

# PyTorch's CUDA autocast takes any dtype (its check is for the other device types); the oracle runs on the CPU,
# which warns and disables autocast. tandem's cuda follows PyTorch's CUDA.
KNOWN = {
    "autocast/device_type_bad": "the device parser lists tandem's two device types where PyTorch's lists twenty "
                                "(RuntimeError both)",
    "is_autocast_available/bad": "as autocast/device_type_bad: the device parser's list of device types",
    "autocast/dtype_float64": "PyTorch's CUDA autocast does not check the dtype (only its CPU does): the oracle's CPU "
                              "disables the region where PyTorch on a GPU, like tandem's cuda, runs in float64",
    "autocast/dtype_int": "PyTorch's CUDA autocast does not check the dtype (only its CPU does): tandem's cuda runs "
                          "the matmul in int32 as PyTorch's CUDA region would ask",
}
