"""The autograd API misused: backward twice without retain_graph, backward of non-scalars without a gradient or
with one of the wrong shape/dtype/count, grad of tensors that do not require grad or are unused, in-place writes
to leaves and to saved tensors (version counters), hooks that change a gradient's shape/dtype, detach_ of views,
requires_grad on integer tensors, .grad assignments, custom Functions returning the wrong gradients, and
torch.func.grad/vmap misuse."""
from . import R, T


def leaf(L, d, shape=(3,), dtype="float32"):
    return R(L, shape, d, dtype).requires_grad_()


def grads_after(L, fn, *leaves):
    """fn() is run for its backward side effect; the leaves' gradients are the result."""
    fn()
    return tuple(t.grad for t in leaves)


def backward_twice(L, d, make, **kw):
    x = leaf(L, d)
    y = make(x)
    y.backward(**kw)
    y.backward()
    return x.grad


def modify_saved(L, d, op, inplace):
    """op's result is saved for its backward; writing to it in place must fail the backward."""
    x = leaf(L, d)
    y = op(x)
    inplace(y)
    y.sum().backward()
    return x.grad


def modify_leaf_under_no_grad(L, d):
    x = leaf(L, d)
    y = x * x
    with L.no_grad():
        x.add_(1)
    y.sum().backward()
    return x.grad


def hooked(L, d, hook):
    x = leaf(L, d)
    x.register_hook(hook)
    (x * 2).sum().backward()
    return x.grad


def hooked_intermediate(L, d, hook):
    x = leaf(L, d)
    y = x * 2
    y.register_hook(hook)
    y.sum().backward()
    return x.grad


def set_grad(L, d, value):
    x = leaf(L, d)
    x.grad = value
    return x.grad


def custom(L, backward, forward=None, name="Scale"):
    """A custom autograd.Function (one class per library) with the given backward."""
    def fwd(ctx, x, y):
        return forward(ctx, x, y) if forward else x * 2 + y
    return type(name, (L.autograd.Function,), {"forward": staticmethod(fwd), "backward": staticmethod(backward)})


def run_custom(L, d, backward, forward=None):
    x, y = leaf(L, d), leaf(L, d)
    custom(L, backward, forward).apply(x, y).sum().backward()
    return x.grad, y.grad


def _save_int(ctx, x, y):
    ctx.save_for_backward(x, 3)
    return x + y


def _dirty_not_input(ctx, x, y):
    z = x * 2
    ctx.mark_dirty(z)
    return z


def _return_input(ctx, x, y):
    return x


def _non_differentiable(ctx, x, y):
    z = x + y
    ctx.mark_non_differentiable(z)
    return z


def grad_of(L, d, **kw):
    x, w = leaf(L, d), leaf(L, d)
    return L.autograd.grad((x * 2).sum(), (x, w), **kw)


def under_no_grad(L, d):
    x = leaf(L, d)
    with L.no_grad():
        y = (x * 2).sum()
    y.backward()


def leaf_add_under_no_grad(L, d):
    x = leaf(L, d)
    with L.no_grad():
        x.add_(1)
    return x, x.requires_grad


def enable_inside_no_grad(L, d):
    x = leaf(L, d)
    with L.no_grad():
        with L.enable_grad():
            return (x * 2).requires_grad


def inference_tensor_saved(L, d):
    with L.inference_mode():
        t = R(L, (3,), d)
    (leaf(L, d) * t).sum().backward()


def grad_mode_set(L, mode):
    """set_grad_enabled(mode), the grad mode restored after (the cases share one process)."""
    try:
        L.set_grad_enabled(mode)
        return L.is_grad_enabled()
    finally:
        L.set_grad_enabled(True)


def vmapped(L, d, fn, *args, **kw):
    return L.func.vmap(fn, **kw)(*args)


CASES = {
    # ---- backward twice, retain_graph
    "backward/twice_saved": lambda L, d: backward_twice(L, d, lambda x: (x * x).sum()),
    "backward/twice_retained": lambda L, d: backward_twice(L, d, lambda x: (x * x).sum(), retain_graph=True),
    "backward/twice_nothing_saved": lambda L, d: backward_twice(L, d, lambda x: (x + 1).sum()),
    "backward/twice_exp": lambda L, d: backward_twice(L, d, lambda x: x.exp().sum()),
    "backward/twice_sigmoid_retained": lambda L, d: backward_twice(L, d, lambda x: x.sigmoid().sum(),
                                                                   retain_graph=True),
    "autograd.grad/twice": lambda L, d: (lambda x: (lambda y: (L.autograd.grad(y, x), L.autograd.grad(y, x)))(
        (x * x).sum()))(leaf(L, d)),
    "autograd.grad/twice_retained": lambda L, d: (lambda x: (lambda y: (
        L.autograd.grad(y, x, retain_graph=True), L.autograd.grad(y, x)))((x * x).sum()))(leaf(L, d)),
    # ---- non-scalar outputs, gradients of the wrong shape/dtype/count
    "backward/non_scalar": lambda L, d: (leaf(L, d) * 2).backward(),
    "backward/non_scalar_gradient": lambda L, d: (lambda x: grads_after(L, lambda: (x * 2).backward(
        L.ones(3, device=d)), x))(leaf(L, d)),
    "backward/gradient_wrong_shape": lambda L, d: (leaf(L, d) * 2).backward(L.ones(2, device=d)),
    "backward/gradient_broadcastable_shape": lambda L, d: (leaf(L, d, (2, 3)) * 2).backward(L.ones(3, device=d)),
    "backward/gradient_float64": lambda L, d: (lambda x: grads_after(L, lambda: (x * 2).backward(
        L.ones(3, device=d, dtype=L.float64)), x))(leaf(L, d)),
    "backward/gradient_int": lambda L, d: (lambda x: grads_after(L, lambda: (x * 2).backward(
        L.ones(3, device=d, dtype=L.int64)), x))(leaf(L, d)),
    "backward/gradient_complex": lambda L, d: (leaf(L, d) * 2).backward(L.ones(3, device=d, dtype=L.complex64)),
    "backward/gradient_number": lambda L, d: (leaf(L, d) * 2).sum().backward(2.0),
    "backward/gradient_0dim_for_scalar": lambda L, d: (lambda x: grads_after(L, lambda: (x * 2).sum().backward(
        T(L, 3.0, d)), x))(leaf(L, d)),
    "backward/gradient_1elem_for_scalar": lambda L, d: (leaf(L, d) * 2).sum().backward(T(L, [3.0], d)),
    "backward/complex_scalar": lambda L, d: (leaf(L, d) * (1 + 1j)).sum().backward(),
    "backward/not_requiring_grad": lambda L, d: R(L, (3,), d).sum().backward(),
    "backward/under_no_grad": lambda L, d: under_no_grad(L, d),
    "backward/int_output": lambda L, d: (leaf(L, d) > 0).sum().backward(),
    "backward/inputs_empty": lambda L, d: (leaf(L, d) * 2).sum().backward(inputs=[]),
    "backward/inputs_non_leaf": lambda L, d: (lambda x: (lambda y: (y.sum().backward(inputs=[y]), y.grad)[1])(
        x * 2))(leaf(L, d)),
    "backward/inputs_unrelated": lambda L, d: (lambda x, w: grads_after(L, lambda: (x * 2).sum().backward(
        inputs=[w]), x, w))(leaf(L, d), leaf(L, d)),
    "backward/inputs_not_requiring": lambda L, d: (leaf(L, d) * 2).sum().backward(inputs=[R(L, (3,), d)]),
    "autograd.backward/grad_count_mismatch": lambda L, d: L.autograd.backward(
        [(leaf(L, d) * 2).sum(), (leaf(L, d) * 3).sum()], [T(L, 1.0, d)]),
    "autograd.backward/tensors_empty": lambda L, d: L.autograd.backward([]),
    "autograd.backward/not_tensor": lambda L, d: L.autograd.backward([1.0]),
    # ---- autograd.grad
    "autograd.grad/input_not_requiring": lambda L, d: L.autograd.grad((leaf(L, d) * 2).sum(), R(L, (3,), d)),
    "autograd.grad/unused": lambda L, d: grad_of(L, d),
    "autograd.grad/allow_unused": lambda L, d: grad_of(L, d, allow_unused=True),
    "autograd.grad/materialize": lambda L, d: grad_of(L, d, allow_unused=True, materialize_grads=True),
    "autograd.grad/materialize_without_allow": lambda L, d: grad_of(L, d, materialize_grads=True),
    "autograd.grad/materialize_allow_false": lambda L, d: grad_of(L, d, allow_unused=False, materialize_grads=True),
    "autograd.grad/non_scalar": lambda L, d: (lambda x: L.autograd.grad(x * 2, x))(leaf(L, d)),
    "autograd.grad/grad_outputs_shape": lambda L, d: (lambda x: L.autograd.grad(x * 2, x, L.ones(4, device=d)))(
        leaf(L, d)),
    "autograd.grad/grad_outputs_dtype": lambda L, d: (lambda x: L.autograd.grad(
        x * 2, x, L.ones(3, device=d, dtype=L.float64)))(leaf(L, d)),
    "autograd.grad/grad_outputs_complex": lambda L, d: (lambda x: L.autograd.grad(
        x * 2, x, L.ones(3, device=d, dtype=L.complex64)))(leaf(L, d)),
    "autograd.grad/grad_outputs_count": lambda L, d: (lambda x: L.autograd.grad(
        [x * 2, x * 3], x, [L.ones(3, device=d)]))(leaf(L, d)),
    "autograd.grad/grad_outputs_none_entry": lambda L, d: (lambda x: L.autograd.grad(
        [(x * 2).sum(), x * 3], x, [None, L.ones(3, device=d)]))(leaf(L, d)),
    "autograd.grad/outputs_empty": lambda L, d: L.autograd.grad([], [leaf(L, d)]),
    "autograd.grad/inputs_empty": lambda L, d: L.autograd.grad((leaf(L, d) * 2).sum(), []),
    "autograd.grad/output_not_requiring": lambda L, d: L.autograd.grad(R(L, (3,), d).sum(), leaf(L, d)),
    "autograd.grad/input_non_leaf": lambda L, d: (lambda x: (lambda y: L.autograd.grad((y * y).sum(), y))(x * 2))(
        leaf(L, d)),
    "autograd.grad/create_graph": lambda L, d: (lambda x: L.autograd.grad(
        L.autograd.grad((x ** 3).sum(), x, create_graph=True)[0].sum(), x))(leaf(L, d)),
    "autograd.grad/second_without_create_graph": lambda L, d: (lambda x: L.autograd.grad(
        L.autograd.grad((x ** 3).sum(), x)[0].sum(), x))(leaf(L, d)),
    "autograd.grad/is_grads_batched_shape": lambda L, d: (lambda x: L.autograd.grad(
        x * 2, x, L.ones(3, device=d), is_grads_batched=True))(leaf(L, d)),
    # ---- in-place writes to leaves and to saved tensors
    "inplace/leaf": lambda L, d: leaf(L, d).add_(1),
    "inplace/leaf_view": lambda L, d: leaf(L, d, (2, 3))[0].mul_(2),
    "inplace/leaf_setitem": lambda L, d: leaf(L, d).__setitem__(0, 5.0),
    "inplace/leaf_no_grad": lambda L, d: leaf_add_under_no_grad(L, d),
    "inplace/leaf_zero_": lambda L, d: leaf(L, d).zero_(),
    "inplace/leaf_copy_": lambda L, d: leaf(L, d).copy_(R(L, (3,), d)),
    "inplace/leaf_data": lambda L, d: (lambda x: (x.data.add_(1), x)[1])(leaf(L, d)),
    "inplace/saved_exp": lambda L, d: modify_saved(L, d, lambda x: x.exp(), lambda y: y.add_(1)),
    "inplace/saved_sigmoid": lambda L, d: modify_saved(L, d, lambda x: x.sigmoid(), lambda y: y.mul_(2)),
    "inplace/saved_tanh_detached": lambda L, d: modify_saved(L, d, lambda x: x.tanh(), lambda y: y.detach().zero_()),
    "inplace/saved_input_of_mul": lambda L, d: (lambda x: (lambda a: (lambda y: (a.add_(1), y.sum().backward(),
                                                                                 x.grad)[2])(a * a))(x * 1))(
        leaf(L, d)),
    "inplace/not_saved_add": lambda L, d: modify_saved(L, d, lambda x: x + 1, lambda y: y.mul_(2)),
    "inplace/leaf_under_no_grad_saved": lambda L, d: modify_leaf_under_no_grad(L, d),
    "inplace/relu_": lambda L, d: (lambda x: (lambda y: (y.relu_().sum().backward(), x.grad)[1])(x * 1))(
        leaf(L, d)),
    "inplace/exp_twice": lambda L, d: (lambda x: (lambda y: (y.exp_().exp_().sum().backward(), x.grad)[1])(x * 1))(
        leaf(L, d)),
    "inplace/view_of_non_leaf": lambda L, d: (lambda x: (lambda y: (y[0].mul_(3), y.sum().backward(),
                                                                    x.grad)[2])(x * 1))(leaf(L, d)),
    "inplace/version": lambda L, d: (lambda x: (x.add_(1), x.add_(1), x._version)[2])(R(L, (3,), d)),
    # ---- hooks
    "hook/wrong_shape": lambda L, d: hooked(L, d, lambda g: g[:2]),
    "hook/wrong_dtype": lambda L, d: hooked(L, d, lambda g: g.double()),
    "hook/int_dtype": lambda L, d: hooked(L, d, lambda g: g.long()),
    "hook/returns_number": lambda L, d: hooked(L, d, lambda g: 3.0),
    "hook/returns_none": lambda L, d: hooked(L, d, lambda g: None),
    "hook/scales": lambda L, d: hooked(L, d, lambda g: g * 10),
    "hook/intermediate_wrong_shape": lambda L, d: hooked_intermediate(L, d, lambda g: g.sum()),
    "hook/intermediate_scales": lambda L, d: hooked_intermediate(L, d, lambda g: g + 1),
    "hook/not_requiring_grad": lambda L, d: R(L, (3,), d).register_hook(lambda g: g),
    "hook/not_callable": lambda L, d: hooked(L, d, 3),
    "hook/raises": lambda L, d: hooked(L, d, lambda g: 1 / 0),
    "hook/post_accumulate": lambda L, d: (lambda x: (x.register_post_accumulate_grad_hook(
        lambda t: t.grad.mul_(3)), (x * 2).sum().backward(), x.grad)[2])(leaf(L, d)),
    "hook/post_accumulate_non_leaf": lambda L, d: (leaf(L, d) * 2).register_post_accumulate_grad_hook(
        lambda t: None),
    # ---- detach_, requires_grad_, retain_grad, .grad
    "detach_/view": lambda L, d: (leaf(L, d, (2, 3)) * 1)[0].detach_(),
    "detach_/leaf": lambda L, d: (lambda x: (x.detach_(), x.requires_grad)[1])(leaf(L, d)),
    "detach_/non_leaf": lambda L, d: (lambda y: (y.detach_(), y.requires_grad, y.grad_fn is None)[1:])(
        leaf(L, d) * 2),
    "detach/then_inplace": lambda L, d: (lambda x: (x.detach().add_(1), x)[1])(leaf(L, d)),
    "requires_grad_/int": lambda L, d: T(L, [1, 2], d).requires_grad_(),
    "requires_grad_/bool": lambda L, d: T(L, [True], d).requires_grad_(),
    "requires_grad_/int_false": lambda L, d: T(L, [1, 2], d).requires_grad_(False).requires_grad,
    "requires_grad_/complex": lambda L, d: T(L, [1j], d).requires_grad_().requires_grad,
    "requires_grad_/half": lambda L, d: T(L, [1.0], d, "float16").requires_grad_().requires_grad,
    "requires_grad_/non_leaf_false": lambda L, d: (leaf(L, d) * 2).requires_grad_(False),
    "requires_grad_/non_leaf_true": lambda L, d: (leaf(L, d) * 2).requires_grad_(True).requires_grad,
    "requires_grad/attr_int": lambda L, d: setattr(T(L, [1, 2], d), "requires_grad", True),
    "requires_grad/attr_non_leaf": lambda L, d: setattr(leaf(L, d) * 2, "requires_grad", False),
    "requires_grad/factory_int": lambda L, d: L.zeros(2, dtype=L.int64, device=d, requires_grad=True),
    "requires_grad/tensor_int": lambda L, d: L.tensor([1, 2], device=d, requires_grad=True),
    "requires_grad/arange_int": lambda L, d: L.arange(3, device=d, requires_grad=True),
    "retain_grad/not_requiring": lambda L, d: R(L, (3,), d).retain_grad(),
    "retain_grad/non_leaf": lambda L, d: (lambda x: (lambda y: (y.retain_grad(), (y * y).sum().backward(),
                                                                y.grad)[2])(x * 2))(leaf(L, d)),
    "grad/non_leaf_none": lambda L, d: (lambda x: (lambda y: ((y * y).sum().backward(), y.grad)[1])(x * 2))(
        leaf(L, d)),
    "grad/set_wrong_shape": lambda L, d: set_grad(L, d, L.ones(4, device=d)),
    "grad/set_wrong_dtype": lambda L, d: set_grad(L, d, L.ones(3, device=d, dtype=L.float64)),
    "grad/set_int": lambda L, d: set_grad(L, d, L.ones(3, device=d, dtype=L.int64)),
    "grad/set_number": lambda L, d: set_grad(L, d, 3.0),
    "grad/set_none": lambda L, d: set_grad(L, d, None),
    "grad/set_ok": lambda L, d: set_grad(L, d, L.ones(3, device=d)),
    "grad/set_self": lambda L, d: (lambda x: setattr(x, "grad", x))(leaf(L, d)),
    "grad/accumulates": lambda L, d: (lambda x: ((x * 2).sum().backward(), (x * 3).sum().backward(), x.grad)[2])(
        leaf(L, d)),
    "grad/zero_none": lambda L, d: leaf(L, d).grad.zero_(),
    "set_grad_enabled/int": lambda L, d: grad_mode_set(L, 1),
    "set_grad_enabled/str": lambda L, d: grad_mode_set(L, "yes"),
    "set_grad_enabled/none": lambda L, d: grad_mode_set(L, None),
    "enable_grad/inside_no_grad": lambda L, d: enable_inside_no_grad(L, d),
    "inference_mode/save_for_backward": lambda L, d: inference_tensor_saved(L, d),
    # ---- custom autograd.Function
    "Function/too_few_grads": lambda L, d: run_custom(L, d, lambda ctx, g: g * 2),
    "Function/too_many_grads": lambda L, d: run_custom(L, d, lambda ctx, g: (g * 2, g, g)),
    "Function/grad_wrong_shape": lambda L, d: run_custom(L, d, lambda ctx, g: (g[:2], g)),
    "Function/grad_wrong_dtype": lambda L, d: run_custom(L, d, lambda ctx, g: (g.double(), g)),
    "Function/grad_number": lambda L, d: run_custom(L, d, lambda ctx, g: (2.0, g)),
    "Function/grad_none": lambda L, d: run_custom(L, d, lambda ctx, g: (None, g)),
    "Function/grad_broadcastable": lambda L, d: run_custom(L, d, lambda ctx, g: (g.sum(), g)),
    "Function/save_int": lambda L, d: run_custom(L, d, lambda ctx, g: (g, g), _save_int),
    "Function/mark_dirty_not_input": lambda L, d: run_custom(L, d, lambda ctx, g: (g, g), _dirty_not_input),
    "Function/return_input": lambda L, d: run_custom(L, d, lambda ctx, g: (g * 5, None), _return_input),
    "Function/non_differentiable": lambda L, d: run_custom(L, d, lambda ctx, g: (g, g), _non_differentiable),
    "Function/backward_raises": lambda L, d: run_custom(L, d, lambda ctx, g: [][0]),
    "Function/apply_numbers": lambda L, d: custom(L, lambda ctx, g: (g, g)).apply(1.0, 2.0),
    # ---- torch.func
    "func.grad/non_scalar": lambda L, d: L.func.grad(lambda x: x * 2)(R(L, (3,), d)),
    "func.grad/1elem": lambda L, d: L.func.grad(lambda x: (x * 2).sum().reshape(1))(R(L, (3,), d)),
    "func.grad/not_tensor": lambda L, d: L.func.grad(lambda x: 3.0)(R(L, (3,), d)),
    "func.grad/int_input": lambda L, d: L.func.grad(lambda x: x.sum())(T(L, [1, 2], d)),
    "func.grad/argnums_past": lambda L, d: L.func.grad(lambda x, y: (x * y).sum(), argnums=2)(
        R(L, (3,), d), R(L, (3,), d)),
    "func.grad/argnums_negative": lambda L, d: L.func.grad(lambda x, y: (x * y * y).sum(), argnums=-1)(
        R(L, (3,), d), R(L, (3,), d)),
    "func.grad/argnums_repeated": lambda L, d: L.func.grad(lambda x, y: (x * y).sum(), argnums=(0, 0))(
        R(L, (3,), d), R(L, (3,), d)),
    "func.grad/argnums_empty": lambda L, d: L.func.grad(lambda x, y: (x * y).sum(), argnums=())(
        R(L, (3,), d), R(L, (3,), d)),
    "func.grad/argnums_float": lambda L, d: L.func.grad(lambda x: x.sum(), argnums=0.0)(R(L, (3,), d)),
    "func.grad/argnums_list": lambda L, d: L.func.grad(lambda x, y: (x * y).sum(), argnums=[0, 1])(
        R(L, (3,), d), R(L, (3,), d)),
    "func.grad/no_args": lambda L, d: L.func.grad(lambda: T(L, 1.0, d))(),
    "func.grad/has_aux_not_tuple": lambda L, d: L.func.grad(lambda x: x.sum(), has_aux=True)(R(L, (3,), d)),
    "func.grad/has_aux_ok": lambda L, d: L.func.grad(lambda x: (x.sum(), x * 2), has_aux=True)(R(L, (3,), d)),
    "func.grad/has_aux_3_tuple": lambda L, d: L.func.grad(lambda x: (x.sum(), x, x), has_aux=True)(R(L, (3,), d)),
    "func.grad/unused_input": lambda L, d: L.func.grad(lambda x, y: (y * 2).sum())(R(L, (3,), d), R(L, (3,), d)),
    "func.grad/dict_input": lambda L, d: L.func.grad(lambda p: (p["a"] * p["b"]).sum())(
        {"a": R(L, (3,), d), "b": R(L, (3,), d)}),
    "func.grad/complex_output": lambda L, d: L.func.grad(lambda x: (x * 1j).sum())(R(L, (3,), d)),
    "func.grad_and_value/ok": lambda L, d: L.func.grad_and_value(lambda x: (x ** 2).sum())(R(L, (3,), d)),
    "func.vjp/wrong_cotangent_shape": lambda L, d: L.func.vjp(lambda x: x * 2, R(L, (3,), d))[1](L.ones(2, device=d)),
    "func.vjp/ok": lambda L, d: L.func.vjp(lambda x: x.sin(), R(L, (3,), d))[1](L.ones(3, device=d)),
    "func.jacrev/ok": lambda L, d: L.func.jacrev(lambda x: x.sin() * x)(R(L, (3,), d)),
    "func.jacrev/int_input": lambda L, d: L.func.jacrev(lambda x: x * 2)(T(L, [1, 2], d)),
    "func.hessian/ok": lambda L, d: L.func.hessian(lambda x: (x ** 3).sum())(R(L, (3,), d)),
    "func.jvp/tangent_shape": lambda L, d: L.func.jvp(lambda x: x * 2, (R(L, (3,), d),), (L.ones(2, device=d),)),
    "func.jvp/primals_not_tuple": lambda L, d: L.func.jvp(lambda x: x * 2, R(L, (3,), d), L.ones(3, device=d)),
    # ---- vmap
    "vmap/ok": lambda L, d: vmapped(L, d, lambda x: x.sum(), R(L, (4, 3), d)),
    "vmap/in_dims_past": lambda L, d: vmapped(L, d, lambda x: x.sum(), R(L, (4, 3), d), in_dims=2),
    "vmap/in_dims_wrong_length": lambda L, d: vmapped(L, d, lambda x, y: x + y, R(L, (4, 3), d), R(L, (4, 3), d),
                                                      in_dims=(0,)),
    "vmap/in_dims_float": lambda L, d: vmapped(L, d, lambda x: x.sum(), R(L, (4, 3), d), in_dims=0.0),
    "vmap/batch_sizes_differ": lambda L, d: vmapped(L, d, lambda x, y: x + y, R(L, (4, 3), d), R(L, (5, 3), d)),
    "vmap/all_none": lambda L, d: vmapped(L, d, lambda x: x.sum(), R(L, (4, 3), d), in_dims=None),
    "vmap/0dim_input": lambda L, d: vmapped(L, d, lambda x: x * 2, T(L, 1.0, d)),
    "vmap/empty_batch": lambda L, d: vmapped(L, d, lambda x: x * 2, L.ones(0, 3, device=d)),
    "vmap/returns_number": lambda L, d: vmapped(L, d, lambda x: 3.0, R(L, (4, 3), d)),
    "vmap/returns_none": lambda L, d: vmapped(L, d, lambda x: None, R(L, (4, 3), d)),
    "vmap/out_dims_past": lambda L, d: vmapped(L, d, lambda x: x * 2, R(L, (4, 3), d), out_dims=3),
    "vmap/out_dims_none_batched": lambda L, d: vmapped(L, d, lambda x: x * 2, R(L, (4, 3), d), out_dims=None),
    "vmap/out_dims_1": lambda L, d: vmapped(L, d, lambda x: x * 2, R(L, (4, 3), d), out_dims=1),
    "vmap/in_dims_1": lambda L, d: vmapped(L, d, lambda x: x.sum(), R(L, (4, 3), d), in_dims=1),
    "vmap/in_dims_negative": lambda L, d: vmapped(L, d, lambda x: x.sum(), R(L, (4, 3), d), in_dims=-1),
    "vmap/randomness_bad": lambda L, d: vmapped(L, d, lambda x: x * 2, R(L, (4, 3), d), randomness="sometimes"),
    "vmap/randomness_error": lambda L, d: vmapped(L, d, lambda x: x * L.rand(3, device=d), R(L, (4, 3), d)),
    "vmap/item": lambda L, d: vmapped(L, d, lambda x: x.sum().item(), R(L, (4, 3), d)),
    "vmap/non_tensor_arg": lambda L, d: vmapped(L, d, lambda x, n: x * n, R(L, (4, 3), d), 2.0),
    "vmap/non_tensor_arg_batched": lambda L, d: vmapped(L, d, lambda x, n: x * n, R(L, (4, 3), d), 2.0,
                                                        in_dims=(0, 0)),
    "vmap/no_tensor_inputs": lambda L, d: vmapped(L, d, lambda n: n * 2, 3.0),
    "vmap/not_callable": lambda L, d: L.func.vmap(3)(R(L, (4, 3), d)),
    "vmap/nested": lambda L, d: L.func.vmap(L.func.vmap(lambda x: x * 2))(R(L, (2, 3, 4), d)),
    "vmap/grad": lambda L, d: L.func.vmap(L.func.grad(lambda x: (x ** 2).sum()))(R(L, (4, 3), d)),
}

KNOWN = {
    "autograd.backward/not_tensor": "PyTorch fails in an assert of its Python wrapper (AssertionError); tandem "
                                    "raises its argument TypeError",
    "backward/gradient_number": "PyTorch fails with an incidental TypeError ('float' object is not iterable); "
                                "tandem's TypeError names the argument",
    "inference_mode/save_for_backward": "tandem's inference_mode does not mark the tensors it makes "
                                        "(docs/compat.md), so they can be saved for backward",
    "inplace/exp_twice": "tandem's in-place ops keep a copy of what their backward needs, so a second in-place op "
                         "leaves the gradient right (checked: exp(exp(x)) exp(x)); PyTorch refuses",
    "inplace/version": "a new tensor on a GPU starts at version 1 in tandem (its fill or copy counts as a write); "
                       "in-place checks compare versions, so only the number differs",
    "inplace/leaf_under_no_grad_saved": "on a GPU the version numbers in the message are one higher (a new "
                                        "tensor's copy counts as a write in tandem)",
    "vmap/item": "tandem's vmap runs the function on ordinary tensors (docs/compat.md), so .item() works inside; "
                 "PyTorch refuses it",
}
