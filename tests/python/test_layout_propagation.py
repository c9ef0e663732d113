"""Results keep their inputs' memory layout as PyTorch's do (preserve_format, src/ops/layout.cpp): strides of
elementwise results, clone(), to(), the *_like factories and leaf gradients, compared with PyTorch on the same
layouts, with values checked too."""
import itertools

import numpy as np
import pytest

import tandem

torch = pytest.importorskip("torch")

DEVICES = ["cpu", "cuda:0"]


def _pair(shape, make_view, dtype=np.float32, seed=0):
    """The same strided view of the same data in tandem (on cpu) and PyTorch."""
    base = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    if base.size == 0:  # (torch.tensor gives an empty array all-zero strides; zeros() is row-major in both)
        return make_view(tandem.zeros(shape)), make_view(torch.zeros(shape))
    return make_view(tandem.tensor(base)), make_view(torch.tensor(base))


# Layouts: (name, base shape, view). Dense permutations, gaps (steps), size-1 and size-0 dims, channels_last.
LAYOUTS = [
    ("row_major", (2, 3, 4), lambda t: t),
    ("transpose_02", (2, 3, 4), lambda t: t.transpose(0, 2)),
    ("permute_120", (2, 3, 4), lambda t: t.permute(1, 2, 0)),
    ("permute_201", (2, 3, 4), lambda t: t.permute(2, 0, 1)),
    ("step_last", (2, 3, 4), lambda t: t[:, :, ::2]),
    ("permute_then_step", (2, 3, 4), lambda t: t.permute(2, 0, 1)[::2]),
    ("step_then_permute", (4, 3, 6), lambda t: t[::2, :, 1::3].permute(1, 2, 0)),
    ("matrix_t", (5, 7), lambda t: t.t()),
    ("column_slice", (5, 7), lambda t: t[:, 2:5]),
    ("size1_moved", (3, 1, 4), lambda t: t.transpose(0, 1)),
    ("size1_inner", (3, 4, 1), lambda t: t.transpose(1, 2)),
    ("channels_last", (2, 3, 4, 5), lambda t: t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)),
    ("channels_last_c1", (2, 1, 4, 5), lambda t: t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)),
    ("empty_transposed", (0, 3), lambda t: t.t()),
    ("empty_middle", (2, 0, 3), lambda t: t.permute(2, 1, 0)),
    ("expanded", (3, 1), lambda t: t.expand(3, 4)),
    ("expanded_t", (1, 4), lambda t: t.expand(3, 4).t()),
    ("one_dim_step", (9,), lambda t: t[::3]),
]
LAYOUT_IDS = [name for name, _, _ in LAYOUTS]


def _check(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    # Values to PyTorch's within float32 rounding (exp and sigmoid may differ in the last bit).
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=3e-7, atol=0)


UNARY = {
    "exp": lambda t: t.exp(),
    "neg": lambda t: -t,
    "abs_fn": lambda lib_t: abs(lib_t),
    "clone": lambda t: t.clone(),
    "to_float64": lambda t: t.double(),
    "to_int32": lambda t: (t * 10).to(dtype=t.new_zeros(()).int().dtype),
    "add_scalar": lambda t: t + 1,
    "rsub_scalar": lambda t: 2 - t,
    "mul_self": lambda t: t * t,
    "gt_zero": lambda t: t > 0,
    "clamp": lambda t: t.clamp(-0.5, 0.5),
    "where_self": lambda t: t.where(t > 0, t * 2),
    "sigmoid": lambda t: t.sigmoid(),
    "detach_clone": lambda t: t.detach().clone(),
}


@pytest.mark.parametrize("op", list(UNARY), ids=list(UNARY))
@pytest.mark.parametrize("name, shape, view", LAYOUTS, ids=LAYOUT_IDS)
def test_one_input_ops_keep_the_layout(op, name, shape, view):
    ours, theirs = _pair(shape, view)
    fn = UNARY[op]
    _check(fn(ours), fn(theirs))


@pytest.mark.parametrize("first, second", list(itertools.product(range(len(LAYOUTS)), repeat=2))[::7])
def test_binary_results_follow_the_first_input_that_decides(first, second):
    _, shape_a, view_a = LAYOUTS[first]
    _, shape_b, view_b = LAYOUTS[second]
    a, ta = _pair(shape_a, view_a, seed=1)
    b, tb = _pair(shape_b, view_b, seed=2)
    try:
        expected = ta + tb
    except RuntimeError:
        with pytest.raises(RuntimeError):
            a + b
        return
    _check(a + b, expected)


@pytest.mark.parametrize("case", ["t_plus_row_major", "row_major_plus_t", "broadcast_row_plus_t", "t_plus_col",
                                  "three_way_where", "cl_plus_bias"])
def test_mixed_layouts_match_pytorch(case):
    def build(lib):
        rng = np.random.default_rng(3)
        m = lib.tensor(rng.standard_normal((4, 6)).astype(np.float32))
        n = lib.tensor(rng.standard_normal((6, 4)).astype(np.float32))
        if case == "t_plus_row_major":
            return m.t() + n
        if case == "row_major_plus_t":
            return n + m.t()
        if case == "broadcast_row_plus_t":
            return lib.tensor(rng.standard_normal(4).astype(np.float32)) + m.t()
        if case == "t_plus_col":
            return m.t() + lib.tensor(rng.standard_normal((6, 1)).astype(np.float32))
        if case == "three_way_where":
            return lib.where(m.t() > 0, n, m.t())
        x = lib.tensor(rng.standard_normal((2, 3, 4, 5)).astype(np.float32)).to(memory_format=lib.channels_last)
        bias = lib.tensor(rng.standard_normal((1, 3, 1, 1)).astype(np.float32))
        return (x * 2 + bias).relu()

    _check(build(tandem), build(torch))


@pytest.mark.parametrize("name, shape, view", LAYOUTS, ids=LAYOUT_IDS)
def test_like_factories_preserve_the_layout(name, shape, view):
    ours, theirs = _pair(shape, view)
    for factory in ("empty_like", "zeros_like", "ones_like"):
        a, b = getattr(tandem, factory)(ours), getattr(torch, factory)(theirs)
        assert a.stride() == b.stride(), factory
    np.testing.assert_array_equal(tandem.full_like(ours, 2.5).numpy(), torch.full_like(theirs, 2.5).numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_moves_between_devices_keep_the_layout(device):
    x = tandem.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
    moved = x.to(device)
    assert moved.stride() == (1, 12, 4) and moved.device == tandem.device(device)
    back = moved.cpu()
    assert back.stride() == (1, 12, 4)
    np.testing.assert_array_equal(back.numpy(), x.numpy())
    sliced = x[::2].to(device, dtype=tandem.float64)
    assert sliced.stride() == torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)[::2].double().stride()


def test_contiguous_and_explicit_formats_stay_row_major():
    x, tx = _pair((2, 3, 4), lambda t: t.transpose(0, 2))
    for ours, theirs in [(x.contiguous(), tx.contiguous()),
                         (x.clone(memory_format=tandem.contiguous_format),
                          tx.clone(memory_format=torch.contiguous_format)),
                         (x.clone(memory_format=tandem.preserve_format),
                          tx.clone(memory_format=torch.preserve_format)),
                         (x.to(tandem.float64, memory_format=tandem.contiguous_format),
                          tx.to(torch.float64, memory_format=torch.contiguous_format)),
                         (x.to(tandem.float64, memory_format=tandem.preserve_format),
                          tx.to(torch.float64, memory_format=torch.preserve_format))]:
        _check(ours, theirs)


def test_view_of_a_transposed_result_fails_as_in_pytorch():
    x = tandem.ones(3, 4).t()
    with pytest.raises(RuntimeError) as ours:
        (x + 1).view(12)
    with pytest.raises(RuntimeError) as theirs:
        (torch.ones(3, 4).t() + 1).view(12)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
    assert (x + 1).reshape(12).tolist() == [2.0] * 12


def test_in_place_and_out_keep_their_own_layout():
    x, tx = _pair((3, 4), lambda t: t.t())
    out = tandem.empty(4, 3)
    tandem.add(x, 1, out=out)
    assert out.stride() == (3, 1)
    y = x.clone()
    y.add_(1)
    assert y.stride() == tx.clone().add_(1).stride() == (1, 4)


@pytest.mark.parametrize("device", DEVICES)
def test_leaf_gradients_take_their_leaf_layout(device):
    def grads(lib, dev):
        w = lib.ones(2, 3, 4, 5, device=dev).to(memory_format=lib.channels_last).requires_grad_()
        t = lib.ones(4, 3, device=dev).t().requires_grad_()  # not dense: its grad is row-major
        p = lib.ones(3, 4, device=dev).requires_grad_()
        ((w * 2).sum() + (t * 3).sum() + (p.t() * 4).sum()).backward()
        return w.grad, t.grad, p.grad

    ours = grads(tandem, device)
    theirs = grads(torch, "cpu")
    for a, b in zip(ours, theirs):
        assert a.stride() == b.stride()
        np.testing.assert_array_equal(a.cpu().numpy(), b.numpy())


def test_gradients_through_layout_changes_are_right():
    x = tandem.tensor(np.arange(12.0).reshape(3, 4)).requires_grad_()
    tx = torch.tensor(np.arange(12.0).reshape(3, 4)).requires_grad_()
    for lib, leaf in ((tandem, x), (torch, tx)):
        y = (leaf.t() * leaf.t().exp()).clone().double()
        (y * lib.arange(12.0).reshape(4, 3)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    assert x.grad.stride() == tx.grad.stride()


def _random_layout(lib, shape, perm, steps):
    """zeros of `shape` laid out in memory in dim order `perm`, then every dim sliced with its step."""
    grown = [s * st for s, st in zip(shape, steps)]
    inverse = sorted(range(len(perm)), key=perm.__getitem__)
    x = lib.zeros([grown[p] for p in perm]).permute(inverse)
    return x[tuple(slice(None, None, st) for st in steps)]


@pytest.mark.parametrize("seed", range(6))
def test_random_layouts_give_pytorchs_strides(seed):
    """Random ranks (1-5), sizes (0-4), memory orders, gaps and broadcasts: every result's strides as
    PyTorch's (one-input ops, both operand orders of a binary op, a Python number, where, comparisons)."""
    rng = np.random.default_rng(seed)
    for _ in range(60):
        nd = int(rng.integers(1, 6))
        shape = [int(rng.choice([0, 1, 2, 3, 4])) if rng.random() < 0.1 else int(rng.integers(1, 5))
                 for _ in range(nd)]
        shape_b = [s if rng.random() < 0.7 else 1 for s in shape][int(rng.integers(0, nd)) if rng.random() < 0.3
                                                                   else 0:]
        layout_a = (shape, list(rng.permutation(nd)), [int(rng.choice([1, 1, 2])) for _ in shape])
        layout_b = (shape_b, list(rng.permutation(len(shape_b))), [int(rng.choice([1, 1, 2])) for _ in shape_b])
        found = []
        for lib in (torch, tandem):
            a, b = _random_layout(lib, *layout_a), _random_layout(lib, *layout_b)
            found.append([a.exp().stride(), (a + b).stride(), (b + a).stride(), (a + 1).stride(),
                          a.clone().stride(), a.double().stride(), lib.empty_like(a).stride(),
                          lib.where(a > 0, a, b).stride(), (a > b).stride(), (a * a.clone()).stride()])
        assert found[0] == found[1], (layout_a, layout_b)


# Ops that are not plain elementwise ones: some keep the input's layout in PyTorch (index_fill, index_put,
# flip, the activations), others give row-major results (masked_fill, index_add, scatter, cumsum, softmax).
OTHER_OPS = {
    "masked_fill": lambda lib, x: x.masked_fill(x > 5, 0.0),
    "index_add": lambda lib, x: x.index_add(0, lib.tensor([0, 2], device=x.device), lib.ones(2, 3, device=x.device)),
    "index_copy": lambda lib, x: x.index_copy(0, lib.tensor([0, 2], device=x.device), lib.ones(2, 3, device=x.device)),
    "index_fill": lambda lib, x: x.index_fill(0, lib.tensor([0, 2], device=x.device), 1.0),
    "index_fill_fn": lambda lib, x: lib.index_fill(x, 1, lib.tensor([1], device=x.device), lib.tensor(2.0, device=x.device)),
    "scatter": lambda lib, x: x.scatter(0, lib.zeros(1, 3, dtype=lib.long, device=x.device), lib.ones(1, 3, device=x.device)),
    "index_put": lambda lib, x: x.index_put((lib.tensor([0, 2], device=x.device),), lib.ones(3, device=x.device)),
    "masked_scatter": lambda lib, x: x.masked_scatter(x > 5, lib.ones(12, device=x.device)),
    "lerp": lambda lib, x: x.lerp(x, 0.5),
    "addcmul": lambda lib, x: x.addcmul(x, x),
    "leaky_relu": lambda lib, x: lib.nn.functional.leaky_relu(x),
    "hardtanh": lambda lib, x: lib.nn.functional.hardtanh(x),
    "elu": lambda lib, x: lib.nn.functional.elu(x),
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "softmax": lambda lib, x: x.softmax(-1),
    "cumsum": lambda lib, x: x.cumsum(0),
    "flip": lambda lib, x: x.flip(0),
    "flip_both": lambda lib, x: x.flip(0, 1),
    "tril": lambda lib, x: x.tril(),
    "sum_keepdim": lambda lib, x: x.sum(0, keepdim=True),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", list(OTHER_OPS), ids=list(OTHER_OPS))
def test_other_ops_layouts_match_pytorch(op, device):
    ours = OTHER_OPS[op](tandem, tandem.arange(12.0, device=device).reshape(3, 4).t())
    theirs = OTHER_OPS[op](torch, torch.arange(12.0).reshape(3, 4).t())
    assert ours.stride() == theirs.stride()
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_channels_last_through_a_small_network(device):
    def run(lib, dev):
        nn = lib.nn
        rng = np.random.default_rng(5)
        model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                              nn.AvgPool2d(1), nn.AdaptiveAvgPool2d(2), nn.Conv2d(4, 2, 1))
        with lib.no_grad():
            for p in model.parameters():
                p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
        model = model.to(dev).to(memory_format=lib.channels_last)
        x = lib.tensor(rng.standard_normal((2, 3, 8, 8)).astype(np.float32)).to(dev)
        x = x.to(memory_format=lib.channels_last)
        outs, h = [], x
        for layer in model:
            h = layer(h)
            outs.append((h.stride(), h.is_contiguous(memory_format=lib.channels_last)))
        h.sum().backward()
        return outs, model[0].weight.grad.stride(), h.detach().cpu().numpy()

    ours, theirs = run(tandem, device), run(torch, "cpu")
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("layout", ["row_major", "transposed"])
def test_index_fill_and_copy_refuse_an_index_on_another_device(layout):
    """Found through this file: a cuda tensor's index_fill_/index_copy_ with a cpu index crashed the process
    (the kernel read the host index as device memory); now PyTorch's device error, as index_add_'s."""
    x = tandem.zeros(3, 4, device="cuda:0")
    x = x.t().contiguous().t() if layout == "transposed" else x
    cases = [(lambda: x.index_fill_(1, tandem.tensor([1]), 2.0), "index_fill_", "index"),
             (lambda: x.index_fill(1, tandem.tensor([1]), tandem.tensor(2.0)), "index_fill_", "index"),
             (lambda: x.index_copy_(0, tandem.tensor([1]), tandem.ones(1, 4, device="cuda:0")), "index_copy_",
              "index"),
             (lambda: x.index_copy_(0, tandem.tensor([1], device="cuda:0"), tandem.ones(1, 4)), "index_copy_",
              "source")]
    for call, op, operand in cases:
        with pytest.raises(tandem.DeviceMismatchError) as e:
            call()
        assert str(e.value).startswith("Expected all tensors to be on the same device, but found at least two "
                                       "devices, cuda:0 and cpu!")
        assert f"in {op}, {operand} is on cpu" in str(e.value)


def test_layouts_of_empty_tensors_with_huge_dims_match_pytorch():
    """An expanded empty tensor's dense strides overflow int64: the result falls back to row-major, whose
    strides raise PyTorch's error, or keeps PyTorch's strides where they fit."""
    cases = [lambda L: L.zeros(0, 1, 1).expand(0, 2**40, 2**30) + 1,
             lambda L: L.zeros(0, 1, 1).expand(0, 2**40, 2**30).permute(2, 0, 1).exp(),
             lambda L: L.zeros(1, 1, 1, 1).expand(0, 2**40, 2**20, 2**10).contiguous(),
             lambda L: L.empty_like(L.zeros(1, 1, 0, 1).expand(2**40, 2**20, 0, 2**10))]
    for case in cases:
        outcomes = []
        for lib in (torch, tandem):
            try:
                r = case(lib)
                outcomes.append((tuple(r.shape), r.stride()))
            except RuntimeError as e:
                outcomes.append(str(e).splitlines()[0])
        assert outcomes[0] == outcomes[1]


def test_lay_out_fresh_refuses_what_it_cannot_relayout():
    """The *_like factories' helper (python/src/tensor.cpp) only re-lays a fresh row-major tensor densely."""
    x = tandem.zeros(3, 4)
    with pytest.raises(RuntimeError, match="one stride per dim"):
        tandem._C._lay_out_fresh(x, [1])
    with pytest.raises(RuntimeError, match="fresh row-major tensor"):
        tandem._C._lay_out_fresh(x.t(), [1, 3])
    with pytest.raises(RuntimeError, match="lay the tensor out densely"):
        tandem._C._lay_out_fresh(x, [1, 1])
    assert x.stride() == (4, 1)  # left as it was
    tandem._C._lay_out_fresh(x, [1, 3])
    assert x.stride() == (1, 3) and tandem._C._preserved_strides(x) == (1, 3)
    assert tandem._C._preserved_strides(tandem.zeros(3, 4)) is None


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack_of_transposed_and_empty_tensors_gives_pytorchs_strides(device, dim):
    for make in (lambda lib, d: lib.arange(12.0, device=d).reshape(4, 3).t(),
                 lambda lib, d: lib.zeros(2, 0, device=d), lambda lib, d: lib.zeros(0, device=d)):
        if make(torch, "cpu").dim() <= dim:
            continue
        ours = tandem.stack([make(tandem, device), make(tandem, device) + 1], dim)
        theirs = torch.stack([make(torch, "cpu"), make(torch, "cpu") + 1], dim)
        assert (ours.shape, ours.stride()) == (theirs.shape, theirs.stride())
        assert ours._base is None and not ours._is_view()  # a fresh tensor, not a view of cat's result
        np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


# Ops whose results follow a channels-last input (or weight) in PyTorch: joins, padding, interpolation, group
# norm, 3-d and transposed convolutions, max pooling in 3-d and adaptive 2-d, the shuffles and unpooling (and
# those that stay row-major: circular padding, instance norm, average pooling in 3-d, a cat of mixed layouts).
def _cl(lib, x):
    return x.contiguous(memory_format=lib.channels_last if x.dim() == 4 else lib.channels_last_3d)


def _pooled(lib, x):
    return lib.nn.functional.max_pool2d(x, 2, return_indices=True)


FOLLOWING_OPS = {
    "cat_dim1": (4, lambda lib, F, x: lib.cat([x, x * 2], 1)),
    "cat_dim0": (4, lambda lib, F, x: lib.cat([x, x], 0)),
    "cat_mixed": (4, lambda lib, F, x: lib.cat([x, x.contiguous()], 1)),
    "cat_5d": (5, lambda lib, F, x: lib.cat([x, x], 2)),
    # stack is cat along `dim` with that dim then split (PyTorch's way): the layout follows cat's, the new dim
    # sits next to the one it split; stacking after the last dim unsqueezes first (row-major here)
    "stack_dim0": (4, lambda lib, F, x: lib.stack([x, x * 2])),
    "stack_dim1": (4, lambda lib, F, x: lib.stack([x, x * 2], 1)),
    "stack_dim2": (4, lambda lib, F, x: lib.stack([x, x], 2)),
    "stack_last": (4, lambda lib, F, x: lib.stack([x, x], -1)),
    "stack_mixed": (4, lambda lib, F, x: lib.stack([x, x.contiguous()], 1)),
    "stack_5d": (5, lambda lib, F, x: lib.stack([x, x, x], 3)),
    "pad_constant": (4, lambda lib, F, x: F.pad(x, (1, 1, 2, 0), value=3.0)),
    "pad_last_dim": (4, lambda lib, F, x: F.pad(x, (2, 1))),
    "pad_reflect": (4, lambda lib, F, x: F.pad(x, (1, 1, 1, 1), mode="reflect")),
    "pad_replicate_5d": (5, lambda lib, F, x: F.pad(x, (1, 1, 1, 1, 1, 1), mode="replicate")),
    "pad_circular": (4, lambda lib, F, x: F.pad(x, (1, 1, 1, 1), mode="circular")),
    "nearest": (4, lambda lib, F, x: F.interpolate(x, scale_factor=2)),
    "bilinear": (4, lambda lib, F, x: F.interpolate(x, size=(7, 5), mode="bilinear", align_corners=True)),
    "bicubic": (4, lambda lib, F, x: F.interpolate(x, scale_factor=1.5, mode="bicubic")),
    "antialias": (4, lambda lib, F, x: F.interpolate(x, size=(2, 3), mode="bilinear", antialias=True)),
    "trilinear": (5, lambda lib, F, x: F.interpolate(x, scale_factor=2, mode="trilinear")),
    "area": (4, lambda lib, F, x: F.interpolate(x, size=(2, 2), mode="area")),
    "group_norm": (4, lambda lib, F, x: F.group_norm(x, 2)),
    "group_norm_5d": (5, lambda lib, F, x: F.group_norm(x, 1)),
    "instance_norm": (4, lambda lib, F, x: F.instance_norm(x)),
    "conv3d": (5, lambda lib, F, x: F.conv3d(x, lib.ones(2, 4, 2, 2, 2, device=x.device) / 8)),
    "conv_transpose2d": (4, lambda lib, F, x: F.conv_transpose2d(x, lib.ones(4, 2, 3, 3, device=x.device) / 9, stride=2)),
    "conv_transpose3d": (5, lambda lib, F, x: F.conv_transpose3d(x, lib.ones(4, 2, 2, 2, 2, device=x.device) / 8)),
    "max_pool3d": (5, lambda lib, F, x: F.max_pool3d(x, 2, return_indices=True)),
    "avg_pool3d": (5, lambda lib, F, x: F.avg_pool3d(x, 2)),
    "adaptive_max_pool2d": (4, lambda lib, F, x: F.adaptive_max_pool2d(x, (2, 3), return_indices=True)),
    "adaptive_max_pool3d": (5, lambda lib, F, x: F.adaptive_max_pool3d(x, 2)),
    "pixel_shuffle": (4, lambda lib, F, x: F.pixel_shuffle(x, 2)),
    "pixel_unshuffle": (4, lambda lib, F, x: F.pixel_unshuffle(x, 2)),
    "channel_shuffle": (4, lambda lib, F, x: F.channel_shuffle(x, 2)),
    "channel_shuffle_5d": (5, lambda lib, F, x: F.channel_shuffle(x, 2)),
    "max_unpool2d": (4, lambda lib, F, x: F.max_unpool2d(*_pooled(lib, x), 2)),
    "upsample_module": (4, lambda lib, F, x: lib.nn.Upsample(scale_factor=2, mode="bilinear")(x)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", list(FOLLOWING_OPS), ids=list(FOLLOWING_OPS))
def test_ops_following_a_channels_last_input_match_pytorch(op, device):
    rank, fn = FOLLOWING_OPS[op]
    shape = (2, 4, 4, 6) if rank == 4 else (2, 4, 4, 4, 6)
    data = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    results = []
    for lib, dev in ((torch, "cpu"), (tandem, device)):
        x = _cl(lib, lib.tensor(data).to(dev)).requires_grad_()
        out = fn(lib, lib.nn.functional, x)
        outs = out if isinstance(out, tuple) else (out,)
        outs[0].float().pow(2).sum().backward()
        results.append([(o.stride(), o.detach().cpu().numpy()) for o in outs] + [x.grad.cpu().numpy()])
    theirs, ours = results
    for (their_strides, their_values), (our_strides, our_values) in zip(theirs[:-1], ours[:-1]):
        assert our_strides == their_strides
        np.testing.assert_allclose(our_values, their_values, rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(ours[-1], theirs[-1], rtol=2e-4, atol=2e-4)  # the input's gradient
