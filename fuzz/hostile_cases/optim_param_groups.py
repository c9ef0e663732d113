"""Every torch.optim optimizer given the same matrix of hostile param groups and hyperparameters, beyond optim.py
and optim_state.py (which hold one or two per optimizer): a bare tensor, an empty list, an exhausted generator, a
group without 'params', a tensor shared by two groups, a non-leaf tensor, an integer tensor, None in the list; lr
negative, NaN, a str, a one-element tensor; weight_decay and eps negative; an unknown keyword; and two steps on a
deterministic quadratic with a second group of its own lr, with weight decay, maximize=True and a parameter whose
grad is None, compared by value. Then per-optimizer edges: betas (at one, a list, of length one, as tensors),
momentum with nesterov and dampening, RMSprop's alpha and centered, Adagrad's lr_decay and initial accumulator,
Adadelta's rho, NAdam's momentum_decay and decoupled weight decay, RAdam's decoupled weight decay, ASGD's lambd/alpha/
t0, Rprop's etas and step sizes, LBFGS with groups, max_iter, history_size and line_search_fn, and the flags
(foreach, fused, capturable, differentiable) given values of the wrong type."""
from . import T

OPTIMIZERS = ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop",
              "LBFGS")


def leaf(L, d, values=(0.5, -1.5, 2.0)):
    return L.tensor(list(values), dtype=L.float64, device=d, requires_grad=True)


def build(L, cls, params, **kw):
    """The optimizer and what its groups hold besides the params (sorted: the defaults' order is our own)."""
    opt = getattr(L.optim, cls)(params, **kw)
    return [sorted((k, v) for k, v in g.items() if k != "params") + [("n_params", len(g["params"]))]
            for g in opt.param_groups]


def quadratic(L, params, target):
    return sum(((p - target) ** 2 * L.arange(1, p.numel() + 1, dtype=p.dtype, device=p.device)).sum()
               for p in params)


def steps(L, d, cls, groups_of, n=2, **kw):
    """n steps on a quadratic from a fixed start; groups_of(a, b) gives the params argument for two leaves.
    Returns the leaves' values after the steps (and the closure's last loss)."""
    a, b = leaf(L, d), leaf(L, d, (1.0, 0.25))
    opt = getattr(L.optim, cls)(groups_of(a, b), **kw)

    def closure():
        opt.zero_grad()
        loss = quadratic(L, [a, b], 0.75)
        loss.backward()
        return loss
    losses = [opt.step(closure) for _ in range(n)]
    return a.detach(), b.detach(), [float(x) for x in losses]


PATTERNS = {
    "params_single_tensor": lambda L, d, c: build(L, c, leaf(L, d)),
    "params_empty_list": lambda L, d, c: build(L, c, []),
    "params_exhausted_generator": lambda L, d, c: (lambda g: (list(g), build(L, c, g))[1])(
        (p for p in [leaf(L, d)])),
    "params_group_without_params": lambda L, d, c: build(L, c, [{"lr": 0.1}]),
    "params_shared_across_groups": lambda L, d, c: (lambda p: build(L, c, [{"params": [p]}, {"params": [p]}]))(
        leaf(L, d)),
    "params_non_leaf": lambda L, d, c: build(L, c, [leaf(L, d) * 2]),
    "params_int_tensor": lambda L, d, c: build(L, c, [L.tensor([1, 2], device=d)]),
    "params_none_in_list": lambda L, d, c: build(L, c, [leaf(L, d), None]),
    "params_dict_params_tensor": lambda L, d, c: build(L, c, [{"params": leaf(L, d)}]),
    "params_mixed_dict_tensor": lambda L, d, c: build(L, c, [{"params": [leaf(L, d)]}, leaf(L, d)]),
    "lr_negative": lambda L, d, c: build(L, c, [leaf(L, d)], lr=-0.1),
    "lr_nan": lambda L, d, c: build(L, c, [leaf(L, d)], lr=float("nan")),
    "lr_str": lambda L, d, c: build(L, c, [leaf(L, d)], lr="0.1"),
    "lr_tensor_steps": lambda L, d, c: steps(L, d, c, lambda a, b: [a, b], lr=L.tensor(0.05)),
    "weight_decay_negative": lambda L, d, c: build(L, c, [leaf(L, d)], weight_decay=-0.1),
    "eps_negative": lambda L, d, c: build(L, c, [leaf(L, d)], eps=-1e-8),
    "unknown_kw": lambda L, d, c: build(L, c, [leaf(L, d)], lr=0.1, nesterov_momentum=0.9),
    "steps_defaults": lambda L, d, c: steps(L, d, c, lambda a, b: [a, b]),
    "steps_two_groups": lambda L, d, c: steps(L, d, c, lambda a, b: [{"params": [a]}, {"params": [b], "lr": 0.01}],
                                              lr=0.05),
    "steps_weight_decay": lambda L, d, c: steps(L, d, c, lambda a, b: [a, b], lr=0.05, weight_decay=0.1),
    "steps_maximize": lambda L, d, c: steps(L, d, c, lambda a, b: [a, b], lr=0.05, maximize=True),
    "steps_grad_none": lambda L, d, c: steps(L, d, c, lambda a, b: [a, b, leaf(L, d)], lr=0.05),
}

# The base class's checks are the same for every optimizer: those patterns run on three of them.
SHARED = ("params_empty_list", "params_group_without_params", "params_int_tensor", "params_none_in_list",
          "params_dict_params_tensor", "params_mixed_dict_tensor", "lr_nan", "lr_str", "eps_negative",
          "steps_grad_none")
CASES = {f"{cls}/{name}": (lambda L, d, f=f, c=cls: f(L, d, c)) for cls in OPTIMIZERS for name, f in PATTERNS.items()
         if name not in SHARED or cls in ("SGD", "Adam", "LBFGS")}
CASES.update({
    # ---- SGD
    "SGD/nesterov_zero_momentum": lambda L, d: build(L, "SGD", [leaf(L, d)], lr=0.1, nesterov=True),
    "SGD/nesterov_dampening": lambda L, d: build(L, "SGD", [leaf(L, d)], lr=0.1, momentum=0.9, nesterov=True,
                                                 dampening=0.1),
    "SGD/momentum_nan": lambda L, d: build(L, "SGD", [leaf(L, d)], lr=0.1, momentum=float("nan")),
    "SGD/steps_nesterov": lambda L, d: steps(L, d, "SGD", lambda a, b: [a, b], n=3, lr=0.05, momentum=0.9,
                                             nesterov=True),
    "SGD/steps_dampening": lambda L, d: steps(L, d, "SGD", lambda a, b: [a, b], n=3, lr=0.05, momentum=0.9,
                                              dampening=0.5),
    "SGD/group_nesterov_without_momentum_steps": lambda L, d: steps(
        L, d, "SGD", lambda a, b: [{"params": [a], "nesterov": True}, {"params": [b]}], lr=0.05, momentum=0.0),
    "SGD/no_lr_default": lambda L, d: build(L, "SGD", [leaf(L, d)]),
    # ---- Adam family: betas
    **{f"{cls}/{name}": (lambda L, d, c=cls, b=betas: build(L, c, [leaf(L, d)], betas=b))
       for cls in ("Adam", "AdamW", "Adamax", "NAdam", "RAdam")
       for name, betas in (("beta1_one", (1.0, 0.999)), ("beta2_one", (0.9, 1.0)), ("betas_list", [0.9, 0.99]),
                           ("betas_length_one", (0.9,)), ("betas_negative", (-0.1, 0.999)))},
    "Adam/betas_tensors_steps": lambda L, d: steps(L, d, "Adam", lambda a, b: [a, b], lr=0.05,
                                                   betas=(L.tensor(0.8), L.tensor(0.9))),
    "Adam/betas_str": lambda L, d: build(L, "Adam", [leaf(L, d)], betas="0.9"),
    "Adam/steps_amsgrad": lambda L, d: steps(L, d, "Adam", lambda a, b: [a, b], n=3, lr=0.05, amsgrad=True),
    "Adam/steps_decoupled": lambda L, d: steps(L, d, "Adam", lambda a, b: [a, b], lr=0.05, weight_decay=0.1,
                                               decoupled_weight_decay=True),
    "AdamW/steps_amsgrad_maximize": lambda L, d: steps(L, d, "AdamW", lambda a, b: [a, b], n=3, lr=0.05,
                                                       amsgrad=True, maximize=True),
    "NAdam/momentum_decay_negative": lambda L, d: build(L, "NAdam", [leaf(L, d)], momentum_decay=-1.0),
    "NAdam/steps_decoupled": lambda L, d: steps(L, d, "NAdam", lambda a, b: [a, b], n=3, lr=0.05, weight_decay=0.1,
                                                decoupled_weight_decay=True),
    "RAdam/steps_decoupled_six": lambda L, d: steps(L, d, "RAdam", lambda a, b: [a, b], n=6, lr=0.05,
                                                    weight_decay=0.1, decoupled_weight_decay=True),
    # ---- RMSprop, Adagrad, Adadelta, ASGD, Rprop
    "RMSprop/alpha_negative": lambda L, d: build(L, "RMSprop", [leaf(L, d)], alpha=-0.1),
    "RMSprop/alpha_past_one": lambda L, d: build(L, "RMSprop", [leaf(L, d)], alpha=1.5),
    "RMSprop/steps_centered_momentum": lambda L, d: steps(L, d, "RMSprop", lambda a, b: [a, b], n=3, lr=0.01,
                                                          centered=True, momentum=0.5),
    "Adagrad/lr_decay_negative": lambda L, d: build(L, "Adagrad", [leaf(L, d)], lr_decay=-0.1),
    "Adagrad/initial_accumulator_negative": lambda L, d: build(L, "Adagrad", [leaf(L, d)],
                                                               initial_accumulator_value=-1.0),
    "Adagrad/steps_lr_decay_accumulator": lambda L, d: steps(L, d, "Adagrad", lambda a, b: [a, b], n=3, lr=0.1,
                                                             lr_decay=0.1, initial_accumulator_value=0.5),
    "Adadelta/rho_one": lambda L, d: build(L, "Adadelta", [leaf(L, d)], rho=1.0),
    "Adadelta/rho_past_one": lambda L, d: build(L, "Adadelta", [leaf(L, d)], rho=1.5),
    "Adadelta/rho_negative": lambda L, d: build(L, "Adadelta", [leaf(L, d)], rho=-0.5),
    "ASGD/steps_t0": lambda L, d: steps(L, d, "ASGD", lambda a, b: [a, b], n=4, lr=0.05, t0=1, lambd=0.1, alpha=0.5),
    "ASGD/lambd_negative": lambda L, d: build(L, "ASGD", [leaf(L, d)], lambd=-1.0),
    "Rprop/etas_swapped": lambda L, d: build(L, "Rprop", [leaf(L, d)], etas=(1.2, 0.5)),
    "Rprop/eta_plus_below_one": lambda L, d: build(L, "Rprop", [leaf(L, d)], etas=(0.5, 0.9)),
    "Rprop/step_sizes_reversed_steps": lambda L, d: steps(L, d, "Rprop", lambda a, b: [a, b], n=3,
                                                          step_sizes=(1.0, 1e-6)),
    "Rprop/steps_small_max": lambda L, d: steps(L, d, "Rprop", lambda a, b: [a, b], n=4, lr=0.1,
                                                step_sizes=(1e-3, 0.15)),
    # ---- LBFGS
    "LBFGS/two_groups": lambda L, d: build(L, "LBFGS", [{"params": [leaf(L, d)]}, {"params": [leaf(L, d)]}]),
    "LBFGS/max_iter_zero_steps": lambda L, d: steps(L, d, "LBFGS", lambda a, b: [a, b], max_iter=0),
    "LBFGS/history_size_one_steps": lambda L, d: steps(L, d, "LBFGS", lambda a, b: [a, b], history_size=1),
    "LBFGS/line_search_bad": lambda L, d: steps(L, d, "LBFGS", lambda a, b: [a, b], line_search_fn="armijo"),
    "LBFGS/steps_strong_wolfe": lambda L, d: steps(L, d, "LBFGS", lambda a, b: [a, b], lr=1,
                                                   line_search_fn="strong_wolfe"),
    "LBFGS/max_eval_below_iter": lambda L, d: steps(L, d, "LBFGS", lambda a, b: [a, b], max_iter=5, max_eval=2),
    # ---- flags with values of the wrong type or combination
    "Adam/foreach_and_fused": lambda L, d: build(L, "Adam", [leaf(L, d)], foreach=True, fused=True),
    "SGD/differentiable_and_fused": lambda L, d: build(L, "SGD", [leaf(L, d)], lr=0.1, differentiable=True,
                                                       fused=True),
    "Adagrad/fused_and_foreach": lambda L, d: build(L, "Adagrad", [leaf(L, d)], fused=True, foreach=True),
    "Adam/fused_int_params": lambda L, d: build(L, "Adam", [T(L, [1.0], d, "float64").requires_grad_(),
                                                            L.tensor([1, 2], device=d)], fused=True),
    "Adam/steps_capturable_cpu": lambda L, d: steps(L, "cpu", "Adam", lambda a, b: [a, b], lr=0.05, capturable=True),
    "SGD/steps_foreach_false": lambda L, d: steps(L, d, "SGD", lambda a, b: [a, b], lr=0.05, momentum=0.5,
                                                  foreach=False),
    # ---- zero_grad and add_param_group around the groups
    "SGD/zero_grad_set_to_none_false_values": lambda L, d: (lambda p: (
        (p * 2).sum().backward(), L.optim.SGD([p], lr=0.1).zero_grad(set_to_none=False), p.grad)[2])(leaf(L, d)),
    "SGD/add_param_group_overlap_message": lambda L, d: (lambda p: L.optim.SGD([p], lr=0.1).add_param_group(
        {"params": [leaf(L, d), p]}))(leaf(L, d)),
    "Adam/add_param_group_inherits_defaults": lambda L, d: (lambda o: (o.add_param_group({"params": [leaf(L, d)],
                                                                                         "lr": 0.5}),
                                                                       sorted(o.param_groups[1]))[1])(
        L.optim.Adam([leaf(L, d)], lr=0.1)),
    "Adam/add_param_group_bad_beta": lambda L, d: L.optim.Adam([leaf(L, d)], lr=0.1).add_param_group(
        {"params": [leaf(L, d)], "betas": (1.5, 0.9)}),
    "SGD/add_param_group_lr_negative": lambda L, d: L.optim.SGD([leaf(L, d)], lr=0.1).add_param_group(
        {"params": [leaf(L, d)], "lr": -1.0}),
})

KNOWN = {}
