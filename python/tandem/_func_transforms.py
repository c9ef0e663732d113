"""Which torch.func transforms are running the current call, so that autograd.Function.apply can refuse what
PyTorch refuses under them: a Function without setup_context under any functorch transform, one without vmap
support under vmap, and one without a jvp staticmethod under forward mode (jvp, jacfwd, hessian, linearize).
tandem's transforms are loops and reverse-mode passes, so they would otherwise run such Functions and give
numbers where PyTorch gives its error."""
import contextlib
import threading

_STATE = threading.local()

# The kinds: "vmap"; "grad" (grad, grad_and_value, vjp, jacrev); "jvp" (jvp, and jacfwd's inner transform);
# "forward_ad" (linearize: PyTorch's forward-mode AD outside the functorch interpreter stack).
_FUNCTORCH = ("vmap", "grad", "jvp")

_SETUP_CONTEXT_MESSAGE = (
    "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must override "
    "the setup_context staticmethod. For more details, please see https://pytorch.org/docs/main/notes/"
    "extending.func.html")
JVP_MESSAGE = "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
VMAP_MESSAGE = ("To use autograd.Function with vmap, you must either override the vmap staticmethod or set "
                "generate_vmap_rule=True.")


_BATCH_NORM_MESSAGE = (
    "Batch norm got a batched tensor as input while the running_mean or running_var, which will be updated in place, "
    "were not batched.\nIf you are using a module and do not need eval mode, please set `track_running_stats` to be "
    "False.If you are using a prebuilt module and do not need eval mode, please see the functorch website for "
    "resources on how to patch your module to work with vmap")


def _batched_storages():
    levels = getattr(_STATE, "batched", None)
    if levels is None:
        levels = _STATE.batched = []
    return levels


@contextlib.contextmanager
def vmap_level(batched_tensors):
    """One vmap call over `batched_tensors` (its inputs mapped along a dim): their storages say which tensors
    the function sees are slices of the batch."""
    levels = _batched_storages()
    levels.append({t.untyped_storage().data_ptr() for t in batched_tensors if t.numel()})
    try:
        yield
    finally:
        levels.pop()


@contextlib.contextmanager
def vmap_element(last):
    """One element of a vmap loop. PyTorch runs a vmapped autograd.grad as one batched backward pass, which
    may free the graph (retain_graph=False) and still serve every element; the loop runs one pass per element,
    so the graph must outlive every element but the last of each enclosing loop."""
    before = getattr(_STATE, "elements_left", 0)
    _STATE.elements_left = before + (0 if last else 1)
    try:
        yield
    finally:
        _STATE.elements_left = before


def vmap_retains_graph():
    """Whether a backward pass here must keep the graph: some enclosing vmap loop has elements still to run."""
    return getattr(_STATE, "elements_left", 0) > 0


def check_batch_norm_running_stats(running_mean, running_var):
    """Under vmap PyTorch refuses training-mode batch norm whose running statistics (updated in place) are not
    batched; tandem's loop would update them once per batch element. (The input is taken to be batched, as it
    is in every use of vmap over a normalisation layer.)"""
    levels = _batched_storages()
    if not levels:
        return
    for stat in (running_mean, running_var):
        if stat is not None and stat.numel() and not any(stat.untyped_storage().data_ptr() in level
                                                         for level in levels):
            raise RuntimeError(_BATCH_NORM_MESSAGE)


def _active():
    stack = getattr(_STATE, "stack", None)
    if stack is None:
        stack = _STATE.stack = []
    return stack


@contextlib.contextmanager
def transform(*kinds):
    """Marks the function call of a transform (innermost last)."""
    stack = _active()
    depth = len(stack)
    stack.extend(kinds)
    try:
        yield
    finally:
        del stack[depth:]


def _checked(cls):
    """User Functions only: tandem's own (the LSTM layer, binary cross-entropy, ...) stand for PyTorch's native
    ops, which every transform supports."""
    return bool(_active()) and cls.__module__.partition(".")[0] != "tandem"


def check_before_forward(cls, uses_setup_context, base):
    """PyTorch's checks of an autograd.Function applied under transforms, before its forward runs."""
    if not _checked(cls):
        return
    stack = _active()
    if any(k in _FUNCTORCH for k in stack) and not uses_setup_context:
        raise RuntimeError(_SETUP_CONTEXT_MESSAGE)
    if "vmap" in stack:
        overridden = getattr(cls.vmap, "__func__", cls.vmap) is not getattr(base.vmap, "__func__", base.vmap)
        if cls.generate_vmap_rule and overridden:
            raise RuntimeError(
                f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True and an overridden "
                "vmap staticmethod. Please set generate_vmap_rule=False or delete the overridden vmap staticmethod to "
                "avoid ambiguity. For more details, please see https://pytorch.org/docs/main/notes/extending.func.html")
        if not cls.generate_vmap_rule and not overridden:
            raise RuntimeError(
                f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please override and "
                "implement the vmap staticmethod or set generate_vmap_rule=True. For more details, please see "
                "https://pytorch.org/docs/main/notes/extending.func.html")


def check_after_forward(cls, base, inputs, tensor_type):
    """Under forward mode, PyTorch calls the Function's jvp staticmethod for inputs that carry a tangent (here:
    that require grad, the transform's differentiable copies); the base one raises."""
    stack = _active()
    if not (_checked(cls) and ("jvp" in stack or "forward_ad" in stack)):
        return
    overridden = getattr(cls.jvp, "__func__", cls.jvp) is not getattr(base.jvp, "__func__", base.jvp)
    if not overridden and any(isinstance(a, tensor_type) and a.requires_grad for a in inputs):
        raise NotImplementedError(JVP_MESSAGE)
