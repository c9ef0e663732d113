"""nn.functional losses beyond the basic ones, and the distances they use (re-exported by nn.functional).

Each is a composition of tandem ops written in PyTorch's own formula (ATen's, where PyTorch has a kernel), so
values, gradients at ties and NaN cases follow PyTorch's, and autograd and every device come for free.
"""
import math
import warnings

import tandem

from .._autocast import active as _amp_active, run as _amp_run
from .._transfer_guard import _crossing
from .functional import _check_reduction, _legacy_reduction, _reduce, logsigmoid

__all__ = [
    "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss", "gaussian_nll_loss", "margin_ranking_loss",
    "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss", "cosine_embedding_loss",
    "multi_margin_loss", "multilabel_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
    "ctc_loss", "cosine_similarity", "pairwise_distance",
]


def _warn_if_sizes_differ(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


def _check_long_target(target):
    if target.dtype != tandem.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype._scalar_type_name}"
                           "\nhint: convert the class indices with .long()")


def _index_bounds(target, op):
    """(min, max) of an integer tensor in one read (a device read the caller did not name, so implicit)."""
    with _crossing(op):
        return tuple(int(v) for v in tandem.stack([target.min(), target.max()]).tolist())


def _real_difference(kernel, input, target):
    """input - target, refused as PyTorch's kernels refuse a complex one ("smooth_l1_cpu", "huber_cuda")."""
    diff = input - target
    if diff.is_complex():
        raise NotImplementedError(f"\"{kernel}_{diff.device.type}\" not implemented for "
                                  f"'{diff.dtype._scalar_type_name}'")
    return diff


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 (x - y)^2 / beta where |x - y| < beta, |x - y| - 0.5 beta elsewhere (L1 when beta is 0)."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", smooth_l1_loss, input, target, size_average, reduce, reduction, beta)
    _warn_if_sizes_differ(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    z = tandem.abs(_real_difference("smooth_l1", input, target))
    _check_reduction(reduction)
    if not beta >= 0:  # NaN too, as PyTorch's check
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    loss = z if beta == 0 else tandem.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 (x - y)^2 where |x - y| < delta, delta (|x - y| - 0.5 delta) elsewhere; times weight if given."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", huber_loss, input, target, reduction, delta, weight)
    _warn_if_sizes_differ(input, target)
    z = tandem.abs(_real_difference("huber", input, target))
    if weight is None:
        _check_reduction(reduction)
    elif tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    if not delta > 0:  # NaN too, as PyTorch's check
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    # PyTorch's kernel writes into a tensor like the input: a float64 target does not widen the loss.
    loss = tandem.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)).to(input.dtype)
    if weight is not None:
        loss = loss * weight
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    return _reduce(loss, reduction)


def _xlogy_self(t):
    """t log t, 0 where t == 0 (PyTorch's xlogy(t, t): NaN stays NaN, negative t gives NaN)."""
    return tandem.where(t == 0, 0, t * tandem.log(t))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target (log target - input) pointwise, input being log-probabilities; 'batchmean' divides the sum by the
    batch size (the KL divergence proper), 'mean' by the element count."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", kl_div, input, target, size_average, reduce, reduction, log_target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if reduction != "batchmean":
        _check_reduction(reduction)
    if not (input.is_floating_point() and target.is_floating_point()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = tandem.exp(target) * (target - input)
    else:
        loss = _xlogy_self(target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.size(0) if input.dim() else loss.sum()
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """exp(x) - t x for log-rate inputs, x - t log(x + eps) otherwise; full adds Stirling's term for t > 1."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", poisson_nll_loss, input, target, log_input, full, size_average, eps, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if log_input:
        loss = tandem.exp(input) - target * input
    else:
        loss = input - target * tandem.log(input + eps)
    if full:
        stirling = target * tandem.log(target) - target + 0.5 * tandem.log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log var + (x - t)^2 / var), var clamped at eps; var may also be one per sample (one dim short, or
    size 1 in exactly one dim) or a float."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * tandem.ones_like(input)
    else:
        with _crossing("F.gaussian_nll_loss"):
            negative = bool(tandem.any(var < 0))
        if negative:
            raise ValueError("var has negative entry/entries")
    in_shape, var_shape = tuple(input.shape), tuple(var.shape)
    if var_shape != in_shape:
        if in_shape[:-1] == var_shape:
            var = var.unsqueeze(-1)
        elif not (len(in_shape) == len(var_shape)
                  and sum(v for i, v in zip(in_shape, var_shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # As PyTorch: the clamp is invisible to autograd, so clamped entries still pass their gradient.
    var = var.clone()
    with tandem.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (tandem.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -t (x1 - x2) + margin): t = 1 asks for x1 ranked above x2, t = -1 for the reverse."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", margin_ranking_loss, input1, input2, target, margin, size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """x where t = 1, max(0, margin - x) where t = -1 (both terms for any other t, as PyTorch)."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", hinge_embedding_loss, input, target, margin, size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    margin_clamp = (margin - input).clamp(min=0)
    loss = tandem.where(target != 1, margin_clamp, 0) + tandem.where(target != -1, input, 0)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-t x)), as -logsigmoid(t x) so that large |t x| neither overflows nor rounds to 0."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", soft_margin_loss, input, target, size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    # PyTorch computes into a tensor like the input: a float64 target does not widen the loss.
    return _reduce(-logsigmoid(input * target).to(input.dtype), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross-entropy with logits per class, averaged over the classes (the last dim)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


_COSINE_EPSILON = 1e-12  # ATen's EPSILON, added to each squared magnitude


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where t = 1, max(0, cos(x1, x2) - margin) where t = -1."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", cosine_embedding_loss, input1, input2, target, margin, size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.dim() != dim + 1:
        raise RuntimeError(f"{dim}D target tensor expects {dim + 1}D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(dim)
    mag_square1 = (input1 * input1).sum(dim) + _COSINE_EPSILON
    mag_square2 = (input2 * input2).sum(dim) + _COSINE_EPSILON
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    loss = tandem.where(target == 1, 1 - cos, 0) + tandem.where(target == -1, (cos - margin).clamp(min=0), 0)
    return _reduce(loss, reduction)


def _margin_loss_input_shape(input):
    """(samples, classes) of a margin loss input: a vector, or a matrix whose batch may be empty."""
    ndim = input.dim()
    if not ((ndim == 2 and input.size(1) != 0) or (ndim <= 1 and input.numel() != 0)):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    return (input.size(0) if ndim == 2 else 1), (input.size(-1) if ndim else 1)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Per sample: the sum over classes j != y of max(0, margin - x[y] + x[j])^p (times weight[y]), over C."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", multi_margin_loss, input, target, p, margin, weight, size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    samples, classes = _margin_loss_input_shape(input)
    if target.dim() > 1 or target.numel() != samples:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{samples}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got {list(weight.shape)}")
    _check_long_target(target)
    # Checked on the host only (a device's gather reports a bad index itself), as F.one_hot does.
    if target.device.type == "cpu" and target.numel():
        low, high = _index_bounds(target, "F.multi_margin_loss")
        if low < 0 or high >= classes:
            raise RuntimeError("target out of range")
    x, y = input.reshape(samples, classes), target.reshape(samples, 1)
    h = (margin - x.gather(1, y) + x).relu()  # the kernel counts z > 0 only, so z == 0 passes no gradient
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * tandem.index_select(weight, 0, y.reshape(-1)).unsqueeze(1)
    is_target = tandem.arange(classes, device=input.device) == y  # the target class itself is skipped
    loss = tandem.where(is_target, 0, h).sum(1) / classes
    return _reduce(loss if target.dim() else loss.reshape(()), reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample: the sum over its targets y (the entries before the first -1) and non-target classes j of
    max(0, 1 - (x[y] - x[j])), over C."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", multilabel_margin_loss, input, target, size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    samples, classes = _margin_loss_input_shape(input)
    if input.dim() <= 1:
        consistent = target.dim() <= 1 and target.numel() == classes
    else:
        consistent = tuple(target.shape) == tuple(input.shape)
    if not consistent:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    if input.dtype in (tandem.float16, tandem.bfloat16) and input.device.type == "cpu" and input.numel():
        # PyTorch's CPU kernel takes float and double only; it reads the target's bounds before it dispatches
        if not (target.is_floating_point() or target.is_complex() or target.dtype == tandem.bool):
            low, high = _index_bounds(target, "F.multilabel_margin_loss")
            if low < -1 or high >= classes:
                raise RuntimeError("argument #2 'target' is out of range")
        raise NotImplementedError(f"\"multilabel_margin_loss_forward_out_frame\" not implemented for "
                                  f"'{input.dtype._scalar_type_name}'\nhint: compute the loss in float32, e.g. "
                                  "input.float()")
    _check_long_target(target)
    if target.numel():  # PyTorch reads these bounds on every device too
        low, high = _index_bounds(target, "F.multilabel_margin_loss")
        if low < -1 or high >= classes:
            raise RuntimeError("argument #2 'target' is out of range")
    x, y = input.reshape(samples, classes), target.reshape(samples, classes)
    listed = (y == -1).cumsum(1) == 0  # the slots before the first -1
    y = tandem.where(listed, y, 0)
    classes_range = tandem.arange(classes, device=input.device)
    is_target = ((y.unsqueeze(2) == classes_range) & listed.unsqueeze(2)).any(1)  # (samples, classes)
    # z[n, slot, j] = 1 - x[n, y[n, slot]] + x[n, j]; only listed slots against non-target classes count.
    z = (1 - x.gather(1, y).unsqueeze(2) + x.unsqueeze(1)).relu()
    counted = listed.unsqueeze(2) & tandem.logical_not(is_target).unsqueeze(1)
    loss = tandem.where(counted, z, 0).sum((1, 2)) / classes
    return _reduce(loss if input.dim() == 2 else loss.reshape(()), reduction)


def _broadcast_pair(a, b):
    """a and b expanded to their common shape (PyTorch's expand_outplace), with PyTorch's mismatch message."""
    ndim = max(a.dim(), b.dim())
    shape = []
    for i in range(ndim):
        sa = a.size(i - ndim) if i - ndim >= -a.dim() else 1
        sb = b.size(i - ndim) if i - ndim >= -b.dim() else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                               f"non-singleton dimension {i}")
        shape.append(sb if sa == 1 else sa)
    return a.expand(shape), b.expand(shape)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """<x1 / max(|x1|, eps), x2 / max(|x2|, eps)> along dim; normalising first keeps the result in [-1, 1]."""
    if _amp_active():  # PyTorch's autocast list: cuda fp32
        return _amp_run("cuda_fp32", cosine_similarity, x1, x2, dim, eps)
    dtype = tandem.result_type(x1, x2)
    if not dtype.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{dtype._scalar_type_name}")
    if not eps >= 0:
        raise RuntimeError(f"eps must be non-negative, got: {eps:g}")
    x1, x2 = _broadcast_pair(x1 if x1.is_floating_point() else x1.to(dtype),
                             x2 if x2.is_floating_point() else x2.to(dtype))
    norm1 = tandem.norm(x1, 2, dim, keepdim=True).clone()
    norm2 = tandem.norm(x2, 2, dim, keepdim=True).clone()
    with tandem.no_grad():  # as PyTorch: the clamp is invisible to autograd
        norm1.clamp_(min=eps)
        norm2.clamp_(min=eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps over the last dim (eps keeps the norm's gradient finite at x1 == x2)."""
    return tandem.norm(x1 - x2 + eps, p, max(x1.dim(), x2.dim()) - 1, keepdim=keepdim)


def _check_triplet_dims(anchor, positive, negative):
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")


def _check_margin(margin):
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(a, p) - d(a, n)) with the pairwise p-norm distance; swap uses min(d(a, n), d(p, n))."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", triplet_margin_loss,
                        anchor, positive, negative, margin, p, eps, swap, size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_margin(margin)
    _check_triplet_dims(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = tandem.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + dist_pos - dist_neg).clamp(min=0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """triplet_margin_loss with any distance function (pairwise_distance when None)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_margin(margin)
    _check_triplet_dims(anchor, positive, negative)
    distance = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = tandem.minimum(dist_neg, distance(positive, negative))
    return _reduce((margin + dist_pos - dist_neg).clamp(min=0), reduction)



_CTC_CHECKS = " (while checking arguments for ctc_loss_allocate_outputs)"
# Log-probability of an impossible path. Finite, unlike ATen's -inf, so that a logsumexp over impossible paths
# only has finite gradients (which are 0); any log-likelihood below half of it means no alignment exists.
_CTC_IMPOSSIBLE = -1e30


def _host_lengths(lengths, name):
    """A length argument (tensor, list or tuple of ints) as a list of Python ints."""
    if isinstance(lengths, tandem.Tensor):
        if lengths.is_floating_point() or lengths.dtype == tandem.bool:
            raise RuntimeError(f"{name} must be integral")
        with _crossing("F.ctc_loss"):  # PyTorch reads the lengths on the host too
            return lengths.reshape(-1).tolist()
    return [int(v) for v in lengths]


def _check_ctc_arguments(targets, input_lengths, target_lengths, frames):
    """PyTorch's checks of the targets and lengths, in its order (ctc_loss_allocate_outputs)."""
    if targets.dim() not in (1, 2):
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional tensor for argument #2 "
                           f"'targets'{_CTC_CHECKS}")
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {length}{_CTC_CHECKS}")
    longest = max(target_lengths, default=0)
    expected = sum(target_lengths) if targets.dim() == 1 else len(target_lengths)
    if targets.size(0) != expected:
        raise RuntimeError(f"Expected tensor to have size {expected} at dimension 0, but got size {targets.size(0)} "
                           f"for argument #2 'targets'{_CTC_CHECKS}")
    if targets.dim() == 2 and targets.size(1) < longest:
        raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                           f"{targets.size(1)} for argument #2 'targets'{_CTC_CHECKS}")
    for length in input_lengths:
        if not 0 <= length <= frames:
            bound = "at least 0" if length < 0 else f"at most {frames}"
            raise RuntimeError(f"Expected input_lengths to have value {bound}, but got value {length}{_CTC_CHECKS}")


def _ctc_padded_targets(targets, target_lengths, device):
    """The targets as a (batch, longest target) int64 tensor on device; entries past a target's end read entry 0."""
    batch, longest = len(target_lengths), max(target_lengths, default=0)
    targets = targets.to(device, tandem.int64)
    # Entry (n, s) is a row of the padded form, or an offset into the concatenated form.
    offsets = [sum(target_lengths[:n]) for n in range(batch)] if targets.dim() == 1 else [0] * batch
    index = tandem.tensor([[offsets[n] + s if s < target_lengths[n] else 0 for s in range(longest)]
                           for n in range(batch)], dtype=tandem.int64).reshape(batch, longest).to(device)
    if not longest:
        return index
    return targets.gather(1, index) if targets.dim() == 2 else tandem.take(targets, index)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification: -log of the total probability of every alignment of the target
    (blanks between and around labels, repeats merged) to the input frames.

    The forward variable alpha runs over time as one batched logsumexp step per frame (a loop of tensor ops over
    the time axis), so autograd derives the backward pass.
    """
    _check_reduction(reduction)
    batched = log_probs.dim() == 3
    if not batched:
        log_probs = log_probs.unsqueeze(1)
    if log_probs.dtype in (tandem.float16, tandem.bfloat16):  # PyTorch's kernels (CPU and CUDA): float, double
        raise NotImplementedError(f"\"ctc_loss_{'cuda' if log_probs.device.type == 'cuda' else 'cpu'}\" not "
                                  f"implemented for '{log_probs.dtype._scalar_type_name}'\nhint: compute the loss "
                                  "in float32, e.g. log_probs.float()")
    if log_probs.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.dim()}-dimensional tensor for "
                           f"argument #1 'log_probs'{_CTC_CHECKS}")
    if log_probs.numel() == 0:  # PyTorch's kernels refuse an empty batch, time axis or label axis
        raise RuntimeError("log_probs tensor must not be empty")
    frames, batch, labels = log_probs.shape
    input_lengths = _host_lengths(input_lengths, "input_lengths")
    target_lengths = _host_lengths(target_lengths, "target_lengths")
    if not 0 <= blank < labels:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    _check_ctc_arguments(targets, input_lengths, target_lengths, frames)
    device, dtype = log_probs.device, log_probs.dtype
    padded = _ctc_padded_targets(targets, target_lengths, device)
    in_len = tandem.tensor(input_lengths, dtype=tandem.int64).to(device)
    tg_len = tandem.tensor(target_lengths, dtype=tandem.int64).to(device)
    longest = padded.size(1)
    states = 2 * longest + 1  # blank, label 1, blank, label 2, ..., blank
    state = tandem.arange(states, device=device)
    real = state.unsqueeze(0) < (2 * tg_len + 1).unsqueeze(1)
    blanks = tandem.full((batch, longest), blank, dtype=tandem.int64, device=device)
    ext = tandem.cat([tandem.stack([blanks, padded], 2).reshape(batch, 2 * longest),
                      tandem.full((batch, 1), blank, dtype=tandem.int64, device=device)], 1)
    # States past a sample's end would read padding (any value, even -1): make them blanks. They never feed a state
    # before them, so the value does not matter otherwise.
    ext = tandem.where(real, ext, blank)
    # A label state (odd) may be reached from two states back (skipping a blank) unless it repeats the label before
    # it. By position, not value, as PyTorch: a target that holds the blank index is still a label state.
    two_back = tandem.cat([tandem.full((batch, 2), -1, dtype=tandem.int64, device=device), ext], 1)
    two_back = two_back.narrow(1, 0, states)
    can_skip = (state % 2 == 1) & (ext != two_back)
    emit = log_probs.gather(2, ext.unsqueeze(0).expand(frames, batch, states))  # (frames, batch, states)
    impossible1 = tandem.full((batch, 1), _CTC_IMPOSSIBLE, dtype=dtype, device=device)
    impossible2 = tandem.full((batch, 2), _CTC_IMPOSSIBLE, dtype=dtype, device=device)
    alpha = tandem.where(state < 2, emit[0], _CTC_IMPOSSIBLE)
    for t in range(1, frames):
        from_prev = tandem.cat([impossible1, alpha.narrow(1, 0, states - 1)], 1)
        from_skip = tandem.cat([impossible2, alpha], 1).narrow(1, 0, states)
        from_skip = tandem.where(can_skip, from_skip, _CTC_IMPOSSIBLE)
        stepped = tandem.logsumexp(tandem.stack([alpha, from_prev, from_skip]), 0) + emit[t]
        alpha = tandem.where((in_len > t).unsqueeze(1), stepped, alpha)
    # The path ends on the last label or the blank after it (only the blank for an empty target).
    last = alpha.gather(1, (2 * tg_len).unsqueeze(1)).squeeze(1)
    before = alpha.gather(1, (2 * tg_len - 1).clamp(min=0).unsqueeze(1)).squeeze(1)
    before = tandem.where(tg_len > 0, before, _CTC_IMPOSSIBLE)
    log_likelihood = tandem.logsumexp(tandem.stack([last, before]), 0)
    nll = tandem.where(log_likelihood < _CTC_IMPOSSIBLE / 2, math.inf, -log_likelihood)
    # No frames: probability 1 for the empty target, 0 for any other.
    nll = tandem.where(in_len == 0, tandem.full_like(nll, math.inf).masked_fill(tg_len == 0, 0), nll)
    # PyTorch's backward returns exp(log_probs) - posterior, the gradient for logits under a log_softmax, not
    # d nll / d log_probs (-posterior); the two agree after a log_softmax. Adding mass - mass.detach() (0 in value)
    # gives PyTorch's gradient for any log_probs.
    in_frame = (tandem.arange(frames, device=device).unsqueeze(1) < in_len).unsqueeze(2)
    mass = (tandem.exp(log_probs) * in_frame).sum((0, 2))
    nll = nll + (mass - mass.detach())
    if zero_infinity:
        nll = tandem.where(nll == math.inf, 0.0, nll)
    if reduction == "mean":
        return (nll / tg_len.clamp(min=1).to(dtype)).mean()
    if reduction == "sum":
        return nll.sum()
    return nll if batched else nll.squeeze(0)
