"""ShapeProp: runs a GraphModule on example inputs and records, for each node whose result holds tensors,
node.meta['tensor_meta'] (shape, dtype, requires_grad, stride, memory format) and node.meta['type']."""
from typing import Any, NamedTuple, Optional

import tandem

from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["TensorMetadata", "ShapeProp"]


class TensorMetadata(NamedTuple):
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Optional[Any]
    is_quantized: bool
    qparams: dict


def _memory_formats():
    # The order PyTorch's check settles on for a tensor that is several at once (a size-1 channel dimension).
    names = ("contiguous_format", "channels_last", "channels_last_3d")
    return [getattr(tandem, name) for name in names if hasattr(tandem, name)]


def _extract_tensor_metadata(result, include_contiguity=True):
    memory_format = None
    if include_contiguity:
        for query in _memory_formats():
            if result.is_contiguous(memory_format=query):
                memory_format = query
                break
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(), memory_format,
                          bool(getattr(result, "is_quantized", False)), {})


class ShapeProp(Interpreter):
    """``ShapeProp(gm).propagate(*example_inputs)`` fills node.meta as it runs gm."""

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)
        self.fake_mode = fake_mode

    def run_node(self, n):
        result = super().run_node(n)
        found_tensor = []

        def extract(obj):
            if isinstance(obj, tandem.Tensor):
                found_tensor.append(True)
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found_tensor:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Runs the module on `args` (what its forward takes), filling in the metadata; returns the result."""
        return super().run(*args)
