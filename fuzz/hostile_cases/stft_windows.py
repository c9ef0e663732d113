"""torch.stft/istft's argument checks and the window functions, beyond fft.py and string_enums.py: n_fft larger
than the signal or zero, hop_length 0 or negative, win_length larger than n_fft, windows of the wrong length,
dtype, rank or device, return_complex left out or False, center with each pad_mode, onesided with complex input,
normalized, 1-d/2-d/3-d and integer inputs, istft's length, window and NOLA checks, and hann/hamming/blackman/
bartlett/kaiser_window with lengths 0, 1 and negative, periodic, integer and complex dtypes, hamming's alpha/beta
and kaiser's beta, plus torch.signal.windows' functions with their own argument checks."""
from . import R


def sig(L, d, n=32, dtype="float32", batch=None):
    shape = (n,) if batch is None else (batch, n)
    return R(L, shape, d, dtype)


def stft(L, d, n_fft=8, n=32, dtype="float32", batch=None, **kw):
    kw.setdefault("return_complex", True)
    return L.stft(sig(L, d, n, dtype, batch), n_fft, **kw)


def spec(L, d, n_fft=8, n=32, batch=None, **kw):
    """A complex spectrogram istft can invert (hann window, hop n_fft // 4)."""
    w = L.hann_window(n_fft, device=d)
    return L.stft(sig(L, d, n, batch=batch), n_fft, hop_length=n_fft // 4, window=w, return_complex=True, **kw)


def istft(L, d, n_fft=8, spec_kw=None, **kw):
    kw.setdefault("hop_length", n_fft // 4)
    if "window" not in kw:
        kw["window"] = L.hann_window(n_fft, device=d)
    return L.istft(spec(L, d, n_fft, **(spec_kw or {})), n_fft, **kw)


WINDOWS = ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window")


def win(L, d, name, *args, **kw):
    return getattr(L, name)(*args, device=d, **kw)


CASES = {
    # ---- stft: n_fft, hop_length, win_length
    "stft/basic": lambda L, d: stft(L, d),
    "stft/n_fft_equals_length_no_center": lambda L, d: stft(L, d, 32, center=False),
    "stft/n_fft_past_length_no_center": lambda L, d: stft(L, d, 40, center=False),
    "stft/n_fft_past_length_center": lambda L, d: stft(L, d, 40),
    "stft/n_fft_past_twice_length_center": lambda L, d: stft(L, d, 80),
    "stft/n_fft_0": lambda L, d: stft(L, d, 0),
    "stft/n_fft_negative": lambda L, d: stft(L, d, -4),
    "stft/n_fft_1": lambda L, d: stft(L, d, 1),
    "stft/n_fft_odd": lambda L, d: stft(L, d, 7),
    "stft/n_fft_float": lambda L, d: stft(L, d, 8.0),
    "stft/hop_0": lambda L, d: stft(L, d, hop_length=0),
    "stft/hop_negative": lambda L, d: stft(L, d, hop_length=-2),
    "stft/hop_past_n_fft": lambda L, d: stft(L, d, hop_length=20),
    "stft/hop_1": lambda L, d: stft(L, d, hop_length=1),
    "stft/win_length_past_n_fft": lambda L, d: stft(L, d, win_length=10),
    "stft/win_length_0": lambda L, d: stft(L, d, win_length=0),
    "stft/win_length_negative": lambda L, d: stft(L, d, win_length=-1),
    "stft/win_length_shorter": lambda L, d: stft(L, d, win_length=5),
    "stft/win_length_shorter_window": lambda L, d: stft(L, d, win_length=4, window=L.hann_window(4, device=d)),
    "stft/win_length_mismatch_window": lambda L, d: stft(L, d, win_length=6, window=L.hann_window(4, device=d)),
    # ---- stft: windows
    "stft/window_hann": lambda L, d: stft(L, d, window=L.hann_window(8, device=d)),
    "stft/window_too_long": lambda L, d: stft(L, d, window=L.hann_window(9, device=d)),
    "stft/window_short_no_win_length": lambda L, d: stft(L, d, window=L.hann_window(6, device=d)),
    "stft/window_2d": lambda L, d: stft(L, d, window=L.ones(2, 4, device=d)),
    "stft/window_0d": lambda L, d: stft(L, d, window=L.tensor(1.0, device=d)),
    "stft/window_empty": lambda L, d: stft(L, d, window=L.ones(0, device=d)),
    "stft/window_float64": lambda L, d: stft(L, d, window=L.hann_window(8, dtype=L.float64, device=d)),
    "stft/window_int": lambda L, d: stft(L, d, window=L.ones(8, dtype=L.int64, device=d)),
    "stft/window_complex": lambda L, d: stft(L, d, window=L.ones(8, dtype=L.complex64, device=d)),
    # the message names both devices: a CPU signal with a meta window on every device
    "stft/window_other_device": lambda L, d: stft(L, "cpu", window=L.hann_window(8, device="meta")),
    "stft/window_other_device_no_return_complex": lambda L, d: L.stft(sig(L, "cpu"), 8,
                                                                      window=L.ones(8, device="meta")),
    "stft/window_requires_grad": lambda L, d: stft(L, d, window=L.hann_window(8, device=d).requires_grad_()).abs()
    .sum(),
    # ---- stft: return_complex, centre and padding
    "stft/return_complex_missing": lambda L, d: L.stft(sig(L, d), 8),
    "stft/return_complex_false": lambda L, d: stft(L, d, return_complex=False),
    "stft/return_complex_none": lambda L, d: stft(L, d, return_complex=None),
    "stft/return_complex_int": lambda L, d: stft(L, d, return_complex=1),
    "stft/complex_input_return_false": lambda L, d: stft(L, d, dtype="complex64", return_complex=False),
    "stft/complex_input_missing": lambda L, d: L.stft(sig(L, d, dtype="complex64"), 8),
    "stft/center_false": lambda L, d: stft(L, d, center=False),
    "stft/pad_constant": lambda L, d: stft(L, d, pad_mode="constant"),
    "stft/pad_replicate": lambda L, d: stft(L, d, pad_mode="replicate"),
    "stft/pad_circular": lambda L, d: stft(L, d, pad_mode="circular"),
    "stft/pad_bogus": lambda L, d: stft(L, d, pad_mode="bogus"),
    "stft/pad_reflect_too_short": lambda L, d: stft(L, d, 16, n=6),
    "stft/pad_reflect_length_1": lambda L, d: stft(L, d, 2, n=1),
    "stft/pad_constant_length_1": lambda L, d: stft(L, d, 2, n=1, pad_mode="constant"),
    "stft/center_int": lambda L, d: stft(L, d, center=1),
    # ---- stft: onesided, normalized, input ranks and dtypes
    "stft/onesided_false": lambda L, d: stft(L, d, onesided=False),
    "stft/onesided_true_complex_input": lambda L, d: stft(L, d, dtype="complex64", onesided=True),
    "stft/onesided_none_complex_input": lambda L, d: stft(L, d, dtype="complex64"),
    "stft/complex128_input": lambda L, d: stft(L, d, dtype="complex128"),
    "stft/normalized": lambda L, d: stft(L, d, normalized=True),
    "stft/normalized_onesided_false": lambda L, d: stft(L, d, normalized=True, onesided=False),
    "stft/float64_input": lambda L, d: stft(L, d, dtype="float64"),
    "stft/float16_input": lambda L, d: stft(L, d, dtype="float16"),
    "stft/int_input": lambda L, d: L.stft(L.arange(32, device=d), 8, return_complex=True),
    "stft/bool_input": lambda L, d: L.stft(L.ones(32, dtype=L.bool, device=d), 8, return_complex=True),
    "stft/batch_2d": lambda L, d: stft(L, d, batch=3),
    "stft/batch_2d_empty": lambda L, d: stft(L, d, batch=0),
    "stft/input_3d": lambda L, d: L.stft(R(L, (2, 2, 32), d, "float32"), 8, return_complex=True),
    "stft/input_0d": lambda L, d: L.stft(L.tensor(1.0, device=d), 8, return_complex=True),
    "stft/input_empty": lambda L, d: stft(L, d, n=0),
    "stft/input_empty_no_center": lambda L, d: stft(L, d, n=0, center=False),
    "stft/input_noncontiguous": lambda L, d: L.stft(R(L, (64,), d, "float32")[::2], 8, return_complex=True),
    "stft/window_mismatched_dtype_f64_input": lambda L, d: stft(L, d, dtype="float64",
                                                                window=L.hann_window(8, device=d)),
    "stft/method_form": lambda L, d: sig(L, d).stft(8, return_complex=True),
    "stft/grad": lambda L, d: _grad(L, d, lambda t: L.stft(t, 8, return_complex=True).abs().sum()),
    "stft/align_to_window": lambda L, d: stft(L, d, align_to_window=True),
    "stft/align_to_window_center": lambda L, d: stft(L, d, center=True, align_to_window=True,
                                                     win_length=4, window=L.ones(4, device=d)),
    "stft/align_to_window_no_center": lambda L, d: stft(L, d, center=False, align_to_window=True,
                                                        win_length=4, window=L.ones(4, device=d)),
    "stft/align_to_window_values": lambda L, d: L.stft(L.arange(8.0, device=d), 8, win_length=4, center=False,
                                                       align_to_window=True, return_complex=True),
    "stft/align_to_window_odd_margin": lambda L, d: L.stft(L.arange(32.0, device=d), 8, win_length=5, hop_length=3,
                                                           center=False, align_to_window=True, return_complex=True),
    # ---- istft
    "istft/roundtrip": lambda L, d: istft(L, d),
    "istft/roundtrip_length": lambda L, d: istft(L, d, length=32),
    "istft/length_shorter": lambda L, d: istft(L, d, length=20),
    "istft/length_longer": lambda L, d: istft(L, d, length=40),
    "istft/length_0": lambda L, d: istft(L, d, length=0),
    "istft/length_negative": lambda L, d: istft(L, d, length=-3),
    "istft/no_window_nola": lambda L, d: L.istft(spec(L, d), 8, hop_length=2),
    "istft/window_zeros_nola": lambda L, d: istft(L, d, window=L.zeros(8, device=d)),
    "istft/window_too_long": lambda L, d: istft(L, d, window=L.hann_window(9, device=d)),
    "istft/window_2d": lambda L, d: istft(L, d, window=L.ones(2, 4, device=d)),
    "istft/win_length_past_n_fft": lambda L, d: istft(L, d, win_length=10),
    "istft/win_length_0": lambda L, d: istft(L, d, win_length=0, window=None),
    "istft/hop_0": lambda L, d: istft(L, d, hop_length=0),
    "istft/hop_past_win_length": lambda L, d: istft(L, d, hop_length=10),
    "istft/real_input": lambda L, d: L.istft(R(L, (5, 9), d, "float32"), 8, window=L.hann_window(8, device=d),
                                             hop_length=2),
    "istft/real_input_last_dim_2": lambda L, d: L.istft(R(L, (5, 9, 2), d, "float32"), 8,
                                                        window=L.hann_window(8, device=d), hop_length=2),
    "istft/n_fft_mismatch_onesided": lambda L, d: L.istft(spec(L, d), 10, hop_length=2,
                                                          window=L.hann_window(10, device=d)),
    "istft/onesided_false_input": lambda L, d: istft(L, d, spec_kw={"onesided": False}, onesided=False,
                                                     return_complex=True),
    "istft/onesided_false_real_out": lambda L, d: istft(L, d, spec_kw={"onesided": False}, onesided=False),
    "istft/return_complex_onesided": lambda L, d: istft(L, d, return_complex=True),
    "istft/onesided_true_return_complex": lambda L, d: istft(L, d, onesided=True, return_complex=True),
    "istft/center_false_nola": lambda L, d: L.istft(L.stft(sig(L, d), 8, hop_length=2, center=False,
                                                           window=L.hann_window(8, device=d), return_complex=True),
                                                    8, hop_length=2, window=L.hann_window(8, device=d),
                                                    center=False),
    "istft/center_false_ones": lambda L, d: L.istft(L.stft(sig(L, d), 8, hop_length=2, center=False,
                                                           window=L.ones(8, device=d), return_complex=True),
                                                    8, hop_length=2, window=L.ones(8, device=d), center=False),
    "istft/normalized": lambda L, d: istft(L, d, spec_kw={"normalized": True}, normalized=True),
    "istft/batch": lambda L, d: istft(L, d, spec_kw={"batch": 2}),
    "istft/input_1d": lambda L, d: L.istft(spec(L, d)[:, 0], 8, window=L.hann_window(8, device=d)),
    "istft/input_4d": lambda L, d: L.istft(spec(L, d)[None, None], 8, window=L.hann_window(8, device=d)),
    "istft/zero_frames": lambda L, d: L.istft(spec(L, d)[:, :0], 8, hop_length=2,
                                              window=L.hann_window(8, device=d)),
    "istft/complex128": lambda L, d: L.istft(spec(L, d).to(L.complex128), 8, hop_length=2,
                                             window=L.hann_window(8, dtype=L.float64, device=d)),
    "istft/window_dtype_mismatch": lambda L, d: L.istft(spec(L, d), 8, hop_length=2,
                                                        window=L.hann_window(8, dtype=L.float64, device=d)),
    "istft/window_int": lambda L, d: L.istft(spec(L, d), 8, hop_length=2, window=L.ones(8, dtype=L.int64,
                                                                                         device=d)),
    "istft/method_form": lambda L, d: spec(L, d).istft(8, hop_length=2, window=L.hann_window(8, device=d)),
}


def _grad(L, d, fn):
    leaf = sig(L, d).requires_grad_()
    fn(leaf).backward()
    return leaf.grad


for _name in WINDOWS:
    CASES.update({
        f"{_name}/len_0": lambda L, d, n=_name: win(L, d, n, 0),
        f"{_name}/len_1": lambda L, d, n=_name: win(L, d, n, 1),
        f"{_name}/len_1_symmetric": lambda L, d, n=_name: win(L, d, n, 1, False),
        f"{_name}/len_2_symmetric": lambda L, d, n=_name: win(L, d, n, 2, False),
        f"{_name}/len_negative": lambda L, d, n=_name: win(L, d, n, -1),
        f"{_name}/len_7_periodic": lambda L, d, n=_name: win(L, d, n, 7),
        f"{_name}/len_7_symmetric_f64": lambda L, d, n=_name: win(L, d, n, 7, False, dtype=L.float64),
        # PyTorch's message prints the options with the device: the default one (cpu) on every device
        f"{_name}/dtype_int": lambda L, d, n=_name: getattr(L, n)(5, dtype=L.int64),
        f"{_name}/dtype_complex": lambda L, d, n=_name: win(L, d, n, 5, dtype=L.complex64),
        f"{_name}/dtype_float16": lambda L, d, n=_name: win(L, d, n, 6, dtype=L.float16),
        f"{_name}/len_float": lambda L, d, n=_name: win(L, d, n, 5.0),
        f"{_name}/len_tensor": lambda L, d, n=_name: win(L, d, n, L.tensor(5)),
        f"{_name}/periodic_int": lambda L, d, n=_name: win(L, d, n, 5, 1),
        f"{_name}/requires_grad": lambda L, d, n=_name: win(L, d, n, 5, requires_grad=True).requires_grad,
    })

CASES.update({
    "hamming_window/alpha_beta": lambda L, d: win(L, d, "hamming_window", 7, False, 0.5, 0.5),
    "hamming_window/alpha_only": lambda L, d: win(L, d, "hamming_window", 7, True, 0.6),
    "hamming_window/alpha_kw": lambda L, d: win(L, d, "hamming_window", 7, periodic=False, alpha=0.6),
    "hamming_window/beta_without_alpha": lambda L, d: win(L, d, "hamming_window", 7, True, beta=0.3),
    "hamming_window/alpha_str": lambda L, d: win(L, d, "hamming_window", 7, True, "a"),
    "kaiser_window/beta_0": lambda L, d: win(L, d, "kaiser_window", 7, True, 0.0),
    "kaiser_window/beta_negative": lambda L, d: win(L, d, "kaiser_window", 7, True, -3.0),
    "kaiser_window/beta_huge": lambda L, d: win(L, d, "kaiser_window", 7, False, 800.0),
    "kaiser_window/beta_nan": lambda L, d: win(L, d, "kaiser_window", 7, False, float("nan")),
    "kaiser_window/beta_kw": lambda L, d: win(L, d, "kaiser_window", 7, beta=5.0),
    "kaiser_window/beta_int": lambda L, d: win(L, d, "kaiser_window", 7, False, 5),
    "kaiser_window/len_1_beta": lambda L, d: win(L, d, "kaiser_window", 1, False, 5.0),
    # ---- torch.signal.windows
    "signal.gaussian/basic": lambda L, d: L.signal.windows.gaussian(7, device=d),
    "signal.gaussian/std_0": lambda L, d: L.signal.windows.gaussian(7, std=0.0, device=d),
    "signal.gaussian/std_negative": lambda L, d: L.signal.windows.gaussian(7, std=-1.0, device=d),
    "signal.gaussian/len_0": lambda L, d: L.signal.windows.gaussian(0, device=d),
    "signal.gaussian/len_negative": lambda L, d: L.signal.windows.gaussian(-2, device=d),
    "signal.gaussian/dtype_int": lambda L, d: L.signal.windows.gaussian(5, dtype=L.int64, device=d),
    "signal.gaussian/symmetric": lambda L, d: L.signal.windows.gaussian(6, sym=True, device=d),
    "signal.gaussian/periodic": lambda L, d: L.signal.windows.gaussian(6, sym=False, device=d),
    "signal.exponential/basic": lambda L, d: L.signal.windows.exponential(7, device=d),
    "signal.exponential/center_sym": lambda L, d: L.signal.windows.exponential(7, center=2.0, device=d),
    "signal.exponential/center_periodic": lambda L, d: L.signal.windows.exponential(7, center=2.0, sym=False,
                                                                                    device=d),
    "signal.exponential/tau_0": lambda L, d: L.signal.windows.exponential(7, tau=0.0, device=d),
    "signal.exponential/tau_negative": lambda L, d: L.signal.windows.exponential(7, tau=-1.0, device=d),
    "signal.cosine/basic": lambda L, d: L.signal.windows.cosine(7, device=d),
    "signal.cosine/len_1": lambda L, d: L.signal.windows.cosine(1, device=d),
    "signal.cosine/periodic": lambda L, d: L.signal.windows.cosine(6, sym=False, device=d),
    "signal.kaiser/beta_negative": lambda L, d: L.signal.windows.kaiser(7, beta=-1.0, device=d),
    "signal.kaiser/basic": lambda L, d: L.signal.windows.kaiser(7, device=d),
    "signal.hann/len_1": lambda L, d: L.signal.windows.hann(1, device=d),
    "signal.hann/periodic": lambda L, d: L.signal.windows.hann(6, sym=False, device=d),
    "signal.hamming/basic": lambda L, d: L.signal.windows.hamming(7, device=d),
    "signal.blackman/basic": lambda L, d: L.signal.windows.blackman(7, device=d),
    "signal.bartlett/basic": lambda L, d: L.signal.windows.bartlett(7, device=d),
    "signal.bartlett/len_2": lambda L, d: L.signal.windows.bartlett(2, device=d),
    "signal.general_hamming/alpha": lambda L, d: L.signal.windows.general_hamming(7, alpha=0.6, device=d),
    "signal.general_cosine/a_list": lambda L, d: L.signal.windows.general_cosine(7, a=[0.5, 0.5], device=d),
    "signal.general_cosine/a_empty": lambda L, d: L.signal.windows.general_cosine(7, a=[], device=d),
    "signal.general_cosine/a_tensor": lambda L, d: L.signal.windows.general_cosine(7, a=L.tensor([0.5, 0.5]),
                                                                                   device=d),
    "signal.general_cosine/a_missing": lambda L, d: L.signal.windows.general_cosine(7, device=d),
    "signal.nuttall/basic": lambda L, d: L.signal.windows.nuttall(7, device=d),
    "signal.nuttall/len_0": lambda L, d: L.signal.windows.nuttall(0, device=d),
    "signal.gaussian/layout_sparse": lambda L, d: L.signal.windows.gaussian(5, layout=L.sparse_coo, device=d),
    "signal.gaussian/len_float": lambda L, d: L.signal.windows.gaussian(5.0, device=d),
})

KNOWN = {
    "stft/float16_input": "on the GPU only: PyTorch's CPU FFT refuses 16-bit signals (\"MKL FFT doesn't support "
                          "tensors of type: Half\", as tandem's CPU path); on CUDA cuFFT takes them, and so does "
                          "tandem's cuda path (the harness compares against PyTorch's CPU)",
    "stft/align_to_window_odd_margin": "PyTorch pads the signal by (n_fft - win_length) // 2 on each side, one short "
                                       "of the window's right margin when that difference is odd, and its frames "
                                       "then read past the padded signal (\"setStorage: ... out of bounds\"); "
                                       "tandem pads the window's two margins and returns the frames",
    "signal.gaussian/len_float": "PyTorch's TypeError is the parser error of the linspace it calls inside, listing "
                                 "that call's keywords in its hash map's order; tandem names the argument: "
                                 "\"gaussian(): window length M must be an int, got float\" (same type)",
}
