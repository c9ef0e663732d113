"""tandem.autograd.graph, as torch.autograd.graph: saved-tensors hooks (every tensor an autograd node saves for
backward, by a built-in op's formula or by a custom Function's ctx.save_for_backward, goes through the innermost
pack hook when the node is recorded and through its unpack hook in backward), save_on_cpu, hooks and metadata on
graph nodes (grad_fn.register_hook / register_prehook / metadata), register_multi_grad_hook,
increment_version, GradientEdge / get_gradient_edge and allow_mutation_on_saved_tensors. The hook stack lives in
C++ per thread (src/autograd/node.h, python/src/autograd_graph.cpp).

Differences from PyTorch: the pack hook of a node's own output sees it without its grad_fn (so a hook that keeps
it makes no reference cycle through the node); allow_mutation_on_saved_tensors copies each saved tensor when it
is saved (PyTorch copies it when an in-place op is about to write it, which needs a per-op dispatch hook tandem
does not have); tandem.autograd.grad/backward take a GradientEdge only while the tensor get_gradient_edge made it
from is alive and still has that edge (the engine takes tensors: the edge stands for that tensor)."""
import contextlib
import threading
import weakref
from collections import defaultdict
from typing import NamedTuple, Optional

from .. import _C
from .._C import Node  # noqa: F401  (the class of every grad_fn)

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "register_multi_grad_hook",
           "increment_version", "Node", "GradientEdge", "get_gradient_edge",
           "allow_mutation_on_saved_tensors"]


class saved_tensors_hooks:
    """Within this block, each tensor saved for backward is stored as pack_hook(tensor) and turned back into a
    tensor by unpack_hook(packed) when backward needs it. Blocks nest: the innermost pair applies."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _C._push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _C._pop_saved_tensors_default_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept in host memory (pinned when pin_memory and a CUDA device is available) and moved
    back to their device in backward: device memory for activations traded for copies."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        import tandem
        device_module = getattr(tandem, device_type, tandem.cuda)

        def pack_to_cpu(tensor):
            if not pin_memory:
                return tensor.device, tensor.cpu()
            pinnable = device_module.is_available()
            packed = tandem.empty(tensor.size(), dtype=tensor.dtype, pin_memory=pinnable)
            packed.copy_(tensor, non_blocking=pinnable)
            return tensor.device, packed

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Within this block, entering saved_tensors_hooks raises RuntimeError(error_message) (and so does entering
    this block while hooks are active): for features that cannot work with them."""
    previous = _C._saved_tensors_hooks_get_disabled_error_message()
    try:
        _C._saved_tensors_hooks_disable(error_message)
        yield
    finally:
        if previous is None:
            _C._saved_tensors_hooks_enable()
        else:
            _C._saved_tensors_hooks_disable(previous)


class GradientEdge(NamedTuple):
    """Where a tensor's gradient is computed in the graph: the node that receives it (the tensor's grad_fn, or
    a leaf's AccumulateGrad) and which of that node's outputs the tensor is."""

    node: Node
    output_nr: int
    # PyTorch keeps a Python-defined node's graph alive through this; a tandem node object owns its graph.
    ownership_token: Optional[Node] = None


def get_gradient_edge(tensor):
    """The GradientEdge of ``tensor``: its grad_fn (a leaf's AccumulateGrad) and its output number."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require "
                           "gradients")
    edge = GradientEdge(_C._grad_fn_or_accumulator(tensor), tensor.output_nr)
    _EDGE_SOURCES[(id(edge.node), edge.output_nr)] = tensor
    return edge


# The tensor each edge was taken from (while it lives), so autograd.grad can start from or capture at it.
_EDGE_SOURCES = weakref.WeakValueDictionary()


def edge_tensor(edge):
    """The live tensor whose gradient `edge` receives (one get_gradient_edge made it from, or None); an equal
    edge rebuilt from next_functions finds it too."""
    tensor = _EDGE_SOURCES.get((id(edge.node), edge.output_nr))
    if tensor is None or tensor.output_nr != edge.output_nr or _C._grad_fn_or_accumulator(tensor) is not edge.node:
        return None  # gone, or modified in place since (its edge is another node now)
    return tensor


def increment_version(tensor):
    """Marks `tensor` (or each tensor of an iterable) as modified in place, as an in-place op would: a saved
    copy of it then fails backward's version check."""
    if isinstance(tensor, _C.Tensor):
        _C._increment_version(tensor)
        return
    try:
        items = iter(tensor)
    except TypeError:
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
    for t in items:  # PyTorch's order: the tensors before a bad element are already marked
        if not isinstance(t, _C.Tensor):
            raise RuntimeError("increment_version expects each element of the iterable to be a tensor")
        _C._increment_version(t)


class _MultiHandle:
    """The handles of the per-tensor hooks behind one register_multi_grad_hook."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


def _backward_id():
    task = _C._current_graph_task_id()
    if task == -1:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode "all": fn(grads) once per backward pass, after the gradients of all of `tensors` that this pass
    computes are known (None for the others). mode "any": fn(grad) with the first of them computed."""
    modes = ("all", "any")
    if mode not in modes:
        raise ValueError(f"Expects mode to be one of {modes} but got {mode}")
    lock = threading.Lock()
    if mode == "any":
        fired = defaultdict(bool)

        def first_only(grad):
            task = _backward_id()
            with lock:
                already, fired[task] = fired[task], True
            if not already:
                fn(grad)

        return _MultiHandle(tuple(t.register_hook(first_only) for t in tensors if t.requires_grad))

    if any(not isinstance(t, GradientEdge) and not t.requires_grad for t in tensors):
        raise AssertionError("Expected gradient function to be set")  # PyTorch's assert ("any" skips them)
    nodes = [t.node if isinstance(t, GradientEdge) else _C._grad_fn_or_accumulator(t) for t in tensors]
    seen, expected, buffers = {}, {}, {}

    def hook_for(i):
        def hook(grad):
            task = _backward_id()
            with lock:
                count = seen.get(task, 0)
                seen[task] = count + 1
                if count == 0:  # the first of them in this pass: how many will come
                    expected[task] = sum(_C._will_engine_execute_node(n) for n in nodes)
                    buffers[task] = [None] * len(nodes)
                buffers[task][i] = grad
                done = count + 1 == expected[task]
                grads = buffers.pop(task) if done else None
                if done:
                    del seen[task], expected[task]
            if done:
                fn(grads)
        return hook

    return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))


# ---- allow_mutation_on_saved_tensors ----

_allow_mutation_on_saved_tensors_enabled = False


class _Handle:
    """What the graph keeps for one saved tensor inside allow_mutation_on_saved_tensors."""


class _AllowMutationOnSavedContext:
    """What allow_mutation_on_saved_tensors yields: for each saved tensor, the tensor as saved (``original``)
    and the copy taken when it was saved (``cloned``), found again by its memory and version
    (``tid_to_weakhandle``) so a tensor saved twice is copied once. Cleared when the block exits."""

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()


def _saved_tensor_id(tensor):
    return (tensor.data_ptr(), tensor._version, tuple(tensor.shape), tensor.stride(), tensor.dtype,
            str(tensor.device))


class _swap_with_cloned(saved_tensors_hooks):
    """The hooks behind allow_mutation_on_saved_tensors: pack keeps the tensor and a copy of it (tandem cannot
    see an in-place write coming, so the copy is taken now); unpack gives the tensor back while no in-place
    op has written it since (its version is unchanged), else the copy."""

    def __init__(self, ctx):
        def pack_hook(tensor):
            tid = _saved_tensor_id(tensor)
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None:
                handle = _Handle()
                handle.version = tensor._version
                ctx.tid_to_weakhandle[tid] = handle
                ctx.original[handle] = tensor
                ctx.cloned[handle] = tensor.clone()
            return handle

        def unpack_hook(handle):
            error_msg = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                         "in which the graph was originally recorded.")
            if not _allow_mutation_on_saved_tensors_enabled or handle not in ctx.original:
                raise AssertionError(error_msg)
            original = ctx.original[handle]
            return original if original._version == handle.version else ctx.cloned[handle]

        super().__init__(pack_hook, unpack_hook)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Within this block a tensor saved for backward may be modified in place: backward uses its value from
    when it was saved (outside the block that write fails backward's version check). Run the forward and the
    backward inside the same block. Yields the block's state (see _AllowMutationOnSavedContext)."""
    global _allow_mutation_on_saved_tensors_enabled
    if _allow_mutation_on_saved_tensors_enabled:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSavedContext()
    with _swap_with_cloned(ctx):
        try:
            _allow_mutation_on_saved_tensors_enabled = True
            yield ctx
        finally:
            ctx.clear()
            _allow_mutation_on_saved_tensors_enabled = False
