"""The window functions of torch.signal.windows as compositions of tandem ops (so every device and autograd):
each samples its formula on a linspace of M points. sym=True gives the symmetric window (filter design);
sym=False the periodic one (spectral analysis), which is the symmetric window of M + 1 points without its last.
Checks, messages and the order of the arithmetic are PyTorch's, so the values agree to rounding."""
import math
from collections.abc import Iterable

import tandem


def _checked(name, M, dtype, layout):
    """The dtype to use (the default dtype for None), after PyTorch's checks of M, dtype and layout."""
    if isinstance(M, bool) or not isinstance(M, int):
        raise TypeError(f"{name}(): window length M must be an int, got {type(M).__name__}\nhint: pass the number of "
                        "points, e.g. int(M)")
    dtype = tandem.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not tandem.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (tandem.float32, tandem.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M, dtype, device, requires_grad):
    """The window of 0 points (empty) or 1 point ([1.]), which every window function returns as is."""
    make = tandem.empty if M == 0 else tandem.ones
    return make((M,), dtype=dtype, device=device, requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=tandem.strided, device=None,
                requires_grad=False):
    """w_n = exp(-|n - center| / tau)."""
    dtype = _checked("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / tau
    k = tandem.linspace(-center * scale, (-center + (M - 1)) * scale, M, dtype=dtype, device=device,
                        requires_grad=requires_grad)
    return tandem.exp(-tandem.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=tandem.strided, device=None, requires_grad=False):
    """w_n = sin(pi (n + 1/2) / M) (the sine window)."""
    dtype = _checked("cosine", M, dtype, layout)
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return tandem.sin(tandem.linspace(0.5 * step, (0.5 + (M - 1)) * step, M, dtype=dtype, device=device,
                                      requires_grad=requires_grad))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=tandem.strided, device=None, requires_grad=False):
    """w_n = exp(-(n - (M - 1) / 2)^2 / (2 std^2))."""
    dtype = _checked("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / (std * math.sqrt(2))
    k = tandem.linspace(start * scale, (start + (M - 1)) * scale, M, dtype=dtype, device=device,
                        requires_grad=requires_grad)
    return tandem.exp(-(k ** 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=tandem.strided, device=None, requires_grad=False):
    """w_n = I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)."""
    dtype = _checked("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _trivial(M, dtype, device, requires_grad)
    beta = tandem.tensor(beta, dtype=dtype, device=device)
    step = 2.0 * beta / (M if not sym else M - 1)
    end = tandem.minimum(beta, -beta + (M - 1) * step)  # the last point rounded past beta would make a NaN
    k = tandem.linspace(-beta, end, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return tandem.i0(tandem.sqrt(beta * beta - tandem.pow(k, 2))) / tandem.i0(beta)


def general_cosine(M, *, a, sym=True, dtype=None, layout=tandem.strided, device=None, requires_grad=False):
    """w_n = sum_i (-1)^i a_i cos(2 pi i n / (M - 1))."""
    dtype = _checked("general_cosine", M, dtype, layout)
    if M <= 1:
        return _trivial(M, dtype, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    step = 2 * math.pi / (M if not sym else M - 1)
    k = tandem.linspace(0, (M - 1) * step, M, dtype=dtype, device=device, requires_grad=requires_grad)
    signed = tandem.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device,
                           requires_grad=requires_grad)
    order = tandem.arange(signed.shape[0], dtype=dtype, device=device, requires_grad=requires_grad)
    return (signed.unsqueeze(-1) * tandem.cos(order.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=tandem.strided, device=None,
                    requires_grad=False):
    """w_n = alpha - (1 - alpha) cos(2 pi n / (M - 1))."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=tandem.strided, device=None, requires_grad=False):
    """general_hamming with alpha = 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=tandem.strided, device=None, requires_grad=False):
    """general_hamming with alpha = 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=tandem.strided, device=None, requires_grad=False):
    """general_cosine with a = [0.42, 0.5, 0.08]."""
    dtype = _checked("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=tandem.strided, device=None, requires_grad=False):
    """w_n = 1 - |2n / (M - 1) - 1| (triangular, zero at both ends)."""
    dtype = _checked("bartlett", M, dtype, layout)
    if M <= 1:
        return _trivial(M, dtype, device, requires_grad)
    step = 2 / (M if not sym else M - 1)
    k = tandem.linspace(-1.0, -1 + (M - 1) * step, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return 1 - tandem.abs(k)


def nuttall(M, *, sym=True, dtype=None, layout=tandem.strided, device=None, requires_grad=False):
    """general_cosine with Nuttall's four coefficients (minimum 4-term Blackman-Harris)."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)
