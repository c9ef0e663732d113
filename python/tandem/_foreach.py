"""PyTorch's torch._foreach_* functions (list-of-tensors forms of elementwise ops that EMA helpers and
hand-written optimizers call): each applies the per-tensor op of tandem to every tensor of the list, with
PyTorch's argument forms (a scalar, a list of scalars, a list of tensors or a tensor of scalars) and errors.
tandem has no multi-tensor kernel: these save the Python loop in user code, not kernel launches."""
import numbers

from . import _C

Tensor = _C.Tensor

UNARY = ("abs acos asin atan ceil cos cosh erf erfc exp expm1 floor frac lgamma log log10 log1p log2 neg "
         "reciprocal round rsqrt sigmoid sign sin sinh sqrt tan tanh trunc").split()
# name: (tensor op, whether `alpha=` applies to a tensor-list `other`)
BINARY = {"add": ("add", True), "sub": ("sub", True), "mul": ("mul", False), "div": ("div", False),
          "maximum": ("maximum", False), "minimum": ("minimum", False), "clamp_min": ("clamp_min", False),
          "clamp_max": ("clamp_max", False), "pow": ("pow", False)}


def _tensors(name, tensors, arg="self"):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument '{arg}' must be tuple of Tensors, not {type(tensors).__name__}")
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"{name}(): argument '{arg}' must be tuple of Tensors")
    return tensors


def _per_tensor(name, tensors, other, arg="other"):
    """other spread over the list: a scalar or a tensor of one value for all, or one entry per tensor."""
    if isinstance(other, numbers.Number):
        return [other] * len(tensors)
    if isinstance(other, Tensor):
        if other.dim() == 0:
            return [other] * len(tensors)
        if other.dim() == 1 and other.numel() == len(tensors):  # a tensor of scalars (addcmul's `scalars`)
            return other.tolist()
        raise RuntimeError(f"{name}(): expected a 0-d tensor or one value per tensor, got shape {tuple(other.shape)}")
    if isinstance(other, (list, tuple)):
        values = list(other)
        if all(isinstance(v, Tensor) for v in values):
            if len(values) != len(tensors):
                raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(tensors)} and "
                                   f"{len(values)}")
            return values
        if len(values) != len(tensors):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return values
    raise TypeError(f"{name}(): argument '{arg}' must be tuple of Tensors, not {type(other).__name__}")


def _unary(op):
    def out_of_place(self):
        return tuple(getattr(t, op)() for t in _tensors(f"_foreach_{op}", self))

    def in_place(self):
        tensors = _tensors(f"_foreach_{op}_", self)
        for t in tensors:
            getattr(t, op + "_")()
        return tensors
    return out_of_place, in_place


def _binary(name, op, takes_alpha):
    def check_alpha(fn, other, alpha):
        if alpha != 1 and not (takes_alpha and isinstance(other, (list, tuple))):
            raise TypeError(f"{fn}(): argument 'other' (position 2) must be tuple of Tensors, not "
                            f"{type(other).__name__}")

    def out_of_place(self, other, *, alpha=1):
        fn = f"_foreach_{name}"
        tensors = _tensors(fn, self)
        check_alpha(fn, other, alpha)
        kw = {"alpha": alpha} if alpha != 1 else {}
        return tuple(getattr(t, op)(o, **kw) for t, o in zip(tensors, _per_tensor(fn, tensors, other)))

    def in_place(self, other, *, alpha=1):
        fn = f"_foreach_{name}_"
        tensors = _tensors(fn, self)
        check_alpha(fn, other, alpha)
        kw = {"alpha": alpha} if alpha != 1 else {}
        for t, o in zip(tensors, _per_tensor(fn, tensors, other)):
            getattr(t, op + "_")(o, **kw)
        return tensors
    return out_of_place, in_place


def _foreach_pow(self, exponent):
    if isinstance(self, numbers.Number):  # a scalar base raised to each tensor
        return tuple(_C.pow(self, t) for t in _tensors("_foreach_pow", exponent, "exponent"))
    return _BINARY_FNS["pow"][0](self, exponent)


def _ternary(name):
    def out_of_place(self, tensor1, tensor2, value=1):
        fn = f"_foreach_{name}"
        tensors = _tensors(fn, self)
        t1, t2 = _per_tensor(fn, tensors, tensor1, "tensor1"), _per_tensor(fn, tensors, tensor2, "tensor2")
        return tuple(getattr(t, name)(a, b, value=v)
                     for t, a, b, v in zip(tensors, t1, t2, _per_tensor(fn, tensors, value, "scalars")))

    def in_place(self, tensor1, tensor2, value=1):
        fn = f"_foreach_{name}_"
        tensors = _tensors(fn, self)
        t1, t2 = _per_tensor(fn, tensors, tensor1, "tensor1"), _per_tensor(fn, tensors, tensor2, "tensor2")
        for t, a, b, v in zip(tensors, t1, t2, _per_tensor(fn, tensors, value, "scalars")):
            getattr(t, name + "_")(a, b, value=v)
        return tensors
    return out_of_place, in_place


def _foreach_lerp(self, tensors1, weight):
    tensors = _tensors("_foreach_lerp", self)
    ends, weights = _per_tensor("_foreach_lerp", tensors, tensors1, "tensors1"), _per_tensor(
        "_foreach_lerp", tensors, weight, "weight")
    return tuple(t.lerp(e, w) for t, e, w in zip(tensors, ends, weights))


def _foreach_lerp_(self, tensors1, weight):
    tensors = _tensors("_foreach_lerp_", self)
    ends, weights = _per_tensor("_foreach_lerp_", tensors, tensors1, "tensors1"), _per_tensor(
        "_foreach_lerp_", tensors, weight, "weight")
    for t, e, w in zip(tensors, ends, weights):
        t.lerp_(e, w)
    return tensors


def _foreach_norm(self, ord=2, dtype=None):
    from . import linalg  # noqa: PLC0415  (imported after tandem's namespace is complete)
    return tuple(linalg.vector_norm(t, ord, dtype=dtype) for t in _tensors("_foreach_norm", self))


def _foreach_max(self):
    return tuple(t.max() for t in _tensors("_foreach_max", self))


def _foreach_powsum(self, ord=2, dtype=None):
    return tuple((t.to(dtype) if dtype is not None else t).abs().pow(ord).sum()
                 for t in _tensors("_foreach_powsum", self))


def _foreach_zero_(self):
    tensors = _tensors("_foreach_zero_", self)
    for t in tensors:
        t.zero_()
    return tensors


def _foreach_copy_(self, src, non_blocking=False):
    tensors = _tensors("_foreach_copy_", self)
    for t, s in zip(tensors, _per_tensor("_foreach_copy_", tensors, _tensors("_foreach_copy_", src, "src"))):
        t.copy_(s, non_blocking=non_blocking)
    return tensors


def _foreach_clone(self):
    return tuple(t.clone() for t in _tensors("_foreach_clone", self))


_BINARY_FNS = {name: _binary(name, op, alpha) for name, (op, alpha) in BINARY.items()}


def install(namespace):
    for op in UNARY:
        namespace[f"_foreach_{op}"], namespace[f"_foreach_{op}_"] = _unary(op)
    for name, (out_of_place, in_place) in _BINARY_FNS.items():
        namespace[f"_foreach_{name}"], namespace[f"_foreach_{name}_"] = out_of_place, in_place
    namespace["_foreach_pow"] = _foreach_pow
    for name in ("addcmul", "addcdiv"):
        namespace[f"_foreach_{name}"], namespace[f"_foreach_{name}_"] = _ternary(name)
    for fn in (_foreach_lerp, _foreach_lerp_, _foreach_norm, _foreach_max, _foreach_powsum, _foreach_zero_,
               _foreach_copy_, _foreach_clone):
        namespace[fn.__name__] = fn
