"""tandem.ao.nn.quantized: dynamically quantized layers (``dynamic``). Statically quantized layers (quantized
tensors between layers) are not part of tandem: docs/compat.md."""
from . import dynamic  # noqa: F401
