"""The losses of nn/_functional_losses.py and their modules (nn/modules/loss_more.py) against PyTorch: values and
gradients in float64 for every reduction, float32 values, the modules and their reprs, the deprecated
size_average/reduce pair, warnings, and bad input giving PyTorch's exception type and message; on every device.

Each case is written once as a function of the functional namespace (torch.nn.functional or tandem's), so the
same code runs through both libraries."""
import warnings

import pytest
import torch

import tandem
import tandem.nn as tnn
import tandem.nn.functional as TF
from oracle import from_torch, to_torch

torch.manual_seed(0)
f64 = torch.float64


def randn(*shape):
    return torch.randn(*shape, dtype=f64)


def signs(*shape):
    return torch.randint(0, 2, shape).to(f64) * 2 - 1


A, B, C = randn(4, 5) * 2, randn(4, 5) * 2, randn(4, 5) * 2
ROW = randn(5)
PROBS, LOGP = torch.softmax(randn(4, 5), 1), torch.log_softmax(randn(4, 5), 1)
PROBS_WITH_ZEROS = PROBS * (torch.rand(4, 5) > 0.3)
COUNTS = torch.tensor([[0., 1, 2, 5, 3], [1, 0, 7, 2, 1], [4, 1, 0, 0, 2], [1, 2, 3, 1, 9]], dtype=f64)
VAR = torch.rand(4, 5, dtype=f64) + 1e-7  # a few entries below eps=1e-6 are unlikely, so add some
VAR[0, 0], VAR[2, 3] = 1e-8, 0.0
LABELS, WEIGHT5 = torch.tensor([0, 4, 2, 2]), torch.rand(5, dtype=f64) + 0.5
MULTI_LABELS = torch.tensor([[0, 3, -1, 1, 2], [4, -1, 0, 0, 0], [1, 2, 3, 4, 0], [-1, 2, 0, 0, 0]])
MULTI_HOT = (torch.rand(4, 5) > 0.5).to(f64)

# CTC: 7 frames, batch 3, 5 labels (blank 0); padded targets with a repeated label, and their concatenated form.
CTC_LOGITS = randn(7, 3, 5)
CTC_TARGETS = torch.tensor([[1, 2, 2], [3, 1, -1], [-1, -1, -1]])
CTC_CONCAT = torch.tensor([1, 2, 2, 3, 1])
CTC_IN, CTC_TG = torch.tensor([7, 6, 4]), torch.tensor([3, 2, 0])


def cos_distance(F):
    return lambda u, v: 1 - F.cosine_similarity(u, v)


# (id, fn(F, *inputs, reduction), inputs, indices of the inputs that get gradients)
CASES = [
    ("smooth_l1", lambda F, x, y, r: F.smooth_l1_loss(x, y, reduction=r), [A, B], (0, 1)),
    ("smooth_l1_beta", lambda F, x, y, r: F.smooth_l1_loss(x, y, reduction=r, beta=2.5), [A, B], (0, 1)),
    ("smooth_l1_beta0", lambda F, x, y, r: F.smooth_l1_loss(x, y, reduction=r, beta=0.0), [A, B], (0, 1)),
    ("smooth_l1_broadcast", lambda F, x, y, r: F.smooth_l1_loss(x, y, reduction=r), [A, ROW], (0, 1)),
    ("huber", lambda F, x, y, r: F.huber_loss(x, y, reduction=r), [A, B], (0, 1)),
    ("huber_delta", lambda F, x, y, r: F.huber_loss(x, y, reduction=r, delta=2.5), [A, B], (0, 1)),
    ("huber_weight", lambda F, x, y, w, r: F.huber_loss(x, y, reduction=r, weight=w), [A, B, VAR], (0, 1, 2)),
    ("kl_div", lambda F, x, t, r: F.kl_div(x, t, reduction=r), [LOGP, PROBS], (0, 1)),
    ("kl_div_zeros", lambda F, x, t, r: F.kl_div(x, t, reduction=r), [LOGP, PROBS_WITH_ZEROS], (0,)),
    ("kl_div_log_target", lambda F, x, t, r: F.kl_div(x, t, reduction=r, log_target=True), [LOGP, LOGP.flip(0)],
     (0, 1)),
    ("poisson", lambda F, x, t, r: F.poisson_nll_loss(x, t, reduction=r), [A / 2, COUNTS], (0,)),
    ("poisson_full", lambda F, x, t, r: F.poisson_nll_loss(x, t, full=True, reduction=r), [A / 2, COUNTS], (0,)),
    ("poisson_rate", lambda F, x, t, r: F.poisson_nll_loss(x, t, log_input=False, full=True, eps=0.1, reduction=r),
     [A.abs(), COUNTS], (0,)),
    ("gaussian", lambda F, x, t, v, r: F.gaussian_nll_loss(x, t, v, reduction=r), [A, B, VAR], (0, 1, 2)),
    ("gaussian_full_short_var", lambda F, x, t, v, r: F.gaussian_nll_loss(x, t, v, full=True, reduction=r, eps=0.2),
     [A, B, VAR[:, 0]], (0, 1, 2)),
    ("gaussian_var_one_dim", lambda F, x, t, v, r: F.gaussian_nll_loss(x, t, v, reduction=r), [A, B, VAR[:1]],
     (0, 1, 2)),
    ("gaussian_float_var", lambda F, x, t, r: F.gaussian_nll_loss(x, t, 0.7, reduction=r), [A, B], (0, 1)),
    ("margin_ranking", lambda F, x, y, t, r: F.margin_ranking_loss(x, y, t, reduction=r), [A, B, signs(4, 5)],
     (0, 1)),
    ("margin_ranking_margin", lambda F, x, y, t, r: F.margin_ranking_loss(x, y, t, margin=0.5, reduction=r),
     [A, B, signs(4, 5)], (0, 1, 2)),
    ("hinge_embedding", lambda F, x, t, r: F.hinge_embedding_loss(x, t, reduction=r), [A, signs(4, 5)], (0,)),
    ("hinge_embedding_margin", lambda F, x, t, r: F.hinge_embedding_loss(x, t, margin=2.5, reduction=r),
     [A, signs(4, 5)], (0,)),
    ("soft_margin", lambda F, x, t, r: F.soft_margin_loss(x, t, reduction=r), [A * 10, signs(4, 5)], (0,)),
    ("multilabel_soft_margin", lambda F, x, t, r: F.multilabel_soft_margin_loss(x, t, reduction=r), [A, MULTI_HOT],
     (0,)),
    ("multilabel_soft_margin_weight", lambda F, x, t, w, r: F.multilabel_soft_margin_loss(x, t, w, reduction=r),
     [A, MULTI_HOT, WEIGHT5], (0, 2)),
    ("cosine_embedding", lambda F, x, y, t, r: F.cosine_embedding_loss(x, y, t, reduction=r), [A, B, signs(4)],
     (0, 1)),
    ("cosine_embedding_margin", lambda F, x, y, t, r: F.cosine_embedding_loss(x, y, t, margin=-0.2, reduction=r),
     [A, B, signs(4)], (0, 1)),
    ("cosine_embedding_1d", lambda F, x, y, t, r: F.cosine_embedding_loss(x, y, t, reduction=r),
     [A[0], B[0], torch.tensor(-1.0, dtype=f64)], (0, 1)),
    ("multi_margin", lambda F, x, t, r: F.multi_margin_loss(x, t, reduction=r), [A / 2, LABELS], (0,)),
    ("multi_margin_p2_weight", lambda F, x, t, w, r: F.multi_margin_loss(x, t, p=2, margin=0.7, weight=w,
                                                                       reduction=r), [A / 2, LABELS, WEIGHT5], (0,)),
    ("multi_margin_vector", lambda F, x, t, r: F.multi_margin_loss(x, t, reduction=r), [A[0] / 2, LABELS[1]], (0,)),
    ("multilabel_margin", lambda F, x, t, r: F.multilabel_margin_loss(x, t, reduction=r), [A / 2, MULTI_LABELS],
     (0,)),
    ("multilabel_margin_vector", lambda F, x, t, r: F.multilabel_margin_loss(x, t, reduction=r),
     [A[0] / 2, MULTI_LABELS[0]], (0,)),
    ("triplet", lambda F, a, p, n, r: F.triplet_margin_loss(a, p, n, reduction=r), [A, B, C], (0, 1, 2)),
    ("triplet_p1_swap", lambda F, a, p, n, r: F.triplet_margin_loss(a, p, n, margin=3.0, p=1, swap=True, reduction=r),
     [A, B, C], (0, 1, 2)),
    ("triplet_p3_eps", lambda F, a, p, n, r: F.triplet_margin_loss(a, p, n, margin=2.0, p=3, eps=0.1, reduction=r),
     [A, B, C], (0, 1, 2)),
    ("triplet_distance", lambda F, a, p, n, r: F.triplet_margin_with_distance_loss(a, p, n, reduction=r, margin=3.0),
     [A, B, C], (0, 1, 2)),
    ("triplet_cosine_swap", lambda F, a, p, n, r: F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=cos_distance(F), swap=True, reduction=r), [A, B, C], (0, 1, 2)),
    ("ctc", lambda F, x, t, il, tl, r: F.ctc_loss(x.log_softmax(2), t, il, tl, reduction=r),
     [CTC_LOGITS, CTC_TARGETS, CTC_IN, CTC_TG], (0,)),
    ("ctc_concat_raw_blank", lambda F, x, t, il, tl, r: F.ctc_loss(x, t, il, tl, blank=4, reduction=r),
     [CTC_LOGITS, CTC_CONCAT, CTC_IN, CTC_TG], (0,)),
    ("ctc_unbatched", lambda F, x, t, r: F.ctc_loss(x.log_softmax(1), t, [7], (3,), reduction=r),
     [CTC_LOGITS[:, 0], CTC_TARGETS[0]], (0,)),
    ("ctc_zero_infinity", lambda F, x, t, r: F.ctc_loss(x.log_softmax(2), t, [3, 6, 0], [3, 2, 0], reduction=r,
                                                         zero_infinity=True), [CTC_LOGITS, CTC_TARGETS], (0,)),
]
CASE_IDS = [case[0] for case in CASES]
# Not losses (no reduction): the distances.
DISTANCES = [
    ("cosine_similarity", lambda F, x, y: F.cosine_similarity(x, y), [A, B]),
    ("cosine_similarity_dim0_broadcast", lambda F, x, y: F.cosine_similarity(x, y, dim=0, eps=0.5), [A, A[:, :1]]),
    ("cosine_similarity_tiny", lambda F, x, y: F.cosine_similarity(x * 1e-9, y), [A, B]),
    ("pairwise_distance", lambda F, x, y: F.pairwise_distance(x, y), [A, B]),
    ("pairwise_distance_p1_keepdim", lambda F, x, y: F.pairwise_distance(x, y, p=1.0, keepdim=True), [A, ROW]),
    ("pairwise_distance_inf", lambda F, x, y: F.pairwise_distance(x, y, p=float("inf"), eps=0.0), [A, B]),
    ("pairwise_distance_vector", lambda F, x, y: F.pairwise_distance(x, y, p=3.0), [A[0], B[0]]),
]


def run_both(fn, inputs, grad_inputs, device, dtype=f64):
    """fn through PyTorch and through tandem on device (floating inputs cast to dtype); leaves for grad_inputs."""
    ref = [x.to(dtype) if x.is_floating_point() else x for x in inputs]
    ref = [x.clone().requires_grad_(i in grad_inputs) for i, x in enumerate(ref)]
    mine = [from_torch(x.detach(), device).requires_grad_(i in grad_inputs) for i, x in enumerate(ref)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kl_div's 'mean' and the broadcasting warnings have their own test
        return fn(tandem.nn.functional, *mine), fn(torch.nn.functional, *ref), mine, ref


def same(got, want, tol=1e-10, device=None):
    if device is not None:
        assert str(got.device) == device
    want = want.detach()
    torch.testing.assert_close(to_torch(got), want, rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_values_and_gradients_match_pytorch(case, reduction, device):
    _, fn, inputs, grad_inputs = case
    out, ref_out, mine, ref = run_both(lambda F, *xs: fn(F, *xs, reduction), inputs, grad_inputs, device)
    same(out, ref_out, device=device)
    seed = torch.randn_like(ref_out)
    ref_out.backward(seed)
    out.backward(from_torch(seed, device))
    for i in grad_inputs:
        same(mine[i].grad, ref[i].grad)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_float32_values_match_pytorch(case, device):
    _, fn, inputs, _ = case
    out, ref_out, _, _ = run_both(lambda F, *xs: fn(F, *xs, "none"), inputs, (), device, torch.float32)
    assert out.dtype == tandem.float32
    torch.testing.assert_close(to_torch(out), ref_out, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("case", DISTANCES, ids=[c[0] for c in DISTANCES])
def test_distances_match_pytorch(case, device):
    _, fn, inputs = case
    out, ref_out, mine, ref = run_both(fn, inputs, (0, 1), device)
    same(out, ref_out, device=device)
    seed = torch.randn_like(ref_out)
    ref_out.backward(seed)
    out.backward(from_torch(seed, device))
    for i in (0, 1):
        same(mine[i].grad, ref[i].grad, tol=1e-8)  # the tiny case scales gradients by 1e9
    out32, ref32, _, _ = run_both(fn, inputs, (), device, torch.float32)
    torch.testing.assert_close(to_torch(out32), ref32, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_batchmean(log_target, device):
    target = LOGP.flip(0) if log_target else PROBS

    def fn(F, x, t):
        return F.kl_div(x, t, reduction="batchmean", log_target=log_target)
    out, ref_out, mine, ref = run_both(fn, [LOGP, target], (0, 1), device)
    same(out, ref_out, device=device)
    ref_out.backward()
    out.backward()
    same(mine[0].grad, ref[0].grad)
    same(mine[1].grad, ref[1].grad)
    scalar, ref_scalar, _, _ = run_both(fn, [LOGP[0, 0], PROBS[0, 0]], (), device)  # 0-d: batchmean is the sum
    same(scalar, ref_scalar)


# (tandem module, torch module, inputs): default and non-default arguments.
MODULES = [
    ("SmoothL1Loss", {"beta": 0.5, "reduction": "sum"}, [A, B]),
    ("HuberLoss", {"delta": 2.0}, [A, B]),
    ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, [LOGP, LOGP.flip(0)]),
    ("PoissonNLLLoss", {"log_input": False, "full": True}, [A.abs(), COUNTS]),
    ("GaussianNLLLoss", {"full": True, "eps": 1e-3}, [A, B, VAR]),
    ("MarginRankingLoss", {"margin": 0.3}, [A, B, signs(4, 5)]),
    ("HingeEmbeddingLoss", {"margin": 2.0, "reduction": "none"}, [A, signs(4, 5)]),
    ("SoftMarginLoss", {}, [A, signs(4, 5)]),
    ("MultiLabelSoftMarginLoss", {"weight": WEIGHT5}, [A, MULTI_HOT]),
    ("CosineEmbeddingLoss", {"margin": 0.1}, [A, B, signs(4)]),
    ("MultiMarginLoss", {"p": 2, "margin": 0.5, "weight": WEIGHT5}, [A, LABELS]),
    ("MultiLabelMarginLoss", {"reduction": "sum"}, [A, MULTI_LABELS]),
    ("TripletMarginLoss", {"margin": 2.0, "p": 1.0, "swap": True}, [A, B, C]),
    ("TripletMarginWithDistanceLoss", {"margin": 2.0, "swap": True}, [A, B, C]),
    ("CTCLoss", {"blank": 4, "zero_infinity": True}, [torch.log_softmax(CTC_LOGITS, 2), CTC_CONCAT, CTC_IN, CTC_TG]),
    ("CosineSimilarity", {"dim": 0, "eps": 1e-3}, [A, B]),
    ("PairwiseDistance", {"p": 1.5, "keepdim": True}, [A, B]),
]


@pytest.mark.parametrize("name,kwargs,inputs", MODULES, ids=[m[0] for m in MODULES])
def test_modules_match_pytorch(name, kwargs, inputs, device):
    ref_module = getattr(torch.nn, name)(**kwargs)
    module = getattr(tnn, name)(**{k: from_torch(v) if isinstance(v, torch.Tensor) else v
                                   for k, v in kwargs.items()}).to(device)
    assert repr(module) == repr(ref_module)
    assert repr(getattr(tnn, name)()) == repr(getattr(torch.nn, name)())
    mine = [from_torch(x, device) for x in inputs]
    same(module(*mine), ref_module(*inputs), device=device)


def test_module_attributes_and_buffers():
    assert tnn.PairwiseDistance(p=3.0).norm == 3.0  # PyTorch's name for the order
    module = tnn.MultiMarginLoss(weight=tandem.ones(3))
    assert [name for name, _ in module.named_buffers()] == ["weight"]
    distance = TF.pairwise_distance
    assert tnn.TripletMarginWithDistanceLoss(distance_function=distance).distance_function is distance
    assert isinstance(tnn.TripletMarginWithDistanceLoss().distance_function, tnn.PairwiseDistance)


def outcome(fn):
    """(exception type name, message without tandem's hint lines, PyTorch's Size spelled the tandem way)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            return type(e).__name__, str(e).split("\nhint:")[0].replace("torch.Size", "tandem.Size")
    return None


def both(fn, *inputs):
    """fn's outcome through PyTorch and through tandem, on the same (converted) inputs."""
    mine = [from_torch(x) if isinstance(x, torch.Tensor) else x for x in inputs]
    return outcome(lambda: fn(TF, *mine)), outcome(lambda: fn(torch.nn.functional, *inputs))


LONG = torch.tensor
# (id, fn(F, *inputs), inputs): each raises in PyTorch; tandem must raise the same type with the same message.
ERRORS = [
    ("smooth_l1_broadcast", lambda F, x, y: F.smooth_l1_loss(x, y), [A, randn(3)]),
    ("smooth_l1_beta", lambda F, x, y: F.smooth_l1_loss(x, y, beta=-1.0), [A, B]),
    ("huber_delta", lambda F, x, y: F.huber_loss(x, y, delta=0.0), [A, B]),
    ("huber_weight_size", lambda F, x, y, w: F.huber_loss(x, y, weight=w), [A, B, ROW]),
    ("huber_weight_reduction", lambda F, x, y, w: F.huber_loss(x, y, reduction="bad", weight=w), [A, B, A]),
    ("kl_div_integral", lambda F, x, y: F.kl_div(x, y, reduction="sum"), [A, LABELS]),
    ("gaussian_negative_var", lambda F, x, y, v: F.gaussian_nll_loss(x, y, v), [A, B, -VAR]),
    ("gaussian_negative_float", lambda F, x, y: F.gaussian_nll_loss(x, y, -1.0), [A, B]),
    ("gaussian_var_size", lambda F, x, y, v: F.gaussian_nll_loss(x, y, v), [A, B, VAR[:2, :2]]),
    ("gaussian_reduction", lambda F, x, y, v: F.gaussian_nll_loss(x, y, v, reduction="bad"), [A, B, VAR]),
    ("margin_ranking_dims", lambda F, x, y, t: F.margin_ranking_loss(x, y, t), [A, B, signs(4)]),
    ("cosine_embedding_target_dim", lambda F, x, y, t: F.cosine_embedding_loss(x, y, t), [A, B, signs(4, 5)]),
    ("cosine_embedding_input_dim", lambda F, x, y, t: F.cosine_embedding_loss(x, y, t), [A, B, signs(1)[0]]),
    ("cosine_embedding_1d_target", lambda F, x, y, t: F.cosine_embedding_loss(x, y, t), [ROW, ROW, signs(4)]),
    ("multilabel_soft_margin_reduction", lambda F, x, t: F.multilabel_soft_margin_loss(x, t, reduction="x"),
     [A, MULTI_HOT]),
    ("multi_margin_p", lambda F, x, t: F.multi_margin_loss(x, t, p=3), [A, LABELS]),
    ("multi_margin_weight_dim", lambda F, x, t, w: F.multi_margin_loss(x, t, weight=w), [A, LABELS, A]),
    ("multi_margin_weight_size", lambda F, x, t, w: F.multi_margin_loss(x, t, weight=w), [A, LABELS, WEIGHT5[:3]]),
    ("multi_margin_target_size", lambda F, x, t: F.multi_margin_loss(x, t), [A, LABELS[:3]]),
    ("multi_margin_target_dtype", lambda F, x, t: F.multi_margin_loss(x, t), [A, LABELS.int()]),
    ("multi_margin_float_target", lambda F, x, t: F.multi_margin_loss(x, t), [A, LABELS.to(f64)]),
    ("multi_margin_target_range", lambda F, x, t: F.multi_margin_loss(x, t), [A, LONG([0, 5, 1, 1])]),
    ("multi_margin_negative_target", lambda F, x, t: F.multi_margin_loss(x, t), [A, LONG([0, -1, 1, 1])]),
    ("multi_margin_3d", lambda F, x, t: F.multi_margin_loss(x, t), [randn(2, 3, 4), LABELS[:2]]),
    ("multi_margin_no_classes", lambda F, x, t: F.multi_margin_loss(x, t), [randn(3, 0), LABELS[:3]]),
    ("multilabel_margin_target_size", lambda F, x, t: F.multilabel_margin_loss(x, t), [A, MULTI_LABELS[:2]]),
    ("multilabel_margin_dtype", lambda F, x, t: F.multilabel_margin_loss(x, t), [A, MULTI_LABELS.int()]),
    ("multilabel_margin_range", lambda F, x, t: F.multilabel_margin_loss(x, t), [A, MULTI_LABELS * 2]),
    ("multilabel_margin_below", lambda F, x, t: F.multilabel_margin_loss(x, t), [A, MULTI_LABELS - 1]),
    ("triplet_dims", lambda F, a, p, n: F.triplet_margin_loss(a, p, n), [A, B, ROW]),
    ("triplet_margin", lambda F, a, p, n: F.triplet_margin_loss(a, p, n, margin=0.0), [A, B, C]),
    ("triplet_distance_dims", lambda F, a, p, n: F.triplet_margin_with_distance_loss(a, p, n), [A, ROW, C]),
    ("triplet_distance_margin", lambda F, a, p, n: F.triplet_margin_with_distance_loss(a, p, n, margin=-1), [A, B, C]),
    ("cosine_similarity_integral", lambda F, x, y: F.cosine_similarity(x, y), [LABELS, LABELS]),
    ("cosine_similarity_broadcast", lambda F, x, y: F.cosine_similarity(x, y), [A, randn(3, 5)]),
    ("cosine_similarity_dim", lambda F, x, y: F.cosine_similarity(x, y, dim=2), [A, B]),
    ("ctc_blank", lambda F, x, t, il, tl: F.ctc_loss(x, t, il, tl, blank=5), [CTC_LOGITS, CTC_TARGETS, CTC_IN, CTC_TG]),
    ("ctc_input_lengths_size", lambda F, x, t, il, tl: F.ctc_loss(x, t, il, tl),
     [CTC_LOGITS, CTC_TARGETS, CTC_IN[:2], CTC_TG]),
    ("ctc_target_lengths_size", lambda F, x, t, il, tl: F.ctc_loss(x, t, il, tl),
     [CTC_LOGITS, CTC_TARGETS, CTC_IN, CTC_TG[:2]]),
    ("ctc_input_too_long", lambda F, x, t, il, tl: F.ctc_loss(x, t, il, tl),
     [CTC_LOGITS, CTC_TARGETS, CTC_IN + 1, CTC_TG]),
    ("ctc_negative_input", lambda F, x, t, il, tl: F.ctc_loss(x, t, il, tl),
     [CTC_LOGITS, CTC_TARGETS, CTC_IN - 7, CTC_TG]),
    ("ctc_negative_target", lambda F, x, t, il, tl: F.ctc_loss(x, t, il, tl),
     [CTC_LOGITS, CTC_TARGETS, CTC_IN, CTC_TG - 1]),
    ("ctc_padded_too_short", lambda F, x, t, il, tl: F.ctc_loss(x, t, il, tl),
     [CTC_LOGITS, CTC_TARGETS[:, :2], CTC_IN, CTC_TG]),
    ("ctc_concat_size", lambda F, x, t, il, tl: F.ctc_loss(x, t, il, tl), [CTC_LOGITS, CTC_CONCAT[:4], CTC_IN, CTC_TG]),
    ("ctc_float_lengths", lambda F, x, t, il, tl: F.ctc_loss(x, t, il, tl),
     [CTC_LOGITS, CTC_TARGETS, CTC_IN.to(f64), CTC_TG]),
    ("ctc_4d", lambda F, x, t, il, tl: F.ctc_loss(x, t, il, tl), [CTC_LOGITS[None], CTC_TARGETS, CTC_IN, CTC_TG]),
    ("ctc_3d_targets", lambda F, x, t, il, tl: F.ctc_loss(x, t, il, tl),
     [CTC_LOGITS, CTC_TARGETS[None], CTC_IN, CTC_TG]),
]


@pytest.mark.parametrize("case", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_raises_pytorchs_error(case):
    _, fn, inputs = case
    mine, ref = both(fn, *inputs)
    assert ref is not None
    assert mine == ref


def test_device_target_out_of_range_is_refused(device):
    # On a device multi_margin_loss leaves the index check to gather (no host read), so only the type is PyTorch's.
    x, t = from_torch(A, device), tandem.tensor([0, 5, 1, 1], device=device)
    with pytest.raises(RuntimeError):
        TF.multi_margin_loss(x, t)


# Every loss with a reduction argument, called with a bad one (its other arguments valid).
BAD_REDUCTION = [case for case in CASES if not case[0].startswith("ctc_")]


@pytest.mark.parametrize("case", BAD_REDUCTION, ids=[c[0] for c in BAD_REDUCTION])
def test_bad_reduction(case):
    _, fn, inputs, _ = case
    mine, ref = both(lambda F, *xs: fn(F, *xs, "bogus"), *inputs)
    assert ref is not None and ref[0] == "ValueError"
    assert mine == ref


def warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message).replace("torch.Size", "tandem.Size")) for w in caught]


@pytest.mark.parametrize("call", [
    lambda F, x, y: F.smooth_l1_loss(x, y),
    lambda F, x, y: F.huber_loss(x, y),
    lambda F, x, y: F.kl_div(x, y),
    lambda F, x, y: F.kl_div(x, y, reduction="batchmean"),
    lambda F, x, y: F.smooth_l1_loss(x, y, size_average=False),
    lambda F, x, y: F.soft_margin_loss(x, y, reduce=False),
    lambda F, x, y: F.kl_div(x, y, size_average=True, reduce=True),
], ids=["smooth_l1_sizes", "huber_sizes", "kl_div_mean", "kl_div_batchmean", "legacy_sum", "legacy_none",
        "legacy_kl_div"])
def test_warnings_match_pytorch(call):
    mine = warnings_of(lambda: call(TF, from_torch(A), from_torch(ROW)))
    assert mine == warnings_of(lambda: call(torch.nn.functional, A, ROW))


@pytest.mark.parametrize("size_average,reduce", [(False, None), (None, False), (True, True), (False, False)])
def test_legacy_size_average_and_reduce(size_average, reduce):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = torch.nn.SmoothL1Loss(size_average=size_average, reduce=reduce)
        module = tnn.SmoothL1Loss(size_average=size_average, reduce=reduce)
        assert module.reduction == ref.reduction
        weighted = tnn.MultiMarginLoss(size_average=size_average, reduce=reduce)
        assert weighted.reduction == torch.nn.MultiMarginLoss(size_average=size_average, reduce=reduce).reduction
        out = TF.margin_ranking_loss(from_torch(A), from_torch(B), from_torch(signs(4, 5)), 0.0, size_average, reduce)
    assert tuple(out.shape) == ((4, 5) if ref.reduction == "none" else ())


@pytest.mark.parametrize("ctor", [
    lambda nn, lib: nn.TripletMarginLoss(margin=0),
    lambda nn, lib: nn.TripletMarginWithDistanceLoss(margin=-1.0),
    lambda nn, lib: nn.MultiMarginLoss(p=3),
    lambda nn, lib: nn.MultiMarginLoss(weight=lib.ones(2, 2)),
    lambda nn, lib: nn.HuberLoss(delta="1"),
], ids=["triplet", "triplet_distance", "multi_margin_p", "multi_margin_weight", "huber_delta"])
def test_module_constructor_errors(ctor):
    mine = outcome(lambda: ctor(tnn, tandem))
    assert mine is not None and mine == outcome(lambda: ctor(torch.nn, torch))


def test_ctc_impossible_alignment_is_infinite():
    """Too few frames for the target (a repeat needs a blank between): PyTorch's inf, or 0 with zero_infinity."""
    logp = torch.log_softmax(CTC_LOGITS, 2)
    args = (LONG([[1, 1, 2]] * 3), [3, 4, 0], [3, 3, 0])
    ref = torch.nn.functional.ctc_loss(logp, *args, reduction="none")
    out = TF.ctc_loss(from_torch(logp), from_torch(args[0]), args[1], args[2], reduction="none")
    assert to_torch(out).tolist() == ref.tolist()
    assert ref[0] == float("inf") and ref[1] < float("inf")
