"""The autograd API misused beyond autograd_api.py, hooks.py and autograd_graph.py: backward twice through shared
subgraphs and views, retain_graph=False with create_graph, inputs= of odd kinds; torch.autograd.grad with
allow_unused/materialize_grads/is_grads_batched/only_inputs combinations, outputs and inputs as lists, tuples and
generators, grad_outputs that require grad; in-place writes to leaves through views, to saved tensors of views
and through .data; version counters of views and of out= results; detect_anomaly and its NaN check; set_grad_enabled
as a function, decorator and context manager with odd arguments; no_grad/enable_grad/inference_mode as decorators;
saved_tensors_hooks that return the wrong thing; .grad of non-leaves; requires_grad toggled on non-leaves."""
import math

from . import R, T


def leaf(L, d, shape=(3,), dtype="float64"):
    return R(L, shape, d, dtype).requires_grad_()


def grad_of(L, x, fn):
    fn()
    return x.grad


def run_twice(L, d, first, second):
    """first(x) builds a graph and runs its backward; second(x, y) runs another backward on the same graph."""
    x = leaf(L, d)
    y = first(L, x)
    return second(L, x, y), x.grad


def anomaly_nan(L, d):
    x = leaf(L, d)
    with L.autograd.detect_anomaly():
        y = (x * 0).sqrt() * 0.0  # sqrt's backward at 0 is inf, times 0: NaN in the gradient
        z = (x - x).div(x - x)  # 0/0: NaN in the forward
        (y.sum() + z.nan_to_num().sum()).backward()
    return x.grad


def nan_grad_function(L):
    """A Function whose backward returns NaN (what anomaly mode's NaN check catches)."""
    class NanGrad(L.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t.clone()

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    return NanGrad


def anomaly_backward_nan(L, d):
    x = leaf(L, d)
    with L.autograd.detect_anomaly():
        nan_grad_function(L).apply(x).sum().backward()
    return x.grad


def anomaly_no_nan_check(L, d):
    x = leaf(L, d)
    with L.autograd.detect_anomaly(check_nan=False):
        nan_grad_function(L).apply(x).sum().backward()
    return x.grad.isnan().all()


def saved_hooks(L, d, pack, unpack):
    x = leaf(L, d)
    with L.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x).sum()
    y.backward()
    return x.grad


def decorated(L, d, decorator):
    @decorator
    def f(t):
        return t * 2

    y = f(leaf(L, d))
    return y.requires_grad


def generator_decorated(L, d):
    @L.no_grad()
    def gen(t):
        yield t * 2
        yield t * 3

    return [y.requires_grad for y in gen(leaf(L, d))]


def version_after(L, d, fn):
    x = R(L, (4,), d)
    v0 = x._version
    fn(x)
    return x._version - v0 > 0


def batched_grad(L, d, **kw):
    x = leaf(L, d)
    y = x * x
    v = L.eye(3, device=d, dtype=L.float64)
    return L.autograd.grad(y, x, v, is_grads_batched=True, **kw)


def with_grad_mode(L, enabled, fn):
    """fn() with grad mode set, restored afterwards whatever fn does."""
    before = L.is_grad_enabled()
    L.set_grad_enabled(enabled)
    try:
        return fn()
    finally:
        L.set_grad_enabled(before)


def leaf_view_no_grad(L, d):
    x = leaf(L, d)
    with L.no_grad():
        x[:2].add_(1)
    return x.detach(), x.requires_grad, x.is_leaf


def copy_into_leaf_view_no_grad(L, d):
    x = leaf(L, d)
    with L.no_grad():
        x[0].copy_(T(L, 5.0, d))
    return x.detach()


def detect_anomaly_int(L):
    try:
        L.autograd.set_detect_anomaly(1)
        return L.is_anomaly_enabled()
    finally:
        L.autograd.set_detect_anomaly(False)


def nested_grad_modes(L):
    with L.set_grad_enabled(False):
        inner = L.is_grad_enabled()
        with L.set_grad_enabled(True):
            innermost = L.is_grad_enabled()
        after = L.is_grad_enabled()
    return inner, innermost, after, L.is_grad_enabled()


def inference_mode_str(L, d):
    with L.inference_mode("yes"):
        return L.is_inference_mode_enabled(), (R(L, (2,), d) * 2).is_inference()


def created_in_inference_mode(L, d):
    with L.inference_mode():
        t = R(L, (3,), d) * 2
    return t.requires_grad, t.is_inference()


def backward_of_inference_tensor(L, d):
    with L.inference_mode():
        t = R(L, (3,), d)
    return (t * leaf(L, d)).sum().backward()


def save_on_cpu(L, d):
    x = leaf(L, d)
    with L.autograd.graph.save_on_cpu():
        y = (x * x).sum()
    y.backward()
    return x.grad


def disabled_saved_hooks(L, d):
    with L.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        return saved_hooks(L, d, lambda t: t, lambda t: t)


CASES = {
    # ---- backward twice and retain_graph
    "backward/twice_through_view": lambda L, d: run_twice(
        L, d, lambda L, x: (lambda y: (y[:2].exp().sum().backward(), y)[1])(x * 1),
        lambda L, x, y: y[:2].exp().sum().backward()),
    "backward/twice_shared_prefix": lambda L, d: run_twice(
        L, d, lambda L, x: (lambda h: (h.sum().backward(), h)[1])(x.sigmoid()),
        lambda L, x, h: (h * 2).sum().backward()),
    "backward/retain_false_create_true": lambda L, d: run_twice(
        L, d, lambda L, x: (lambda y: (y.backward(create_graph=True, retain_graph=False), y)[1])((x.exp()).sum()),
        lambda L, x, y: y.backward()),
    "backward/create_graph_then_grad_of_grad": lambda L, d: (lambda x: (
        (x ** 3).sum().backward(create_graph=True), L.autograd.grad(x.grad.sum(), x))[1])(leaf(L, d)),
    "backward/inputs_tensor_not_list": lambda L, d: (lambda x, w: (
        (x * w).sum().backward(inputs=x), x.grad, w.grad)[1:])(
        leaf(L, d), leaf(L, d)),
    "backward/inputs_tuple": lambda L, d: (lambda x, w: ((x * w).sum().backward(inputs=(w,)), x.grad, w.grad)[1:])(
        leaf(L, d), leaf(L, d)),
    "backward/inputs_generator": lambda L, d: (lambda x: ((x * x).sum().backward(inputs=(t for t in [x])), x.grad)[1])(
        leaf(L, d)),
    "backward/inputs_number": lambda L, d: leaf(L, d).sum().backward(inputs=[1.0]),
    "backward/inputs_none": lambda L, d: (lambda x: (x.sum().backward(inputs=None), x.grad)[1])(leaf(L, d)),
    "backward/gradient_requires_grad": lambda L, d: (lambda x, g: ((x * 2).backward(g), x.grad.requires_grad)[1])(
        leaf(L, d), leaf(L, d)),
    "backward/gradient_on_other_dtype_float32": lambda L, d: (lambda x: ((x * 2).backward(L.ones(3, device=d)),
                                                                         x.grad.dtype)[1])(leaf(L, d)),
    "backward/retain_graph_int": lambda L, d: run_twice(
        L, d, lambda L, x: (lambda y: (y.backward(retain_graph=1), y)[1])(x.exp().sum()),
        lambda L, x, y: y.backward()),
    "autograd.backward/retain_graph_int": lambda L, d: run_twice(
        L, d, lambda L, x: (lambda y: (L.autograd.backward(y, retain_graph=1), y)[1])(x.exp().sum()),
        lambda L, x, y: L.autograd.backward(y)),
    "autograd.backward/create_graph_int": lambda L, d: (lambda x: (
        L.autograd.backward((x * x).sum(), create_graph=0), x.grad)[1])(leaf(L, d)),
    "autograd.backward/inputs_generator": lambda L, d: (lambda x, w: (
        L.autograd.backward((x * w).sum(), inputs=(t for t in [w])), x.grad, w.grad)[1:])(leaf(L, d), leaf(L, d)),
    "autograd.backward/inputs_number": lambda L, d: L.autograd.backward(leaf(L, d).sum(), inputs=[1.0]),
    "autograd.backward/inputs_none_item": lambda L, d: L.autograd.backward(leaf(L, d).sum(), inputs=[None]),
    "backward/leaf_itself": lambda L, d: (lambda x: (x.backward(L.ones(3, device=d, dtype=L.float64)), x.grad)[1])(
        leaf(L, d)),
    "backward/leaf_scalar": lambda L, d: (lambda x: (x.backward(), x.grad)[1])(
        R(L, (), d).requires_grad_()),
    # ---- torch.autograd.grad combinations
    "grad/outputs_list_inputs_tuple": lambda L, d: (lambda x: L.autograd.grad([x.sum(), (x * x).sum()], (x,)))(
        leaf(L, d)),
    "grad/inputs_generator": lambda L, d: (lambda x: L.autograd.grad(x.sum(), (t for t in [x])))(leaf(L, d)),
    "grad/inputs_list_with_repeat": lambda L, d: (lambda x: L.autograd.grad((x * x).sum(), [x, x]))(leaf(L, d)),
    "grad/unused_materialize_allow_unused": lambda L, d: (lambda x, w: L.autograd.grad(
        x.sum(), [x, w], allow_unused=True, materialize_grads=True))(leaf(L, d), leaf(L, d)),
    "grad/allow_unused_none_entry": lambda L, d: (lambda x, w: L.autograd.grad(x.sum(), [x, w], allow_unused=True))(
        leaf(L, d), leaf(L, d)),
    "grad/only_inputs_false": lambda L, d: (lambda x: L.autograd.grad(x.sum(), x, only_inputs=False))(leaf(L, d)),
    "grad/grad_outputs_requires_grad": lambda L, d: (lambda x, g: L.autograd.grad(
        x * 2, x, g, create_graph=True)[0].requires_grad)(leaf(L, d), leaf(L, d)),
    "grad/grad_outputs_tuple_none": lambda L, d: (lambda x: L.autograd.grad((x.sum(),), x, (None,)))(leaf(L, d)),
    "grad/grad_outputs_number": lambda L, d: (lambda x: L.autograd.grad(x.sum(), x, 2.0))(leaf(L, d)),
    "grad/grad_outputs_list_of_number": lambda L, d: (lambda x: L.autograd.grad(x.sum(), x, [2.0]))(leaf(L, d)),
    "grad/outputs_not_requiring_allow_unused": lambda L, d: L.autograd.grad(
        R(L, (3,), d).sum(), leaf(L, d), allow_unused=True),
    "grad/outputs_empty_list": lambda L, d: L.autograd.grad([], [leaf(L, d)]),
    "grad/inputs_number": lambda L, d: L.autograd.grad(leaf(L, d).sum(), [1.0]),
    "grad/inputs_int_tensor": lambda L, d: L.autograd.grad(leaf(L, d).sum(), T(L, [1, 2], d)),
    "grad/is_grads_batched_ok": lambda L, d: batched_grad(L, d),
    "grad/is_grads_batched_wrong_rows": lambda L, d: (lambda x: L.autograd.grad(
        x * x, x, L.ones(2, 4, device=d, dtype=L.float64), is_grads_batched=True))(leaf(L, d)),
    "grad/is_grads_batched_scalar_output": lambda L, d: (lambda x: L.autograd.grad(
        (x * x).sum(), x, L.ones(2, device=d, dtype=L.float64), is_grads_batched=True))(leaf(L, d)),
    "grad/is_grads_batched_0dim_grad": lambda L, d: (lambda x: L.autograd.grad(
        (x * x).sum(), x, L.ones((), device=d, dtype=L.float64), is_grads_batched=True))(leaf(L, d)),
    "grad/create_graph_retain_false": lambda L, d: (lambda x: (lambda y: (
        L.autograd.grad(y, x, create_graph=True, retain_graph=False), L.autograd.grad(y, x))[1])((x ** 2).sum()))(
        leaf(L, d)),
    "grad/output_is_input": lambda L, d: (lambda x: L.autograd.grad(x, x, L.ones(3, device=d, dtype=L.float64)))(
        leaf(L, d)),
    "grad/materialize_no_unused": lambda L, d: (lambda x: L.autograd.grad((x * 3).sum(), x, materialize_grads=True))(
        leaf(L, d)),
    # ---- in-place on leaves and saved tensors
    "inplace/leaf_view_add_": lambda L, d: leaf(L, d)[:2].add_(1),
    "inplace/leaf_view_under_no_grad": lambda L, d: leaf_view_no_grad(L, d),
    "inplace/leaf_unsqueeze_": lambda L, d: L.ones(6, device=d).view(2, 3).requires_grad_().unsqueeze_(0),
    "inplace/leaf_transpose_": lambda L, d: L.ones(2, 3, device=d, requires_grad=True).t_(),
    "inplace/leaf_resize_": lambda L, d: leaf(L, d).resize_(2),
    "inplace/leaf_data_add_": lambda L, d: (lambda x: (x.data.add_(1), x.requires_grad, x.is_leaf))(leaf(L, d)),
    "inplace/saved_through_view": lambda L, d: (lambda x: (lambda y: (y[:1].mul_(2), y.sum().backward()))(x.exp()))(
        leaf(L, d)),
    "inplace/saved_input_via_data": lambda L, d: (lambda x, w: (lambda y: (
        w.data.mul_(2), y.sum().backward(), x.grad)[2])(x * w))(leaf(L, d), leaf(L, d)),
    "inplace/saved_input_via_detach": lambda L, d: (lambda x, w: (lambda y: (
        w.detach().mul_(2), y.sum().backward(), x.grad)[2])(x * w))(leaf(L, d), leaf(L, d)),
    "inplace/non_leaf_then_backward_ok": lambda L, d: (lambda x: (lambda y: (
        y.add_(1), y.sum().backward(), x.grad)[2])(x * 2))(leaf(L, d)),
    "inplace/view_of_view_chain": lambda L, d: (lambda x: (lambda y: (
        y[1:][:1].mul_(3), y.sum().backward(), x.grad)[2])(x * 1))(leaf(L, d)),
    "inplace/pow_saved_exponent": lambda L, d: (lambda x, e: (lambda y: (
        e.add_(1), y.sum().backward(), x.grad)[2])(x.pow(e)))(leaf(L, d), R(L, (3,), d).abs().add(1)),
    "inplace/out_into_requires_grad": lambda L, d: L.add(R(L, (3,), d), 1, out=leaf(L, d)),
    "inplace/out_from_requires_grad": lambda L, d: L.exp(leaf(L, d), out=L.empty(3, device=d, dtype=L.float64)),
    "inplace/copy_into_leaf_view_no_grad": lambda L, d: copy_into_leaf_view_no_grad(L, d),
    # ---- version counters
    "version/view_shares": lambda L, d: (lambda x: (x[:2].add_(1), x._version))(R(L, (4,), d))[1] > 0,
    "version/out_bumps": lambda L, d: version_after(L, d, lambda x: L.add(x, 1, out=x)),
    "version/setitem_bumps": lambda L, d: version_after(L, d, lambda x: x.__setitem__(0, 2.0)),
    "version/detach_shares": lambda L, d: version_after(L, d, lambda x: x.detach().zero_()),
    "version/data_does_not_share": lambda L, d: version_after(L, d, lambda x: x.data.zero_()),
    "version/clone_independent": lambda L, d: version_after(L, d, lambda x: x.clone().zero_()),
    "version/set_attr": lambda L, d: setattr(R(L, (2,), d), "_version", 3),
    # ---- detect_anomaly
    "anomaly/forward_nan_ok": lambda L, d: anomaly_nan(L, d),
    "anomaly/backward_nan": lambda L, d: anomaly_backward_nan(L, d),
    "anomaly/check_nan_false": lambda L, d: anomaly_no_nan_check(L, d),
    "anomaly/set_detect_anomaly_int": lambda L, d: detect_anomaly_int(L),
    "anomaly/check_nan_query": lambda L, d: (lambda m: (m.__enter__(), L.is_anomaly_check_nan_enabled(),
                                                        m.__exit__(None, None, None))[1])(
        L.autograd.detect_anomaly(check_nan=False)),
    "anomaly/decorator": lambda L, d: L.autograd.detect_anomaly()(lambda: L.is_anomaly_enabled())(),
    # ---- grad mode
    "set_grad_enabled/function_form": lambda L, d: with_grad_mode(L, False, lambda: (leaf(L, d) * 2).requires_grad),
    "set_grad_enabled/decorator": lambda L, d: with_grad_mode(L, True, lambda: (
        lambda dec: (L.is_grad_enabled(), decorated(L, d, dec), L.is_grad_enabled()))(L.set_grad_enabled(False))),
    "set_grad_enabled/no_args": lambda L, d: L.set_grad_enabled(),
    "set_grad_enabled/tensor": lambda L, d: L.set_grad_enabled(T(L, True, d)),
    "set_grad_enabled/float": lambda L, d: L.set_grad_enabled(1.0),
    "set_grad_enabled/nested_restore": lambda L, d: nested_grad_modes(L),
    "no_grad/decorator": lambda L, d: decorated(L, d, L.no_grad()),
    "no_grad/decorator_bare": lambda L, d: decorated(L, d, L.no_grad),
    "no_grad/generator": lambda L, d: generator_decorated(L, d),
    "no_grad/argument": lambda L, d: (lambda r: (type(r).__name__, callable(r)))(L.no_grad(True)),
    "enable_grad/decorator_inside_no_grad": lambda L, d: (lambda f: with_grad_mode(
        L, False, lambda: f(leaf(L, d)).requires_grad))(L.enable_grad()(lambda t: t * 2)),
    "inference_mode/decorator_false": lambda L, d: decorated(L, d, L.inference_mode(False)),
    "inference_mode/decorator": lambda L, d: decorated(L, d, L.inference_mode()),
    "inference_mode/mode_str": lambda L, d: inference_mode_str(L, d),
    "is_grad_enabled/argument": lambda L, d: L.is_grad_enabled(True),
    # ---- saved tensor hooks
    "saved_hooks/identity": lambda L, d: saved_hooks(L, d, lambda t: t, lambda t: t),
    "saved_hooks/unpack_wrong_shape": lambda L, d: saved_hooks(L, d, lambda t: t, lambda t: t[:1]),
    "saved_hooks/unpack_none": lambda L, d: saved_hooks(L, d, lambda t: t, lambda t: None),
    "saved_hooks/unpack_number": lambda L, d: saved_hooks(L, d, lambda t: t, lambda t: 1.0),
    "saved_hooks/pack_to_number": lambda L, d: saved_hooks(L, d, lambda t: 2.0, lambda p: L.full(
        (3,), p, device=d, dtype=L.float64)),
    "saved_hooks/pack_raises": lambda L, d: saved_hooks(L, d, lambda t: 1 / 0, lambda t: t),
    "saved_hooks/not_callable": lambda L, d: saved_hooks(L, d, None, None),
    "saved_hooks/unpack_other_dtype": lambda L, d: saved_hooks(L, d, lambda t: t, lambda t: t.float()),
    "save_on_cpu/ok": lambda L, d: save_on_cpu(L, d),
    "disable_saved_hooks/message": lambda L, d: disabled_saved_hooks(L, d),
    # ---- .grad and requires_grad of non-leaves
    "non_leaf/grad_attr_none": lambda L, d: (lambda y: (y.sum().backward(), y.grad)[1])(leaf(L, d) * 2),
    "non_leaf/requires_grad_false_attr": lambda L, d: setattr(leaf(L, d) * 2, "requires_grad", False),
    "non_leaf/requires_grad_true_attr_noop": lambda L, d: (lambda y: (setattr(y, "requires_grad", True),
                                                                     y.requires_grad)[1])(leaf(L, d) * 2),
    "non_leaf/retain_grad_then_backward_twice_acc": lambda L, d: (lambda x: (lambda y: (
        y.retain_grad(), y.sum().backward(retain_graph=True), y.sum().backward(), y.grad)[3])(x * 2))(leaf(L, d)),
    "non_leaf/is_leaf_after_detach_": lambda L, d: (lambda y: (y.detach_(), y.is_leaf, y.requires_grad))(
        leaf(L, d) * 2),
    "leaf/grad_assign_requires_grad": lambda L, d: (lambda x: (
        setattr(x, "grad", leaf(L, d)), x.grad.requires_grad)[1])(
        leaf(L, d)),
    "leaf/grad_assign_other_device_cpu": lambda L, d: (lambda x: setattr(x, "grad", R(L, (3,), "cpu")))(leaf(L, d)),
    "leaf/grad_del": lambda L, d: (lambda x: (x.sum().backward(), x.__delattr__("grad"), x.grad)[2])(leaf(L, d)),
    "leaf/requires_grad_on_view_of_leaf": lambda L, d: R(L, (3,), d)[:2].requires_grad_(),
    "leaf/requires_grad_param_name": lambda L, d: R(L, (3,), d).requires_grad_(requires_grad=False).requires_grad,
    "grad_fn/next_functions_leaf": lambda L, d: [type(f[0]).__name__ if f[0] is not None else None
                                                 for f in (leaf(L, d) * 2).grad_fn.next_functions],
    "grad_fn/name": lambda L, d: (leaf(L, d) * 2).grad_fn.name(),
    "grad_fn/call_directly": lambda L, d: (leaf(L, d) * 2).grad_fn(L.ones(3, device=d, dtype=L.float64)),
    "inference_mode/created_tensor": lambda L, d: created_in_inference_mode(L, d),
    "inference_mode/tensor_in_backward": lambda L, d: backward_of_inference_tensor(L, d),
    "backward/nan_loss_no_anomaly": lambda L, d: (lambda x: (lambda y: (y.backward(), x.grad)[1])(
        (x * math.nan).sum()))(leaf(L, d)),
}

_CYCLE = ("same as PyTorch: backward(create_graph=True) stores a .grad whose graph holds the leaf (PyTorch warns "
          "of this reference cycle and documents the leak; set .grad = None to free it)")
KNOWN = {
    "backward/create_graph_then_grad_of_grad": _CYCLE,
    "backward/retain_false_create_true": _CYCLE,
    "backward/twice_through_view": "intended: tandem's mul by a Python number saves the number, not a wrapped 0-d "
                                   "tensor, so nothing of x * 1 is freed and a second backward through it works "
                                   "(as PyTorch's x + 1 does); PyTorch frees the wrapped scalar and raises",
    "grad/is_grads_batched_wrong_rows": "PyTorch's message prints grad_output[0][0]'s trailing shape (its "
                                        "_calculate_shape gets grad[0] and drops one more dim: torch.Size([])); "
                                        "tandem prints grad_output's shape past the batch dim (RuntimeError both)",
    "grad_fn/call_directly": "intended: grad_fn(g) runs the node as PyTorch's does, but a Python number operand is "
                             "not an edge in tandem (see grad_fn/next_functions_leaf), so x * 2's node gives one "
                             "gradient where PyTorch's gives (gradient, None)",
    "grad_fn/next_functions_leaf": "intended: tandem has one Node class (name() gives PyTorch's node names: "
                                   "AccumulateGrad, MulBackward0), and a Python number operand is not an edge, so "
                                   "x * 2 has one next function (PyTorch: the wrapped scalar's None edge too)",
    "inference_mode/created_tensor": "tandem's inference_mode does not mark the tensors it makes (docs/compat.md, "
                                     "Autograd): is_inference() is False",
    "inference_mode/tensor_in_backward": "as inference_mode/created_tensor: a tensor made in inference mode can be "
                                         "saved for backward",
    "is_grad_enabled/argument": "needs C++: is_grad_enabled is the bare binding (python/src/autograd.cpp; nanobind's "
                                "overload error); PyTorch says \"torch.is_grad_enabled() takes no arguments (1 "
                                "given)\" (TypeError both)",
    "leaf/grad_assign_other_device_cpu": "on a GPU only: a CPU gradient for a GPU tensor is refused with PyTorch's "
                                         "own CUDA message; the oracle runs on the CPU, where both take it",
}
