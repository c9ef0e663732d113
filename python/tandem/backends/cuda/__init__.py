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

    # Reduced-precision reductions inside float16/bfloat16 products (PyTorch's defaults: allowed). Recorded
    # only: tandem's matmul kernels do not read them (docs/compat.md, "Runtime modules").
    _reduced_precision = {"allow_fp16_reduced_precision_reduction": True,
                          "allow_bf16_reduced_precision_reduction": True}

    def __getattr__(self, name):
        if name in _MatmulFlags._reduced_precision:
            return _MatmulFlags._reduced_precision[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name in _MatmulFlags._reduced_precision:
            # PyTorch also takes (allow_reduced_precision, allow_splitk); the first is the flag read back.
            flag = value[0] if isinstance(value, (tuple, list)) and value else value
            if not isinstance(flag, bool):
                raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)}")
            _MatmulFlags._reduced_precision[name] = flag
            return
        if name != "allow_tf32":
            raise AttributeError(f"Unknown attribute {name}")
        super().__setattr__(name, value)


matmul = _MatmulFlags()


def is_built():
    """True when this tandem was built with the CUDA backend (a GPU may still be missing)."""
    return _C._cuda_is_built()
