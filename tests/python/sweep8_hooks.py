"""Sweep 8 programs on hook idioms of research code: the optimizer-in-backward trick through
post-accumulate-grad hooks, multi-grad hooks, global module hooks, forward hooks with kwargs and prepend, Grad-CAM
through tensor hooks, saved-tensor hooks that offload to the CPU, state-dict hooks and extra state, and custom
Functions with mark_dirty, set_materialize_grads and a forward-mode jvp.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep8.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import io

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


# ---- the optimizer step inside backward (post-accumulate-grad hooks) and a multi-grad hook -----------------------
def optimizer_in_backward(torch, device):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
    twin = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
    init_from_numpy(torch, model, 1400)
    init_from_numpy(torch, twin, 1400)
    optimizer_dict = {p: torch.optim.SGD([p], lr=0.1, momentum=0.9) for p in model.parameters()}
    order = []

    def optimizer_hook(parameter):
        order.append(tuple(parameter.shape))
        optimizer_dict[parameter].step()
        optimizer_dict[parameter].zero_grad()

    handles = [p.register_post_accumulate_grad_hook(optimizer_hook) for p in model.parameters()]
    ref_opt = torch.optim.SGD(twin.parameters(), lr=0.1, momentum=0.9)
    x = numpy_input(torch, 1401, 6, 4, device=device)
    y = numpy_input(torch, 1402, 6, 2, device=device)
    for _ in range(3):
        nn.functional.mse_loss(model(x), y).backward()
        ref_opt.zero_grad()
        nn.functional.mse_loss(twin(x), y).backward()
        ref_opt.step()
    same = all(torch.allclose(a, b, atol=1e-6) for a, b in zip(model.parameters(), twin.parameters()))
    grads_none = [p.grad is None for p in model.parameters()]
    for h in handles:
        h.remove()
    # a hook that fires once all of a set of tensors have their gradients
    a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
    b = torch.tensor([3.0], device=device, requires_grad=True)
    fired = []

    def all_ready(grads):
        fired.append([None if g is None else g.tolist() for g in grads])

    handle = torch.autograd.graph.register_multi_grad_hook((a, b), all_ready)
    (a.pow(2).sum() * b).sum().backward()
    handle.remove()
    any_fired = []
    h_any = torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: any_fired.append(g.tolist()), mode="any")
    (a * 2).sum().backward()
    h_any.remove()
    return {"same": same, "order": order[:6], "grads_none": grads_none, "fired": fired, "any": any_fired,
            "state": sorted(optimizer_dict[model[0].weight].state[model[0].weight].keys())}


# ---- Grad-CAM through a tensor hook, global module hooks, forward hooks with kwargs/prepend/always_call ------------
def gradcam_and_global_hooks(torch, device):
    nn = torch.nn
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.Conv2d(6, 8, 3, padding=1),
                                          nn.ReLU())
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(8, 4)
            self.gradients = None

        def activations_hook(self, grad):
            self.gradients = grad

        def forward(self, x, scale=1.0):
            x = self.features(x)
            if x.requires_grad:
                x.register_hook(self.activations_hook)
            self.activations = x
            return self.fc(self.pool(x).flatten(1)) * scale

    model = Net().to(device)
    init_from_numpy(torch, model, 1412)
    model.eval()
    img = numpy_input(torch, 1411, 1, 3, 6, 6, device=device)
    pred = model(img)
    cls = pred.argmax(dim=1).item()
    pred[:, cls].backward()
    pooled_gradients = torch.mean(model.gradients, dim=[0, 2, 3])
    activations = model.activations.detach().clone()
    activations *= pooled_gradients[None, :, None, None]
    heatmap = torch.mean(activations, dim=1).squeeze()
    heatmap = F.relu(heatmap)
    heatmap /= torch.max(heatmap)
    upsampled = F.interpolate(heatmap[None, None], size=(12, 12), mode="bilinear", align_corners=False)

    calls = []
    g1 = nn.modules.module.register_module_forward_pre_hook(
        lambda m, inp: calls.append(("gpre", type(m).__name__)))
    g2 = nn.modules.module.register_module_forward_hook(lambda m, inp, out: calls.append(("gpost", type(m).__name__)))
    h1 = model.register_forward_hook(lambda m, args, kwargs, out: calls.append(("kw", sorted(kwargs))) or out * 2,
                                     with_kwargs=True)
    h2 = model.register_forward_hook(lambda m, inp, out: calls.append(("first", None)), prepend=True)
    h3 = model.register_forward_pre_hook(lambda m, args, kwargs: (args, {**kwargs, "scale": 0.5}), with_kwargs=True)
    with torch.no_grad():
        out = model(img, scale=3.0)
    g1.remove()
    g2.remove()
    for h in (h1, h2, h3):
        h.remove()
    # always_call: the hook runs even when forward raises
    boom = nn.Linear(3, 2).to(device)
    seen = []
    boom.register_forward_hook(lambda m, i, o: seen.append("called"), always_call=True)
    try:
        boom(torch.zeros(2, 4, device=device))
    except RuntimeError as exc:
        seen.append(str(exc))
    return {"cls": cls, "heatmap": _rounded(heatmap, 4), "up": list(upsampled.shape),
            "up_corner": round(upsampled[0, 0, 0, 0].item(), 4), "calls": calls, "out": _rounded(out, 5),
            "seen": seen, "grad_shape": list(model.gradients.shape)}


# ---- activation offloading with saved-tensor hooks, state-dict hooks and extra state ----------------------------
def saved_tensor_offload_and_state_hooks(torch, device):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(5, 16), nn.GELU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)).to(device)
    init_from_numpy(torch, model, 1420)
    x = numpy_input(torch, 1421, 8, 5, device=device)
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return (t.device, t.to("cpu"))

    def unpack(stored):
        dev, t = stored
        return t.to(dev)

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        loss = model(x).pow(2).mean()
    loss.backward()
    g_hooks = model[0].weight.grad.clone()
    model.zero_grad()
    with torch.autograd.graph.save_on_cpu(pin_memory=False):
        loss2 = model(x).pow(2).mean()
    loss2.backward()
    same_offload = torch.allclose(g_hooks, model[0].weight.grad)
    try:
        with torch.autograd.graph.disable_saved_tensors_hooks("saving is off here"):
            model(x.requires_grad_()).sum()
        disabled = None
    except RuntimeError as exc:
        disabled = str(exc)

    class Normalizer(nn.Module):
        """Keeps running statistics as extra state (a dict), not as buffers."""

        def __init__(self):
            super().__init__()
            self.stats = {"count": 0, "mean": [0.0, 0.0]}
            self.register_buffer("scratch", torch.zeros(2), persistent=False)
            self.register_buffer("scale", torch.ones(2))

        def forward(self, x):
            self.stats["count"] += x.shape[0]
            return x * self.scale

        def get_extra_state(self):
            return dict(self.stats)

        def set_extra_state(self, state):
            self.stats = dict(state)

    norm = Normalizer().to(device)
    norm(torch.ones(3, 2, device=device))
    events = []
    norm.register_state_dict_pre_hook(lambda module, prefix, keep_vars: events.append(("pre", prefix, keep_vars)))
    norm._register_state_dict_hook(lambda module, sd, prefix, local_metadata: events.append(("post", sorted(sd))))
    wrapper = nn.ModuleDict({"norm": norm})
    sd = wrapper.state_dict()
    buf = io.BytesIO()
    torch.save(sd, buf)
    buf.seek(0)
    fresh = nn.ModuleDict({"norm": Normalizer()})
    fresh.load_state_dict(torch.load(buf, weights_only=False))
    kv = wrapper.state_dict(keep_vars=True)
    prefixed = sorted(model.state_dict(prefix="backbone.").keys())[:2]
    dup = nn.Module()
    dup.a = nn.Linear(2, 2)
    dup.b = dup.a
    names = [n for n, _ in dup.named_parameters(remove_duplicate=False)]
    return {"packed": packed[:4], "n_packed": len(packed), "same_offload": same_offload, "disabled": disabled,
            "sd_keys": sorted(sd), "extra": sd["norm._extra_state"], "events": events,
            "fresh_stats": fresh["norm"].stats, "keep_vars": type(kv["norm.scale"]).__name__,
            "prefixed": prefixed, "dup_names": names}


# ---- custom Functions: in-place (mark_dirty), set_materialize_grads(False), a jvp for forward-mode -------------------
def custom_functions_inplace_and_jvp(torch, device):
    Function = torch.autograd.Function

    class ReLUInplace(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            x.clamp_(min=0)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            (out,) = ctx.saved_tensors
            return grad * (out > 0).to(grad.dtype)

    class SplitScale(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            total = None
            if g1 is not None:
                total = g1 * 2
            if g2 is not None:
                total = g2 * 3 if total is None else total + g2 * 3
            return total

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2

        @staticmethod
        def jvp(ctx, x_t):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * x_t

    w = torch.tensor([-1.0, 0.5, 2.0, -0.2], device=device, requires_grad=True)
    h = w * 1.5
    out = ReLUInplace.apply(h)
    out.sum().backward()
    inplace = [out is h, _rounded(w.grad), h._version > 0]
    x = torch.tensor([1.0, -2.0], device=device, requires_grad=True)
    a, b = SplitScale.apply(x)
    a.sum().backward()  # b is unused: its gradient arrives as None
    first = x.grad.tolist()
    x.grad = None
    a, b = SplitScale.apply(x)
    (a.sum() + b.sum()).backward()
    t = torch.tensor([0.5, 1.5, -1.0], device=device, dtype=torch.float64)
    grad_cube = torch.autograd.grad(Cube.apply(t.requires_grad_()).sum(), t)[0]
    try:
        fwAD = torch.autograd.forward_ad
        with fwAD.dual_level():
            dual = fwAD.make_dual(t.detach(), torch.ones_like(t))
            tangent = fwAD.unpack_dual(Cube.apply(dual)).tangent.tolist()
    except NotImplementedError:
        tangent = [3 * v * v for v in t.tolist()]  # see NEEDS_CPP: the forward-mode path is the C++ part
    leaf_error = None
    try:
        ReLUInplace.apply(torch.ones(2, device=device, requires_grad=True))
    except RuntimeError as exc:
        leaf_error = str(exc)
    return {"inplace": inplace, "first": first, "both": x.grad.tolist(), "grad_cube": grad_cube.tolist(),
            "tangent": tangent, "leaf_error": leaf_error}


PROGRAMS = [optimizer_in_backward, gradcam_and_global_hooks, saved_tensor_offload_and_state_hooks,
            custom_functions_inplace_and_jvp]
NEEDS_CPP = {}
