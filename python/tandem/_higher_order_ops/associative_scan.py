"""associative_scan(combine_fn, xs, dim, reverse=False, combine_mode="pointwise"): an inclusive scan with an
associative combine function over a tensor or a pytree of tensors (sbi's LRU embedding net). PyTorch's eager path
is its generic algorithm (pairs of neighbours combined, the half-length scan, the even elements filled in); it runs
here as that algorithm, op by op, so results round as PyTorch's and gradients flow through the ops inside. The
halving recurses log2(length) deep."""
import functools

from .. import _C
from ..utils import _pytree


def _slice(t, dim, start, end=None, step=1):
    return t[(slice(None),) * dim + (slice(start, end, step),)]


def _interleave(a, b, dim=0):
    """a[0], b[0], a[1], b[1], ... along dim (a may be one longer than b)."""
    from .. import nn, stack, flatten  # noqa: PLC0415 (the package imports this module)

    truncated = a.shape[dim] == b.shape[dim] + 1
    if truncated:
        pad = [0] * ((b.ndim - dim - 1) * 2 + 1) + [1] + [0] * (b.ndim * 2 - ((b.ndim - dim - 1) * 2 + 2))
        b = nn.functional.pad(b, pad)
    interleaved = flatten(stack([a, b], dim=dim + 1), start_dim=dim, end_dim=dim + 1)
    if truncated:
        interleaved = _slice(interleaved, dim, 0, b.shape[dim] + a.shape[dim] - 1)
    return interleaved


def generic_associative_scan(operator, leaves, dim=0, additional_inputs=()):
    """The scan of a list of same-shaped tensors along dim; operator(*lhs_leaves, *rhs_leaves) gives a pytree."""
    from .. import cat  # noqa: PLC0415

    def call_operator(*args):
        return _pytree.tree_leaves(operator(*args))

    def scan(elems):
        num_elems = elems[0].shape[dim]
        if num_elems < 2:
            return elems
        reduced = call_operator(*[_slice(e, dim, 0, -1, 2) for e in elems], *[_slice(e, dim, 1, None, 2) for e in elems],
                                *additional_inputs)
        odd = scan(reduced)
        if num_elems % 2 == 0:
            even = call_operator(*[_slice(e, dim, 0, -1) for e in odd], *[_slice(e, dim, 2, None, 2) for e in elems],
                                 *additional_inputs)
        else:
            even = call_operator(*odd, *[_slice(e, dim, 2, None, 2) for e in elems], *additional_inputs)
        even = [cat([_slice(elem, dim, 0, 1), result], dim=dim) if result.numel() > 0 and elem.shape[dim] > 0
                else result if result.numel() > 0 else _slice(elem, dim, 0, 1)
                for elem, result in zip(elems, even)]
        return [_interleave(e, o, dim=dim) for e, o in zip(even, odd)]

    return scan(leaves)


def _combine_flat(*args, combine_fn, spec, num_leaves):
    if len(args) != 2 * num_leaves:
        raise AssertionError(f"Combine_fn received wrong number of arguments, expected {2 * num_leaves}, but got "
                             f"{len(args)}")
    return combine_fn(_pytree.tree_unflatten(list(args[:num_leaves]), spec),
                      _pytree.tree_unflatten(list(args[num_leaves:]), spec))


def _validate(combine_fn, leaves, dim, reverse, combine_mode):
    if not callable(combine_fn):
        raise ValueError(f"Combine_fn must be a callable, but got {combine_fn}")
    if not isinstance(dim, int):
        raise ValueError("Dim must be an int, but got " + str(type(dim)))
    if not isinstance(reverse, bool):
        raise RuntimeError("Reverse must be a bool, but got " + str(type(reverse)))
    if combine_mode not in ["pointwise", "generic"]:
        raise ValueError(f"Combine_mode must either 'pointwise' or 'generic', but got {combine_mode}")
    if len(leaves) == 0:
        raise ValueError("Expected at least 1 xs leaf")
    if any(not isinstance(x, _C.Tensor) for x in leaves):
        raise ValueError("xs leaves must be a Tensor")
    if any(x.is_sparse for x in leaves):
        raise ValueError("xs leaves must dense Tensors, consider using `to_dense()`")
    if any(x.ndim <= dim for x in leaves):
        raise ValueError("All xs leaves must have at least 'dim + 1' dimensions")


def _canonical_dim(ndim, dim):
    rank = max(ndim, 1)
    if isinstance(dim, int) and not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    return dim % rank if isinstance(dim, int) else dim


def associative_scan(combine_fn, xs, dim, reverse=False, combine_mode="pointwise"):
    """Inclusive scan of xs (a tensor or pytree of tensors) along dim with the associative combine_fn; "generic"
    mode calls combine_fn through vmap, "pointwise" directly on the batched slices."""
    from .. import movedim, flip, vmap  # noqa: PLC0415

    leaves, spec = _pytree.tree_flatten(xs)
    dim = _canonical_dim(leaves[0].ndim, dim)  # before the checks, as PyTorch (no leaf: IndexError)
    _validate(combine_fn, leaves, dim, reverse, combine_mode)
    leaves = [movedim(x, dim, 0) for x in leaves]
    if reverse:
        leaves = [flip(x, [0]) for x in leaves]
    if combine_mode == "generic":
        in_dims = _pytree.tree_unflatten([0] * len(leaves), spec)
        combine_fn = vmap(combine_fn, in_dims=(in_dims, in_dims), out_dims=0)
    operator = functools.partial(_combine_flat, combine_fn=combine_fn, spec=spec, num_leaves=len(leaves))
    out = generic_associative_scan(operator, leaves)
    if reverse:
        out = [x.flip([0]) for x in out]
    return _pytree.tree_unflatten([movedim(x, 0, dim) for x in out], spec)
