"""torch._ops: the operator registry's public objects under PyTorch's module name (programs import
`from torch._ops import ops`, the same object as torch.ops)."""
from ._library.registry import OpOverload, OpOverloadPacket, _OpNamespace, _Ops, ops

__all__ = ["OpOverload", "OpOverloadPacket", "ops"]
