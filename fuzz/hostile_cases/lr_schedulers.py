"""torch.optim.lr_scheduler beyond optim.py's table: MultiStepLR milestones (repeated, negative, floats, empty),
gammas of 0, negative and NaN, OneCycleLR past total_steps with cycle_momentum on optimizers with and without
betas, three_phase, div factors of 0; CyclicLR scale_fn/scale_mode, step_size_down, exp_range, max_lr below
base_lr, per-group lists of the wrong length; LambdaLR/MultiplicativeLR lambdas that return non-floats, tensors,
raise or take no argument; ReduceLROnPlateau in max/abs modes, cooldown, eps, min_lr floors, metrics that are
tensors, strings or None; SequentialLR/ChainedScheduler with mismatched milestones and schedulers of other
optimizers; PolynomialLR/LinearLR/ConstantLR total_iters of 0; step(epoch) (deprecated); get_last_lr before a step;
state_dict round trips. The result is the learning rates a few steps show."""
import math

from . import T

N, INF = math.nan, math.inf


def S(L):
    return L.optim.lr_scheduler


def opt(L, d, name="SGD", groups=1, **kw):
    params = [{"params": [L.nn.Parameter(T(L, [1.0, 2.0], d))]} for _ in range(groups)]
    for g in params:
        g["params"][0].grad = T(L, [0.5, -0.5], d)
    return getattr(L.optim, name)(params, **{"lr": 0.1, **kw})


def lrs(L, d, make, steps=4, metric=None, name="SGD", groups=1, key="lr", **kw):
    """The learning rates (or momenta with key=) of every group over `steps` scheduler steps."""
    o = opt(L, d, name, groups, **kw)
    sched = make(o)
    seen = []
    for _ in range(steps):
        o.step()
        sched.step() if metric is None else sched.step(metric)
        seen.append([round(float(g[key]), 10) for g in o.param_groups])
    return seen


def metrics(L, d, make, values, **kw):
    """ReduceLROnPlateau stepped with each metric in turn: the learning rate after each."""
    o = opt(L, d, **kw)
    sched = make(o)
    seen = []
    for v in values:
        sched.step(v)
        seen.append(round(o.param_groups[0]["lr"], 10))
    return seen


def state_round_trip(L, d, make, steps=3):
    """A scheduler stepped `steps` times, its state loaded into a fresh one: the fresh one's next two rates."""
    o = opt(L, d)
    a = make(o)
    for _ in range(steps):
        o.step()
        a.step()
    o2 = opt(L, d)
    b = make(o2)
    b.load_state_dict(a.state_dict())
    o2.param_groups[0]["lr"] = o.param_groups[0]["lr"]
    seen = []
    for _ in range(2):
        o2.step()
        b.step()
        seen.append(round(o2.param_groups[0]["lr"], 10))
    return seen


CASES = {
    # ---- MultiStepLR / StepLR / ExponentialLR values
    "MultiStepLR/repeated_milestone": lambda L, d: lrs(L, d, lambda o: S(L).MultiStepLR(o, [2, 2], gamma=0.5)),
    "MultiStepLR/negative_milestone": lambda L, d: lrs(L, d, lambda o: S(L).MultiStepLR(o, [-1, 2], gamma=0.5)),
    "MultiStepLR/float_milestone": lambda L, d: lrs(L, d, lambda o: S(L).MultiStepLR(o, [1.5, 2], gamma=0.5)),
    "MultiStepLR/empty": lambda L, d: lrs(L, d, lambda o: S(L).MultiStepLR(o, [], gamma=0.5)),
    "MultiStepLR/milestone_zero": lambda L, d: lrs(L, d, lambda o: S(L).MultiStepLR(o, [0, 1], gamma=0.5)),
    "MultiStepLR/not_iterable": lambda L, d: lrs(L, d, lambda o: S(L).MultiStepLR(o, 2)),
    "StepLR/gamma_zero": lambda L, d: lrs(L, d, lambda o: S(L).StepLR(o, 1, gamma=0.0)),
    "StepLR/gamma_negative": lambda L, d: lrs(L, d, lambda o: S(L).StepLR(o, 1, gamma=-1.0)),
    "StepLR/gamma_nan": lambda L, d: lrs(L, d, lambda o: S(L).StepLR(o, 1, gamma=N)),
    "StepLR/step_size_negative": lambda L, d: lrs(L, d, lambda o: S(L).StepLR(o, -1)),
    "StepLR/step_size_float": lambda L, d: lrs(L, d, lambda o: S(L).StepLR(o, 1.5, gamma=0.5)),
    "StepLR/two_groups": lambda L, d: lrs(L, d, lambda o: S(L).StepLR(o, 2, gamma=0.5), groups=2),
    "ExponentialLR/gamma_above_one": lambda L, d: lrs(L, d, lambda o: S(L).ExponentialLR(o, 2.0)),
    "ExponentialLR/gamma_inf": lambda L, d: lrs(L, d, lambda o: S(L).ExponentialLR(o, INF)),
    "ExponentialLR/last_epoch_resume_ok": lambda L, d: (lambda o: (o.param_groups[0].__setitem__("initial_lr", 0.2),
                                                                   S(L).ExponentialLR(o, 0.5, last_epoch=2),
                                                                   o.param_groups[0]["lr"])[2])(opt(L, d)),
    "StepLR/get_last_lr_before_step": lambda L, d: S(L).StepLR(opt(L, d), 1).get_last_lr(),
    "StepLR/epoch_argument": lambda L, d: (lambda o, s: (s.step(5), o.param_groups[0]["lr"])[1])(
        *(lambda o: (o, S(L).StepLR(o, 2, gamma=0.5)))(opt(L, d))),
    "StepLR/lr_tensor": lambda L, d: lrs(L, d, lambda o: S(L).StepLR(o, 1, gamma=0.5), lr=T(L, 0.1)),
    # ---- LambdaLR / MultiplicativeLR lambdas
    "LambdaLR/returns_int": lambda L, d: lrs(L, d, lambda o: S(L).LambdaLR(o, lambda e: e)),
    "LambdaLR/returns_str": lambda L, d: lrs(L, d, lambda o: S(L).LambdaLR(o, lambda e: "x")),
    "LambdaLR/returns_none": lambda L, d: lrs(L, d, lambda o: S(L).LambdaLR(o, lambda e: None)),
    "LambdaLR/returns_tensor": lambda L, d: lrs(L, d, lambda o: S(L).LambdaLR(o, lambda e: T(L, 0.5))),
    "LambdaLR/returns_negative": lambda L, d: lrs(L, d, lambda o: S(L).LambdaLR(o, lambda e: -1.0)),
    "LambdaLR/returns_nan": lambda L, d: lrs(L, d, lambda o: S(L).LambdaLR(o, lambda e: N)),
    "LambdaLR/raises": lambda L, d: lrs(L, d, lambda o: S(L).LambdaLR(o, lambda e: 1 / (e - 1))),
    "LambdaLR/no_argument": lambda L, d: lrs(L, d, lambda o: S(L).LambdaLR(o, lambda: 1.0)),
    "LambdaLR/per_group_ok": lambda L, d: lrs(L, d, lambda o: S(L).LambdaLR(o, [lambda e: 1.0, lambda e: 0.5 ** e]),
                                              groups=2),
    "LambdaLR/state_dict_round_trip": lambda L, d: state_round_trip(L, d, lambda o: S(L).LambdaLR(
        o, lambda e: 0.5 ** e)),
    "MultiplicativeLR/returns_zero": lambda L, d: lrs(L, d, lambda o: S(L).MultiplicativeLR(o, lambda e: 0.0)),
    "MultiplicativeLR/returns_str": lambda L, d: lrs(L, d, lambda o: S(L).MultiplicativeLR(o, lambda e: "x")),
    "MultiplicativeLR/not_callable": lambda L, d: lrs(L, d, lambda o: S(L).MultiplicativeLR(o, 0.5)),
    "MultiplicativeLR/ok": lambda L, d: lrs(L, d, lambda o: S(L).MultiplicativeLR(o, lambda e: 0.9)),
    # ---- OneCycleLR
    "OneCycleLR/past_total": lambda L, d: lrs(L, d, lambda o: S(L).OneCycleLR(o, 1.0, total_steps=3), steps=4),
    "OneCycleLR/epochs_steps_past": lambda L, d: lrs(L, d, lambda o: S(L).OneCycleLR(o, 1.0, epochs=1,
                                                                                     steps_per_epoch=2), steps=3),
    "OneCycleLR/adam_betas_momentum": lambda L, d: lrs(L, d, lambda o: S(L).OneCycleLR(o, 1.0, total_steps=6),
                                                       steps=4, name="Adam", key="betas"),
    "OneCycleLR/sgd_no_momentum": lambda L, d: lrs(L, d, lambda o: S(L).OneCycleLR(o, 1.0, total_steps=6),
                                                   steps=2),
    "OneCycleLR/sgd_momentum_ok": lambda L, d: lrs(L, d, lambda o: S(L).OneCycleLR(o, 1.0, total_steps=6),
                                                   steps=4, key="momentum", momentum=0.9),
    "OneCycleLR/three_phase": lambda L, d: lrs(L, d, lambda o: S(L).OneCycleLR(
        o, 1.0, total_steps=9, three_phase=True, cycle_momentum=False), steps=8),
    "OneCycleLR/div_factor_zero": lambda L, d: lrs(L, d, lambda o: S(L).OneCycleLR(
        o, 1.0, total_steps=4, div_factor=0.0, cycle_momentum=False)),
    "OneCycleLR/pct_start_zero": lambda L, d: lrs(L, d, lambda o: S(L).OneCycleLR(
        o, 1.0, total_steps=4, pct_start=0.0, cycle_momentum=False)),
    "OneCycleLR/total_negative": lambda L, d: S(L).OneCycleLR(opt(L, d), 1.0, total_steps=-3),
    "OneCycleLR/total_float": lambda L, d: S(L).OneCycleLR(opt(L, d), 1.0, total_steps=3.5),
    "OneCycleLR/steps_per_epoch_zero": lambda L, d: S(L).OneCycleLR(opt(L, d), 1.0, epochs=2, steps_per_epoch=0),
    "OneCycleLR/max_lr_per_group": lambda L, d: lrs(L, d, lambda o: S(L).OneCycleLR(
        o, [1.0, 0.5], total_steps=5, cycle_momentum=False), groups=2, steps=3),
    "OneCycleLR/max_lr_tuple_wrong": lambda L, d: S(L).OneCycleLR(opt(L, d, groups=2), (1.0,), total_steps=5),
    # ---- CyclicLR
    "CyclicLR/exp_range": lambda L, d: lrs(L, d, lambda o: S(L).CyclicLR(
        o, 0.1, 1.0, step_size_up=2, mode="exp_range", gamma=0.5, cycle_momentum=False), steps=6),
    "CyclicLR/step_size_down": lambda L, d: lrs(L, d, lambda o: S(L).CyclicLR(
        o, 0.1, 1.0, step_size_up=1, step_size_down=3, cycle_momentum=False), steps=6),
    "CyclicLR/max_below_base": lambda L, d: lrs(L, d, lambda o: S(L).CyclicLR(
        o, 1.0, 0.1, step_size_up=2, cycle_momentum=False), steps=4),
    "CyclicLR/step_size_zero": lambda L, d: S(L).CyclicLR(opt(L, d), 0.1, 1.0, step_size_up=0,
                                                          cycle_momentum=False),
    "CyclicLR/scale_fn_ok": lambda L, d: lrs(L, d, lambda o: S(L).CyclicLR(
        o, 0.1, 1.0, step_size_up=1, scale_fn=lambda x: 0.5 ** x, scale_mode="cycle", cycle_momentum=False),
        steps=5),
    "CyclicLR/scale_mode_bad": lambda L, d: lrs(L, d, lambda o: S(L).CyclicLR(
        o, 0.1, 1.0, step_size_up=1, scale_fn=lambda x: 1.0, scale_mode="epoch", cycle_momentum=False), steps=2),
    "CyclicLR/base_lr_list_wrong": lambda L, d: S(L).CyclicLR(opt(L, d), [0.1, 0.2], 1.0, cycle_momentum=False),
    "CyclicLR/momentum_sgd_ok": lambda L, d: lrs(L, d, lambda o: S(L).CyclicLR(
        o, 0.1, 1.0, step_size_up=2), steps=4, key="momentum", momentum=0.9),
    "CyclicLR/adam_betas": lambda L, d: lrs(L, d, lambda o: S(L).CyclicLR(o, 0.1, 1.0, step_size_up=2), steps=3,
                                            name="Adam", key="betas"),
    # ---- ReduceLROnPlateau
    "ReduceLROnPlateau/max_mode": lambda L, d: metrics(L, d, lambda o: S(L).ReduceLROnPlateau(
        o, "max", patience=0, factor=0.5), [1.0, 0.5, 2.0, 1.0]),
    "ReduceLROnPlateau/abs_threshold": lambda L, d: metrics(L, d, lambda o: S(L).ReduceLROnPlateau(
        o, patience=0, threshold=0.5, threshold_mode="abs"), [1.0, 0.7, 0.1, 0.0]),
    "ReduceLROnPlateau/cooldown": lambda L, d: metrics(L, d, lambda o: S(L).ReduceLROnPlateau(
        o, patience=0, cooldown=2, factor=0.5), [1.0] * 6),
    "ReduceLROnPlateau/min_lr_floor": lambda L, d: metrics(L, d, lambda o: S(L).ReduceLROnPlateau(
        o, patience=0, factor=0.1, min_lr=0.005), [1.0] * 5),
    "ReduceLROnPlateau/eps_blocks": lambda L, d: metrics(L, d, lambda o: S(L).ReduceLROnPlateau(
        o, patience=0, factor=0.99, eps=0.01), [1.0] * 3),
    "ReduceLROnPlateau/factor_negative": lambda L, d: metrics(L, d, lambda o: S(L).ReduceLROnPlateau(
        o, patience=0, factor=-0.5), [1.0, 1.0, 1.0]),
    "ReduceLROnPlateau/factor_above_one": lambda L, d: S(L).ReduceLROnPlateau(opt(L, d), factor=2.0),
    "ReduceLROnPlateau/metric_tensor": lambda L, d: metrics(L, d, lambda o: S(L).ReduceLROnPlateau(
        o, patience=0), [T(L, 1.0, d), T(L, 1.0, d), T(L, 2.0, d)]),
    "ReduceLROnPlateau/metric_str": lambda L, d: metrics(L, d, lambda o: S(L).ReduceLROnPlateau(o), ["1.0"]),
    "ReduceLROnPlateau/metric_none": lambda L, d: metrics(L, d, lambda o: S(L).ReduceLROnPlateau(o), [None]),
    "ReduceLROnPlateau/metric_inf": lambda L, d: metrics(L, d, lambda o: S(L).ReduceLROnPlateau(
        o, patience=0), [INF, INF, -INF]),
    "ReduceLROnPlateau/patience_negative": lambda L, d: metrics(L, d, lambda o: S(L).ReduceLROnPlateau(
        o, patience=-1), [1.0, 1.0]),
    "ReduceLROnPlateau/min_lr_list_ok": lambda L, d: lrs(L, d, lambda o: S(L).ReduceLROnPlateau(
        o, patience=0, factor=0.1, min_lr=[0.05, 0.001]), steps=3, metric=1.0, groups=2),
    "ReduceLROnPlateau/get_last_lr": lambda L, d: (lambda s: (s.step(1.0), s.get_last_lr())[1])(
        S(L).ReduceLROnPlateau(opt(L, d))),
    "ReduceLROnPlateau/state_dict": lambda L, d: sorted(S(L).ReduceLROnPlateau(opt(L, d)).state_dict()),
    # ---- total_iters of 0 and sequential/chained
    "LinearLR/total_iters_zero": lambda L, d: lrs(L, d, lambda o: S(L).LinearLR(o, 0.5, total_iters=0)),
    "ConstantLR/total_iters_zero": lambda L, d: lrs(L, d, lambda o: S(L).ConstantLR(o, 0.5, total_iters=0)),
    "ConstantLR/factor_negative": lambda L, d: S(L).ConstantLR(opt(L, d), factor=-0.5),
    "PolynomialLR/total_iters_zero": lambda L, d: lrs(L, d, lambda o: S(L).PolynomialLR(o, total_iters=0)),
    "PolynomialLR/power_negative": lambda L, d: lrs(L, d, lambda o: S(L).PolynomialLR(o, total_iters=3, power=-1.0)),
    "CosineAnnealingLR/t_max_negative": lambda L, d: lrs(L, d, lambda o: S(L).CosineAnnealingLR(o, T_max=-2)),
    "CosineAnnealingLR/eta_min_above": lambda L, d: lrs(L, d, lambda o: S(L).CosineAnnealingLR(o, 2, eta_min=1.0)),
    "CosineAnnealingWarmRestarts/t_mult_float": lambda L, d: S(L).CosineAnnealingWarmRestarts(opt(L, d), 2,
                                                                                               T_mult=1.5),
    "CosineAnnealingWarmRestarts/epoch_negative": lambda L, d: (lambda s: s.step(-1))(
        S(L).CosineAnnealingWarmRestarts(opt(L, d), 2)),
    "CosineAnnealingWarmRestarts/fractional_epoch": lambda L, d: (lambda o, s: (s.step(2.5), o.param_groups[0]["lr"])
                                                                  [1])(*(lambda o: (o, S(L).CosineAnnealingWarmRestarts(
                                                                      o, 2, T_mult=2)))(opt(L, d))),
    "SequentialLR/milestones_too_many": lambda L, d: (lambda o: S(L).SequentialLR(
        o, [S(L).ConstantLR(o), S(L).ExponentialLR(o, 0.9)], milestones=[1, 2]))(opt(L, d)),
    "SequentialLR/empty": lambda L, d: S(L).SequentialLR(opt(L, d), [], milestones=[]),
    "SequentialLR/not_scheduler": lambda L, d: (lambda o: S(L).SequentialLR(o, [S(L).ConstantLR(o), 3],
                                                                            milestones=[1]))(opt(L, d)),
    "SequentialLR/plateau_inside": lambda L, d: (lambda o: S(L).SequentialLR(
        o, [S(L).ConstantLR(o), S(L).ReduceLROnPlateau(o)], milestones=[1]))(opt(L, d)),
    "SequentialLR/values": lambda L, d: lrs(L, d, lambda o: S(L).SequentialLR(
        o, [S(L).LinearLR(o, 0.5, total_iters=2), S(L).StepLR(o, 1, 0.5)], milestones=[3]), steps=5),
    "ChainedScheduler/values": lambda L, d: lrs(L, d, lambda o: S(L).ChainedScheduler(
        [S(L).ConstantLR(o, 0.5, total_iters=2), S(L).ExponentialLR(o, 0.9)]), steps=4),
    "ChainedScheduler/empty": lambda L, d: S(L).ChainedScheduler([]),
    "ChainedScheduler/optimizer_mismatch_arg": lambda L, d: (lambda o, o2: S(L).ChainedScheduler(
        [S(L).ConstantLR(o)], optimizer=o2))(opt(L, d), opt(L, d)),
    "ChainedScheduler/plateau_inside": lambda L, d: (lambda o: lrs(L, d, lambda o: S(L).ChainedScheduler(
        [S(L).ReduceLROnPlateau(o)]), steps=1))(opt(L, d)),
    "StepLR/state_dict_round_trip": lambda L, d: state_round_trip(L, d, lambda o: S(L).StepLR(o, 2, 0.5)),
    "OneCycleLR/state_dict_round_trip": lambda L, d: state_round_trip(L, d, lambda o: S(L).OneCycleLR(
        o, 1.0, total_steps=8, cycle_momentum=False)),
}

KNOWN = {}
