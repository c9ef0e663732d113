"""nn.utils: gradient clipping by norm and by value, and parameter/vector conversion, against PyTorch."""
import math
import warnings

import pytest
import torch

import tandem
from tandem import nn
from tandem.nn import utils

NAMES = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
         "parameters_to_vector", "vector_to_parameters"]


def to_tandem(t, device="cpu"):
    return tandem.tensor(t.tolist(), dtype=getattr(tandem, str(t.dtype).split(".")[-1])).to(device)


def to_list(t):
    return t.cpu().tolist()


def make_params(shapes, dtype=torch.float64, none_grads=(), device="cpu", scale=1.0):
    """Matching torch and tandem parameters with the same gradients (None for the indices in none_grads)."""
    g = torch.Generator().manual_seed(0)
    ref, ours = [], []
    for i, shape in enumerate(shapes):
        data = torch.randn(shape, generator=g, dtype=dtype)
        r = torch.nn.Parameter(data.clone())
        o = nn.Parameter(to_tandem(data, device))
        if i not in none_grads:
            grad = torch.randn(shape, generator=g, dtype=dtype) * scale
            r.grad = grad
            o.grad = to_tandem(grad, device)
        ref.append(r)
        ours.append(o)
    return ref, ours


def assert_grads_equal(ref, ours, rel=1e-12):
    for r, o in zip(ref, ours):
        if r.grad is None:
            assert o.grad is None
        else:
            assert to_list(o.grad.flatten()) == pytest.approx(r.grad.flatten().tolist(), rel=rel, abs=1e-12,
                                                              nan_ok=True)


def test_names_match_torch():
    for name in NAMES:
        assert callable(getattr(utils, name)) and hasattr(torch.nn.utils, name)
    assert nn.utils is utils


NORMS = [2.0, 1, 3.5, math.inf, -math.inf, 0, "inf"]


@pytest.mark.parametrize("norm_type", NORMS)
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, device):
    ref, ours = make_params([(3, 4), (5,), (2, 2, 2), (1,)], none_grads=(3,), device=device)
    expected = torch.nn.utils.clip_grad_norm_(ref, max_norm, norm_type)
    total = utils.clip_grad_norm_(ours, max_norm, norm_type)
    assert isinstance(total, tandem.Tensor) and total.dim() == 0 and total.dtype == tandem.float64
    assert total.device == ours[0].device
    assert total.item() == pytest.approx(expected.item(), rel=1e-12)
    assert_grads_equal(ref, ours)


@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm_float32_and_foreach(foreach):
    ref, ours = make_params([(7, 3), (11,)], dtype=torch.float32, scale=5.0)
    expected = torch.nn.utils.clip_grad_norm_(ref, 1.0, foreach=foreach)
    total = utils.clip_grad_norm_(ours, 1.0, foreach=foreach)
    assert total.dtype == tandem.float32 and total.item() == pytest.approx(expected.item(), rel=1e-6)
    assert_grads_equal(ref, ours, rel=1e-6)


def test_clip_grad_norm_single_tensor_and_generator():
    ref, ours = make_params([(6,)], scale=3.0)
    expected = torch.nn.utils.clip_grad_norm_(ref[0], 0.25)
    assert utils.clip_grad_norm_(ours[0], 0.25).item() == pytest.approx(expected.item(), rel=1e-12)
    assert_grads_equal(ref, ours)
    ref, ours = make_params([(2, 3), (4,)], scale=3.0)
    torch.nn.utils.clip_grad_norm_((p for p in ref), 0.1)
    utils.clip_grad_norm_((p for p in ours), 0.1)
    assert_grads_equal(ref, ours)


def test_clip_grad_norm_of_a_model_scales_its_gradients():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 1))
    model(tandem.randn(8, 4)).sum().backward()
    before = utils.get_total_norm([p.grad for p in model.parameters()]).item()
    total = utils.clip_grad_norm_(model.parameters(), max_norm=before / 4)
    assert total.item() == pytest.approx(before)
    after = utils.get_total_norm([p.grad for p in model.parameters()]).item()
    assert after == pytest.approx(before / 4, rel=1e-5)


def test_no_gradients_and_empty_inputs():
    p = nn.Parameter(tandem.ones(3))
    total = utils.clip_grad_norm_([p], 1.0)
    assert total.item() == 0.0 and total.dtype == tandem.float32 and p.grad is None
    assert utils.clip_grad_norm_([], 1.0).item() == 0.0
    with pytest.warns(UserWarning, match="^`parameters` is an empty generator, no gradient clipping will occur.$"):
        utils.clip_grad_norm_((p for p in []), 1.0)
    assert utils.clip_grad_value_([p], 1.0) is None and p.grad is None


@pytest.mark.parametrize("bad", [math.nan, math.inf])
@pytest.mark.parametrize("norm_type", [2.0, math.inf])
def test_nonfinite_norm(bad, norm_type):
    ref, ours = make_params([(3,), (2,)])
    ref[1].grad[0] = bad
    ours[1].grad[0] = bad
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.utils.clip_grad_norm_(ref, 1.0, norm_type, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as mine:
        utils.clip_grad_norm_(ours, 1.0, norm_type, error_if_nonfinite=True)
    assert str(mine.value) == str(theirs.value)
    assert str(mine.value).startswith(f"The total norm of order {float(norm_type)} for gradients from `parameters` "
                                      "is non-finite, so it cannot be clipped.")
    assert_grads_equal(ref, ours)  # nothing was scaled
    # without the check the gradients are scaled by the non-finite norm anyway, as in PyTorch
    expected = torch.nn.utils.clip_grad_norm_(ref, 1.0, norm_type)
    total = utils.clip_grad_norm_(ours, 1.0, norm_type)
    assert total.item() == pytest.approx(expected.item(), nan_ok=True)
    assert_grads_equal(ref, ours)


def test_deprecated_clip_grad_norm_warns():
    ref, ours = make_params([(4,)], scale=10.0)
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        total = utils.clip_grad_norm(ours, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.nn.utils.clip_grad_norm(ref, 1.0)
    assert total.item() == pytest.approx(expected.item(), rel=1e-12)
    assert_grads_equal(ref, ours)


def test_get_total_norm_and_clip_grads_with_norm_match_torch(device):
    ref, ours = make_params([(3, 3), (4,)], scale=2.0, device=device)
    expected = torch.nn.utils.get_total_norm([p.grad for p in ref], 3.0)
    total = utils.get_total_norm([p.grad for p in ours], 3.0)
    assert total.item() == pytest.approx(expected.item(), rel=1e-12)
    assert utils.get_total_norm(ours[0].grad).item() == pytest.approx(
        torch.nn.utils.get_total_norm(ref[0].grad).item(), rel=1e-12)
    torch.nn.utils.clip_grads_with_norm_(ref, 0.7, expected)
    assert utils.clip_grads_with_norm_(ours, 0.7, total) is None
    assert_grads_equal(ref, ours)


def test_gradients_on_two_devices():
    if not tandem.cuda.is_available():
        pytest.skip("needs a cuda device (real or emulated)")
    ref, ours = make_params([(3,), (4,), (2,)], scale=3.0)
    ours[1].data = ours[1].data.cuda()
    ours[1].grad = ours[1].grad.cuda()
    expected = torch.nn.utils.clip_grad_norm_(ref, 1.0)
    total = utils.clip_grad_norm_(ours, 1.0)
    assert total.device.type == "cpu" and total.item() == pytest.approx(expected.item(), rel=1e-12)
    assert ours[1].grad.device.type == "cuda"
    assert_grads_equal(ref, ours)


@pytest.mark.parametrize("clip_value", [0.3, 2, 100.0])
def test_clip_grad_value_matches_torch(clip_value, device):
    ref, ours = make_params([(3, 4), (5,), (2,)], none_grads=(2,), device=device)
    assert torch.nn.utils.clip_grad_value_(ref, clip_value) is None
    assert utils.clip_grad_value_(ours, clip_value) is None
    assert_grads_equal(ref, ours)
    assert max(abs(x) for p in ours[:2] for x in to_list(p.grad.flatten())) <= clip_value


def test_clip_grad_value_single_tensor_and_foreach():
    ref, ours = make_params([(6,)])
    torch.nn.utils.clip_grad_value_(ref[0], 0.5, foreach=True)
    utils.clip_grad_value_(ours[0], 0.5, foreach=True)
    assert_grads_equal(ref, ours)


def test_clipping_records_no_autograd():
    p = nn.Parameter(tandem.ones(3))
    p.grad = tandem.full((3,), 4.0)
    utils.clip_grad_norm_([p], 1.0)
    utils.clip_grad_value_([p], 0.1)
    assert not p.grad.requires_grad and p.grad.grad_fn is None
    assert to_list(p.grad) == pytest.approx([0.1, 0.1, 0.1])


def test_parameters_to_vector_matches_torch(device):
    ref, ours = make_params([(2, 3), (4,), (1, 1, 2)], none_grads=(0, 1, 2), device=device)
    expected = torch.nn.utils.parameters_to_vector(ref)
    vec = utils.parameters_to_vector(ours)
    assert isinstance(vec, tandem.Tensor) and tuple(vec.shape) == tuple(expected.shape)
    assert vec.device == ours[0].device and vec.dtype == tandem.float64
    assert to_list(vec) == expected.tolist()
    assert vec.requires_grad == expected.requires_grad  # cat of parameters stays in the graph
    vec.sum().backward()
    assert all(to_list(p.grad.flatten()) == [1.0] * p.numel() for p in ours)


def test_vector_to_parameters_round_trip(device):
    ref, ours = make_params([(2, 3), (4,), (2,)], device=device)
    vec = tandem.arange(12, dtype=tandem.float64).to(device)
    utils.vector_to_parameters(vec, ours)
    torch.nn.utils.vector_to_parameters(torch.arange(12, dtype=torch.float64), ref)
    for r, o in zip(ref, ours):
        assert isinstance(o, nn.Parameter) and o.requires_grad and tuple(o.shape) == tuple(r.shape)
        assert to_list(o) == r.tolist()
    assert to_list(utils.parameters_to_vector(ours)) == list(map(float, range(12)))
    vec[0] = 100.0  # the parameters are views of vec, as in PyTorch
    assert to_list(ours[0])[0][0] == 100.0


def test_vector_to_parameters_errors():
    params = [nn.Parameter(tandem.ones(2))]
    for bad in ([1.0, 2.0], 3, None):
        with pytest.raises(TypeError) as theirs:
            torch.nn.utils.vector_to_parameters(bad, [torch.nn.Parameter(torch.ones(2))])
        with pytest.raises(TypeError) as mine:
            utils.vector_to_parameters(bad, params)
        assert str(mine.value) == str(theirs.value)


def test_parameters_on_different_devices_are_refused():
    if not tandem.cuda.is_available():
        pytest.skip("needs a cuda device (real or emulated)")
    a, b = nn.Parameter(tandem.ones(2)), nn.Parameter(tandem.ones(2, device="cuda:0"))
    msg = "^Found two parameters on different devices, this is currently not supported.$"
    with pytest.raises(TypeError, match=msg):
        utils.parameters_to_vector([a, b])
    with pytest.raises(TypeError, match=msg):
        utils.vector_to_parameters(tandem.zeros(4), [a, b])
    if tandem.cuda.device_count() > 1:
        with pytest.raises(TypeError, match=msg):
            utils.parameters_to_vector([b, nn.Parameter(tandem.ones(2, device="cuda:1"))])
