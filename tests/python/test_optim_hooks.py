"""Optimizer hooks and named parameters, found missing by the utility program sweep (test_programs_sweeputil.py):
register_step_pre_hook / register_step_post_hook (and the global register_optimizer_step_*_hook), the state_dict
and load_state_dict pre/post hooks, parameters given with their names (model.named_parameters(), PyTorch 2.6+),
the group key order after load_state_dict, and the blank line between groups in repr. Each case runs under
PyTorch and tandem and the logs, state dicts and errors are compared."""
import importlib

import pytest
import torch as real_torch

import tandem


def both(case):
    want = case(real_torch)
    got = case(tandem)
    assert got == want


def one_param(torch, value=1.0):
    p = torch.nn.Parameter(torch.full((2,), value))
    p.grad = torch.ones(2)
    return p


def short(args):
    """Step hook arguments without the optimizer's repr: (type names of args, sorted kwarg names)."""
    return [type(a).__name__ for a in args]


# ---- step hooks --------------------------------------------------------------------------------------------------
def test_step_hooks_run_in_pytorchs_order_around_step():
    def case(torch):
        optimizer_module = importlib.import_module(torch.__name__ + ".optim.optimizer")
        log = []
        p = one_param(torch)
        opt = torch.optim.SGD([p], lr=0.1)
        handles = [
            optimizer_module.register_optimizer_step_pre_hook(lambda o, a, k: log.append(("global pre", short(a)))),
            optimizer_module.register_optimizer_step_post_hook(lambda o, a, k: log.append(("global post",
                                                                                         p.tolist()))),
            opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", p.tolist(), a[0] is o, sorted(k)))),
            opt.register_step_post_hook(lambda o, a, k: log.append(("post", p.tolist()))),
        ]
        try:
            opt.step()
            handles[0].remove()
            handles[3].remove()
            opt.step()
        finally:
            for h in handles:
                h.remove()
        opt.step()  # no hooks left
        return [log, p.tolist()]
    both(case)


def test_a_step_pre_hook_can_replace_the_arguments():
    def case(torch):
        log = []
        opt = torch.optim.SGD([one_param(torch)], lr=0.1)

        def with_closure(o, args, kwargs):
            return args, {"closure": lambda: log.append("closure ran") or torch.tensor(2.5)}

        opt.register_step_pre_hook(with_closure)
        opt.register_step_post_hook(lambda o, a, k: log.append(sorted(k)))
        loss = opt.step()
        return [log, loss.item()]
    both(case)


def test_a_step_pre_hook_returning_something_else_is_refused():
    for lib in (real_torch, tandem):
        opt = lib.optim.Adam([one_param(lib)], lr=0.1)
        opt.register_step_pre_hook(lambda o, a, k: 5)
        with pytest.raises(RuntimeError, match=r"<function Adam.step at 0x[0-9a-f]+> must return None or a tuple "
                                               r"of \(new_args, new_kwargs\), but got 5\.$"):
            opt.step()


def test_hooks_run_once_when_a_subclass_step_calls_the_parent_step():
    log = []

    class Logged(tandem.optim.SGD):
        def step(self, closure=None):
            log.append("subclass step")
            return super().step(closure)

    opt = Logged([one_param(tandem)], lr=0.1)
    opt.register_step_pre_hook(lambda o, a, k: log.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: log.append("post"))
    opt.step()
    assert log == ["pre", "subclass step", "post"]


# ---- state_dict and load_state_dict hooks ------------------------------------------------------------------------
def test_state_dict_hooks():
    def case(torch):
        log = []
        p = one_param(torch)
        opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
        opt.step()
        opt.register_state_dict_pre_hook(lambda o: log.append("pre"))
        opt.register_state_dict_pre_hook(lambda o: log.append("pre, prepended"), prepend=True)
        opt.register_state_dict_post_hook(lambda o, sd: log.append(("post", sorted(sd))))
        opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
        sd = opt.state_dict()
        return [log, sorted(sd), sd["param_groups"][0]["momentum"]]
    both(case)


def test_load_state_dict_hooks():
    def case(torch):
        log = []
        p = one_param(torch)
        opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
        opt.step()
        saved = opt.state_dict()
        saved["extra"] = 1

        def drop_extra_and_change_lr(o, sd):
            log.append(("pre", sorted(sd)))
            sd = dict(sd)
            del sd["extra"]
            sd["param_groups"] = [dict(g, lr=0.5) for g in sd["param_groups"]]
            return sd

        fresh = torch.optim.SGD([p], lr=0.1, momentum=0.9)
        fresh.register_load_state_dict_pre_hook(drop_extra_and_change_lr)
        fresh.register_load_state_dict_post_hook(lambda o: log.append(("post", o.param_groups[0]["lr"])))
        fresh.register_load_state_dict_pre_hook(lambda o, sd: log.append("first"), prepend=True)
        fresh.load_state_dict(saved)
        return [log, sorted(saved), fresh.state[p]["momentum_buffer"].tolist()]
    both(case)


def test_a_copy_leaves_the_hooks_behind_as_pytorch():
    """An optimizer copies (and pickles) as PyTorch's __getstate__ has it: defaults, state and param groups; the
    copy steps without the original's hooks (made again on first use), which still run on the original."""
    import copy  # noqa: PLC0415

    def case(torch):
        log = []
        opt = torch.optim.SGD([one_param(torch)], lr=0.1)
        opt.register_step_post_hook(lambda o, a, k: log.append("original"))
        clone = copy.deepcopy(opt)
        clone.step()
        clone.register_step_post_hook(lambda o, a, k: log.append("clone"))
        clone.step()
        opt.step()
        return log
    both(case)


# ---- named parameters --------------------------------------------------------------------------------------------
def named_model(torch):
    return torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))


def test_named_parameters_give_param_names_in_groups_and_state_dicts():
    def case(torch):
        m = named_model(torch)
        opt = torch.optim.AdamW([{"params": m[0].named_parameters()},
                                 {"params": m[1].named_parameters(), "lr": 0.5}], lr=0.1)
        opt.add_param_group({"params": [("temperature", torch.nn.Parameter(torch.ones(1)))], "lr": 1.0})
        sd = opt.state_dict()
        whole = torch.optim.SGD(m.named_parameters(), lr=0.1)
        return [[list(g) for g in opt.param_groups], [list(g) for g in sd["param_groups"]],
                [g["param_names"] for g in sd["param_groups"]], whole.param_groups[0]["param_names"],
                [g["params"] for g in sd["param_groups"]]]
    both(case)


@pytest.mark.parametrize("kind", ["mixed_in_group", "add_unnamed", "add_named", "not_a_tensor"])
def test_named_parameter_errors(kind):
    def case(torch):
        m = named_model(torch)
        extra = torch.nn.Parameter(torch.ones(1))
        try:
            if kind == "mixed_in_group":
                torch.optim.SGD([("a", m[0].weight), m[0].bias], lr=0.1)
            elif kind == "add_unnamed":
                torch.optim.SGD(m.named_parameters(), lr=0.1).add_param_group({"params": [extra]})
            elif kind == "add_named":
                torch.optim.SGD(m.parameters(), lr=0.1).add_param_group({"params": [("extra", extra)]})
            else:
                torch.optim.SGD([("a", 1)], lr=0.1)
        except (TypeError, ValueError) as exc:
            return [type(exc).__name__, str(exc)]
        return None
    both(case)


@pytest.mark.parametrize("saved_named, loading_named", [(True, False), (False, True), (True, True)])
def test_load_state_dict_group_key_order(saved_named, loading_named):
    def case(torch):
        m = named_model(torch)
        make = lambda named: torch.optim.SGD(m.named_parameters() if named else m.parameters(), lr=0.1)
        target = make(loading_named)
        group = target.param_groups[0]
        target.load_state_dict(make(saved_named).state_dict())
        return [list(target.param_groups[0]), target.param_groups[0] is group]
    both(case)


# ---- repr --------------------------------------------------------------------------------------------------------
def test_repr_puts_a_blank_line_between_groups():
    def case(torch):
        ps = [torch.nn.Parameter(torch.ones(1)) for _ in range(3)]
        one = torch.optim.Adam([ps[0]], lr=0.1)
        three = torch.optim.SGD([{"params": [p]} for p in ps], lr=0.1)
        return [repr(one), repr(three)]
    both(case)
