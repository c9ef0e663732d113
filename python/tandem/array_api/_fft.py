"""The Array API standard's fft extension over tandem.fft: the same functions with the standard's keyword names
(axis/axes for PyTorch's dim, keyword-only arguments after the array)."""
from .. import fft as _fft

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _one(name):
    f = getattr(_fft, name)

    def fn(x, /, *, n=None, axis=-1, norm="backward"):
        return f(x, n=n, dim=axis, norm=norm)

    fn.__name__ = fn.__qualname__ = name
    return fn


def _many(name):
    f = getattr(_fft, name)

    def fn(x, /, *, s=None, axes=None, norm="backward"):
        return f(x, s=s, dim=axes, norm=norm)

    fn.__name__ = fn.__qualname__ = name
    return fn


fft, ifft, rfft, irfft, hfft, ihfft = (_one(n) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))
fftn, ifftn, rfftn, irfftn = (_many(n) for n in ("fftn", "ifftn", "rfftn", "irfftn"))


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    return _fft.fftfreq(n, d, dtype=dtype, device=device)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    return _fft.rfftfreq(n, d, dtype=dtype, device=device)


def fftshift(x, /, *, axes=None):
    return _fft.fftshift(x, dim=axes)


def ifftshift(x, /, *, axes=None):
    return _fft.ifftshift(x, dim=axes)
