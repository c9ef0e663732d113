"""torch.export: `export(module, args)` captures a module's forward as a graph (tandem.fx's symbolic tracer, so
the graph holds the module's calls, not ATen operators) into an ExportedProgram: its graph_module, graph,
graph_signature, state_dict and constants, example inputs and the ranges of its dynamic dimensions. Its
`module()` runs the graph after checking the inputs as PyTorch's guards do (same input structure, sizes equal to
the example's except the dimensions marked dynamic by `dynamic_shapes`, which must lie in their Dim's range).
save/load keep an ExportedProgram in a file (with `extra_files`, as PyTorch's). Python control flow on tensor values cannot be captured (the
tracer's TraceError, where PyTorch raises its data-dependent guard error)."""
import zipfile

from .. import _C
from ..nn import Module as _Module
from ._dims import Dim, dims
from ._program import _EXPORT_NOTE, ExportedProgram, ExportGraphSignature, UserError
from ._program import capture as _capture

__all__ = ["export", "ExportedProgram", "ExportGraphSignature", "Dim", "dims", "save", "load", "UserError"]


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False, preserve_module_call_signature=(),
           prefer_deferred_runtime_asserts_over_guards=False):
    if not isinstance(mod, _Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got {type(mod)}.")
    if not isinstance(args, tuple):
        kind = "<class 'tandem.Tensor'>" if type(args) is _C.Tensor else str(type(args))  # not tandem._C.Tensor
        raise UserError(f"Expecting `args` to be a tuple of example positional inputs, got {kind}" + _EXPORT_NOTE)
    if kwargs is not None and not isinstance(kwargs, dict):  # PyTorch's inspect.Signature.bind(**kwargs) error
        raise TypeError(f"inspect.Signature.bind() argument after ** must be a mapping, not {type(kwargs).__name__}"
                        f"\nhint: kwargs must be a dict of example keyword inputs")
    return _capture(mod, args, kwargs or {}, dynamic_shapes)


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol=2):
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"The 'ep' parameter must be an instance of 'ExportedProgram', got '{type(ep).__name__}' "
                        "instead.")
    from .. import save as save_object  # noqa: PLC0415  (tandem imports export)
    extra = dict(extra_files or {})
    for content in extra.values():
        if not isinstance(content, str):
            raise AssertionError(f"Expected string but got {type(content)}")
    save_object({"tandem.export": 1, "program": ep._to_state(), "extra_files": extra}, f,
                pickle_protocol=pickle_protocol)


def load(f, *, extra_files=None, expected_opset_version=None):
    from .. import load as load_object  # noqa: PLC0415
    if hasattr(f, "read") and hasattr(f, "seek"):  # PyTorch opens the archive as a zip first
        start = f.tell()
        if not zipfile.is_zipfile(f):
            raise zipfile.BadZipFile("File is not a zip file")
        f.seek(start)
    saved = load_object(f, weights_only=False)
    if not isinstance(saved, dict) or saved.get("tandem.export") != 1:
        raise RuntimeError("torch.export.load: the file holds no exported program saved by torch.export.save")
    if extra_files is not None:  # as PyTorch's: every saved extra file goes into the caller's dict
        extra_files.update(saved["extra_files"])
    return ExportedProgram._from_state(saved["program"])

