"""Custom autograd.Function backward results, written as a matrix: one forward (x * 2, x float32 of shape (2, 3))
crossed with backwards that return a gradient of another shape (broadcastable, 0-d, too small, transposed, a
different numel), dtype (float64, float16, int64, bool, complex), as an expanded or non-contiguous tensor, a
Python number, a NumPy array, a list, a tuple of the wrong length, a gradient that requires grad, NaN, and
gradients for inputs that do not require them; then forwards that return odd outputs (non-tensors mixed in, None,
a view of the input without mark_dirty, an input modified in place without mark_dirty, an integer tensor), save
non-tensors or intermediates, mark things they should not, and the apply forms (no args, kwargs, tensors inside a
list, only non-tensor args), forward-mode AD and vmap without a jvp or vmap rule."""
import numpy as np

from . import R


def leaf(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype).requires_grad_()


def fn_class(L, forward, backward, **extra):
    body = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    body.update({k: (staticmethod(v) if callable(v) else v) for k, v in extra.items()})
    return type("Fn", (L.autograd.Function,), body)


def _twice(ctx, x):
    return x * 2


def grad_of(backward, shape=(2, 3), dtype="float32", forward=_twice):
    """x.grad after apply(x).sum().backward() with the given backward."""
    def fn(L, d):
        x = leaf(L, d, shape, dtype)
        out = fn_class(L, forward, backward).apply(x)
        out.sum().backward()
        return x.grad
    return fn


def _lib(g):
    """The library the gradient g belongs to (the backward runs inside one of them)."""
    import importlib
    return importlib.import_module(type(g).__module__.split(".")[0])


def _make(make):
    """A backward that returns make(L, g)."""
    return lambda ctx, g: make(_lib(g), g)


BACKWARDS = {
    "ok": lambda L, g: g * 2,
    "0d": lambda L, g: g.sum(),
    "row_broadcastable": lambda L, g: g[:1] * 2,
    "column_broadcastable": lambda L, g: g[:, :1] * 2,
    "too_small": lambda L, g: g[:, :2],
    "transposed": lambda L, g: g.t(),
    "flat_same_numel": lambda L, g: g.reshape(6),
    "extra_leading_one": lambda L, g: g.unsqueeze(0),
    "extra_leading_two": lambda L, g: L.stack([g, g]),
    "empty": lambda L, g: g[:0],
    "float64": lambda L, g: g.double() * 2,
    "float16": lambda L, g: g.half() * 2,
    "int64": lambda L, g: (g * 2).long(),
    "bool": lambda L, g: g > 0,
    "complex": lambda L, g: g.to(L.complex64),
    "expanded": lambda L, g: L.ones(1, 3, device=g.device).expand(2, 3),
    "non_contiguous": lambda L, g: (g * 2).t().contiguous().t(),
    "python_float": lambda L, g: 2.0,
    "python_int": lambda L, g: 2,
    "numpy_array": lambda L, g: np.ones((2, 3), dtype=np.float32),
    "list": lambda L, g: [g],
    "str": lambda L, g: "g",
    "requires_grad": lambda L, g: g * L.ones(1, requires_grad=True, device=g.device),
    "nan": lambda L, g: g * float("nan"),
    "none": lambda L, g: None,
    "tuple_two": lambda L, g: (g, g),
    "tuple_two_nones": lambda L, g: (g, None),
    "empty_tuple": lambda L, g: (),
    "nested_tuple": lambda L, g: ((g,),),
}

CASES = {f"backward_returns/{name}": grad_of(_make(make)) for name, make in BACKWARDS.items()}


def _two_inputs(ctx, x, y):
    return x * y


def _only_second(ctx, x, y):
    return x * 0 + y * 2


def _two_grads(make):
    """x and y (only x requires grad) through x * y, with backward returning make(L, g) for both."""
    def fn(L, d):
        x = leaf(L, d)
        y = R(L, (2, 3), d, "float32")
        out = fn_class(L, _two_inputs, lambda ctx, g: make(_lib(g), g)).apply(x, y)
        out.sum().backward()
        return x.grad
    return fn


def _add_int(ctx, x, n):
    return x * n


def _nontensor_forward(out):
    def forward(ctx, x):
        return out(_lib(x), x)

    def fn(L, d):
        x = leaf(L, d)
        r = fn_class(L, forward, lambda ctx, *g: g[0] * 2).apply(x)
        return r
    return fn


def _backward_through(out):
    def forward(ctx, x):
        return out(_lib(x), x)

    def fn(L, d):
        x = leaf(L, d)
        r = fn_class(L, forward, lambda ctx, *g: g[0] * 2 if g[0] is not None else None).apply(x)
        first = r[0] if isinstance(r, tuple) else r
        first.sum().backward()
        return x.grad
    return fn


def _save_and_use(save):
    def forward(ctx, x):
        L = _lib(x)
        ctx.save_for_backward(*save(L, x))
        return x * 2

    def backward(ctx, g):
        ctx.saved_tensors
        return g * 2

    def fn(L, d):
        x = leaf(L, d)
        fn_class(L, forward, backward).apply(x).sum().backward()
        return x.grad
    return fn


def _view_no_dirty(ctx, x):
    return x.view(6)


def _inplace_no_dirty(ctx, x):
    x.mul_(2)
    return x


def _inplace_nonleaf(L, d):
    x = leaf(L, d)
    y = x * 1
    out = fn_class(L, _inplace_no_dirty, lambda ctx, g: g * 2).apply(y)
    out.sum().backward()
    return x.grad, y


def _mark_dirty_output(ctx, x):
    y = x * 2
    ctx.mark_dirty(y)
    return y


def _mark_nd_input(ctx, x):
    ctx.mark_non_differentiable(x)
    return x * 2


def _mark_nd_nontensor(ctx, x):
    ctx.mark_non_differentiable(3)
    return x * 2


def _apply_with(args_of, kwargs_of=lambda L, x: {}):
    def fn(L, d):
        x = leaf(L, d)
        F = fn_class(L, lambda ctx, *a, **k: a[0] * 2 if a else None, lambda ctx, g: g)
        return F.apply(*args_of(L, x), **kwargs_of(L, x))
    return fn


def _fwad(L, d):
    x = R(L, (2, 3), d, "float32")
    F = fn_class(L, _twice, lambda ctx, g: g * 2)
    with L.autograd.forward_ad.dual_level():
        dual = L.autograd.forward_ad.make_dual(x, L.ones_like(x))
        out = F.apply(dual)
        return L.autograd.forward_ad.unpack_dual(out).tangent


def _vmap(L, d):
    F = fn_class(L, _twice, lambda ctx, g: g * 2)
    return L.func.vmap(F.apply)(R(L, (2, 3), d, "float32"))


def _vmap_generated(L, d):
    def forward(x):
        return x * 2

    def setup_context(ctx, inputs, output):
        pass

    F = fn_class(L, forward, lambda ctx, g: g * 2, setup_context=setup_context, generate_vmap_rule=True)
    return L.func.vmap(F.apply)(R(L, (2, 3), d, "float32"))


def _grad_of_function_without_setup(L, d):
    F = fn_class(L, _twice, lambda ctx, g: g * 2)
    return L.func.grad(lambda x: F.apply(x).sum())(R(L, (2, 3), d, "float32"))


CASES.update({
    "second_input/grad_for_non_requiring": _two_grads(lambda L, g: (g, g)),
    "second_input/none_for_requiring": lambda L, d: (lambda x, y: (
        fn_class(L, _only_second, lambda ctx, g: (None, g * 2)).apply(x, y).sum().backward(), x.grad, y.grad))(
        leaf(L, d), leaf(L, d))[1:],
    "second_input/wrong_shape_for_non_requiring": _two_grads(lambda L, g: (g, g[:1, :1].reshape(1))),
    "second_input/wrong_shape_second_requiring": lambda L, d: (lambda x, y: (
        fn_class(L, _two_inputs, lambda ctx, g: (g, g[:, :1].sum(0))).apply(x, y).sum().backward(), y.grad))(
        leaf(L, d), leaf(L, d))[1],
    "int_arg/grad_tensor": lambda L, d: (lambda x: (fn_class(L, _add_int, lambda ctx, g: (g * 3, g)).apply(x, 3)
                                                    .sum().backward(), x.grad))(leaf(L, d))[1],
    "int_arg/grad_number": lambda L, d: (lambda x: (fn_class(L, _add_int, lambda ctx, g: (g * 3, 1.0)).apply(x, 3)
                                                    .sum().backward(), x.grad))(leaf(L, d))[1],
    "forward_returns/int_and_tensor": _nontensor_forward(lambda L, x: (3, x * 2)),
    "forward_returns/tensor_and_none": _backward_through(lambda L, x: (x * 2, None)),
    "forward_returns/tensor_and_str": _backward_through(lambda L, x: (x * 2, "s")),
    "forward_returns/int_tensor": _nontensor_forward(lambda L, x: (x * 2).long()),
    "forward_returns/int_tensor_backward": _backward_through(lambda L, x: (x * 2).long()),
    "forward_returns/bool_tensor_requires_grad": lambda L, d: _nontensor_forward(
        lambda L, x: x > 0)(L, d).requires_grad,
    "forward_returns/float_requires_grad_flag": lambda L, d: _nontensor_forward(
        lambda L, x: x * 2)(L, d).requires_grad,
    "forward_returns/empty_tuple": _nontensor_forward(lambda L, x: ()),
    "forward_returns/numpy": lambda L, d: type(_nontensor_forward(lambda L, x: np.zeros(2))(L, d)).__name__,
    "forward_returns/same_tensor_twice": _backward_through(lambda L, x: ((y := x * 2), y)),
    "forward_returns/detached": _backward_through(lambda L, x: (x * 2).detach()),
    "forward_returns/new_leaf": _backward_through(lambda L, x: L.ones(2, 3, device=x.device)),
    "forward/view_without_dirty": lambda L, d: (lambda x: (fn_class(L, _view_no_dirty, lambda ctx, g: g.view(2, 3))
                                                          .apply(x).sum().backward(), x.grad))(leaf(L, d))[1],
    "forward/view_without_dirty_then_inplace": lambda L, d: (lambda x: fn_class(
        L, _view_no_dirty, lambda ctx, g: g.view(2, 3)).apply(x).mul_(2))(leaf(L, d)),
    "forward/inplace_leaf_without_dirty": lambda L, d: (lambda x: (fn_class(L, _inplace_no_dirty, lambda ctx, g: g)
                                                                   .apply(x).sum().backward(), x.grad))(leaf(L, d))[1],
    "forward/inplace_nonleaf_without_dirty": _inplace_nonleaf,
    "forward/mark_dirty_output": lambda L, d: fn_class(L, _mark_dirty_output, lambda ctx, g: g).apply(leaf(L, d)),
    "forward/mark_non_differentiable_input": lambda L, d: fn_class(L, _mark_nd_input, lambda ctx, g: g).apply(
        leaf(L, d)).requires_grad,
    "forward/mark_non_differentiable_number": lambda L, d: fn_class(L, _mark_nd_nontensor, lambda ctx, g: g).apply(
        leaf(L, d)),
    "save/int": _save_and_use(lambda L, x: (3,)),
    "save/list_of_tensors": _save_and_use(lambda L, x: ([x],)),
    "save/intermediate": _save_and_use(lambda L, x: (x * 3,)),
    "save/numpy": _save_and_use(lambda L, x: (np.zeros(1),)),
    "save/none_only": _save_and_use(lambda L, x: (None,)),
    "save/same_twice": _save_and_use(lambda L, x: (x, x)),
    "apply/no_args": _apply_with(lambda L, x: ()),
    "apply/kwarg_tensor": _apply_with(lambda L, x: (), lambda L, x: {"x": x}),
    "apply/list_of_tensors": lambda L, d: fn_class(L, lambda ctx, xs: xs[0] * 2, lambda ctx, g: None).apply(
        [leaf(L, d)]).requires_grad,
    "apply/only_numbers": lambda L, d: fn_class(L, lambda ctx, a: a * 2, lambda ctx, g: g).apply(3),
    "apply/on_instance": lambda L, d: fn_class(L, _twice, lambda ctx, g: g)().apply(leaf(L, d)).shape,
    "forward_ad/no_jvp": _fwad,
    "vmap/no_rule": _vmap,
    "vmap/generated_rule": _vmap_generated,
    "func_grad/no_setup_context": _grad_of_function_without_setup,
})

KNOWN = {
    "forward_ad/no_jvp": "by design (docs/autograd.md, forward_ad.py): tandem's forward mode is the double-backward "
                         "trick, so a custom Function's tangent comes from its backward and a Function without jvp "
                         "works; PyTorch's forward mode needs the jvp staticmethod",
}
