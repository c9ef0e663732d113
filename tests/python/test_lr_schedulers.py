"""optim.lr_scheduler: every scheduler's lr (and momentum/beta1) sequence against PyTorch's, over several param
groups, state_dict round trips mid-run, the epoch argument, warnings, and errors for bad arguments."""
import copy
import math
import warnings

import pytest
import torch

import tandem
from tandem import nn, optim

STEPS = 30


class Lib:
    """The same construction code runs on tandem and on torch: `lib.sched` is the lr_scheduler module."""

    def __init__(self, name):
        self.name = name
        self.tensor_lib = tandem if name == "tandem" else torch
        self.optim = self.tensor_lib.optim
        self.sched = self.optim.lr_scheduler

    def optimizer(self, kind="sgd", groups=2):
        lib = self.tensor_lib
        params = [lib.nn.Parameter(lib.ones(2)) for _ in range(groups)]
        group_list = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(params)]
        if kind == "sgd":
            return self.optim.SGD(group_list, lr=0.1)
        if kind == "momentum":
            return self.optim.SGD(group_list, lr=0.1, momentum=0.9)
        if kind == "adam":
            return self.optim.Adam(group_list, lr=0.1, betas=(0.9, 0.99))
        return self.optim.AdamW(group_list, lr=0.1)


OURS, THEIRS = Lib("tandem"), Lib("torch")


def snapshot(opt, sched):
    """Everything a scheduler controls after a step: lrs, get_last_lr, momentum and betas."""
    rows = []
    for g, last in zip(opt.param_groups, sched.get_last_lr()):
        rows.append((g["lr"], last, g.get("momentum"), tuple(g["betas"]) if "betas" in g else None))
    return rows


def trajectory(lib, make, kind, groups, steps=STEPS, metrics=None):
    opt = lib.optimizer(kind, groups)
    sched = make(lib.sched, opt)
    out = [snapshot(opt, sched)]
    for i in range(steps):
        opt.step()
        sched.step() if metrics is None else sched.step(metrics[i])
        out.append(snapshot(opt, sched))
    return out


def assert_close(ours, theirs):
    assert len(ours) == len(theirs)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for ra, rb in zip(a, b, strict=True):
            for x, y in zip(ra, rb, strict=True):
                if isinstance(y, tuple):
                    assert x == pytest.approx(y, rel=1e-12, abs=1e-15), step
                elif y is None:
                    assert x is None, step
                else:
                    assert type(x) is type(y) and x == pytest.approx(y, rel=1e-12, abs=1e-15), step


def pg(opt, *values):
    """One value per param group of `opt`, cycling through `values`."""
    return [values[i % len(values)] for i in range(len(opt.param_groups))]


CASES = {
    "LambdaLR": (lambda s, o: s.LambdaLR(o, lambda e: 0.95 ** e), "sgd"),
    "LambdaLR-list": (lambda s, o: s.LambdaLR(o, pg(o, lambda e: 0.9 ** e, lambda e: 1.0 / (e + 1))), "sgd"),
    "MultiplicativeLR": (lambda s, o: s.MultiplicativeLR(o, lambda e: 0.9 if e % 2 else 0.97), "sgd"),
    "StepLR": (lambda s, o: s.StepLR(o, step_size=4, gamma=0.5), "sgd"),
    "MultiStepLR": (lambda s, o: s.MultiStepLR(o, milestones=[3, 7, 7, 12], gamma=0.3), "sgd"),
    "ConstantLR": (lambda s, o: s.ConstantLR(o, factor=0.25, total_iters=6), "sgd"),
    "ConstantLR-default": (lambda s, o: s.ConstantLR(o), "adam"),
    "LinearLR": (lambda s, o: s.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=10), "sgd"),
    "LinearLR-decay": (lambda s, o: s.LinearLR(o, start_factor=1.0, end_factor=0.0, total_iters=25), "sgd"),
    "ExponentialLR": (lambda s, o: s.ExponentialLR(o, gamma=0.9), "sgd"),
    "PolynomialLR": (lambda s, o: s.PolynomialLR(o, total_iters=12, power=2.0), "sgd"),
    "CosineAnnealingLR": (lambda s, o: s.CosineAnnealingLR(o, T_max=7, eta_min=0.001), "sgd"),
    "CosineAnnealingWarmRestarts": (lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=5), "sgd"),
    "CosineAnnealingWarmRestarts-mult": (
        lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=1e-3), "sgd"),
    "OneCycleLR": (lambda s, o: s.OneCycleLR(o, max_lr=pg(o, 1.0, 0.5), total_steps=STEPS), "momentum"),
    "OneCycleLR-adam-linear": (
        lambda s, o: s.OneCycleLR(o, max_lr=0.3, epochs=3, steps_per_epoch=10, anneal_strategy="linear",
                                  pct_start=0.25), "adam"),
    "OneCycleLR-three-phase": (
        lambda s, o: s.OneCycleLR(o, max_lr=0.2, total_steps=STEPS, three_phase=True, div_factor=10.0,
                                  final_div_factor=100.0, base_momentum=pg(o, 0.8, 0.7), max_momentum=0.9), "adamw"),
    "OneCycleLR-no-momentum": (
        lambda s, o: s.OneCycleLR(o, max_lr=0.2, total_steps=STEPS + 1, cycle_momentum=False), "sgd"),
    "CyclicLR": (lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4, step_size_down=6),
                 "momentum"),
    "CyclicLR-triangular2": (
        lambda s, o: s.CyclicLR(o, base_lr=pg(o, 0.01, 0.02), max_lr=tuple(pg(o, 0.1, 0.3)), step_size_up=3,
                                mode="triangular2"), "adam"),
    "CyclicLR-exp_range": (
        lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range", gamma=0.9,
                                cycle_momentum=False), "sgd"),
    "CyclicLR-scale_fn": (
        lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=4, scale_fn=lambda x: 0.5 * (1 + math.sin(x)),
                                scale_mode="iterations"), "momentum"),
    "SequentialLR": (
        lambda s, o: s.SequentialLR(o, [s.ConstantLR(o, factor=0.5, total_iters=3), s.ExponentialLR(o, 0.9),
                                        s.CosineAnnealingLR(o, T_max=8)], milestones=[5, 14]), "sgd"),
    "SequentialLR-warmup": (
        lambda s, o: s.SequentialLR(o, [s.LinearLR(o, start_factor=0.1, total_iters=4), s.StepLR(o, 5, 0.5)],
                                    milestones=[4]), "adam"),
    "ChainedScheduler": (
        lambda s, o: s.ChainedScheduler([s.ConstantLR(o, factor=0.5, total_iters=4), s.ExponentialLR(o, 0.9)]),
        "sgd"),
    "ChainedScheduler-optimizer": (
        lambda s, o: s.ChainedScheduler([s.MultiStepLR(o, [5, 9]), s.LinearLR(o, 0.5, 1.0, 6)], optimizer=o),
        "sgd"),
}


@pytest.mark.parametrize("groups", [1, 3])
@pytest.mark.parametrize("case", sorted(CASES))
def test_sequence_matches_torch(case, groups):
    make, kind = CASES[case]
    ours = trajectory(OURS, make, kind, groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = trajectory(THEIRS, make, kind, groups)
    assert_close(ours, theirs)


PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.9, 0.89, 0.9, 0.9, 0.9, 0.9, 0.9, 0.5, 0.6, 0.6, 0.6,
                   0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6]

PLATEAU_CASES = {
    "default": lambda s, o: s.ReduceLROnPlateau(o, patience=2),
    "max-abs": lambda s, o: s.ReduceLROnPlateau(o, mode="max", threshold_mode="abs", threshold=0.01, patience=1,
                                                factor=0.5),
    "cooldown-min_lr": lambda s, o: s.ReduceLROnPlateau(o, patience=1, cooldown=2, factor=0.3, min_lr=0.01),
    "min_lr-list": lambda s, o: s.ReduceLROnPlateau(o, patience=0, factor=0.5, min_lr=[0.02, 0.05, 0.0]),
}


@pytest.mark.parametrize("case", sorted(PLATEAU_CASES))
def test_reduce_lr_on_plateau_matches_torch(case):
    make = PLATEAU_CASES[case]
    ours = trajectory(OURS, make, "sgd", 3, metrics=PLATEAU_METRICS)
    theirs = trajectory(THEIRS, make, "sgd", 3, metrics=[torch.tensor(m) for m in PLATEAU_METRICS])
    assert_close(ours, theirs)


def test_reduce_lr_on_plateau_accepts_tensor_metric_and_epoch():
    opt = OURS.optimizer()
    s = OURS.sched.ReduceLROnPlateau(opt, patience=0)
    s.step(tandem.tensor(1.0))
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        s.step(2.0, epoch=7)
    assert s.last_epoch == 7 and s.get_last_lr() == pytest.approx([0.01, 0.02])


def run_split(lib, make, kind, split=12, steps=STEPS):
    """Runs `split` steps, saves optimizer and scheduler state, restores both into fresh objects, continues."""
    opt = lib.optimizer(kind, 2)
    sched = make(lib.sched, opt)
    for _ in range(split):
        opt.step()
        sched.step()
    opt_state, sched_state = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
    opt2 = lib.optimizer(kind, 2)
    sched2 = make(lib.sched, opt2)
    opt2.load_state_dict(opt_state)
    sched2.load_state_dict(sched_state)
    out = [snapshot(opt2, sched2)]
    for _ in range(steps - split):
        opt2.step()
        sched2.step()
        out.append(snapshot(opt2, sched2))
    return out, sorted(sched_state)


@pytest.mark.parametrize("case", sorted(CASES))
def test_state_dict_round_trip_mid_run(case):
    make, kind = CASES[case]
    resumed, keys = run_split(OURS, make, kind)
    uninterrupted = trajectory(OURS, make, kind, 2)[12:]
    assert_close(resumed, uninterrupted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch_resumed, torch_keys = run_split(THEIRS, make, kind)
    assert keys == torch_keys
    assert_close(resumed, torch_resumed)


def test_plateau_state_dict_round_trip():
    opt = OURS.optimizer()
    s = OURS.sched.ReduceLROnPlateau(opt, mode="max", patience=1)
    for m in [1.0, 0.5, 0.4]:
        s.step(m)
    sd = copy.deepcopy(s.state_dict())
    theirs = THEIRS.sched.ReduceLROnPlateau(THEIRS.optimizer(), mode="max", patience=1)
    assert sorted(sd) == sorted(theirs.state_dict())
    s2 = OURS.sched.ReduceLROnPlateau(OURS.optimizer(), patience=5)
    s2.load_state_dict(sd)
    assert (s2.mode, s2.patience, s2.best, s2.num_bad_epochs, s2.mode_worse) == ("max", 1, 1.0, 0, -math.inf)


class Halving:
    """A callable object: LambdaLR saves its __dict__ in the state dict (plain functions are saved as None)."""

    def __init__(self, every):
        self.every = every

    def __call__(self, epoch):
        return 0.5 ** (epoch // self.every)


def test_lambda_lr_state_dict_saves_callable_objects_only():
    opt = OURS.optimizer(groups=2)
    s = OURS.sched.LambdaLR(opt, [Halving(3), lambda e: 1.0])
    sd = s.state_dict()
    assert sd["lr_lambdas"] == [{"every": 3}, None] and "optimizer" not in sd
    t = OURS.sched.LambdaLR(OURS.optimizer(groups=2), [Halving(7), lambda e: 2.0])
    t.load_state_dict(sd)
    assert t.lr_lambdas[0].every == 3 and t.lr_lambdas[1](0) == 2.0
    tsd = THEIRS.sched.LambdaLR(THEIRS.optimizer(groups=2), [Halving(3), lambda e: 1.0]).state_dict()
    assert sorted(sd) == sorted(tsd) and sd["lr_lambdas"] == tsd["lr_lambdas"]


def test_cyclic_lr_state_dict_drops_functions():
    opt = OURS.optimizer("momentum")
    sd = OURS.sched.CyclicLR(opt, 0.01, 0.1, scale_fn=lambda x: 1.0).state_dict()
    assert sd["_scale_fn_custom"] is None and "_scale_fn_ref" not in sd
    sd = OURS.sched.CyclicLR(OURS.optimizer("momentum"), 0.01, 0.1, scale_fn=Halving(2)).state_dict()
    assert sd["_scale_fn_custom"] == {"every": 2}
    s = OURS.sched.CyclicLR(OURS.optimizer("momentum"), 0.01, 0.1, scale_fn=Halving(5))
    s.load_state_dict(sd)
    assert s._scale_fn_custom.every == 2


def closed_form_lrs(lib, make, epochs):
    opt = lib.optimizer("sgd", 2)
    sched = make(lib.sched, opt)
    out = []
    for e in epochs:
        opt.step()
        sched.step(e)
        out.append(sched.get_last_lr())
    return out


EPOCH_CASES = {
    "StepLR": lambda s, o: s.StepLR(o, 3, 0.5),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, [2, 5, 5], 0.5),
    "ConstantLR": lambda s, o: s.ConstantLR(o, 0.5, 4),
    "LinearLR": lambda s, o: s.LinearLR(o, 0.25, 1.0, 6),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, 0.8),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o, 8, 1.5),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, 6, 0.01),
    "LambdaLR": lambda s, o: s.LambdaLR(o, lambda e: 1 / (1 + e)),
    "CyclicLR": lambda s, o: s.CyclicLR(o, 0.01, 0.1, 3, cycle_momentum=False),
    "CosineAnnealingWarmRestarts": lambda s, o: s.CosineAnnealingWarmRestarts(o, 4, 2),
    "CosineAnnealingWarmRestarts-T_mult1": lambda s, o: s.CosineAnnealingWarmRestarts(o, 4),
}


@pytest.mark.parametrize("case", sorted(EPOCH_CASES))
def test_step_with_epoch_uses_closed_form_and_warns(case):
    epochs = [3, 1, 7, 7, 0, 12, 5, 2.5, 9.75] if case.startswith("CosineAnnealingWarm") else [3, 1, 7, 7, 0, 12, 5]
    make = EPOCH_CASES[case]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = closed_form_lrs(OURS, make, epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = closed_form_lrs(THEIRS, make, epochs)
    assert [x for row in ours for x in row] == pytest.approx([x for row in theirs for x in row], rel=1e-12)
    if not case.startswith("CosineAnnealingWarm"):  # PyTorch's warm restarts take epochs silently
        assert any("The epoch parameter in `scheduler.step()` was not necessary" in str(w.message) for w in caught)


def test_warm_restarts_fractional_epochs_in_a_loop():
    def run(lib):
        opt = lib.optimizer("sgd", 1)
        s = lib.sched.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3, eta_min=0.005)
        out = []
        for epoch in range(6):
            for i in range(4):
                opt.step()
                s.step(epoch + i / 4)
                out.append(s.get_last_lr()[0])
        return out

    assert run(OURS) == pytest.approx(run(THEIRS), rel=1e-12)


def test_warnings_match_torch():
    opt = OURS.optimizer()
    s = OURS.sched.StepLR(opt, 2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        s.step()
    with pytest.warns(UserWarning, match=r"please use `get_last_lr\(\)`"):
        s.get_lr()
    opt = OURS.optimizer()
    s = OURS.sched.ExponentialLR(opt, 0.5)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s.step()  # optimizer.step() came first: no warning
    opt = OURS.optimizer()
    s = OURS.sched.ExponentialLR(opt, 0.5)
    opt.step = lambda closure=None: None
    with pytest.warns(UserWarning, match=r"Seems like `optimizer.step\(\)` has been overridden"):
        s.step()


def error_of(lib, build):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            build(lib)
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return type(e), str(e)
    return None


ERROR_CASES = {
    "not-an-optimizer": lambda L: L.sched.StepLR(object(), 2),
    "plateau-not-an-optimizer": lambda L: L.sched.ReduceLROnPlateau([1], factor=0.5),
    "lambda-count": lambda L: L.sched.LambdaLR(L.optimizer(groups=2), [lambda e: 1.0]),
    "multiplicative-count": lambda L: L.sched.MultiplicativeLR(L.optimizer(groups=3), [lambda e: 1.0] * 2),
    "multiplicative-not-callable": lambda L: L.sched.MultiplicativeLR(L.optimizer(groups=1), 0.5),
    "resume-without-initial_lr": lambda L: L.sched.StepLR(L.optimizer(), 2, last_epoch=3),
    "constant-factor": lambda L: L.sched.ConstantLR(L.optimizer(), factor=1.5),
    "linear-start": lambda L: L.sched.LinearLR(L.optimizer(), start_factor=0),
    "linear-end": lambda L: L.sched.LinearLR(L.optimizer(), end_factor=-0.1),
    "warm-T_0": lambda L: L.sched.CosineAnnealingWarmRestarts(L.optimizer(), T_0=0),
    "warm-T_0-float": lambda L: L.sched.CosineAnnealingWarmRestarts(L.optimizer(), T_0=2.0),
    "warm-T_mult": lambda L: L.sched.CosineAnnealingWarmRestarts(L.optimizer(), T_0=2, T_mult=0),
    "warm-eta_min": lambda L: L.sched.CosineAnnealingWarmRestarts(L.optimizer(), T_0=2, eta_min="0"),
    "warm-negative-epoch": lambda L: L.sched.CosineAnnealingWarmRestarts(L.optimizer(), T_0=2).step(-1),
    "onecycle-steps": lambda L: L.sched.OneCycleLR(L.optimizer("momentum"), 0.1),
    "onecycle-total": lambda L: L.sched.OneCycleLR(L.optimizer("momentum"), 0.1, total_steps=0),
    "onecycle-epochs": lambda L: L.sched.OneCycleLR(L.optimizer("momentum"), 0.1, epochs=-1, steps_per_epoch=3),
    "onecycle-spe": lambda L: L.sched.OneCycleLR(L.optimizer("momentum"), 0.1, epochs=1, steps_per_epoch=2.0),
    "onecycle-pct": lambda L: L.sched.OneCycleLR(L.optimizer("momentum"), 0.1, total_steps=5, pct_start=1),
    "onecycle-anneal": lambda L: L.sched.OneCycleLR(L.optimizer("momentum"), 0.1, 5, anneal_strategy="exp"),
    "onecycle-max_lr-count": lambda L: L.sched.OneCycleLR(L.optimizer("momentum", 2), [0.1], total_steps=5),
    "onecycle-too-many-steps": lambda L: (lambda s: [s.step() for _ in range(3)])(
        L.sched.OneCycleLR(L.optimizer("momentum"), 0.1, total_steps=2)),
    "cyclic-mode": lambda L: L.sched.CyclicLR(L.optimizer("momentum"), 0.01, 0.1, mode="sine"),
    "cyclic-base_lr-count": lambda L: L.sched.CyclicLR(L.optimizer("momentum", 3), [0.01, 0.02], 0.1),
    "plateau-factor": lambda L: L.sched.ReduceLROnPlateau(L.optimizer(), factor=1.0),
    "plateau-mode": lambda L: L.sched.ReduceLROnPlateau(L.optimizer(), mode="avg"),
    "plateau-threshold-mode": lambda L: L.sched.ReduceLROnPlateau(L.optimizer(), threshold_mode="pct"),
    "plateau-min_lr-count": lambda L: L.sched.ReduceLROnPlateau(L.optimizer(groups=2), min_lr=[0.1]),
    "sequential-empty": lambda L: L.sched.SequentialLR(L.optimizer(), [], []),
    "sequential-milestones": lambda L: (lambda o: L.sched.SequentialLR(
        o, [L.sched.StepLR(o, 2), L.sched.ExponentialLR(o, 0.9)], milestones=[]))(L.optimizer()),
    "sequential-plateau": lambda L: (lambda o: L.sched.SequentialLR(
        o, [L.sched.StepLR(o, 2), L.sched.ReduceLROnPlateau(o)], milestones=[3]))(L.optimizer()),
    "sequential-no-optimizer": lambda L: L.sched.SequentialLR(L.optimizer(), [object()], []),
    "chained-empty": lambda L: L.sched.ChainedScheduler([]),
    "chained-plateau": lambda L: L.sched.ChainedScheduler([L.sched.ReduceLROnPlateau(L.optimizer())]),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_errors_match_torch(case):
    ours, theirs = error_of(OURS, ERROR_CASES[case]), error_of(THEIRS, ERROR_CASES[case])
    assert theirs is not None
    assert ours == theirs


@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_cycle_momentum_needs_momentum_or_betas(kind):
    class Plain(optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, dict(lr=0.1))

    opt = Plain([nn.Parameter(tandem.ones(1))])
    for make in (lambda: optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=5),
                 lambda: optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1)):
        with pytest.raises(ValueError, match="^optimizer must support momentum or beta1 with `cycle_momentum` "
                                             "option enabled$"):
            make()
    # with cycle_momentum=False the same optimizer is fine
    optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, cycle_momentum=False)


def test_sequential_different_optimizer_message():
    o1, o2 = OURS.optimizer(), OURS.optimizer()
    with pytest.raises(ValueError, match="SequentialLR expects all schedulers to belong to the same optimizer, "
                                         "but got scheduler StepLR at index 0 has"):
        OURS.sched.SequentialLR(o1, [OURS.sched.StepLR(o2, 2)], [])
    with pytest.raises(ValueError, match="ChainedScheduler expects all schedulers to belong to the same optimizer"):
        OURS.sched.ChainedScheduler([OURS.sched.StepLR(o1, 2), OURS.sched.StepLR(o2, 2)])


def test_public_names_match_torch():
    assert sorted(optim.lr_scheduler.__all__) == sorted(torch.optim.lr_scheduler.__all__)
    for name in optim.lr_scheduler.__all__:
        cls = getattr(optim.lr_scheduler, name)
        assert cls.__module__ == "tandem.optim.lr_scheduler"
        assert name == "LRScheduler" or issubclass(cls, optim.lr_scheduler.LRScheduler)
    assert issubclass(optim.lr_scheduler._LRScheduler, optim.lr_scheduler.LRScheduler)


def test_training_loop_with_warmup_and_cosine_changes_the_step():
    """A scheduler changes what the fused SGD update does: the lr it sets is the one the next step uses."""
    p = nn.Parameter(tandem.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    sched = optim.lr_scheduler.SequentialLR(opt, [optim.lr_scheduler.LinearLR(opt, 0.5, total_iters=2),
                                                  optim.lr_scheduler.CosineAnnealingLR(opt, 4)], milestones=[2])
    used = []
    for _ in range(5):
        before = p.item()
        p.grad = tandem.ones(1)
        opt.step()
        used.append(before - p.item())
        sched.step()
    assert used == pytest.approx([0.5, 0.75, 1.0, 1.0 * (1 + math.cos(math.pi / 4)) / 2, 0.5], rel=1e-6)


RESUME_CASES = {
    "StepLR": lambda s, o, e: s.StepLR(o, 3, 0.5, last_epoch=e),
    "ExponentialLR": lambda s, o, e: s.ExponentialLR(o, 0.9, last_epoch=e),
    "CosineAnnealingLR": lambda s, o, e: s.CosineAnnealingLR(o, 10, 0.01, last_epoch=e),
    "LinearLR": lambda s, o, e: s.LinearLR(o, 0.5, 1.0, 8, last_epoch=e),
    "PolynomialLR": lambda s, o, e: s.PolynomialLR(o, 9, 2.0, last_epoch=e),
    "CosineAnnealingWarmRestarts": lambda s, o, e: s.CosineAnnealingWarmRestarts(o, 3, 2, last_epoch=e),
    "CyclicLR": lambda s, o, e: s.CyclicLR(o, 0.01, 0.1, 3, last_epoch=e),
}


@pytest.mark.parametrize("case", sorted(RESUME_CASES))
def test_resume_with_last_epoch_matches_torch(case):
    def run(lib):
        opt = lib.optimizer("momentum", 2)
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"] * 2
        sched = RESUME_CASES[case](lib.sched, opt, 4)
        out = [snapshot(opt, sched)]
        for _ in range(12):
            opt.step()
            sched.step()
            out.append(snapshot(opt, sched))
        return out

    assert_close(run(OURS), run(THEIRS))
