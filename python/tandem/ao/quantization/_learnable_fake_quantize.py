"""torch.ao.quantization._learnable_fake_quantize._LearnableFakeQuantize: a fake quantiser whose scale and zero
point are Parameters learned with the rest of the model (LSQ), through tandem._fake_quantize_learnable_per_tensor
/ _per_channel_affine (their gradients to scale and zero point, optionally scaled by 1/sqrt(numel * quant_max)).
While static estimation is on, the observer's qparams overwrite them each step, as in PyTorch."""
import math

import tandem

from ... import nn
from ..._quantized_types import per_channel_affine, per_channel_symmetric, per_tensor_symmetric
from .fake_quantize import FakeQuantizeBase, _bounds
from .observer import _EPS

__all__ = ["_LearnableFakeQuantize"]


class _LearnableFakeQuantize(FakeQuantizeBase):
    """Switches: fake_quant_enabled, static_enabled (the observer sets the qparams), learning_enabled (the qparams
    take gradients); observer_enabled is FakeQuantizeBase's and is not read."""

    def __init__(self, observer, quant_min=0, quant_max=255, scale=1.0, zero_point=0.0, channel_len=-1,
                 use_grad_scaling=False, **observer_kwargs):
        super().__init__()
        if not quant_min < quant_max:
            raise AssertionError("quant_min must be strictly less than quant_max.")
        self.quant_min, self.quant_max = quant_min, quant_max
        observer_kwargs["quant_min"], observer_kwargs["quant_max"] = quant_min, quant_max
        self.use_grad_scaling = use_grad_scaling
        if channel_len == -1:
            self.scale = nn.Parameter(tandem.tensor([scale]))
            self.zero_point = nn.Parameter(tandem.tensor([zero_point]))
        else:
            if not (isinstance(channel_len, int) and channel_len > 0):
                raise AssertionError("Channel size must be a positive integer.")
            self.scale = nn.Parameter(tandem.tensor([scale] * channel_len))
            self.zero_point = nn.Parameter(tandem.tensor([zero_point] * channel_len))
        self.activation_post_process = observer(**observer_kwargs)
        low, high = _bounds(self.activation_post_process.dtype)
        if not low <= quant_min:
            raise AssertionError("quant_min out of bound")
        if not quant_max <= high:
            raise AssertionError("quant_max out of bound")
        self.dtype = self.activation_post_process.dtype
        self.qscheme = self.activation_post_process.qscheme
        self.ch_axis = getattr(self.activation_post_process, "ch_axis", -1)
        self.register_buffer("fake_quant_enabled", tandem.tensor([1], dtype=tandem.uint8))
        self.register_buffer("static_enabled", tandem.tensor([1], dtype=tandem.uint8))
        self.register_buffer("learning_enabled", tandem.tensor([0], dtype=tandem.uint8))
        self.bitwidth = int(math.log2(self.quant_max - self.quant_min + 1))
        self.register_buffer("eps", tandem.tensor([_EPS]))

    def enable_param_learning(self):
        """Learn the qparams, fake-quantise, stop observing."""
        self.toggle_qparam_learning(enabled=True).toggle_fake_quant(enabled=True).toggle_observer_update(
            enabled=False)
        return self

    def enable_static_estimate(self):
        """Observe and fake-quantise, no learning."""
        self.toggle_qparam_learning(enabled=False).toggle_fake_quant(enabled=True).toggle_observer_update(
            enabled=True)

    def enable_static_observation(self):
        """Observe only."""
        self.toggle_qparam_learning(enabled=False).toggle_fake_quant(enabled=False).toggle_observer_update(
            enabled=True)

    def toggle_observer_update(self, enabled=True):
        self.static_enabled[0] = int(enabled)
        return self

    def enable_observer(self, enabled=True):
        self.toggle_observer_update(enabled)

    def toggle_qparam_learning(self, enabled=True):
        self.learning_enabled[0] = int(enabled)
        self.scale.requires_grad = enabled
        self.zero_point.requires_grad = enabled
        return self

    def toggle_fake_quant(self, enabled=True):
        self.fake_quant_enabled[0] = int(enabled)
        return self

    def observe_quant_params(self):
        print(f"_LearnableFakeQuantize Scale: {self.scale.detach()}")
        print(f"_LearnableFakeQuantize Zero Point: {self.zero_point.detach()}")

    def calculate_qparams(self):
        """The learned scale (floored at eps, in place) and the zero point rounded and clamped, as int64."""
        self.scale.data.clamp_(min=self.eps.item())
        scale = self.scale.detach()
        zero_point = self.zero_point.detach().round().clamp(self.quant_min, self.quant_max).long()
        return scale, zero_point

    def forward(self, X):
        if self.static_enabled[0].item() == 1:
            self.activation_post_process(X.detach())
            scale, zero_point = self.activation_post_process.calculate_qparams()
            self.scale.data.copy_(scale.to(self.scale.device))
            self.zero_point.data.copy_(zero_point.to(self.zero_point.device))
        else:
            self.scale.data.clamp_(min=self.eps.item())
        if self.fake_quant_enabled[0].item() == 1:
            if self.qscheme in (per_channel_symmetric, per_tensor_symmetric):
                self.zero_point.data.zero_()
            grad_factor = 1.0 / (X.numel() * self.quant_max) ** 0.5 if self.use_grad_scaling else 1.0
            if self.qscheme in (per_channel_symmetric, per_channel_affine):
                X = tandem._fake_quantize_learnable_per_channel_affine(X, self.scale, self.zero_point, self.ch_axis,
                                                                       self.quant_min, self.quant_max, grad_factor)
            else:
                X = tandem._fake_quantize_learnable_per_tensor_affine(X, self.scale, self.zero_point,
                                                                      self.quant_min, self.quant_max, grad_factor)
        return X
