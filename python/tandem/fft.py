"""tandem.fft: PyTorch's torch.fft on every device (FFTW on the CPU, cuFFT on CUDA; docs/fft.md).

The transforms are three C++ ops (_C._fft_c2c, _fft_r2c, _fft_c2r, as PyTorch's); this module only does the
argument bookkeeping PyTorch's front ends do: dtype promotion, n/s and dim/norm checks with PyTorch's
messages, zero-padding or trimming the input to n/s, and out=.
"""
import math as _math
import operator as _operator
from collections.abc import Sequence as _Sequence

from . import _C

__all__ = [
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft",
    "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
    "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]

# PyTorch's fft_norm_mode: 0 none, 1 by 1/sqrt(n), 2 by 1/n.
_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2


def _tandem():
    from . import Tensor, get_default_dtype, float32, float64  # late: this module loads inside tandem's import
    return Tensor, get_default_dtype, float32, float64


def _check_input(fname, input):
    if not isinstance(input, _tandem()[0]):
        from ._dim_args import _tp_name  # PyTorch prints tp_name: numpy.ndarray
        raise TypeError(f"fft_{fname}(): argument 'input' (position 1) must be Tensor, not {_tp_name(input)}")


def _check_int(fname, name, value, optional=True):
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"fft_{fname}(): argument '{name}' must be int, not {type(value).__name__}")


def _int_list(fname, name, value):
    """s or dim: an int or a sequence of ints (PyTorch's int[] arguments), as a tuple."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if isinstance(value, _Sequence) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return tuple(value)
    raise TypeError(f"fft_{fname}(): argument '{name}' must be tuple of ints, not {type(value).__name__}")


def _norm_mode(fname, norm, forward):
    if isinstance(norm, bytes):  # PyTorch's parser takes bytes for a str argument
        norm = norm.decode()
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"fft_{fname}(): argument 'norm' must be str, not {type(norm).__name__}")
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"\nhint: norm is "backward", "ortho" or "forward"')


def _promote(fname, x, require_complex):
    """PyTorch's promote_type_fft: integers and bools to the default float dtype; float16/bfloat16 refused
    (as PyTorch on the CPU; tandem's FFTs are float32/float64 on every device)."""
    if x.dtype.is_complex:
        return x
    _, get_default_dtype, float32, float64 = _tandem()
    dtype = x.dtype if x.dtype.is_floating_point else get_default_dtype()
    if dtype not in (float32, float64):
        raise NotImplementedError(f"Unsupported dtype {dtype._scalar_type_name}\n"
                                  "hint: tandem.fft takes float32/float64 (and complex) tensors: convert with .float()")
    if require_complex:
        dtype = {float32: _complex(64), float64: _complex(128)}[dtype]
    return x if x.dtype == dtype else x.to(dtype)


def _complex(bits):
    from . import complex64, complex128
    return complex64 if bits == 64 else complex128


def _wrap_dim(d, ndim):
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
    return d % ndim


def _check_points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(x, dims, sizes):
    """x zero-padded or trimmed (from index 0) to sizes[i] along dims[i], as PyTorch's resize_fft_input."""
    pad = [0] * (2 * x.dim())
    padded = False
    for d, n in zip(dims, sizes):
        if x.shape[d] > n:
            x = x.narrow(d, 0, n)
        elif x.shape[d] < n:
            pad[2 * (x.dim() - 1 - d) + 1] = n - x.shape[d]
            padded = True
    if padded:
        from .nn.functional import pad as _pad
        x = _pad(x, pad)
    return x


def _finish(fname, result, out, input):
    return result if out is None else _C._fft_into_out(fname, result, out, input)


def _nd_name(fname):
    """The name PyTorch's messages give a 2-D transform: its n-D form's (fft2/ifft2/fftn/ifftn share fftn's)."""
    if fname in ("fft2", "ifft2", "ifftn"):
        return "fftn"
    return fname[:-1] + "n" if fname.endswith("2") else fname


def _conj(x):
    """conj(x) laid out as x (PyTorch's conj keeps the input's strides; tandem's complex unary kernels write
    row-major): conjugated in x's memory order through a permuted view, then permuted back."""
    from . import conj
    order = sorted(range(x.dim()), key=lambda d: -x.stride(d))
    return conj(x.permute(order)).permute([order.index(d) for d in range(x.dim())])


# ---- one-dimensional transforms -------------------------------------------------------------------------


def _one_dim(fname, input, n, dim):
    _check_input(fname, input)
    _check_int(fname, "n", n)
    _check_int(fname, "dim", dim, optional=False)
    return _wrap_dim(dim, input.dim())


def _c2c(fname, input, n, dim, norm, forward, out):
    d = _one_dim(fname, input, n, dim)
    mode = _norm_mode(fname, norm, forward)
    x = _promote(fname, input, require_complex=True)
    size = n if n is not None else x.shape[d]
    _check_points(size)
    if n is not None:
        x = _resize(x, (d,), (n,))
    return _finish(fname, _transform(_C._fft_c2c, x, [d], mode, forward), out, input)


def _r2c(fname, input, n, dim, norm, forward, out):
    d = _one_dim(fname, input, n, dim)
    if input.dtype.is_complex:
        raise TypeError(f"{fname} expects a real input tensor, but got {input.dtype._scalar_type_name}\n"
                        f"hint: take the real part first (x.real), or use tandem.fft.{'fft' if forward else 'ifft'}")
    mode = _norm_mode(fname, norm, forward)
    x = _promote(fname, input, require_complex=False)
    size = n if n is not None else x.shape[d]
    _check_points(size)
    if n is not None:
        x = _resize(x, (d,), (n,))
    r = _transform(_C._fft_r2c, x, [d], mode, True)
    if not forward and out is not None and out.dtype.is_complex and out.dtype != r.dtype:
        # (ihfft conjugates into out, which must have the result's dtype: PyTorch's conj_physical_ check)
        raise RuntimeError(f"Found dtype {out.dtype._scalar_type_name} but expected {r.dtype._scalar_type_name}")
    return _finish(fname, r if forward else _conj(r), out, input)


def _c2r(fname, input, n, dim, norm, forward, out):
    d = _one_dim(fname, input, n, dim)
    mode = _norm_mode(fname, norm, forward)
    x = _promote(fname, input, require_complex=True)
    size = n if n is not None else 2 * (x.shape[d] - 1)
    _check_points(size)
    if n is not None:
        x = _resize(x, (d,), (n // 2 + 1,))
    if forward:  # hfft: the Hermitian signal's transform is the inverse one of its conjugate
        x = _conj(x)
    return _finish(fname, _transform(_C._fft_c2r, x, [d], mode, size), out, input)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    return _c2c("fft", input, n, dim, norm, True, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    return _c2c("ifft", input, n, dim, norm, False, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _r2c("rfft", input, n, dim, norm, True, out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _r2c("ihfft", input, n, dim, norm, False, out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _c2r("irfft", input, n, dim, norm, False, out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _c2r("hfft", input, n, dim, norm, True, out)


# ---- n-dimensional transforms ---------------------------------------------------------------------------


def _shape_and_dims(fname, input, s, dim):
    """PyTorch's canonicalize_fft_shape_and_dim_args: (signal sizes, wrapped dims)."""
    _check_input(fname, input)
    s = _int_list(fname, "s", s)
    dim = _int_list(fname, "dim", dim)
    ndim = input.dim()
    if dim is not None:
        dims = tuple(_wrap_dim(d, ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        if dim is None:
            dims = tuple(range(ndim - len(s), ndim))
        shape = tuple(n if n != -1 else input.shape[d] for n, d in zip(s, dims))
    elif dim is None:
        dims = tuple(range(ndim))
        shape = tuple(input.shape)
    else:
        shape = tuple(input.shape[d] for d in dims)
    for n in shape:
        _check_points(n)
    return shape, dims, s


def _by_stride(x, dims, keep_last=False):
    """dims ordered as PyTorch's _sort_dims orders them before transforming, by the input's strides, largest first
    (stable): the C++ transform lays its output out after the order it is given the dims in, and PyTorch's output
    layout follows this order (fftn(x, dim=(-1, -2)) of a contiguous x is contiguous)."""
    strides = x.stride()
    if keep_last:  # the halved dim of a real transform stays last
        return sorted(dims[:-1], key=lambda d: -strides[d]) + [dims[-1]]
    return sorted(dims, key=lambda d: -strides[d])


def _transform(op, x, dims, *args):
    """op(x, dims, *args) laid out as PyTorch's _exec_fft lays its output out: the untransformed (batch) dims
    first, ordered by x's strides (largest first), then the transformed dims in the order given. The C++ ops keep
    the batch dims in their natural order, so x is handed over as a permuted view with them in stride order, and
    the result permuted back (views both ways: no copy, and autograd sees two permutes)."""
    batch = sorted((d for d in range(x.dim()) if d not in dims), key=lambda d: -x.stride(d))
    if batch == sorted(batch):  # already in natural order (a row-major input): the C++ op's own layout is PyTorch's
        return op(x, list(dims), *args)
    order = batch + list(dims)
    result = op(x.permute(order), list(range(len(batch), x.dim())), *args)
    return result.permute([order.index(d) for d in range(x.dim())])


def _c2r_shape_and_dims(fname, input, s, dim):
    """As _shape_and_dims, with the last dim's real output length, the input trimmed/padded to its half."""
    shape, dims, s = _shape_and_dims(fname, input, s, dim)
    if not dims:
        raise RuntimeError(f"{_nd_name(fname)} must transform at least one axis")
    last = 2 * (input.shape[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    _check_points(last)
    return shape[:-1] + (last // 2 + 1,), dims, last


def _cnn(fname, input, s, dim, norm, forward, out):
    shape, dims, _ = _shape_and_dims(fname, input, s, dim)
    mode = _norm_mode(fname, norm, forward)
    x = _resize(_promote(fname, input, require_complex=True), dims, shape)
    return _finish(_nd_name(fname), _transform(_C._fft_c2c, x, _by_stride(x, dims), mode, forward), out, input)


def _rnn(fname, input, s, dim, norm, forward, out):
    """rfftn (forward) and ihfftn (the conjugate of the inverse)."""
    _check_input(fname, input)
    if input.dtype.is_complex:
        # PyTorch's wording: rfft2 reports itself as rfftn, ihfftn/ihfft2 with its generic dtype check.
        msg = ("rfftn expects a real-valued input tensor, but got " if forward
               else "Only supports floating-point dtypes, but found: ")
        raise TypeError(f"{msg}{input.dtype._scalar_type_name}\n"
                        "hint: take the real part first (x.real), or use tandem.fft.fftn/ifftn")
    shape, dims, _ = _shape_and_dims(fname, input, s, dim)
    if not dims:
        raise RuntimeError(f"{_nd_name(fname)} must transform at least one axis")
    mode = _norm_mode(fname, norm, forward)
    x = _resize(_promote(fname, input, require_complex=False), dims, shape)
    if forward:
        r = _transform(_C._fft_r2c, x, _by_stride(x, dims, keep_last=True), mode, True)
        return _finish(_nd_name(fname), r, out, input)
    # ihfftn: the conjugate of the onesided transform of the last dim, then the inverse c2c over the others
    # (each step normalized by its own signal size: together, by the whole one).
    r = _conj(_transform(_C._fft_r2c, x, [dims[-1]], mode, True))
    if len(dims) > 1:
        r = _transform(_C._fft_c2c, r, _by_stride(r, dims[:-1]), mode, False)
    return _finish(_nd_name(fname), r, out, input)


def _c2rn(fname, input, s, dim, norm, forward, out):
    """irfftn (inverse) and hfftn (forward, of the conjugate)."""
    _check_input(fname, input)
    shape, dims, last = _c2r_shape_and_dims(fname, input, s, dim)
    mode = _norm_mode(fname, norm, forward)
    x = _resize(_promote(fname, input, require_complex=True), dims, shape)
    if not forward:
        r = _transform(_C._fft_c2r, x, _by_stride(x, dims, keep_last=True), mode, last)
        return _finish(_nd_name(fname), r, out, input)
    # hfftn: the forward c2c over all dims but the last, then the c2r of the conjugate over the last.
    if len(dims) > 1:
        x = _transform(_C._fft_c2c, x, _by_stride(x, dims[:-1]), mode, True)
    return _finish(_nd_name(fname), _transform(_C._fft_c2r, _conj(x), [dims[-1]], mode, last), out, input)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    return _cnn("fftn", input, s, dim, norm, True, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    return _cnn("ifftn", input, s, dim, norm, False, out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _rnn("rfftn", input, s, dim, norm, True, out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _rnn("ihfftn", input, s, dim, norm, False, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _c2rn("irfftn", input, s, dim, norm, False, out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _c2rn("hfftn", input, s, dim, norm, True, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _cnn("fft2", input, s, dim, norm, True, out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _cnn("ifft2", input, s, dim, norm, False, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _rnn("rfft2", input, s, dim, norm, True, out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _rnn("ihfft2", input, s, dim, norm, False, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _c2rn("irfft2", input, s, dim, norm, False, out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _c2rn("hfft2", input, s, dim, norm, True, out)


# ---- helpers --------------------------------------------------------------------------------------------


def _freq_dtype(fname, dtype):
    _, get_default_dtype, _, _ = _tandem()
    dtype = get_default_dtype() if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{fname} requires a floating point or complex dtype\n"
                           "hint: pass dtype=tandem.float32 (or leave it out for the default float dtype)")
    return dtype


def _freq_scale(n, d):
    # 1 / (n * d) as PyTorch's C++ computes it: an infinity (not ZeroDivisionError) when n * d is 0.
    nd = n * float(d)
    return 1.0 / nd if nd != 0 else _math.copysign(_math.inf, nd)


def _freq_args(fname, n, layout):
    """n as an int: PyTorch's parser also takes a one-element integer tensor (not a bool or a float)."""
    try:
        if isinstance(n, (bool, float)):
            raise TypeError
        n = _operator.index(n)
    except TypeError:
        kind = "Tensor" if isinstance(n, _tandem()[0]) else type(n).__name__
        raise TypeError(f"fft_{fname}(): argument 'n' (position 1) must be int, not {kind}") from None
    if layout is not None:
        from . import strided
        if layout is not strided:
            raise NotImplementedError(f"{fname}: only layout=tandem.strided is supported")
    return n


def _arange(count, dtype, device):
    """PyTorch's arange(count) step of fftfreq: its errors for a negative count and for complex dtypes."""
    if count < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {count}: [{count}]")
    if dtype.is_complex:
        where = "cuda" if device is not None and "cuda" in str(device) else "cpu"
        raise NotImplementedError(f'"arange_{where}" not implemented for \'{dtype._scalar_type_name}\'\n'
                                  "hint: make the frequencies real (the default dtype) and convert: .to(dtype)")
    from . import arange
    return arange(count, dtype=dtype, device=device)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    n = _freq_args("fftfreq", n, layout)
    dtype = _freq_dtype("fftfreq", dtype if out is None or dtype is not None else out.dtype)
    r = _arange(n, dtype, device if out is None or device is not None else out.device)
    if n > (n + 1) // 2:
        r[(n + 1) // 2:] -= n
    r = r * _freq_scale(n, d)
    if out is not None:
        return _C._fft_into_out("fftfreq", r, out, r)
    return r.requires_grad_(requires_grad) if requires_grad else r


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    n = _freq_args("rfftfreq", n, layout)
    dtype = _freq_dtype("rfftfreq", dtype if out is None or dtype is not None else out.dtype)
    half = abs(n) // 2 * (1 if n >= 0 else -1)  # C++'s n / 2 (truncated), as PyTorch computes it
    r = _arange(half + 1, dtype, device if out is None or device is not None else out.device)
    r = r * _freq_scale(n, d)
    if out is not None:
        return _C._fft_into_out("rfftfreq", r, out, r)
    return r.requires_grad_(requires_grad) if requires_grad else r


def _shift(fname, input, dim, half):
    from . import roll
    if dim is None:
        dims = list(range(input.dim()))
    else:
        dims = [_wrap_dim(d, input.dim()) for d in _int_list(fname, "dim", dim)]
    return roll(input, [half(input.shape[d]) for d in dims], dims)  # (roll reports a 0-d input's missing shifts)


def fftshift(input, dim=None):
    return _shift("fftshift", input, dim, lambda n: n // 2)


def ifftshift(input, dim=None):
    return _shift("ifftshift", input, dim, lambda n: (n + 1) // 2)
