"""torch.optim and torch.optim.lr_scheduler argument validation: negative or NaN learning rates, betas/rho/eta out
of range, params that are not an iterable of tensors, empty and duplicated parameter lists, non-leaf tensors,
mismatched state dicts, schedulers with bad periods, factors and modes, and stepping past a schedule's end."""
import math

from . import T


def O(L):
    return L.optim


def S(L):
    return L.optim.lr_scheduler


def param(L, d, values=(1.0, -2.0, 3.0)):
    p = L.nn.Parameter(L.tensor(list(values), device=d))
    p.grad = L.tensor([0.5, -0.25, 1.0], device=d)
    return p


def opt(L, d, name="SGD", **kw):
    return getattr(O(L), name)([param(L, d)], **{"lr": 0.1, **kw})


def stepped(L, d, name, steps=2, **kw):
    """The parameter after `steps` steps of optimizer `name` (a fixed gradient): the options' effect."""
    p = param(L, d)
    o = getattr(O(L), name)([p], **kw)
    for _ in range(steps):
        o.step()
    return p.detach()


def lrs(L, d, make, steps=3, metric=None):
    """The learning rates seen over `steps` scheduler steps (after the optimizer's own step each time)."""
    o = opt(L, d)
    sched = make(o)
    seen = []
    for _ in range(steps):
        o.step()
        sched.step() if metric is None else sched.step(metric)
        seen.append(round(o.param_groups[0]["lr"], 12))
    return seen


def _load(L, d, state_of, into):
    target = into(L, d)
    target.load_state_dict(state_of(L, d).state_dict())
    return len(target.state_dict()["param_groups"])


def _two_groups(L, d):
    return O(L).SGD([{"params": [param(L, d)]}, {"params": [param(L, d)], "lr": 0.5}], lr=0.1)


def _two_params(L, d):
    return O(L).SGD([param(L, d), param(L, d)], lr=0.1)


def _add_group(L, d, group):
    o = opt(L, d)
    o.add_param_group(group)
    return len(o.param_groups)


def _shared(L, d):
    p = param(L, d)
    return O(L).SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


def _non_leaf(L, d):
    p = param(L, d)
    return O(L).SGD([p * 2], lr=0.1)


CASES = {
    # ---- hyperparameters out of range
    "SGD/lr_negative": lambda L, d: opt(L, d, lr=-0.1),
    "SGD/lr_nan": lambda L, d: stepped(L, d, "SGD", lr=math.nan),
    "SGD/lr_str": lambda L, d: opt(L, d, lr="0.1"),
    "SGD/momentum_negative": lambda L, d: opt(L, d, momentum=-0.5),
    "SGD/weight_decay_negative": lambda L, d: opt(L, d, weight_decay=-1.0),
    "SGD/nesterov_no_momentum": lambda L, d: opt(L, d, nesterov=True),
    "SGD/nesterov_dampening": lambda L, d: opt(L, d, nesterov=True, momentum=0.9, dampening=0.5),
    "SGD/ok_momentum_nesterov": lambda L, d: stepped(L, d, "SGD", lr=0.1, momentum=0.9, nesterov=True,
                                                     weight_decay=0.01),
    "SGD/ok_maximize": lambda L, d: stepped(L, d, "SGD", lr=0.1, maximize=True),
    "Adam/lr_negative": lambda L, d: opt(L, d, "Adam", lr=-1e-3),
    "Adam/beta1_one": lambda L, d: opt(L, d, "Adam", betas=(1.0, 0.999)),
    "Adam/beta2_negative": lambda L, d: opt(L, d, "Adam", betas=(0.9, -0.1)),
    "Adam/beta2_above_one": lambda L, d: opt(L, d, "Adam", betas=(0.9, 1.5)),
    "Adam/eps_negative": lambda L, d: opt(L, d, "Adam", eps=-1e-8),
    "Adam/weight_decay_negative": lambda L, d: opt(L, d, "Adam", weight_decay=-0.1),
    "Adam/betas_three": lambda L, d: stepped(L, d, "Adam", lr=0.1, betas=(0.9, 0.99, 0.999)),
    "Adam/ok_amsgrad": lambda L, d: stepped(L, d, "Adam", lr=0.1, amsgrad=True, weight_decay=0.1),
    "AdamW/weight_decay_negative": lambda L, d: opt(L, d, "AdamW", weight_decay=-0.1),
    "AdamW/beta1_negative": lambda L, d: opt(L, d, "AdamW", betas=(-0.1, 0.999)),
    "AdamW/ok": lambda L, d: stepped(L, d, "AdamW", lr=0.1, weight_decay=0.5),
    "Adamax/beta1_one": lambda L, d: opt(L, d, "Adamax", betas=(1.0, 0.999)),
    "Adamax/eps_negative": lambda L, d: opt(L, d, "Adamax", eps=-1.0),
    "NAdam/momentum_decay_negative": lambda L, d: opt(L, d, "NAdam", momentum_decay=-1.0),
    "NAdam/beta2_one": lambda L, d: opt(L, d, "NAdam", betas=(0.9, 1.0)),
    "RAdam/beta1_one": lambda L, d: opt(L, d, "RAdam", betas=(1.0, 0.9)),
    "RAdam/ok": lambda L, d: stepped(L, d, "RAdam", steps=7, lr=0.1),
    "RMSprop/alpha_negative": lambda L, d: opt(L, d, "RMSprop", alpha=-0.1),
    "RMSprop/momentum_negative": lambda L, d: opt(L, d, "RMSprop", momentum=-0.1),
    "RMSprop/eps_negative": lambda L, d: opt(L, d, "RMSprop", eps=-1.0),
    "RMSprop/ok_centered": lambda L, d: stepped(L, d, "RMSprop", lr=0.01, centered=True, momentum=0.5),
    "Adagrad/lr_decay_negative": lambda L, d: opt(L, d, "Adagrad", lr_decay=-1.0),
    "Adagrad/initial_accumulator_negative": lambda L, d: opt(L, d, "Adagrad", initial_accumulator_value=-1.0),
    "Adagrad/ok": lambda L, d: stepped(L, d, "Adagrad", lr=0.1, lr_decay=0.1, initial_accumulator_value=0.5),
    "Adadelta/rho_above_one": lambda L, d: opt(L, d, "Adadelta", rho=1.5),
    "Adadelta/lr_negative": lambda L, d: opt(L, d, "Adadelta", lr=-1.0),
    "Rprop/etas_swapped": lambda L, d: opt(L, d, "Rprop", etas=(1.5, 0.5)),
    "Rprop/eta_minus_zero": lambda L, d: opt(L, d, "Rprop", etas=(0.0, 1.2)),
    "Rprop/ok": lambda L, d: stepped(L, d, "Rprop", steps=3, lr=0.1, step_sizes=(1e-3, 0.2)),
    "ASGD/weight_decay_negative": lambda L, d: opt(L, d, "ASGD", weight_decay=-1.0),
    "LBFGS/groups": lambda L, d: O(L).LBFGS([{"params": [param(L, d)]}, {"params": [param(L, d)]}]),
    "LBFGS/lr_negative": lambda L, d: O(L).LBFGS([param(L, d)], lr=-1),
    # ---- params
    "params/single_tensor": lambda L, d: O(L).SGD(param(L, d), lr=0.1),
    "params/empty": lambda L, d: O(L).SGD([], lr=0.1),
    "params/empty_generator": lambda L, d: O(L).Adam(iter([]), lr=0.1),
    "params/ints": lambda L, d: O(L).SGD([1, 2], lr=0.1),
    "params/none": lambda L, d: O(L).SGD(None, lr=0.1),
    "params/set": lambda L, d: len(O(L).SGD({param(L, d)}, lr=0.1).param_groups[0]["params"]),
    "params/non_leaf": _non_leaf,
    "params/group_without_params": lambda L, d: O(L).SGD([{"lr": 0.1}], lr=0.1),
    "params/group_params_tensor": lambda L, d: len(O(L).SGD([{"params": param(L, d)}], lr=0.1).param_groups),
    "params/shared_across_groups": _shared,
    "params/mixed_dict_and_tensor": lambda L, d: O(L).SGD([{"params": [param(L, d)]}, param(L, d)], lr=0.1),
    "params/model_parameters_ok": lambda L, d: len(O(L).SGD(L.nn.Linear(2, 3).parameters(), lr=0.1)
                                                   .param_groups[0]["params"]),
    "add_param_group/not_dict": lambda L, d: _add_group(L, d, [param(L, d)]),
    "add_param_group/shared": lambda L, d: (lambda o: o.add_param_group({"params": o.param_groups[0]["params"]}))(
        opt(L, d)),
    "add_param_group/empty": lambda L, d: _add_group(L, d, {"params": []}),
    "add_param_group/ok": lambda L, d: _add_group(L, d, {"params": [param(L, d)], "lr": 0.5}),
    "load_state_dict/group_count": lambda L, d: _load(L, d, _two_groups, lambda L, d: opt(L, d)),
    "load_state_dict/group_size": lambda L, d: _load(L, d, _two_params, lambda L, d: opt(L, d)),
    "load_state_dict/not_dict": lambda L, d: opt(L, d).load_state_dict([1]),
    "load_state_dict/ok": lambda L, d: _load(L, d, lambda L, d: opt(L, d, momentum=0.9), lambda L, d: opt(L, d)),
    "zero_grad/ok": lambda L, d: (lambda o: (o.zero_grad(), o.param_groups[0]["params"][0].grad)[1])(opt(L, d)),
    "step/no_grad_ok": lambda L, d: (lambda p: (O(L).SGD([p], lr=0.1).step(), p.detach())[1])(
        L.nn.Parameter(T(L, [1., 2.], d))),
    # ---- lr_scheduler
    "StepLR/not_an_optimizer": lambda L, d: S(L).StepLR([param(L, d)], step_size=1),
    "StepLR/ok": lambda L, d: lrs(L, d, lambda o: S(L).StepLR(o, step_size=2, gamma=0.5), steps=5),
    "StepLR/step_size_zero": lambda L, d: lrs(L, d, lambda o: S(L).StepLR(o, step_size=0)),
    "StepLR/resume_without_initial_lr": lambda L, d: S(L).StepLR(opt(L, d), step_size=1, last_epoch=3),
    "MultiStepLR/ok_unsorted": lambda L, d: lrs(L, d, lambda o: S(L).MultiStepLR(o, [3, 1], gamma=0.1), steps=4),
    "ExponentialLR/ok": lambda L, d: lrs(L, d, lambda o: S(L).ExponentialLR(o, gamma=0.5)),
    "LambdaLR/count_wrong": lambda L, d: S(L).LambdaLR(opt(L, d), [lambda e: 1.0, lambda e: 0.5]),
    "LambdaLR/not_callable": lambda L, d: lrs(L, d, lambda o: S(L).LambdaLR(o, 3)),
    "MultiplicativeLR/count_wrong": lambda L, d: S(L).MultiplicativeLR(opt(L, d), [lambda e: 1.0] * 2),
    "LinearLR/start_zero": lambda L, d: S(L).LinearLR(opt(L, d), start_factor=0.0),
    "LinearLR/end_above_one": lambda L, d: S(L).LinearLR(opt(L, d), end_factor=2.0),
    "LinearLR/ok": lambda L, d: lrs(L, d, lambda o: S(L).LinearLR(o, start_factor=0.25, total_iters=2), steps=4),
    "ConstantLR/factor_above_one": lambda L, d: S(L).ConstantLR(opt(L, d), factor=2.0),
    "ConstantLR/ok": lambda L, d: lrs(L, d, lambda o: S(L).ConstantLR(o, factor=0.5, total_iters=2), steps=4),
    "PolynomialLR/ok": lambda L, d: lrs(L, d, lambda o: S(L).PolynomialLR(o, total_iters=3, power=2.0), steps=5),
    "CosineAnnealingLR/ok": lambda L, d: lrs(L, d, lambda o: S(L).CosineAnnealingLR(o, T_max=3, eta_min=0.01),
                                             steps=7),
    "CosineAnnealingLR/t_max_zero": lambda L, d: lrs(L, d, lambda o: S(L).CosineAnnealingLR(o, T_max=0)),
    "CosineAnnealingWarmRestarts/t0_zero": lambda L, d: S(L).CosineAnnealingWarmRestarts(opt(L, d), T_0=0),
    "CosineAnnealingWarmRestarts/t_mult_zero": lambda L, d: S(L).CosineAnnealingWarmRestarts(opt(L, d), T_0=2,
                                                                                             T_mult=0),
    "CosineAnnealingWarmRestarts/t0_float": lambda L, d: S(L).CosineAnnealingWarmRestarts(opt(L, d), T_0=2.5),
    "CosineAnnealingWarmRestarts/ok": lambda L, d: lrs(L, d, lambda o: S(L).CosineAnnealingWarmRestarts(
        o, T_0=2, T_mult=2, eta_min=0.001), steps=7),
    "OneCycleLR/no_total": lambda L, d: S(L).OneCycleLR(opt(L, d), max_lr=1.0),
    "OneCycleLR/total_zero": lambda L, d: S(L).OneCycleLR(opt(L, d), max_lr=1.0, total_steps=0),
    "OneCycleLR/pct_start_above_one": lambda L, d: S(L).OneCycleLR(opt(L, d), max_lr=1.0, total_steps=10,
                                                                   pct_start=1.5),
    "OneCycleLR/bad_anneal": lambda L, d: S(L).OneCycleLR(opt(L, d), max_lr=1.0, total_steps=10,
                                                          anneal_strategy="exp"),
    "OneCycleLR/epochs_zero": lambda L, d: S(L).OneCycleLR(opt(L, d), max_lr=1.0, epochs=0, steps_per_epoch=3),
    "OneCycleLR/max_lr_list_wrong": lambda L, d: S(L).OneCycleLR(opt(L, d), max_lr=[1.0, 2.0], total_steps=10),
    "OneCycleLR/step_past_end": lambda L, d: lrs(L, d, lambda o: S(L).OneCycleLR(o, max_lr=1.0, total_steps=2),
                                                 steps=3),
    "OneCycleLR/ok": lambda L, d: lrs(L, d, lambda o: S(L).OneCycleLR(o, max_lr=1.0, total_steps=6,
                                                                      anneal_strategy="linear"), steps=5),
    "CyclicLR/bad_mode": lambda L, d: S(L).CyclicLR(opt(L, d), base_lr=0.1, max_lr=1.0, mode="sine"),
    "CyclicLR/ok": lambda L, d: lrs(L, d, lambda o: S(L).CyclicLR(o, base_lr=0.1, max_lr=1.0, step_size_up=2,
                                                                  mode="triangular2", cycle_momentum=False),
                                    steps=6),
    "CyclicLR/momentum_without": lambda L, d: S(L).CyclicLR(O(L).Adagrad([param(L, d)]), base_lr=0.1, max_lr=1.0),
    "ReduceLROnPlateau/bad_mode": lambda L, d: S(L).ReduceLROnPlateau(opt(L, d), mode="low"),
    "ReduceLROnPlateau/factor_one": lambda L, d: S(L).ReduceLROnPlateau(opt(L, d), factor=1.0),
    "ReduceLROnPlateau/bad_threshold_mode": lambda L, d: S(L).ReduceLROnPlateau(opt(L, d), threshold_mode="x"),
    "ReduceLROnPlateau/min_lr_count": lambda L, d: S(L).ReduceLROnPlateau(opt(L, d), min_lr=[0.1, 0.2]),
    "ReduceLROnPlateau/ok": lambda L, d: lrs(L, d, lambda o: S(L).ReduceLROnPlateau(o, patience=1, factor=0.5),
                                             steps=6, metric=1.0),
    "ReduceLROnPlateau/nan_metric": lambda L, d: lrs(L, d, lambda o: S(L).ReduceLROnPlateau(o, patience=0),
                                                     steps=3, metric=math.nan),
    "SequentialLR/milestones_wrong": lambda L, d: (lambda o: S(L).SequentialLR(
        o, [S(L).ConstantLR(o), S(L).ExponentialLR(o, 0.9)], milestones=[]))(opt(L, d)),
    "SequentialLR/other_optimizer": lambda L, d: (lambda o, o2: S(L).SequentialLR(
        o, [S(L).ConstantLR(o), S(L).ExponentialLR(o2, 0.9)], milestones=[1]))(opt(L, d), opt(L, d)),
    "SequentialLR/ok": lambda L, d: lrs(L, d, lambda o: S(L).SequentialLR(
        o, [S(L).ConstantLR(o, factor=0.5, total_iters=2), S(L).ExponentialLR(o, 0.5)], milestones=[2]), steps=5),
    "ChainedScheduler/other_optimizer": lambda L, d: (lambda o, o2: S(L).ChainedScheduler(
        [S(L).ConstantLR(o), S(L).ExponentialLR(o2, 0.9)]))(opt(L, d), opt(L, d)),
    "scheduler/load_state_dict_not_dict": lambda L, d: S(L).StepLR(opt(L, d), 1).load_state_dict(3),
}

KNOWN = {
    "Adam/betas_three": "PyTorch ignores betas past the second; tandem's step unpacks exactly two (ValueError)",
}
