"""Losses, normalisation layers, softmax layers and Embedding against PyTorch (values and gradients), and
end-to-end training to a fixed accuracy from a fixed seed."""
import pytest
import torch

import tandem
from tandem import nn
import tandem.nn.functional as F

def T(t):
    return tandem.tensor(t.tolist(), dtype=getattr(tandem, str(t.dtype).replace("torch.", "")))


def close(a, b, tol=1e-10):
    torch.testing.assert_close(torch.tensor(a.tolist(), dtype=b.dtype), b, atol=tol, rtol=tol)


def check(ours_fn, torch_fn, inputs, grad_inputs=(0,), tol=1e-10):
    """Runs both functions on the same float64 inputs; compares outputs and the gradients of grad_inputs."""
    ref = [x.clone().requires_grad_(i in grad_inputs) for i, x in enumerate(inputs)]
    mine = [T(x).requires_grad_(i in grad_inputs) for i, x in enumerate(inputs)]
    out_ref, out = torch_fn(*ref), ours_fn(*mine)
    close(out, out_ref.detach(), tol)
    g = torch.randn_like(out_ref)
    out_ref.backward(g)
    out.backward(T(g))
    for i in grad_inputs:
        close(mine[i].grad, ref[i].grad, tol)


torch.manual_seed(0)
LOGITS = torch.randn(6, 5, dtype=torch.float64)
TARGET = torch.tensor([0, 4, 2, 2, -100, 1])
SPATIAL = torch.randn(2, 4, 3, 3, dtype=torch.float64)
SPATIAL_TARGET = torch.randint(0, 4, (2, 3, 3))
WEIGHT = torch.rand(5, dtype=torch.float64) + 0.5


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy(reduction, smoothing, weighted):
    w = WEIGHT if weighted else None
    check(lambda x: F.cross_entropy(x, T(TARGET), T(w) if weighted else None, reduction=reduction, label_smoothing=smoothing),
          lambda x: torch.nn.functional.cross_entropy(x, TARGET, w, reduction=reduction, label_smoothing=smoothing),
          [LOGITS])


def test_cross_entropy_spatial_probabilities_and_module():
    check(lambda x: nn.CrossEntropyLoss()(x, T(SPATIAL_TARGET)),
          lambda x: torch.nn.CrossEntropyLoss()(x, SPATIAL_TARGET), [SPATIAL])
    probs = torch.softmax(torch.randn(6, 5, dtype=torch.float64), 1)
    check(lambda x: F.cross_entropy(x, T(probs), label_smoothing=0.1),
          lambda x: torch.nn.functional.cross_entropy(x, probs, label_smoothing=0.1), [LOGITS])
    check(lambda x: nn.CrossEntropyLoss(ignore_index=2)(x, T(TARGET.clamp(min=0))),
          lambda x: torch.nn.CrossEntropyLoss(ignore_index=2)(x, TARGET.clamp(min=0)), [LOGITS])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss(reduction):
    logp = torch.log_softmax(LOGITS, 1)
    check(lambda x: nn.NLLLoss(weight=T(WEIGHT), reduction=reduction)(x, T(TARGET)),
          lambda x: torch.nn.NLLLoss(weight=WEIGHT, reduction=reduction)(x, TARGET), [logp])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_and_binary_losses(reduction):
    a, b = torch.randn(4, 3, dtype=torch.float64), torch.randn(4, 3, dtype=torch.float64)
    p, t = torch.rand(4, 3, dtype=torch.float64) * 0.98 + 0.01, torch.rand(4, 3, dtype=torch.float64)
    check(lambda x, y: nn.MSELoss(reduction=reduction)(x, y), lambda x, y: torch.nn.MSELoss(reduction=reduction)(x, y), [a, b], (0, 1))
    check(lambda x, y: nn.L1Loss(reduction=reduction)(x, y), lambda x, y: torch.nn.L1Loss(reduction=reduction)(x, y), [a, b], (0, 1))
    check(lambda x: nn.BCELoss(reduction=reduction)(x, T(t)), lambda x: torch.nn.BCELoss(reduction=reduction)(x, t), [p])
    pw = torch.rand(3, dtype=torch.float64) + 0.5
    check(lambda x: nn.BCEWithLogitsLoss(reduction=reduction, pos_weight=T(pw))(x, T(t)),
          lambda x: torch.nn.BCEWithLogitsLoss(reduction=reduction, pos_weight=pw)(x, t), [a * 10])
    check(lambda x: F.binary_cross_entropy_with_logits(x, T(t), T(pw[:1].expand(3))),
          lambda x: torch.nn.functional.binary_cross_entropy_with_logits(x, t, pw[:1].expand(3)), [a])


@pytest.mark.parametrize("pos_weight", [None, 2.5])
def test_bce_with_logits_at_exactly_zero_and_large_logits(pos_weight):
    """The gradient at a logit of exactly 0 is sigmoid(0) - t (a model with zero-initialised weights starts
    there), and huge logits stay finite."""
    x = torch.tensor([0.0, 0.0, -0.0, 40.0, -40.0, 1e-8], dtype=torch.float64)
    t = torch.tensor([0.0, 1.0, 0.3, 0.0, 1.0, 0.5], dtype=torch.float64)
    pw = None if pos_weight is None else torch.full((6,), pos_weight, dtype=torch.float64)
    check(lambda v: F.binary_cross_entropy_with_logits(v, T(t), pos_weight=None if pw is None else T(pw)),
          lambda v: torch.nn.functional.binary_cross_entropy_with_logits(v, t, pos_weight=pw), [x])


def test_loss_errors():
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        F.mse_loss(tandem.ones(2), tandem.ones(2), reduction="bogus")
    with pytest.raises(ValueError, match=r"Expected input batch_size \(6\) to match target batch_size \(2\)"):
        F.cross_entropy(T(LOGITS), tandem.tensor([0, 1]))
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(tandem.ones(2), tandem.ones(3))


def test_softmax_layers():
    check(lambda x: nn.Softmax(dim=1)(x), lambda x: torch.nn.Softmax(dim=1)(x), [LOGITS])
    check(lambda x: nn.LogSoftmax(dim=0)(x), lambda x: torch.nn.LogSoftmax(dim=0)(x), [LOGITS])


@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (8, 3)), ("BatchNorm1d", (4, 3, 5)), ("BatchNorm2d", (4, 3, 2, 5))])
def test_batch_norm_train_and_eval(cls, shape):
    torch.manual_seed(1)
    ref = getattr(torch.nn, cls)(3, momentum=0.3).double()
    ours = getattr(nn, cls)(3, momentum=0.3).double()
    with torch.no_grad():
        ref.weight.uniform_(0.5, 1.5)
        ref.bias.uniform_(-1, 1)
    ours.load_state_dict({k: T(v) for k, v in ref.state_dict().items()})
    for _ in range(3):
        x = torch.randn(shape, dtype=torch.float64) * 2 + 1
        check(ours, ref, [x])
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        assert getattr(ours, name).tolist() == pytest.approx(getattr(ref, name).tolist(), rel=1e-12)
    ours.eval()
    ref.eval()
    x = torch.randn(shape, dtype=torch.float64)
    check(ours, ref, [x])
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(tandem.ones(2, 3))


def test_layer_norm_and_embedding():
    x = torch.randn(2, 3, 4, dtype=torch.float64)
    ref = torch.nn.LayerNorm((3, 4)).double()
    with torch.no_grad():
        ref.weight.normal_()
        ref.bias.normal_()
    ours = nn.LayerNorm((3, 4)).double()
    ours.load_state_dict({k: T(v) for k, v in ref.state_dict().items()})
    check(ours, ref, [x])
    emb_ref = torch.nn.Embedding(7, 3, padding_idx=1).double()
    emb = nn.Embedding(7, 3, padding_idx=1).double()
    emb.load_state_dict({k: T(v) for k, v in emb_ref.state_dict().items()})
    idx = torch.tensor([[1, 6], [0, 1]])
    out, out_ref = emb(T(idx)), emb_ref(idx)
    close(out, out_ref.detach())
    g = torch.randn_like(out_ref)
    out_ref.backward(g)
    out.backward(T(g))
    close(emb.weight.grad, emb_ref.weight.grad)


def test_training_reaches_fixed_accuracy_from_fixed_seed():
    tandem.manual_seed(0)
    g = tandem.Generator().manual_seed(0)
    # two well separated blobs per class, 4 classes
    centers = tandem.randn(4, 8, generator=g) * 6  # far apart: a correct step reaches 97%
    labels = tandem.randint(0, 4, (512,), generator=g)
    x = tandem.index_select(centers, 0, labels) + tandem.randn(512, 8, generator=g)
    loader = tandem.utils.data.DataLoader(tandem.utils.data.TensorDataset(x, labels), batch_size=32, shuffle=True,
                                          generator=g)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = tandem.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(5):
        for xb, yb in loader:
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            opt.step()
    model.eval()
    with tandem.no_grad():
        acc = (model(x).argmax(dim=1) == labels).to(tandem.float32).mean().item()
    assert acc >= 0.97
