"""tandem.quantization: the older name of tandem.ao.quantization, which PyTorch programs still use
(``torch.quantization.quantize_dynamic``)."""
from ..ao.quantization import *  # noqa: F401,F403
from ..ao.quantization import __all__  # noqa: F401
