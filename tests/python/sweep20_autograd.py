"""Sweep 20 programs, custom autograd.Function idioms and activation checkpointing as libraries write them: a
straight-through quantiser with setup_context and ctx.needs_input_grad, a sort-based op with
mark_non_differentiable indices, an in-place clamp with mark_dirty, a once_differentiable kernel refusing double
backward, a Function with a jvp (forward-mode AD and save_for_forward) and a double-backward-able Function used in a
gradient penalty, and checkpointing (use_reentrant True/False, checkpoint_sequential, kwargs, non-tensor outputs,
the reentrant no-grad-input warning), every wrong backward and checkpoint misuse, and in-place writes into views of
a custom Function's view output (a strict xfail: needs C++).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep20.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
from sweep15_common import cases
from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


# ---- a straight-through quantiser with setup_context and needs_input_grad --------------------------------------------
def straight_through_quantiser(torch, device):
    nn = torch.nn
    seen = []

    class Quantise(torch.autograd.Function):
        @staticmethod
        def forward(x, scale, bits):
            q = 2 ** (bits - 1)
            return torch.clamp(torch.round(x / scale), -q, q - 1) * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, scale, bits = inputs
            ctx.save_for_backward(x, scale)
            ctx.bits = bits

        @staticmethod
        def backward(ctx, g):
            x, scale = ctx.saved_tensors
            seen.append(list(ctx.needs_input_grad))
            q = 2 ** (ctx.bits - 1)
            inside = (x / scale >= -q) & (x / scale <= q - 1)
            gx = g * inside if ctx.needs_input_grad[0] else None
            gs = None
            if ctx.needs_input_grad[1]:  # LSQ's step-size gradient
                r = x / scale
                gs = (g * torch.where(inside, torch.round(r) - r, r.clamp(-q, q - 1))).sum().reshape(scale.shape)
            return gx, gs, None

    class QLinear(nn.Linear):
        def __init__(self, i, o):
            super().__init__(i, o)
            self.scale = nn.Parameter(torch.tensor(0.05))

        def forward(self, x):
            return nn.functional.linear(x, Quantise.apply(self.weight, self.scale, 4), self.bias)

    model = _fill(torch, nn.Sequential(QLinear(4, 8), nn.ReLU(), QLinear(8, 2)), 2300).to(device)
    with torch.no_grad():
        for m in model:
            if isinstance(m, QLinear):
                m.scale.fill_(0.05)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x = _randn(torch, 2301, 16, 4, device=device)
    y = _randn(torch, 2302, 16, 2, device=device)
    log = []
    for step in range(4):
        model[2].scale.requires_grad_(step % 2 == 0)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append(_r(loss, 5))
    class QuantiseVmap(Quantise):
        generate_vmap_rule = True

    step = torch.tensor(0.1, device=device)
    vmapped = cases(torch, {
        "no_rule": lambda: torch.func.vmap(lambda w: Quantise.apply(w, step, 3))(x[:3]),
        "generated": lambda: torch.func.vmap(lambda w: QuantiseVmap.apply(w, step, 3))(x[:3]),
        "grad": lambda: torch.func.grad(lambda w: QuantiseVmap.apply(w, step, 3).sum())(x[0]),
    })
    return {"log": log, "seen": seen, "scales": [_r(model[0].scale, 6), _r(model[2].scale, 6)],
            "vmap": vmapped}


# ---- mark_non_differentiable, mark_dirty, once_differentiable ----------------------------------------------------------
def function_marks(torch, device):
    from_function = torch.autograd.function

    class TopK(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            vals, idx = x.topk(k, dim=-1)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            ctx.shape = x.shape
            return vals, idx

        @staticmethod
        def backward(ctx, gv, gi):
            (idx,) = ctx.saved_tensors
            return torch.zeros(ctx.shape, device=gv.device, dtype=gv.dtype).scatter(-1, idx, gv), None

    class ClampInPlace(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, lo, hi):
            mask = (x >= lo) & (x <= hi)
            x.clamp_(lo, hi)
            ctx.mark_dirty(x)
            ctx.save_for_backward(mask)
            return x

        @staticmethod
        def backward(ctx, g):
            (mask,) = ctx.saved_tensors
            return g * mask, None, None

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @from_function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = _randn(torch, 2310, 3, 5, device=device).requires_grad_()
    vals, idx = TopK.apply(x, 2)
    (vals * torch.arange(1.0, 3.0, device=device)).sum().backward()
    topk_grad = x.grad.clone()
    h = x.detach() * 1.0
    h.requires_grad_()
    z = h * 2
    out = ClampInPlace.apply(z, -0.5, 0.5)
    out.sum().backward()
    c = x.detach().clone().requires_grad_()
    (g,) = torch.autograd.grad(Cube.apply(c).sum(), c, create_graph=True)

    def double():
        return torch.autograd.grad(g.sum(), c)

    def dirty_leaf():
        leaf = torch.ones(3, device=device, requires_grad=True)
        return ClampInPlace.apply(leaf, 0.0, 0.5)

    def idx_grad():
        v, i = TopK.apply(x, 2)
        return i.requires_grad, i.grad_fn is None, v.requires_grad

    return {"topk": [_r(topk_grad, 5), idx.requires_grad, str(idx.dtype)],
            "dirty": [out is z, _r(h.grad, 5), z._version > 0],
            "cube": _r(g, 4), "g_requires": g.requires_grad,
            "errs": cases(torch, {"double": double, "dirty_leaf": dirty_leaf, "idx": idx_grad})}


# ---- forward-mode jvp with save_for_forward, and double backward through a custom Function ----------------------------
def function_jvp_and_double_backward(torch, device):
    fwAD = torch.autograd.forward_ad

    class SoftPlus(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, beta):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            ctx.beta = beta
            return torch.nn.functional.softplus(x, beta)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * torch.sigmoid(ctx.beta * x), None  # built from ops: differentiable again

        @staticmethod
        def jvp(ctx, tx, _):
            (x,) = ctx.saved_tensors
            return tx * torch.sigmoid(ctx.beta * x)

    x = _randn(torch, 2320, 6, device=device, dtype=torch.float64)
    t = _randn(torch, 2321, 6, device=device, dtype=torch.float64)
    with fwAD.dual_level():
        out = SoftPlus.apply(fwAD.make_dual(x, t), 2.0)
        primal, tangent = fwAD.unpack_dual(out)
    ok = torch.autograd.gradcheck(lambda a: SoftPlus.apply(a, 2.0), (x.clone().requires_grad_(),))
    ok2 = torch.autograd.gradgradcheck(lambda a: SoftPlus.apply(a, 2.0), (x.clone().requires_grad_(),))
    # a WGAN-GP style gradient penalty through the custom activation
    nn = torch.nn
    lin1 = _fill(torch, nn.Linear(3, 8), 2322).to(device).double()
    lin2 = _fill(torch, nn.Linear(8, 1), 2323).to(device).double()
    pts = _randn(torch, 2324, 5, 3, device=device, dtype=torch.float64).requires_grad_()
    score = lin2(SoftPlus.apply(lin1(pts), 1.0))
    (gp,) = torch.autograd.grad(score.sum(), pts, create_graph=True)
    penalty = ((gp.norm(dim=1) - 1) ** 2).mean()
    penalty.backward()
    return {"primal": _r(primal, 6), "tangent": _r(tangent, 6), "gradcheck": [ok, ok2],
            "penalty": _r(penalty, 6), "w_grad": _r(lin1.weight.grad.sum(), 6),
            "func_jvp": cases(torch, {"jvp": lambda: torch.func.jvp(lambda a: SoftPlus.apply(a, 2.0), (x,), (t,))})}


# ---- checkpointing: reentrant and not, sequential, kwargs and non-tensor outputs -------------------------------------
def checkpoint_variants(torch, device):
    import warnings
    nn = torch.nn
    cp = torch.utils.checkpoint
    calls = []

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(6, 6)
            self.drop = nn.Dropout(0.3)

        def forward(self, x, scale=1.0, tag=None):
            calls.append(tag)
            return self.drop(torch.tanh(self.lin(x))) * scale, {"tag": tag, "mean": x.mean()}

    block = _fill(torch, Block(), 2330).to(device)
    x = _randn(torch, 2331, 4, 6, device=device)
    results = {}
    for reentrant in (False, True):
        calls.clear()
        inp = x.clone().requires_grad_()
        torch.manual_seed(5)
        if reentrant:
            out, info = cp.checkpoint(block, inp, 2.0, "r", use_reentrant=True)
        else:
            out, info = cp.checkpoint(block, inp, scale=2.0, tag="n", use_reentrant=False)
        out.sum().backward()
        g_ckpt = inp.grad.clone()
        block.zero_grad()
        inp2 = x.clone().requires_grad_()
        torch.manual_seed(5)
        out_ref, _ = block(inp2, 2.0, "plain")
        out_ref.sum().backward()
        results[str(reentrant)] = [len(calls), info["tag"], torch.allclose(out, out_ref),
                                   torch.allclose(g_ckpt, inp2.grad), info["mean"].requires_grad]
    # the reentrant form with no input requiring grad warns and gives parameters no gradient
    block.zero_grad()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out, _ = cp.checkpoint(block, x, use_reentrant=True)
    warned = [str(m.message).split(".")[0] for m in w if "requires_grad" in str(m.message)]
    seq = nn.Sequential(*[nn.Sequential(nn.Linear(6, 6), nn.GELU()) for _ in range(6)])
    _fill(torch, seq, 2332).to(device)
    xs = x.clone().requires_grad_()
    ys = cp.checkpoint_sequential(seq, 3, xs, use_reentrant=False)
    ys.square().mean().backward()
    ref = x.clone().requires_grad_()
    seq(ref).square().mean().backward()
    # a checkpointed function that returns a tuple with a None and an integer
    def fn(a):
        return a.exp(), None, 3
    e, none, three = cp.checkpoint(fn, x.clone().requires_grad_(), use_reentrant=False)
    return {"modes": results, "warned": warned, "no_grad_out": out.requires_grad,
            "seq": [torch.allclose(xs.grad, ref.grad, atol=1e-6), _r(ys.sum(), 4)],
            "mixed": [e.requires_grad, none, three]}


PROGRAMS = [straight_through_quantiser, function_marks, function_jvp_and_double_backward, checkpoint_variants]
NEEDS_CPP = {}


# ---- what autograd.Function and checkpoint refuse --------------------------------------------------------------------
def function_refusals(torch, device):
    Function = torch.autograd.Function
    cp = torch.utils.checkpoint

    def make(backward, forward=None, **attrs):
        def default_forward(ctx, x, y):
            ctx.save_for_backward(x)
            return x * y
        return type("Custom", (Function,), {"forward": staticmethod(forward or default_forward),
                                            "backward": staticmethod(backward), **attrs})

    x = torch.ones(2, device=device, requires_grad=True)
    y = torch.full((2,), 3.0, device=device)

    def run(fn, *args):
        out = fn.apply(*args)
        out.sum().backward()
        return x.grad

    def materialize(flag):
        seen = []

        class Two(Function):
            @staticmethod
            def forward(ctx, a):
                ctx.set_materialize_grads(flag)
                return a * 2, a * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append([g1 is None, g2 is None])
                return (g1 if g1 is not None else 0) * 2

        a = torch.ones(2, device=device, requires_grad=True)
        Two.apply(a)[0].sum().backward()
        return seen

    def saved_twice():
        fn = make(lambda ctx, g: (g * ctx.saved_tensors[0], None))
        out = fn.apply(x, y).sum()
        out.backward()
        out.backward()

    def modified_saved():  # on the CPU: the message names the tensor type
        z = x.cpu() * 1.0
        fn = make(lambda ctx, g: (g * ctx.saved_tensors[0], None))
        out = fn.apply(z, y.cpu())
        z.mul_(2)
        out.sum().backward()

    def dirty_not_returned():
        def fwd(ctx, a, b):
            a.add_(1)
            ctx.mark_dirty(a)
            return b * 1.0
        return make(lambda ctx, g: (g, g), fwd).apply(x * 1.0, y)

    def save_non_tensor():
        def fwd(ctx, a, b):
            ctx.save_for_backward(a, 3)
            return a * b
        return make(lambda ctx, g: (g, None), fwd).apply(x, y)

    def reentrant_grad_call():
        a = x.detach().clone().requires_grad_()
        out = cp.checkpoint(lambda t: t.sin(), a, use_reentrant=True)
        return torch.autograd.grad(out.sum(), a)

    def checkpoint_kwargs_reentrant():
        return cp.checkpoint(lambda t, s=1.0: t * s, x, s=2.0, use_reentrant=True)

    def checkpoint_unknown_kwarg():
        return cp.checkpoint(lambda t: t, x, use_reentrant=False, bogus=1)

    table = {
        "too_few": lambda: run(make(lambda ctx, g: g), x, y),
        "too_many": lambda: run(make(lambda ctx, g: (g, None, None)), x, y),
        "bad_shape": lambda: run(make(lambda ctx, g: (g[:1], None)), x, y),
        "not_tensor": lambda: run(make(lambda ctx, g: ("g", None)), x, y),
        "wrong_dtype": lambda: run(make(lambda ctx, g: (g.double(), None)), x, y),
        "grad_for_int": lambda: run(make(lambda ctx, g: (g, g)), x, torch.ones(2, dtype=torch.long, device=device)),
        "apply_kwargs": lambda: make(lambda ctx, g: (g, None)).apply(x, y=y),
        "call_forward_directly": lambda: make(lambda ctx, g: (g, None))()(x, y),
        "saved_twice": saved_twice,
        "modified_saved": modified_saved,
        "dirty_not_returned": dirty_not_returned,
        "save_non_tensor": save_non_tensor,
        "materialize_true": lambda: materialize(True),
        "materialize_false": lambda: materialize(False),
        "reentrant_grad": reentrant_grad_call,
        "reentrant_kwargs": checkpoint_kwargs_reentrant,
        "unknown_kwarg": checkpoint_unknown_kwarg,
        "seq_bad_segments": lambda: cp.checkpoint_sequential(torch.nn.Sequential(torch.nn.Identity()), 0, x,
                                                             use_reentrant=False),
    }
    return cases(torch, table)


PROGRAMS.append(function_refusals)


# ---- in-place writes into views of a custom Function's view output ---------------------------------------------------
def custom_view_chain_inplace(torch, device):
    class Window(torch.autograd.Function):
        """A zero-copy crop whose backward pads the gradient back (a view returned from forward)."""
        @staticmethod
        def forward(ctx, x):
            ctx.length = x.shape[-1]
            return x[..., 1:-1]

        @staticmethod
        def backward(ctx, g):
            return torch.nn.functional.pad(g, (1, 1))

    x = torch.arange(6.0, device=device).view(2, 3).requires_grad_()
    crop = Window.apply(x)
    crop.sum().backward()

    def write_output():
        Window.apply(x).mul_(2)

    def write_view_of_output():
        Window.apply(x).view(-1).mul_(2)

    def write_slice_of_output():
        Window.apply(x)[0].add_(1)

    return {"grad": x.grad.tolist(), "errs": cases(torch, {"output": write_output,
                                                            "view_of_output": write_view_of_output,
                                                            "slice_of_output": write_slice_of_output})}


PROGRAMS.append(custom_view_chain_inplace)
