"""Optimizer state and misuse beyond optim.py and lr_schedulers.py: state_dict contents after steps (the state
values, step counts, param ids), load_state_dict with other keys, lengths, missing state and tensors on another
dtype, param_groups edited by hand, the foreach/fused/capturable/differentiable flags, lr given as a tensor,
zero_grad(set_to_none=False), step() with closures that return non-tensors (LBFGS too), gradients of the wrong
dtype or shape, complex and sparse gradients, SparseAdam and Adafactor misuse, optimizer hooks, and
swa_utils (AveragedModel, SWALR, update_bn) with odd arguments."""
import importlib

from . import T, Case


def O(L):
    return L.optim


def param(L, d, values=(1.0, -2.0, 3.0), grad=(0.5, -0.25, 1.0)):
    p = L.nn.Parameter(L.tensor(list(values), device=d))
    if grad is not None:
        p.grad = L.tensor(list(grad), device=d)
    return p


def stepped(L, d, name, steps=2, **kw):
    """The parameter after `steps` steps of optimizer `name` with a fixed gradient."""
    p = param(L, d)
    o = getattr(O(L), name)([p], **kw)
    for _ in range(steps):
        o.step()
    return p.detach()


def state_of(L, d, name, steps=2, **kw):
    """The optimizer's state_dict after `steps` steps: state per param id (sorted keys) and the group keys."""
    p = param(L, d)
    o = getattr(O(L), name)([p], **kw)
    for _ in range(steps):
        o.step()
    sd = o.state_dict()
    state = {k: {n: v for n, v in sorted(s.items())} for k, s in sd["state"].items()}
    return state, sorted(sd["param_groups"][0])


def reload(L, d, name, edit, **kw):
    """An optimizer's state_dict edited by `edit`, loaded into a fresh optimizer of the same kind, then one step:
    the parameter after it."""
    p = param(L, d)
    o = getattr(O(L), name)([p], **kw)
    o.step()
    sd = o.state_dict()
    edit(L, sd)
    q = param(L, d)
    o2 = getattr(O(L), name)([q], **kw)
    o2.load_state_dict(sd)
    o2.step()
    return q.detach()


def closure_value(L, d, name, value, **kw):
    p = param(L, d)
    o = getattr(O(L), name)([p], **kw)
    return o.step(lambda: value)


def lbfgs(L, d, closure_returns, **kw):
    p = param(L, d, grad=None)

    def closure():
        o.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return closure_returns(loss)

    o = O(L).LBFGS([p], **kw)
    o.step(closure)
    return p.detach()


def with_grad(L, d, name, grad, **kw):
    p = param(L, d, grad=None)
    p.grad = grad
    o = getattr(O(L), name)([p], **{"lr": 0.1, **kw})
    o.step()
    return p.detach()


def cparam(L, d):
    p = L.nn.Parameter(L.tensor([1 + 1j, -2j], device=d))
    p.grad = L.tensor([0.5 - 0.5j, 1j], device=d)
    return p


def complex_step(L, d, name, **kw):
    p = cparam(L, d)
    o = getattr(O(L), name)([p], **{"lr": 0.1, **kw})
    o.step()
    o.step()
    return p.detach()


def sparse_grad_param(L, d):
    p = L.nn.Parameter(L.zeros(3, 2, device=d))
    p.grad = L.sparse_coo_tensor(L.tensor([[0, 2]]), L.ones(2, 2), (3, 2)).to(d)
    return p


def hooks(L, d):
    seen = []
    p = param(L, d)
    o = O(L).SGD([p], lr=0.1)
    h1 = o.register_step_pre_hook(lambda opt, args, kwargs: seen.append("pre"))
    h2 = o.register_step_post_hook(lambda opt, args, kwargs: seen.append("post"))
    o.step()
    h1.remove()
    o.step()
    h2.remove()
    o.step()
    return seen


def swa_model(L, d, **kw):
    m = L.nn.Linear(2, 1).to(d)
    return O(L).swa_utils.AveragedModel(m, **kw), m


def swa_avg(L, d, **kw):
    avg, m = swa_model(L, d, **kw)
    with L.no_grad():
        for k in range(3):
            m.weight.fill_(float(k))
            avg.update_parameters(m)
    return avg.module.weight.detach(), avg.n_averaged


def two_groups(L, d):
    return O(L).SGD([{"params": [param(L, d)]}, {"params": [param(L, d)], "lr": 0.5}], lr=0.1)


CASES = {
    # ---- state_dict contents
    "state_dict/sgd_momentum": lambda L, d: state_of(L, d, "SGD", lr=0.1, momentum=0.9),
    "state_dict/adam": lambda L, d: state_of(L, d, "Adam", lr=0.1),
    "state_dict/adam_amsgrad": lambda L, d: state_of(L, d, "Adam", lr=0.1, amsgrad=True),
    "state_dict/adamw": lambda L, d: state_of(L, d, "AdamW", lr=0.1),
    "state_dict/rmsprop_centered": lambda L, d: state_of(L, d, "RMSprop", lr=0.1, centered=True, momentum=0.5),
    "state_dict/adagrad": lambda L, d: state_of(L, d, "Adagrad", lr=0.1),
    "state_dict/adadelta": lambda L, d: state_of(L, d, "Adadelta"),
    "state_dict/adamax": lambda L, d: state_of(L, d, "Adamax", lr=0.1),
    "state_dict/nadam": lambda L, d: state_of(L, d, "NAdam", lr=0.1),
    "state_dict/radam": lambda L, d: state_of(L, d, "RAdam", lr=0.1),
    "state_dict/rprop": lambda L, d: state_of(L, d, "Rprop", lr=0.1),
    "state_dict/asgd": lambda L, d: state_of(L, d, "ASGD", lr=0.1),
    "state_dict/empty_before_step": lambda L, d: O(L).Adam([param(L, d)]).state_dict()["state"],
    "state_dict/param_ids_two_groups": lambda L, d: [g["params"] for g in two_groups(L, d).state_dict()["param_groups"]],
    "state_dict/group_keys_sgd": lambda L, d: sorted(O(L).SGD([param(L, d)], lr=0.1).state_dict()["param_groups"][0]),
    "state_dict/group_keys_adam": lambda L, d: sorted(O(L).Adam([param(L, d)]).state_dict()["param_groups"][0]),
    # ---- load_state_dict with edited state dicts
    "load/ok_adam": lambda L, d: reload(L, d, "Adam", lambda L, sd: None, lr=0.1),
    "load/missing_state_key": lambda L, d: reload(L, d, "Adam", lambda L, sd: sd.pop("state"), lr=0.1),
    "load/missing_groups_key": lambda L, d: reload(L, d, "Adam", lambda L, sd: sd.pop("param_groups"), lr=0.1),
    "load/extra_top_key": lambda L, d: reload(L, d, "Adam", lambda L, sd: sd.__setitem__("extra", 1), lr=0.1),
    "load/state_dropped": lambda L, d: reload(L, d, "Adam", lambda L, sd: sd["state"].clear(), lr=0.1),
    "load/lr_changed": lambda L, d: reload(L, d, "SGD", lambda L, sd: sd["param_groups"][0].__setitem__("lr", 1.0),
                                           lr=0.1),
    "load/group_key_removed": lambda L, d: reload(L, d, "SGD", lambda L, sd: sd["param_groups"][0].pop("momentum"),
                                                  lr=0.1),
    "load/params_ids_wrong": lambda L, d: reload(L, d, "Adam", lambda L, sd: sd["param_groups"][0].__setitem__(
        "params", [7]), lr=0.1),
    "load/params_count_wrong": lambda L, d: reload(L, d, "Adam", lambda L, sd: sd["param_groups"][0].__setitem__(
        "params", [0, 1]), lr=0.1),
    "load/state_float64": lambda L, d: reload(L, d, "Adam", lambda L, sd: sd["state"][0].__setitem__(
        "exp_avg", sd["state"][0]["exp_avg"].double()), lr=0.1),
    "load/state_step_int": lambda L, d: reload(L, d, "Adam", lambda L, sd: sd["state"][0].__setitem__("step", 5),
                                               lr=0.1),
    "load/state_wrong_shape": lambda L, d: reload(L, d, "Adam", lambda L, sd: sd["state"][0].__setitem__(
        "exp_avg", L.zeros(4)), lr=0.1),
    "load/momentum_buffer_none": lambda L, d: reload(L, d, "SGD", lambda L, sd: sd["state"][0].__setitem__(
        "momentum_buffer", None), lr=0.1, momentum=0.9),
    "load/groups_not_list": lambda L, d: reload(L, d, "SGD", lambda L, sd: sd.__setitem__(
        "param_groups", sd["param_groups"][0]), lr=0.1),
    "load/none": lambda L, d: O(L).SGD([param(L, d)], lr=0.1).load_state_dict(None),
    "load/empty_dict": lambda L, d: O(L).SGD([param(L, d)], lr=0.1).load_state_dict({}),
    "load/state_key_str": lambda L, d: reload(L, d, "Adam", lambda L, sd: sd.__setitem__(
        "state", {"0": sd["state"][0]}), lr=0.1),
    # ---- param_groups edited by hand
    "groups/lr_edited": lambda L, d: (lambda p, o: (o.param_groups[0].__setitem__("lr", 1.0), o.step(),
                                                    p.detach())[2])(*(lambda p: (p, O(L).SGD([p], lr=0.1)))(
        param(L, d))),
    "groups/lr_none": lambda L, d: (lambda p, o: (o.param_groups[0].__setitem__("lr", None), o.step()))(
        *(lambda p: (p, O(L).SGD([p], lr=0.1)))(param(L, d))),
    "groups/params_removed": lambda L, d: (lambda o: (o.param_groups[0].__setitem__("params", []), o.step(),
                                                      len(o.state))[2])(O(L).Adam([param(L, d)])),
    "groups/len": lambda L, d: len(two_groups(L, d).param_groups),
    "groups/defaults_keys": lambda L, d: sorted(O(L).SGD([param(L, d)], lr=0.1).defaults),
    "add_param_group/lr_missing_no_default": lambda L, d: (lambda o: (o.add_param_group({"params": [param(L, d)]}),
                                                                      o.param_groups[1]["lr"])[1])(
        O(L).SGD([param(L, d)], lr=0.1)),
    "add_param_group/params_generator": lambda L, d: (lambda o: (o.add_param_group({"params": iter([param(L, d)])}),
                                                                 len(o.param_groups[1]["params"]))[1])(
        O(L).SGD([param(L, d)], lr=0.1)),
    "add_param_group/params_set": lambda L, d: (lambda o: o.add_param_group({"params": {param(L, d)}}))(
        O(L).SGD([param(L, d)], lr=0.1)),
    "add_param_group/non_leaf": lambda L, d: (lambda o: o.add_param_group({"params": [param(L, d) * 2]}))(
        O(L).SGD([param(L, d)], lr=0.1)),
    "add_param_group/not_tensor": lambda L, d: (lambda o: o.add_param_group({"params": [1.0]}))(
        O(L).SGD([param(L, d)], lr=0.1)),
    "add_param_group/unknown_key_kept": lambda L, d: (lambda o: (o.add_param_group({"params": [param(L, d)],
                                                                                    "tag": "x"}),
                                                                 o.param_groups[1]["tag"])[1])(
        O(L).SGD([param(L, d)], lr=0.1)),
    "params/duplicate_in_list": lambda L, d: (lambda p: len(O(L).SGD([p, p], lr=0.1).param_groups[0]["params"]))(
        param(L, d)),
    "params/dict_of_named": lambda L, d: len(O(L).SGD([("w", param(L, d))], lr=0.1).param_groups[0]["params"]),
    "params/named_parameters": lambda L, d: O(L).SGD(L.nn.Linear(2, 1).named_parameters(), lr=0.1).state_dict()[
        "param_groups"][0]["param_names"],
    "params/requires_grad_false": lambda L, d: len(O(L).SGD([L.zeros(2, device=d)], lr=0.1).param_groups[0]["params"]),
    # ---- flags
    "flags/foreach_true": lambda L, d: stepped(L, d, "Adam", lr=0.1, foreach=True),
    "flags/foreach_false": lambda L, d: stepped(L, d, "SGD", lr=0.1, momentum=0.9, foreach=False),
    "flags/fused_sgd": lambda L, d: stepped(L, d, "SGD", lr=0.1, fused=True),
    "flags/fused_and_foreach": lambda L, d: O(L).Adam([param(L, d)], fused=True, foreach=True),
    "flags/fused_rmsprop": lambda L, d: O(L).RMSprop([param(L, d)], fused=True),
    "flags/capturable_cpu": lambda L, d: stepped(L, "cpu", "Adam", lr=0.1, capturable=True),
    "flags/differentiable": lambda L, d: stepped(L, d, "SGD", lr=0.1, differentiable=True),
    "flags/maximize_adam": lambda L, d: stepped(L, d, "Adam", lr=0.1, maximize=True),
    "flags/foreach_str": lambda L, d: stepped(L, d, "Adam", lr=0.1, foreach="yes"),
    "flags/unknown_kwarg": lambda L, d: O(L).SGD([param(L, d)], lr=0.1, fancy=True),
    # ---- lr as a tensor
    "lr_tensor/sgd": lambda L, d: stepped(L, d, "SGD", lr=T(L, 0.1)),
    "lr_tensor/adam": lambda L, d: stepped(L, d, "Adam", lr=T(L, 0.1)),
    "lr_tensor/adam_foreach_1elem": lambda L, d: stepped(L, d, "Adam", lr=T(L, [0.1]), foreach=True),
    "lr_tensor/two_elems": lambda L, d: O(L).Adam([param(L, d)], lr=T(L, [0.1, 0.2])),
    "lr_tensor/negative": lambda L, d: O(L).SGD([param(L, d)], lr=T(L, -0.1)),
    "lr_tensor/group_state_dict": lambda L, d: type(O(L).Adam([param(L, d)], lr=T(L, 0.1)).state_dict()[
        "param_groups"][0]["lr"]).__name__,
    # ---- zero_grad
    "zero_grad/set_to_none_false": lambda L, d: (lambda p: (O(L).SGD([p], lr=0.1).zero_grad(set_to_none=False),
                                                            p.grad)[1])(param(L, d)),
    "zero_grad/set_to_none_true": lambda L, d: (lambda p: (O(L).SGD([p], lr=0.1).zero_grad(), p.grad)[1])(param(L, d)),
    "zero_grad/grad_with_history": lambda L, d: (lambda p: (setattr(p, "grad", (p * 2).detach().requires_grad_()),
                                                            O(L).SGD([p], lr=0.1).zero_grad(set_to_none=False),
                                                            p.grad.requires_grad)[2])(param(L, d, grad=None)),
    "zero_grad/positional": lambda L, d: (lambda p: (O(L).SGD([p], lr=0.1).zero_grad(False), p.grad)[1])(param(L, d)),
    # ---- step with closures
    "closure/returns_float": lambda L, d: closure_value(L, d, "SGD", 1.5, lr=0.1),
    "closure/returns_none": lambda L, d: closure_value(L, d, "Adam", None, lr=0.1),
    "closure/returns_str": lambda L, d: closure_value(L, d, "SGD", "loss", lr=0.1),
    "closure/raises": lambda L, d: O(L).SGD([param(L, d)], lr=0.1).step(lambda: 1 / 0),
    "closure/not_callable": lambda L, d: O(L).SGD([param(L, d)], lr=0.1).step(3),
    "closure/takes_arg": lambda L, d: O(L).SGD([param(L, d)], lr=0.1).step(lambda x: x),
    "lbfgs/ok": lambda L, d: lbfgs(L, d, lambda loss: loss, lr=0.5, max_iter=3),
    "lbfgs/returns_float": lambda L, d: lbfgs(L, d, lambda loss: float(loss), lr=0.5, max_iter=3),
    "lbfgs/returns_none": lambda L, d: lbfgs(L, d, lambda loss: None, lr=0.5, max_iter=3),
    "lbfgs/no_closure": lambda L, d: O(L).LBFGS([param(L, d)]).step(),
    "lbfgs/strong_wolfe": lambda L, d: lbfgs(L, d, lambda loss: loss, line_search_fn="strong_wolfe", max_iter=4),
    "lbfgs/bad_line_search": lambda L, d: lbfgs(L, d, lambda loss: loss, line_search_fn="armijo"),
    "lbfgs/max_iter_zero": lambda L, d: lbfgs(L, d, lambda loss: loss, max_iter=0),
    "lbfgs/history_size_zero": lambda L, d: lbfgs(L, d, lambda loss: loss, history_size=0, max_iter=3),
    # ---- gradients of odd kinds
    "grad/float64_into_float32": lambda L, d: (lambda p: setattr(p, "grad", L.ones(3, device=d, dtype=L.float64)))(
        param(L, d, grad=None)),
    "grad/wrong_shape": lambda L, d: (lambda p: setattr(p, "grad", L.ones(4, device=d)))(param(L, d, grad=None)),
    "grad/int": lambda L, d: (lambda p: setattr(p, "grad", L.ones(3, device=d, dtype=L.int64)))(param(L, d, grad=None)),
    "grad/nan_sgd": lambda L, d: with_grad(L, d, "SGD", T(L, [float("nan"), 1.0, 0.0], d)),
    "grad/inf_adam": lambda L, d: with_grad(L, d, "Adam", T(L, [float("inf"), 1.0, 0.0], d)),
    "grad/zero_adam": lambda L, d: with_grad(L, d, "Adam", L.zeros(3, device=d)),
    "grad/none_skipped": lambda L, d: with_grad(L, d, "Adam", None),
    "grad/non_contiguous": lambda L, d: with_grad(L, d, "Adam", L.arange(6., device=d)[::2]),
    "complex/sgd": lambda L, d: complex_step(L, d, "SGD", momentum=0.9),
    "complex/adam": lambda L, d: complex_step(L, d, "Adam"),
    "complex/adamw_amsgrad": lambda L, d: complex_step(L, d, "AdamW", amsgrad=True),
    "complex/rmsprop": lambda L, d: complex_step(L, d, "RMSprop", centered=True),
    "complex/adagrad": lambda L, d: complex_step(L, d, "Adagrad"),
    "complex/lbfgs_ok": lambda L, d: O(L).LBFGS([cparam(L, d)]).param_groups[0]["lr"],
    "sparse/adam": lambda L, d: (lambda p: O(L).Adam([p]).step())(sparse_grad_param(L, d)),
    "sparse/sgd_ok": lambda L, d: (lambda p: (O(L).SGD([p], lr=0.1).step(), p.detach())[1])(sparse_grad_param(L, d)),
    "sparse/adagrad_ok": lambda L, d: (lambda p: (O(L).Adagrad([p], lr=0.1).step(), p.detach())[1])(
        sparse_grad_param(L, d)),
    "sparse/sparse_adam_ok": lambda L, d: (lambda p: (O(L).SparseAdam([p], lr=0.1).step(), p.detach())[1])(
        sparse_grad_param(L, d)),
    "sparse/sparse_adam_dense_grad": lambda L, d: O(L).SparseAdam([param(L, d)], lr=0.1).step(),
    "sparse_adam/lr_negative": lambda L, d: O(L).SparseAdam([param(L, d)], lr=-0.1),
    "sparse_adam/betas_bad": lambda L, d: O(L).SparseAdam([param(L, d)], betas=(1.0, 0.9)),
    "sparse_adam/eps_negative": lambda L, d: O(L).SparseAdam([param(L, d)], eps=-1.0),
    "sparse_adam/single_tensor": lambda L, d: O(L).SparseAdam(param(L, d)),
    "adafactor/ok_1d": lambda L, d: stepped(L, d, "Adafactor", lr=0.1),
    "adafactor/ok_2d": lambda L, d: (lambda p: (O(L).Adafactor([p], lr=0.1).step(), p.detach())[1])(
        (lambda p: (setattr(p, "grad", L.ones(2, 3, device=d)), p)[1])(L.nn.Parameter(L.ones(2, 3, device=d)))),
    "adafactor/lr_negative": lambda L, d: O(L).Adafactor([param(L, d)], lr=-0.1),
    "adafactor/beta2_decay_positive": lambda L, d: O(L).Adafactor([param(L, d)], beta2_decay=0.5),
    "adafactor/eps_tuple_negative": lambda L, d: O(L).Adafactor([param(L, d)], eps=(-1.0, 1e-3)),
    "adafactor/maximize": lambda L, d: stepped(L, d, "Adafactor", lr=0.1, maximize=True),
    "adafactor/foreach": lambda L, d: O(L).Adafactor([param(L, d)], foreach=True).defaults["foreach"],
    # ---- hooks
    "hooks/step_pre_post": hooks,
    "hooks/state_dict_pre": lambda L, d: (lambda o: (o.register_state_dict_pre_hook(
        lambda opt: opt.param_groups[0].__setitem__("lr", 0.7)), o.state_dict()["param_groups"][0]["lr"])[1])(
        O(L).SGD([param(L, d)], lr=0.1)),
    "hooks/state_dict_post_edit": lambda L, d: (lambda o: (o.register_state_dict_post_hook(
        lambda opt, sd: {**sd, "extra": 1}), sorted(o.state_dict()))[1])(O(L).SGD([param(L, d)], lr=0.1)),
    "hooks/load_pre_returns_dict": lambda L, d: (lambda o: (o.register_load_state_dict_pre_hook(
        lambda opt, sd: {**sd, "param_groups": [{**sd["param_groups"][0], "lr": 0.9}]}),
        o.load_state_dict(O(L).SGD([param(L, d)], lr=0.1).state_dict()), o.param_groups[0]["lr"])[2])(
        O(L).SGD([param(L, d)], lr=0.1)),
    "hooks/load_post": lambda L, d: (lambda o, seen: (o.register_load_state_dict_post_hook(
        lambda opt: seen.append(1)), o.load_state_dict(o.state_dict()), seen)[2])(
        O(L).SGD([param(L, d)], lr=0.1), []),
    "hooks/global_pre_hook": lambda L, d: (lambda seen: (lambda h: (
        O(L).SGD([param(L, d)], lr=0.1).step(), h.remove(), O(L).SGD([param(L, d)], lr=0.1).step(), seen)[3])(
        importlib.import_module(L.__name__ + ".optim.optimizer").register_optimizer_step_pre_hook(
            lambda opt, a, k: seen.append(1))))([]),
    "hooks/pre_hook_returns_args": lambda L, d: (lambda o: (o.register_step_pre_hook(
        lambda opt, args, kwargs: ((), {})), o.step())[1])(O(L).SGD([param(L, d)], lr=0.1)),
    # the message names the step function by its address: any-message
    "hooks/pre_hook_returns_bad": Case(lambda L, d: (lambda o: (o.register_step_pre_hook(
        lambda opt, args, kwargs: 5), o.step())[1])(O(L).SGD([param(L, d)], lr=0.1)), "any-message"),
    # ---- swa_utils
    "swa/averaged_mean": lambda L, d: swa_avg(L, d),
    "swa/averaged_ema": lambda L, d: swa_avg(L, d, multi_avg_fn=O(L).swa_utils.get_ema_multi_avg_fn(0.5)),
    "swa/averaged_avg_fn": lambda L, d: swa_avg(L, d, avg_fn=lambda a, m, n: a * 0.5 + m * 0.5),
    "swa/ema_decay_str": lambda L, d: swa_avg(L, d, multi_avg_fn=O(L).swa_utils.get_ema_multi_avg_fn("0.5")),
    "swa/forward": lambda L, d: (lambda avg: avg(L.ones(1, 2, device=d)).shape)(swa_model(L, d)[0]),
    "swa/use_buffers": lambda L, d: swa_avg(L, d, use_buffers=True),
    "swa/not_module": lambda L, d: O(L).swa_utils.AveragedModel(3).n_averaged,
    "swa/swalr_ok": lambda L, d: (lambda o: (lambda s: [(o.step(), s.step(), round(o.param_groups[0]["lr"], 10))[2]
                                                        for _ in range(4)])(
        O(L).swa_utils.SWALR(o, swa_lr=0.05, anneal_epochs=2)))(O(L).SGD([param(L, d)], lr=0.1)),
    "swa/swalr_linear": lambda L, d: (lambda o: (lambda s: [(o.step(), s.step(), round(o.param_groups[0]["lr"], 10))[2]
                                                            for _ in range(3)])(
        O(L).swa_utils.SWALR(o, swa_lr=0.05, anneal_epochs=2, anneal_strategy="linear")))(
        O(L).SGD([param(L, d)], lr=0.1)),
    "swa/swalr_bad_strategy": lambda L, d: O(L).swa_utils.SWALR(O(L).SGD([param(L, d)], lr=0.1), swa_lr=0.05,
                                                                anneal_strategy="exp"),
    "swa/swalr_anneal_negative": lambda L, d: O(L).swa_utils.SWALR(O(L).SGD([param(L, d)], lr=0.1), swa_lr=0.05,
                                                                   anneal_epochs=-1),
    "swa/swalr_anneal_float": lambda L, d: O(L).swa_utils.SWALR(O(L).SGD([param(L, d)], lr=0.1), swa_lr=0.05,
                                                                anneal_epochs=1.5),
    "swa/swalr_lr_list_wrong": lambda L, d: O(L).swa_utils.SWALR(O(L).SGD([param(L, d)], lr=0.1),
                                                                 swa_lr=[0.05, 0.01]),
    "swa/update_bn": lambda L, d: (lambda m: (O(L).swa_utils.update_bn([R_(L, d)], m), m[0].running_mean,
                                              m[0].num_batches_tracked)[1:])(
        L.nn.Sequential(L.nn.BatchNorm1d(2)).to(d)),
    "swa/update_bn_no_bn": lambda L, d: O(L).swa_utils.update_bn([R_(L, d)], L.nn.Linear(2, 2).to(d)),
    "swa/update_bn_tuple_batches": lambda L, d: (lambda m: (O(L).swa_utils.update_bn([(R_(L, d), 0)], m),
                                                            m[0].running_mean)[1])(
        L.nn.Sequential(L.nn.BatchNorm1d(2)).to(d)),
}


def R_(L, d):
    return L.tensor([[1.0, 2.0], [3.0, 5.0], [-1.0, 0.5]], device=d)


_SPARSE_GRAD = ("needs C++: tandem's autograd carries strided gradients only (docs/nn.md, docs/compat.md: "
                "SparseAdam), and assigning a sparse COO tensor as a dense parameter's .grad is refused by set_grad "
                "(python/src/autograd.cpp) with a misleading first line (the sparse object's placeholder dtype, "
                "'c10::BFloat16'); it should say that sparse gradients are not supported")
KNOWN = {
    "sparse/adam": _SPARSE_GRAD, "sparse/sgd_ok": _SPARSE_GRAD, "sparse/adagrad_ok": _SPARSE_GRAD,
    "sparse/sparse_adam_ok": _SPARSE_GRAD,
    "flags/differentiable": "tandem's optimizers update parameters outside autograd and refuse "
                            "differentiable=True when constructed (RuntimeError); PyTorch fails at step() on the "
                            "leaf parameter's in-place update (RuntimeError)",
    "groups/lr_none": "a group's lr set to None by hand reaches tandem's fused step kernel, whose binding words the "
                      "TypeError its own way; PyTorch's is Python's unary-minus error",
    "lbfgs/history_size_zero": "LBFGS with history_size=0 is an IndexError in both; PyTorch's pops from an empty list, "
                               "tandem's assigns past one",
    "load/state_wrong_shape": "a loaded state tensor of another shape: tandem names the state and both shapes; "
                              "PyTorch fails broadcasting it in the update (RuntimeError both)",
}
