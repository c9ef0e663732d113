"""tandem.optim.Muon against torch.optim.Muon: the parameters after a few steps (the Newton-Schulz iteration runs
in bfloat16 on both sides, so they agree to bfloat16 rounding of the update), the momentum buffer, every
adjust_lr_fn, checks and messages, state dicts."""
import numpy as np
import pytest
import torch

import tandem


def _train(lib, w, grads, device, **kw):
    p = lib.nn.Parameter(lib.tensor(w, device=device) if lib is tandem else lib.tensor(w))
    opt = lib.optim.Muon([p], **kw)
    for g in grads:
        p.grad = lib.tensor(g, device=device) if lib is tandem else lib.tensor(g)
        opt.step()
    return p, opt


@pytest.mark.parametrize("shape", [(6, 4), (3, 7), (5, 5)])
@pytest.mark.parametrize("kw", [{}, {"nesterov": False, "adjust_lr_fn": "match_rms_adamw"},
                                {"adjust_lr_fn": "spectral_unclamped", "weight_decay": 0.0, "lr": 0.02},
                                {"adjust_lr_fn": "original", "momentum": 0.5, "ns_steps": 3}])
def test_steps_match_pytorch(device, shape, kw):
    rng = np.random.default_rng(sum(shape))
    w = rng.standard_normal(shape).astype(np.float32)
    grads = [rng.standard_normal(shape).astype(np.float32) for _ in range(3)]
    p, opt = _train(tandem, w, grads, device, **kw)
    q, ref = _train(torch, w, grads, "cpu", **kw)
    assert p.device == tandem.device(device) and p.dtype == tandem.float32
    lr = kw.get("lr", 1e-3)
    # bfloat16 keeps 8 bits: the orthogonalised update (entries of order 1) agrees to ~1e-2, times the lr
    np.testing.assert_allclose(p.detach().cpu().numpy(), q.detach().numpy(), rtol=0, atol=0.02 * lr * 3)
    np.testing.assert_allclose(opt.state[p]["momentum_buffer"].cpu().numpy(),
                               ref.state[q]["momentum_buffer"].numpy(), rtol=1e-6, atol=1e-7)
    assert not np.allclose(p.detach().cpu().numpy(), w)  # it moved


def test_update_is_orthogonal(device):
    # after one step from zero momentum with no decay, (w0 - w1) / lr is the Newton-Schulz output: its singular
    # values lie near 1 (the quintic iteration spreads them over about [0.5, 1.5])
    w = np.zeros((8, 4), dtype=np.float32)
    g = np.random.default_rng(1).standard_normal((8, 4)).astype(np.float32)
    p, _ = _train(tandem, w, [g], device, lr=1.0, weight_decay=0.0, momentum=0.0, nesterov=False,
                  adjust_lr_fn="spectral_unclamped")
    update = -p.detach().cpu().numpy() / np.sqrt(2.0)
    s = np.linalg.svd(update, compute_uv=False)
    assert s.min() > 0.4 and s.max() < 1.6, s


def test_errors_as_pytorch():
    p = tandem.nn.Parameter(tandem.ones(3, 4))
    cases = [(lambda: tandem.optim.Muon([p], lr=-1), ValueError, "Learning rate should be >= 0 but is: -1"),
             (lambda: tandem.optim.Muon([p], momentum=-1), ValueError, "momentum should be >= 0 but is: -1"),
             (lambda: tandem.optim.Muon([p], weight_decay=-1), ValueError, "weight decay should be >= 0 but is: -1"),
             (lambda: tandem.optim.Muon([p], adjust_lr_fn="x"), ValueError,
              "Adjust learning rate function x is not supported"),
             (lambda: tandem.optim.Muon([tandem.nn.Parameter(tandem.ones(3))]), ValueError,
              "Muon only supports 2D parameters whereas we found a parameter with size: tandem.Size([3])"),
             (lambda: tandem.optim.Muon([p], lr=tandem.ones(2)), ValueError, "Tensor lr must be 1-element")]
    for make, kind, message in cases:
        with pytest.raises(kind) as e:
            make()
        assert str(e.value) == message
    p.grad = tandem.ones(3, 4)
    with pytest.raises(ValueError, match="^Number of steps must be less than 100 for computational efficiency$"):
        tandem.optim.Muon([p], ns_steps=100).step()
    c = tandem.nn.Parameter(tandem.ones(2, 2, dtype=tandem.complex64))
    c.grad = tandem.ones(2, 2, dtype=tandem.complex64)
    with pytest.raises(RuntimeError, match="^Muon does not support complex parameters$"):
        tandem.optim.Muon([c]).step()


def test_repr_and_state_dict_round_trip(device):
    p = tandem.nn.Parameter(tandem.ones(3, 4, device=device))
    opt = tandem.optim.Muon([p], lr=0.01)
    assert repr(opt) == repr(torch.optim.Muon([torch.nn.Parameter(torch.ones(3, 4))], lr=0.01))
    p.grad = tandem.full((3, 4), 0.5, device=device)
    opt.step()
    q = tandem.nn.Parameter(p.detach().clone())
    other = tandem.optim.Muon([q], lr=0.5)
    other.load_state_dict(opt.state_dict())
    assert other.param_groups[0]["lr"] == 0.01
    assert tandem.equal(other.state[q]["momentum_buffer"], opt.state[p]["momentum_buffer"])
    p.grad = q.grad = tandem.full((3, 4), -0.25, device=device)
    opt.step()
    other.step()
    assert tandem.equal(p, q)
