"""Tensor hooks and nn.Module hooks misused: handles removed twice, hooks that return the wrong shape, type or
count, forward pre-hooks returning a non-tuple, forward hooks replacing the output, full backward hooks on modules
that modify their input in place, backward pre-hooks, with_kwargs and prepend, always_call, the global module
hooks, state-dict hooks, and register_hook on tensors that cannot have one. autograd_api.py has the basic
tensor-hook cases (wrong shape/dtype, a number, raising)."""
from . import R


def leaf(L, d, shape=(3,), dtype="float64"):
    return R(L, shape, d, dtype).requires_grad_()


def linear(L, d, n_in=3, n_out=2):
    """A Linear with deterministic weights (both libraries draw their own initial ones)."""
    m = L.nn.Linear(n_in, n_out).double()
    with L.no_grad():
        m.weight.copy_(R(L, (n_out, n_in), "cpu", scale=0.7))
        m.bias.copy_(R(L, (n_out,), "cpu", scale=0.3))
    return m.to(d)


def inp(L, d, shape=(2, 3)):
    return R(L, shape, d).requires_grad_()


# ---- tensor hooks
def tensor_hook_removed(L, d, times):
    x = leaf(L, d)
    h = x.register_hook(lambda g: g * 10)
    for _ in range(times):
        h.remove()
    (x * 2).sum().backward()
    return x.grad


def two_hooks_order(L, d):
    x = leaf(L, d)
    x.register_hook(lambda g: g + 1)
    x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    return x.grad


def hook_returns_tuple(L, d):
    x = leaf(L, d)
    x.register_hook(lambda g: (g,))
    (x * 2).sum().backward()
    return x.grad


def hook_returns_requires_grad(L, d):
    x = leaf(L, d)
    x.register_hook(lambda g: g * x)
    (x * 2).sum().backward()
    return x.grad


def hook_modifies_inplace(L, d):
    x = leaf(L, d)
    y = x * 2

    def hook(g):
        g.mul_(3)

    y.register_hook(hook)
    (y * 1).sum().backward()
    return x.grad


def hook_on_view(L, d):
    x = leaf(L, d, (4,))
    v = x[1:3] * 1
    v.register_hook(lambda g: g * 5)
    v.sum().backward()
    return x.grad


def hook_on_int_tensor(L, d):
    return L.ones(3, dtype=L.int64, device=d).register_hook(lambda g: g)


def post_accumulate_twice(L, d):
    x = leaf(L, d)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    return [s for s in seen]


def post_accumulate_returns_value(L, d):
    x = leaf(L, d)
    x.register_post_accumulate_grad_hook(lambda t: t.grad * 100)
    (x * 2).sum().backward()
    return x.grad


def retain_grad_then_hook(L, d):
    x = leaf(L, d)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 3)
    (y * 1).sum().backward()
    return y.grad, x.grad


# ---- module forward hooks
def forward_pre(L, d, hook, **kw):
    m = linear(L, d)
    m.register_forward_pre_hook(hook, **kw)
    return m(inp(L, d))


def forward_post(L, d, hook, **kw):
    m = linear(L, d)
    m.register_forward_hook(hook, **kw)
    return m(inp(L, d))


def forward_post_kwargs_call(L, d, hook):
    class Scale(L.nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale

    m = Scale()
    m.register_forward_hook(hook, with_kwargs=True)
    return m(inp(L, d), scale=2.0)


def forward_pre_kwargs_call(L, d, hook):
    class Scale(L.nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale

    m = Scale()
    m.register_forward_pre_hook(hook, with_kwargs=True)
    return m(inp(L, d), scale=2.0)


def hook_order(L, d, prepend):
    m = linear(L, d)
    seen = []
    m.register_forward_hook(lambda mod, i, o: seen.append("a"))
    m.register_forward_hook(lambda mod, i, o: seen.append("b"), prepend=prepend)
    m(inp(L, d))
    return seen


def handle_removed_twice(L, d):
    m = linear(L, d)
    h = m.register_forward_hook(lambda mod, i, o: o * 100)
    h.remove()
    h.remove()
    return m(inp(L, d))


def handle_context_manager(L, d):
    m = linear(L, d)
    with m.register_forward_hook(lambda mod, i, o: o * 100):
        inside = m(inp(L, d))
    return inside, m(inp(L, d))


def always_call(L, d, always):
    class Boom(L.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    seen = []
    m.register_forward_hook(lambda mod, i, o: seen.append(o), always_call=always)
    try:
        m(inp(L, d))
    except ValueError:
        pass
    return len(seen)


def global_forward_hook(L, d):
    h = L.nn.modules.module.register_module_forward_hook(lambda mod, i, o: o * 0 + 7)
    try:
        return linear(L, d)(inp(L, d))
    finally:
        h.remove()


def global_forward_pre_hook(L, d):
    h = L.nn.modules.module.register_module_forward_pre_hook(lambda mod, i: (i[0] * 0,))
    try:
        return linear(L, d)(inp(L, d))
    finally:
        h.remove()


# ---- module backward hooks
def full_backward(L, d, hook, module=None, x=None):
    m = module if module is not None else linear(L, d)
    m.register_full_backward_hook(hook)
    x = x if x is not None else inp(L, d)
    m(x).sum().backward()
    return x.grad


def full_backward_pre(L, d, hook):
    m = linear(L, d)
    m.register_full_backward_pre_hook(hook)
    x = inp(L, d)
    m(x).sum().backward()
    return x.grad


def full_backward_inplace_module(L, d):
    m = L.nn.ReLU(inplace=True)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    x = inp(L, d)
    m(x * 1).sum().backward()
    return x.grad


def full_backward_on_leaf_input_inplace(L, d):
    m = L.nn.ReLU(inplace=True)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    return m(inp(L, d))


def full_backward_no_grad_input(L, d):
    """The input does not require grad: grad_input is (None,), the hook still runs for the parameters' sake."""
    m = linear(L, d)
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi[0] is None, go[0].shape)))
    m(R(L, (2, 3), d)).sum().backward()
    return [(a, tuple(b)) for a, b in seen]


def full_backward_seen(L, d):
    m = linear(L, d)
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.extend([gi[0].clone(), go[0].clone()]))
    x = inp(L, d)
    m(x).sum().backward()
    return seen


def full_backward_tuple_output(L, d, hook):
    class Split(L.nn.Module):
        def forward(self, x):
            return x * 2, x * 3

    m = Split()
    m.register_full_backward_hook(hook)
    x = inp(L, d)
    a, b = m(x)
    (a + b).sum().backward()
    return x.grad


def backward_hook_legacy_and_full(L, d):
    m = linear(L, d)
    m.register_backward_hook(lambda mod, gi, go: None)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    return m(inp(L, d))


# ---- state-dict hooks
def state_dict_post_hook(L, d, hook):
    m = linear(L, d)
    m.register_state_dict_post_hook(hook)
    return sorted(m.state_dict())


def load_state_dict_post_hook(L, d, hook):
    m = linear(L, d)
    m.register_load_state_dict_post_hook(hook)
    return str(m.load_state_dict(linear(L, d).state_dict()))


def _drop_bias(module, state_dict, prefix, local_metadata):
    del state_dict[prefix + "bias"]


def _clear_missing(module, incompatible):
    incompatible.missing_keys.clear()


def _load_post_returns(module, incompatible):
    return 5


def _add_missing(module, incompatible):
    incompatible.missing_keys.append("ghost")


CASES = {
    # ---- tensor hooks
    "tensor/removed_once": lambda L, d: tensor_hook_removed(L, d, 1),
    "tensor/removed_twice": lambda L, d: tensor_hook_removed(L, d, 2),
    "tensor/two_in_order": two_hooks_order,
    "tensor/returns_tuple": hook_returns_tuple,
    "tensor/returns_requires_grad": hook_returns_requires_grad,
    "tensor/modifies_grad_inplace": hook_modifies_inplace,
    "tensor/on_slice_result": hook_on_view,
    "tensor/on_int_tensor": hook_on_int_tensor,
    "tensor/post_accumulate_twice": post_accumulate_twice,
    "tensor/post_accumulate_return_ignored": post_accumulate_returns_value,
    "tensor/retain_grad_then_hook": retain_grad_then_hook,
    # ---- forward pre-hooks
    "forward_pre/returns_tensor": lambda L, d: forward_pre(L, d, lambda m, i: i[0] * 2),
    "forward_pre/returns_tuple": lambda L, d: forward_pre(L, d, lambda m, i: (i[0] * 2,)),
    "forward_pre/returns_none": lambda L, d: forward_pre(L, d, lambda m, i: None),
    "forward_pre/returns_wrong_shape": lambda L, d: forward_pre(L, d, lambda m, i: (i[0][:, :2],)),
    "forward_pre/returns_number": lambda L, d: forward_pre(L, d, lambda m, i: 3),
    "forward_pre/returns_two": lambda L, d: forward_pre(L, d, lambda m, i: (i[0], i[0])),
    "forward_pre/raises": lambda L, d: forward_pre(L, d, lambda m, i: [][1]),
    "forward_pre/with_kwargs_pair": lambda L, d: forward_pre_kwargs_call(L, d, lambda m, a, k: (a, {"scale": 5.0})),
    "forward_pre/with_kwargs_not_pair": lambda L, d: forward_pre_kwargs_call(L, d, lambda m, a, k: (a[0] * 3,)),
    "forward_pre/with_kwargs_none": lambda L, d: forward_pre_kwargs_call(L, d, lambda m, a, k: None),
    "forward_pre/not_callable": lambda L, d: forward_pre(L, d, 3),
    # ---- forward hooks
    "forward/replaces_output": lambda L, d: forward_post(L, d, lambda m, i, o: o * 0 + 1),
    "forward/returns_none": lambda L, d: forward_post(L, d, lambda m, i, o: None),
    "forward/returns_number": lambda L, d: forward_post(L, d, lambda m, i, o: 5),
    "forward/returns_tuple": lambda L, d: type(forward_post(L, d, lambda m, i, o: (o, o))).__name__,
    "forward/with_kwargs_sees_kwargs": lambda L, d: forward_post_kwargs_call(L, d, lambda m, a, k, o: o * k["scale"]),
    "forward/with_kwargs_wrong_arity": lambda L, d: forward_post_kwargs_call(L, d, lambda m, a, o: o),
    "forward/prepend": lambda L, d: hook_order(L, d, True),
    "forward/append": lambda L, d: hook_order(L, d, False),
    "forward/handle_removed_twice": handle_removed_twice,
    "forward/handle_context_manager": handle_context_manager,
    "forward/always_call": lambda L, d: always_call(L, d, True),
    "forward/not_always_call": lambda L, d: always_call(L, d, False),
    "forward/global": global_forward_hook,
    "forward_pre/global": global_forward_pre_hook,
    # ---- backward hooks
    "full_backward/returns_none": lambda L, d: full_backward(L, d, lambda m, gi, go: None),
    "full_backward/scales_input_grad": lambda L, d: full_backward(L, d, lambda m, gi, go: (gi[0] * 10,)),
    "full_backward/wrong_count": lambda L, d: full_backward(L, d, lambda m, gi, go: (gi[0], gi[0])),
    "full_backward/wrong_shape": lambda L, d: full_backward(L, d, lambda m, gi, go: (gi[0][:1],)),
    "full_backward/returns_tensor": lambda L, d: full_backward(L, d, lambda m, gi, go: gi[0] * 2),
    "full_backward/returns_tensor_one_row": lambda L, d: full_backward(L, d, lambda m, gi, go: gi[0][:1] * 2),
    "full_backward/returns_list": lambda L, d: full_backward(L, d, lambda m, gi, go: [gi[0] * 2]),
    "full_backward/returns_number": lambda L, d: full_backward(L, d, lambda m, gi, go: 5),
    "full_backward/returns_number_in_tuple": lambda L, d: full_backward(L, d, lambda m, gi, go: (5,)),
    "full_backward/wrong_dtype": lambda L, d: full_backward(L, d, lambda m, gi, go: (gi[0].float(),)),
    "full_backward_pre/wrong_dtype": lambda L, d: full_backward_pre(L, d, lambda m, go: (go[0].float(),)),
    "full_backward/sees_grads": full_backward_seen,
    "full_backward/no_grad_input": full_backward_no_grad_input,
    "full_backward/inplace_module": full_backward_inplace_module,
    "full_backward/inplace_on_leaf": full_backward_on_leaf_input_inplace,
    "full_backward/tuple_output": lambda L, d: full_backward_tuple_output(L, d, lambda m, gi, go: None),
    "full_backward/tuple_output_scale": lambda L, d: full_backward_tuple_output(
        L, d, lambda m, gi, go: (gi[0] * 3,)),
    "full_backward/with_legacy": backward_hook_legacy_and_full,
    "full_backward_pre/scales": lambda L, d: full_backward_pre(L, d, lambda m, go: (go[0] * 4,)),
    "full_backward_pre/returns_none": lambda L, d: full_backward_pre(L, d, lambda m, go: None),
    "full_backward_pre/wrong_count": lambda L, d: full_backward_pre(L, d, lambda m, go: (go[0], go[0])),
    "full_backward_pre/wrong_shape": lambda L, d: full_backward_pre(L, d, lambda m, go: (go[0][:1],)),
    # ---- state-dict hooks
    "state_dict_post/drops_key": lambda L, d: state_dict_post_hook(L, d, _drop_bias),
    "load_state_dict_post/clears_missing": lambda L, d: load_state_dict_post_hook(L, d, _clear_missing),
    "load_state_dict_post/returns_value": lambda L, d: load_state_dict_post_hook(L, d, _load_post_returns),
    "load_state_dict_post/adds_missing": lambda L, d: load_state_dict_post_hook(L, d, _add_missing),
}

KNOWN = {}
