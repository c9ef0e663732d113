"""torch.X forms of nn.functional ops (ATen signatures: int reduction, torch.embedding(weight, indices), ...)
and the in-place function forms torch.X_(t), against PyTorch on every device."""
import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error, rand_values


def _t(lib, values, device, dtype="float64", grad=False):
    x = lib.tensor(values, dtype=getattr(lib, dtype), device=device if lib is tandem else "cpu")
    return x.requires_grad_() if grad else x


def _compare(got, want, device):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w, device)
        return
    assert_same(got, want, device=tandem.device(device))


def _check(case, device, grads=True):
    """case(lib, device) -> (output, leaves): values, dtypes and (float64) gradients of sin(output).sum()."""
    got, got_leaves = case(tandem, device)
    want, want_leaves = case(torch, "cpu")
    _compare(got, want, device)
    if grads and want_leaves:
        first = want[0] if isinstance(want, tuple) else want
        first.sin().sum().backward()
        (got[0] if isinstance(got, tuple) else got).sin().sum().backward()
        for g, w in zip(got_leaves, want_leaves):
            if w.grad is None:
                assert g.grad is None
            else:
                assert_same(g.grad, w.grad)


X3 = rand_values(2, 3, 8, seed=1)
W3 = rand_values(4, 3, 3, seed=2)
X4 = rand_values(2, 3, 5, 6, seed=3)
X5 = rand_values(1, 2, 4, 4, 4, seed=4)


def _conv(name, x, w, **kw):
    def case(lib, dev):
        a, b = _t(lib, x, dev, grad=True), _t(lib, w, dev, grad=True)
        return getattr(lib, name)(a, b, **kw), [a, b]
    return case


@pytest.mark.parametrize("case", [
    _conv("conv1d", X3, W3, stride=2, padding=1),
    _conv("conv3d", X5, rand_values(3, 2, 2, 2, 2, seed=5), dilation=1, groups=1),
    _conv("conv_transpose1d", X3, rand_values(3, 2, 3, seed=6), stride=2, output_padding=1),
    _conv("conv_transpose2d", X4, rand_values(3, 2, 2, 2, seed=7), padding=1),
    _conv("conv_transpose3d", X5, rand_values(2, 2, 2, 2, 2, seed=8)),
], ids=["conv1d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"])
def test_convolutions(case, device):
    _check(case, device)


def _unary(name, x, *args, **kw):
    def case(lib, dev):
        a = _t(lib, x, dev, grad=True)
        return getattr(lib, name)(a, *args, **kw), [a]
    return case


@pytest.mark.parametrize("case", [
    _unary("max_pool1d", X3, 2), _unary("max_pool1d", X3, 3, 2, 1, 1, True),
    _unary("max_pool2d", X4, (2, 3)), _unary("max_pool3d", X5, 2, 1),
    _unary("max_pool1d_with_indices", X3, 2), _unary("avg_pool1d", X3, 3, 2, 1, False, False),
    _unary("adaptive_avg_pool1d", X3, 3), _unary("adaptive_max_pool1d", X3, 3),
    _unary("pixel_shuffle", rand_values(1, 8, 2, 3, seed=9), 2),
    _unary("pixel_unshuffle", rand_values(1, 2, 4, 6, seed=9), 2),
    _unary("channel_shuffle", rand_values(2, 6, 2, 2, seed=10), 3),
    _unary("selu", X3), _unary("celu", X3), _unary("celu", X3, 0.5),
    _unary("threshold", X3, 0.1, -2.0), _unary("hardshrink", X3), _unary("hardshrink", X3, 0.3),
    _unary("layer_norm", X3, [8]), _unary("group_norm", X4, 3), _unary("rms_norm", X3, [3, 8]),
], ids=lambda c: c.__qualname__)
def test_shape_ops_and_activations(case, device):
    _check(case, device)


def test_max_pool_forms_take_no_return_indices(device):
    x = tandem.ones(1, 2, 4, device=device)
    with pytest.raises(TypeError):
        tandem.max_pool1d(x, 2, return_indices=True)


def test_batch_and_instance_norm(device):
    def case(lib, dev, name, training):
        x = _t(lib, X4, dev, grad=True)
        w, b = _t(lib, [1.0, 2.0, 0.5], dev, grad=True), _t(lib, [0.1, 0.0, -0.2], dev, grad=True)
        rm, rv = _t(lib, [0.0, 0.5, 1.0], dev), _t(lib, [1.0, 2.0, 0.5], dev)
        out = getattr(lib, name)(x, w, b, rm, rv, training, 0.1, 1e-5, True)
        return (out, rm, rv), [x, w, b]

    for name in ("batch_norm", "instance_norm"):
        for training in (True, False):
            _check(lambda lib, dev: case(lib, dev, name, training), device)
    assert_same_error(lambda lib: lib.batch_norm(lib.ones(2, 3), None, None, None, None, True, 0.1, 1e-5))


def test_prelu(device):
    _check(lambda lib, dev: (lambda x, w: (lib.prelu(x, w), [x, w]))(_t(lib, X3, dev, grad=True),
                                                                      _t(lib, [0.1, 0.2, 0.3], dev, grad=True)),
           device)


def test_embedding(device):
    for padding_idx, freq in ((-1, False), (2, False), (-1, True), (2, True)):
        def case(lib, dev):
            w = _t(lib, rand_values(5, 3, seed=11), dev, grad=True)
            i = lib.tensor([[1, 2], [2, 4]], device=dev if lib is tandem else "cpu")
            return lib.embedding(w, i, padding_idx, scale_grad_by_freq=freq), [w]
        _check(case, device)
    assert_same_error(lambda lib: lib.embedding(lib.ones(3, 2), lib.tensor([5])))


def test_embedding_bag_output(device):
    for mode in (0, 1, 2):
        def case(lib, dev):
            w = _t(lib, rand_values(10, 3, seed=12), dev, grad=True)
            d = dev if lib is tandem else "cpu"
            out = lib.embedding_bag(w, lib.tensor([1, 2, 4, 5, 4, 3, 2, 9], device=d), lib.tensor([0, 4], device=d),
                                    False, mode)
            return out[0], [w]
        _check(case, device)


def _loss(name, xs, *args, **kw):
    def case(lib, dev):
        leaves = [_t(lib, x, dev, grad=True) for x in xs[:2]]
        rest = [_t(lib, x, dev) for x in xs[2:]]
        return getattr(lib, name)(*leaves, *rest, *args, **kw), leaves
    return case


A, B = rand_values(4, 5, seed=13), rand_values(4, 5, seed=14, low=0.1, high=1.0)
SIGNS4 = [1.0, -1.0, -1.0, 1.0]


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("make", [
    lambda r: _loss("kl_div", [A, B], r), lambda r: _loss("kl_div", [A, A], r, log_target=True),
    lambda r: _loss("poisson_nll_loss", [A, B], True, False, 1e-8, r),
    lambda r: _loss("poisson_nll_loss", [B, B], False, True, 1e-8, r),
    lambda r: _loss("cosine_embedding_loss", [A, B, SIGNS4], 0.1, r),
    lambda r: _loss("margin_ranking_loss", [A[0], B[0], [1.0, -1.0, 1.0, -1.0, 1.0]], 0.2, r),
    lambda r: _loss("hinge_embedding_loss", [A, [[1.0, -1.0, 1.0, -1.0, 1.0]] * 4], 0.5, r),
    lambda r: _loss("triplet_margin_loss", [A, B, rand_values(4, 5, seed=15)], 1.0, 2.0, 1e-6, True, r),
    lambda r: _loss("binary_cross_entropy_with_logits", [A, B], None, None, r),
])
def test_losses_with_int_reduction(make, reduction, device):
    _check(make(reduction), device)


def test_ctc_loss(device):
    def case(lib, dev):
        d = dev if lib is tandem else "cpu"
        lp = _t(lib, rand_values(6, 2, 4, seed=16), dev, grad=True)
        log_probs = lp.log_softmax(2)
        targets = lib.tensor([[1, 2], [3, 1]], device=d)
        return lib.ctc_loss(log_probs, targets, [6, 5], [2, 2], 0, 1, False), [lp]
    _check(case, device)


def test_reduction_must_be_int():
    assert_same_error(lambda lib: lib.kl_div(lib.ones(2), lib.ones(2), "mean"))


@pytest.mark.parametrize("name,args", [
    ("abs_", ()), ("exp_", ()), ("sigmoid_", ()), ("relu_", ()), ("clamp_", (-0.5, 0.5)), ("fill_", (3.0,)),
    ("zero_", ()), ("selu_", ()), ("celu_", (0.5,)), ("threshold_", (0.1, 2.0)), ("deg2rad_", ()),
    ("rad2deg_", ()), ("tanh_", ()), ("trunc_", ()), ("xlogy_", (2.0,)),
])
def test_in_place_forms(name, args, device):
    got = tandem.tensor(X3, dtype=tandem.float64, device=device)
    want = torch.tensor(X3, dtype=torch.float64)
    result = getattr(tandem, name)(got, *args)
    getattr(torch, name)(want, *args)
    assert result is got
    assert_same(got, want)


def test_in_place_form_errors():
    assert_same_error(lambda lib: lib.abs_(3))
    assert_same_error(lambda lib: lib.deg2rad_(lib.tensor([1, 2])))
    assert_same_error(lambda lib: lib.channel_shuffle(lib.ones(1, 4, 2, 2), 3))
    assert_same_error(lambda lib: lib.channel_shuffle(lib.ones(4), 2))
    assert_same_error(lambda lib: lib.channel_shuffle(lib.ones(1, 4, 2, 2), 0))
    assert_same_error(lambda lib: lib.fill(lib.ones(2), lib.ones(2)))
    assert_same_error(lambda lib: lib.prelu(lib.tensor([1, 2]), lib.tensor([1])))
    assert_same_error(lambda lib: lib.embedding(lib.ones(3, 2), lib.tensor([1.0])))
    assert_same_error(lambda lib: lib.binary_cross_entropy_with_logits(lib.ones(3), lib.ones(4)))


def test_bce_with_logits_broadcasts_target(device):
    def case(lib, dev):
        x = _t(lib, rand_values(3, 1, seed=20), dev, grad=True)
        return lib.binary_cross_entropy_with_logits(x, _t(lib, rand_values(3, 4, seed=21, low=0.0), dev), None,
                                                    None, 0), [x]
    _check(case, device, grads=False)  # PyTorch's own backward refuses a broadcast input
    x = tandem.tensor(rand_values(3, 1, seed=20), dtype=tandem.float64, device=device, requires_grad=True)
    tandem.binary_cross_entropy_with_logits(x, tandem.ones(3, 4, dtype=tandem.float64, device=device)).backward()
    assert x.grad.shape == (3, 1)


def test_dropout_in_place_forms(device):
    x = tandem.ones(4, 5, device=device)
    assert tandem.dropout_(x, 0.0, True) is x and x.tolist() == [[1.0] * 5] * 4
    assert tandem.dropout_(x, 1.0, True) is x and x.tolist() == [[0.0] * 5] * 4
    y = tandem.ones(4, 5, device=device)
    assert tandem.feature_dropout_(y, 0.5, False) is y and y.tolist() == [[1.0] * 5] * 4
    assert_same_error(lambda lib: lib.dropout_(lib.ones(2), 1.5, True))
    assert_same_error(lambda lib: lib.feature_alpha_dropout_(lib.ones(2), 0.5, True))


def test_fill(device):
    for value in (2.7, 3):
        assert_same(tandem.fill(tandem.ones(2, 3, dtype=tandem.int32, device=device), value),
                    torch.fill(torch.ones(2, 3, dtype=torch.int32), value))


def test_rrelu_and_bilinear_forms(device):
    x = tandem.tensor([-2.0, -0.5, 1.0], device=device)
    assert tandem.rrelu(x).tolist() == pytest.approx(torch.rrelu(torch.tensor([-2.0, -0.5, 1.0])).tolist())
    a, b, w = tandem.ones(2, 3, device=device), tandem.ones(2, 4, device=device), tandem.ones(5, 3, 4, device=device)
    got = tandem.bilinear(a, b, w, tandem.ones(5, device=device))
    want = torch.bilinear(torch.ones(2, 3), torch.ones(2, 4), torch.ones(5, 3, 4), torch.ones(5))
    assert got.device == tandem.device(device) and got.tolist() == want.tolist()
