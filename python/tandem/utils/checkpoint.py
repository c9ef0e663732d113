"""tandem.utils.checkpoint: activation checkpointing, as torch.utils.checkpoint. A checkpointed segment runs
without recording its graph in the forward pass; backward runs it again with grad enabled and backpropagates
through that recomputed graph, so only the segment's inputs are kept alive between forward and backward.

Built on tandem.autograd.Function: forward runs under no_grad; backward restores the generators' states
(``preserve_rng_state``: the CPU's and those of the devices of the inputs, as PyTorch's get_device_states),
recomputes, and calls tandem.autograd.backward on the recomputed outputs (a backward inside backward, as
PyTorch's reentrant variant, whose Function is CheckpointFunction). That call accumulates the gradients of the
leaves the segment uses (module parameters) directly and returns the inputs' gradients through the node, so
``loss.backward()`` gives exactly the gradients of the uncheckpointed model.

``use_reentrant=False`` adds what PyTorch's non-reentrant variant allows: keyword arguments, ``context_fn``,
and outputs that require grad when only the segment's parameters do (found on the function when it is a
module, a bound method of one, or a closure or partial over modules or tensors), and its determinism check,
here on the segment's outputs (PyTorch checks every saved tensor, seen through saved-tensors hooks; tandem's
recompute is one whole call, so the outputs are what it compares). Under autograd.grad (or
autograd.backward(inputs=...)) the reentrant variant raises PyTorch's error, as PyTorch's does; the non-reentrant
one hands the gradients of its arguments and of the parameters found on the function back through its node and
writes no .grad (a parameter it does not find gets no gradient there: use .backward()). Both recompute
the whole function (``early_stop`` has nothing to stop). ``debug`` logs the ops through the op profiler.
Selective checkpointing needs a per-op dispatch hook tandem does not have: create_selective_checkpoint_contexts
raises NotImplementedError (see its docstring).
The recompute runs under the autocast state the forward ran under (the engine suspends autocast in
backward; the recompute lifts that, as PyTorch's checkpoint re-enters its saved autocast state).
"""
import contextlib
import enum
import functools
import warnings

from .. import _C
from ..autograd import Function, backward as _autograd_backward
from ..autograd._capture import engine_grad as _engine_grad, is_capturing as _is_capturing
from ..amp.autocast_mode import _autocast_resumed, autocast
from ..autograd.grad_mode import enable_grad
from ._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "get_device_states", "set_device_states",
           "noop_context_fn", "set_checkpoint_early_stop", "DefaultDeviceType", "set_checkpoint_debug_enabled",
           "CheckpointPolicy", "SelectiveCheckpointContext", "create_selective_checkpoint_contexts"]

_DEFAULT_DETERMINISM_MODE = "default"
_checkpoint_debug_enabled = None


class CheckpointError(RuntimeError):
    """A recomputation that does not match the original forward (the determinism check)."""


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Within this block, checkpoint's ``debug`` is ``enabled`` whatever a call passes (None: each call's own)."""
    global _checkpoint_debug_enabled
    previous = _checkpoint_debug_enabled
    try:
        _checkpoint_debug_enabled = enabled
        yield
    finally:
        _checkpoint_debug_enabled = previous


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """PyTorch's switch for stopping a recompute once it has rebuilt the tensors backward needs. Accepted; it
    changes nothing in tandem, whose recompute is one whole call of the function either way."""
    yield


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


# ---- generator states of the devices a segment runs on ----

def _get_device_module(device="cuda"):
    import tandem  # noqa: PLC0415  (tandem.cuda, tandem.cpu: the package is importing this module)
    return getattr(tandem, device)


class DefaultDeviceType:
    """The device type whose generator states checkpoint saves when no argument is on a non-CPU device: the
    current accelerator's ("cuda" where one is available), else "cpu"; set_device_type changes it."""

    _default_device_type = None

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        if not DefaultDeviceType._default_device_type:
            from .. import accelerator  # noqa: PLC0415
            current = accelerator.current_accelerator(True)
            DefaultDeviceType._default_device_type = current.type if current else "cpu"
        return DefaultDeviceType._default_device_type


def _infer_device_type(*args):
    """The device type of the tensors in ``args`` (nested ones too) that are not on the CPU, else the default."""
    device_types = []

    def add_device_types(arg):
        if isinstance(arg, _C.Tensor) and arg.device.type != "cpu":
            device_types.append(arg.device.type)
        return arg

    tree_map(add_device_types, args)
    return device_types[0] if device_types else DefaultDeviceType.get_device_type()


def _rng_states_of(devices, device_type):
    device_module = _get_device_module(device_type)
    states = []
    for device in devices:
        with device_module.device(device):
            states.append(device_module.get_rng_state())
    return states


def get_device_states(*args):
    """(device indices, generator states): one entry per tensor in ``args`` (nested ones too) that is not on
    the CPU, as PyTorch's (a device with two tensors appears twice)."""
    fwd_device_ids = []

    def add_device_ids(arg):
        if isinstance(arg, _C.Tensor) and arg.device.type != "cpu":
            fwd_device_ids.append(arg.get_device())
        return arg

    tree_map(add_device_ids, args)
    return fwd_device_ids, _rng_states_of(fwd_device_ids, _infer_device_type(*args))


def set_device_states(devices, states, *, device_type=None):
    """Sets the generator state of each device index in ``devices`` (of ``device_type``, by default
    DefaultDeviceType.get_device_type()) to the matching one of ``states``."""
    if device_type is None:
        device_type = DefaultDeviceType.get_device_type()
    device_module = _get_device_module(device_type)
    for device, state in zip(devices, states):
        with device_module.device(device):
            device_module.set_rng_state(state)


def _grad_leaves_of(function):
    """Tensors requiring grad that ``function`` reaches without taking them as arguments: the parameters of a
    module, of a bound method's module, or of modules and tensors held in a closure, a partial or a global the
    function's code names."""
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
        elif isinstance(obj, dict):  # e.g. models = {"encoder": ...} named by the function
            pending.extend(obj.values())
        elif callable(obj):
            if getattr(obj, "__self__", None) is not None:
                pending.append(obj.__self__)
            for cell in getattr(obj, "__closure__", None) or ():
                try:
                    pending.append(cell.cell_contents)
                except ValueError:  # an empty cell
                    pass
            # a script's function that uses a module-level model (`def run(x): return model(x)`)
            code, module_globals = getattr(obj, "__code__", None), getattr(obj, "__globals__", None)
            if code is not None and module_globals is not None:
                pending.extend(module_globals[name] for name in code.co_names if name in module_globals)
    unique = {id(t): t for t in found}
    return list(unique.values())


def _save_forward_state(ctx, args, preserve_rng_state):
    """What the recompute needs: the generators' states (preserve_rng_state), the autocast state, and the
    arguments (tensors saved for backward, version-checked; other values kept as they are)."""
    ctx.preserve_rng_state = preserve_rng_state
    ctx.device_type = _infer_device_type(*args)
    if preserve_rng_state:
        ctx.fwd_cpu_state = _C.get_rng_state()
        ctx.fwd_devices, ctx.fwd_device_states = get_device_states(*args)
    ctx.autocast_states = [(device_type, _C.is_autocast_enabled(device_type), _C.get_autocast_dtype(device_type))
                           for device_type in ("cpu", "cuda")]
    ctx.autocast_cache = _C.is_autocast_cache_enabled()
    ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
    ctx.plain_args = [None if isinstance(a, _C.Tensor) else a for a in args]
    ctx.save_for_backward(*[args[i] for i in ctx.tensor_positions])


def _note_outputs(ctx, outputs):
    """Marks integer and bool outputs non-differentiable (as in PyTorch, where they never require grad) and
    remembers where the floating ones are."""
    result = outputs if isinstance(outputs, tuple) else (outputs,)
    ctx.mark_non_differentiable(*[o for o in result if isinstance(o, _C.Tensor) and not o.is_floating_point()])
    ctx.diff_positions = [i for i, o in enumerate(result) if isinstance(o, _C.Tensor) and o.is_floating_point()]


def _recompute(ctx, run_function, kwargs, recompute_context):
    """Runs run_function again, grad enabled, on detached copies of the saved arguments, under the forward's
    generator and autocast states (the surrounding generator states come back after). Returns the outputs as
    a tuple and the arguments it ran on."""
    args = list(ctx.plain_args)
    for pos, t in zip(ctx.tensor_positions, ctx.saved_tensors):
        args[pos] = t.detach().requires_grad_(t.requires_grad)
    surrounding = None
    if ctx.preserve_rng_state:
        surrounding = _C.get_rng_state(), _rng_states_of(ctx.fwd_devices, ctx.device_type)
        _C.set_rng_state(ctx.fwd_cpu_state)
        set_device_states(ctx.fwd_devices, ctx.fwd_device_states, device_type=ctx.device_type)
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(enable_grad())
            stack.enter_context(_autocast_resumed())
            for device_type, enabled, dtype in ctx.autocast_states:
                stack.enter_context(autocast(device_type, dtype=dtype, enabled=enabled,
                                             cache_enabled=ctx.autocast_cache))
            stack.enter_context(recompute_context)
            outputs = run_function(*args, **kwargs)
    finally:
        if surrounding is not None:
            _C.set_rng_state(surrounding[0])
            set_device_states(ctx.fwd_devices, surrounding[1], device_type=ctx.device_type)
    return (outputs if isinstance(outputs, tuple) else (outputs,)), args


def _backward_through(ctx, outputs, grad_outputs):
    """Backpropagates grad_outputs through the recomputed outputs that require grad (accumulating into the
    leaves they reach); False when none does."""
    with_grad, grads = [], []
    for pos, g in zip(ctx.diff_positions, grad_outputs):
        out = outputs[pos] if pos < len(outputs) else None
        if isinstance(out, _C.Tensor) and out.requires_grad and g is not None:
            with_grad.append(out)
            grads.append(g)
    if with_grad:
        _autograd_backward(with_grad, grads)
    return bool(with_grad)


class CheckpointFunction(Function):
    """PyTorch's reentrant checkpoint as an autograd Function: apply(run_function, preserve_rng_state, *args)
    runs run_function(*args) without a graph; backward recomputes it and backpropagates through that."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        _save_forward_state(ctx, args, preserve_rng_state)
        outputs = run_function(*args)
        _note_outputs(ctx, outputs)
        return outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        if _is_capturing():  # the inner backward would accumulate into the segment's parameters' .grad
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                               "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
                               "set use_reentrant=False, or call .backward() without passing the `inputs` "
                               "argument.")
        outputs, args = _recompute(ctx, ctx.run_function, {}, contextlib.nullcontext())
        if not _backward_through(ctx, outputs, grad_outputs):
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        return (None, None, *[a.grad if isinstance(a, _C.Tensor) else None for a in args])


def _tensor_metadata(outputs):
    return [(i, {"shape": o.shape, "dtype": o.dtype, "device": o.device})
            for i, o in enumerate(outputs) if isinstance(o, _C.Tensor)]


_DETERMINISM_HINT = ("hint: tandem compares the checkpointed function's tensor outputs (position: the output's "
                     "index); make the function's shapes, dtypes and devices the same on every call, or pass "
                     "determinism_check=\"none\"")


def _check_recomputed_outputs(saved, recomputed):
    """PyTorch's determinism check ("default": shapes, dtypes, devices), on the outputs tandem recomputes."""
    if len(saved) != len(recomputed):
        raise CheckpointError("torch.utils.checkpoint: A different number of tensors was saved during the "
                              "original forward and recomputation.\n"
                              f"Number of tensors saved during forward: {len(saved)}\n"
                              f"Number of tensors saved during recomputation: {len(recomputed)}.\n"
                              + _DETERMINISM_HINT)
    mismatched = "".join(f"tensor at position {i}:\nsaved metadata: {before}\nrecomputed metadata: {after}\n"
                         for (i, before), (_, after) in zip(saved, recomputed) if before != after)
    if mismatched:
        raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                              f"different metadata than during the forward pass.\n{mismatched}.\n"
                              + _DETERMINISM_HINT)


class _OperatorLog:
    """debug=True: the names of the ops the forward and the recompute ran, recorded by tandem's op profiler
    (nothing is recorded while another profile is running, as only one can), for a CheckpointError to show."""

    def __init__(self):
        self.ops = {"forward": None, "recomputation": None}

    class _Recording:
        # A class, not a generator: the recompute context is entered again by each backward (retain_graph).
        def __init__(self, ops, which):
            self.ops, self.which, self.profile = ops, which, None

        def __enter__(self):
            if not _C._op_profiler_enabled():
                from ..autograd.profiler import profile  # noqa: PLC0415  (the profiler imports much of tandem)
                self.profile = profile()
                self.profile.__enter__()

        def __exit__(self, *exc):
            if self.profile is not None:
                self.profile.__exit__(*exc)
                self.ops[self.which] = [event.name for event in self.profile.function_events]
                self.profile = None

    def context_fn(self):
        return self._Recording(self.ops, "forward"), self._Recording(self.ops, "recomputation")

    def explain(self, error):
        """``error`` with the two logs appended (PyTorch adds them, with stack traces, under debug=True)."""
        def log(which):
            ops = self.ops[which]
            return "(not recorded: another profile was running)" if ops is None else "\n".join(ops)
        return CheckpointError(f"{error}\n\nOperations executed during the original forward:\n\n{log('forward')}"
                               f"\n\nOperations executed during recomputation:\n\n{log('recomputation')}")


class _NonReentrantCheckpoint(Function):
    # apply(run_function, options, *args, *leaves): options carries the flags, the keyword arguments and the
    # recompute context; args are the segment's positional arguments, then the leaves found on the function.

    @staticmethod
    def forward(ctx, run_function, options, *args):
        ctx.run_function, ctx.options = run_function, options
        # The leaves found on the function (module parameters) are edges of this node: under autograd.grad their
        # gradients go back through it. They have no grad_fn, so ctx holding them makes no reference cycle.
        args, ctx.leaves = args[:options["num_args"]], args[options["num_args"]:]
        _save_forward_state(ctx, args, options["preserve_rng_state"])
        with options["forward_context"]:
            outputs = run_function(*args, **options["kwargs"])
        _note_outputs(ctx, outputs)
        if options["determinism_check"] == _DEFAULT_DETERMINISM_MODE:
            ctx.output_metadata = _tensor_metadata(outputs if isinstance(outputs, tuple) else (outputs,))
        return outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        options = ctx.options
        outputs, args = _recompute(ctx, ctx.run_function, options["kwargs"], options["recompute_context"])
        if options["determinism_check"] == _DEFAULT_DETERMINISM_MODE:
            try:
                _check_recomputed_outputs(ctx.output_metadata, _tensor_metadata(outputs))
            except CheckpointError as e:
                if options["operator_log"] is None:
                    raise
                raise options["operator_log"].explain(e) from e
        if _is_capturing():
            return (None, None, *_captured_gradients(ctx, outputs, args, grad_outputs))
        _backward_through(ctx, outputs, grad_outputs)
        arg_grads = [a.grad if isinstance(a, _C.Tensor) else None for a in args]
        return (None, None, *arg_grads, *([None] * options["num_leaves"]))


def _captured_gradients(ctx, outputs, args, grad_outputs):
    """Under autograd.grad (or backward(inputs=...)): the gradients of the arguments and of the leaves found on the
    function, handed back through the node for the engine to capture; no .grad is written (an inner backward
    would accumulate into every leaf the recomputed graph reaches)."""
    pairs = [(outputs[pos], g) for pos, g in zip(ctx.diff_positions, grad_outputs)
             if pos < len(outputs) and isinstance(outputs[pos], _C.Tensor) and outputs[pos].requires_grad
             and g is not None]
    targets = [a for a in args if isinstance(a, _C.Tensor) and a.requires_grad] + list(ctx.leaves)
    found = iter(_engine_grad([o for o, _ in pairs], targets, [g for _, g in pairs], None, False, True)
                 if pairs and targets else [None] * len(targets))
    arg_grads = [next(found) if isinstance(a, _C.Tensor) and a.requires_grad else None for a in args]
    return arg_grads + list(found)


class _CheckpointedFunction:
    """What checkpoint(**options) decorates a function with: each call is checkpoint(function, *args, **options).
    On a class it binds like the function it wraps."""

    def __init__(self, function, **checkpoint_kwargs):
        self.function = function
        self.checkpoint_kwargs = dict(checkpoint_kwargs)
        functools.update_wrapper(self, function, updated=())

    def __call__(self, *args, **kwargs):
        return _checkpoint_impl(self.function, args, kwargs, **self.checkpoint_kwargs)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        descriptor_get = getattr(self.function, "__get__", None)
        if descriptor_get is None:
            return self
        return type(self)(descriptor_get(instance, owner), **self.checkpoint_kwargs)


def checkpoint(function=None, *args, use_reentrant=None, preserve_rng_state=True, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True,
               respect_saved_tensors_hooks=None, **kwargs):
    """Runs ``function(*args, **kwargs)`` without keeping its intermediate activations; backward recomputes
    them. The result and the gradients are those of calling ``function`` directly. Without ``function`` (and
    arguments), returns a decorator that checkpoints each call with these options."""
    if function is None and not args:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
        return functools.partial(_CheckpointedFunction, use_reentrant=use_reentrant,
                                 preserve_rng_state=preserve_rng_state, context_fn=context_fn,
                                 determinism_check=determinism_check, debug=debug, early_stop=early_stop,
                                 respect_saved_tensors_hooks=respect_saved_tensors_hooks)
    return _checkpoint_impl(function, args, kwargs, use_reentrant=use_reentrant,
                            preserve_rng_state=preserve_rng_state, context_fn=context_fn,
                            determinism_check=determinism_check, debug=debug, early_stop=early_stop,
                            respect_saved_tensors_hooks=respect_saved_tensors_hooks)


def _checkpoint_impl(function, args, kwargs, *, use_reentrant, preserve_rng_state, context_fn, determinism_check,
                     debug, early_stop, respect_saved_tensors_hooks):
    # early_stop (and set_checkpoint_early_stop) have nothing to stop: the recompute is one call of function.
    # respect_saved_tensors_hooks concerns what selective checkpointing saves, which tandem cannot do.
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a "
                      "future release, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=3)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False or respect_saved_tensors_hooks is not None:
            raise ValueError("Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only supported "
                             "when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    debug_enabled = _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug
    operator_log = None
    if debug_enabled:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        operator_log = _OperatorLog()
        context_fn = operator_log.context_fn
    if determinism_check not in (_DEFAULT_DETERMINISM_MODE, "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    leaves = _grad_leaves_of(function) if _C.is_grad_enabled() else []
    options = {"preserve_rng_state": preserve_rng_state, "kwargs": kwargs, "forward_context": forward_context,
               "recompute_context": recompute_context, "determinism_check": determinism_check,
               "operator_log": operator_log,
               "num_args": len(args), "num_leaves": len(leaves)}
    # PyTorch's non-reentrant checkpoint returns whatever the function returns (a dict, a list, a registered
    # ModelOutput-like container) with its tensors in the graph; the Function here sees them as one flat tuple.
    structure = []

    def flat_function(*inner_args, **inner_kwargs):
        flat, spec = tree_flatten(function(*inner_args, **inner_kwargs))
        if not structure:
            structure.append(spec)
        return tuple(flat)

    flat_outputs = _NonReentrantCheckpoint.apply(flat_function, options, *args, *leaves)
    return tree_unflatten(list(flat_outputs), structure[0])


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


# ---- selective activation checkpointing ----

class SelectiveCheckpointContext:
    """What a selective-checkpointing policy function receives with each op (PyTorch's)."""

    def __init__(self, *, is_recompute, op_output=None):
        self.is_recompute = is_recompute
        self.op_output = op_output


class CheckpointPolicy(enum.Enum):
    """Per op: keep its output from the forward (SAVE), run it again in backward (RECOMPUTE), or keep it in host
    memory (CPU_OFFLOAD); MUST_* where nothing may override the choice, PREFER_* where a compiler may."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """PyTorch's selective activation checkpointing: a policy (a function of (ctx, op, *args, **kwargs), or a
    list of ops to save) decides per op whether checkpoint keeps its output or recomputes it. That takes a
    per-op dispatch hook (PyTorch's TorchDispatchMode, which sees every op with its arguments and can return a
    kept output instead of running it); tandem's ops run in C++ without one, so after PyTorch's checks of the
    argument this raises NotImplementedError rather than silently ignoring the policy."""
    from .._library.registry import OpOverload, OpOverloadPacket  # noqa: PLC0415
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not isinstance(op, OpOverload):
                extra = ("Please update the OpOverloadPacket to a specific OpOverload.For example, if you have "
                         "`torch.ops.aten.mm`, change it to `torch.ops.aten.mm.default`."
                         if isinstance(op, OpOverloadPacket) else "")
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} of type "
                                 f"{type(op)}. {extra}")
    elif not callable(policy_fn_or_list):
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    raise NotImplementedError(
        "tandem.utils.checkpoint.create_selective_checkpoint_contexts: selective activation checkpointing needs "
        "a per-op dispatch hook (PyTorch's TorchDispatchMode) to save or recompute each op's output, and tandem "
        "has none\nhint: checkpoint(fn, ..., use_reentrant=False) without context_fn recomputes every op (the "
        "policy PREFER_RECOMPUTE for all); to keep an op's output, compute it outside the checkpointed function "
        "and pass it in")
