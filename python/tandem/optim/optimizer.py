"""The Optimizer base class: parameter groups, per-parameter state and state dicts, as in PyTorch."""
import functools
from collections import OrderedDict, defaultdict
from copy import deepcopy

import tandem

from .. import _C
from .._C import Tensor
from ..nn.modules.module_hooks import add_hook
from ..nn.parameter import untracked

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

# Hooks around every optimizer's step(): the global pre-hooks run before an optimizer's own, the global
# post-hooks after its own (PyTorch's order).
_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before every optimizer's step()."""
    return add_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """hook(optimizer, args, kwargs) -> None, after every optimizer's step()."""
    return add_hook(_global_optimizer_post_hooks, hook)


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

# PyTorch's message for capturable=True on parameters outside a device (its list, kept for searchability).
_CAPTURABLE_DEVICES = "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"


def implementation_switches(lr, **switches):
    """PyTorch's implementation switches (foreach, fused, capturable, differentiable: each optimizer passes the
    ones its PyTorch signature has), checked as PyTorch checks them, for the optimizer's defaults. Every setting
    runs tandem's one update per tensor (a fused C++ kernel where the optimizer has one), so foreach and fused
    give the same numbers as the default; capturable (for CUDA graphs, which tandem does not have) only checks
    that the parameters are on a cuda device, as PyTorch's step does; differentiable is refused at step() (the
    updates run outside autograd). A 1-element tensor lr stays in the group and is read at each step."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if switches.get("fused"):
        if switches.get("foreach"):
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        if switches.get("differentiable"):
            raise RuntimeError("`fused` does not support `differentiable`")
    return switches


class Optimizer:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None:
            cls.step = _checked_step(step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + params.type()
            )
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        _hook_steps_of(type(self))

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += ("\n" if i else "") + f"\nParameter Group {i}"  # a blank line between groups, as PyTorch's
            for key in sorted(group):
                if key != "params":
                    s += f"\n    {key}: {group[key]}"
        return s + "\n)"

    def __getstate__(self):
        # PyTorch's: an optimizer pickles (and deep-copies) as its defaults, state and param groups only; hooks
        # belong to the process, and an lr scheduler's wrapper of `step`, kept on the instance, would not pickle
        # (pickle.dumps(scheduler) failed on it; program sweep 21)
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        _hook_steps_of(type(self))

    def _hooks(self, kind):
        """The instance's ordered hook table `kind`, made on first use (an optimizer unpickled from an object
        without it, or a subclass that skipped Optimizer.__init__, still gets one)."""
        return self.__dict__.setdefault("_optimizer_" + kind + "_hooks", OrderedDict())

    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before this optimizer's step()."""
        return add_hook(self._hooks("step_pre"), hook)

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None, after this optimizer's step()."""
        return add_hook(self._hooks("step_post"), hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer) -> None, before state_dict() builds its dict."""
        return add_hook(self._hooks("state_dict_pre"), hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> None or the state dict that state_dict() returns instead."""
        return add_hook(self._hooks("state_dict_post"), hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> None or the state dict to load instead."""
        return add_hook(self._hooks("load_state_dict_pre"), hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer) -> None, after load_state_dict() has loaded."""
        return add_hook(self._hooks("load_state_dict_post"), hook, prepend)

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            kind = "<class 'tandem.Tensor'>" if type(param_group) is Tensor else type(param_group)
            raise TypeError(f"param_group must be a dict, but got {kind}")  # PyTorch's name, not tandem._C.Tensor
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in "
                "sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        param_group, params = self._split_names(param_group, params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + type(p).__name__)
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")  # its .grad would never be filled
        group = dict(param_group, params=params)
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):  # PyTorch warns (and steps such a parameter twice)
            import warnings  # noqa: PLC0415

            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in existing for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def _split_names(self, param_group, params):
        """Named parameters ((name, tensor) pairs, as model.named_parameters() gives) become the group's tensors
        and its "param_names" (after the keys the group was given, before the defaults: PyTorch's order). Every
        group of one optimizer is named, or none is."""
        named = [isinstance(p, tuple) for p in params]
        if any(named) and not all(named):
            raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        has_names = bool(params) and all(named)
        if self.param_groups and has_names != ("param_names" in self.param_groups[0]):
            raise ValueError("all optimizer param groups should be with/without names. cannot add param group "
                             f"{'with' if has_names else 'without'} names to the optimizer")
        if not has_names:
            return param_group, params
        return dict(param_group, param_names=[p[0] for p in params]), [p[1] for p in params]

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                # A gradient with its own history (create_graph=True) is cut from it first, as PyTorch does, so
                # that the in-place zeroing is no write into a leaf that requires grad.
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    @staticmethod
    def _evaluate(closure):
        """The loss from ``closure`` (recomputed with grad enabled), or None without one."""
        if closure is None:
            return None
        with tandem.enable_grad():
            return closure()

    def _state_for(self, p, *buffers):
        """p's state, made on its first step as `step` (a 0-d float tensor, as PyTorch's) and a zero tensor like p
        for each name in `buffers`; counts the step."""
        state = self.state[p]
        if not state:
            state["step"] = tandem.tensor(0.0)
            for name in buffers:
                state[name] = tandem.zeros_like(p)
        untracked(state["step"]).add_(1)
        return state

    @staticmethod
    def _update_direction(p, grad, group):
        """(untracked p, the gradient the update follows): grad negated under `maximize`, plus weight_decay * p
        (L2), or with `decoupled_weight_decay` p shrunk in place by lr * weight_decay instead, in PyTorch's
        single-tensor order."""
        param, grad = untracked(p), untracked(grad)
        if group["maximize"]:
            grad = grad.neg()
        decay = group["weight_decay"]
        if decay != 0:
            if group.get("decoupled_weight_decay", False):
                param.mul_(1 - group["lr"] * decay)
            else:
                grad = tandem.add(grad, param, alpha=decay)
        return param, grad

    def _prepare_step(self):
        """Checks the groups' switches before a step; returns [(group, tensor lr)] for the groups whose lr is a
        tensor, which hold its value as a float while the step runs."""
        tensor_lrs = []
        for group in self.param_groups:
            if group.get("differentiable"):
                raise NotImplementedError(
                    f"{type(self).__name__}(differentiable=True) is not supported: tandem's optimizers update "
                    "parameters outside autograd\nhint: write the update with tensor ops under autograd, or use "
                    "differentiable=False")
            if group.get("capturable") and any(p.device.type != "cuda" for p in group["params"]):
                raise AssertionError(f"If capturable=True, params and state_steps must be on supported devices: "
                                     f"{_CAPTURABLE_DEVICES}.")
            lr = group.get("lr")
            if isinstance(lr, Tensor):
                tensor_lrs.append((group, lr))
                group["lr"] = float(lr)
        return tensor_lrs

    @staticmethod
    def _real(t):
        """t for a fused update: a complex tensor viewed as real (PyTorch's optimizers update complex params as
        pairs of reals), untracked; None stays None."""
        if t is None:
            return None
        return tandem.view_as_real(untracked(t)) if t.is_complex() else t

    # PyTorch's refusal of a sparse gradient (nn.Embedding(sparse=True) gives one), or None where the step takes it.
    _sparse_grad_error = None

    def _grads(self, group):
        """(param, grad) for the params of `group` that have a gradient."""
        for p in group["params"]:
            g = p.grad
            if g is not None:
                if self._sparse_grad_error is not None and g.is_sparse:
                    raise RuntimeError(self._sparse_grad_error)
                yield p, g

    def state_dict(self):
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]} with params numbered in order."""
        for hook in list(self._hooks("state_dict_pre").values()):
            hook(self)
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                packed["params"].append(index[id(p)])
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index}
        state_dict = {"state": state, "param_groups": groups}
        for hook in list(self._hooks("state_dict_post").values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict):
        # A shallow copy, so that pre-hooks may edit it without touching the caller's (PyTorch's .copy(): None or
        # another object without one is its AttributeError)
        state_dict = state_dict.copy()
        for hook in list(self._hooks("load_state_dict_pre").values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        id_map = {}
        for g, s in zip(groups, saved_groups):
            id_map.update(zip(s["params"], g["params"]))
        self.state = defaultdict(dict)
        own = type(self).__module__.startswith("tandem.optim.")  # PyTorch's own optimizers convert a numeric step
        for key, value in state_dict["state"].items():
            param = id_map.get(int(key))
            if param is None:
                continue
            self.state[param] = {k: _cast_state(param, k, v, own) for k, v in value.items()}
        # Each group is rebuilt as PyTorch rebuilds it: a new dict with the saved keys in their saved order, then
        # its own params (and names, when the saved group has none).
        loaded_groups = []
        for g, s in zip(groups, saved_groups):
            loaded = {k: deepcopy(v) for k, v in s.items() if k != "params"}
            loaded["params"] = g["params"]
            if "param_names" in g and "param_names" not in loaded:
                loaded["param_names"] = g["param_names"]
            loaded_groups.append(loaded)
        self.param_groups = loaded_groups
        for hook in list(self._hooks("load_state_dict_post").values()):
            hook(self)

    def step(self, closure=None):
        raise NotImplementedError


def _hook_steps_of(cls):
    """Marks cls's step as hooked, as PyTorch's Optimizer.__init__ (and __setstate__) patches type(self).step."""
    if not cls.__dict__.get("_step_hooks_on", False):
        cls._step_hooks_on = True


def _checked_step(step):
    """An optimizer's step() behind _prepare_step, with tensor learning rates put back afterwards."""
    if getattr(step, "_checks_switches", False):
        return step

    @functools.wraps(step)
    def checked_step(self, *args, **kwargs):
        if not getattr(type(self), "_step_hooks_on", False):
            # PyTorch wraps a class's step in its hooks when an instance runs Optimizer.__init__: a wrapper
            # optimizer that never does (pytorch_optimizer's PCGrad) steps without hooks or checks
            return step(self, *args, **kwargs)
        if self.__dict__.get("_in_step"):  # a subclass's step calling super().step(): hooks ran already
            return step(self, *args, **kwargs)
        # The hooks see step's arguments with the optimizer first, as PyTorch passes them.
        args = (self,) + args
        for hook in (*_global_optimizer_pre_hooks.values(), *self._hooks("step_pre").values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{checked_step} must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
                args, kwargs = result
        args[0]  # noqa: B018  PyTorch reads self from the (hook-edited) args: a hook that dropped it is an IndexError
        tensor_lrs = self._prepare_step()
        self._in_step = True
        try:
            out = step(*args, **kwargs)
        finally:
            self._in_step = False
            for group, lr in tensor_lrs:
                group["lr"] = lr
        for hook in (*self._hooks("step_post").values(), *_global_optimizer_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    checked_step._checks_switches = True
    return checked_step


def _cast_state(param, key, value, own_optimizer=False):
    """State tensors take the parameter's dtype and device; `step` stays as it was saved (PyTorch's rule).
    As in PyTorch, a saved tensor that already fits is kept itself, not copied: the optimizer then goes on updating
    the loaded dict's tensors in place (resuming code that reads the checkpoint afterwards sees the new steps)."""
    if own_optimizer and key == "step" and isinstance(value, (int, float)) and not isinstance(value, bool):
        # A step saved as a number (older checkpoints) becomes the 0-d tensor tandem's optimizers count in, as
        # PyTorch's optimizers' __setstate__ makes it (float64 under a float64 default dtype, else float32); a
        # user's Optimizer subclass keeps what it saved
        scalar_dtype = tandem.float64 if tandem.get_default_dtype() == tandem.float64 else tandem.float32
        return tandem.tensor(float(value), dtype=scalar_dtype)
    if not isinstance(value, Tensor):
        return value
    if key == "step":
        return value
    if (type(value) is Tensor and value.device == param.device
            and (value.shape != param.shape or value.stride() == param.stride())
            and (value.dtype == param.dtype or not param.is_floating_point())):
        return value
    if value.shape == param.shape:  # in the parameter's memory format (channels-last state for such params)
        return tandem.empty_like(param, requires_grad=False).copy_(value)
    return _C._make_subclass(Tensor, value.to(device=param.device, dtype=param.dtype), False).clone()
