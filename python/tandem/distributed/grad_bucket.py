"""GradBucket: what a DDP communication hook receives (tandem/nn/parallel/comm_hook_reducer.py makes them)."""

__all__ = ["GradBucket"]


class GradBucket:
    """What a communication hook receives (PyTorch's ``dist.GradBucket``): one flat buffer holding the
    gradients of a few parameters."""

    def __init__(self, index, buffer, params, offsets, is_last):
        self._index, self._buffer, self._params, self._offsets, self._is_last = (index, buffer, params, offsets,
                                                                                 is_last)

    def index(self):
        return self._index

    def buffer(self):
        return self._buffer

    def set_buffer(self, buffer):
        self._buffer = buffer

    def is_last(self):
        return self._is_last

    def parameters(self):
        return list(self._params)

    def gradients(self):
        """Views of the buffer, one per parameter, shaped like it."""
        return [self._buffer[o:o + p.numel()].view(p.shape) for p, o in zip(self._params, self._offsets)]
