"""tandem._jit_internal: the TorchScript helpers library code imports from torch._jit_internal (pyro's nn.module
imports _copy_to_script_wrapper, and warns when it is missing). With no TorchScript compiler they only mark
functions, as PyTorch's do, and the overload declarations and is_scripting are tandem.jit's."""
from .jit import _overload, _overload_method, is_scripting  # noqa: F401


class FunctionModifiers:
    """What @ignore, @unused, @export and friends mark a function with, under PyTorch's names and texts."""

    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"
    DEFAULT = "default (compile if called from an exported function / forward)"
    COPY_TO_SCRIPT_WRAPPER = "if this method is not scripted, copy the python method onto the scripted model"


def _copy_to_script_wrapper(fn):
    """Marks a method to be copied onto a scripted module; returns fn itself."""
    fn._torchscript_modifier = FunctionModifiers.COPY_TO_SCRIPT_WRAPPER
    return fn
