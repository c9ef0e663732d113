"""Sweep 17 programs, mixed precision: which dtype each op gives under torch.autocast (CPU bfloat16 and float16),
a GradScaler training loop with skipped steps, unscale_ and clipping, half and bfloat16 inference of converted
models, 16-bit reductions and matmuls against float32, the rounding of conversions and the promotion rules of 16-bit
tensors with scalars, and custom autograd Functions under autocast (custom_fwd/custom_bwd)."""
import numpy as np

from sweep15_common import cases, plain
from test_programs_sweeputil import uniform_fill as _fill, seeded_randn as _randn


# ---- the dtypes that ops give inside autocast on the CPU (lower-precision list, fp32 list, promote list) ----------
def autocast_op_dtypes(torch, device):
    F = torch.nn.functional
    # autocast's op lists differ between device types; the lists are compared on the CPU, the device runs the
    # ops that every list treats alike (matmul-like ops in the low dtype, elementwise ops untouched)
    x = _randn(torch, 1900, 4, 6)
    w = _randn(torch, 1901, 5, 6)
    img = _randn(torch, 1902, 1, 2, 6, 6)
    k = _randn(torch, 1903, 3, 2, 3, 3)
    out = {}
    for low in (torch.bfloat16, torch.float16):
        with torch.autocast("cpu", dtype=low):
            r = {"mm": x @ w.T, "linear": F.linear(x, w), "conv": F.conv2d(img, k),
                 "bmm": torch.bmm(x[None], w.T[None]),
                 "addmm": torch.addmm(torch.zeros(5), x, w.T), "baddbmm": torch.baddbmm(torch.zeros(1, 4, 5), x[None],
                                                                                       w.T[None]),
                 "relu": torch.relu(x), "exp": x.exp(), "sum": (x @ w.T).sum(), "softmax": F.softmax(x @ w.T, -1),
                 "add_mixed": (x @ w.T) + torch.ones(4, 5), "cat_mixed": torch.cat([x @ w.T, torch.ones(1, 5)]),
                 "mse": F.mse_loss(x @ w.T, torch.zeros(4, 5)), "cdist": torch.cdist(x, w),
                 "prod": (x @ w.T).prod(), "layer_norm": F.layer_norm(x @ w.T, (5,)),
                 "bce": F.binary_cross_entropy((x @ w.T).sigmoid(), torch.full((4, 5), 0.5)),
                 "int_mm": torch.ones(2, 2, dtype=torch.long) @ torch.ones(2, 2, dtype=torch.long),
                 "f64": x.double() @ w.double().T}
            nested = {}
            with torch.autocast("cpu", enabled=False):
                nested["off"] = str((x @ w.T).dtype)
                nested["inner_enabled"] = torch.is_autocast_enabled("cpu")
            nested["outer_enabled"] = torch.is_autocast_enabled("cpu")
            nested["autocast_dtype"] = str(torch.get_autocast_dtype("cpu"))
        out[str(low).split(".")[-1]] = {k2: str(v.dtype) for k2, v in r.items()}
        out[str(low).split(".")[-1] + "_nested"] = nested
        out[str(low).split(".")[-1] + "_values"] = [round(v, 2) for v in r["mm"].float().flatten()[:6].tolist()]
    on_dev = _randn(torch, 1904, 3, 4, device=device)
    dev_type = torch.device(device).type
    with torch.autocast(dev_type, dtype=torch.bfloat16):
        y = on_dev @ on_dev.T
        z = y.float() + on_dev.sum()
        inside = torch.is_autocast_enabled(dev_type)
    out["device"] = [str(y.dtype), str(z.dtype), inside, torch.is_autocast_enabled(dev_type)]
    out["after"] = [torch.is_autocast_enabled("cpu"), str((x @ w.T).dtype)]

    @torch.autocast("cpu", dtype=torch.bfloat16)
    def decorated(a, b):
        return a @ b

    out["decorated"] = str(decorated(x, w.T).dtype)
    # the message lists the device types each library knows, so only the error's type is compared
    out["errors"] = [r[:2] for r in cases(torch, {
        "bad_device": lambda: torch.autocast("tpu_x", dtype=torch.float16).__enter__(),
    }).values()]
    return out


# ---- a GradScaler loop: dynamic loss scale, skipped steps on inf, unscale_ before clipping, state_dict ------------
def grad_scaler_loop(torch, device):
    nn = torch.nn
    dev_type = torch.device(device).type
    model = _fill(torch, nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)), 1910).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler(dev_type, init_scale=2.0 ** 10, growth_factor=2.0, backoff_factor=0.25,
                                  growth_interval=2)
    x = _randn(torch, 1911, 16, 4, device=device)
    y = _randn(torch, 1912, 16, 1, device=device)
    log = []
    for step in range(7):
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(model(x), y)
        if step in (2, 5):
            loss = loss * float("inf")  # an overflowing step: skipped, the scale backs off
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        before = model[0].weight.detach().clone()
        ret = scaler.step(opt)
        scaler.update()
        moved = not torch.equal(before, model[0].weight.detach())
        log.append([step, scaler.get_scale(), moved, ret is None, bool(torch.isfinite(norm)),
                    round(loss.item(), 5) if step not in (2, 5) else "inf"])
    sd = scaler.state_dict()
    fresh = torch.amp.GradScaler(dev_type)
    fresh.load_state_dict(sd)
    scaled = scaler.scale(torch.tensor(3.0, device=device))
    multi = scaler.scale([torch.ones(2, device=device), (torch.zeros(1, device=device),)])
    disabled = torch.amp.GradScaler(dev_type, enabled=False)
    return {"log": log, "state": {k: (v if not isinstance(v, float) else round(v, 6)) for k, v in sd.items()},
            "fresh": [fresh.get_scale(), fresh.get_growth_factor(), fresh.get_backoff_factor(),
                      fresh.get_growth_interval(), fresh.is_enabled()],
            "scaled": [scaled.item(), str(scaled.dtype), multi[0].tolist(), type(multi[1]).__name__],
            "disabled": [disabled.scale(torch.tensor(2.0)).item(), disabled.get_scale(), disabled.is_enabled(),
                         disabled.state_dict()],
            "w": model[2].weight.flatten().tolist(),
            "errors": cases(torch, {
                "unscale_twice": lambda: _unscale_twice(torch, device, dev_type),
                "step_before_backward": lambda: _step_without_grads(torch, device, dev_type),
            })}


def _unscale_twice(torch, device, dev_type):
    p = torch.nn.Parameter(torch.ones(2, device=device))
    opt = torch.optim.SGD([p], lr=0.1)
    s = torch.amp.GradScaler(dev_type)
    s.scale(p.sum()).backward()
    s.unscale_(opt)
    s.unscale_(opt)


def _step_without_grads(torch, device, dev_type):
    p = torch.nn.Parameter(torch.ones(2, device=device))
    opt = torch.optim.SGD([p], lr=0.1)
    s = torch.amp.GradScaler(dev_type)
    s.step(opt)


# ---- converted models: .half()/.bfloat16() inference against float32, buffers and parameter dtypes ---------------
def half_inference(torch, device):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.fc = nn.Linear(4 * 4 * 4, 5)
            self.register_buffer("scale", torch.tensor(0.5))

        def forward(self, x):
            h = torch.relu(self.bn(self.conv(x)))
            h = nn.functional.max_pool2d(h, 2)
            return self.fc(h.flatten(1)) * self.scale

    ref = _fill(torch, Net(), 1920).to(device).eval()
    with torch.no_grad():
        ref.bn.running_mean.copy_(torch.tensor([0.1, -0.1, 0.2, 0.0]))
        ref.bn.running_var.copy_(torch.tensor([0.9, 1.1, 1.3, 0.7]))
    x = _randn(torch, 1921, 2, 3, 8, 8, device=device)
    out32 = ref(x)
    result = {}
    for name in ("half", "bfloat16"):
        m = __import__("copy").deepcopy(ref)
        getattr(m, name)()
        dt = next(m.parameters()).dtype
        with torch.no_grad():
            out = m(x.to(dt))
        err = (out.float() - out32).abs().max().item()
        result[name] = {"dtype": str(out.dtype), "buffers": sorted({str(b.dtype) for b in m.buffers()}),
                        "close": bool(torch.allclose(out.float(), out32, atol=5e-2, rtol=5e-2)),
                        "err_small": err < 0.1, "argmax_same": bool(torch.equal(out.argmax(1), out32.argmax(1))),
                        "params": sorted({str(p.dtype) for p in m.parameters()})}
    m16 = __import__("copy").deepcopy(ref).to(torch.float16)
    result["to_float16"] = str(m16.fc.weight.dtype)
    result["mixed_input"] = cases(torch, {"float_into_half": lambda: m16(x).dtype})
    back = m16.float()
    result["roundtrip_err"] = (back.fc.weight - ref.fc.weight).abs().max().item() < 1e-3
    return result


# ---- 16-bit reductions and matmuls against float32 (sum/mean/cumsum/var/norm/softmax/logsumexp, dtype=) ----------
def sixteen_bit_reductions(torch, device):
    rng = np.random.default_rng(1930)
    base = rng.uniform(0.0, 1.0, 3000)
    out = {}
    for name in ("float16", "bfloat16"):
        dt = getattr(torch, name)
        t = torch.tensor(base, dtype=dt, device=device)
        f = t.float()
        out[name] = {
            "sum": plain(torch, t.sum()), "sum_f32": plain(torch, t.sum(dtype=torch.float32)),
            "mean": plain(torch, t.mean()), "f32_mean": f.mean().item(),
            "var": plain(torch, t[:200].var()), "std": plain(torch, t[:200].std(correction=0)),
            "norm": plain(torch, torch.linalg.vector_norm(t[:500])),
            "cumsum_last": plain(torch, t[:64].cumsum(0)[-4:]),
            "softmax": plain(torch, torch.softmax(t[:8], 0)),
            "logsumexp": plain(torch, torch.logsumexp(t[:100], 0)),
            "max": plain(torch, t.max()), "argmax": t.argmax().item(),
            "dot": plain(torch, t[:64] @ t[64:128]),
            "mm": plain(torch, (t[:12].view(3, 4) @ t[12:24].view(4, 3))),
            "big": plain(torch, torch.full((70000,), 1.0, dtype=dt, device=device).sum()),
            "overflow": plain(torch, (torch.full((4,), 30000.0, dtype=dt, device=device) * 3).sum()),
            "amax_dims": plain(torch, t[:24].view(2, 3, 4).amax((0, 2))),
            "mean_keep": plain(torch, t[:24].view(2, 3, 4).mean(-1, keepdim=True)),
            "prod": plain(torch, (t[:10] + 0.5).prod(dtype=torch.float32)),
        }
    return out


# ---- conversions: rounding to 16 bits, overflow to inf, subnormals, promotion with Python scalars and tensors ------
def precision_conversions(torch, device):
    vals = [0.1, 1.0 / 3.0, 65504.0, 65520.0, 70000.0, 6e-8, 1e-8, -2.5e-5, 3.0e38, 1.00390625, 1.01171875, 257.0]
    f = torch.tensor(vals, dtype=torch.float32, device=device)
    h = f.half()
    b = f.bfloat16()
    out = {"half": plain(torch, h), "bf16": plain(torch, b), "half_back": plain(torch, h.float()),
           "bf16_to_half": plain(torch, b.half()), "half_to_bf16": plain(torch, h[:3].bfloat16())}
    i = torch.tensor([1, 2, 3], device=device)
    promo = {
        "half_plus_py": (h[:2] + 1.5).dtype, "half_plus_int": (h[:2] + 2).dtype,
        "half_plus_f32_0d": (h[:2] + torch.tensor(1.0, device=device)).dtype,
        "half_plus_f32_1d": (h[:2] + f[:2]).dtype, "half_plus_bf16": (h[:2] + b[:2]).dtype,
        "int_times_half": (i * h[:3]).dtype, "int_div": (i / 2).dtype, "bf16_mul_f64_0d": (b[:2] * torch.tensor(
            2.0, dtype=torch.float64, device=device)).dtype,
        "result_type": torch.result_type(h, 1.0), "promote": torch.promote_types(torch.float16, torch.bfloat16),
        "can_cast": torch.can_cast(torch.float32, torch.float16),
    }
    out["promo"] = {k: str(v) if not isinstance(v, bool) else v for k, v in promo.items()}
    fi = {n: [torch.finfo(getattr(torch, n)).eps, torch.finfo(getattr(torch, n)).max,
              torch.finfo(getattr(torch, n)).tiny, torch.finfo(getattr(torch, n)).resolution,
              torch.finfo(getattr(torch, n)).bits] for n in ("float16", "bfloat16")}
    out["finfo"] = fi
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float16, device=device)
    x += 0.0004  # below half's resolution near 1: rounds back
    out["inplace"] = plain(torch, x)
    acc = torch.zeros((), dtype=torch.float16, device=device)
    for _ in range(3000):
        acc += 1.0
    out["stagnates"] = acc.item()
    acc_b = torch.zeros((), dtype=torch.bfloat16, device=device)
    for _ in range(300):
        acc_b += 1.0
    out["stagnates_bf16"] = acc_b.item()
    out["int_overflow_to_half"] = plain(torch, torch.tensor([100000, -70000], device=device).half())
    out["half_to_int"] = plain(torch, torch.tensor([2.5, -2.5, 300.7], dtype=torch.float16, device=device).int())
    out["print"] = str(torch.tensor([1.0, 2.5], dtype=torch.float16)).replace("tandem", "torch")
    out["nan_to_num"] = plain(torch, torch.nan_to_num(torch.tensor([float("inf"), float("-inf"), float("nan")],
                                                                    dtype=torch.float16, device=device)))
    return out


# ---- custom autograd Functions under autocast (custom_fwd(cast_inputs=...), custom_bwd), autocast + checkpoint ----
def custom_functions_under_autocast(torch, device):
    amp = torch.amp

    class ScaledMatmul(torch.autograd.Function):
        @staticmethod
        @amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a @ b

        @staticmethod
        @amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g @ b.T, a.T @ g

    class KeepDtype(torch.autograd.Function):
        @staticmethod
        @amp.custom_fwd(device_type="cpu")
        def forward(ctx, a, b):
            seen["fwd_inner"] = [torch.is_autocast_enabled("cpu"), str((a @ b).dtype), str(a.dtype)]
            return a @ b

        @staticmethod
        @amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["bwd_inner"] = [torch.is_autocast_enabled("cpu"), str(g.dtype)]
            return g @ torch.ones(2, 3, dtype=g.dtype), torch.ones(3, 4, dtype=g.dtype) @ g

    seen = {}
    a = _randn(torch, 1940, 4, 3).requires_grad_()
    b = _randn(torch, 1941, 3, 2).requires_grad_()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        c = ScaledMatmul.apply(a, b)
        plain_mm = a @ b
        d = KeepDtype.apply(a, b)
    (c.sum() + plain_mm.float().sum()).backward()
    d.float().sum().backward()
    seen["c"] = [str(c.dtype), str(plain_mm.dtype), a.grad.flatten().tolist()[:6]]
    lin = _fill(torch, torch.nn.Linear(3, 3), 1942)
    x = _randn(torch, 1943, 5, 3).requires_grad_()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out_ckpt = torch.utils.checkpoint.checkpoint(lambda t: torch.tanh(lin(t)), x, use_reentrant=False)
    out_ckpt.float().sum().backward()
    seen["ckpt"] = [str(out_ckpt.dtype), str(x.grad.dtype), str(lin.weight.grad.dtype),
                    [round(v, 2) for v in lin.weight.grad.flatten().tolist()]]
    seen["d"] = [str(d.dtype)]
    return seen


# ---- a pure float16/bfloat16 classifier step: batch-norm statistics, log_softmax, logsumexp, attention ----------
def sixteen_bit_layers(torch, device):
    nn = torch.nn
    F = nn.functional
    out = {}
    for name in ("float16", "bfloat16"):
        dt = getattr(torch, name)
        x = _randn(torch, 1950, 2, 3, 6, 5, device=device).to(dt)
        bn = nn.BatchNorm2d(3, affine=False).to(device).to(dt).train()
        feats = bn(x)
        logits = _randn(torch, 1951, 4, 8, device=device).to(dt)
        q = _randn(torch, 1952, 1, 2, 4, 8, device=device).to(dt)
        out[name] = {"bn": plain(torch, feats.flatten()[:40]), "running_var": plain(torch, bn.running_var),
                     "log_softmax": plain(torch, F.log_softmax(logits, -1)),
                     "logsumexp": plain(torch, torch.logsumexp(logits, 1)),
                     "sdpa": plain(torch, F.scaled_dot_product_attention(q, q * 0.5, q.flip(-2))),
                     "prod": plain(torch, (logits[0] * 0.1 + 1).prod())}
    return out


PROGRAMS = [autocast_op_dtypes, grad_scaler_loop, half_inference, sixteen_bit_reductions, precision_conversions,
            custom_functions_under_autocast]
NEEDS_CPP = {
    sixteen_bit_layers: "needs C++: PyTorch's CPU kernels round 16-bit intermediates that tandem's keep in float32 "
                        "(one ulp apart in places): scaled_dot_product_attention (the CPU flash kernel's blocking) "
                        "and prod (each partial product rounded, in the vector lanes' order); batch_norm's "
                        "statistics, log_softmax and logsumexp, which the program also checks, match since "
                        "session 39",
}
