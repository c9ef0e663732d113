"""tandem.fft: every transform with bad n/s/dim/norm (zero, negative, float, bool, past the rank, repeated), empty
and 0-d inputs, integer/bool/float16/bfloat16 inputs, complex inputs to the real transforms, odd lengths, padding
and trimming, non-contiguous inputs and out= of the wrong dtype or shape; fftfreq/rfftfreq and the shifts."""
from . import R, T

ONE_DIM = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
TWO_DIM = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2")
N_DIM = ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn")
# The transforms that take a real input (the rest take complex ones; real inputs are promoted).
REAL_IN = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}


def f(L, name):
    return getattr(L.fft, name)


def x(L, d, shape=(6,), name="fft", dtype=None):
    """A real input for the real transforms, a complex one for the others (unless dtype says otherwise)."""
    if dtype is None:
        dtype = "float32" if name in REAL_IN else "complex64"
    if dtype.startswith("complex"):
        real = "float32" if dtype == "complex64" else "float64"
        return L.complex(R(L, shape, d, real), R(L, shape, d, real, scale=2.0).flip(-1))
    return R(L, shape, d, dtype)


def out_dtype(L, name):
    """The dtype a transform returns for the float32 inputs above."""
    return L.float32 if name in ("irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn") else L.complex64


def _one_dim(name):
    return {
        "n_zero": lambda L, d: f(L, name)(x(L, d, name=name), n=0),
        "n_negative": lambda L, d: f(L, name)(x(L, d, name=name), n=-2),
        "n_float": lambda L, d: f(L, name)(x(L, d, name=name), n=4.0),
        "n_pad": lambda L, d: f(L, name)(x(L, d, name=name), n=9),
        "n_trim": lambda L, d: f(L, name)(x(L, d, name=name), n=3),
        "dim_past": lambda L, d: f(L, name)(x(L, d, (2, 3), name), dim=2),
        "dim_float": lambda L, d: f(L, name)(x(L, d, name=name), dim=0.0),
        "dim_tuple": lambda L, d: f(L, name)(x(L, d, (2, 3), name), dim=(0,)),
        "norm_bad": lambda L, d: f(L, name)(x(L, d, name=name), norm="unitary"),
        "norm_ortho": lambda L, d: f(L, name)(x(L, d, (5,), name), norm="ortho"),
        "norm_forward": lambda L, d: f(L, name)(x(L, d, (5,), name), norm="forward"),
        "empty": lambda L, d: f(L, name)(x(L, d, (0,), name)),
        "empty_n": lambda L, d: f(L, name)(x(L, d, (0,), name), n=4),
        "0dim": lambda L, d: f(L, name)(x(L, d, (), name)),
        "int": lambda L, d: f(L, name)(T(L, [1, 2, 3, 4], d)),
        "bool": lambda L, d: f(L, name)(T(L, [True, False, True], d)),
        "float16": lambda L, d: f(L, name)(x(L, d, (4,), dtype="float16")),
        "bfloat16": lambda L, d: f(L, name)(x(L, d, (4,), dtype="bfloat16")),
        "complex128": lambda L, d: f(L, name)(x(L, d, (5,), dtype="complex128")),
        "real_input": lambda L, d: f(L, name)(x(L, d, (5,), dtype="float32")),
        "complex_input": lambda L, d: f(L, name)(x(L, d, (5,), dtype="complex64")),
        "odd": lambda L, d: f(L, name)(x(L, d, (7,), name)),
        "non_contiguous": lambda L, d: f(L, name)(x(L, d, (4, 6), name).t(), dim=0),
        "not_tensor": lambda L, d: f(L, name)([1.0, 2.0]),
        "out_ok": lambda L, d: (lambda o: (f(L, name)(x(L, d, (6,), name), out=o), o)[1])(
            L.empty(0, device=d, dtype=out_dtype(L, name))),
        "out_wrong_dtype": lambda L, d: f(L, name)(x(L, d, (6,), name), out=L.empty(0, device=d, dtype=L.int64)),
        "out_complex128": lambda L, d: f(L, name)(x(L, d, (6,), name),
                                                  out=L.empty(0, device=d, dtype=L.complex128)),
        "out_wrong_shape": lambda L, d: (lambda o: (f(L, name)(x(L, d, (6,), name), out=o), o)[1])(
            L.empty(2, 2, device=d, dtype=out_dtype(L, name))),
        "requires_grad": lambda L, d: (lambda t: f(L, name)(t).abs().sum().backward() or t.grad)(
            x(L, d, (5,), name).requires_grad_()),
    }


def _two_dim(name):
    return {
        "1d_input": lambda L, d: f(L, name)(x(L, d, (6,), name)),
        "0dim": lambda L, d: f(L, name)(x(L, d, (), name)),
        "ok": lambda L, d: f(L, name)(x(L, d, (3, 4), name)),
        "s_len_1": lambda L, d: f(L, name)(x(L, d, (3, 4), name), s=(4,)),
        "s_len_3": lambda L, d: f(L, name)(x(L, d, (3, 4), name), s=(2, 3, 4)),
        "s_zero": lambda L, d: f(L, name)(x(L, d, (3, 4), name), s=(0, 4)),
        "s_minus_one": lambda L, d: f(L, name)(x(L, d, (3, 4), name), s=(-1, 6)),
        "s_pad_trim": lambda L, d: f(L, name)(x(L, d, (3, 4), name), s=(5, 3)),
        "dim_repeated": lambda L, d: f(L, name)(x(L, d, (3, 4), name), dim=(1, 1)),
        "dim_past": lambda L, d: f(L, name)(x(L, d, (3, 4), name), dim=(0, 2)),
        "dim_empty": lambda L, d: f(L, name)(x(L, d, (3, 4), name), dim=()),
        "s_dim_lengths_differ": lambda L, d: f(L, name)(x(L, d, (3, 4), name), s=(3, 4), dim=(1,)),
        "empty": lambda L, d: f(L, name)(x(L, d, (0, 4), name)),
        "int": lambda L, d: f(L, name)(T(L, [[1, 2], [3, 4]], d)),
        "float16": lambda L, d: f(L, name)(x(L, d, (2, 4), dtype="float16")),
        "out_wrong_dtype": lambda L, d: f(L, name)(x(L, d, (3, 4), name), out=L.empty(0, device=d,
                                                                                      dtype=L.int32)),
    }


def _n_dim(name):
    return {
        "ok": lambda L, d: f(L, name)(x(L, d, (2, 3, 4), name)),
        "0dim": lambda L, d: f(L, name)(x(L, d, (), name)),
        "s_without_dim": lambda L, d: f(L, name)(x(L, d, (2, 3, 4), name), s=(3, 4)),
        "s_longer_than_rank": lambda L, d: f(L, name)(x(L, d, (3, 4), name), s=(1, 3, 4)),
        "s_empty": lambda L, d: f(L, name)(x(L, d, (3, 4), name), s=()),
        "dim_empty": lambda L, d: f(L, name)(x(L, d, (3, 4), name), dim=()),
        "dim_repeated": lambda L, d: f(L, name)(x(L, d, (3, 4), name), dim=(0, 0)),
        "dim_past": lambda L, d: f(L, name)(x(L, d, (3, 4), name), dim=(5,)),
        "s_and_dim": lambda L, d: f(L, name)(x(L, d, (2, 3, 4), name), s=(5, 2), dim=(0, 2)),
        "s_dim_lengths_differ": lambda L, d: f(L, name)(x(L, d, (2, 3, 4), name), s=(5,), dim=(0, 2)),
        "empty": lambda L, d: f(L, name)(x(L, d, (2, 0), name)),
        "int": lambda L, d: f(L, name)(T(L, [[1, 2, 3], [4, 5, 6]], d)),
    }


CASES = {}
for _name in ONE_DIM:
    CASES.update({f"{_name}/{k}": v for k, v in _one_dim(_name).items()})
for _name in TWO_DIM:
    CASES.update({f"{_name}/{k}": v for k, v in _two_dim(_name).items()})
for _name in N_DIM:
    CASES.update({f"{_name}/{k}": v for k, v in _n_dim(_name).items()})

for _name in ("fftfreq", "rfftfreq"):
    CASES.update({
        f"{_name}/ok": lambda L, d, _n=_name: f(L, _n)(7, 0.5, device=d),
        f"{_name}/even": lambda L, d, _n=_name: f(L, _n)(8, device=d),
        f"{_name}/zero": lambda L, d, _n=_name: f(L, _n)(0, device=d),
        f"{_name}/one": lambda L, d, _n=_name: f(L, _n)(1, device=d),
        f"{_name}/negative": lambda L, d, _n=_name: f(L, _n)(-3, device=d),
        f"{_name}/d_zero": lambda L, d, _n=_name: f(L, _n)(4, 0.0, device=d),
        f"{_name}/d_negative": lambda L, d, _n=_name: f(L, _n)(4, -2.0, device=d),
        f"{_name}/d_tensor": lambda L, d, _n=_name: f(L, _n)(4, T(L, 2.0), device=d),
        f"{_name}/n_float": lambda L, d, _n=_name: f(L, _n)(4.0, device=d),
        f"{_name}/n_tensor": lambda L, d, _n=_name: f(L, _n)(T(L, 4), device=d),
        f"{_name}/int_dtype": lambda L, d, _n=_name: f(L, _n)(4, device=d, dtype=L.int64),
        f"{_name}/bool_dtype": lambda L, d, _n=_name: f(L, _n)(4, device=d, dtype=L.bool),
        f"{_name}/float64": lambda L, d, _n=_name: f(L, _n)(5, 0.1, device=d, dtype=L.float64),
        f"{_name}/float16": lambda L, d, _n=_name: f(L, _n)(5, device=d, dtype=L.float16),
        f"{_name}/complex_dtype": lambda L, d, _n=_name: f(L, _n)(4, device=d, dtype=L.complex64),
        f"{_name}/requires_grad": lambda L, d, _n=_name: f(L, _n)(4, device=d, requires_grad=True).requires_grad,
        f"{_name}/out": lambda L, d, _n=_name: (lambda o: (f(L, _n)(5, out=o), o)[1])(L.empty(0, device=d)),
        f"{_name}/out_int": lambda L, d, _n=_name: f(L, _n)(5, out=L.empty(0, device=d, dtype=L.int64)),
    })

for _name in ("fftshift", "ifftshift"):
    CASES.update({
        f"{_name}/ok": lambda L, d, _n=_name: f(L, _n)(R(L, (3, 4), d)),
        f"{_name}/dim": lambda L, d, _n=_name: f(L, _n)(R(L, (3, 5), d), dim=1),
        f"{_name}/dim_tuple": lambda L, d, _n=_name: f(L, _n)(R(L, (3, 5), d), dim=(0, -1)),
        f"{_name}/dim_past": lambda L, d, _n=_name: f(L, _n)(R(L, (3, 4), d), dim=2),
        f"{_name}/dim_repeated": lambda L, d, _n=_name: f(L, _n)(R(L, (3, 4), d), dim=(1, 1)),
        f"{_name}/0dim": lambda L, d, _n=_name: f(L, _n)(T(L, 2.0, d)),
        f"{_name}/0dim_dim": lambda L, d, _n=_name: f(L, _n)(T(L, 2.0, d), dim=0),
        f"{_name}/empty": lambda L, d, _n=_name: f(L, _n)(L.ones(0, 3, device=d)),
        f"{_name}/int": lambda L, d, _n=_name: f(L, _n)(T(L, [1, 2, 3, 4, 5], d)),
        f"{_name}/dim_float": lambda L, d, _n=_name: f(L, _n)(R(L, (3, 4), d), dim=1.0),
    })

# A few round trips: the inverse of each transform gives its input back.
CASES.update({
    "roundtrip/fft_ifft": lambda L, d: L.fft.ifft(L.fft.fft(x(L, d, (7,), dtype="complex128"))),
    "roundtrip/rfft_irfft_odd_n": lambda L, d: L.fft.irfft(L.fft.rfft(R(L, (7,), d)), n=7),
    "roundtrip/rfftn_irfftn_s": lambda L, d: L.fft.irfftn(L.fft.rfftn(R(L, (3, 5), d)), s=(3, 5)),
    "roundtrip/hfft_ihfft": lambda L, d: L.fft.hfft(L.fft.ihfft(R(L, (6,), d))),
    "stft/window_wrong": lambda L, d: L.stft(R(L, (32,), d, "float32"), 8, window=L.ones(5, device=d),
                                             return_complex=True),
    "stft/n_fft_past_length": lambda L, d: L.stft(R(L, (4,), d, "float32"), 8, center=False, return_complex=True),
    "stft/return_complex_missing": lambda L, d: L.stft(R(L, (32,), d, "float32"), 8),
    "stft/hop_zero": lambda L, d: L.stft(R(L, (32,), d, "float32"), 8, hop_length=0, return_complex=True),
    "stft/2d_ok": lambda L, d: L.stft(R(L, (2, 32), d, "float32"), 8, return_complex=True),
    "istft/real_input": lambda L, d: L.istft(R(L, (5, 9), d, "float32"), 8),
})

KNOWN = {
    "ifft/out_complex128": "both libraries transform in complex64 and write into the complex128 out; their FFTs "
                           "(FFTW, PyTorch's pocketfft) differ in the last float32 bit (4e-8 here), which is then "
                           "compared at complex128's tolerance",
}
