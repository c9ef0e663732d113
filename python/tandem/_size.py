"""tandem.Size: the shape of a tensor, a tuple subclass as in PyTorch."""
import operator

from . import _C


class Size(_C._SizeBase):  # a tuple; creation from a tensor and indexing are in C (python/src/size.cpp)
    """The shape of a tensor: a tuple of ints that prints as ``tandem.Size([2, 3])``."""

    __slots__ = ()

    def __new__(cls, sizes=()):
        # Each element as an int (a bool, a NumPy integer, a one-element integer tensor), with PyTorch's
        # TypeError for anything else. (Tensor.shape makes its Size in C++, from ints already.)
        values = []
        for i, s in enumerate(sizes):
            try:
                values.append(operator.index(s))
            except TypeError:
                raise TypeError(f"tandem.Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')") \
                    from None
        return tuple.__new__(cls, values)

    def __repr__(self):
        return f"tandem.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self):
        """The number of elements a tensor of this shape holds."""
        n = 1
        for s in self:
            n *= s
        return n
