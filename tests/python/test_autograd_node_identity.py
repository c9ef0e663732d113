"""The Python identity of autograd objects, against PyTorch: each kind of node is its own class named after it
(type(y.grad_fn).__name__ == "ExpBackward0", what graph printers such as torchviz and the autograd tutorials
read), and AccumulateGrad.variable is the leaf's own Python object (`fn.variable is param`, which torchviz uses
to name parameters), however the leaf came to require grad."""
import gc

import pytest
import torch

import tandem

LIBS = [torch, tandem]


def _dev(m, device):
    return device if m is tandem else "cpu"  # PyTorch here runs on the CPU only


def _custom_function(m):
    class Double(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.factor = 2
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * ctx.factor

    return Double


GRAPHS = {
    "exp": lambda m, x: x.exp(),
    "mul": lambda m, x: x * x,
    "sum": lambda m, x: x.sum(),
    "view": lambda m, x: x.view(2, 2),
    "transpose": lambda m, x: x.view(2, 2).t(),
    "index": lambda m, x: x[1:],
    "matmul": lambda m, x: x.view(2, 2) @ x.view(2, 2),
    "cat": lambda m, x: m.cat([x, x]),
    "linear": lambda m, x: m.nn.functional.linear(x.view(1, 4), x.view(1, 4)),
    "copy_slices": lambda m, x: (lambda y: (y.__setitem__(0, x[1]), y)[1])(x.clone()),
    "custom_function": lambda m, x: _custom_function(m).apply(x),
}


@pytest.mark.parametrize("graph", list(GRAPHS))
def test_each_node_kind_is_a_class_named_as_pytorchs(graph, device):
    names = []
    for m in LIBS:
        x = m.arange(4.0, device=_dev(m, device)).requires_grad_()
        fn = GRAPHS[graph](m, x).grad_fn
        # (A write into a view reaches its value through copy_'s Clone and Expand nodes in tandem, where PyTorch's
        # CopySlices holds the value's own node: the same gradients, one graph level apart.)
        inputs = [type(f).__name__ for f, _ in fn.next_functions if f is not None] if graph != "copy_slices" else []
        names.append((type(fn).__name__, type(fn).__qualname__, inputs))
    assert names[1] == names[0]


def test_node_classes_are_shared_and_derive_from_node(device):
    x = tandem.ones(2, device=device, requires_grad=True)
    a, b = x.exp(), (x * 3).exp()
    assert type(a.grad_fn) is type(b.grad_fn)
    assert a.grad_fn is a.grad_fn and a.grad_fn is not b.grad_fn
    assert isinstance(a.grad_fn, tandem.autograd.graph.Node)
    assert repr(type(a.grad_fn)) == repr(type(torch.ones(1, requires_grad=True).exp().grad_fn)) == \
        "<class 'ExpBackward0'>"
    assert repr(a.grad_fn).startswith("<ExpBackward0 object at 0x")
    # The class adds nothing: attributes are still the node's (and a Function's ctx's).
    assert a.grad_fn.name() == "ExpBackward0" and a.grad_fn.next_functions[0][0].name().endswith("AccumulateGrad")
    z = _custom_function(tandem).apply(x)
    assert type(z.grad_fn).__name__ == "DoubleBackward" and z.grad_fn.factor == 2
    with pytest.raises(AttributeError, match="'ExpBackward0' object has no attribute 'nothing'"):
        a.grad_fn.nothing  # noqa: B018
    with pytest.raises(TypeError, match="cannot create weak reference to 'ExpBackward0' object"):
        __import__("weakref").ref(a.grad_fn)


def test_a_node_object_still_goes_with_its_graph(device):
    """The classes' instances are collected: a cycle through a node's metadata is freed with its graph."""
    gc.collect()
    before = tandem._C._autograd_live_nodes()
    for _ in range(3):
        y = tandem.ones(2, device=device, requires_grad=True).exp()
        y.grad_fn.metadata["output"] = y  # tensor -> node -> metadata -> tensor
        del y
    gc.collect()
    assert tandem._C._autograd_live_nodes() == before


LEAVES = {
    "factory_kwarg": lambda m, d: m.ones(3, device=d, requires_grad=True),
    "requires_grad_": lambda m, d: m.ones(3, device=d).requires_grad_(),
    "attribute": lambda m, d: (lambda t: (setattr(t, "requires_grad", True), t)[1])(m.ones(3, device=d)),
    "parameter": lambda m, d: m.nn.Parameter(m.ones(3, device=d)),
    "tensor": lambda m, d: m.tensor([1.0, 2.0, 3.0], device=d, requires_grad=True),
    "detached_copy": lambda m, d: m.ones(3, device=d).exp().detach().requires_grad_(),
    "module_parameter": lambda m, d: m.nn.Linear(3, 3).to(d).weight,
}


@pytest.mark.parametrize("leaf", list(LEAVES))
def test_accumulate_grad_variable_is_the_leaf_itself(leaf, device):
    for m in LIBS:
        x = LEAVES[leaf](m, _dev(m, device))
        acc = (x * 2).grad_fn.next_functions[0][0]
        assert type(acc).__name__ == "AccumulateGrad"
        assert acc.variable is x and acc.variable is acc.variable
        assert m.autograd.graph.get_gradient_edge(x).node.variable is x


def test_variable_of_a_model_names_its_parameters(device):
    """torchviz's way: a dict from id(parameter) to its name, looked up from each AccumulateGrad's variable."""
    model = tandem.nn.Sequential(tandem.nn.Linear(3, 4), tandem.nn.Tanh(), tandem.nn.Linear(4, 1)).to(device)
    names = {id(p): n for n, p in model.named_parameters()}
    found, seen, stack = set(), set(), [model(tandem.ones(2, 3, device=device)).sum().grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if type(fn).__name__ == "AccumulateGrad":
            found.add(names[id(fn.variable)])
        stack.extend(f for f, _ in fn.next_functions)
    assert found == set(names.values())


def test_swapped_leaves_keep_their_objects(device):
    a = tandem.ones(2, device=device, requires_grad=True)
    b = tandem.zeros(2, device=device, requires_grad=True)
    tandem.utils.swap_tensors(a, b)
    assert a.tolist() == [0.0, 0.0]
    assert (a * 2).grad_fn.next_functions[0][0].variable is a
    assert (b * 2).grad_fn.next_functions[0][0].variable is b


def test_a_leaf_wrapped_again_keeps_its_first_object(device):
    """A leaf handed back by an op that returns it (under no_grad) is the same tensor, and its first object stays
    the one AccumulateGrad.variable returns."""
    x = tandem.ones(2, device=device, requires_grad=True)
    with tandem.no_grad():
        x.add_(1)
    assert (x * 2).grad_fn.next_functions[0][0].variable is x


# ---- the slots a node lists: a Python number's slot is (None, 0); where's condition has none ----
FORMS = {
    "add_number": lambda m, b: b + 2, "radd_number": lambda m, b: 2 + b, "sub_number": lambda m, b: b - 2,
    "rsub_number": lambda m, b: 2 - b, "mul_number": lambda m, b: b * 2, "rmul_number": lambda m, b: 2 * b,
    "div_number": lambda m, b: b / 2, "pow_number": lambda m, b: b ** 2, "rpow_number": lambda m, b: 2 ** b,
    "remainder_number": lambda m, b: b % 2, "add_alpha": lambda m, b: b.add(2, alpha=3),
    "sub_alpha": lambda m, b: m.sub(b, 2, alpha=2), "mul_bool": lambda m, b: b * True,
    "mul_inplace": lambda m, b: b.clone().mul_(2), "add_inplace": lambda m, b: b.clone().add_(1),
    "add_tensor": lambda m, b: b + m.tensor(2.0), "where_number": lambda m, b: m.where(b > 0, b, 0.0),
    "where_tensors": lambda m, b: m.where(b > 0, b, b.exp()), "clamp_min_bound": lambda m, b: m.clamp(b, 0),
    "clamp_max_bound": lambda m, b: b.clamp(max=0), "clip": lambda m, b: m.clip(b, 0, 1),
    "fmod_number": lambda m, b: m.fmod(b, 2), "xlogy_number": lambda m, b: m.xlogy(b, 2),
}


def _slots(fn):
    return [(None if f is None else type(f).__name__, i) for f, i in fn.next_functions]


@pytest.mark.parametrize("form", list(FORMS))
def test_next_functions_list_pytorchs_slots(form, device):
    seen = []
    for m in LIBS:
        b = m.ones(2, device=_dev(m, device), requires_grad=True).sin()
        fn = FORMS[form](m, b).grad_fn
        seen.append((type(fn).__name__, _slots(fn)))
    assert seen[1] == seen[0]


def test_calling_a_node_gives_one_gradient_per_slot(device):
    b = tandem.ones(2, device=device, requires_grad=True).sin()
    g = tandem.ones(2, device=device)
    grad_self, grad_number = (b * 2).grad_fn(g)
    assert grad_self.tolist() == [2.0, 2.0] and grad_number is None
    grad_self, grad_other = tandem.where(b > 0, b, 0.0).grad_fn(g)
    assert grad_self.tolist() == [1.0, 1.0] and grad_other is None


def test_a_freed_product_with_a_number_refuses_another_backward(device):
    """PyTorch's MulBackward0 saves the number, so its graph is freed like any other; tandem keeps the number's
    place the same way (and the tensor itself is still not kept)."""
    for m in LIBS:
        w = m.ones(3, device=_dev(m, device), requires_grad=True)
        z = (w * 2).sum()
        z.backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            z.backward()
        d = (w / 4).sum()
        d.backward(retain_graph=True)
        d.backward()
        assert w.grad.tolist() == [2.5, 2.5, 2.5]
        s = (w + 2).sum()  # AddBackward0 saves nothing: a second backward runs
        s.backward()
        s.backward()
        assert w.grad.tolist() == [4.5, 4.5, 4.5]


# ---- a node's saved values by PyTorch's names (the autograd mechanics note's examples) ----
SAVED = {
    "pow_self": (lambda m, x: x.pow(2), "self"),
    "exp_result": (lambda m, x: x.exp(), "result"),
    "sin_self": (lambda m, x: x.sin(), "self"),
    "mul_self": (lambda m, x: x * (x + 1), "self"),
    "mul_other": (lambda m, x: x * (x + 1), "other"),
    "div_other": (lambda m, x: x / x.exp(), "other"),
    "pow_exponent": (lambda m, x: m.pow(x, x), "exponent"),
    "sigmoid_result": (lambda m, x: x.sigmoid(), "result"),
    "where_condition": (lambda m, x: m.where(x > 1, x, x.exp()), "condition"),
}


@pytest.mark.parametrize("case", list(SAVED))
def test_saved_values_by_pytorchs_names(case, device):
    seen = []
    for m in LIBS:
        x = m.arange(4.0, device=_dev(m, device)).requires_grad_()
        make, name = SAVED[case]
        y = make(m, x)
        value = getattr(y.grad_fn, "_saved_" + name)
        seen.append((value.tolist(), str(value.dtype).split(".")[-1]))
    assert seen[1] == seen[0]


def test_saved_values_identity_and_freeing(device):
    """As the note says: a saved leaf input is the leaf itself, a saved result equals the output but is another
    object, and after backward the values are gone with PyTorch's error."""
    for m in LIBS:
        x = m.randn(5, device=_dev(m, device), requires_grad=True)
        y = x.pow(2)
        assert x.equal(y.grad_fn._saved_self) and x is y.grad_fn._saved_self
        y = x.exp()
        assert y.equal(y.grad_fn._saved_result) and y is not y.grad_fn._saved_result
        y.sum().backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            y.grad_fn._saved_result  # noqa: B018
        with pytest.raises(AttributeError, match="'ExpBackward0' object has no attribute '_saved_nothing'"):
            y.grad_fn._saved_nothing  # noqa: B018
