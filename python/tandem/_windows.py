"""The signal windows of PyTorch's top level (hann, hamming, blackman, bartlett, kaiser), composed of tandem's ops,
with PyTorch's overloads: `(window_length)`, `(window_length, periodic)` and, for hamming and kaiser, the shape
parameters after `periodic` (`alpha`, `beta`), by position or by name."""
import math
import operator

from . import _C
from ._layouts import _parser_type_name


def _window_checks(name, window_length, dtype, options):
    """PyTorch's checks; on meta any dtype goes (no kernel runs there)."""
    dtype = dtype or _C.get_default_dtype()
    device = _C.device(options.get("device") or _C.empty(0).device)
    if dtype.is_complex and window_length > 1 and device.type != "meta":
        # PyTorch's check lets complex through to its arange kernel
        raise NotImplementedError(f'"arange_{device.type}" not implemented for \'{dtype._scalar_type_name}\'')
    if not (dtype.is_floating_point or dtype.is_complex) and device.type != "meta":
        raise RuntimeError(f"{name} expects floating point dtypes, got: {_tensor_options_text(dtype, options)}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    return dtype


def _tensor_options_text(dtype, options):
    """c10's printing of the TensorOptions a window was asked for (its dtype by C++ name; requires_grad is not
    part of what the factory receives, so it always reads as the default)."""
    device = _C.device(options.get("device") or _C.empty(0).device)
    layout = options.get("layout")
    cpp_type = dtype._cpp_type_name
    layout = "Strided (default)" if layout is None else "Sparse" if "sparse" in str(layout) else "Strided"
    pinned = "true" if options.get("pin_memory") else "false"
    return (f"TensorOptions(dtype={cpp_type}, device={device}, layout={layout}, requires_grad=false "
            f"(default), pinned_memory={pinned}, memory_format=(nullopt))")


_FACTORY = ("dtype", "layout", "device", "pin_memory", "requires_grad")
_OPTIONS = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
            "bool pin_memory = False, bool requires_grad = False")


def _invalid_combination(name, shape_params, args, kwargs):
    """PyTorch's parser error: the argument types given (the keywords in reverse, as its kwargs map iterates, the
    factory keywords among them), then one overload per prefix of (periodic, params...)."""
    got = [_parser_type_name(a) for a in args] + [f"{k}={_parser_type_name(v)}" for k, v in reversed(kwargs.items())]
    forms = []
    for n in range(1, len(shape_params) + 3):
        leading = ["int window_length", "bool periodic"][:n] + [f"float {p}" for p in shape_params[:max(0, n - 2)]]
        forms.append(f" * ({', '.join(leading + ['*', _OPTIONS])})\n")
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), but "
                    "expected one of:\n" + "".join(forms))


def _parse(name, shape_params, window_length, args, kwargs, given_kwargs):
    """(window_length, periodic, shape values) from the arguments: PyTorch's overloads take a prefix of
    (periodic, *shape_params), each by position or by name, periodic a bool and the shape values numbers."""
    names = ("periodic",) + shape_params
    given = dict(zip(names, args))
    misplaced = [k for k in kwargs if k not in names or k in given]
    given.update(kwargs)
    if len(args) > len(names) or misplaced or set(given) != set(names[:len(given)]):
        _invalid_combination(name, shape_params, (window_length,) + args, given_kwargs)
    periodic = given.get("periodic", True)
    values = [given[p] for p in shape_params if p in given]
    if not isinstance(periodic, bool) or any(isinstance(v, bool) or not isinstance(v, (int, float))
                                             for v in values):
        _invalid_combination(name, shape_params, (window_length,) + args, given_kwargs)
    try:
        if isinstance(window_length, bool):  # not an int to PyTorch's parser
            raise TypeError
        length = operator.index(window_length)
    except TypeError:
        # PyTorch's parser names the bad argument only when one overload takes this many arguments (the options
        # counted): overload k takes k + 1 positional arguments and the five options.
        count = 1 + len(args) + len(given_kwargs)
        plausible = [k for k in range(len(names) + 1) if k + 1 <= count <= k + 1 + len(_FACTORY)]
        if len(plausible) != 1:
            _invalid_combination(name, shape_params, (window_length,) + args, given_kwargs)
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}") from None
    return length, periodic, values


def _window(name, body, shape_params=()):
    """PyTorch's window recipe: a periodic window is the symmetric one of length + 1 without its last value;
    body(n, length, *shape values) computes in the requested dtype, step by step as ATen does (so 16-bit values
    match)."""
    def fn(window_length, *args, **kwargs):
        shape_kwargs = {k: v for k, v in kwargs.items() if k not in _FACTORY}
        window_length, periodic, values = _parse(name, shape_params, window_length, args, shape_kwargs, kwargs)
        dtype, device, requires_grad = kwargs.get("dtype"), kwargs.get("device"), kwargs.get("requires_grad", False)
        dtype = _window_checks(name, window_length, dtype, kwargs)
        if window_length <= 1:
            out = _C.ones(window_length, dtype=dtype, device=device)
        else:
            length = window_length + 1 if periodic else window_length
            out = body(_C.arange(length, dtype=dtype, device=device), length, *values)
            out = out.narrow(0, 0, window_length) if periodic else out
            if out.dtype != dtype:  # an integer window on meta (the only place one is allowed): its dtype
                out = out.to(dtype)
        return out.requires_grad_() if requires_grad else out

    fn.__name__ = fn.__qualname__ = name
    return fn


def _rounded(n, c):
    """c rounded to a 16-bit n's dtype: PyTorch's float16/bfloat16 windows are the products with their numbers
    rounded to the window's dtype first (a plain `n * number` keeps the number in float32, as PyTorch does)."""
    if n.dtype in (_C.float16, _C.bfloat16):
        return _C.full([], c, dtype=n.dtype).item()
    return c


def _hamming(n, length, alpha=0.54, beta=0.46):
    return (n * _rounded(n, math.pi * 2.0 / (length - 1))).cos() * _rounded(n, -beta) + alpha


def _blackman(n, length):
    n = n * _rounded(n, math.pi / (length - 1))
    return (n * 4).cos() * _rounded(n, 0.08) - (n * 2).cos() * 0.5 + 0.42


def _bartlett(n, length):
    n = n * _rounded(n, 2.0 / (length - 1))
    half = ((length - 1) >> 1) + 1
    return _C.cat([n.narrow(0, 0, half), 2 - n.narrow(0, half, length - half)])


def _kaiser(n, length, beta=12.0):
    # ATen's kernel computes in float32 for 16-bit dtypes (opmath), in the dtype otherwise.
    work = n.float() if n.dtype in (_C.float16, _C.bfloat16) else n
    alpha = (length - 1) / 2.0
    ratio = (work - alpha) / alpha
    top = ((1 - ratio * ratio).abs().sqrt() * beta).i0()
    return (top / _C.full([], float(beta), dtype=work.dtype, device=work.device).i0()).to(n.dtype)


hann_window = _window("hann_window", lambda n, length: _hamming(n, length, 0.5, 0.5))
hamming_window = _window("hamming_window", _hamming, ("alpha", "beta"))
blackman_window = _window("blackman_window", _blackman)
bartlett_window = _window("bartlett_window", _bartlett)
kaiser_window = _window("kaiser_window", _kaiser, ("beta",))
