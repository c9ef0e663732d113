"""tandem.ao.quantization: ``quantize_dynamic`` and the configurations it takes (also tandem.quantization, the
older name PyTorch programs use; docs/nn.md, "Dynamic quantization"), and the observers and FakeQuantize modules
of quantisation-aware training (observer.py, fake_quantize.py)."""
from . import _learnable_fake_quantize, fake_quantize, observer  # noqa: F401  (PyTorch's module paths)
from .fake_quantize import (FakeQuantize, FakeQuantizeBase, default_fake_quant, default_per_channel_weight_fake_quant,
                            default_weight_fake_quant, disable_fake_quant, disable_observer, enable_fake_quant,
                            enable_observer)
from .observer import (MinMaxObserver, MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver,
                       ObserverBase, PerChannelMinMaxObserver, default_observer, default_per_channel_weight_observer,
                       default_weight_observer)
from .qconfig import QConfig, default_dynamic_qconfig, float16_dynamic_qconfig, per_channel_dynamic_qconfig
from .quantize import get_default_dynamic_quant_module_mappings, quantize_dynamic

__all__ = ["QConfig", "default_dynamic_qconfig", "float16_dynamic_qconfig", "per_channel_dynamic_qconfig",
           "get_default_dynamic_quant_module_mappings", "quantize_dynamic", "FakeQuantize", "FakeQuantizeBase",
           "default_fake_quant", "default_weight_fake_quant", "default_per_channel_weight_fake_quant",
           "disable_fake_quant", "enable_fake_quant", "disable_observer", "enable_observer", "ObserverBase",
           "MinMaxObserver", "MovingAverageMinMaxObserver", "PerChannelMinMaxObserver",
           "MovingAveragePerChannelMinMaxObserver", "default_observer", "default_weight_observer",
           "default_per_channel_weight_observer"]
