"""The two array methods the standard names that a Tensor lacks: `to_device` (the standard's spelling of
Tensor.to(device)) and `__complex__` (PyTorch's complex(t) for a one-element tensor). Installed on tandem.Tensor
when the namespace is imported; a core method of the same name, once added, wins."""
from .. import _C


def to_device(self, device, /, *, stream=None):
    """The array on `device` (itself when already there). `stream` is a tandem.cuda.Stream to copy on, or None
    for the current stream."""
    if stream is None:
        return self.to(device)
    from .. import cuda
    if not isinstance(stream, cuda.Stream):
        raise TypeError(f"to_device(): stream must be a tandem.cuda.Stream or None, got {type(stream).__name__}")
    with cuda.stream(stream):
        return self.to(device)


def __complex__(self, /):
    """complex(t) for a one-element tensor, with PyTorch's error otherwise."""
    if self.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return complex(self.item())


def install():
    for fn in (to_device, __complex__):
        if not hasattr(_C.Tensor, fn.__name__):
            setattr(_C.Tensor, fn.__name__, fn)
