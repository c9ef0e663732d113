"""torch.autograd.graph and grad_fn nodes misused: node hooks and pre-hooks that return the wrong count, shape or
type, hooks removed twice, next_functions/name/metadata of odd nodes, register_multi_grad_hook with bad modes,
tensors that do not require grad, and passes that reach only some tensors; get_gradient_edge, increment_version,
allow_mutation_on_saved_tensors misuse."""
from . import R


def leaf(L, d, shape=(3,)):
    return R(L, shape, d).requires_grad_()


def node_hook(L, d, hook, pre=False):
    x = leaf(L, d)
    y = x.exp()
    (y.grad_fn.register_prehook if pre else y.grad_fn.register_hook)(hook)
    y.sum().backward()
    return x.grad


def node_hook_removed_twice(L, d):
    x = leaf(L, d)
    y = x.exp()
    h = y.grad_fn.register_hook(lambda gi, go: (gi[0] * 100,))
    h.remove()
    h.remove()
    y.sum().backward()
    return x.grad


def names(L, d):
    x = leaf(L, d)
    y = (x * 2).sum()
    return y.grad_fn.name(), [type(f).__name__ if f is None else f.name() for f, _ in y.grad_fn.next_functions]


def multi_grad(L, d, mode, which, requires=(True, True)):
    a = R(L, (3,), d).requires_grad_(requires[0])
    b = R(L, (3,), d).requires_grad_(requires[1])
    seen = []
    handle = L.autograd.graph.register_multi_grad_hook(
        [a, b], lambda g: seen.append(g if mode == "any" else [None if t is None else t.clone() for t in g]),
        mode=mode)
    out = {"a": a * 2, "b": b * 3, "both": a * 2 + b * 3}[which]
    out.sum().backward()
    handle.remove()
    return seen


def gradient_edge(L, d, t):
    edge = L.autograd.graph.get_gradient_edge(t)
    return edge.node.name() if edge.node is not None else None, edge.output_nr


def incremented(L, d):
    x = leaf(L, d)
    y = x * x
    L.autograd.graph.increment_version(x)
    y.sum().backward()
    return x.grad


def mutation_allowed(L, d):
    with L.autograd.graph.allow_mutation_on_saved_tensors():
        x = leaf(L, d)
        a = x.clone()
        y = a.sin()
        a.mul_(2)
        y.sum().backward()
    return x.grad


def metadata(L, d):
    x = leaf(L, d)
    y = x.exp()
    y.grad_fn.metadata["k"] = 3
    return dict(y.grad_fn.metadata)


CASES = {
    "node_hook/scales": lambda L, d: node_hook(L, d, lambda gi, go: (gi[0] * 2,)),
    "node_hook/returns_none": lambda L, d: node_hook(L, d, lambda gi, go: None),
    "node_hook/wrong_count": lambda L, d: node_hook(L, d, lambda gi, go: (gi[0], gi[0])),
    "node_hook/wrong_shape": lambda L, d: node_hook(L, d, lambda gi, go: (gi[0][:1],)),
    "node_hook/returns_tensor": lambda L, d: node_hook(L, d, lambda gi, go: gi[0] * 2),
    "node_hook/returns_number": lambda L, d: node_hook(L, d, lambda gi, go: (3,)),
    "node_hook/raises": lambda L, d: node_hook(L, d, lambda gi, go: [][2]),
    "node_prehook/scales": lambda L, d: node_hook(L, d, lambda go: (go[0] * 5,), pre=True),
    "node_prehook/wrong_count": lambda L, d: node_hook(L, d, lambda go: (go[0], go[0]), pre=True),
    "node_prehook/wrong_shape": lambda L, d: node_hook(L, d, lambda go: (go[0][:1],), pre=True),
    "node_prehook/wrong_dtype": lambda L, d: node_hook(L, d, lambda go: (go[0].float(),), pre=True),
    "node_hook/removed_twice": node_hook_removed_twice,
    "node_hook/not_callable": lambda L, d: node_hook(L, d, 3),
    "node_hook/not_callable_registers": lambda L, d: (leaf(L, d).exp().grad_fn.register_hook(3), "registered")[1],
    "node/names": names,
    "node/metadata": metadata,
    "node/leaf_grad_fn_none": lambda L, d: leaf(L, d).grad_fn is None,
    "multi_grad/all_both": lambda L, d: multi_grad(L, d, "all", "both"),
    "multi_grad/all_only_a": lambda L, d: multi_grad(L, d, "all", "a"),
    "multi_grad/any_both": lambda L, d: len(multi_grad(L, d, "any", "both")),
    "multi_grad/bad_mode": lambda L, d: multi_grad(L, d, "some", "both"),
    "multi_grad/one_not_requiring": lambda L, d: multi_grad(L, d, "all", "a", (True, False)),
    "gradient_edge/leaf": lambda L, d: gradient_edge(L, d, leaf(L, d))[1],
    "gradient_edge/non_leaf": lambda L, d: gradient_edge(L, d, leaf(L, d).exp()),
    "gradient_edge/no_grad": lambda L, d: gradient_edge(L, d, R(L, (3,), d)),
    "increment_version/saved": incremented,
    "increment_version/not_tensor": lambda L, d: L.autograd.graph.increment_version(3),
    "increment_version/list_with_int": lambda L, d: L.autograd.graph.increment_version([leaf(L, d), 3]),
    "increment_version/tuple": lambda L, d: (lambda t: (L.autograd.graph.increment_version((t, t)), t._version)[1])(
        leaf(L, d)),
    "multi_grad/any_one_not_requiring": lambda L, d: len(multi_grad(L, d, "any", "a", (True, False))),
    "allow_mutation_on_saved_tensors/ok": mutation_allowed,
}

KNOWN = {}
