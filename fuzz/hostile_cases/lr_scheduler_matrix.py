"""The lr schedulers as a matrix, beyond lr_schedulers.py (each one's own arguments): every scheduler built over
an optimizer it cannot take (not an optimizer, None, a param list), resumed with last_epoch without 'initial_lr'
in the groups, with last_epoch of -2, 0 and 3.0, with the lr a tensor, over two param groups, its state_dict and
get_last_lr after three steps, and stepped past its end; the lrs after five steps are compared as values."""
from . import T


def opt(L, d, groups=1, lr=0.1, **kw):
    params = [L.nn.Parameter(T(L, [1.0, 2.0], d)) for _ in range(groups)]
    return L.optim.SGD([{"params": [p]} for p in params], lr=lr, momentum=0.9, **kw)


SCHEDULERS = {
    "StepLR": lambda L, o, **kw: L.optim.lr_scheduler.StepLR(o, 2, **kw),
    "MultiStepLR": lambda L, o, **kw: L.optim.lr_scheduler.MultiStepLR(o, [1, 3], **kw),
    "ExponentialLR": lambda L, o, **kw: L.optim.lr_scheduler.ExponentialLR(o, 0.5, **kw),
    "LinearLR": lambda L, o, **kw: L.optim.lr_scheduler.LinearLR(o, total_iters=3, **kw),
    "ConstantLR": lambda L, o, **kw: L.optim.lr_scheduler.ConstantLR(o, total_iters=2, **kw),
    "PolynomialLR": lambda L, o, **kw: L.optim.lr_scheduler.PolynomialLR(o, total_iters=4, power=2.0, **kw),
    "CosineAnnealingLR": lambda L, o, **kw: L.optim.lr_scheduler.CosineAnnealingLR(o, 4, **kw),
    "CosineAnnealingWarmRestarts": lambda L, o, **kw: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 2, **kw),
    "LambdaLR": lambda L, o, **kw: L.optim.lr_scheduler.LambdaLR(o, lambda e: 1.0 / (e + 1), **kw),
    "MultiplicativeLR": lambda L, o, **kw: L.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.9, **kw),
    "OneCycleLR": lambda L, o, **kw: L.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=6, **kw),
    "CyclicLR": lambda L, o, **kw: L.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=2, **kw),
}


def lrs(L, o, s, steps=5):
    out = []
    for _ in range(steps):
        o.step()
        s.step()
        out.append([round(g["lr"], 10) if isinstance(g["lr"], float) else g["lr"] for g in o.param_groups])
    return out


def _case(name, kind):
    make = SCHEDULERS[name]

    def fn(L, d):
        if kind == "not_optimizer":
            return make(L, [L.nn.Parameter(T(L, [1.0], d))])
        if kind == "none_optimizer":
            return make(L, None)
        if kind == "resume_without_initial_lr":
            return lrs(L, opt(L, d), make(L, opt(L, d), last_epoch=3))
        if kind == "last_epoch_minus_2":
            return make(L, opt(L, d), last_epoch=-2).last_epoch
        if kind == "last_epoch_float":
            o = opt(L, d)
            return lrs(L, o, make(L, o, last_epoch=-1.0), 2)
        if kind == "two_groups":
            o = opt(L, d, groups=2)
            return lrs(L, o, make(L, o))
        if kind == "lr_tensor":
            o = opt(L, d, lr=L.tensor(0.1))
            return [[float(v) for v in row] for row in lrs(L, o, make(L, o), 3)]
        if kind == "past_end":
            o = opt(L, d)
            return lrs(L, o, make(L, o), 9)
        if kind == "state_dict_keys":
            o = opt(L, d)
            s = make(L, o)
            lrs(L, o, s, 3)
            return sorted(k for k in s.state_dict() if k not in ("lr_lambdas",)), s.get_last_lr(), s.last_epoch
        if kind == "reload_state":
            o = opt(L, d)
            s = make(L, o)
            lrs(L, o, s, 3)
            o2 = opt(L, d)
            s2 = make(L, o2)
            s2.load_state_dict(s.state_dict())
            return lrs(L, o2, s2, 2)
        raise AssertionError(kind)
    return fn


KINDS = ["not_optimizer", "none_optimizer", "resume_without_initial_lr", "last_epoch_minus_2", "last_epoch_float",
         "two_groups", "lr_tensor", "past_end", "state_dict_keys", "reload_state"]
CASES = {f"{name}/{kind}": _case(name, kind) for name in SCHEDULERS for kind in KINDS}
