"""tandem.nn.quantized: the older name of tandem.ao.nn.quantized."""
from ...ao.nn.quantized import dynamic  # noqa: F401
