"""torch.utils.checkpoint misused beyond autograd_functional.py's cases, and the saved-tensor hooks it builds on:
use_reentrant left out, context_fn and determinism_check with the reentrant form or bad values, debug=,
functions that modify their input in place, return an input or nothing differentiable, draw random numbers, or
differ between the forward and the recomputation; backward twice and autograd.grad through a checkpoint;
checkpoint_sequential with a list of functions and bad segment counts; saved_tensors_hooks whose pack or unpack
return the wrong thing, nested and disabled hooks, save_on_cpu."""
from . import R


def leaf(L, d, shape=(3,)):
    return R(L, shape, d).requires_grad_()


def ckpt(L):
    return L.utils.checkpoint


def grads(L, d, fn, *, n=1, **kw):
    """checkpoint(fn, x...) then backward of the sum: the gradients."""
    xs = [leaf(L, d) for _ in range(n)]
    out = ckpt(L).checkpoint(fn, *xs, **kw)
    (out if isinstance(out, L.Tensor) else out[0]).sum().backward()
    return tuple(x.grad for x in xs)


def inplace_on_input(x):
    x.mul_(2)
    return x.sin()


def inplace_on_copy(x):
    y = x * 1
    y.mul_(2)
    return y.sin()


def backward_twice(L, d, use_reentrant, retain):
    x = leaf(L, d)
    out = ckpt(L).checkpoint(lambda t: t.sin() * t, x, use_reentrant=use_reentrant).sum()
    out.backward(retain_graph=retain)
    out.backward()
    return x.grad


def grad_through(L, d, use_reentrant):
    x = leaf(L, d)
    out = ckpt(L).checkpoint(lambda t: t.exp(), x, use_reentrant=use_reentrant).sum()
    return L.autograd.grad(out, x)


def grad_with_parameters(L, d, use_reentrant, inputs_form=False):
    """autograd.grad (or backward(inputs=)) through a checkpointed Linear: the gradients, and whether the
    parameters' .grad stayed untouched."""
    m = L.nn.Linear(3, 2).double()
    with L.no_grad():
        m.weight.copy_(R(L, (2, 3), "cpu"))
        m.bias.copy_(R(L, (2,), "cpu", scale=0.5))
    m = m.to(d)
    x = leaf(L, d, (4, 3))
    out = ckpt(L).checkpoint(m, x, use_reentrant=use_reentrant).tanh().sum()
    if inputs_form:
        L.autograd.backward(out, inputs=[x])
        return x.grad, m.weight.grad is None
    return L.autograd.grad(out, (x, m.weight)), m.weight.grad is None


def double_grad(L, d, use_reentrant):
    x = leaf(L, d)
    out = ckpt(L).checkpoint(lambda t: (t ** 3).sum(), x, use_reentrant=use_reentrant)
    (g,) = L.autograd.grad(out, x, create_graph=True)
    return L.autograd.grad(g.sum(), x)


def shape_changes_on_recompute(L, d):
    calls = []

    def fn(x):
        calls.append(1)
        return x[: 3 - len(calls) + 1].sin() * 2 if len(calls) > 1 else x.sin() * 2

    return grads(L, d, fn, use_reentrant=False)


def count_changes_on_recompute(L, d):
    """The recomputation saves more tensors than the forward did."""
    calls = []

    def fn(x):
        calls.append(1)
        y = x.sin()
        if len(calls) > 1:
            y = y.exp().log()
        return y * x

    return grads(L, d, fn, use_reentrant=False)


def sequential(L, d, functions, segments, **kw):
    x = leaf(L, d, (2, 3))
    out = ckpt(L).checkpoint_sequential(functions, segments, x, **kw)
    out.sum().backward()
    return x.grad


def linears(L, n):
    layers = []
    for i in range(n):
        m = L.nn.Linear(3, 3).double()
        with L.no_grad():
            m.weight.copy_(R(L, (3, 3), "cpu", scale=0.5 + 0.1 * i))
            m.bias.copy_(R(L, (3,), "cpu", scale=0.2))
        layers.append(m)
    return layers


def on_device(L, d, layers):
    return [m.to(d) for m in layers]


# ---- saved tensors hooks
def with_hooks(L, d, pack, unpack):
    x = leaf(L, d)
    with L.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x).sum()
    y.backward()
    return x.grad


def nested_hooks(L, d):
    x = leaf(L, d)
    with L.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
        with L.autograd.graph.saved_tensors_hooks(lambda t: t * 3, lambda t: t):
            y = (x * x).sum()
    y.backward()
    return x.grad


def disabled_hooks(L, d):
    with L.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        with L.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass


def save_on_cpu(L, d, pin):
    x = leaf(L, d)
    with L.autograd.graph.save_on_cpu(pin_memory=pin):
        y = (x.sin() * x).sum()
    y.backward()
    return x.grad


def hooks_count(L, d):
    packed = []
    x = leaf(L, d)
    with L.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
        y = (x.sin() * x).exp().sum()
    y.backward()
    return len(packed) > 0


CASES = {
    # ---- checkpoint options
    "checkpoint/use_reentrant_missing": lambda L, d: ckpt(L).checkpoint(lambda t: t * 2, leaf(L, d)),
    "checkpoint/use_reentrant_none": lambda L, d: ckpt(L).checkpoint(lambda t: t * 2, leaf(L, d),
                                                                     use_reentrant=None),
    "checkpoint/use_reentrant_str": lambda L, d: grads(L, d, lambda t: t * 2, use_reentrant="no"),
    "checkpoint/context_fn_reentrant": lambda L, d: grads(L, d, lambda t: t * 2, use_reentrant=True,
                                                          context_fn=lambda: (None, None)),
    "checkpoint/determinism_check_bad": lambda L, d: grads(L, d, lambda t: t * 2, use_reentrant=False,
                                                           determinism_check="always"),
    "checkpoint/determinism_check_reentrant": lambda L, d: grads(L, d, lambda t: t * 2, use_reentrant=True,
                                                                 determinism_check="none"),
    "checkpoint/debug_reentrant": lambda L, d: grads(L, d, lambda t: t * 2, use_reentrant=True, debug=True),
    "checkpoint/debug_non_reentrant": lambda L, d: grads(L, d, lambda t: t.sin(), use_reentrant=False, debug=True),
    "checkpoint/no_args_reentrant": lambda L, d: ckpt(L).checkpoint(lambda: L.ones(2, device=d), use_reentrant=True),
    "checkpoint/no_args_non_reentrant": lambda L, d: ckpt(L).checkpoint(lambda: L.ones(2, device=d),
                                                                        use_reentrant=False),
    "checkpoint/no_function": lambda L, d: type(ckpt(L).checkpoint(use_reentrant=False)).__name__,
    "checkpoint/preserve_rng_false": lambda L, d: grads(L, d, lambda t: t * 2, use_reentrant=False,
                                                        preserve_rng_state=False),
    # ---- functions checkpoint cannot replay faithfully
    "checkpoint/inplace_on_input_reentrant": lambda L, d: grads(L, d, inplace_on_input, use_reentrant=True),
    "checkpoint/inplace_on_input_non_reentrant": lambda L, d: grads(L, d, inplace_on_input, use_reentrant=False),
    "checkpoint/inplace_on_copy": lambda L, d: grads(L, d, inplace_on_copy, use_reentrant=False),
    "checkpoint/returns_input_reentrant": lambda L, d: grads(L, d, lambda t: t, use_reentrant=True),
    "checkpoint/returns_input_non_reentrant": lambda L, d: grads(L, d, lambda t: t, use_reentrant=False),
    "checkpoint/returns_none": lambda L, d: ckpt(L).checkpoint(lambda t: None, leaf(L, d), use_reentrant=False),
    "checkpoint/returns_int_reentrant": lambda L, d: ckpt(L).checkpoint(lambda t: 3, leaf(L, d),
                                                                        use_reentrant=True),
    "checkpoint/returns_detached": lambda L, d: grads(L, d, lambda t: t.detach() * 2, use_reentrant=False),
    "checkpoint/returns_list": lambda L, d: type(ckpt(L).checkpoint(lambda t: [t * 2], leaf(L, d),
                                                                    use_reentrant=False)).__name__,
    "checkpoint/returns_dict": lambda L, d: sorted(ckpt(L).checkpoint(lambda t: {"a": t * 2}, leaf(L, d),
                                                                      use_reentrant=False)),
    "checkpoint/two_inputs_one_unused": lambda L, d: grads(L, d, lambda a, b: a.sin(), n=2, use_reentrant=False),
    "checkpoint/two_inputs_one_unused_reentrant": lambda L, d: grads(L, d, lambda a, b: a.sin(), n=2,
                                                                     use_reentrant=True),
    "checkpoint/shape_changes_on_recompute": shape_changes_on_recompute,
    "checkpoint/more_saved_on_recompute": count_changes_on_recompute,
    "checkpoint/under_no_grad": lambda L, d: (lambda x: (lambda o: (o.requires_grad, o.grad_fn is None))(
        L.no_grad()(lambda: ckpt(L).checkpoint(lambda t: t * 2, x, use_reentrant=False))()))(leaf(L, d)),
    # ---- backward through a checkpoint
    "backward_twice/reentrant": lambda L, d: backward_twice(L, d, True, False),
    "backward_twice/non_reentrant": lambda L, d: backward_twice(L, d, False, False),
    "backward_twice/non_reentrant_retained": lambda L, d: backward_twice(L, d, False, True),
    "backward_twice/reentrant_retained": lambda L, d: backward_twice(L, d, True, True),
    "autograd.grad/reentrant": lambda L, d: grad_through(L, d, True),
    "autograd.grad/non_reentrant": lambda L, d: grad_through(L, d, False),
    "double_grad/non_reentrant": lambda L, d: double_grad(L, d, False),
    "grad_with_parameters/non_reentrant": lambda L, d: grad_with_parameters(L, d, False),
    "grad_with_parameters/reentrant": lambda L, d: grad_with_parameters(L, d, True),
    "backward_inputs/non_reentrant": lambda L, d: grad_with_parameters(L, d, False, True),
    "backward_inputs/reentrant": lambda L, d: grad_with_parameters(L, d, True, True),
    "functional.jacobian/non_reentrant": lambda L, d: L.autograd.functional.jacobian(
        lambda t: ckpt(L).checkpoint(lambda u: u.sin() * u, t, use_reentrant=False), R(L, (3,), d)),
    "double_grad/reentrant": lambda L, d: double_grad(L, d, True),
    # ---- checkpoint_sequential
    "sequential/functions_list": lambda L, d: sequential(L, d, on_device(L, d, linears(L, 3)), 2,
                                                         use_reentrant=False),
    "sequential/segments_negative": lambda L, d: sequential(L, d, on_device(L, d, linears(L, 3)), -1,
                                                            use_reentrant=False),
    "sequential/segments_float": lambda L, d: sequential(L, d, on_device(L, d, linears(L, 3)), 1.5,
                                                         use_reentrant=False),
    "sequential/segments_equal_len": lambda L, d: sequential(L, d, on_device(L, d, linears(L, 3)), 3,
                                                             use_reentrant=False),
    "sequential/empty": lambda L, d: sequential(L, d, [], 1, use_reentrant=False),
    "sequential/not_callable": lambda L, d: sequential(L, d, [3, 4], 1, use_reentrant=False),
    "sequential/module_list": lambda L, d: sequential(L, d, L.nn.Sequential(*on_device(L, d, linears(L, 4))), 2,
                                                      use_reentrant=True),
    # ---- saved tensors hooks
    "saved_tensors_hooks/identity": lambda L, d: with_hooks(L, d, lambda t: t, lambda t: t),
    "saved_tensors_hooks/pack_returns_number": lambda L, d: with_hooks(L, d, lambda t: 3, lambda p: p),
    "saved_tensors_hooks/unpack_returns_number": lambda L, d: with_hooks(L, d, lambda t: t, lambda p: 3),
    "saved_tensors_hooks/unpack_wrong_shape": lambda L, d: with_hooks(L, d, lambda t: t, lambda p: p[:1]),
    "saved_tensors_hooks/unpack_wrong_dtype": lambda L, d: with_hooks(L, d, lambda t: t, lambda p: p.float()),
    "saved_tensors_hooks/unpack_scales": lambda L, d: with_hooks(L, d, lambda t: t, lambda p: p * 2),
    "saved_tensors_hooks/pack_raises": lambda L, d: with_hooks(L, d, lambda t: [][1], lambda p: p),
    "saved_tensors_hooks/pack_returns_tuple": lambda L, d: with_hooks(L, d, lambda t: (t, 1), lambda p: p[0]),
    "saved_tensors_hooks/not_callable": lambda L, d: with_hooks(L, d, 3, 4),
    "saved_tensors_hooks/nested": nested_hooks,
    "saved_tensors_hooks/disabled": disabled_hooks,
    "saved_tensors_hooks/count": hooks_count,
    "save_on_cpu/ok": lambda L, d: save_on_cpu(L, d, False),
}

KNOWN = {
    "checkpoint/returns_detached": "tandem's checkpoint runs the forward without a graph (as PyTorch's reentrant "
                                   "variant), so its outputs require grad whenever an input does; PyTorch's "
                                   "non-reentrant forward records one and sees the output detached",
    "double_grad/non_reentrant": "tandem's non-reentrant checkpoint backpropagates through the recomputed graph "
                                 "without create_graph (its inputs there are detached copies): no double "
                                 "backward through a checkpoint (PyTorch's non-reentrant variant has one)",
    "checkpoint/more_saved_on_recompute": "PyTorch's own fault: its non-reentrant checkpoint matches saved tensors "
                                          "by position, so a recompute that saves more (x.sin().exp().log() for "
                                          "x.sin()) gives a wrong gradient; tandem backpropagates through the "
                                          "recomputed graph and gets x*cos(x) + sin(x)",
    "checkpoint/inplace_on_input_non_reentrant": "PyTorch's non-reentrant checkpoint calls the function on views "
                                                 "of its inputs ('a view of a leaf Variable'); tandem's on the "
                                                 "inputs ('a leaf Variable'); the type matches",
    "saved_tensors_hooks/not_callable": "PyTorch's message is its binding's overload list "
                                        "(_push_saved_tensors_default_hooks()); tandem's is Python's 'object is not "
                                        "callable' when a hook runs; the type matches",
}
