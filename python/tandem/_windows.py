"""The signal windows of PyTorch's top level (hann, hamming, blackman, bartlett, kaiser), composed of tandem's ops,
with PyTorch's overloads: `(window_length)`, `(window_length, periodic)` and, for hamming and kaiser, the shape
parameters after `periodic` (`alpha`, `beta`), by position or by name."""
import math
import operator

from . import _C


# The C++ type names PyTorch's TensorOptions printing uses for the integer and bool dtypes.
_C_TYPE_NAMES = {"int8": "signed char", "int16": "short int", "int32": "int", "int64": "long int",
                 "uint8": "unsigned char", "uint16": "short unsigned int", "uint32": "unsigned int",
                 "uint64": "long unsigned int", "bool": "bool"}


def _options_repr(dtype, device, options):
    """PyTorch's `TensorOptions(...)` text for a window's options: the device is always known (the default
    filled in), layout and pin_memory as given."""
    layout = "Strided" if options.get("layout") is not None else "Strided (default)"
    pinned = "true" if options.get("pin_memory") else "false"
    type_name = _C_TYPE_NAMES.get(str(dtype).split(".")[-1], str(dtype).split(".")[-1])
    return (f"TensorOptions(dtype={type_name}, device={device}, layout={layout}, requires_grad=false (default), "
            f"pinned_memory={pinned}, memory_format=(nullopt))")


def _window_checks(name, window_length, dtype, device, options):
    """PyTorch's order: a floating or complex dtype (any dtype on meta), a non-negative length, then arange's
    missing complex kernel for windows longer than one."""
    dtype = dtype or _C.get_default_dtype()
    where = _C.device(device) if device is not None else _C.device("cpu")
    if not dtype.is_floating_point and not dtype.is_complex and where.type != "meta":
        raise RuntimeError(f"{name} expects floating point dtypes, got: {_options_repr(dtype, where, options)}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if dtype.is_complex and window_length > 1 and where.type != "meta":
        kind = "ComplexFloat" if dtype == _C.complex64 else "ComplexDouble"
        raise NotImplementedError(f'"arange_{where.type}" not implemented for \'{kind}\'')
    return dtype


_OPTIONS = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
            "bool pin_memory = False, bool requires_grad = False")


def _arg_type(value):
    """An argument's type as PyTorch's parser errors name it: Tensor, torch.dtype/layout/device, else the Python
    type's name."""
    if isinstance(value, _C.Tensor):
        return "Tensor"
    kind = type(value)
    return f"torch.{kind.__name__}" if kind.__module__.startswith("tandem") else kind.__name__


def _invalid_combination(name, shape_params, args, kwargs):
    """PyTorch's parser error: the argument types given, then one overload per prefix of (periodic, params...)."""
    # PyTorch lists the keywords from a hash map; with distinct buckets (the usual case for a few names) that is
    # the reverse of the order given
    got = [_arg_type(a) for a in args] + [f"{k}={_arg_type(v)}" for k, v in reversed(kwargs.items())]
    forms = []
    for n in range(len(shape_params) + 2):
        leading = ["int window_length", "bool periodic"][:n] + [f"float {p}" for p in shape_params[:max(0, n - 2)]]
        forms.append(f" * ({', '.join(leading + ['*', _OPTIONS])})\n")
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), but "
                    "expected one of:\n" + "".join(forms))


_OPTION_NAMES = ("dtype", "layout", "device", "pin_memory", "requires_grad")


def _parse(name, shape_params, window_length, args, kwargs):
    """(window_length, periodic, shape values) from the arguments: PyTorch's overloads take a prefix of
    (periodic, *shape_params), each by position or by name, periodic a bool and the shape values numbers. kwargs
    holds every keyword given (the options too), in the order given, for the parser error's listing."""
    names = ("periodic",) + shape_params
    given = dict(zip(names, args))
    shape_kwargs = {k: v for k, v in kwargs.items() if k not in _OPTION_NAMES}
    misplaced = [k for k in shape_kwargs if k not in names or k in given]
    given.update(shape_kwargs)
    listing = (window_length,) + args
    if len(args) > len(names) or misplaced or set(given) != set(names[:len(given)]):
        _invalid_combination(name, shape_params, listing, kwargs)
    periodic = given.get("periodic", True)
    values = [given[p] for p in shape_params if p in given]
    if not isinstance(periodic, bool) or any(isinstance(v, bool) or not isinstance(v, (int, float))
                                             for v in values):
        _invalid_combination(name, shape_params, listing, kwargs)
    try:
        if isinstance(window_length, bool):
            raise TypeError
        length = operator.index(window_length)
    except TypeError:
        # PyTorch's parser names the bad argument only when one overload takes this many arguments (the
        # options counted): overload k takes k + 1 positional arguments and the five options.
        count = len(listing) + len(kwargs)
        plausible = [k for k in range(len(names) + 1) if k + 1 <= count <= k + 1 + len(_OPTION_NAMES)]
        if len(plausible) != 1:
            _invalid_combination(name, shape_params, listing, kwargs)
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}") from None
    return length, periodic, values


def _window(name, body, shape_params=()):
    """PyTorch's window recipe: a periodic window is the symmetric one of length + 1 without its last value;
    body(n, length, *shape values) computes in the requested dtype, step by step as ATen does (so 16-bit values
    match)."""
    def fn(window_length, *args, **kwargs):
        window_length, periodic, values = _parse(name, shape_params, window_length, args, kwargs)
        options = {k: kwargs.get(k) for k in _OPTION_NAMES}
        dtype, device = options["dtype"], options["device"]
        dtype = _window_checks(name, window_length, dtype, device, options)
        if window_length <= 1:
            out = _C.ones(window_length, dtype=dtype, device=device)
        else:
            length = window_length + 1 if periodic else window_length
            out = body(_C.arange(length, dtype=dtype, device=device), length, *values)
            out = out.narrow(0, 0, window_length) if periodic else out
            if out.dtype != dtype:  # an integer window on meta (the only place one is allowed): PyTorch's dtype
                out = out.to(dtype)
        return out.requires_grad_() if options["requires_grad"] else out

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
