"""tandem.optim.swa_utils against torch.optim.swa_utils: the same sequence of model weights gives the same
averaged weights (SWA, EMA, custom avg_fn, buffers), update_bn the same BatchNorm statistics, SWALR the same
learning rates, on every device."""
import pytest
import torch

import tandem
from oracle import assert_same_error


def to_tandem(x, device):
    return tandem.tensor(x.tolist(), dtype=getattr(tandem, str(x.dtype).split(".")[-1])).to(device)


def to_torch(t):
    return torch.tensor(t.tolist(), dtype=getattr(torch, str(t.dtype).split(".")[-1]))


def pair_of_models(device, dtype=torch.float32):
    """A torch model and a tandem copy with the same weights (Linear, BatchNorm, Linear)."""
    torch.manual_seed(0)
    model_t = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.BatchNorm1d(6), torch.nn.ReLU(),
                                  torch.nn.Linear(6, 3)).to(dtype)
    model = tandem.nn.Sequential(tandem.nn.Linear(4, 6), tandem.nn.BatchNorm1d(6), tandem.nn.ReLU(),
                                 tandem.nn.Linear(6, 3)).to(device=device, dtype=getattr(tandem, str(dtype)[6:]))
    load(model, model_t, device)
    return model_t, model


def load(model, model_t, device):
    model.load_state_dict({k: to_tandem(v, device) for k, v in model_t.state_dict().items()})


def train_steps(model_t, model, device, steps, averaged_t, averaged):
    """Moves the torch model's weights and buffers (one training step each), mirrors them into the tandem
    model, and updates both averages."""
    g = torch.Generator().manual_seed(1)
    for _ in range(steps):
        x = torch.randn(8, 4, generator=g, dtype=next(model_t.parameters()).dtype)
        model_t.train()
        model_t(x)  # moves the BatchNorm buffers
        with torch.no_grad():
            for p in model_t.parameters():
                p.add_(torch.randn(p.shape, generator=g, dtype=p.dtype) * 0.3)
        load(model, model_t, device)
        averaged_t.update_parameters(model_t)
        averaged.update_parameters(model)


def assert_state_close(averaged, averaged_t, rtol=None, atol=None):
    got, want = averaged.state_dict(), averaged_t.state_dict()
    assert list(got) == list(want)
    for k in want:
        assert str(got[k].dtype).split(".")[-1] == str(want[k].dtype).split(".")[-1], k
        torch.testing.assert_close(to_torch(got[k]), want[k], rtol=rtol, atol=atol, msg=k)


@pytest.mark.parametrize("use_buffers", [False, True])
def test_swa_average_matches_pytorch(device, use_buffers):
    model_t, model = pair_of_models(device)
    swa_t = torch.optim.swa_utils.AveragedModel(model_t, use_buffers=use_buffers)
    swa = tandem.optim.swa_utils.AveragedModel(model, use_buffers=use_buffers)
    assert swa.module is not model and str(swa.n_averaged.device) == "cpu"
    train_steps(model_t, model, device, 5, swa_t, swa)
    assert int(swa.n_averaged) == int(swa_t.n_averaged) == 5
    # PyTorch's CPU formula, the one tandem uses everywhere: bit for bit on the CPU
    exact = device == "cpu"
    assert_state_close(swa, swa_t, rtol=0 if exact else 1e-6, atol=0 if exact else 1e-6)
    x = torch.randn(5, 4)
    swa.eval(), swa_t.eval()
    torch.testing.assert_close(to_torch(swa(to_tandem(x, device))), swa_t(x))


def test_ema_multi_avg_fn_with_buffers_matches_pytorch(device):
    model_t, model = pair_of_models(device)
    ema_t = torch.optim.swa_utils.AveragedModel(model_t, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.9),
                                                use_buffers=True)
    ema = tandem.optim.swa_utils.AveragedModel(model, multi_avg_fn=tandem.optim.swa_utils.get_ema_multi_avg_fn(0.9),
                                               use_buffers=True)
    train_steps(model_t, model, device, 6, ema_t, ema)
    assert_state_close(ema, ema_t, rtol=1e-6, atol=1e-6)  # num_batches_tracked (int64) takes the integer branch


@pytest.mark.parametrize("fn", ["get_ema_avg_fn", "get_swa_avg_fn", "get_swa_multi_avg_fn"])
def test_other_averaging_functions_match_pytorch(device, fn):
    model_t, model = pair_of_models(device, torch.float64)
    key = "multi_avg_fn" if "multi" in fn else "avg_fn"
    args = (0.8,) if fn == "get_ema_avg_fn" else ()
    avg_t = torch.optim.swa_utils.AveragedModel(model_t, **{key: getattr(torch.optim.swa_utils, fn)(*args)})
    avg = tandem.optim.swa_utils.AveragedModel(model, **{key: getattr(tandem.optim.swa_utils, fn)(*args)})
    train_steps(model_t, model, device, 4, avg_t, avg)
    assert_state_close(avg, avg_t, rtol=1e-12, atol=1e-12)


def test_averaged_model_on_another_device():
    model_t, model = pair_of_models("cpu")
    target = f"cuda:{tandem.cuda.device_count() - 1}" if tandem.cuda.is_available() else "cpu"
    swa_t = torch.optim.swa_utils.AveragedModel(model_t)
    swa = tandem.optim.swa_utils.AveragedModel(model, device=target)
    assert str(swa.n_averaged.device) == target and str(next(swa.parameters()).device) == target
    train_steps(model_t, model, "cpu", 3, swa_t, swa)
    assert_state_close(swa, swa_t, rtol=1e-6, atol=1e-6)


def test_averaged_model_errors_match_pytorch():
    assert_same_error(lambda L: L.optim.swa_utils.AveragedModel(
        L.nn.Linear(2, 2), avg_fn=L.optim.swa_utils.get_swa_avg_fn(),
        multi_avg_fn=L.optim.swa_utils.get_swa_multi_avg_fn()))
    for fn in ("get_ema_avg_fn", "get_ema_multi_avg_fn"):
        assert_same_error(lambda L: getattr(L.optim.swa_utils, fn)(1.5))


def test_update_bn_matches_pytorch(device):
    model_t, model = pair_of_models(device)
    g = torch.Generator().manual_seed(2)
    batches_t = [(torch.randn(8, 4, generator=g) * 2 + 1, torch.zeros(8)) for _ in range(4)]
    batches = [(to_tandem(x, "cpu"), to_tandem(y, "cpu")) for x, y in batches_t]
    model_t.eval(), model.eval()
    torch.optim.swa_utils.update_bn(batches_t, model_t)
    tandem.optim.swa_utils.update_bn(batches, model, device=device)
    assert model.training is False and model[1].momentum == model_t[1].momentum == 0.1
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        torch.testing.assert_close(to_torch(getattr(model[1], name)), getattr(model_t[1], name))
    tandem.optim.swa_utils.update_bn([x for x, _ in batches], tandem.nn.Linear(4, 2))  # no BatchNorm: no pass


def sgd_pair(lr=0.5, groups=1):
    params_t = [torch.nn.Parameter(torch.zeros(2)) for _ in range(groups)]
    params = [tandem.nn.Parameter(tandem.zeros(2)) for _ in range(groups)]
    opt_t = torch.optim.SGD([{"params": [p], "lr": lr * (i + 1)} for i, p in enumerate(params_t)])
    opt = tandem.optim.SGD([{"params": [p], "lr": lr * (i + 1)} for i, p in enumerate(params)])
    return opt_t, opt


@pytest.mark.parametrize("strategy,anneal_epochs,swa_lr", [("cos", 5, 0.05), ("linear", 3, [0.01, 0.2]),
                                                          ("cos", 0, 0.1), ("linear", 1, 0.3)])
def test_swalr_schedule_matches_pytorch(strategy, anneal_epochs, swa_lr):
    opt_t, opt = sgd_pair(groups=2)
    sched_t = torch.optim.swa_utils.SWALR(opt_t, swa_lr=swa_lr, anneal_epochs=anneal_epochs,
                                          anneal_strategy=strategy)
    sched = tandem.optim.swa_utils.SWALR(opt, swa_lr=swa_lr, anneal_epochs=anneal_epochs, anneal_strategy=strategy)
    for _ in range(9):
        assert sched.get_last_lr() == pytest.approx(sched_t.get_last_lr(), rel=1e-15)
        opt_t.step(), opt.step()
        sched_t.step(), sched.step()
    assert sched.get_last_lr() == pytest.approx(sched_t.get_last_lr(), rel=1e-15)
    assert [g["swa_lr"] for g in opt.param_groups] == [g["swa_lr"] for g in opt_t.param_groups]


def test_swalr_state_dict_round_trip():
    opt_t, opt = sgd_pair()
    sched = tandem.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=4, anneal_strategy="linear")
    sched_t = torch.optim.swa_utils.SWALR(opt_t, swa_lr=0.05, anneal_epochs=4, anneal_strategy="linear")
    for _ in range(2):
        opt.step(), opt_t.step()
        sched.step(), sched_t.step()
    state = sched.state_dict()
    assert set(state) == set(sched_t.state_dict())
    _, opt2 = sgd_pair()
    again = tandem.optim.swa_utils.SWALR(opt2, swa_lr=0.05)
    again.load_state_dict(state)
    assert again.anneal_func is again._linear_anneal and again.anneal_epochs == 4
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


@pytest.mark.parametrize("kwargs", [dict(anneal_strategy="exp"), dict(anneal_epochs=-1), dict(anneal_epochs=2.5),
                                    dict(swa_lr=[0.1, 0.2])])
def test_swalr_errors_match_pytorch(kwargs):
    kwargs = {"swa_lr": 0.1, **kwargs}
    assert_same_error(lambda L: L.optim.swa_utils.SWALR(
        L.optim.SGD([L.nn.Parameter(L.zeros(2))], lr=0.1), **kwargs))
