"""optim: RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam and LBFGS against PyTorch's single-tensor (foreach=False)
path: params and every state tensor after each step, state dicts (layout and round trip), param groups, argument
errors, and L-BFGS iterates on a Rosenbrock function with and without the strong-Wolfe line search."""
import itertools

import pytest
import torch

import tandem
from tandem import nn, optim

STEPS = 8  # RAdam's rectified update starts at step 6
# float64 results differ from PyTorch's only where a fused multiply-add or a reduction order changes a last bit.
TOLERANCE = dict(rtol=1e-12, atol=1e-14)


def grid(**options):
    return [dict(zip(options, values)) for values in itertools.product(*options.values())]


CONFIGS = {
    "RMSprop": grid(lr=[0.01], alpha=[0.9], momentum=[0, 0.9], centered=[False, True], weight_decay=[0, 0.1],
                    maximize=[False, True]),
    "Adagrad": grid(lr=[0.1], lr_decay=[0, 0.05], weight_decay=[0, 0.1], initial_accumulator_value=[0, 0.5],
                    maximize=[False, True]),
    "Adadelta": grid(lr=[1.0, 0.5], rho=[0.9, 0.5], weight_decay=[0, 0.1], maximize=[False, True]),
    "Adamax": grid(lr=[0.02], betas=[(0.9, 0.999), (0.3, 0.8)], weight_decay=[0, 0.1], maximize=[False, True]),
    "NAdam": grid(lr=[0.02], momentum_decay=[4e-3, 0.1], weight_decay=[0, 0.1], decoupled_weight_decay=[False, True],
                  maximize=[False, True]),
    "RAdam": grid(lr=[0.02], betas=[(0.9, 0.999), (0.8, 0.9)], weight_decay=[0, 0.1],
                  decoupled_weight_decay=[False, True], maximize=[False, True]),
}
# One config per optimizer that switches most options on: the one run on every device.
RICH = {name: configs[-1] for name, configs in CONFIGS.items()}


def to_tandem(t, device="cpu"):
    return tandem.tensor(t.tolist(), dtype=getattr(tandem, str(t.dtype).replace("torch.", ""))).to(device)


def to_torch(t):
    return torch.tensor(t.cpu().tolist(), dtype=getattr(torch, str(t.dtype).replace("tandem.", "")))


def make_pair(device, dtype=torch.float64, shapes=((3, 4), (5,), ())):
    torch.manual_seed(0)
    ref = [torch.nn.Parameter(torch.randn(s, dtype=dtype)) for s in shapes]
    ours = [nn.Parameter(to_tandem(p.detach(), device)) for p in ref]
    return ref, ours


def set_grads(ref, ours, gen, device):
    for r, o in zip(ref, ours):
        grad = torch.randn(r.shape, generator=gen, dtype=r.dtype)
        r.grad, o.grad = grad, to_tandem(grad, device)


def assert_same_state(ref_opt, our_opt, tolerance=TOLERANCE):
    theirs, mine = ref_opt.state_dict(), our_opt.state_dict()
    assert mine["state"].keys() == theirs["state"].keys()
    for index, state in theirs["state"].items():
        assert sorted(mine["state"][index]) == sorted(state)
        for key, value in state.items():
            ours = mine["state"][index][key]
            assert str(ours.dtype) == str(value.dtype).replace("torch", "tandem"), key
            torch.testing.assert_close(to_torch(ours), value, **tolerance, msg=key)
    for g_mine, g_theirs in zip(mine["param_groups"], theirs["param_groups"]):
        assert set(g_mine) <= set(g_theirs)
        assert g_mine == {k: v for k, v in g_theirs.items() if k in g_mine}


def assert_same_params(ref, ours, tolerance=TOLERANCE):
    for r, o in zip(ref, ours):
        torch.testing.assert_close(to_torch(o), r.detach(), **tolerance)


def run_and_compare(name, cfg, device, steps=STEPS, dtype=torch.float64, tolerance=TOLERANCE):
    ref, ours = make_pair(device, dtype)
    ref_opt, our_opt = getattr(torch.optim, name)(ref, foreach=False, **cfg), getattr(optim, name)(ours, foreach=False, **cfg)
    gen = torch.Generator().manual_seed(1)
    for _ in range(steps):
        set_grads(ref, ours, gen, device)
        ref_opt.step()
        our_opt.step()
        assert_same_params(ref, ours, tolerance)
        assert_same_state(ref_opt, our_opt, tolerance)
    return our_opt, ours


@pytest.mark.parametrize("name,cfg", [(name, cfg) for name, configs in CONFIGS.items() for cfg in configs],
                         ids=lambda x: x if isinstance(x, str) else "-".join(f"{k}={v}" for k, v in x.items()))
def test_matches_torch_step_by_step(name, cfg):
    run_and_compare(name, cfg, "cpu")


@pytest.mark.parametrize("name", RICH)
def test_state_lives_on_the_param_device(name, device):
    opt, ours = run_and_compare(name, RICH[name], device, steps=3)
    for p in ours:
        for key, value in opt.state[p].items():
            # 'step' (and NAdam's 'mu_product') stay host scalars, as in PyTorch without capturable=True.
            expected = "cpu" if key in ("step", "mu_product") else device
            assert str(value.device) == expected, key


@pytest.mark.parametrize("name", RICH)
def test_float32_matches_torch(name):
    run_and_compare(name, RICH[name], "cpu", steps=4, dtype=torch.float32, tolerance=dict(rtol=1e-5, atol=1e-6))


@pytest.mark.parametrize("name", RICH)
def test_state_dict_round_trip_continues_like_torch(name, tmp_path):
    cfg = RICH[name]
    ref, ours = make_pair("cpu")
    ref_opt, our_opt = getattr(torch.optim, name)(ref, foreach=False, **cfg), getattr(optim, name)(ours, foreach=False, **cfg)
    gen = torch.Generator().manual_seed(1)
    for _ in range(3):
        set_grads(ref, ours, gen, "cpu")
        ref_opt.step()
        our_opt.step()
    # Both sides reload (loading casts NAdam's float32 'mu_product' to the params' dtype, in PyTorch too).
    torch.save(ref_opt.state_dict(), tmp_path / "ref")
    tandem.save(our_opt.state_dict(), tmp_path / "opt")
    ref_clones = [torch.nn.Parameter(p.detach().clone()) for p in ref]
    ref_fresh = getattr(torch.optim, name)(ref_clones, foreach=False, **cfg)
    ref_fresh.load_state_dict(torch.load(tmp_path / "ref"))
    clones = [nn.Parameter(p.detach().clone()) for p in ours]
    fresh = getattr(optim, name)(clones, foreach=False, **dict(cfg, lr=0.5))
    fresh.load_state_dict(tandem.load(tmp_path / "opt"))
    assert fresh.param_groups[0]["lr"] == cfg["lr"]
    assert_same_state(ref_fresh, fresh)
    for _ in range(STEPS - 3):
        set_grads(ref_clones, clones, gen, "cpu")
        ref_fresh.step()
        fresh.step()
    assert_same_params(ref_clones, clones)
    assert_same_state(ref_fresh, fresh)


@pytest.mark.parametrize("name", RICH)
def test_param_groups_with_their_own_options(name):
    ref, ours = make_pair("cpu")
    cfg = dict(RICH[name])
    second = dict(lr=cfg.pop("lr") * 3, weight_decay=0.0)

    def groups(params):
        return [{"params": params[:2]}, {"params": params[2:], **second}]

    ref_opt = getattr(torch.optim, name)(groups(ref), lr=0.01, foreach=False, **cfg)
    our_opt = getattr(optim, name)(groups(ours), lr=0.01, foreach=False, **cfg)
    gen = torch.Generator().manual_seed(2)
    for _ in range(4):
        set_grads(ref, ours, gen, "cpu")
        ref[1].grad = ours[1].grad = None  # a param without a gradient is skipped (and gets no state)
        ref_opt.step()
        our_opt.step()
    assert [g["lr"] for g in our_opt.param_groups] == [0.01, second["lr"]]
    assert_same_params(ref, ours)
    assert_same_state(ref_opt, our_opt)


def test_closure_loss_is_returned():
    p = nn.Parameter(tandem.ones(2))
    opt = optim.RMSprop([p])

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 2.0
    assert p.tolist() != [1.0, 1.0]


BAD_ARGUMENTS = [
    ("RMSprop", dict(lr=-1)), ("RMSprop", dict(eps=-1.0)), ("RMSprop", dict(momentum=-0.5)),
    ("RMSprop", dict(weight_decay=-1e-3)), ("RMSprop", dict(alpha=-0.9)),
    ("Adagrad", dict(lr=-1)), ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(weight_decay=-1)),
    ("Adagrad", dict(initial_accumulator_value=-0.1)), ("Adagrad", dict(eps=-1e-10)),
    ("Adadelta", dict(lr=-1)), ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(eps=-1)),
    ("Adadelta", dict(weight_decay=-1)),
    ("Adamax", dict(lr=-0.1)), ("Adamax", dict(eps=-1)), ("Adamax", dict(betas=(1.0, 0.9))),
    ("Adamax", dict(betas=(0.9, -0.1))), ("Adamax", dict(weight_decay=-1)),
    ("NAdam", dict(lr=-1)), ("NAdam", dict(betas=(0.9, 1.0))), ("NAdam", dict(momentum_decay=-4e-3)),
    ("NAdam", dict(weight_decay=-1)),
    ("RAdam", dict(lr=-1)), ("RAdam", dict(betas=(-0.1, 0.9))), ("RAdam", dict(eps=-1)),
    ("LBFGS", dict(lr=-1)),
]


@pytest.mark.parametrize("name,kwargs", BAD_ARGUMENTS)
def test_argument_errors_match_torch(name, kwargs):
    with pytest.raises(Exception) as theirs:
        getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(1))], **kwargs)
    with pytest.raises(type(theirs.value)) as mine:
        getattr(optim, name)([nn.Parameter(tandem.ones(1))], **kwargs)
    assert str(mine.value) == str(theirs.value)


def test_lbfgs_refuses_param_groups_and_unknown_line_searches():
    a, b = nn.Parameter(tandem.ones(1)), nn.Parameter(tandem.ones(1))
    with pytest.raises(ValueError, match=r"LBFGS doesn't support per-parameter options \(parameter groups\)"):
        optim.LBFGS([{"params": [a]}, {"params": [b]}])
    opt = optim.LBFGS([a], line_search_fn="backtracking")

    def closure():
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


START = ([-1.5, 2.0, 0.5], [[1.2, -0.3], [0.8, 1.1]])


def rosenbrock(lib, a, b, sign):
    """The n-dimensional Rosenbrock function over two params (so the flat gradient spans both)."""
    x = lib.cat([a.reshape(-1), b.reshape(-1)])
    return sign * (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def lbfgs_pair(cfg, device="cpu", start=START):
    ref = [torch.nn.Parameter(torch.tensor(s, dtype=torch.float64)) for s in start]
    ours = [nn.Parameter(tandem.tensor(s, dtype=tandem.float64).to(device)) for s in start]
    ref_opt, our_opt = torch.optim.LBFGS(ref, **cfg), optim.LBFGS(ours, **cfg)
    sign = -1 if cfg.get("maximize") else 1

    def closure(lib, opt, params):
        def evaluate():
            opt.zero_grad()
            loss = rosenbrock(lib, *params, sign)
            loss.backward()
            return loss
        return evaluate

    return ref, ours, ref_opt, our_opt, closure(torch, ref_opt, ref), closure(tandem, our_opt, ours)


# Rosenbrock's valley amplifies last-bit differences (the summation order of dot products) over dozens of
# iterations; a wrong step would also change the evaluation counts, which must match exactly.
LBFGS_TOLERANCE = dict(rtol=1e-6, atol=1e-8)


def assert_same_lbfgs_state(ref_opt, our_opt):
    theirs, mine = ref_opt.state[ref_opt.param_groups[0]["params"][0]], our_opt.state[our_opt._params[0]]
    assert sorted(mine) == sorted(theirs)
    for key, value in theirs.items():
        if key in ("func_evals", "n_iter"):
            assert mine[key] == value, key
        elif key in ("t", "H_diag", "prev_loss"):
            assert float(mine[key]) == pytest.approx(float(value), rel=LBFGS_TOLERANCE["rtol"]), key
        elif key in ("d", "prev_flat_grad"):
            torch.testing.assert_close(to_torch(mine[key]), value, **LBFGS_TOLERANCE)
        elif key in ("old_dirs", "old_stps", "ro"):
            assert len(mine[key]) == len(value), key
            for m, t in zip(mine[key], value):
                torch.testing.assert_close(to_torch(m), t, **LBFGS_TOLERANCE)


LBFGS_CONFIGS = grid(line_search_fn=[None, "strong_wolfe"], history_size=[100, 2], max_iter=[10, 4]) + [
    dict(lr=0.5, max_iter=7, maximize=True), dict(line_search_fn="strong_wolfe", max_iter=30, max_eval=12),
    dict(line_search_fn="strong_wolfe", max_eval=1),  # no room for the search: it takes its first trial
    dict(tolerance_grad=1e9),  # already "optimal": one evaluation, no update
]


@pytest.mark.parametrize("cfg", LBFGS_CONFIGS, ids=str)
def test_lbfgs_iterates_match_torch_on_rosenbrock(cfg):
    ref, ours, ref_opt, our_opt, ref_closure, our_closure = lbfgs_pair(cfg)
    for _ in range(3):
        theirs, mine = ref_opt.step(ref_closure), our_opt.step(our_closure)
        assert mine.item() == pytest.approx(theirs.item(), rel=LBFGS_TOLERANCE["rtol"])
        assert_same_params(ref, ours, LBFGS_TOLERANCE)
        assert_same_lbfgs_state(ref_opt, our_opt)


def test_lbfgs_on_each_device(device):
    ref, ours, ref_opt, our_opt, ref_closure, our_closure = lbfgs_pair(dict(line_search_fn="strong_wolfe"), device)
    for _ in range(2):
        ref_opt.step(ref_closure)
        our_opt.step(our_closure)
    assert_same_params(ref, ours, LBFGS_TOLERANCE)
    assert str(our_opt.state[ours[0]]["d"].device) == device


def test_lbfgs_converges():
    start = ([0.0, 0.3, 0.6], [[0.9, 1.2], [0.7, 1.4]])  # in the global minimum's basin
    _, ours, _, opt, _, closure = lbfgs_pair(dict(line_search_fn="strong_wolfe", max_iter=200), start=start)
    for _ in range(3):
        opt.step(closure)
    assert closure().item() < 1e-9
    for p in ours:
        assert p.reshape(-1).tolist() == pytest.approx([1.0] * p.numel(), abs=1e-4)


def test_lbfgs_state_dict_round_trip(tmp_path):
    cfg = dict(line_search_fn="strong_wolfe", history_size=3, max_iter=5)
    ref, ours, ref_opt, our_opt, ref_closure, our_closure = lbfgs_pair(cfg)
    ref_opt.step(ref_closure)
    our_opt.step(our_closure)
    tandem.save(our_opt.state_dict(), tmp_path / "lbfgs")
    clones = [nn.Parameter(p.detach().clone()) for p in ours]
    fresh = optim.LBFGS(clones, **cfg)
    fresh.load_state_dict(tandem.load(tmp_path / "lbfgs"))

    def closure():
        fresh.zero_grad()
        loss = rosenbrock(tandem, *clones, 1)
        loss.backward()
        return loss

    for _ in range(2):
        ref_opt.step(ref_closure)
        fresh.step(closure)
    assert_same_params(ref, clones, LBFGS_TOLERANCE)
    assert_same_lbfgs_state(ref_opt, fresh)


def test_lbfgs_loaded_history_is_not_shared():
    cfg = dict(history_size=2, max_iter=3)
    _, ours, _, opt, _, closure = lbfgs_pair(cfg)
    opt.step(closure)
    clones = [nn.Parameter(p.detach().clone()) for p in ours]
    other = optim.LBFGS(clones, **cfg)
    other.load_state_dict(opt.state_dict())
    before = [t.tolist() for t in opt.state[ours[0]]["old_dirs"]]

    def other_closure():
        other.zero_grad()
        loss = rosenbrock(tandem, *clones, 1)
        loss.backward()
        return loss

    other.step(other_closure)
    other.step(other_closure)
    assert [t.tolist() for t in opt.state[ours[0]]["old_dirs"]] == before
