"""torch.convolution, conv_tbc, grid_sampler(_2d/_3d), affine_grid_generator, norm_except_dim,
nn.utils.convert_conv{2,3}d_weight_memory_format and F.linear_cross_entropy / nn.LinearCrossEntropyLoss against
PyTorch: values, gradients (float64), devices and errors."""
import pytest
import torch

import tandem
from oracle import assert_close_to_torch, from_torch


def rand(*shape, seed=0, dtype=torch.float64):
    return torch.randn(tuple(shape), dtype=dtype, generator=torch.Generator().manual_seed(seed))


def check_grads(device, fn_ref, fn_ours, *tensors):
    refs = [t.clone().requires_grad_() for t in tensors]
    ours = [from_torch(t, device).requires_grad_() for t in tensors]
    want, got = fn_ref(*refs), fn_ours(*ours)
    assert_close_to_torch(got.detach(), want.detach(), device=device)
    cot = rand(*want.shape, seed=99)
    want.backward(cot)
    got.backward(from_torch(cot, device))
    for o, r in zip(ours, refs):
        assert_close_to_torch(o.grad, r.grad, device=device)


CONVOLUTIONS = [
    ((2, 4, 6, 6), (6, 2, 3, 3), ([1, 1], [1, 1], [1, 1], False, [0, 0], 2)),
    ((2, 4, 7), (4, 3, 3), ([2], [1], [1], True, [1], 1)),
    ((1, 2, 4, 4, 4), (3, 2, 2, 2, 2), ([1, 1, 1], [0, 0, 0], [2, 2, 2], False, [0, 0, 0], 1)),
]


@pytest.mark.parametrize("x_shape,w_shape,args", CONVOLUTIONS)
def test_convolution_matches_pytorch(device, x_shape, w_shape, args):
    bias_size = w_shape[1] * args[-1] if args[3] else w_shape[0]
    check_grads(device, lambda x, w, b: torch.convolution(x, w, b, *args),
                lambda x, w, b: tandem.convolution(x, w, b, *args),
                rand(*x_shape, seed=1), rand(*w_shape, seed=2), rand(bias_size, seed=3))


@pytest.mark.parametrize("case", ["int_stride", "str_padding", "groups", "dims"])
def test_convolution_errors_match_pytorch(case):
    x, w, args = torch.randn(2, 4, 6, 6), torch.randn(6, 2, 3, 3), [[1, 1], [1, 1], [1, 1], False, [0, 0], 2]
    if case == "int_stride":
        args[0] = 1
    elif case == "str_padding":
        args[1] = "same"
    elif case == "groups":
        args[-1] = 3
    elif case == "dims":
        x = x[0]
    with pytest.raises(Exception) as want:
        torch.convolution(x, w, None, *args)
    with pytest.raises(want.type) as got:
        tandem.convolution(from_torch(x), from_torch(w), None, *args)
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]


@pytest.mark.parametrize("pad", [0, 1])
def test_conv_tbc_matches_pytorch(device, pad):
    check_grads(device, lambda x, w, b: torch.conv_tbc(x, w, b, pad), lambda x, w, b: tandem.conv_tbc(x, w, b, pad),
                rand(7, 2, 4, seed=4), rand(3, 4, 5, seed=5), rand(5, seed=6))


@pytest.mark.parametrize("shapes", [((7, 2, 4), (3, 3, 5), (5,)), ((7, 2, 4), (3, 4, 5), (4,)), ((7, 2), (3, 4, 5), (5,)),
                                    ((7, 2, 4), (3, 4), (5,)), ((7, 2, 4), (3, 4, 5), (5, 1))])
def test_conv_tbc_errors_match_pytorch(shapes):
    tensors = [torch.randn(*s) for s in shapes]
    with pytest.raises(RuntimeError) as want:
        torch.conv_tbc(*tensors)
    with pytest.raises(RuntimeError) as got:
        tandem.conv_tbc(*[from_torch(t) for t in tensors])
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("name,mode,padding,align", [("grid_sampler", 0, 0, False), ("grid_sampler_2d", 1, 2, True),
                                                     ("grid_sampler_2d", 2, 1, False)])
def test_grid_sampler_2d_matches_pytorch(device, name, mode, padding, align):
    grid = rand(2, 3, 3, 2, seed=7).tanh() * 1.1
    if mode == 1:  # nearest: values only (its gradient with respect to the grid is zero)
        want = getattr(torch, name)(rand(2, 3, 5, 5, seed=8), grid, mode, padding, align)
        got = getattr(tandem, name)(from_torch(rand(2, 3, 5, 5, seed=8), device), from_torch(grid, device), mode,
                                    padding, align)
        assert_close_to_torch(got, want, device=device)
        return
    check_grads(device, lambda x, g: getattr(torch, name)(x, g, mode, padding, align),
                lambda x, g: getattr(tandem, name)(x, g, mode, padding, align), rand(2, 3, 5, 5, seed=8), grid)


def test_grid_sampler_3d_and_dimension_error():
    x, grid = rand(1, 2, 3, 3, 3, seed=9), rand(1, 2, 2, 2, 3, seed=10).tanh()
    assert_close_to_torch(tandem.grid_sampler_3d(from_torch(x), from_torch(grid), 0, 1, False),
                          torch.grid_sampler_3d(x, grid, 0, 1, False))
    with pytest.raises(RuntimeError) as want:
        torch.grid_sampler_2d(x, grid, 0, 1, False)
    with pytest.raises(RuntimeError) as got:
        tandem.grid_sampler_2d(from_torch(x), from_torch(grid), 0, 1, False)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("theta_shape,size,align", [((2, 2, 3), [2, 3, 4, 5], False), ((2, 3, 4), [2, 3, 4, 5, 6], True)])
def test_affine_grid_generator_matches_pytorch(device, theta_shape, size, align):
    check_grads(device, lambda t: torch.affine_grid_generator(t, size, align),
                lambda t: tandem.affine_grid_generator(t, size, align), rand(*theta_shape, seed=11))
    with pytest.raises(RuntimeError, match="AffineGridGenerator needs 4d"):
        tandem.affine_grid_generator(from_torch(rand(*theta_shape)), [2, 3, 4], align)


@pytest.mark.parametrize("pow_,dim", [(2, 0), (2, -1), (3, 1), (2, 2)])
def test_norm_except_dim_matches_pytorch(device, pow_, dim):
    check_grads(device, lambda v: torch.norm_except_dim(v, pow_, dim), lambda v: tandem.norm_except_dim(v, pow_, dim),
                rand(3, 4, 5, seed=12))


def test_norm_except_dim_default_and_error():
    v = rand(3, 4, 5, seed=13)
    assert_close_to_torch(tandem.norm_except_dim(from_torch(v)), torch.norm_except_dim(v))
    with pytest.raises(IndexError) as want:
        torch.norm_except_dim(v, 2, 5)
    with pytest.raises(IndexError) as got:
        tandem.norm_except_dim(from_torch(v), 2, 5)
    assert str(got.value) == str(want.value)


def test_convert_conv_weight_memory_format():
    nn = tandem.nn
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Sequential(nn.ConvTranspose2d(4, 2, 3)), nn.Conv3d(2, 3, 2))
    weight = model[0].weight
    assert nn.utils.convert_conv2d_weight_memory_format(model, tandem.channels_last) is model
    assert model[0].weight is weight  # the Parameter itself is kept, only its data re-laid out
    assert weight.is_contiguous(memory_format=tandem.channels_last)
    assert model[1][0].weight.is_contiguous(memory_format=tandem.channels_last)
    assert model[2].weight.is_contiguous() and not model[2].weight.is_contiguous(memory_format=tandem.channels_last_3d)
    nn.utils.convert_conv3d_weight_memory_format(model, tandem.channels_last_3d)
    assert model[2].weight.is_contiguous(memory_format=tandem.channels_last_3d)
    x = tandem.randn(1, 3, 6, 6)
    ref = torch.nn.functional.conv2d(torch.tensor(x.tolist()), torch.tensor(weight.tolist()),
                                     torch.tensor(model[0].bias.tolist()))
    assert_close_to_torch(model[0](x).detach(), ref, rtol=1e-5, atol=1e-5)


LCE_CASES = [
    ((3, 4), (5, 4), "index", dict()),
    ((3, 4), (5, 2, 4), "index", dict(bias=True, reduction="sum", label_smoothing=0.1)),
    ((4,), (5, 4), "index", dict(reduction="none")),
    ((3, 4), (5, 4), "prob", dict(bias=True, weight=True)),
    ((3, 4), (5, 4), "index", dict(ignore_index=1, weight=True)),
]


@pytest.mark.parametrize("x_shape,w_shape,target_kind,kw", LCE_CASES)
def test_linear_cross_entropy_matches_pytorch(device, x_shape, w_shape, target_kind, kw):
    kw = dict(kw)
    g = torch.Generator().manual_seed(14)
    batch = x_shape[:-1]
    logits_shape = (*batch, w_shape[0], *w_shape[1:-1])
    if target_kind == "index":
        target = torch.randint(0, w_shape[0], (*batch, *w_shape[1:-1]), generator=g)
        target.view(-1)[0] = kw.get("ignore_index", 0)
    else:
        target = torch.randn(logits_shape, dtype=torch.float64, generator=g).softmax(len(batch))
    tensors = [rand(*x_shape, seed=15), rand(*w_shape, seed=16)]
    if kw.pop("bias", False):
        tensors.append(rand(*w_shape[:-1], seed=17))
    class_weight = rand(w_shape[0], seed=18).abs() if kw.pop("weight", False) else None

    def call(mod, tgt, cw):
        def fn(x, w, b=None):
            return mod.nn.functional.linear_cross_entropy(x, w, tgt, linear_bias=b, weight=cw, **kw)
        return fn

    check_grads(device, call(torch, target, class_weight),
                call(tandem, from_torch(target, device), None if class_weight is None else from_torch(class_weight,
                                                                                                      device)),
                *tensors)


@pytest.mark.parametrize("case", ["input_dim", "weight_dim", "features", "bias_shape", "unbatched_k", "prob_ignore"])
def test_linear_cross_entropy_errors_match_pytorch(case):
    x, w, t, kw = torch.randn(3, 4), torch.randn(5, 4), torch.randint(0, 5, (3,)), {}
    if case == "input_dim":
        x = torch.randn(2, 3, 4)
    elif case == "weight_dim":
        w = torch.randn(4)
    elif case == "features":
        w = torch.randn(5, 3)
    elif case == "bias_shape":
        kw["linear_bias"] = torch.randn(4)
    elif case == "unbatched_k":
        x, w = torch.randn(4), torch.randn(5, 2, 4)
    elif case == "prob_ignore":
        t, kw["ignore_index"] = torch.rand(3, 5), 0
    with pytest.raises(RuntimeError) as want:
        torch.nn.functional.linear_cross_entropy(x, w, t, **kw)
    ours = {k: from_torch(v) if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
    with pytest.raises(RuntimeError) as got:
        tandem.nn.functional.linear_cross_entropy(from_torch(x), from_torch(w), from_torch(t), **ours)
    assert str(got.value) == str(want.value)


def test_linear_cross_entropy_loss_module_matches_pytorch():
    torch.manual_seed(0)
    ref = torch.nn.LinearCrossEntropyLoss(4, 5, out_features=(3,), bias=True, dtype=torch.float64,
                                          label_smoothing=0.05)
    ours = tandem.nn.LinearCrossEntropyLoss(4, 5, out_features=(3,), bias=True, dtype=tandem.float64,
                                            label_smoothing=0.05)
    ours.load_state_dict({k: from_torch(v) for k, v in ref.state_dict().items()})
    assert repr(ours) == repr(ref)
    assert list(ours.state_dict()) == list(ref.state_dict())
    x, t = rand(2, 4, seed=19), torch.randint(0, 5, (2, 3), generator=torch.Generator().manual_seed(20))
    want, got = ref(x, t), ours(from_torch(x), from_torch(t))
    assert_close_to_torch(got.detach(), want.detach())
    want.backward()
    got.backward()
    assert_close_to_torch(ours.linear.weight.grad, ref.linear.weight.grad)
    with pytest.raises(RuntimeError, match=r"expected weight shape to be \(5,\), got \(4,\)"):
        tandem.nn.LinearCrossEntropyLoss(4, 5, weight=tandem.ones(4))
    with pytest.raises(RuntimeError, match=r"expected label_smoothing to be in range \[0, 1\], got 1.5"):
        tandem.nn.LinearCrossEntropyLoss(4, 5, label_smoothing=1.5)


@pytest.mark.parametrize("kw", [dict(acc_policy="fast"), dict(chunking_method="square"), dict(batch_chunk_size=0)])
def test_linear_cross_entropy_options_validation_matches_pytorch(kw):
    with pytest.raises(ValueError) as want:
        torch.nn.LinearCrossEntropyOptions(**kw)
    with pytest.raises(ValueError) as got:
        tandem.nn.LinearCrossEntropyOptions(**kw)
    assert str(got.value) == str(want.value)
    ok = tandem.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    x, w, t = tandem.randn(3, 4), tandem.randn(5, 4), tandem.tensor([0, 1, 2])
    assert tandem.allclose(tandem.nn.functional.linear_cross_entropy(x, w, t, options=ok),
                           tandem.nn.functional.linear_cross_entropy(x, w, t))
