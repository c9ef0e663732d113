"""Helpers shared by the distribution families: broadcasting parameters, probs <-> logits, cached properties."""
from numbers import Number

import tandem
from tandem.nn.functional import softplus

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant


def broadcast_all(*values):
    """Broadcasts tensors and Python numbers to one shape; numbers take the dtype and device of the first tensor
    (the default dtype on cpu when there is none)."""
    if not all(isinstance(v, (tandem.Tensor, Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, torch.Tensor or objects implementing "
            "__torch_function__."
        )
    options = {"dtype": tandem.get_default_dtype()}
    for v in values:
        if isinstance(v, tandem.Tensor):
            options = {"dtype": v.dtype, "device": v.device}
            break
    tensors = [v if isinstance(v, tandem.Tensor) else tandem.tensor(v, **options) for v in values]
    try:
        shape = tandem.broadcast_shapes(*(t.shape for t in tensors))
    except RuntimeError:
        tandem.broadcast_tensors(*tensors)  # raises PyTorch's error for broadcast_all ("size of tensor a ...")
        raise
    # a tensor already of the common shape is returned itself, as PyTorch does: a leaf parameter stays the
    # distribution's attribute (dist.loc is loc), not an expand view of it
    return tuple(t if t.shape == shape else t.expand(shape) for t in tensors)


def _standard_normal(shape, dtype, device):
    return tandem.randn(tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sums out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(*value.shape[: value.dim() - dim], -1).sum(-1)


def clamp_probs(probs):
    """Keeps probabilities inside the open interval (0, 1) by the dtype's eps, so their logs stay finite."""
    eps = tandem.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: a sigmoid for binary (Bernoulli-like) logits, else a softmax over the last dim."""
    if is_binary:
        return tandem.sigmoid(logits)
    return tandem.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities, clamped away from 0 and 1: log-odds if binary, else the log of the probs."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return tandem.log(ps_clamped) - tandem.log1p(-ps_clamped)
    return tandem.log(ps_clamped)


class lazy_property:
    """A property computed on first access and then stored on the instance (so it is computed once); reading it
    from the class gives back this descriptor, which Distribution's validation uses to skip unset parameters."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with tandem.enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value



def binary_cross_entropy_with_logits(logits, target):
    """Elementwise softplus(l) - t l, i.e. -log p(t) for a Bernoulli with logits l (no reduction).

    Written here rather than calling nn.functional's: that one's |x| and max(-x, 0) kinks give a wrong gradient at
    logits == 0 (probs 1/2), where this form's gradient sigmoid(l) - t is smooth.
    """
    return softplus(logits) - target * logits


def _tril_flat_index(n, diag, device):
    """Row-major flat positions (i * n + j) of the entries with j <= i + diag of an n x n matrix."""
    index = [i * n + j for i in range(n) for j in range(n) if j <= i + diag]
    return tandem.tensor(index, dtype=tandem.int64, device=device)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (up to diagonal ``diag``) of the last two dims, row by row, as a vector."""
    n = mat.shape[-1]
    return mat.flatten(-2).index_select(-1, _tril_flat_index(n, diag, mat.device))


def vec_to_tril_matrix(vec, diag=0):
    """Inverse of tril_matrix_to_vec: the n x n matrix (zeros elsewhere) whose lower triangle is ``vec``."""
    # solve n (n + 1) / 2 + diag-adjustment = len(vec) for the side n
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = tandem.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(
            f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
            + "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    index = _tril_flat_index(n, diag, vec.device)
    # a one-hot placement matrix keeps this one differentiable op on every device (no masked assignment)
    placement = tandem.nn.functional.one_hot(index, n * n).to(vec.dtype)
    return tandem.matmul(vec, placement).reshape(*vec.shape[:-1], n, n)
