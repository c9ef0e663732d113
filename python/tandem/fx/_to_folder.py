"""GraphModule.to_folder: the module as an importable package (module.py with a Module class whose __init__
rebuilds the children and whose forward is the generated code, state_dict.pt with the weights), as PyTorch writes
it. The code imports tandem as `torch`, so the generated forward reads as it does in the GraphModule."""
import warnings
from pathlib import Path

import tandem

# Layers whose repr is a constructor call (the others are saved whole, as NAME.pt).
_REPR_IS_CONSTRUCTOR = ("Linear", "Conv1d", "Conv2d", "Conv3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d")
_PRELUDE = """
import tandem as torch
from math import inf
from math import nan
NoneType = type(None)
from tandem import device
import tandem.utils._pytree as fx_pytree
import tandem.utils._pytree as pytree

from tandem.nn import *
"""


def _dtype_text(dtype):
    return "torch." + str(dtype).split(".")[-1]


def write_folder(gm, folder, module_name="FxModule"):
    folder = Path(folder)
    folder.mkdir(exist_ok=True)
    tandem.save(gm.state_dict(), folder / "state_dict.pt")
    tab = " " * 4
    text = _PRELUDE + f"class {module_name}(torch.nn.Module):\n{tab}def __init__(self):\n{tab * 2}super().__init__()\n"
    saved_whole = []
    for name, child in gm.named_children():
        if type(child).__name__ in _REPR_IS_CONSTRUCTOR and type(child) is getattr(tandem.nn, type(child).__name__):
            text += f"{tab * 2}setattr(self, '{name}', {child!r})\n"
        else:
            path = folder / f"{name}.pt"
            tandem.save(child, path)
            saved_whole.append(name)
            summary = repr(child).replace("\r", " ").replace("\n", " ")
            text += f"{tab * 2}setattr(self, '{name}', torch.load(r'{path}', weights_only=False)) # {summary}\n"
    for name, buffer in gm._buffers.items():
        if buffer is not None:
            text += (f"{tab * 2}self.register_buffer('{name}', torch.empty({list(buffer.shape)}, "
                     f"dtype={_dtype_text(buffer.dtype)}))\n")
    for name, param in gm._parameters.items():
        if param is not None:
            text += (f"{tab * 2}setattr(self, '{name}', torch.nn.Parameter(torch.empty({list(param.shape)}, "
                     f"dtype={_dtype_text(param.dtype)})))\n")
    text += f"{tab * 2}self.load_state_dict(torch.load(r'{folder}/state_dict.pt'))\n"
    code_lines = gm.code.split("\n")
    text += code_lines[0] + "\n" + "\n".join(tab + line for line in code_lines[1:]) + "\n"
    (folder / "module.py").write_text(text)
    (folder / "__init__.py").write_text("from .module import *")
    if saved_whole:
        warnings.warn("Was not able to save the following children modules as reprs -saved as pickled files "
                      f"instead: {saved_whole}")
