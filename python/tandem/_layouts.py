"""Constants (e, pi, inf, nan, newaxis), layouts and memory formats: tandem.strided (dense strided tensors),
tandem.sparse_coo and tandem.sparse_csr (tandem.sparse's COO and CSR tensors) and the memory formats
contiguous_format, preserve_format, channels_last and channels_last_3d, accepted where PyTorch accepts them.
A channels-last tensor is a row-major copy of the permuted tensor viewed back (NCHW sizes, NHWC strides), so
every op reads it through its strides; is_contiguous(memory_format=...) checks strides with PyTorch's rules."""
import math

from . import _C

Tensor = _C.Tensor


class NamedConstant:
    """A module-level singleton of tandem's namespace (tandem.strided, tandem.channels_last, ...): printed and
    pickled by its name, so a loaded copy is the very object."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"tandem.{self._name}"

    def __reduce__(self):
        return self._name


class layout(NamedConstant):
    """A tensor layout: strided (dense tensors), sparse_coo, sparse_csr or sparse_csc (tandem.sparse)."""


class memory_format(NamedConstant):
    """How a tensor's elements are ordered in memory (PyTorch's torch.memory_format)."""


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

e, pi, inf, nan, newaxis = math.e, math.pi, math.inf, math.nan, None


def is_sparse_tensor(t):
    """A tandem.sparse tensor (COO, CSR or CSC): a Tensor whose C++ tensor is a placeholder (tandem/sparse/_base.py),
    so code that hands tensors to C++ directly must take it apart (or refuse it) instead."""
    return type(t) is not Tensor and isinstance(t, Tensor) and t.layout is not strided

__all__ = ["e", "pi", "inf", "nan", "newaxis", "layout", "memory_format", "strided", "sparse_coo", "sparse_csr",
           "sparse_csc", "contiguous_format", "preserve_format", "channels_last", "channels_last_3d"]

# The dims of NCHW / NCDHW from outermost to innermost in memory (N, then spatial, channels last).
_ORDERS = {channels_last: (0, 2, 3, 1), channels_last_3d: (0, 2, 3, 4, 1)}
_RANKS = {channels_last: 4, channels_last_3d: 5}


def _parser_type_name(x):
    """A type as PyTorch's argument parser names it: builtins bare, Tensor bare, others by module (torch.dtype,
    numpy.ndarray); tandem's own types under tandem, as PyTorch's under torch."""
    kind = type(x)
    module = kind.__module__ or ""
    if module == "builtins" or isinstance(x, Tensor):
        return kind.__name__
    return f"tandem.{kind.__qualname__}" if module.startswith("tandem") else f"{module}.{kind.__qualname__}"


def _check_format(name, fmt):
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{name}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{_parser_type_name(fmt)}")


def _check_rank(t, fmt):
    rank = _RANKS.get(fmt)
    if rank is not None and t.dim() != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")


def _is_contiguous_in(t, fmt):
    """PyTorch's compute_channels_last_contiguous_2d/3d: size-1 dims may have any stride."""
    if t.dim() != _RANKS[fmt]:
        return False
    sizes, strides, expected = tuple(t.shape), t.stride(), 1
    for d in reversed(_ORDERS[fmt]):
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True


def _dense_order(t):
    """The dims of t from outermost to innermost in memory when t is non-overlapping and dense, else None."""
    sizes, strides = tuple(t.shape), t.stride()
    order = sorted(range(len(sizes)), key=lambda d: -strides[d])
    expected = 1
    for d in reversed(order):
        if sizes[d] != 1:
            if strides[d] != expected:
                return None
            expected *= sizes[d]
    return order


def _inverse(order):
    return sorted(range(len(order)), key=order.__getitem__)


def _laid_out(t, order, copy):
    """t's values with dims `order` row-major in memory: a row-major copy of the permuted tensor, viewed back."""
    order = list(order)
    if t.numel() == 0:
        return _empty_laid_out(t, order)
    moved = t.permute(order)
    moved = _row_major_copy(moved) if copy else moved.contiguous()
    return moved.permute(_inverse(order))


def _row_major_copy(t):
    """A new row-major copy of t in one pass (clone keeps t's layout; contiguous() copies a non-row-major t)."""
    return Tensor.clone(t) if Tensor.is_contiguous(t) else Tensor.contiguous(t)


def _dense_strides(sizes, order):
    """PyTorch's strides for dims `order` outermost to innermost: each the next inner stride times that dim's size
    (size-1 dims included, and a 0 size gives the outer dims stride 0, as its empty() gives them)."""
    strides, step = [0] * len(sizes), 1
    for d in reversed(order):
        strides[d] = step
        step *= sizes[d]
    return tuple(strides)


def _empty_laid_out(t, order):
    """An empty tensor in `order`: every layout holds it, so PyTorch's strides are only its formula's."""
    return Tensor.clone(t).as_strided(tuple(t.shape), _dense_strides(tuple(t.shape), order))


def _target_order(t, fmt):
    """The dim order fmt (channels_last, channels_last_3d) asks for t."""
    _check_rank(t, fmt)
    return _ORDERS.get(fmt)


def follow_input_layout(out, *likes):
    """out laid out channels-last (channels_last_3d for 5 dims) when one of `likes` of out's rank suggests it
    (PyTorch's suggest_memory_format), as PyTorch's padding, interpolation, group norm, 3-d and transposed
    convolution, 3-d and adaptive max pooling, shuffle and unpooling results are; else out itself. The
    Python-level ops compute row-major and copy once here (the C++ ones do the same: ops/layout.h)."""
    rank = out.dim()
    if rank not in (4, 5) or not any(
            isinstance(t, Tensor) and t.dim() == rank and _C._suggests_channels_last(t) for t in likes):
        return out
    sizes = tuple(out.shape)
    strides = _dense_strides(sizes, _ORDERS[channels_last if rank == 4 else channels_last_3d])
    if out.stride() == strides:
        return out
    laid_out = Tensor.new_empty(out, sizes)
    _C._lay_out_fresh(laid_out, strides)
    return laid_out.copy_(out)  # with out's history, when it has one


_original = {}


# The memory_format= forms of four Tensor methods. The C++ bindings handle the calls without memory_format and
# call these only when one is passed (python/src/layouts.h), so plain calls pay no Python frame.

def contiguous(self, memory_format):
    _check_format("contiguous", memory_format)
    if memory_format is contiguous_format:
        return Tensor.contiguous(self)
    if memory_format is preserve_format:  # PyTorch returns an already contiguous tensor before refusing
        if Tensor.is_contiguous(self):
            return self
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    _check_rank(self, memory_format)
    return self if _is_contiguous_in(self, memory_format) else _laid_out(self, _ORDERS[memory_format], False)


def is_contiguous(self, memory_format):
    _check_format("is_contiguous", memory_format)
    if memory_format is contiguous_format or memory_format is preserve_format:
        return Tensor.is_contiguous(self)  # PyTorch answers preserve_format as the default contiguity
    return _is_contiguous_in(self, memory_format)


def clone(self, memory_format):
    """A copy in memory_format's layout (Tensor.clone without one keeps self's: preserve_format, in C++)."""
    _check_format("clone", memory_format)
    if memory_format is preserve_format:
        return Tensor.clone(self)
    order = _target_order(self, memory_format) if memory_format is not contiguous_format else None
    return _laid_out(self, order, True) if order is not None else _row_major_copy(self)


def _suggested_format(t):
    """PyTorch's suggest_memory_format: channels_last (channels_last_3d) for a 4-d (5-d) tensor whose strides are
    channels-last, else contiguous_format."""
    if t.dim() in (4, 5) and _C._suggests_channels_last(t):
        return channels_last if t.dim() == 4 else channels_last_3d
    return contiguous_format


def to(self, out, memory_format):
    """out (self moved or converted by Tensor.to, laid out as self: preserve_format, in C++) in memory_format's
    layout."""
    _check_format("to", memory_format)
    if memory_format is preserve_format:
        return out
    # PyTorch's to_will_alias: a call that changes neither device, dtype nor copies returns self when self's
    # suggested format (channels-last strides of its rank, else contiguous) is the one asked, so a transposed
    # matrix or an expanded row stays as it is under contiguous_format
    if out is self and memory_format is _suggested_format(self):
        return out
    order = _target_order(out, memory_format) if memory_format is not contiguous_format else None
    if order is None:
        return out if Tensor.is_contiguous(out) else Tensor.contiguous(out)
    if _dense_order(out) == list(order):
        return out
    return _laid_out(out, order, False)


def like(name, input, args, kwargs, memory_format, layout):
    """The *_like factories' calls that C++ does not answer itself (python/src/layouts.h): a layout other than
    strided, an explicit memory format other than contiguous_format, or a non-row-major input under
    preserve_format. The factory is called back with memory_format=contiguous_format, which C++ answers."""
    make = getattr(_C, name)
    check_dense(layout, name)
    if memory_format is None:
        memory_format = preserve_format
    _check_format(name, memory_format)
    if memory_format is preserve_format:
        # Made row-major, then given the input's layout in place (the exact strides, size-1 dims included).
        out = make(input, *args, memory_format=contiguous_format, **kwargs)
        strides = _C._preserved_strides(input)
        if strides is not None:
            _C._lay_out_fresh(out, strides)
        return out
    order = _target_order(input, memory_format) if memory_format is not contiguous_format else None
    if order is None:
        return make(input, *args, memory_format=contiguous_format, **kwargs)
    requires_grad = kwargs.pop("requires_grad", False)
    # Made for the permuted input (row-major), viewed back: the fill runs once, on dense memory.
    out = make(input.permute(list(order)), *args, memory_format=contiguous_format, **kwargs)
    out = out.permute(_inverse(order))
    return out.requires_grad_() if requires_grad else out


def check_dense(given, name):
    """A factory's layout=: None or strided (PyTorch programs pass it); a sparse one is not made here (the C++
    factories' check_dense_layout, python/src/tensor.cpp, says the same)."""
    if given is None or given is strided:
        return
    if not isinstance(given, layout):
        raise TypeError(f"{name}(): argument 'layout' must be torch.layout, not {type(given).__name__}")
    raise NotImplementedError(f"{name}(): layout={given} is not supported\nhint: tandem's factories make "
                              "strided tensors; leave layout out (and call .to_sparse() for a sparse one)")


def empty(*size, memory_format=contiguous_format, layout=None, **kwargs):
    check_dense(layout, "empty")
    _check_format("empty", memory_format)
    if memory_format is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    if memory_format is contiguous_format:
        out = kwargs.get("out")
        if isinstance(out, Tensor) and out.requires_grad:  # PyTorch resizes out, which refuses (any grad mode)
            raise RuntimeError("cannot resize variables that require grad")
        return _original["empty"](*size, **kwargs)
    requires_grad = kwargs.pop("requires_grad", False)
    shape = _original["empty"](*size, **kwargs).shape  # tandem's own parsing of the size forms
    if len(shape) != _RANKS[memory_format]:
        raise RuntimeError(f"required rank {_RANKS[memory_format]} tensor to use {memory_format._name} format")
    order = _ORDERS[memory_format]
    out = _original["empty"]([shape[d] for d in order], **kwargs).permute(_inverse(order))
    return out.requires_grad_() if requires_grad else out


def _layout_property(self):
    return strided


def install(namespace):
    """Adds the layout objects, memory_format= on empty(), Tensor.layout."""
    for name in __all__:
        namespace.setdefault(name, globals()[name])
    if _original:
        return  # installed once: the wrappers below must wrap tandem's own functions, not themselves
    _original["empty"] = namespace["empty"]
    namespace["empty"] = empty
    if not hasattr(Tensor, "layout"):
        Tensor.layout = property(_layout_property)
