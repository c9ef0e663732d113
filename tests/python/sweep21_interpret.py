"""Sweep 21 programs, interpretability code as tutorials and Captum-free notebooks write it: vanilla saliency maps
from input gradients, SmoothGrad over seeded noise, integrated gradients along a straight path with a Riemann sum,
Grad-CAM from a forward hook and a tensor hook on the last convolution, guided backpropagation through
register_full_backward_hook on every ReLU, occlusion sensitivity with unfold/fold, and class-model visualisation by
gradient ascent on the input.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep21.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


def _cnn(torch, seed, device):
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(6, 3))
    return _fill(torch, model, seed).to(device).eval()


# ---- vanilla saliency: |d score / d input|, max over channels --------------------------------------------------------
def saliency_map(torch, device):
    model = _cnn(torch, 2100, device)
    x = _randn(torch, 2101, 2, 1, 8, 8, device=device).requires_grad_()
    scores = model(x)
    pred = scores.argmax(dim=1)
    picked = scores.gather(1, pred.unsqueeze(1)).squeeze()
    picked.backward(torch.ones_like(picked))
    sal = x.grad.abs().amax(dim=1)
    flat = sal.flatten(1)
    top = flat.topk(5, dim=1)
    norm = (sal - sal.amin(dim=(1, 2), keepdim=True)) / (sal.amax(dim=(1, 2), keepdim=True)
                                                          - sal.amin(dim=(1, 2), keepdim=True) + 1e-8)
    return {"pred": pred.tolist(), "sal": _r(sal, 4), "top_idx": top.indices.tolist(),
            "top_val": _r(top.values, 4), "norm_range": [_r(norm.min(), 4), _r(norm.max(), 4)],
            "grad_dtype": str(x.grad.dtype), "leaf": x.is_leaf, "shape": list(sal.shape)}


# ---- SmoothGrad: average gradients over noisy copies (noise from NumPy) ---------------------------------------------
def smoothgrad(torch, device):
    model = _cnn(torch, 2110, device)
    x = _randn(torch, 2111, 1, 1, 8, 8, device=device)
    target = 2
    n, sigma = 6, 0.15 * (x.max() - x.min()).item()
    noise = _randn(torch, 2112, n, 1, 8, 8, device=device) * sigma
    total = torch.zeros_like(x)
    squares = torch.zeros_like(x)
    for i in range(n):
        noisy = (x + noise[i:i + 1]).clone().detach().requires_grad_(True)
        out = model(noisy)[0, target]
        (g,) = torch.autograd.grad(out, noisy)
        total += g
        squares += g * g
    mean = total / n
    var = squares / n - mean ** 2
    batched = (x + noise).requires_grad_()
    model(batched)[:, target].sum().backward()
    batch_mean = batched.grad.mean(dim=0, keepdim=True)
    return {"mean": _r(mean, 4), "var_pos": bool((var > -1e-6).all()),
            "batched_equal": bool(torch.allclose(mean, batch_mean, atol=1e-6)),
            "sigma": round(sigma, 4), "abs_sum": _r(mean.abs().sum(), 4)}


# ---- integrated gradients: Riemann sum along the path from a baseline ------------------------------------------------
def integrated_gradients(torch, device):
    nn = torch.nn
    model = _fill(torch, nn.Sequential(nn.Linear(6, 10), nn.Tanh(), nn.Linear(10, 3), nn.Softmax(dim=-1)),
                  2120).to(device)
    x = _randn(torch, 2121, 6, device=device)
    baseline = torch.zeros_like(x)
    results = {}
    for steps in (8, 32):
        alphas = torch.linspace(0, 1, steps + 1, device=device)[1:].view(-1, 1)
        path = (baseline + alphas * (x - baseline)).requires_grad_(True)
        probs = model(path)[:, 1]
        grads = torch.autograd.grad(probs.sum(), path)[0]
        attributions = (x - baseline) * grads.mean(dim=0)
        with torch.no_grad():
            delta = model(x.unsqueeze(0))[0, 1] - model(baseline.unsqueeze(0))[0, 1]
        results[steps] = {"attr": _r(attributions, 4),
                          "completeness_gap": round(abs(attributions.sum().item() - delta.item()), 3)}
    # the trapezoid rule on the same grid
    alphas = torch.linspace(0, 1, 17, device=device).view(-1, 1)
    path = (alphas * x).requires_grad_(True)
    g = torch.autograd.grad(model(path)[:, 1].sum(), path)[0]
    trap = torch.trapezoid(g, alphas.squeeze(1), dim=0) * x
    return {"riemann": results, "trapezoid": _r(trap, 4), "trap_sum": _r(trap.sum(), 4)}


# ---- Grad-CAM: forward hook keeps the activation, a tensor hook its gradient ------------------------------------------
def grad_cam(torch, device):
    F = torch.nn.functional
    model = _cnn(torch, 2130, device)
    store = {}

    def fwd_hook(module, inp, out):
        store["act"] = out
        out.register_hook(lambda g: store.__setitem__("grad", g))

    handle = model[3].register_forward_hook(fwd_hook)
    x = _randn(torch, 2131, 2, 1, 8, 8, device=device)
    scores = model(x)
    model.zero_grad()
    one_hot = F.one_hot(scores.argmax(1), num_classes=3).to(scores.dtype)
    (scores * one_hot).sum().backward()
    weights = store["grad"].mean(dim=(2, 3), keepdim=True)
    cam = F.relu((weights * store["act"]).sum(dim=1, keepdim=True))
    cam_up = F.interpolate(cam, size=(8, 8), mode="bilinear", align_corners=False)
    cam_up = cam_up / (cam_up.flatten(1).amax(1).view(-1, 1, 1, 1) + 1e-7)
    handle.remove()
    after = len(model[3]._forward_hooks)
    return {"act_shape": list(store["act"].shape), "weights": _r(weights.flatten(), 4),
            "cam": _r(cam_up.squeeze(1), 4), "hooks_left": after,
            "act_requires_grad": store["act"].requires_grad,
            "param_grad": _r(model[0].weight.grad.abs().sum(), 4)}


# ---- guided backpropagation: clamp negative gradients at every ReLU ---------------------------------------------------
def guided_backprop(torch, device):
    nn = torch.nn
    model = _cnn(torch, 2140, device)
    for m in model.modules():
        if isinstance(m, nn.ReLU):
            m.inplace = False
    handles = []
    seen = []

    def clamp_hook(module, grad_input, grad_output):
        seen.append((type(module).__name__, len(grad_input), len(grad_output)))
        return (grad_input[0].clamp(min=0.0),)

    for m in model.modules():
        if isinstance(m, nn.ReLU):
            handles.append(m.register_full_backward_hook(clamp_hook))
    x = _randn(torch, 2141, 1, 1, 8, 8, device=device).requires_grad_()
    model(x)[0, 1].backward()
    guided = x.grad.clone()
    for h in handles:
        h.remove()
    x.grad = None
    model(x)[0, 1].backward()
    plain = x.grad.clone()
    return {"guided": _r(guided.flatten(), 4), "plain": _r(plain.flatten(), 4), "seen": seen,
            "differs": not torch.equal(guided, plain)}


# ---- occlusion sensitivity with unfold/fold -----------------------------------------------------------------------------
def occlusion_sensitivity(torch, device):
    F = torch.nn.functional
    model = _cnn(torch, 2150, device)
    x = _randn(torch, 2151, 1, 1, 8, 8, device=device)
    with torch.no_grad():
        base = model(x).softmax(-1)[0, 0].item()
        patches = []
        for i in range(0, 8, 2):
            for j in range(0, 8, 2):
                occluded = x.clone()
                occluded[..., i:i + 2, j:j + 2] = 0.0
                patches.append(occluded)
        batch = torch.cat(patches)
        drops = base - model(batch).softmax(-1)[:, 0]
        heat = drops.view(4, 4)
        # the same masks through unfold/fold
        cols = F.unfold(x, kernel_size=2, stride=2)
        masks = torch.eye(16, device=device).unsqueeze(0)
        occ_cols = cols.unsqueeze(-1) * (1 - masks).unsqueeze(1).expand(1, 4, 16, 16)
        occ = F.fold(occ_cols.permute(0, 3, 1, 2).reshape(16, 4, 16), output_size=(8, 8), kernel_size=2, stride=2)
        same = bool(torch.allclose(occ, batch))
    return {"base": round(base, 5), "heat": _r(heat, 4), "argmax": divmod(int(heat.argmax()), 4),
            "same_batch": same, "cols": list(cols.shape)}


# ---- class-model visualisation: gradient ascent on the input with L2 regularisation ----------------------------------
def class_visualisation(torch, device):
    model = _cnn(torch, 2160, device)
    for p in model.parameters():
        p.requires_grad_(False)
    img = torch.zeros(1, 1, 8, 8, device=device, requires_grad=True)
    opt = torch.optim.Adam([img], lr=0.1)
    trace = []
    for step in range(8):
        opt.zero_grad()
        score = model(img)[0, 1]
        loss = -score + 0.01 * img.pow(2).sum()
        loss.backward()
        opt.step()
        with torch.no_grad():
            img.clamp_(-1.5, 1.5)
        trace.append(round(score.item(), 4))
    frozen = [p.grad is None for p in model.parameters()]
    return {"trace": trace, "img": _r(img.detach().flatten()[:16], 4), "frozen": frozen,
            "state_steps": [s["step"].item() if hasattr(s["step"], "item") else s["step"]
                            for s in opt.state.values()]}


PROGRAMS = [saliency_map, smoothgrad, integrated_gradients, grad_cam, guided_backprop, occlusion_sensitivity,
            class_visualisation]
NEEDS_CPP = {}
