"""tandem.ao.quantization: ``quantize_dynamic`` and the configurations it takes (also tandem.quantization, the
older name PyTorch programs use). docs/nn.md, "Dynamic quantization"."""
from .qconfig import QConfig, default_dynamic_qconfig, float16_dynamic_qconfig, per_channel_dynamic_qconfig
from .quantize import get_default_dynamic_quant_module_mappings, quantize_dynamic

__all__ = ["QConfig", "default_dynamic_qconfig", "float16_dynamic_qconfig", "per_channel_dynamic_qconfig",
           "get_default_dynamic_quant_module_mappings", "quantize_dynamic"]
