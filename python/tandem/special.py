"""tandem.special: PyTorch's torch.special names over tandem's ops. Each name is an op of the op list
(src/kernels/op_list.def: one kernel per function, with its gradient where PyTorch has one) or a composition
in the C++ front ends (src/ops/special.cpp: polygamma, multigammaln, logit's eps); nothing here computes.
PyTorch's parser names these functions special_<name> in its errors: _parser_named words the bindings' so."""
import inspect

from . import _C, _parser_errors, _parser_types
from ._out import CASTABLE, with_out

erf = _C.erf
erfc = _C.erfc
erfinv = _C.erfinv
erfcx = _C.erfcx
expit = _C.sigmoid
from ._compositions_more import logit  # noqa: E402  (eps= with out=)
exp2 = _C.exp2
expm1 = _C.expm1
log1p = _C.log1p
gammaln = _C.lgamma
digamma = _C.digamma
psi = _C.digamma
polygamma = _C.polygamma
i0 = _C.i0
i0e = _C.i0e
i1 = _C.i1
i1e = _C.i1e
# PyTorch's modified_bessel_i0/i1 are their own ops (Cephes's Chebyshev series, their own autograd nodes,
# no float16), not aliases of i0/i1.
modified_bessel_i0 = _C.modified_bessel_i0
modified_bessel_i1 = _C.modified_bessel_i1
sinc = _C.sinc
ndtr = _C.ndtr
ndtri = _C.ndtri
log_ndtr = _C.log_ndtr
xlogy = _C.xlogy
xlog1py = _C.xlog1py
zeta = _C.zeta
gammainc = _C.igamma
gammaincc = _C.igammac
bessel_j0 = _C.bessel_j0
bessel_j1 = _C.bessel_j1
bessel_y0 = _C.bessel_y0
bessel_y1 = _C.bessel_y1
modified_bessel_k0 = _C.modified_bessel_k0
modified_bessel_k1 = _C.modified_bessel_k1
scaled_modified_bessel_k0 = _C.scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _C.scaled_modified_bessel_k1
spherical_bessel_j0 = _C.spherical_bessel_j0
airy_ai = _C.airy_ai
chebyshev_polynomial_t = _C.chebyshev_polynomial_t
chebyshev_polynomial_u = _C.chebyshev_polynomial_u
chebyshev_polynomial_v = _C.chebyshev_polynomial_v
chebyshev_polynomial_w = _C.chebyshev_polynomial_w
shifted_chebyshev_polynomial_t = _C.shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = _C.shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = _C.shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = _C.shifted_chebyshev_polynomial_w
hermite_polynomial_h = _C.hermite_polynomial_h
hermite_polynomial_he = _C.hermite_polynomial_he
laguerre_polynomial_l = _C.laguerre_polynomial_l
legendre_polynomial_p = _C.legendre_polynomial_p
entr = _C.entr
round = _C.round
logsumexp = _C.logsumexp


def _normalizer(name, core, params):
    """special.softmax / special.log_softmax: the core's function under PyTorch's signature for the special
    namespace (no out=; dtype positional for softmax only), with its parser's TypeErrors."""
    def fn(*args, **kwargs):
        if len(args) > len(params):
            takes = f"from 2 to {len(params)}" if len(params) > 2 else str(len(params))
            raise TypeError(f"{name}() takes {takes} positional arguments but {len(args)} were given")
        bound = dict(zip(params, args))
        for key, value in kwargs.items():
            if key not in ("input", "dim", "dtype"):
                raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
            if key in bound:
                raise TypeError(f"{name}() got multiple values for argument '{key}'")
            bound[key] = value
        missing = [p for p in ("input", "dim") if p not in bound]
        if missing:
            plural = "s" if len(missing) == 1 else ""  # PyTorch's parser has the plural the other way round
            raise TypeError(f"{name}() missing {len(missing)} required positional argument{plural}: "
                            + ", ".join(f'"{p}"' for p in missing))
        _parser_types.check(name, args, kwargs, (("input", None), ("dim", "int")))
        return core(bound["input"], bound["dim"], dtype=bound.get("dtype"))

    fn.__name__ = fn.__qualname__ = name.split("_", 1)[1]
    fn.__doc__ = core.__doc__
    return fn


softmax = _normalizer("special_softmax", _C.softmax, ("input", "dim", "dtype"))
log_softmax = _normalizer("special_log_softmax", _C.log_softmax, ("input", "dim"))


# PyTorch's parameter names where they are not the bindings' (its newer special functions take x).
_PARAMETER_NAMES = {name: (("input", "x"),) for name in ("scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
                                                         "spherical_bessel_j0", "airy_ai")}


def _parser_named(name, fn):
    """fn (a binding, or a Python function over one) as torch.special.<name>: a call its parser refuses is PyTorch's
    TypeError for special_<name> ("special_gammaln(): argument 'input' (position 1) must be Tensor, not list"; the
    binding says lgamma()), explained as PyTorch's parser would where nanobind only lists the overloads."""
    core = fn.__name__

    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            text = str(e)
            if not text.startswith(f"{core}()"):
                raise
            text = _parser_errors.message(fn, args, kwargs, None, text) or text
            for ours, theirs in _PARAMETER_NAMES.get(name, ()):
                text = text.replace(f"argument '{ours}'", f"argument '{theirs}'")
            raise TypeError(f"special_{name}{text[len(core):]}") from None

    call.__name__ = call.__qualname__ = name
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn
    return call


_mvlgamma = _parser_named("multigammaln", _C.mvlgamma)


@with_out("special.multigammaln", CASTABLE)
def multigammaln(*args, **kwargs):
    """log of the multivariate gamma function of dimension p (torch.special.multigammaln; tandem.mvlgamma)."""
    return _mvlgamma(*args, **kwargs)


multigammaln.__signature__ = inspect.signature(lambda input, p, *, out=None: None)


__all__ = ["erf", "erfc", "erfinv", "erfcx", "expit", "logit", "exp2", "expm1", "log1p", "gammaln", "digamma",
           "psi", "polygamma", "multigammaln", "i0", "i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1",
           "sinc", "ndtr", "ndtri", "log_ndtr", "xlogy", "xlog1py", "zeta", "entr", "round", "logsumexp", "softmax",
           "log_softmax", "gammainc", "gammaincc", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
           "airy_ai", "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
           "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]

for _name in __all__:
    if _name not in ("softmax", "log_softmax", "multigammaln"):
        globals()[_name] = _parser_named(_name, globals()[_name])
