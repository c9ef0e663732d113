"""skip_init: build a module without paying for its parameter initialisation where possible, as
torch.nn.utils.skip_init. tandem has no "meta" device, so the module is built on its final device and its
initialisers run; the result is what PyTorch promises (a module whose parameters hold arbitrary values to be
overwritten), only not faster."""
import inspect

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.setdefault("device", "cpu")
    return module_cls(*args, **kwargs)
