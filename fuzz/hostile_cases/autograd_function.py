"""Custom torch.autograd.Function misuse beyond autograd_api.py's: mark_dirty and mark_non_differentiable used
wrongly, saved tensors read twice, after the graph is freed or after an in-place write, non-tensors saved,
needs_input_grad, set_materialize_grads, once_differentiable under double backward, the setup_context form, the
legacy (non-static) form, forward returning odd things, backward returning extra Nones or gradients for
non-tensor inputs."""
from . import R


def leaf(L, d, shape=(3,), dtype="float64"):
    return R(L, shape, d, dtype).requires_grad_()


def fn_class(L, forward, backward, name="Fn", **extra):
    """An autograd.Function subclass (one per library) with the given static forward and backward."""
    body = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    body.update({k: staticmethod(v) for k, v in extra.items()})
    return type(name, (L.autograd.Function,), body)


def grads(L, d, forward, backward, n_inputs=1, extra_args=(), **extra):
    """apply(x0, ..., *extra_args).sum().backward(): the leaves' gradients."""
    xs = [leaf(L, d) for _ in range(n_inputs)]
    out = fn_class(L, forward, backward, **extra).apply(*xs, *extra_args)
    if isinstance(out, (tuple, list)):
        out = out[0]
    out.sum().backward()
    return tuple(x.grad for x in xs)


# ---- forwards and backwards (plain functions, used for both libraries)
def _twice(ctx, x):
    return x * 2


def _twice_saving(ctx, x):
    ctx.save_for_backward(x)
    return x * 2


def _read_saved_twice(ctx, g):
    (x,) = ctx.saved_tensors
    (x2,) = ctx.saved_tensors
    return g * 2 + x * 0 + x2 * 0


def _dirty_inplace(ctx, x):
    x.mul_(2)
    ctx.mark_dirty(x)
    return x


def _save_none(ctx, x):
    ctx.save_for_backward(None, x)
    return x * 2


def _read_none_saved(ctx, g):
    none, x = ctx.saved_tensors
    return g * 2 if none is None else g * 0


def _save_list(ctx, x):
    ctx.save_for_backward([x])
    return x * 2


def _save_output(ctx, x):
    y = x.exp()
    ctx.save_for_backward(y)
    return y


def _grad_from_output(ctx, g):
    (y,) = ctx.saved_tensors
    return g * y


def _needs_input_grad(ctx, x, y):
    ctx.flags = ctx.needs_input_grad
    return x * y


def _return_flags_as_grads(ctx, g):
    return (g * 2 if ctx.flags[0] else None), (g * 3 if ctx.flags[1] else None)


def _two_outputs(ctx, x):
    return x * 2, x * 3


def _nonmaterialized(ctx, x):
    ctx.set_materialize_grads(False)
    return x * 2, x * 3


def _backward_counts_none(ctx, g1, g2):
    """The gradients that came as tensors (not None), scaled, plus 100 for each: what arrived shows in the values."""
    present = [g * k for g, k in ((g1, 2), (g2, 3)) if g is not None]
    return present[0] + 100 * len(present)


def _backward_sum_two(ctx, g1, g2):
    return g1 * 2 + g2 * 3


def _mark_non_diff_input(ctx, x):
    ctx.mark_non_differentiable(x)
    return x * 2


def _non_diff_second(ctx, x):
    a, b = x * 2, (x > 0)
    ctx.mark_non_differentiable(b)
    return a, b


def _grad_first_only(ctx, g1, g2):
    return g1 * 2


def _mark_dirty_twice(ctx, x):
    x.add_(1)
    ctx.mark_dirty(x, x)
    return x


def _return_int(ctx, x):
    return 3


def _return_none(ctx, x):
    return None


def _return_list(ctx, x):
    return [x * 2, x * 3]


def _return_dict(ctx, x):
    return {"a": x * 2}


def _return_view(ctx, x):
    return x.view(-1)


def _return_input_unchanged(ctx, x):
    return x


def _grad_identity(ctx, g):
    return g


def _grad_times_2(ctx, g):
    return g * 2


def _grad_extra_none(ctx, g):
    return g * 2, None


def _grad_extra_tensor(ctx, g):
    return g * 2, g


def _grad_for_int_arg(ctx, g):
    return g * 2, g


def _with_int_arg(ctx, x, k):
    ctx.k = k
    return x * k


def _grad_uses_k(ctx, g):
    return g * ctx.k, None


def _grad_list(ctx, g):
    return [g * 2]


def _grad_generator(ctx, g):
    return (t for t in [g * 2])


def _grad_int_dtype(ctx, g):
    return (g * 2).long()


def _grad_complex(ctx, g):
    return g * (1 + 1j)


def _grad_requires_saved_after_free(ctx, g):
    (x,) = ctx.saved_tensors
    return g * x


def _setup_forward(x, k):
    return x * k


def _setup_context(ctx, inputs, output):
    x, k = inputs
    ctx.k = k
    ctx.save_for_backward(x)


def _setup_backward(ctx, g):
    return g * ctx.k, None


def _setup_forward_with_ctx(ctx, x, k):
    return x * k


def _double_backward_fn(L, d, decorate):
    """x**2 through a Function whose backward is (or is not) once_differentiable; then the second derivative."""
    def fwd(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    def bwd(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x

    backward = L.autograd.function.once_differentiable(bwd) if decorate else bwd
    Fn = type("Sq", (L.autograd.Function,), {"forward": staticmethod(fwd), "backward": staticmethod(backward)})
    x = leaf(L, d)
    (g,) = L.autograd.grad(Fn.apply(x).sum(), x, create_graph=True)
    return L.autograd.grad(g.sum(), x)


def saved_after_inplace(L, d):
    x = leaf(L, d)
    y = x * 1
    out = fn_class(L, _twice_saving, _grad_requires_saved_after_free).apply(y)
    y.add_(1)
    out.sum().backward()
    return x.grad


def backward_twice(L, d, retain):
    x = leaf(L, d)
    out = fn_class(L, _twice_saving, _grad_requires_saved_after_free).apply(x).sum()
    out.backward(retain_graph=retain)
    out.backward()
    return x.grad


def saved_tensors_outside_backward(L, d):
    box = {}

    def fwd(ctx, x):
        ctx.save_for_backward(x)
        box["ctx"] = ctx
        return x * 2

    fn_class(L, fwd, _grad_times_2).apply(leaf(L, d))
    return len(box["ctx"].saved_tensors)


def dirty_leaf(L, d):
    return grads(L, d, _dirty_inplace, _grad_times_2)


def dirty_non_leaf(L, d):
    x = leaf(L, d)
    y = x * 1
    out = fn_class(L, _dirty_inplace, _grad_times_2).apply(y)
    out.sum().backward()
    return x.grad, out is y


def dirty_no_grad_input(L, d):
    x = R(L, (3,), d)
    out = fn_class(L, _dirty_inplace, _grad_times_2).apply(x)
    return out, out.requires_grad


def non_diff_output(L, d):
    x = leaf(L, d)
    a, b = fn_class(L, _non_diff_second, _grad_first_only).apply(x)
    a.sum().backward()
    return x.grad, b.requires_grad, b.dtype


def non_diff_backward_through(L, d):
    x = leaf(L, d)
    a, b = fn_class(L, _non_diff_second, _grad_first_only).apply(x)
    b.float().sum().backward()


def needs_input_grad_flags(L, d):
    x, y = leaf(L, d), R(L, (3,), d)
    fn_class(L, _needs_input_grad, _return_flags_as_grads).apply(x, y).sum().backward()
    return x.grad


def nonmaterialized_grads(L, d, use_first):
    x = leaf(L, d)
    a, b = fn_class(L, _nonmaterialized, _backward_counts_none).apply(x)
    (a if use_first else b).sum().backward()
    return x.grad


def materialized_grads(L, d):
    x = leaf(L, d)
    a, b = fn_class(L, _two_outputs, _backward_sum_two).apply(x)
    a.sum().backward()
    return x.grad


def int_arg(L, d, backward, k=3):
    x = leaf(L, d)
    fn_class(L, _with_int_arg, backward).apply(x, k).sum().backward()
    return x.grad


def setup_context_form(L, d):
    Fn = fn_class(L, _setup_forward, _setup_backward, setup_context=_setup_context)
    x = leaf(L, d)
    Fn.apply(x, 4).sum().backward()
    return x.grad


def setup_context_with_ctx_forward(L, d):
    Fn = fn_class(L, _setup_forward_with_ctx, _setup_backward, setup_context=_setup_context)
    return Fn.apply(leaf(L, d), 4)


def legacy_instance_call(L, d):
    Fn = fn_class(L, _twice, _grad_times_2)
    return Fn()(leaf(L, d))


def non_static_forward(L, d):
    class Fn(L.autograd.Function):
        def forward(self, x):
            return x * 2

        def backward(self, g):
            return g * 2

    return Fn.apply(leaf(L, d))


def no_backward(L, d):
    class Fn(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    x = leaf(L, d)
    Fn.apply(x).sum().backward()
    return x.grad


def apply_kwargs(L, d):
    return fn_class(L, _with_int_arg, _grad_uses_k).apply(leaf(L, d), k=2)


def forward_result(L, d, forward):
    return fn_class(L, forward, _grad_identity).apply(leaf(L, d))


def view_output_inplace(L, d):
    x = leaf(L, d)
    out = fn_class(L, _return_view, _grad_identity).apply(x)
    out.mul_(2)
    out.sum().backward()
    return x.grad


def input_returned_requires_grad(L, d):
    x = leaf(L, d)
    out = fn_class(L, _return_input_unchanged, _grad_times_2).apply(x)
    out.sum().backward()
    return x.grad, out is x


CASES = {
    # ---- saved tensors
    "saved/read_twice": lambda L, d: grads(L, d, _twice_saving, _read_saved_twice),
    "saved/none_entry": lambda L, d: grads(L, d, _save_none, _read_none_saved),
    "saved/list": lambda L, d: grads(L, d, _save_list, _grad_times_2),
    "saved/output": lambda L, d: grads(L, d, _save_output, _grad_from_output),
    "saved/modified_inplace": saved_after_inplace,
    "saved/backward_twice": lambda L, d: backward_twice(L, d, False),
    "saved/backward_twice_retained": lambda L, d: backward_twice(L, d, True),
    "saved/outside_backward": saved_tensors_outside_backward,
    # ---- mark_dirty / mark_non_differentiable
    "mark_dirty/leaf": dirty_leaf,
    "mark_dirty/non_leaf": dirty_non_leaf,
    "mark_dirty/no_grad_input": dirty_no_grad_input,
    "mark_dirty/twice_same": lambda L, d: grads(L, d, _mark_dirty_twice, _grad_identity),
    "mark_non_differentiable/input": lambda L, d: grads(L, d, _mark_non_diff_input, _grad_times_2),
    "mark_non_differentiable/second_output": non_diff_output,
    "mark_non_differentiable/backward_through": non_diff_backward_through,
    # ---- needs_input_grad, materialize_grads
    "needs_input_grad/flags": needs_input_grad_flags,
    "set_materialize_grads/false_first": lambda L, d: nonmaterialized_grads(L, d, True),
    "set_materialize_grads/false_second": lambda L, d: nonmaterialized_grads(L, d, False),
    "set_materialize_grads/default": materialized_grads,
    # ---- once_differentiable
    "once_differentiable/double_backward": lambda L, d: _double_backward_fn(L, d, True),
    "once_differentiable/plain_double_backward": lambda L, d: _double_backward_fn(L, d, False),
    # ---- forms of the class
    "setup_context/ok": setup_context_form,
    "setup_context/forward_takes_ctx": setup_context_with_ctx_forward,
    "legacy/instance_call": legacy_instance_call,
    "legacy/non_static_forward": non_static_forward,
    "no_backward": no_backward,
    "apply/kwargs": apply_kwargs,
    # ---- forward results
    "forward/returns_int": lambda L, d: forward_result(L, d, _return_int),
    "forward/returns_none": lambda L, d: forward_result(L, d, _return_none),
    "forward/returns_list": lambda L, d: type(forward_result(L, d, _return_list)).__name__,
    "forward/returns_dict": lambda L, d: type(forward_result(L, d, _return_dict)).__name__,
    "forward/view_then_inplace": view_output_inplace,
    "forward/input_returned": input_returned_requires_grad,
    # ---- backward results
    "backward/extra_none": lambda L, d: grads(L, d, _twice, _grad_extra_none),
    "backward/extra_tensor": lambda L, d: grads(L, d, _twice, _grad_extra_tensor),
    "backward/int_arg_none": lambda L, d: int_arg(L, d, _grad_uses_k),
    "backward/int_arg_tensor": lambda L, d: int_arg(L, d, _grad_for_int_arg),
    "backward/list": lambda L, d: grads(L, d, _twice, _grad_list),
    "backward/generator": lambda L, d: grads(L, d, _twice, _grad_generator),
    "backward/int_dtype": lambda L, d: grads(L, d, _twice, _grad_int_dtype),
    "backward/complex_for_real": lambda L, d: grads(L, d, _twice, _grad_complex),
}

KNOWN = {
    "saved/outside_backward": "tandem's ctx holds the saved tensors only while backward runs (the node keeps them, "
                              "so ctx makes no reference cycle through it); PyTorch's ctx reads them after forward",
}
