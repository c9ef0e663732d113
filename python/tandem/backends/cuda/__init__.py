"""tandem.backends.cuda: switches of the CUDA math libraries (settable in every build; they only take
effect on a real CUDA device)."""
from ... import _C


class _MatmulFlags:
    """``matmul.allow_tf32``: let float32 matmul use TF32 tensor cores (faster, ~10-bit mantissa products).
    False by default, as in PyTorch."""

    @property
    def allow_tf32(self):
        return _C._get_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"allow_tf32 must be a bool, not {type(value).__name__}")
        _C._set_allow_tf32(value)

    def __setattr__(self, name, value):
        if name != "allow_tf32":
            raise AttributeError(f"Unknown attribute {name}")
        super().__setattr__(name, value)


matmul = _MatmulFlags()


def is_built():
    """True when this tandem was built with the CUDA backend (a GPU may still be missing)."""
    return _C._cuda_is_built()
