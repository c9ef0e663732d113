"""tandem.stft / tandem.istft (and the Tensor methods): PyTorch's short-time Fourier transform and its inverse,
composed from tandem's ops (padding, unfold, the FFTs of tandem.fft, index_add for the overlap-add), so they run
on every device and are differentiable. Argument checks follow PyTorch's (the key part of its messages: the
"expected ..." text after PyTorch's own repr of the call)."""
import warnings

from . import _parser_types, fft as _fft
from ._C import Tensor


def _fail(call, msg):
    """PyTorch's message: its repr of the call (call() builds it), " : ", then what was expected."""
    raise RuntimeError(f"{call()} : {msg}")


def _flag(value):
    return "None" if value is None else str(int(value))


def _window_repr(window):
    return "None" if window is None else f"{_type_name(window)}{{[{', '.join(str(s) for s in window.shape)}]}}"


def _window_to_n_fft(call, window, n_fft, win_length, mismatch, like):
    """The window zero-padded on both sides to n_fft, as PyTorch centres a shorter one. None stays None when
    win_length == n_fft (no window: every sample counts); a shorter win_length without a window means a
    rectangular window of that length (ones in `like`'s real dtype), centred the same way."""
    from .nn.functional import pad
    if window is None:
        if win_length >= n_fft:
            return None
        from . import ones
        dtype = like.real.dtype if like.dtype.is_complex else like.dtype
        window = ones(win_length, dtype=dtype, device=like.device)
    if window.dim() != 1 or window.shape[0] != win_length:
        _fail(call, mismatch)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = pad(window, (left, n_fft - win_length - left))
    return window


def _check_flag_types(*args):
    """PyTorch's parser of its stft op takes ints for n_fft, hop_length and win_length (None where optional) and only
    bools (or None where optional) for the flags: normalized="yes", onesided=1 or n_fft=8.0 is a TypeError listing
    the argument types, before any check of the values."""
    n_fft, hop_length, win_length = args[1:4]
    normalized, *optional = args[5:]
    ints = isinstance(n_fft, int) and all(v is None or isinstance(v, int) for v in (hop_length, win_length))
    if ints and isinstance(normalized, bool) and all(v is None or isinstance(v, bool) for v in optional):
        return
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    raise TypeError(f"stft() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    " * (Tensor input, int n_fft, int hop_length = None, int win_length = None, Tensor window = "
                    "None, bool normalized = False, bool onesided = None, bool return_complex = None, bool "
                    "align_to_window = None)")


# The eight dtypes with a legacy tensor class, which PyTorch's messages print ("torch.FloatTensor").
_LEGACY_NAMED = ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")


def _type_name(t):
    """How ATen's messages name a tensor's type: the legacy class where there is one ("torch.FloatTensor",
    "torch.cuda.DoubleTensor"), its backend and scalar type otherwise ("CPUComplexFloatType", "CPUBoolType")."""
    if str(t.dtype).rsplit(".", 1)[-1] in _LEGACY_NAMED:
        return t.type()
    return ("CPU" if t.device.type == "cpu" else "CUDA") + t.dtype._scalar_type_name + "Type"


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:  # PyTorch pads in Python, the input viewed as 3-d, before its op sees any argument
        from .nn.functional import pad
        signal_dim = input.dim()
        p = int(n_fft // 2)
        padded = pad(input.view([1] * (3 - signal_dim) + list(input.shape)), [p, p], pad_mode)
        input = padded.view(padded.shape[-signal_dim:] if signal_dim else padded.shape)
    _check_flag_types(input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
                      align_to_window)
    if window is not None and window.device != input.device:
        raise RuntimeError(f"stft input and window must be on the same device but got self on {input.device} and "
                           f"window on {window.device}")
    complex_in = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if return_complex is None:
        if not complex_in:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.\n"
                               "hint: pass return_complex=True (and use view_as_real for the old format)")
        return_complex = True
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft will "
                      "return complex tensors for all inputs, and return_complex=False will raise an error.\n"
                      "Note: you can still call torch.view_as_real on the complex output to recover the old "
                      "return format.", UserWarning, stacklevel=2)
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which is known to cause "
                      "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                      "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
                      "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.", UserWarning,
                      stacklevel=2)

    def call():  # the input as PyTorch's C++ op sees it: after the centring pad
        shape = ", ".join(str(s) for s in input.shape)
        return (f"stft({_type_name(input)}[{shape}], n_fft={n_fft}, hop_length={hop_length}, "
                f"win_length={win_length}, window={_window_repr(window)}, normalized={_flag(normalized)}, "
                f"onesided={_flag(onesided)}, return_complex={_flag(return_complex)}, "
                f"align_to_window={_flag(align_to_window)})")

    if not (input.is_floating_point() or input.is_complex()):  # PyTorch's first check (an integer signal)
        raise NotImplementedError(f"{call()} : expected a tensor of floating point or complex values\n"
                                  "hint: convert the signal first, e.g. input.float() (int16 PCM: input / 32768)")
    if input.dim() not in (1, 2):
        _fail(call, "expected a 1D or 2D tensor")
    x = input if input.dim() == 2 else input.unsqueeze(0)
    length = x.shape[-1]
    if not 0 < n_fft <= length:  # (aligned to the window, PyTorch's message names win_length as n_fft)
        _fail(call, f"expected 0 < n_fft < {length}, but got n_fft={win_length if align_to_window else n_fft}")
    if hop_length <= 0:
        _fail(call, f"expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        _fail(call, f"expected 0 < win_length <= n_fft, but got win_length={win_length}")
    window = _window_to_n_fft(call, window, n_fft, win_length,
                              f"expected a 1D window tensor of size equal to win_length={win_length}, but got "
                              f"window with size {list(window.shape) if window is not None else []}", x)
    if align_to_window and win_length < n_fft:
        # the frames start where their windows start: the signal gains the window's zero margins on both sides
        from .nn.functional import pad
        left = (n_fft - win_length) // 2
        x = pad(x, (left, n_fft - win_length - left))
    if onesided is None:
        onesided = not complex_in
    elif onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    frames = x.unfold(-1, n_fft, hop_length)  # (batch, n_frames, n_fft)
    if window is not None:
        frames = frames * window
    if frames.dtype.itemsize == 2 and frames.device.type == "cpu":  # PyTorch's op calls the CPU FFT directly
        raise NotImplementedError(f"MKL FFT doesn't support tensors of type: {frames.dtype._scalar_type_name}\n"
                                  "hint: compute the STFT in float32: pass input.float() and a float32 window")
    norm = "ortho" if normalized else "backward"
    spec = _fft.rfft(frames, norm=norm) if onesided else _fft.fft(frames, norm=norm)
    spec = spec.transpose(-1, -2)  # (batch, freq, n_frames)
    if input.dim() == 1:
        spec = spec.squeeze(0)
    if not return_complex:
        from . import view_as_real
        return view_as_real(spec)
    return spec


_ISTFT_TYPES = (("input", None), ("n_fft", "int"), ("hop_length", "int?"), ("win_length", "int?"), ("window", None),
                ("center", "bool"), ("normalized", "bool"), ("onesided", "bool?"), ("length", "int?"),
                ("return_complex", "bool"))


def istft(*args, **kwargs):
    _parser_types.check("istft", args, kwargs, _ISTFT_TYPES)  # PyTorch's parser, before any check of the values
    return _istft(*args, **kwargs)


def _istft_method(self, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
                  onesided=None, length=None, return_complex=False):
    # PyTorch's Tensor.istft passes all but return_complex on by position: its type errors count self as 1
    return istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
                 return_complex=return_complex)


def _istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
           onesided=None, length=None, return_complex=False):
    from . import arange, ones, zeros
    if not input.dtype.is_complex:
        raise TypeError("istft requires a complex-valued input tensor matching the output from stft with "
                        "return_complex=True.\nhint: pass the complex result of tandem.stft(..., "
                        "return_complex=True) (or view_as_complex of the old real format)")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    onesided_arg = onesided  # the call's repr shows the argument as given

    def call():  # PyTorch names the input by its C++ type here ("CPUComplexFloatType[5, 9]")
        kind = ("CPU" if input.device.type == "cpu" else "CUDA") + input.type().rsplit(".", 1)[1][:-len("Tensor")]
        return (f"istft({kind}Type[{', '.join(str(s) for s in input.shape)}], n_fft={n_fft}, "
                f"hop_length={hop_length}, win_length={win_length}, window={_window_repr(window)}, "
                f"center={_flag(center)}, normalized={_flag(normalized)}, onesided={_flag(onesided_arg)}, "
                f"length={_flag(length)}, return_complex={_flag(return_complex)})")

    # PyTorch reads the sizes of the input's real view ((..., freq, frames, 2)) first, then checks it
    real_dim = input.dim() + 1
    for back in (2, 3):
        if real_dim < back:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-real_dim}, {real_dim - 1}], "
                             f"but got {-back})")
    if input.numel() == 0:
        _fail(call, "input tensor cannot be empty.")
    if input.dim() not in (2, 3):
        _fail(call, f"expected a tensor with 3 or 4 dimensions, but got {real_dim}")
    spec = input if input.dim() == 3 else input.unsqueeze(0)
    batch, fft_size, n_frames = spec.shape
    if onesided is None:
        onesided = fft_size != n_fft
    if onesided and n_fft // 2 + 1 != fft_size:
        _fail(call, "expected the frequency dimension (3rd to the last) of the input tensor to match n_fft "
                            f"/ 2 + 1 when onesided=True, but got {fft_size}")
    if not onesided and n_fft != fft_size:
        _fail(call, "expected the frequency dimension (3rd to the last) of the input tensor to match n_fft "
                            f"when onesided=False, but got {fft_size}")
    if not 0 < hop_length <= win_length:
        _fail(call, "expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        _fail(call, "expected 0 < win_length <= n_fft")
    if onesided and return_complex:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied.Please provide the same "
                      "window used by stft to make the inversion lossless.To suppress this warning and use a "
                      "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                      UserWarning, stacklevel=2)
    window = _window_to_n_fft(call, window, n_fft, win_length,
                              "Invalid window shape. window has to be 1D and length of `win_length`", spec)
    if window is None:
        window = ones(n_fft, dtype=spec.real.dtype, device=spec.device)
    norm = "ortho" if normalized else "backward"
    frames = spec.transpose(1, 2)  # (batch, n_frames, freq)
    if return_complex:
        y = _fft.ifft(frames, dim=-1, norm=norm)
    else:
        if not onesided:
            frames = frames.narrow(-1, 0, n_fft // 2 + 1)
        y = _fft.irfft(frames, n=n_fft, dim=-1, norm=norm)
    y = y * window  # (batch, n_frames, n_fft)
    expected = n_fft + hop_length * (n_frames - 1)
    # Overlap-add: frame i's sample k lands at i * hop + k.
    idx = (arange(n_frames, device=spec.device).unsqueeze(1) * hop_length
           + arange(n_fft, device=spec.device).unsqueeze(0)).reshape(-1)
    if y.dtype.is_complex:  # index_add is real-only: add the (real, imag) pairs
        from . import view_as_complex, view_as_real
        pairs = view_as_real(y).reshape(batch, -1, 2)
        out = view_as_complex(zeros(batch, expected, 2, dtype=pairs.dtype, device=spec.device).index_add(1, idx, pairs))
    else:
        out = zeros(batch, expected, dtype=y.dtype, device=spec.device).index_add(1, idx, y.reshape(batch, -1))
    w2 = (window * window.conj()).real if window.dtype.is_complex else window * window
    envelope = zeros(expected, dtype=w2.dtype, device=spec.device).index_add(0, idx, w2.repeat(n_frames))
    start = n_fft // 2 if center else 0
    end = expected if length is None and not center else (start + length if length is not None
                                                         else expected - n_fft // 2)
    end = min(end, expected)
    out = out[:, start:end]
    envelope = envelope[start:end]
    if float(envelope.abs().min()) < 1e-11:
        # PyTorch's text prints its boolean check (1: the envelope's minimum is below 1e-11), with no " : "
        raise RuntimeError(f"{call()} window overlap add min: 1\nhint: the window must overlap itself with a "
                           "nonzero sum everywhere (e.g. a Hann window with hop_length <= n_fft / 2); the "
                           f"smallest sum here is {float(envelope.abs().min())}")
    out = out / envelope
    if length is not None and out.shape[-1] < length:
        from .nn.functional import pad
        out = pad(out, (0, length - out.shape[-1]))
    return out if input.dim() == 3 else out.squeeze(0)


def install(namespace):
    namespace["stft"] = stft
    namespace["istft"] = istft
    from . import Tensor
    Tensor.stft = stft
    Tensor.istft = _istft_method
