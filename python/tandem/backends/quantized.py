"""tandem.backends.quantized: the quantized engine switch of torch.backends.quantized. tandem computes dynamic
quantization one way, the x86/fbgemm engine's (ao/quantization/_dynamic_math.py); the engine name is kept for
programs that read or set it, and must be one of supported_engines."""
import sys
import types

_SUPPORTED = ["qnnpack", "onednn", "x86", "fbgemm"]


class _QuantizedEngine(types.ModuleType):
    supported_engines = property(lambda self: list(_SUPPORTED))

    @property
    def engine(self):
        return self._engine

    @engine.setter
    def engine(self, name):
        if name not in _SUPPORTED:
            raise RuntimeError(f"{name} is not a valid value for quantized engine\nhint: choose one of "
                               f"{_SUPPORTED}")
        self._engine = name


_module = sys.modules[__name__]
_module.__class__ = _QuantizedEngine
_module._engine = "x86"
