"""PyTorch's argument checks of torch.norm and Tensor.norm in front of the core's norm.

PyTorch's torch.norm is linalg.vector_norm (a numeric p, or 'fro' over at most two dims) or linalg.matrix_norm
(other strings): with dtype= the input must be floating or complex and the dtype may not narrow it, and an inf or
negative p over an empty dimension has no identity to return (a RuntimeError, where a plain reduction would give 0
or inf). The core's norm skips those checks, so they are made here; a non-empty input without dtype= (the common
call) pays one numel() and goes straight through."""
import math

from . import _C

_FORWARD = ("p", "dim", "keepdim", "out", "dtype")  # torch.norm's parameters after input, by position
_METHOD = ("p", "dim", "keepdim", "dtype")  # Tensor.norm's


def _named(names, args, kwargs):
    given = dict(zip(names, args))
    given.update(kwargs)
    return given


def _check(input, given):
    dtype = given.get("dtype")
    if dtype is None and input.numel() != 0:
        return
    from . import linalg  # noqa: PLC0415  (linalg imports the package)
    p, dim = given.get("p", "fro"), given.get("dim")
    if dtype is not None and not isinstance(dtype, _C.dtype):
        return  # the core's TypeError
    if isinstance(dim, (str, bool)) or (dim is not None and not isinstance(dim, int) and not (
            isinstance(dim, (tuple, list)) and all(isinstance(d, int) and not isinstance(d, bool) for d in dim))):
        return  # named or odd dims: the core's own errors
    dims = [dim] if isinstance(dim, int) else (None if dim is None else list(dim))
    vector = not isinstance(p, str) or (p == "fro" and (dims is None or len(dims) <= 2))
    name = "linalg.vector_norm" if vector else "linalg.matrix_norm"
    if dtype is not None:
        linalg._check_floating_or_complex(input, name)
        linalg._check_norm_dtype(name, input.dtype, dtype)
    if input.numel() != 0 or isinstance(p, str) or p is None or not (p < 0 or p == math.inf):
        return
    order = linalg._scalar_text(p)
    if not dims:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {order} norm on an empty tensor because the "
                           "operation does not have an identity")
    for d in dims:
        if input.shape[d] == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {order} norm on the dimension {d}because this "
                               "dimension is empty and the operation does not have an identity")


def install(namespace):
    core_norm, core_method = _C.norm, _C.Tensor.norm

    def norm(input, *args, **kwargs):
        if isinstance(input, _C.Tensor):
            _check(input, _named(_FORWARD, args, kwargs))
        return core_norm(input, *args, **kwargs)

    def norm_method(self, *args, **kwargs):
        _check(self, _named(_METHOD, args, kwargs))
        return core_method(self, *args, **kwargs)

    norm.__doc__, norm_method.__doc__ = core_norm.__doc__, core_method.__doc__
    norm_method.__name__ = norm_method.__qualname__ = "norm"
    namespace["norm"] = norm
    _C.Tensor.norm = norm_method
