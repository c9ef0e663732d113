"""In-place ops under autograd as a matrix, beyond inplace_aliasing.py and autograd_misuse2.py (one case per misuse
there): a leaf x (3, 4) that requires grad reaches an in-place op through one of many paths (itself; a view of it;
a non-leaf y = 1.5 x and views of y by indexing, transposing, diagonal, narrow-then-select; the outputs of unbind,
split, split_with_sizes and chunk, which PyTorch refuses to modify in place; tensors saved for backward by mul, pow,
exp, sigmoid and by a view's base; detach() of a leaf and of a non-leaf; a leaf under no_grad; inference-mode
tensors used outside it), and each in-place op (add_, mul_, copy_, zero_, fill_, exp_, sigmoid_, clamp_, setitem,
detach_, requires_grad_(False/True), t_, mul_ by another leaf) runs, then the loss through the path's output is
backpropagated; a second pass starts from a leaf that is itself a view. Compared: the error (type and PyTorch's first line, version-counter errors included) or x.grad and
the written tensor's requires_grad, is_leaf, and whether it has a grad_fn."""
from . import R


def _leaf(L, d):
    """A leaf that is not a view (R's tensor is a view of its arange on the CPU, not after a move to a GPU)."""
    return R(L, (3, 4), d, "float64").clone().requires_grad_()


def _view_leaf(L, d):
    """A leaf that is a view: requires_grad_() on a view of a tensor that records nothing (PyTorch's leaf views)."""
    return R(L, (12,), d, "float64").clone().view(3, 4).requires_grad_()


def _w(L, t):
    return R(L, tuple(t.shape), str(t.device), "float64", 2.0)


def _inference(L, d):
    with L.inference_mode():
        return R(L, (3, 4), d, "float64").clone()


# Each setup: (target, output, context) from the leaf: the op writes target (under context when given), and the
# loss is (output * weights).sum().
SETUPS = {
    "leaf": lambda L, x: (x, x, None),
    "leaf_index": lambda L, x: (x[0], x, None),
    "leaf_t": lambda L, x: (x.t(), x, None),
    "leaf_unbind": lambda L, x: (x.unbind()[0], x, None),
    "nonleaf": lambda L, x: (lambda y: (y, y, None))(x * 1.5),
    "nonleaf_index": lambda L, x: (lambda y: (y[1], y, None))(x * 1.5),
    "nonleaf_slice": lambda L, x: (lambda y: (y[:, 1:3], y, None))(x * 1.5),
    "nonleaf_t": lambda L, x: (lambda y: (y.t(), y, None))(x * 1.5),
    "nonleaf_diagonal": lambda L, x: (lambda y: (y.diagonal(), y, None))(x * 1.5),
    "nonleaf_view_of_view": lambda L, x: (lambda y: (y.narrow(0, 1, 2)[0], y, None))(x * 1.5),
    "nonleaf_reshape_view": lambda L, x: (lambda y: (y.view(12), y, None))(x * 1.5),
    "nonleaf_unbind": lambda L, x: (lambda y: (y.unbind()[1], y, None))(x * 1.5),
    "nonleaf_unbind_dim1": lambda L, x: (lambda y: (y.unbind(1)[0], y, None))(x * 1.5),
    "nonleaf_split": lambda L, x: (lambda y: (y.split(2)[0], y, None))(x * 1.5),
    "nonleaf_split_sizes": lambda L, x: (lambda y: (y.split([1, 2])[1], y, None))(x * 1.5),
    "nonleaf_chunk": lambda L, x: (lambda y: (y.chunk(2, 1)[1], y, None))(x * 1.5),
    "nonleaf_unbind_view": lambda L, x: (lambda y: (y.unbind()[1][1:], y, None))(x * 1.5),
    "saved_by_mul": lambda L, x: (lambda y: (y, y * y, None))(x * 1.5),
    "saved_by_pow": lambda L, x: (lambda y: (y, y.pow(3), None))(x * 1.5),
    "input_of_exp": lambda L, x: (lambda y: (y, y.exp(), None))(x * 1.5),
    "output_of_exp": lambda L, x: (lambda z: (z, z, None))((x * 1.5).exp()),
    "output_of_sigmoid_view": lambda L, x: (lambda z: (z[0], z, None))((x * 1.5).sigmoid()),
    "base_saved_view_written": lambda L, x: (lambda y: (y[0], y * y, None))(x * 1.5),
    "leaf_detached": lambda L, x: (x.detach(), x * 2.0, None),
    "leaf_detached_saved": lambda L, x: (x.detach(), x * x, None),
    "nonleaf_detached_saved": lambda L, x: (lambda y: (y.detach(), y * y, None))(x * 1.5),
    "leaf_no_grad": lambda L, x: (x, x * 2.0, L.no_grad),
    "leaf_index_no_grad": lambda L, x: (x[1], x * 2.0, L.no_grad),
    "leaf_saved_no_grad": lambda L, x: (x, x * x, L.no_grad),
    "inference_outside": lambda L, x: (lambda t: (t, x * 2.0 + t, None))(_inference(L, str(x.device))),
    "inference_inside": lambda L, x: (lambda t: (t, x * 2.0, L.inference_mode))(_inference(L, str(x.device))),
}

OPS = {
    "add_": lambda L, t: t.add_(1.0),
    "mul_": lambda L, t: t.mul_(2.0),
    "copy_": lambda L, t: t.copy_(L.full(t.shape, 0.25, dtype=t.dtype, device=t.device)),
    "zero_": lambda L, t: t.zero_(),
    "fill_": lambda L, t: t.fill_(3.0),
    "exp_": lambda L, t: t.exp_(),
    "sigmoid_": lambda L, t: t.sigmoid_(),
    "clamp_": lambda L, t: t.clamp_(min=0.0),
    "setitem": lambda L, t: t.__setitem__(0, 5.0),
    "detach_": lambda L, t: t.detach_(),
    "requires_grad_false": lambda L, t: t.requires_grad_(False),
    "requires_grad_true": lambda L, t: t.requires_grad_(True),
    "t_": lambda L, t: t.t_() if t.dim() <= 2 else t,
    "mul_by_leaf": lambda L, t: t.mul_(R(L, tuple(t.shape), str(t.device), "float64", 1.0).requires_grad_()),
}


def _run(L, d, setup, op, leaf=_leaf):
    x = leaf(L, d)
    target, output, context = setup(L, x)
    if context is None:
        op(L, target)
    else:
        with context():
            op(L, target)
    state = (target.requires_grad, target.is_leaf, target.grad_fn is None)
    (output * _w(L, output)).sum().backward()
    return x.grad, state


CASES = {}
for _s, _setup in SETUPS.items():
    for _o, _op in OPS.items():
        CASES[f"{_s}/{_o}"] = lambda L, d, setup=_setup, op=_op: _run(L, d, setup, op)
# The same paths from a leaf that is itself a view (of a base that records nothing).
for _s in ("leaf", "leaf_index", "leaf_unbind", "nonleaf", "nonleaf_index", "saved_by_mul", "leaf_detached_saved",
           "leaf_no_grad", "leaf_saved_no_grad"):
    for _o, _op in OPS.items():
        CASES[f"view_leaf/{_s}/{_o}"] = lambda L, d, setup=SETUPS[_s], op=_op: _run(L, d, setup, op, _view_leaf)

# Version counters seen directly: a write bumps every view's and the base's counter; detach shares it.
CASES["version/view_and_base"] = lambda L, d: (lambda x: (x[0].add_(1), x._version, x[0]._version))(
    R(L, (3, 4), d, "float64"))
CASES["version/detach_shares"] = lambda L, d: (lambda x: (x.detach().mul_(2), x._version))(R(L, (3, 4), d, "float64"))
CASES["version/unbind_outputs"] = lambda L, d: (lambda x: (x.unbind()[0].add_(1), [u._version for u in x.unbind()]))(
    R(L, (3, 4), d, "float64"))
CASES["version/out_bumps"] = lambda L, d: (lambda x, o: (L.add(x, 1, out=o), o._version))(
    R(L, (3,), d, "float64"), L.empty(3, dtype=L.float64, device=d))
# grad through a view written in place after its base was used
CASES["grad/base_used_then_view_written"] = lambda L, d: (lambda x: (lambda y: (
    lambda z: (y[0].mul_(3), (z.sum() + y.sum()).backward(), x.grad)[2])(y * 2))(x * 1.0))(_leaf(L, d))
CASES["grad/two_views_written"] = lambda L, d: (lambda x: (lambda y: (
    y[0].mul_(2), y[:, 1].add_(x[0, 0]), (y * _w(L, y)).sum().backward(), x.grad)[3])(x * 1.0))(_leaf(L, d))
CASES["grad/view_written_with_leaf_values"] = lambda L, d: (lambda x: (lambda y: (
    y[1].copy_(x[0] * 3), (y * _w(L, y)).sum().backward(), x.grad)[2])(x.clone()))(_leaf(L, d))
CASES["grad/inplace_on_expand"] = lambda L, d: (lambda x: (lambda y: (
    y.expand(3, 4).add_(1), y.sum().backward(), x.grad)[2])(x[:, :1] * 1.0))(_leaf(L, d))
CASES["grad/retain_then_modify"] = lambda L, d: (lambda x: (lambda y: (
    y.retain_grad(), y.mul_(2), (y * 1.0).sum().backward(), y.grad, x.grad)[3:])(x * 1.0))(_leaf(L, d))
CASES["grad/view_leaf_retain_then_modify"] = lambda L, d: (lambda x: (lambda y: (
    y.retain_grad(), y.mul_(2), (y * 1.0).sum().backward(), y.grad, x.grad)[3:])(x * 1.0))(_view_leaf(L, d))
CASES["grad/set_data_then_backward"] = lambda L, d: (lambda x: (lambda z: (
    setattr(x, "data", R(L, (3, 4), d, "float64", 1.0)), z.sum().backward(), x.grad)[2])(x * x))(_leaf(L, d))
CASES["grad/inference_saved"] = lambda L, d: (lambda x, t: (x * t).sum())(_leaf(L, d), _inference(L, d))
CASES["grad/inference_requires_grad_"] = lambda L, d: _inference(L, d).requires_grad_()
CASES["grad/inference_clone_ok"] = lambda L, d: (lambda x, t: ((x * t.clone()).sum().backward(), x.grad)[1])(
    _leaf(L, d), _inference(L, d))
CASES["grad/inference_view_inplace"] = lambda L, d: _inference(L, d)[0].add_(1)
CASES["grad/no_grad_view_then_inplace"] = lambda L, d: (lambda x: (lambda v: (v.add_(1), v.requires_grad)[1])(
    _no_grad_view(L, x)))(_leaf(L, d))
CASES["grad/no_grad_view_of_nonleaf_then_inplace"] = lambda L, d: (lambda x: (lambda y: (lambda v: (
    v.mul_(2), (y * 1.0).sum().backward(), x.grad)[2])(_no_grad_view(L, y)))(x * 1.0))(_leaf(L, d))


def _no_grad_view(L, t):
    with L.no_grad():
        return t[0]


_GEOMETRY = ("deliberate: t_() (and transpose_/swapdims_) on a non-leaf that records gradients is tandem's "
             "NotImplementedError with a hint (the graph cannot follow the re-pointing: _compositions.py, "
             "_geometry_in_place); PyTorch re-points the tensor and records TBackward0, and its later version "
             "errors name T1")
_SHARED_WRITE = ("deliberate: an in-place write of a tensor that requires grad into one that shares memory with others "
                 "(x.detach().mul_(w)) is tandem's NotImplementedError with a hint; PyTorch writes it and fails the "
                 "backward of anything that saved x ('... is at version 1; expected version 0')")
# A view of an output of unbind/split/chunk inherits PyTorch's multi-output mark (writing it in place is "Output 0 of
# Select is a view and is being modified inplace...") since session 46 (ViewCreation::MultiOutput, src/ops/view.cpp
# and src/autograd/node.cpp check_inplace).
# Backward through a saved tensor detached in place is PyTorch's "Trying to use a saved tensor that has been detached
# in-place" since session 47 (src/autograd/node.cpp, SavedTensor::unpack).
# A leaf whose requires_grad was turned off after the graph used it gets no gradient (AccumulateGrad skips it, as
# PyTorch's) since session 46 (src/autograd/node.cpp).
# The version-counter error names a numbered node as PyTorch (ClampBackward1 is "Clamp1"), and copy_, fill_ and zero_
# record PyTorch's torch::autograd::CopyBackwards, FillBackward2 and ZeroBackward0, since session 46
# (src/autograd/node.cpp, formulas_copy.cpp).
# A retain_grad() moves to the tensor's new grad_fn on an in-place write (y.grad is the gradient of the written y)
# since session 47 (src/autograd/node.cpp, move_retained_grad).
# A leaf transposed in place under no_grad after the graph used it fails backward with PyTorch's copy_ size error
# ("The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1") since session 47:
# AccumulateGrad copies the first gradient into the leaf's current shape (src/autograd/node.cpp).
KNOWN = {}
for _name in CASES:
    _path, _, _op = _name.removeprefix("view_leaf/").rpartition("/")
    if _op == "t_" and (_path.startswith(("output_of", "saved_by")) or _path in (
            "nonleaf", "nonleaf_index", "nonleaf_slice", "nonleaf_t", "nonleaf_diagonal", "nonleaf_view_of_view",
            "nonleaf_reshape_view", "base_saved_view_written", "input_of_exp")):
        KNOWN[_name] = _GEOMETRY
    elif _op == "mul_by_leaf" and _path in ("leaf_detached", "leaf_detached_saved", "nonleaf_detached_saved"):
        KNOWN[_name] = _SHARED_WRITE
