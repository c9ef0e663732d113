"""The activations with parameters (ops/activation.h): one kernel forward and backward, checked against
PyTorch for values (special values and the points where pieces meet included), dtypes, devices, gradients,
double backward, node names, in-place forms, integer inputs, errors and module reprs."""
import numpy as np
import pytest
import torch

import tandem
import tandem.nn as tnn
import tandem.nn.functional as TF

# (name, kwargs): every activation with its defaults and with non-default parameters.
CASES = [
    ("elu", {}), ("elu", {"alpha": 0.5}), ("elu", {"alpha": -1.0}), ("selu", {}), ("celu", {}), ("celu", {"alpha": 2.0}),
    ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("softplus", {}), ("softplus", {"beta": 2.0}),
    ("softplus", {"beta": 0.5, "threshold": 3.0}), ("hardtanh", {}), ("hardtanh", {"min_val": -2.0, "max_val": 0.5}),
    ("relu6", {}), ("hardsigmoid", {}), ("hardswish", {}), ("mish", {}), ("logsigmoid", {}),
    ("threshold", {"threshold": 0.5, "value": -7.0}), ("hardshrink", {}), ("hardshrink", {"lambd": 1.5}),
    ("softshrink", {}), ("softshrink", {"lambd": 1.5}), ("softsign", {}), ("tanhshrink", {}),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw in CASES]
# Every piece boundary of the list (0, +-0.5, +-1, +-1.5, +-3, 6, softplus's thresholds) and special values.
POINTS = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 3.0, -3.0, 6.0, -6.0, 10.0, -10.0, 20.0, 25.0, -25.0, 88.0,
          -100.0, 1e-6, -1e-6, float("inf"), float("-inf"), float("nan")]
TOL = {"float32": (2e-6, 1e-7), "float64": (1e-12, 1e-300), "float16": (1e-3, 1e-5), "bfloat16": (8e-3, 1e-5)}


def inputs(dtype):
    rng = np.random.default_rng(3)
    values = np.concatenate([np.array(POINTS), rng.standard_normal(200) * 4]).astype(np.float64)
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    return t, t.float().numpy().astype(np.float64)


def torch_fn(name):
    return getattr(torch.nn.functional, name)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_values_match_pytorch(name, kw, dtype, device):
    t, _ = inputs(dtype)
    x = tandem.tensor(t.tolist(), dtype=getattr(tandem, dtype), device=device)
    got = getattr(TF, name)(x, **kw)
    want = torch_fn(name)(t, **kw)
    assert got.dtype == x.dtype and got.device == x.device and tuple(got.shape) == tuple(want.shape)
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(got.cpu().to(tandem.float64).numpy(), want.double().numpy(), rtol=rtol, atol=atol,
                               equal_nan=True, err_msg=f"{name}{kw} {dtype}")


@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_gradients_and_node_names_match_pytorch(name, kw, device):
    rng = np.random.default_rng(5)
    # away from the kinks, where finite differences and the two libraries' one-sided choices agree
    values = rng.uniform(-5, 5, 64)
    values = values[np.min(np.abs(values[:, None] - np.array([0, 0.5, -0.5, 1, -1, 1.5, -1.5, 3, -3, 6])), axis=1) > 1e-3]
    t = torch.tensor(values, requires_grad=True)
    x = tandem.tensor(values.tolist(), dtype=tandem.float64, device=device, requires_grad=True)
    want = torch_fn(name)(t, **kw)
    got = getattr(TF, name)(x, **kw)
    assert type(want.grad_fn).__name__ == got.grad_fn.name()
    w = rng.standard_normal(len(values))
    (want * torch.tensor(w)).sum().backward()
    (got * tandem.tensor(w.tolist(), dtype=tandem.float64, device=device)).sum().backward()
    # PyTorch's hardsigmoid gradient multiplies by 1/6 rounded to float (3e-8 relative); tandem's is g / 6.
    rtol = 1e-7 if name == "hardsigmoid" else 1e-10
    np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=rtol, atol=1e-12)
    assert tandem.autograd.gradcheck(lambda v: getattr(TF, name)(v, **kw), (x.detach()[:8].requires_grad_(),))


@pytest.mark.parametrize("name,kw", [c for c in CASES if c[0] not in ("softsign", "tanhshrink")],
                         ids=[i for c, i in zip(CASES, IDS) if c[0] not in ("softsign", "tanhshrink")])
def test_double_backward_matches_pytorch(name, kw, device):
    values = [-2.3, -0.7, 0.4, 1.9, 4.2]
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    x = tandem.tensor(values, dtype=tandem.float64, device=device, requires_grad=True)
    (gt,) = torch.autograd.grad(torch_fn(name)(t, **kw).sum(), t, create_graph=True)
    (gx,) = tandem.autograd.grad(getattr(TF, name)(x, **kw).sum(), x, create_graph=True)
    rtol = 1e-7 if name == "hardsigmoid" else 1e-12  # PyTorch's 1/6 is rounded to float
    np.testing.assert_allclose(gx.detach().cpu().numpy(), gt.detach().numpy(), rtol=rtol)
    (gx * gx).sum().backward()
    if name == "hardsigmoid":  # PyTorch: "derivative for aten::hardsigmoid_backward is not implemented"
        assert x.grad.tolist() == [0.0] * len(values)  # its derivative is piecewise constant
        return
    (gt * gt).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,kw", [c for c in CASES if c[0] in ("elu", "selu", "celu", "leaky_relu", "hardtanh", "relu6",
                                                                  "hardsigmoid", "hardswish", "mish", "threshold")],
                         ids=lambda v: str(v))
def test_inplace_forms(name, kw, device):
    values = [-4.0, -1.2, 0.0, 0.3, 2.5, 7.0]
    x = tandem.tensor(values, device=device)
    out = getattr(TF, name)(x, inplace=True, **kw)
    assert out is x
    want = torch_fn(name)(torch.tensor(values), **kw)
    np.testing.assert_allclose(x.cpu().numpy(), want.numpy(), rtol=1e-6)
    # on a non-leaf under autograd, the gradient goes through the in-place result as in PyTorch
    leaf = tandem.tensor(values, device=device, requires_grad=True)
    tleaf = torch.tensor(values, requires_grad=True)
    y = leaf * 1.5
    getattr(TF, name)(y, inplace=True, **kw).sum().backward()
    ty = tleaf * 1.5
    # PyTorch refuses the backward of an in-place elu with a negative alpha; tandem differentiates through the
    # input, so it matches PyTorch's out-of-place gradient there.
    inplace = not (name == "elu" and kw.get("alpha", 1.0) < 0)
    torch_fn(name)(ty, inplace=inplace, **kw).sum().backward()
    # PyTorch's in-place elu differentiates through its float32 result (result + alpha, which cancels for
    # very negative x); tandem's through the input: equal to 1e-7 absolute.
    np.testing.assert_allclose(leaf.grad.cpu().numpy(), tleaf.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_trailing_underscore_functions():
    x = tandem.tensor([-1.0, 2.0])
    assert TF.elu_(x) is x and np.allclose(x.tolist(), [np.expm1(-1.0), 2.0])
    y = tandem.tensor([-1.0, 2.0])
    assert TF.leaky_relu_(y, 0.5) is y and y.tolist() == [-0.5, 2.0]
    z = tandem.tensor([-3.0, 0.2, 3.0])
    assert TF.hardtanh_(z) is z and z.tolist() == pytest.approx([-1.0, 0.2, 1.0])
    w = tandem.tensor([0.1, 0.9])
    assert TF.threshold_(w, 0.5, 9.0) is w and w.tolist() == pytest.approx([9.0, 0.9])


def test_integer_inputs_follow_pytorch(device):
    values = [-7, -1, 0, 2, 9]
    x, t = tandem.tensor(values, device=device), torch.tensor(values)
    y = tandem.tensor(values, device=device)
    assert TF.hardtanh(y, inplace=True) is y and y.tolist() == [-1, -1, 0, 1, 1] and y.dtype == tandem.int64
    assert TF.threshold_(y, 0, 5) is y and y.tolist() == [5, 5, 5, 1, 1]
    for name, kw in [("hardtanh", {}), ("relu6", {}), ("hardtanh", {"min_val": -2.5, "max_val": 3.7}),
                     ("threshold", {"threshold": 1, "value": 5})]:
        got, want = getattr(TF, name)(x, **kw), torch_fn(name)(t, **kw)
        assert got.dtype == tandem.int64 and got.tolist() == want.tolist(), name
    kind = "cpu" if device == "cpu" else "cuda"
    for name, kernel in [("elu", "elu"), ("leaky_relu", "leaky_relu"), ("softplus", "softplus"),
                         ("logsigmoid", "log_sigmoid"), ("mish", "mish"), ("hardswish", "hardswish")]:
        with pytest.raises(NotImplementedError, match=f"^\"{kernel}_{kind}\" not implemented for 'Long'"):
            getattr(TF, name)(x)
    with pytest.raises(NotImplementedError, match="^\"elu_cpu\" not implemented for 'Long'"):
        torch.nn.functional.elu(t)


def test_argument_errors_are_pytorchs():
    x = tandem.tensor([0.5, -1.0])
    for call, msg in [(lambda: TF.leaky_relu(x, "a"),
                       r"^leaky_relu\(\): argument 'negative_slope' \(position 2\) must be Number, not str"),
                      (lambda: TF.elu(x, alpha=None),
                       r"^elu\(\): argument 'alpha' \(position 2\) must be Number, not NoneType"),
                      (lambda: TF.softplus(x, beta="x"),
                       r"^softplus\(\): argument 'beta' \(position 2\) must be Number, not str"),
                      (lambda: TF.threshold(x, "a", 1.0),
                       r"^threshold\(\): argument 'threshold' \(position 2\) must be Number"),
                      (lambda: TF.elu([1.0]), r"^elu\(\): argument 'input' must be Tensor, not list")]:
        with pytest.raises(TypeError, match=msg):
            call()
    assert TF.leaky_relu(tandem.tensor([-2.0]), np.float32(0.25)).tolist() == [-0.5]  # NumPy numbers are numbers
    with pytest.raises(RuntimeError, match="^ZeroDivisionError: alpha cannot be 0 for CELU"):
        TF.celu(x, alpha=0.0)
    with pytest.raises(ValueError, match="^min_val cannot be greater than max_val"):
        TF.hardtanh(x, 2.0, 1.0)
    with pytest.raises(AssertionError, match=r"^max_val \(1.0\) must be greater than min_val \(2.0\)"):
        tnn.Hardtanh(2.0, 1.0)  # the module's own check, as PyTorch's (the function's is the ValueError)
    with pytest.raises(RuntimeError, match=r"^lambda must be in range \[0, 3.40282e\+38\] for input dtype Float, "
                       "but found -0.5"):
        TF.softshrink(x, -0.5)
    with pytest.raises(RuntimeError, match=r"^lambda must be in range \[0, 3.40282e\+38\] for input dtype Float, "
                       "but found -0.5"):
        torch.nn.functional.softshrink(torch.tensor([0.5]), -0.5)
    with pytest.raises(RuntimeError, match=r"^lambda must be in range \[0, 1.79769e\+308\] for input dtype Double, "
                       "but found -2"):
        TF.softshrink(x.double(), -2.0)
    with pytest.raises(RuntimeError, match=r"^lambda must be in range \[0, 65504\] for input dtype Half, but found -2"):
        TF.softshrink(x.half(), -2.0)


def test_modules_match_pytorch():
    pairs = [("ELU", (), {}), ("SELU", (), {}), ("CELU", (), {"alpha": 2.0}), ("LeakyReLU", (0.2,), {}),
             ("Softplus", (), {"beta": 2.0}), ("Hardtanh", (-2, 2), {"inplace": True}), ("ReLU6", (), {}),
             ("ReLU6", (), {"inplace": True}), ("Hardsigmoid", (), {}), ("Hardswish", (), {}), ("Mish", (), {}),
             ("Softsign", (), {}), ("LogSigmoid", (), {}), ("Tanhshrink", (), {}), ("Threshold", (0.1, 20.0), {}),
             ("Hardshrink", (), {}), ("Softshrink", (0.3,), {})]
    values = [-3.5, -0.2, 0.0, 0.7, 4.0]
    for cls, args, kw in pairs:
        mine, theirs = getattr(tnn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
        assert repr(mine) == repr(theirs)
        got = mine(tandem.tensor(values)).tolist()
        want = theirs(torch.tensor(values)).tolist()
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=cls)
    with pytest.warns(FutureWarning, match="keyword argument `min_value` is deprecated"):
        assert tnn.Hardtanh(min_value=-3.0).min_val == -3.0
