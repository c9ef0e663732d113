"""tandem.func: PyTorch's composable function transforms (torch.func), built on tandem's reverse-mode engine.

- grad, grad_and_value, vjp, jacrev: reverse mode, as PyTorch. Each call differentiates with respect to private
  copies of the chosen inputs (fresh leaves, or views of inputs that already require grad, so an enclosing
  transform or the caller's own autograd still sees through them). A backward graph is recorded only when the
  function's graph reaches other leaves (an enclosing transform's inputs, the caller's parameters): then the
  results stay differentiable (grad of grad, hessian, grad of a loss over gradients); otherwise they come back
  detached, as PyTorch's results do.
- jvp, jacfwd, linearize: tandem has no forward-mode AD. jvp uses the double-backward trick (the vjp is linear
  in its cotangent u, so d/du <vjp(u), t> = J t); jacfwd computes the same Jacobian as jacrev.
- vmap: runs the function once per batch element (slices along in_dims) and stacks the results along out_dims.
  Values, nesting, in_dims/out_dims handling and error messages follow PyTorch; it is as fast as a Python loop,
  not a batched kernel. randomness='error' is checked by comparing the random generators' states after the
  first element; 'same' replays the generator state for every element; 'different' draws anew each time.
See docs/compat.md for what differs from PyTorch.
"""
import functools

from . import _C
from ._func_transforms import transform as _transform
from .autograd._capture import engine_grad as _engine_grad
from .nn.utils.stateless import func_functional_call as functional_call
from ._func_vmap import vmap, _check_randomness
from .utils._pytree import tree_flatten, tree_unflatten, tree_map, treespec_pprint

__all__ = ["functional_call", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "linearize", "stack_module_state", "replace_all_batch_norm_modules_", "functionalize", "debug_unwrap"]

Tensor = _C.Tensor


def _tandem():
    import tandem  # noqa: PLC0415  (tandem.func is imported while tandem itself is being set up)
    return tandem


# ---------------------------------------------------------------- argnums (PyTorch's rules and messages)

def _validate_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _check_argnums(argnums, num_args):
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        return _validate_argnum(argnums, num_args)
    argnums = tuple(_validate_argnum(a, num_args) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return argnums


def _slice_argnums(args, argnums):
    """The differentiated arguments: args[argnums] for an int, a tuple of them for a tuple."""
    argnums = _check_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return argnums, args[argnums]
    return argnums, tuple(args[i] for i in argnums)


def _replace_args(args, argnums, new):
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


# ---------------------------------------------------------------- the differentiation level of one transform

class _Level:
    """The private differentiable copies of one transform's inputs, and the rule that decides whether the
    transform's results stay differentiable outside it."""

    def __init__(self):
        self.own_leaves = []
        self.outer_grad_enabled = _C.is_grad_enabled()

    def differentiable(self, x):
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x.requires_grad:
            return x.view_as(x)  # still connected to the enclosing level's graph
        leaf = x.detach().requires_grad_()
        self.own_leaves.append(leaf)
        return leaf

    def reaches_outside(self, tensors):
        """Whether the graph of `tensors` reaches anything but this level's own leaves."""
        if not self.outer_grad_enabled:
            return False
        return _C._graph_reaches_other_leaves([t for t in tensors if isinstance(t, Tensor)], self.own_leaves)

    def unwrap(self, tree):
        """Results as the caller sees them: detached unless they depend on something outside this level."""
        def one(t):
            if isinstance(t, Tensor) and t.requires_grad and not self.reaches_outside([t]):
                return t.detach()
            return t
        return tree_map(one, tree)


def _zeros_like(t):
    return _tandem().zeros_like(t)


def _autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False):
    """autograd.grad over the outputs that require grad; zeros for inputs the outputs do not depend on."""
    if grad_outputs is None:
        pairs = [(o, None) for o in outputs if o.requires_grad]
    else:
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs or not inputs:
        return tuple(_zeros_like(i) for i in inputs)
    outs = [o for o, _ in pairs]
    gos = None if grad_outputs is None else [g for _, g in pairs]
    with _tandem().enable_grad():
        result = _engine_grad(outs, list(inputs), gos, retain_graph, create_graph, True)
    return tuple(_zeros_like(i) if g is None else g for g, i in zip(result, inputs))


# ---------------------------------------------------------------- grad, grad_and_value

def _grad_and_value(func, argnums, has_aux, args, kwargs):
    tandem = _tandem()
    level = _Level()
    with tandem.enable_grad():
        argnums, diff_args = _slice_argnums(args, argnums)
        diff_args = tree_map(level.differentiable, diff_args)
        with _transform("grad"):
            output = func(*_replace_args(args, argnums, diff_args), **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) "
                                   "if has_aux is True")
            output, aux = output
        if not isinstance(output, Tensor):
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                               f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
        flat_diff, spec = tree_flatten(diff_args)
        create_graph = level.reaches_outside([output])
        grads = tree_unflatten(list(_autograd_grad([output], flat_diff, create_graph=create_graph)), spec)
        grads, output = level.unwrap(grads), level.unwrap(output)
        if has_aux:
            aux = level.unwrap(aux)
    if has_aux:
        return grads, (output, aux)
    return grads, output


def grad_and_value(func, argnums=0, has_aux=False):
    """Returns a function computing (gradient of func w.r.t. args[argnums], func's value) (with aux:
    (gradient, (value, aux)))."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """Returns a function computing the gradient of func (a scalar-valued function) w.r.t. args[argnums]
    (a pytree of tensors for a tuple of argnums or a pytree argument); with has_aux, (gradient, aux)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        if has_aux:
            return grads, value[1]
        return grads
    return wrapper


# ---------------------------------------------------------------- vjp, jacrev

def _check_output_tensors(flat, api):
    if (len(flat) == 1 and flat[0] is None) or len(flat) < 1:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {flat})")
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")


def _vjp(func, primals, argnums, has_aux, kinds=("grad",)):
    """(unwrapped output, vjp_fn, aux, the differentiated primals' spec); func runs as the transforms `kinds`
    (jacfwd's is PyTorch's vmap of jvp)."""
    tandem = _tandem()
    level = _Level()
    with tandem.enable_grad():
        if argnums is None:
            diff = tree_map(level.differentiable, primals)
            call_args = diff
        else:
            argnums, diff = _slice_argnums(primals, argnums)
            diff = tree_map(level.differentiable, diff)
            call_args = _replace_args(primals, argnums, diff)
        with _transform(*kinds):
            out = func(*call_args)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) if "
                                   "has_aux is True")
            out, aux = out
            aux = level.unwrap(aux)
        flat_out, out_spec = tree_flatten(out)
        _check_output_tensors(flat_out, "vjp(f, *primals)")
        for o in flat_out:
            if not (o.is_floating_point() or o.is_complex()):
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                                   f"Tensor with dtype {o.dtype}")
        flat_diff, diff_spec = tree_flatten(diff)
        reaches = level.reaches_outside(flat_out)
        result = level.unwrap(out)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        if create_graph is None:
            create_graph = _C.is_grad_enabled()
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {treespec_pprint(cot_spec)}, primal output: "
                               f"{treespec_pprint(out_spec)}")
        for c, o in zip(flat_cot, flat_out):
            if isinstance(c, Tensor) and c.shape != o.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {c.shape} and output[0] has a "
                                   f"shape of {o.shape}.")
        cg = create_graph and (reaches or any(isinstance(c, Tensor) and c.requires_grad for c in flat_cot))
        grads = _autograd_grad(flat_out, flat_diff, flat_cot, retain_graph=retain_graph, create_graph=cg)
        return level.unwrap(tree_unflatten(list(grads), diff_spec))

    return result, vjp_fn, aux, flat_out


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]); vjp_fn(cotangents) returns the vector-Jacobian products, one per primal
    (a tuple)."""
    out, vjp_fn, aux, _ = _vjp(func, primals, None, has_aux)
    if has_aux:
        return out, vjp_fn, aux
    return out, vjp_fn


def _error_if_complex(api, tensors, is_input):
    for idx, t in enumerate(tree_flatten(tensors)[0]):
        if isinstance(t, Tensor) and t.is_complex():
            what = "inputs" if is_input else "outputs"
            raise RuntimeError(f"{api}: Expected all {what} to be real but received complex tensor at flattened "
                               f"input idx: {idx}")


def _jacobian(api, func, argnums, has_aux, args):
    """The Jacobian of func w.r.t. args[argnums] by one vector-Jacobian product per output element."""
    tandem = _tandem()
    _error_if_complex(api, args, True)
    kinds = ("vmap", "jvp") if api == "jacfwd" else ("grad",)
    out, vjp_fn, aux, flat_out = _vjp(func, args, argnums, has_aux, kinds)
    _error_if_complex(api, flat_out, False)
    argnums_checked, diff = _slice_argnums(args, argnums)
    flat_primals, primals_spec = tree_flatten(diff if isinstance(argnums_checked, tuple) else (diff,))
    out_spec = tree_flatten(out)[1]
    numels = [o.numel() for o in flat_out]
    total = sum(numels)
    rows = [[] for _ in flat_primals]
    offsets = [sum(numels[:k]) for k in range(len(numels))]
    for r in range(total):
        basis = []
        for o, n, start in zip(flat_out, numels, offsets):
            b = tandem.zeros(n, dtype=o.dtype, device=o.device)
            if start <= r < start + n:
                b[r - start] = 1
            basis.append(b.view(o.shape))
        vjps = tree_flatten(vjp_fn(tree_unflatten(basis, out_spec)))[0]
        for k, v in enumerate(vjps):
            rows[k].append(v)
    per_input = []
    for k, p in enumerate(flat_primals):
        stacked = tandem.stack(rows[k]) if rows[k] else tandem.zeros((0,) + tuple(p.shape), dtype=p.dtype,
                                                                          device=p.device)
        pieces = tandem.split(stacked, numels, dim=0) if len(numels) > 1 else (stacked,)
        per_input.append([piece.reshape(tuple(o.shape) + tuple(p.shape)) for piece, o in zip(pieces, flat_out)])
    per_output = []
    for j in range(len(flat_out)):
        by_input = tree_unflatten([per_input[k][j] for k in range(len(flat_primals))], primals_spec)
        per_output.append(by_input[0] if isinstance(argnums_checked, int) else by_input)
    jac = tree_unflatten(per_output, out_spec)
    if has_aux:
        return jac, aux
    return jac


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """Returns a function computing the Jacobian of func w.r.t. args[argnums] (output shape + input shape), by
    reverse mode. chunk_size is accepted (rows are computed one vector-Jacobian product at a time anyway)."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        return _jacobian("jacrev", func, argnums, has_aux, args)
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian as torch.func.jacfwd returns it. tandem has no forward-mode AD: the same matrix is computed
    by reverse mode (jacrev's machinery), so results match jacfwd's to rounding."""
    @functools.wraps(func)
    def wrapper(*args):
        _check_randomness(randomness)  # checked when called, as PyTorch's (its vmap checks it)
        _check_forward_primals(args, argnums)
        return _jacobian("jacfwd", func, argnums, has_aux, args)
    return wrapper


def _check_forward_primals(args, argnums):
    """Forward mode (PyTorch's jacfwd pushes dual tensors) needs floating or complex primals, and says so
    before anything runs."""
    _, diff = _slice_argnums(args, argnums)
    for t in tree_flatten(diff)[0]:
        if isinstance(t, Tensor) and not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise ValueError(f"Expected primal to be floating point or complex, but got: {t.dtype}")


def hessian(func, argnums=0):
    """jacfwd(jacrev(func, argnums), argnums): the matrix of second derivatives."""
    return jacfwd(jacrev(func, argnums), argnums)


# ---------------------------------------------------------------- jvp, linearize (double-backward trick)

_JVP = "jvp(f, primals, tangents)"


def _check_tensor_list(flat, argname):
    if len(flat) == 0:
        raise RuntimeError(f"{_JVP}: Expected {argname} to contain at least one Tensor.")
    for t in flat:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"{_JVP}: Expected {argname} to only contain Tensors, got {type(t)}")


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J @ tangents[, aux]): the Jacobian-vector product, computed as the derivative of a
    vector-Jacobian product with respect to its (linear) cotangent."""
    return _jvp(func, primals, tangents, strict, has_aux, "jvp")


def _jvp(func, primals, tangents, strict, has_aux, transform_kind):
    tandem = _tandem()
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_primals, primals_spec = tree_flatten(primals)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python structure. For example, "
                           f"if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{primals_spec} and tangents with structure {tangents_spec}")
    _check_tensor_list(flat_primals, "primals")
    _check_tensor_list(flat_tangents, "tangents")
    for p, t in zip(flat_primals, flat_tangents):
        for kind, x in (("primal", p), ("tangent", t)):  # PyTorch's dual tensors need inexact dtypes
            if not (x.dtype.is_floating_point or x.dtype.is_complex):
                raise ValueError(f"Expected {kind} to be floating point or complex, but got: {x.dtype}")
        if t.shape != p.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the "
                               f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} while the "
                               f"given forward gradient is of size {list(t.shape)}.")
    level = _Level()
    with tandem.enable_grad():
        diff = [level.differentiable(p) for p in flat_primals]
        with _transform(transform_kind):
            out = func(*tree_unflatten(diff, primals_spec))
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(f"{_JVP}: output of function f should be a tuple: (output, aux) if has_aux is True")
            out, aux = out
            aux = level.unwrap(aux)
        flat_out, out_spec = tree_flatten(out)
        _check_output_tensors(flat_out, _JVP)
        reaches = level.reaches_outside(flat_out) or any(t.requires_grad for t in flat_tangents)
        # u: a cotangent per output; vjp(u) = J^T u is linear in u, so d<vjp(u), t>/du = J t. (u is ones, not
        # zeros, so that a vjp computed without a graph shows itself: nonzero but not depending on u.)
        us = [tandem.ones_like(o).requires_grad_() if o.requires_grad and o.is_floating_point() else None
              for o in flat_out]
        used = [(o, u) for o, u in zip(flat_out, us) if u is not None]
        jt = [None] * len(flat_out)
        if used:
            vjps = _engine_grad([o for o, _ in used], diff, [u for _, u in used], True, True, True)
            for v in vjps:
                if v is not None and not v.requires_grad and bool(v.ne(0).any()):
                    raise NotImplementedError(
                        f"{_JVP}: tandem computes jvp as the derivative of a vector-Jacobian product, and the backward "
                        "of an op in f is not differentiable (it returned a gradient without a graph)\nhint: use "
                        "the reverse-mode transforms (vjp, jacrev) for this function")
            pairs = [(v, t) for v, t in zip(vjps, flat_tangents) if v is not None and v.requires_grad]
            if pairs:
                targets = [u for u in us if u is not None]
                got = _engine_grad([v for v, _ in pairs], targets, [t for _, t in pairs], None, reaches, True)
                got = iter(got)
                jt = [next(got) if u is not None else None for u in us]
        tangents_out = []
        for o, t in zip(flat_out, jt):
            if t is None:
                if strict:
                    raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of the "
                                       "inputs. This is not allowed with strict=True.")
                t = _zeros_like(o)
            tangents_out.append(t)
        primals_out = level.unwrap(tree_unflatten(flat_out, out_spec))
        tangents_out = level.unwrap(tree_unflatten(tangents_out, out_spec))
    if has_aux:
        return primals_out, tangents_out, aux
    return primals_out, tangents_out


def linearize(func, *primals):
    """(func(*primals), jvp_fn) where jvp_fn(*tangents) is the Jacobian-vector product at primals (each call
    re-runs func: tandem has no forward-mode graph to keep). The primals may be pytrees; jvp_fn checks its
    tangents' structure, shapes, devices and dtypes against the primals' with PyTorch's messages."""
    flat_primals, primals_spec = tree_flatten(primals)
    zeros = tree_unflatten([_zeros_like(p) for p in flat_primals], primals_spec)
    # PyTorch's linearize runs func under forward-mode AD, not a functorch transform
    out, _ = _jvp(func, primals, zeros, False, False, "forward_ad")
    meta = [(p.shape, p.device, p.dtype) for p in flat_primals]

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec} to have the same argspec as the primals "
                               f"{primals_spec}")
        for idx, (t, (shape, device, dtype)) in enumerate(zip(flat_tangents, meta)):
            for what, got, want in (("shape", t.shape, shape), ("device", t.device, device),
                                    ("dtype", t.dtype, dtype)):
                if got != want:
                    raise RuntimeError(f"tangent:{idx} with {what} {got} in flattened pytree doesn't match the "
                                       f"{what} {want} of the corresponding primal.")
        return _jvp(func, primals, tangents, False, False, "forward_ad")[1]
    return out, jvp_fn


# ---------------------------------------------------------------- model ensembling

def _stacked_leaf(tensors, name):
    tandem = _tandem()
    all_rg = all(t.requires_grad for t in tensors)
    if not all_rg and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = tandem.stack(tensors)
    if all_rg:
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models):
    """(params, buffers): each parameter and buffer of the models stacked along a new first dim (parameters as
    new leaves that require grad), for vmap over functional_call (model ensembling)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """In place: every BatchNorm (and SyncBatchNorm) under root stops tracking running statistics (they become
    None), so it always normalizes with the batch's own statistics -- what vmap over a batch needs. Returns
    root."""
    from .nn.modules.normalization import _BatchNorm  # noqa: PLC0415
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root


def functionalize(func, *, remove="mutations"):
    """torch.func.functionalize: the same function with its mutations replaced by out-of-place ops. Eagerly (no
    tracing in tandem) that computes the same values, and mutations of the inputs still reach the inputs, so
    tandem runs func as it is."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
                           "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
                           "removed from the program, and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing operators {view} "
                           "will be replaced with their non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapped


def debug_unwrap(tensor, *, recurse=True):
    """The tensor itself: tandem's transforms do not wrap tensors."""
    return tensor
