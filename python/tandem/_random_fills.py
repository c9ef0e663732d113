"""Tensor methods that fill a tensor in place with random draws: exponential_, geometric_, cauchy_, log_normal_
(transforms of uniform_/normal_ draws, made in float64) and random_ (integers in [from, to) with PyTorch's
default range per dtype). The core's own uniform_, normal_ and bernoulli_ get the autograd rules of the others
(_graph_aware_fill)."""
import math

from . import _C, _parser_errors
from ._compositions import _name


def _fmt(value):
    return f"{value:g}" if isinstance(value, float) else str(value)


def _check_float_distribution(self, name):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified " +
                           (self.dtype._scalar_type_name if name == "Exponential" else self.dtype._cpp_type_name))


def _check_generator(generator, name):
    """PyTorch's parser checks generator= before anything else, naming the method it parses."""
    if generator is not None and not isinstance(generator, _C.Generator):
        raise TypeError(f"{name}(): argument 'generator' must be tandem.Generator, not {type(generator).__name__}")


def _uniform_like(self, generator):
    """Uniform [0, 1) draws of self's shape, in float64 so the transforms below keep full precision."""
    return _C.empty(tuple(self.shape), dtype=_C.float64, device=self.device).uniform_(generator=generator)


def _fill_from(self, sample):
    return self.copy_(sample)  # recorded like PyTorch's fills: no gradient reaches self's old values


def _in_place(self, fill):
    """self filled by fill(tensor) (a C++ draw in place); a tensor inside a graph is overwritten through copy_,
    as the formulas below are."""
    if self.requires_grad and _C.is_grad_enabled():
        return _fill_from(self, fill(_C.empty_like(self.detach())))
    fill(self)
    return self


def _cpu_draws(self, kind, a, b, generator):
    """On the CPU, PyTorch's own kernel for `kind` (C++: one float64 per element from the generator's MT19937
    stream, libm's functions, PyTorch's order), so a seed gives its values bit for bit."""
    return _in_place(self, lambda t: _C._cpu_double_draws_(t, kind, a, b, generator))


def _exponential_(self, lambd=1.0, *, generator=None):
    _check_generator(generator, "exponential_")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    _check_float_distribution(self, "Exponential")
    if self.device.type == "cpu":
        return _cpu_draws(self, "exponential_", lambd, 0.0, generator)
    return _fill_from(self, (-_uniform_like(self, generator)).log1p() * (-1.0 / lambd))


def _geometric_(self, p, *, generator=None):
    _check_generator(generator, "geometric_")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    if self.dtype == _C.bool:  # PyTorch's kernel has no bool instantiation (counts start at 1)
        raise NotImplementedError(f"\"geometric_{self.device.type}\" not implemented for 'Bool'")
    if self.device.type == "cpu":
        return _cpu_draws(self, "geometric_", p, 0.0, generator)
    u = _uniform_like(self, generator)
    # The number of Bernoulli(p) trials up to the first success: ceil(log(u) / log1p(-p)) (PyTorch's formula),
    # at least 1.
    return _fill_from(self, (u.log() / math.log1p(-p)).ceil().clamp(min=1))


def _cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    _check_generator(generator, "cauchy_")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
    _check_float_distribution(self, "Cauchy")
    if self.device.type == "cpu":
        return _cpu_draws(self, "cauchy_", median, sigma, generator)
    u = _uniform_like(self, generator)
    return _fill_from(self, ((u - 0.5) * math.pi).tan() * sigma + median)


def _log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    _check_generator(generator, "log_normal_")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"log_normal_{self.device.type}\" not implemented for "
                                  f"'{self.dtype._scalar_type_name}'")
    if self.device.type == "cpu":
        return _cpu_draws(self, "log_normal_", mean, std, generator)
    # float64 normals, exponentiated
    buffer = _C.empty(tuple(self.shape) + (2,), dtype=_C.float64, device=self.device)[..., 0]
    return _fill_from(self, buffer.normal_(mean, std, generator=generator).exp())


# random_'s default range per dtype: [0, 2^digits] for floats (every integer there is exact), [0, max] for ints.
_RANDOM_TOP = {"float16": 2 ** 11, "bfloat16": 2 ** 8, "float32": 2 ** 24, "float64": 2 ** 53, "bool": 1,
               "uint8": 255, "int8": 127, "int16": 2 ** 15 - 1, "int32": 2 ** 31 - 1, "int64": 2 ** 63 - 1,
               "uint16": 2 ** 16 - 1, "uint32": 2 ** 32 - 1, "uint64": 2 ** 63 - 1}
_INT_RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-2 ** 15, 2 ** 15 - 1),
              "int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1), "bool": (0, 1),
              "uint16": (0, 2 ** 16 - 1), "uint32": (0, 2 ** 32 - 1), "uint64": (0, 2 ** 63 - 1)}


_RANDOM_SIGNATURES = [([], "*, torch.Generator generator = None"),
                      (["int from", "int to"], "*, torch.Generator generator = None"),
                      (["int to"], "*, torch.Generator generator = None")]


def _random_args(args, kwargs):
    given = dict(kwargs)  # the call's keywords, as PyTorch's messages list them
    generator = kwargs.get("generator")
    if generator is None or isinstance(generator, _C.Generator):
        kwargs.pop("generator", None)  # a generator of another type is reported with the arguments below
    if kwargs or len(args) > 2 or any(not isinstance(a, int) or isinstance(a, bool)
                                      for a in args if a is not None) or (len(args) == 1 and args[0] is None):
        if len(args) > 2:
            raise TypeError(f"random_() takes 2 positional arguments but {len(args)} were given")
        raise TypeError(_parser_errors.refusal("random_", _RANDOM_SIGNATURES, args, given))
    if any(a is not None and not -2 ** 63 <= a < 2 ** 63 for a in args):
        raise ValueError("Overflow when unpacking long long")  # PyTorch's parser reads int64 arguments
    if not args:
        return 0, None, generator
    if len(args) == 1:
        return 0, args[0], generator
    return args[0], args[1], generator


def _random_(self, *args, **kwargs):
    low, high, generator = _random_args(args, dict(kwargs))
    if self.dtype.is_complex:
        raise NotImplementedError(f"\"random_kernel_{self.device.type}\" not implemented for "
                                  f"'{self.dtype._scalar_type_name}'")
    name = _name(self.dtype)
    if not args and name in ("uint16", "uint32", "uint64"):  # PyTorch's no-bounds kernel lacks these types
        raise NotImplementedError(f"\"random_kernel_{self.device.type}\" not implemented for "
                                  f"'{self.dtype._scalar_type_name}'")
    if args and high is None and name == "uint64":  # PyTorch's to_inc is uint64's max read as int64: -1
        raise RuntimeError(f"to - 1 is out of bounds for {self.dtype._cpp_type_name}")
    to_given = high is not None
    if not to_given:  # random_() and random_(from, None): up to the dtype's default top
        high = _RANDOM_TOP[name] + 1
    if low >= high and to_given:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if self.dtype.is_floating_point:  # PyTorch moves the bounds to values the dtype holds, checks and warns
        low, high = _C._floating_random_bounds(self.dtype, low, high, to_given)
    elif name in _INT_RANGE:
        lo, hi = _INT_RANGE[name]
        if not lo <= low <= hi:
            raise RuntimeError(f"from is out of bounds for {self.dtype._cpp_type_name}")
        if not lo <= high - 1 <= hi:
            raise RuntimeError(f"to - 1 is out of bounds for {self.dtype._cpp_type_name}")
    if self.device.type == "cpu":
        # PyTorch's CPU kernels: low + draw % (high - low), the draw 64 bits wide from a span of 2^28 (2^64 is the
        # whole draw); random_() without bounds takes one 32-bit word for types narrower than 64 bits.
        one_word = not args and name not in ("int64", "uint64", "float64")
        return _in_place(self, lambda t: _C._cpu_random_range_(t, low, (high - low) % 2 ** 64, one_word, generator))
    if not args and name == "int64":
        # PyTorch's default int64 draw is 64 random bits modulo 2^63 (DataLoader and RandomSampler seed from it):
        # a draw over [-2^63, 0) is those bits modulo 2^63, less 2^63, and the mask adds 2^63 back.
        sample = _C.randint(-2 ** 63, 0, tuple(self.shape), dtype=_C.int64, generator=generator,
                            device=self.device).bitwise_and(2 ** 63 - 1)
    else:
        sample = _randint(low, high, tuple(self.shape), self.device, generator)
    return _fill_from(self, sample)


def _randint(low, high, shape, device, generator):
    """Uniform integers in [low, high) as int64; spans past 2^62 come from 64 random bits."""
    span = high - low
    if span <= 2 ** 62:
        return _C.randint(0, span, shape, generator=generator, device=device) + low

    def bits():
        return (_C.randint(-2 ** 31, 2 ** 31, shape, generator=generator, device=device) * 2 ** 32 +
                _C.randint(0, 2 ** 32, shape, generator=generator, device=device))

    if span <= 2 ** 63:
        positive = bits().bitwise_and(2 ** 63 - 1)  # uniform in [0, 2^63)
        return (positive if span == 2 ** 63 else positive.remainder(span)) + low
    # Wider than int64's positive half: u = bits + 2^63 is uniform in [0, 2^64); keep draws with u < span
    # (more than half of them) and redraw the rest.
    limit = span - 2 ** 63
    out = bits()
    rejected = out >= limit if limit < 2 ** 63 else _C.zeros(shape, dtype=_C.bool, device=device)
    while bool(rejected.any()):
        out = _C.where(rejected, bits(), out)
        rejected = out >= limit
    return out + (low + 2 ** 63)


def _check_normal_std(args, kwargs):
    """PyTorch's normal_ checks std before its kernel's dtype (an integer tensor with std -1 is the std's error); the
    core checks the dtype first. Arguments the parser would refuse are left to it."""
    std = args[1] if len(args) > 1 else kwargs.get("std", 1.0)
    generator = kwargs.get("generator")
    if generator is not None and not isinstance(generator, _C.Generator):
        return
    if isinstance(std, (int, float)) and not isinstance(std, bool) and not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}\n"
                           "hint: std is a standard deviation; pass its absolute value")


def _graph_aware_fill(name):
    """The core's `name` (uniform_, normal_, bernoulli_) with PyTorch's autograd rules, which the C++ fill does not
    apply: a leaf that requires grad is refused (outside no_grad), and a tensor inside a graph is overwritten
    through copy_, so no gradient reaches its old values. Tensors that need no gradient take the C++ path as is."""
    native = getattr(_C.Tensor, name)

    def fill(self, *args, **kwargs):
        if name == "normal_":
            _check_normal_std(args, kwargs)
        # (not a tensor: the core's method raises its descriptor TypeError)
        if isinstance(self, _C.Tensor) and self.requires_grad and _C.is_grad_enabled():
            if self.is_leaf:
                raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.\n"
                                   "hint: fill it under `with tandem.no_grad():` (as nn.init does), or use "
                                   "tandem.nn.init")
            return _fill_from(self, native(_C.empty_like(self.detach()), *args, **kwargs))
        return native(self, *args, **kwargs)

    fill.__name__ = fill.__qualname__ = name
    fill.__doc__ = native.__doc__
    fill.__wrapped__ = native  # its signature, for the parser errors of a refused call (_parser_errors.message)
    return fill


METHODS = {"exponential_": _exponential_, "geometric_": _geometric_, "cauchy_": _cauchy_,
           "log_normal_": _log_normal_, "random_": _random_,
           **{name: _graph_aware_fill(name) for name in ("uniform_", "normal_", "bernoulli_")}}
