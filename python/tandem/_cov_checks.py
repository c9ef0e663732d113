"""PyTorch's argument checks for cov/corrcoef and trapezoid/cumulative_trapezoid, in its order and with its
messages: the compositions in _compositions_extra.py compute the values, these refuse what PyTorch refuses
(before, weights of the wrong rank, dtype, length or sign were broadcast or used as they came)."""
from . import _C


def _scalar_type(t):
    """PyTorch's ScalarType name of t's dtype (Float, Long, Bool, ComplexDouble): 'tandem.LongTensor' -> 'Long'."""
    return t.type().rsplit(".", 1)[1][:-len("Tensor")]


def _check_weights(name, w, observations, integral):
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.dim()} "
                           "dimensions")
    if integral and (w.is_floating_point() or w.dtype.is_complex or w.dtype == _C.bool):
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with "
                           f"{_scalar_type(w)} dtype")
    if not integral and not w.is_floating_point():
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got {name} with "
                           f"{_scalar_type(w)} dtype")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {w.numel()} != {observations}")
    if w.numel() and not bool((w >= 0).all()):  # one synchronisation; a NaN weight fails it too, as PyTorch's
        raise RuntimeError(f"cov(): {name} cannot be negative")


def check_cov(input, fweights, aweights, name="cov"):
    """Refuses cov's input (more than two dims, bool) and weights as PyTorch does."""
    if input.dim() > 2:
        raise RuntimeError(f"{name}(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    if input.dtype == _C.bool:
        raise NotImplementedError(f"{name}(): bool dtype is not supported for input")
    observations = input.shape[-1] if input.dim() else 1
    for weight_name, w, integral in (("fweights", fweights, True), ("aweights", aweights, False)):
        if w is not None:
            if not isinstance(w, _C.Tensor):
                from ._dim_args import _tp_name  # PyTorch prints tp_name: numpy.ndarray
                raise TypeError(f"cov(): argument '{weight_name}' must be Tensor, not {_tp_name(w)}")
            _check_weights(weight_name, w, observations, integral)


def check_integration(name, y, x, dim):
    """trapezoid's and cumulative_trapezoid's refusals: bool inputs, a 0-d y, a 1-d x of another length."""
    if y.dtype == _C.bool or (isinstance(x, _C.Tensor) and x.dtype == _C.bool):
        what = "`x` or `y`" if isinstance(x, _C.Tensor) else "`y`"
        raise NotImplementedError(f"{name}: received a bool input for {what}, but bool is not supported")
    if y.dim() == 0:
        if name == "cumulative_trapezoid":
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if isinstance(x, _C.Tensor) and x.dim() == 1 and -y.dim() <= dim < y.dim() and x.shape[0] != y.shape[dim]:
        raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
