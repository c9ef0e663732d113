"""tandem.func.vmap: the function run once per batch element (its inputs sliced along in_dims) and the results
stacked along out_dims -- PyTorch's values, nesting, in_dims/out_dims handling and error messages at the speed
of a Python loop (docs/compat.md, "torch.func")."""
import functools

from . import _C
from ._func_transforms import transform, vmap_element, vmap_level
from .utils._pytree import tree_flatten, tree_unflatten, tree_map_, _broadcast_to_and_flatten

Tensor = _C.Tensor


def _tandem():
    import tandem  # noqa: PLC0415  (imported while tandem itself is being set up)
    return tandem


def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _process_in_dims(func, in_dims, args):
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         "trying to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, args_spec = tree_flatten(args)
    flat_in_dims = _broadcast_to_and_flatten(in_dims, args_spec)
    if flat_in_dims is None:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {args_spec}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_in_dims)):
        if not isinstance(d, int) and d is not None:
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             "in_dim must be either an integer dimension or None.")
        if isinstance(d, int) and not isinstance(arg, Tensor):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             f"the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        if d is not None and (d < -arg.dim() or d >= arg.dim()):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, "
                             f"but that input is a Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy "
                             f"-{arg.dim()} <= in_dim < {arg.dim()}.")
        if d is not None and d < 0:
            flat_in_dims[i] = d % arg.dim()
        if isinstance(d, bool):  # passes the checks above as 0/1; PyTorch's Tensor.size(dim) then refuses it
            raise TypeError("size(): argument 'dim' (position 1) must be int, not bool")
    sizes = [a.size(d) for a, d in zip(flat_args, flat_in_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0], flat_in_dims, flat_args, args_spec


def _check_out_dims(func, out_dims):
    if isinstance(out_dims, int):
        return

    def check(x):
        if x is not None and not isinstance(x, int):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                             "python collection of ints representing where in the outputs the vmapped dimension "
                             "should appear.")
    tree_map_(check, out_dims)


class _RandomnessCheck:
    """randomness='error'/'same' for a loop: the default generators' states (CPU and every CUDA device)."""

    def __init__(self, randomness):
        self.randomness = randomness
        self.states = self._read() if randomness in ("error", "same") else None

    @staticmethod
    def _read():
        tandem = _tandem()
        cuda = tandem.cuda.get_rng_state_all() if tandem.cuda.is_available() else []
        return tandem.get_rng_state(), cuda

    def _restore(self):
        tandem = _tandem()
        tandem.set_rng_state(self.states[0])
        if self.states[1]:
            tandem.cuda.set_rng_state_all(self.states[1])

    def before_element(self, b):
        if self.randomness == "same" and b > 0:
            self._restore()

    def after_first_element(self):
        if self.randomness != "error":
            return
        tandem = _tandem()
        cpu, cuda = self._read()
        if not (tandem.equal(cpu, self.states[0]) and all(tandem.equal(a, b) for a, b in zip(cuda, self.states[1]))):
            self._restore()
            raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the "
                               "'same' or 'different' randomness flags on vmap or perform the randomness operation "
                               "out of vmap")


def _vmap_loop(func, in_dims, out_dims, randomness, args, kwargs):
    tandem = _tandem()
    _check_out_dims(func, out_dims)
    batch, flat_in_dims, flat_args, args_spec = _process_in_dims(func, in_dims, args)
    rng = _RandomnessCheck(randomness)
    results, out_spec = [], None
    # An empty batch still runs func once (PyTorch runs it on a batch of none), on zeros shaped like one
    # element: its outputs give the result's structure, shapes and dtypes, and the stacked results are emptied.
    probe = batch == 0
    batched = [a for a, d in zip(flat_args, flat_in_dims) if d is not None and isinstance(a, Tensor)]
    for b in range(max(batch, 1)):
        rng.before_element(b)
        element = [a if d is None else (a.select(d, b) if not probe else _C.zeros(
            a.shape[:d] + a.shape[d + 1:], dtype=a.dtype, device=a.device)) for a, d in zip(flat_args, flat_in_dims)]
        # (an empty batch's stand-in elements are new tensors: they count as batched too)
        slices = batched if not probe else batched + [e for e, d in zip(element, flat_in_dims) if d is not None]
        with transform("vmap"), vmap_level(slices), vmap_element(b >= batch - 1):
            out = func(*tree_unflatten(element, args_spec), **kwargs)
        if b == 0:
            rng.after_first_element()
        flat_out, spec = tree_flatten(out)
        if out_spec is None:
            out_spec = spec
        results.append(flat_out)

    def incompatible():
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                         f"the structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs "
                         f"has structure {out_spec}.")

    if out_spec.is_leaf():
        if isinstance(out_dims, int) or out_dims is None:
            flat_out_dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_out_dims = list(out_dims)
        else:
            incompatible()
    else:
        flat_out_dims = _broadcast_to_and_flatten(out_dims, out_spec)
        if flat_out_dims is None:
            incompatible()
    name = _name(func)
    outputs = []
    for k, d in enumerate(flat_out_dims):
        column = [r[k] for r in results]
        first = column[0]
        if d is None:
            if isinstance(first, Tensor) and not all(c is first or (c.shape == first.shape and tandem.equal(c, first))
                                                     for c in column):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            outputs.append(first)
            continue
        if not isinstance(first, Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(first)}. Did you "
                             "mean to set out_dims= to None for output?")
        dim = d if d >= 0 else d + first.dim() + 1
        if not 0 <= dim <= first.dim():
            raise IndexError(f"Dimension out of range (expected to be in range of [{-first.dim() - 1}, {first.dim()}], "
                             f"but got {d})")
        stacked = tandem.stack(column, dim)
        outputs.append(stacked.narrow(dim, 0, 0) if probe else stacked)
    return tree_unflatten(outputs, out_spec)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Returns func mapped over dimension in_dims of its inputs (None: not mapped), the results stacked along
    out_dims. Runs func once per batch element (see the module docstring); chunk_size is accepted."""
    _check_randomness(randomness)
    if chunk_size is not None and (not isinstance(chunk_size, int) or isinstance(chunk_size, bool)):
        # PyTorch fails later, splitting the batch, with an incidental TypeError
        raise TypeError(f"vmap: chunk_size should be None or an int, got {type(chunk_size).__name__}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_loop(func, in_dims, out_dims, randomness, args, kwargs)
    return wrapped


