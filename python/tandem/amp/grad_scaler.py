"""tandem.amp.GradScaler: dynamic loss scaling for float16 training, with PyTorch's API and scale sequence.

The scale and the found-inf flag stay on the device: unscale_ checks all of an optimizer's gradients on a
device with one stacked isfinite().all() and no host read; step reads one flag per device (as PyTorch does)
to decide whether to skip the optimizer step.
"""
import warnings
from collections import defaultdict
from enum import Enum

import tandem

__all__ = ["OptState", "GradScaler"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Multiplies the loss by a scale factor so float16 gradients do not underflow, unscales the gradients
    before the optimizer step, skips steps whose gradients hold inf/NaN, and adapts the scale: times
    ``backoff_factor`` after a skipped step, times ``growth_factor`` after ``growth_interval`` clean steps."""

    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not tandem.cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # a 0-dim float32 tensor on the device of the first scaled output
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None  # clean steps in a row (a Python int: it never needs the device)
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        self._scale = tandem.full((), self._init_scale, dtype=tandem.float32, device=dev)
        self._growth_tracker = self._init_growth_tracker

    def scale(self, outputs):
        """``outputs`` (a tensor or an iterable of tensors) multiplied by the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, tandem.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)
        per_device = {}

        def apply_scale(val):
            if isinstance(val, tandem.Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                if val.device not in per_device:
                    per_device[val.device] = self._scale.to(device=val.device, non_blocking=True)
                return val * per_device[val.device]
            if isinstance(val, (list, tuple)):
                return type(val)(map(apply_scale, val))
            if hasattr(val, "__iter__"):
                return map(apply_scale, val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, allow_fp16):
        grads_per_device = defaultdict(list)
        with tandem.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype == tandem.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    grads_per_device[param.grad.device].append(param.grad)
            found_inf_per_device = {}
            for device, grads in grads_per_device.items():
                # One non-finite check for all of this device's gradients, kept on the device (no sync).
                finite = tandem.stack([tandem.isfinite(g).all() for g in grads]).all()
                found_inf_per_device[device] = (~finite).to(tandem.float32)
                inv = inv_scale.to(device=device, non_blocking=True)
                for g in grads:
                    g.mul_(inv)
        return found_inf_per_device

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale (once per optimizer between updates), for example
        before clipping them; step() then does not unscale again."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscales the gradients (unless unscale_ was called) and runs ``optimizer.step(*args, **kwargs)``
        unless they hold inf/NaN; returns what optimizer.step returned, or None when the step was skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        # The one host read of a step; update() reuses it.
        state["found_inf"] = sum(v.item() for v in state["found_inf_per_device"].values())
        if not state["found_inf"]:
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Sets the scale for the next iteration: ``new_scale`` when given, otherwise backs off after a skipped
        step or grows after ``growth_interval`` clean steps in a row."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if (not isinstance(new_scale, tandem.Tensor) or new_scale.device.type != self._device
                        or new_scale.numel() != 1 or new_scale.requires_grad):
                    raise AssertionError(reason)
                self._scale.copy_(new_scale)
        else:
            states = [state for state in self._per_optimizer_states.values() if state["found_inf_per_device"]]
            if len(states) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            # An optimizer that was unscaled but not stepped has its flags read here (step() read the others).
            found = sum(state["found_inf"] if "found_inf" in state
                        else sum(v.item() for v in state["found_inf_per_device"].values()) for state in states)
            if found:
                self._scale.mul_(self._backoff_factor)
                self._growth_tracker = 0
            elif self._growth_tracker + 1 == self._growth_interval:
                grown = self._scale * self._growth_factor
                self._scale.copy_(tandem.where(tandem.isfinite(grown), grown, self._scale))  # never to inf
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else float(self._scale.item())
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker ({} when disabled)."""
        if self._enabled:
            return {
                "scale": self.get_scale(),
                "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker(),
            }
        return {}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker = state_dict["_growth_tracker"]

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                     "of an iteration, or at the end after scaler.update().")
            state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self._enabled:
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)
