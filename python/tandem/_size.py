"""tandem.Size: the shape of a tensor, a tuple subclass as in PyTorch."""


class Size(tuple):
    """The shape of a tensor: a tuple of ints that prints as ``tandem.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"tandem.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self):
        """The number of elements a tensor of this shape holds."""
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))
