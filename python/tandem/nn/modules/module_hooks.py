"""Module hooks as PyTorch runs them: forward pre/post hooks (with_kwargs, prepend, always_call), full backward
and backward-pre hooks, and the global `register_module_*` hooks. Module.__call__ comes here only when some hook
is registered, so a module without hooks pays one truth test."""
from collections import OrderedDict
import warnings

from ... import _C
from ..._C import Tensor
from ...autograd.function import Function

# Hooks registered for every module (torch.nn.modules.module.register_module_*_hook).
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = set()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()


class RemovableHandle:
    """Returned by register_*_hook: ``remove()`` (or leaving a ``with`` block) unregisters the hook, also from the
    side tables (with_kwargs, always_call) named in extra_dict."""

    _next_id = 0

    def __init__(self, hooks, hook=None, *, extra_dict=None):
        self.hooks_dict_ref = hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1
        self.extra_dict_ref = () if extra_dict is None else tuple(
            extra_dict if isinstance(extra_dict, (list, tuple)) else [extra_dict])
        if hook is not None:
            hooks[self.id] = hook

    def remove(self):
        self.hooks_dict_ref.pop(self.id, None)
        for extra in self.extra_dict_ref:
            extra.discard(self.id) if isinstance(extra, set) else extra.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(hooks, hook, prepend=False, extra=()):
    """Registers hook in the ordered dict `hooks` (first when prepend); `extra` are the id sets it joins."""
    handle = RemovableHandle(hooks, hook, extra_dict=list(extra) or None)
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    for table in extra:
        table.add(handle.id)
    return handle


def register_module_forward_pre_hook(hook):
    return add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    if with_kwargs:
        raise NotImplementedError("register_module_forward_hook(with_kwargs=True) is not supported by tandem")
    return add_hook(_global_forward_hooks, hook, extra=[_global_forward_hooks_always_called] if always_call else [])


def register_module_full_backward_pre_hook(hook):
    return add_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    return add_hook(_global_backward_hooks, hook)


def register_module_backward_hook(hook):
    return add_hook(_global_backward_hooks, hook)


# ---- backward hooks -----------------------------------------------------------------------------------------
# As PyTorch's BackwardHook: the module's tensor inputs and outputs pass through identity autograd functions, so
# one backward call sees the gradients of all outputs (grad_output) and one sees those of all inputs
# (grad_input). The hooks run there and may replace the gradients.

class BackwardHookFunction(Function):
    """The identity on a module's tensors (PyTorch's name, so grad_fn reads BackwardHookFunctionBackward); its
    backward hands their gradients to `on_grads` (the output or the input side of the hook state), which may
    replace them."""

    @staticmethod
    def forward(ctx, on_grads, *tensors):
        ctx.on_grads = on_grads
        ctx.set_materialize_grads(False)
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.on_grads(grads))


def _replaced(result, grads, hook_kind, what):
    """The gradients a backward hook returned (None keeps `grads`), checked as PyTorch checks them: as many as it
    was given (any sequence counts, so a lone tensor is read as its rows, and a number has no len()), each a
    tensor of the type and size of the gradient it replaces."""
    if result is None:
        return grads
    if len(result) != len(grads):
        raise RuntimeError(f"{hook_kind} returned an invalid number of {what}, got {len(result)}, but expected "
                           f"{len(grads)}")
    result = tuple(result)
    for new, old in zip(result, grads):
        if new is None:
            continue
        if not isinstance(new, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
        if old is None:
            continue
        if new.dtype != old.dtype or new.device != old.device:
            raise RuntimeError(f"hook 'hook' has changed the type of value (was {_legacy_type(old)} got "
                               f"{_legacy_type(new)})")
        if new.shape != old.shape:
            raise RuntimeError("hook 'hook' has changed the size of value")
    return result


def _legacy_type(t):
    """torch.DoubleTensor, torch.cuda.FloatTensor: the names PyTorch's hook messages use (as tandem's C++ hooks)."""
    return t.type().replace("tandem.", "torch.", 1)


class _BackwardHookState:
    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_positions = None  # positions of the inputs that require grad, None when none does

    def _pack(self, positions, values, n):
        out = [None] * n
        for i, v in zip(positions, values):
            out[i] = v
        return tuple(out)

    def wrap_inputs(self, args):
        self.n_inputs = len(args)
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not positions or not _C.is_grad_enabled():
            return args
        self.input_positions = positions
        # As PyTorch: the other tensor inputs get zeros in grad_input (non-differentiable outputs of its identity).
        self.zero_inputs = [(i, args[i].shape, args[i].dtype, args[i].device) for i, a in enumerate(args)
                            if isinstance(a, Tensor) and not a.requires_grad]
        new = BackwardHookFunction.apply(self.on_input_grads, *[args[i] for i in positions])
        args = list(args)
        for i, t in zip(positions, new):
            args[i] = t
        return tuple(args)

    def wrap_outputs(self, output):
        single = isinstance(output, Tensor)
        if not (single or isinstance(output, tuple)):  # a list or a dict: no hooks on it, as in PyTorch
            warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of Tensors "
                          f"but received {type(output)}", stacklevel=3)
            return output
        items = [output] if single else list(output)
        if not _C.is_grad_enabled():
            return output
        positions = [i for i, o in enumerate(items) if isinstance(o, Tensor) and o.requires_grad]
        if not positions:
            return output
        self.n_outputs, self.output_positions = len(items), positions
        new = BackwardHookFunction.apply(self.on_output_grads, *[items[i] for i in positions])
        for i, t in zip(positions, new):
            items[i] = t
        return items[0] if single else type(output)(items)

    def on_output_grads(self, grads):
        packed = self._pack(self.output_positions, grads, self.n_outputs)
        for hook in self.pre_hooks:
            packed = _replaced(hook(self.module, packed), packed, "Backward pre hook", "grad_output")
        self.grad_outputs = packed
        if self.input_positions is None and self.hooks:  # no input requires grad: hooks see grad_input Nones now
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                          "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                result = hook(self.module, grad_inputs, self.grad_outputs)
                if result is not None and not all(r is None for r in result):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
        return [packed[i] for i in self.output_positions]

    def on_input_grads(self, grads):
        if self.grad_outputs is None:
            # As PyTorch's BackwardHook: no gradient came through the module's output hook (an output that is not a
            # tensor or a tuple of them, a dict say, or a double backward): the hooks are skipped.
            return list(grads)
        packed = list(self._pack(self.input_positions, grads, self.n_inputs))
        for i, shape, dtype, device in self.zero_inputs:
            packed[i] = _C.zeros(shape, dtype=dtype, device=device)
        packed = tuple(packed)
        for hook in self.hooks:
            packed = _replaced(hook(self.module, packed, self.grad_outputs), packed, "Backward hook", "grad_input")
        return [packed[i] for i in self.input_positions]


def call_with_hooks(module, args, kwargs):
    """Module.__call__ when any hook is registered (PyTorch's _call_impl order)."""
    d = module.__dict__
    backward = list(_global_backward_hooks.values()) + list(d["_backward_hooks"].values())
    backward_pre = list(_global_backward_pre_hooks.values()) + list(d["_backward_pre_hooks"].values())
    pre_kwargs = d["_forward_pre_hooks_with_kwargs"]
    for hook_id, hook in list(_global_forward_pre_hooks.items()) + list(d["_forward_pre_hooks"].items()):
        if hook_id in pre_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    state = None
    if backward or backward_pre:
        state = _BackwardHookState(module, backward, backward_pre)
        args = state.wrap_inputs(args)
    post_kwargs, always = d["_forward_hooks_with_kwargs"], d["_forward_hooks_always_called"]
    post = list(_global_forward_hooks.items()) + list(d["_forward_hooks"].items())
    try:
        output = module.forward(*args, **kwargs)
    except Exception:
        for hook_id, hook in post:  # always_call hooks run even when forward raised; their errors are dropped
            if hook_id in always or hook_id in _global_forward_hooks_always_called:
                try:
                    hook(module, args, kwargs, None) if hook_id in post_kwargs else hook(module, args, None)
                except Exception as e:
                    warnings.warn(f"forward hook with ``always_call=True`` raised an exception that was silenced "
                                  f"as another error was raised in forward: {e}")
        raise
    for hook_id, hook in post:
        result = hook(module, args, kwargs, output) if hook_id in post_kwargs else hook(module, args, output)
        if result is not None:
            output = result
    if state is not None:
        output = state.wrap_outputs(output)
    return output
