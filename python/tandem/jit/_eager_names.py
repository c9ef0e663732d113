"""More of torch.jit's names, as they behave when PyTorch runs the code eagerly (not compiled): TorchScript
annotations (Attribute, interface, script_method), eager isinstance with container types, fusion settings (tandem
fuses nothing: the settings are kept and read back) and the exception classes programs catch."""
import collections
import contextlib
import typing
import warnings

__all__ = ["Attribute", "Error", "ScriptWarning", "TracingCheckError", "interface", "isinstance", "script_method",
           "optimized_execution", "fuser", "set_fusion_strategy", "enable_onednn_fusion", "onednn_fusion_enabled",
           "strict_fusion", "trace_module", "run_frozen_optimizations", "export_opnames",
           "jit_module_from_flatbuffer", "save_jit_module_to_flatbuffer"]

_builtin_isinstance = isinstance

# torch.jit.Attribute(value, type): TorchScript reads the type; eager code gets the value back through .value.
Attribute = collections.namedtuple("Attribute", ["value", "type"])


class Error(Exception):
    """PyTorch's torch.jit.Error (an exception raised inside TorchScript code)."""


class ScriptWarning(Warning):
    pass


class TracingCheckError(Exception):
    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n" + (extra_msg + "\n" if extra_msg else "")
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n" + str(graph_diff_error)
        if tensor_compare_error is not None:
            self.message += "ERROR: Tensor-valued Constant nodes differed in value across invocations.\n" + \
                str(tensor_compare_error)
        super().__init__(self.message)


def interface(obj):
    """@torch.jit.interface: a type TorchScript checks modules against; eager code uses the class as is."""
    if not _builtin_isinstance(obj, type):
        raise RuntimeError("interface must be applied to a class")
    return obj


def script_method(fn):
    return fn


_CONTAINER_WARNING = ("The inner type of a container is lost when calling torch.jit.isinstance in eager mode. For "
                      "example, List[int] would become list and therefore falsely return True for List[float] or "
                      "List[str].")


def isinstance(obj, target_type):  # noqa: A001 (PyTorch's name)
    """torch.jit.isinstance in eager mode: isinstance that also checks the elements of List[...], Dict[...],
    Tuple[...] and the members of Optional/Union (an empty container matches any element type, with PyTorch's
    warning)."""
    origin, args = typing.get_origin(target_type), typing.get_args(target_type)
    if origin is None:
        if target_type in (list, dict, tuple):
            raise RuntimeError(f"Attempted to use {target_type.__name__} without a contained type. Please add a "
                               f"contained type, e.g. {target_type.__name__}[int]")
        return _builtin_isinstance(obj, target_type)
    if origin is typing.Union:
        return any(isinstance(obj, t) for t in args)
    if origin is list:
        return _builtin_isinstance(obj, list) and _elements_match(obj, lambda v: isinstance(v, args[0]))
    if origin is dict:
        return _builtin_isinstance(obj, dict) and _elements_match(
            obj, lambda k: isinstance(k, args[0]) and isinstance(obj[k], args[1]))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            raise TypeError("isinstance() arg 2 must be a type, a tuple of types, or a union")
        return (_builtin_isinstance(obj, tuple) and len(obj) == len(args)
                and all(isinstance(v, t) for v, t in zip(obj, args)))
    return _builtin_isinstance(obj, origin)


def _elements_match(container, check):
    if not container:
        warnings.warn(_CONTAINER_WARNING, stacklevel=3)
        return True
    return all(check(v) for v in container)


@contextlib.contextmanager
def optimized_execution(should_optimize):
    """Whether TorchScript optimizes the graphs run inside; tandem runs eagerly either way."""
    yield


_FUSERS = ("fuser0", "fuser1", "fuser2", "fuser3", "none")


@contextlib.contextmanager
def fuser(name):
    """Which TorchScript fuser runs inside the block (fuser0 legacy, fuser1 NNC, fuser2 nvFuser, fuser3 oneDNN,
    none): checked as PyTorch does; tandem has no graph fusers."""
    if name not in _FUSERS:
        raise Exception(f"unrecognized fuser option (name: {name})")  # noqa: TRY002 (PyTorch raises Exception)
    yield


_fusion_strategy = [[("STATIC", 2), ("DYNAMIC", 10)]]
_onednn_fusion = [False]


def set_fusion_strategy(strategy):
    """Sets TorchScript's specialisation strategy and returns the previous one (kept, not used by tandem)."""
    previous = _fusion_strategy[0]
    _fusion_strategy[0] = list(strategy)
    return previous


def enable_onednn_fusion(enabled):
    _onednn_fusion[0] = bool(enabled)


def onednn_fusion_enabled():
    return _onednn_fusion[0]


class strict_fusion:
    """A TorchScript block whose ops must all fuse; eager code runs it as written."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
                 strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
                 example_inputs_is_kwarg=False, _store_inputs=True):
    """Runs each method named in `inputs` ({name: example args}) once, as PyTorch's trace does, and returns the
    module (tandem records no graph). "forward" goes through the module's call (its hooks run); the example
    arguments take PyTorch's forms: a tensor or a dict is one argument, any other sequence (e3nn passes a list)
    the arguments, a dict with example_inputs_is_kwarg the keyword arguments."""
    from . import _trace_run
    if not _builtin_isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    for name, example in inputs.items():
        method = mod if name == "forward" else getattr(mod, name)
        with _trace_run():
            if _builtin_isinstance(example, dict) and example_inputs_is_kwarg:
                method(**example)
            else:
                method(*_example_tuple(example))
    return mod


def _example_tuple(example):
    """PyTorch's make_tuple: the positional arguments an example input stands for."""
    from .._C import Tensor
    if _builtin_isinstance(example, (Tensor, dict)):
        return (example,)
    return example if _builtin_isinstance(example, tuple) else tuple(example)


def run_frozen_optimizations(mod, optimize_numerics=True, preserved_methods=None):
    return None


def _no_archive(what):
    raise NotImplementedError(f"torch.jit.{what}: tandem has no TorchScript programs to serialize\nhint: save the "
                              "weights with tandem.save(model.state_dict(), path)")


def export_opnames(m):
    _no_archive("export_opnames")


def jit_module_from_flatbuffer(f):
    _no_archive("jit_module_from_flatbuffer")


def save_jit_module_to_flatbuffer(m, filename, _extra_files=None):
    _no_archive("save_jit_module_to_flatbuffer")
