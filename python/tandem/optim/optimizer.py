"""The Optimizer base class: parameter groups, per-parameter state and state dicts, as in PyTorch."""
from collections import defaultdict
from copy import deepcopy

import tandem

from .. import _C
from .._C import Tensor
from ..nn.parameter import untracked


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + type(params).__name__
            )
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}"
            for key in sorted(group):
                if key != "params":
                    s += f"\n    {key}: {group[key]}"
        return s + "\n)"

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
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
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + type(p).__name__)
        group = dict(param_group, params=params)
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in existing for p in params) or len({id(p) for p in params}) != len(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
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

    def _grads(self, group):
        """(param, grad) for the params of `group` that have a gradient."""
        for p in group["params"]:
            g = p.grad
            if g is not None:
                yield p, g

    def state_dict(self):
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]} with params numbered in order."""
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
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
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
        for key, value in state_dict["state"].items():
            param = id_map.get(int(key))
            if param is None:
                continue
            self.state[param] = {k: _cast_state(param, k, v) for k, v in value.items()}
        for g, s in zip(groups, saved_groups):
            g.update({k: deepcopy(v) for k, v in s.items() if k != "params"})

    def step(self, closure=None):
        raise NotImplementedError


def _cast_state(param, key, value):
    """State tensors take the parameter's dtype and device; `step` stays as it was saved (PyTorch's rule)."""
    if not isinstance(value, Tensor):
        return value
    if key == "step":
        return value.clone()
    return _C._make_subclass(Tensor, value.to(device=param.device, dtype=param.dtype), False).clone()
