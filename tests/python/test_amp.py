"""Automatic mixed precision: tandem.autocast's op dtypes (PyTorch 2.15's CUDA and CPU lists; the CUDA
expectations were read from PyTorch under FakeTensorMode with cuda autocast on), its state and forms, and
GradScaler's scale sequence against torch.amp.GradScaler."""
import threading
import warnings

import pytest
import torch

import tandem
import tandem.nn.functional as F

# op -> (dtype under cuda float16 autocast, dtype under cpu bfloat16 autocast), for float32 inputs.
F16, BF16, F32 = "float16", "bfloat16", "float32"
OPS = {
    "mm": (lambda x, w, v, b3, img, k, p, t: tandem.mm(x, w), F16, BF16),
    "matmul": (lambda x, w, v, b3, img, k, p, t: x @ w, F16, BF16),
    "matmul_vec": (lambda x, w, v, b3, img, k, p, t: x @ v, F16, BF16),  # matmul is listed whatever its shapes
    "bmm": (lambda x, w, v, b3, img, k, p, t: tandem.bmm(b3, b3), F16, BF16),
    "mv": (lambda x, w, v, b3, img, k, p, t: tandem.mv(x, v), F16, F32),
    "dot": (lambda x, w, v, b3, img, k, p, t: tandem.dot(v, v), F32, F32),
    "addmm": (lambda x, w, v, b3, img, k, p, t: tandem.addmm(x, x, w), F16, BF16),
    "linear": (lambda x, w, v, b3, img, k, p, t: F.linear(x, w, v), F16, BF16),
    "linear_3d": (lambda x, w, v, b3, img, k, p, t: F.linear(b3, w, v), F16, BF16),
    "conv2d": (lambda x, w, v, b3, img, k, p, t: F.conv2d(img, k), F16, BF16),
    "conv1d": (lambda x, w, v, b3, img, k, p, t: F.conv1d(img[:, :, 0], k[:, :, 0]), F16, BF16),
    "sdpa": (lambda x, w, v, b3, img, k, p, t: F.scaled_dot_product_attention(b3, b3, b3), F16, BF16),
    "prelu": (lambda x, w, v, b3, img, k, p, t: F.prelu(x, tandem.ones(1, device=x.device)), F16, BF16),
    "exp": (lambda x, w, v, b3, img, k, p, t: tandem.exp(x), F32, F32),
    "log": (lambda x, w, v, b3, img, k, p, t: tandem.log(p), F32, F32),
    "pow": (lambda x, w, v, b3, img, k, p, t: tandem.pow(x, 2), F32, F32),
    "sum": (lambda x, w, v, b3, img, k, p, t: x.sum(), F32, F32),
    "prod": (lambda x, w, v, b3, img, k, p, t: x.prod(), F32, F32),
    "cumsum": (lambda x, w, v, b3, img, k, p, t: x.cumsum(0), F32, F32),
    "softmax": (lambda x, w, v, b3, img, k, p, t: tandem.softmax(x, 0), F32, F32),
    "log_softmax": (lambda x, w, v, b3, img, k, p, t: tandem.log_softmax(x, 0), F32, F32),
    "norm": (lambda x, w, v, b3, img, k, p, t: x.norm(), F32, F32),
    "layer_norm": (lambda x, w, v, b3, img, k, p, t: F.layer_norm(x, (4,)), F32, F32),
    "group_norm": (lambda x, w, v, b3, img, k, p, t: F.group_norm(img, 1), F32, F32),
    "mse_loss": (lambda x, w, v, b3, img, k, p, t: F.mse_loss(x, w), F32, F32),
    "l1_loss": (lambda x, w, v, b3, img, k, p, t: F.l1_loss(x, w), F32, F32),
    "nll_loss": (lambda x, w, v, b3, img, k, p, t: F.nll_loss(x, t), F32, F32),
    "cross_entropy": (lambda x, w, v, b3, img, k, p, t: F.cross_entropy(x, t), F32, F32),
    "bce_logits": (lambda x, w, v, b3, img, k, p, t: F.binary_cross_entropy_with_logits(x, p), F32, F32),
    "kl_div": (lambda x, w, v, b3, img, k, p, t: F.kl_div(x, p, reduction="batchmean"), F32, F32),
    "smooth_l1": (lambda x, w, v, b3, img, k, p, t: F.smooth_l1_loss(x, w), F32, F32),
    "relu": (lambda x, w, v, b3, img, k, p, t: tandem.relu(x), F32, F32),
    "add": (lambda x, w, v, b3, img, k, p, t: x + w, F32, F32),
    "softplus": (lambda x, w, v, b3, img, k, p, t: F.softplus(x), F32, F32),
    "logsumexp": (lambda x, w, v, b3, img, k, p, t: x.logsumexp(0), F32, F32),
    "mm_float64": (lambda x, w, v, b3, img, k, p, t: tandem.mm(x.double(), w.double()), "float64", "float64"),
}
# Inputs already in the autocast dtype: the float32 list widens them, the rest keep them (cuda only: on
# the cpu, PyTorch's list has none of these).
HALF_INPUT = {
    "mm": F16, "exp": F32, "sum": F32, "softmax": F32, "layer_norm": F32, "relu": F16, "add": F16,
    "mse_loss": F32, "linear": F16, "rsqrt": F32, "mean": F16, "batch_norm": F16, "instance_norm": F16,
    # PyTorch's cuda float32 list has these math ops and not atan/erf/atan2:
    "tan": F32, "sinh": F32, "asin": F32, "erfinv": F32, "log2": F32, "log10": F32, "atan": F16, "erf": F16,
    "atan2": F16,
}


def inputs(device, dtype=tandem.float32):
    # Drawn on the cpu and moved, so that every device sees the same values (a cpu generator cannot draw on cuda).
    g = tandem.Generator().manual_seed(0)
    r = lambda *s: tandem.randn(*s, generator=g, dtype=dtype).to(device)  # noqa: E731
    p = tandem.rand(4, 4, generator=g, dtype=dtype).to(device)
    return (r(4, 4), r(4, 4), r(4), r(2, 4, 4), r(1, 2, 6, 6), r(3, 2, 3, 3), p,
            tandem.tensor([0, 1, 2, 3], device=device))


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_dtype_under_autocast(device, name):
    fn, cuda_dtype, cpu_dtype = OPS[name]
    args = inputs(device)
    kind = "cuda" if device.startswith("cuda") else "cpu"
    with tandem.autocast(kind):
        out = fn(*args)
    assert repr(out.dtype) == f"tandem.{cuda_dtype if kind == 'cuda' else cpu_dtype}"
    assert out.device == args[0].device
    # Outside the region every op runs in float32 again.
    assert fn(*args).dtype == (tandem.float64 if name == "mm_float64" else tandem.float32)


@pytest.mark.parametrize("name", sorted(HALF_INPUT))
def test_half_inputs_under_cuda_autocast(name):
    if not tandem.cuda.is_available():
        pytest.skip("needs a (possibly emulated) CUDA device")
    x, w = (t.half() for t in inputs("cuda:0")[:2])
    ops = {"mm": lambda: x @ w, "exp": lambda: x.exp(), "sum": lambda: x.sum(), "softmax": lambda: x.softmax(0),
           "layer_norm": lambda: F.layer_norm(x, (4,)), "relu": lambda: x.relu(), "add": lambda: x + w,
           "mse_loss": lambda: F.mse_loss(x, w), "linear": lambda: F.linear(x, w), "rsqrt": lambda: x.abs().rsqrt(),
           "mean": lambda: x.mean(), "tan": lambda: x.tan(), "sinh": lambda: x.sinh(),
           "asin": lambda: (x * 0.1).asin(), "erfinv": lambda: (x * 0.1).erfinv(), "log2": lambda: x.abs().log2(),
           "log10": lambda: x.abs().log10(), "atan": lambda: x.atan(), "erf": lambda: x.erf(),
           "atan2": lambda: tandem.atan2(x, w),
           # Unlisted, one op in PyTorch: its inner reductions (sum is on the fp32 list) must not widen it.
           "batch_norm": lambda: F.batch_norm(x[None], None, None, training=True),
           "instance_norm": lambda: F.instance_norm(x[None, None])}
    with tandem.autocast("cuda"):
        assert repr(ops[name]().dtype) == f"tandem.{HALF_INPUT[name]}"


def test_pad_modes_under_cpu_autocast():
    # PyTorch's cpu list has replication_pad1d/2d/3d and reflection_pad1d/2d (not 3d) in float32.
    x = tandem.ones(1, 2, 4, 4, dtype=tandem.bfloat16)
    with tandem.autocast("cpu"):
        got = [F.pad(x, (1, 1, 1, 1), mode=m).dtype for m in ("replicate", "reflect", "circular", "constant")]
        assert got == [tandem.float32, tandem.float32, tandem.bfloat16, tandem.bfloat16]
        assert F.pad(x[None], (1, 1, 1, 1, 1, 1), mode="reflect").dtype == tandem.bfloat16
        assert F.pad(x[0], (1, 1), mode="replicate").dtype == tandem.float32
    assert F.pad(x, (1, 1, 1, 1), mode="replicate").dtype == tandem.bfloat16


def test_compositions_keep_parameters_and_gradients():
    # linear is a Python composition: its cast weight must still send the gradient to the Parameter.
    lin = tandem.nn.Linear(4, 2)
    with tandem.autocast("cpu"):
        out = F.linear(tandem.ones(3, 4), lin.weight, lin.bias)
    assert out.dtype == tandem.bfloat16
    out.float().sum().backward()
    assert lin.weight.grad.dtype == tandem.float32
    assert lin.weight.grad.tolist() == [[3.0] * 4] * 2 and lin.bias.grad.tolist() == [3.0, 3.0]


def test_autocast_applies_to_its_device_type_only(device):
    x = tandem.ones(2, 2, device=device)
    other = "cpu" if device.startswith("cuda") else "cuda"
    if other == "cuda" and not tandem.cuda.is_available():
        pytest.skip("needs a (possibly emulated) CUDA device")
    with tandem.autocast(other):
        assert (x @ x).dtype == tandem.float32


def test_state_nesting_and_disable():
    assert not tandem.is_autocast_enabled("cpu")
    assert tandem.get_autocast_dtype("cpu") == tandem.bfloat16
    assert tandem.get_autocast_dtype("cuda") == tandem.float16
    x = tandem.ones(2, 2)
    with tandem.autocast("cpu"):
        assert tandem.is_autocast_enabled("cpu") and not tandem.is_autocast_enabled("cuda")
        with tandem.autocast("cpu", enabled=False):
            assert not tandem.is_autocast_enabled("cpu")
            assert (x @ x).dtype == tandem.float32
            with tandem.autocast("cpu", dtype=tandem.float16):
                assert (x @ x).dtype == tandem.float16
                assert tandem.get_autocast_dtype("cpu") == tandem.float16
        assert (x @ x).dtype == tandem.bfloat16
        assert tandem.get_autocast_dtype("cpu") == tandem.bfloat16
    assert not tandem.is_autocast_enabled("cpu")
    assert (x @ x).dtype == tandem.float32


def test_state_restored_after_exception():
    with pytest.raises(ZeroDivisionError):
        with tandem.autocast("cpu"):
            1 / 0
    assert not tandem.is_autocast_enabled("cpu")


def test_decorator_form():
    @tandem.autocast("cpu")
    def f(a):
        """doc"""
        return a @ a

    assert f(tandem.ones(2, 2)).dtype == tandem.bfloat16
    assert f.__doc__ == "doc" and f.__name__ == "f"
    assert not tandem.is_autocast_enabled("cpu")
    with pytest.raises(TypeError, match=r"autocast\(\)\(func\) requires a callable, but got int"):
        tandem.autocast("cpu")(3)


def test_state_is_per_thread():
    seen = {}

    def worker():
        seen["enabled"] = tandem.is_autocast_enabled("cpu")
        seen["dtype"] = (tandem.ones(2, 2) @ tandem.ones(2, 2)).dtype
        with tandem.autocast("cpu"):
            seen["inside"] = (tandem.ones(2, 2) @ tandem.ones(2, 2)).dtype

    with tandem.autocast("cpu"):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert (tandem.ones(2, 2) @ tandem.ones(2, 2)).dtype == tandem.bfloat16
    assert seen == {"enabled": False, "dtype": tandem.float32, "inside": tandem.bfloat16}


def test_gradients_return_in_parameter_dtype(device):
    kind = "cuda" if device.startswith("cuda") else "cpu"
    lin = tandem.nn.Linear(4, 3).to(device)
    x = tandem.ones(5, 4, device=device)
    with tandem.autocast(kind):
        out = lin(x)
        loss = F.mse_loss(out, tandem.zeros(5, 3, device=device))
    assert out.dtype == (tandem.float16 if kind == "cuda" else tandem.bfloat16)
    assert loss.dtype == tandem.float32
    loss.backward()
    assert lin.weight.dtype == tandem.float32 and lin.weight.grad.dtype == tandem.float32
    assert lin.bias.grad.dtype == tandem.float32
    # Same gradients as float32 math, to the precision of the low-precision forward.
    ref = tandem.nn.Linear(4, 3).to(device)
    ref.load_state_dict(lin.state_dict())
    F.mse_loss(ref(x), tandem.zeros(5, 3, device=device)).backward()
    assert tandem.allclose(lin.weight.grad, ref.weight.grad, rtol=0.05, atol=0.05)


def test_weight_cast_cached_within_region():
    w = tandem.ones(3, 3, requires_grad=True)
    x = tandem.ones(3, 3)
    with tandem.autocast("cpu"):
        y = (x @ w) + (x @ w)
    y.sum().backward()
    assert w.grad.dtype == tandem.float32
    assert tandem.equal(w.grad, tandem.full((3, 3), 6.0))
    with tandem.autocast("cpu", cache_enabled=False):
        assert not tandem.is_autocast_cache_enabled()
    assert tandem.is_autocast_cache_enabled()


def test_backward_inside_region_keeps_forward_dtypes():
    w = tandem.ones(3, 3, requires_grad=True)
    with tandem.autocast("cpu"):
        (tandem.ones(3, 3) @ w).float().sum().backward()
    assert w.grad.dtype == tandem.float32


def test_binary_cross_entropy_refused_under_cuda_autocast():
    if not tandem.cuda.is_available():
        pytest.skip("needs a (possibly emulated) CUDA device")
    p = tandem.full((2,), 0.5, device="cuda")
    with tandem.autocast("cuda"):
        with pytest.raises(RuntimeError, match="binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast"):
            F.binary_cross_entropy(p, p)
    with tandem.autocast("cpu"):
        assert F.binary_cross_entropy(p.cpu(), p.cpu()).dtype == tandem.float32


def test_errors_and_warnings():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`, got: `<class 'int'>`"):
        tandem.autocast(1)
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported. Disabling"):
        ac = tandem.autocast("cpu", dtype=tandem.float32)
    with ac:
        assert not tandem.is_autocast_enabled("cpu")
    with pytest.warns(FutureWarning, match=r"`torch.cuda.amp.autocast\(args...\)` is deprecated"):
        tandem.cuda.amp.autocast(enabled=False)
    with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.autocast\(args...\)` is deprecated"):
        cpu_ac = tandem.cpu.amp.autocast()
    with cpu_ac:
        assert tandem.is_autocast_enabled("cpu")
    assert tandem.amp.is_autocast_available("cpu") and not tandem.amp.is_autocast_available("mps")


def test_custom_fwd_bwd():
    class Square(tandem.autograd.Function):
        @staticmethod
        @tandem.amp.custom_fwd(device_type="cpu", cast_inputs=tandem.float32)
        def forward(ctx, a):
            ctx.save_for_backward(a)
            ctx.seen = (a.dtype, tandem.is_autocast_enabled("cpu"))
            return a @ a

        @staticmethod
        @tandem.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g @ a.t() + a.t() @ g

    a = tandem.ones(2, 2, dtype=tandem.bfloat16, requires_grad=True)
    with tandem.autocast("cpu"):
        out = Square.apply(a)
    assert out.dtype == tandem.float32
    out.sum().backward()
    assert a.grad.dtype == tandem.bfloat16


def test_custom_bwd_runs_backward_under_the_forwards_autocast_state():
    """custom_bwd lifts the engine's suspension of autocast: a matmul in backward runs in bfloat16 when the
    forward ran under autocast (as PyTorch's custom_bwd), and in float32 when it did not."""
    seen = []

    class Scale(tandem.autograd.Function):
        @staticmethod
        @tandem.amp.custom_fwd(device_type="cpu")
        def forward(ctx, a, w):
            ctx.save_for_backward(w)
            return a @ w

        @staticmethod
        @tandem.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            (w,) = ctx.saved_tensors
            grad = g @ w.t()
            seen.append((tandem.is_autocast_enabled("cpu"), grad.dtype))
            return grad.float(), None

    a = tandem.ones(2, 3, requires_grad=True)
    w = tandem.ones(3, 2)
    with tandem.autocast("cpu", dtype=tandem.bfloat16):
        out = Scale.apply(a, w)
    out.float().sum().backward()
    Scale.apply(a, w).sum().backward()
    assert seen == [(True, tandem.bfloat16), (False, tandem.float32)]
    assert not tandem.is_autocast_enabled("cpu") and not tandem._C._autocast_active()


def _train(lib, device, inject_inf_at):
    """A tiny regression trained with GradScaler (growth_interval=2), an inf injected into a gradient at the
    given steps; returns the scale after each update and the final weight."""
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 1)
    with lib.no_grad():
        model.weight.copy_(lib.tensor([[0.1, -0.2, 0.3]]))
        model.bias.fill_(0.05)
    model = model.to(device)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler(device.split(":")[0], init_scale=2.0**4, growth_interval=2)
    x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], device=device)
    y = lib.tensor([[1.0], [0.0]], device=device)
    scales, results = [], []
    for step in range(7):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        scaler.scale(loss).backward()
        if step in inject_inf_at:
            model.weight.grad[0, 0] = float("inf")
        results.append(scaler.step(opt))
        scaler.update()
        scales.append(scaler.get_scale())
    return scales, results, model.weight.detach().cpu().tolist(), scaler.state_dict()


def test_grad_scaler_matches_pytorch(device):
    if device.startswith("cuda"):
        pytest.skip("PyTorch's cuda GradScaler needs a real GPU; the cpu run checks the same sequence")
    got = _train(tandem, device, {1, 2})
    want = _train(torch, "cpu", {1, 2})
    assert got[0] == want[0]  # the scale sequence: backoff twice, then growth every 2 clean steps
    assert got[1] == want[1]  # step() returns None when it skipped
    assert got[2][0] == pytest.approx(want[2][0], rel=1e-6)
    assert got[3] == want[3]


def test_grad_scaler_on_emulated_cuda_same_sequence():
    if not tandem.cuda.is_available():
        pytest.skip("needs a (possibly emulated) CUDA device")
    cpu = _train(tandem, "cpu", {1, 2})
    cuda = _train(tandem, "cuda:0", {1, 2})
    assert cuda[0] == cpu[0] and cuda[1] == cpu[1] and cuda[3] == cpu[3]


def test_grad_scaler_errors_and_state_dict():
    model = tandem.nn.Linear(2, 1)
    opt = tandem.optim.SGD(model.parameters(), lr=0.1)
    scaler = tandem.amp.GradScaler("cpu", init_scale=8.0)
    with pytest.raises(AssertionError, match="Attempted unscale_ but _scale is None"):
        scaler.unscale_(opt)
    scaler.scale(model(tandem.ones(1, 2)).sum()).backward()
    assert model.weight.grad.tolist() == [[8.0, 8.0]]
    scaler.unscale_(opt)
    assert model.weight.grad.tolist() == [[1.0, 1.0]]
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this optimizer since the last update\(\)"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step\(\)"):
        scaler.unscale_(opt)
    scaler.update(4.0)
    assert scaler.get_scale() == 4.0
    sd = scaler.state_dict()
    assert sd == {"scale": 4.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2000,
                  "_growth_tracker": 0}
    other = tandem.amp.GradScaler("cpu")
    other.load_state_dict(sd)
    assert other.state_dict() == sd
    with pytest.raises(AssertionError, match="The growth factor must be > 1.0."):
        tandem.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="The backoff factor must be < 1.0."):
        tandem.amp.GradScaler("cpu", backoff_factor=1.0)
    disabled = tandem.amp.GradScaler("cpu", enabled=False)
    assert not disabled.is_enabled() and disabled.get_scale() == 1.0 and disabled.state_dict() == {}
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        other.load_state_dict({})
    with pytest.raises(RuntimeError, match="Closure use is not currently supported if GradScaler is enabled."):
        other.step(opt, closure=lambda: 0)


def test_grad_scaler_cuda_alias_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.warns(FutureWarning, match=r"`torch.cuda.amp.GradScaler\(args...\)` is deprecated"):
            s = tandem.cuda.amp.GradScaler()
    assert s.is_enabled() == tandem.cuda.is_available()
