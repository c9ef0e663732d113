"""tandem.optim.swa_utils: stochastic weight averaging and EMA of a model's weights, as torch.optim.swa_utils
(AveragedModel, SWALR, update_bn and the averaging functions), with PyTorch's update formulas.

PyTorch averages floating tensors with torch._foreach_lerp_ where it has foreach kernels (CUDA) and with
``avg + (current - avg) / (n + 1)`` elsewhere (CPU); tandem uses the CPU formula on every device for the
default SWA average, so results match PyTorch's CPU run bit for bit and its CUDA run to rounding. The EMA
functions use ``lerp_``, as PyTorch does on both.
"""
import copy
import itertools
import math
import warnings

from .. import _C
from .._creation import tensor as _tensor
from .._transfer_guard import _crossing
from ..autograd.grad_mode import no_grad
from ..nn import Module
from ..nn.modules.normalization import _BatchNorm
from ._scheduler_base import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def _is_floating(t):
    return t.dtype.is_floating_point


def get_ema_multi_avg_fn(decay=0.999):
    """In-place EMA over lists of tensors: ema <- ema + (1 - decay) * (current - ema)."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if _is_floating(ema_param_list[0]):
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """In-place equal-weight running average over lists of tensors (weight 1 / (n + 1) for the new model)."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if _is_floating(averaged_param_list[0]):
            # PyTorch's foreach lerp takes a 0-dim weight as a Python scalar: float32-rounded 1 / (n + 1).
            weight = 1 / (num_averaged + 1)
            if isinstance(weight, _C.Tensor):
                with _crossing("swa_utils.get_swa_multi_avg_fn"):
                    weight = weight.item()
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                p_avg.lerp_(p_model, weight)
        else:
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                diff = p_model - p_avg
                if isinstance(num_averaged, _C.Tensor):
                    p_avg.addcdiv_(diff, num_averaged + 1)
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """EMA of one tensor, returned: decay * ema + (1 - decay) * current."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """Equal-weight running average of one tensor, returned: avg + (current - avg) / (n + 1)."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _group_by_device_and_dtype(averaged, current):
    groups = {}
    for p_avg, p_model in zip(averaged, current, strict=True):
        lists = groups.setdefault((str(p_avg.device), p_avg.dtype), ([], []))
        lists[0].append(p_avg)
        lists[1].append(p_model)
    return groups


class AveragedModel(Module):
    """A copy of ``model`` (on ``device`` if given) whose parameters (and buffers with ``use_buffers``) are a
    running average of the models passed to ``update_parameters``: equal weights by default, or ``avg_fn``
    (one tensor at a time, returning the new average) or ``multi_avg_fn`` (lists of tensors, in place)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _tensor(0, dtype=_C.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        if self.use_buffers:
            self_params = itertools.chain(self.module.parameters(), self.module.buffers())
            model_params = itertools.chain(model.parameters(), model.buffers())
        else:
            self_params, model_params = self.parameters(), model.parameters()
        averaged, current = [], []
        with _crossing("AveragedModel.update_parameters"):  # n_averaged may live on a CUDA device
            copy_param = bool(self.n_averaged == 0)
            any_averaged = bool(self.n_averaged > 0)
        for p_averaged, p_model in zip(self_params, model_params):
            p_model_ = p_model.detach().to(p_averaged.device)
            averaged.append(p_averaged.detach())
            current.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)
        if any_averaged:
            if self.avg_fn is None:
                for (device, _), (avg_list, cur_list) in _group_by_device_and_dtype(averaged, current).items():
                    n_averaged = self.n_averaged.to(device)
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(avg_list, cur_list, n_averaged)
                    else:
                        avg_fn = get_swa_avg_fn()
                        for p_avg, p_model in zip(avg_list, cur_list, strict=True):
                            p_avg.copy_(avg_fn(p_avg, p_model, n_averaged))
            else:
                for p_avg, p_model in zip(averaged, current, strict=True):
                    n_averaged = self.n_averaged.to(p_avg.device)
                    p_avg.detach().copy_(self.avg_fn(p_avg.detach(), p_model, n_averaged))
        if not self.use_buffers:
            # Buffers (BatchNorm statistics) are copied, not averaged: update_bn recomputes them.
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recomputes the BatchNorm running statistics of ``model`` with one pass over ``loader`` (each batch a
    tensor, or a list/tuple whose first element is the input), as a cumulative average (momentum=None)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for bn_module in momenta:
        bn_module.momentum = momenta[bn_module]
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to ``swa_lr`` over ``anneal_epochs`` steps (cosine or linear), then holds it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for swa_lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = swa_lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
