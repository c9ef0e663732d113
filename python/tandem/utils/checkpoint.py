"""tandem.utils.checkpoint: activation checkpointing, as torch.utils.checkpoint. A checkpointed segment runs
without recording its graph in the forward pass; backward runs it again with grad enabled and backpropagates
through that recomputed graph, so only the segment's inputs are kept alive between forward and backward.

Built on tandem.autograd.Function: forward runs under no_grad; backward restores the generators' states
(``preserve_rng_state``: the CPU's and those of the CUDA devices the inputs are on, as PyTorch), recomputes, and calls tandem.autograd.backward on the recomputed outputs (a backward
inside backward, as PyTorch's reentrant variant). That call accumulates the gradients of the leaves the segment
uses (module parameters) directly and returns the inputs' gradients through the node, so ``loss.backward()``
gives exactly the gradients of the uncheckpointed model.

``use_reentrant=False`` adds what PyTorch's non-reentrant variant allows: keyword arguments, ``context_fn``,
and outputs that require grad when only the segment's parameters do (found on the function when it is a
module, a bound method of one, or a closure or partial over modules or tensors). Like PyTorch's reentrant
variant, neither supports tandem.autograd.grad(..., inputs=params) through a checkpoint (use .backward()).
The recompute runs under the autocast state the forward ran under (the engine suspends autocast in
backward; the recompute lifts that, as PyTorch's checkpoint re-enters its saved autocast state).
"""
import contextlib
import functools
import warnings

from .. import _C
from ..autograd import Function, backward as _autograd_backward
from ..amp.autocast_mode import _autocast_resumed, autocast
from ..autograd.grad_mode import enable_grad

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn", "check_backward_validity",
           "detach_variable"]



def _rng_states(args_or_states):
    """The CPU generator's state and those of the CUDA devices of the tensor arguments (or of a previous
    result's devices): {None: cpu_state, index: cuda_state}."""
    from .. import cuda
    if isinstance(args_or_states, dict):
        indices = [i for i in args_or_states if i is not None]
    else:
        indices = sorted({a.device.index for a in args_or_states
                          if isinstance(a, _C.Tensor) and a.device.type == "cuda"})
    states = {None: _C.get_rng_state()}
    states.update({i: cuda.get_rng_state(i) for i in indices})
    return states


def _set_rng_states(states):
    from .. import cuda
    for index, state in states.items():
        if index is None:
            _C.set_rng_state(state)
        else:
            cuda.set_rng_state(state, index)


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, _C.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def detach_variable(inputs):
    """The tensors of ``inputs`` detached, keeping each one's requires_grad (other values pass through)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    return tuple(x.detach().requires_grad_(x.requires_grad) if isinstance(x, _C.Tensor) else x for x in inputs)


def _grad_leaves_of(function):
    """Tensors requiring grad that ``function`` reaches without taking them as arguments: the parameters of a
    module, of a bound method's module, or of modules and tensors held in a closure or a partial."""
    from ..nn import Module
    found, seen, pending = [], set(), [function]
    while pending:
        obj = pending.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, Module):
            found.extend(p for p in obj.parameters() if p.requires_grad)
        elif isinstance(obj, _C.Tensor):
            if obj.requires_grad:
                found.append(obj)
        elif isinstance(obj, functools.partial):
            pending.extend([obj.func, *obj.args, *obj.keywords.values()])
        elif isinstance(obj, (list, tuple)):
            pending.extend(obj)
        elif callable(obj):
            if getattr(obj, "__self__", None) is not None:
                pending.append(obj.__self__)
            for cell in getattr(obj, "__closure__", None) or ():
                try:
                    pending.append(cell.cell_contents)
                except ValueError:  # an empty cell
                    pass
    unique = {id(t): t for t in found}
    return list(unique.values())


class _CheckpointFunction(Function):
    # apply(run_function, options, *args): options carries the flags and the keyword arguments; args are the
    # segment's positional arguments, then (non-reentrant) the leaves found on the function.

    @staticmethod
    def forward(ctx, run_function, options, *args):
        ctx.run_function, ctx.options = run_function, options
        args = args[:options["num_args"]]
        if options["preserve_rng_state"]:
            ctx.rng_state = _rng_states(args)
        ctx.autocast_states = [(device_type, _C.is_autocast_enabled(device_type),
                                _C.get_autocast_dtype(device_type)) for device_type in ("cpu", "cuda")]
        ctx.autocast_cache = _C.is_autocast_cache_enabled()
        ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        ctx.plain_args = [None if isinstance(a, _C.Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_positions])
        forward_context, ctx.recompute_context = options["context_fn"]()
        with forward_context:
            outputs = run_function(*args, **options["kwargs"])
        result = outputs if isinstance(outputs, tuple) else (outputs,)
        # Integer and bool outputs carry no gradient (as in PyTorch, where they never require grad).
        ctx.mark_non_differentiable(*[o for o in result if isinstance(o, _C.Tensor) and not o.is_floating_point()])
        ctx.diff_positions = [i for i, o in enumerate(result) if isinstance(o, _C.Tensor) and o.is_floating_point()]
        return outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        options = ctx.options
        args = list(ctx.plain_args)
        for pos, t in zip(ctx.tensor_positions, ctx.saved_tensors):
            args[pos] = t.detach().requires_grad_(t.requires_grad)
        saved_rng = None
        if options["preserve_rng_state"]:
            saved_rng = _rng_states(ctx.rng_state)
            _set_rng_states(ctx.rng_state)
        try:
            with contextlib.ExitStack() as stack:
                stack.enter_context(enable_grad())
                stack.enter_context(_autocast_resumed())
                for device_type, enabled, dtype in ctx.autocast_states:
                    stack.enter_context(autocast(device_type, dtype=dtype, enabled=enabled,
                                                 cache_enabled=ctx.autocast_cache))
                stack.enter_context(ctx.recompute_context)
                outputs = ctx.run_function(*args, **options["kwargs"])
        finally:
            if saved_rng is not None:
                _set_rng_states(saved_rng)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        with_grad, grads = [], []
        for pos, g in zip(ctx.diff_positions, grad_outputs):
            out = outputs[pos]
            if isinstance(out, _C.Tensor) and out.requires_grad and g is not None:
                with_grad.append(out)
                grads.append(g)
        if with_grad:
            _autograd_backward(with_grad, grads)
        elif options["reentrant"]:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        arg_grads = [a.grad if isinstance(a, _C.Tensor) else None for a in args]
        return (None, None, *arg_grads, *([None] * options["num_leaves"]))


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, respect_saved_tensors_hooks=None,
               **kwargs):
    """Runs ``function(*args, **kwargs)`` without keeping its intermediate activations; backward recomputes
    them. The result and the gradients are those of calling ``function`` directly."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a "
                      "future release, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant and (context_fn is not noop_context_fn or debug is not False
                          or respect_saved_tensors_hooks is not None):
        raise ValueError("Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only supported "
                         "when use_reentrant=False.")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    leaves = []
    if use_reentrant:
        if _C.is_grad_enabled():
            check_backward_validity(args)
    elif _C.is_grad_enabled():
        leaves = _grad_leaves_of(function)
    options = {"preserve_rng_state": preserve_rng_state, "kwargs": kwargs, "context_fn": context_fn,
               "reentrant": use_reentrant, "num_args": len(args), "num_leaves": len(leaves)}
    return _CheckpointFunction.apply(function, options, *args, *leaves)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs ``functions`` (a Sequential or a list of modules) in ``segments`` chunks, checkpointing all but the
    last, as PyTorch's."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In a future release, we will raise an exception if use_reentrant is not "
                      "passed. use_reentrant=False is recommended, but if you need to preserve the current "
                      "default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        # The segment's modules are in its closure, so the non-reentrant variant finds their parameters.
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
