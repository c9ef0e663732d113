"""tandem.cpu.amp: PyTorch's older spelling of tandem.amp for the CPU (deprecated there too, with the same
FutureWarnings); everything forwards to tandem.amp with device_type 'cpu'."""
import tandem
from ..amp._device_spellings import device_amp_classes

__all__ = ["autocast", "GradScaler"]

autocast, GradScaler = device_amp_classes("cpu", tandem.bfloat16)
