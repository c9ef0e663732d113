"""Python source for a Graph: ``def forward(self, x): ...``, one line per node, each value set to None right after
its last use (so a GraphModule frees intermediates as eagerly as the traced code did), in the text PyTorch's FX
writes. tandem's functions are written as ``torch.X`` and the code runs with ``torch`` bound to tandem."""
import builtins
import enum
import math
import types
import typing
from dataclasses import dataclass, field

import tandem

from ._namespace import Namespace
from ._naming import format_target, is_from_tandem, qualified_name, type_repr
from .node import Node

# The typing spelling of a pre-PEP 585 generic's origin (typing.List[int].__origin__ is list)
_TYPING_ORIGINS = {list: typing.List, dict: typing.Dict, set: typing.Set, frozenset: typing.FrozenSet,
                   tuple: typing.Tuple}
# operator functions written as Python operators
_BINARY = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "truediv": "/", "mod": "%", "pow": "**",
           "lshift": "<<", "rshift": ">>", "and_": "&", "or_": "|", "xor": "^", "matmul": "@", "eq": "==",
           "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">="}
_UNARY = {"neg": "-", "pos": "+", "invert": "~", "not_": "not "}
_INPLACE = {"iadd": "+=", "iand": "&=", "ifloordiv": "//=", "ilshift": "<<=", "imod": "%=", "imul": "*=",
            "imatmul": "@=", "ior": "|=", "ipow": "**=", "irshift": ">>=", "isub": "-=", "itruediv": "/=",
            "ixor": "^="}


@dataclass
class PythonCode:
    """The source of `forward` and the globals it must run with."""
    src: str
    globals: dict
    _lineno_map: dict = field(default=None)


_DTYPE_ABBREVIATIONS = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64",
                        "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8",
                        "complex64": "c64", "complex128": "c128", "complex32": "c32", "uint16": "u16",
                        "uint32": "u32", "uint64": "u64", "float8_e4m3fn": "f8e4m3fn", "float8_e5m2": "f8e5m2"}


def _tensor_annotation(node):
    """'"f32[1, 3]"' for a node whose meta holds a tensor or its TensorMetadata (print_readable's annotations)."""
    meta = node.meta.get("val", node.meta.get("tensor_meta", node.meta.get("example_value")))
    if meta is None or not hasattr(meta, "shape") or not hasattr(meta, "dtype"):
        return ""
    dtype = str(meta.dtype).split(".")[-1]
    shape = ", ".join(str(int(d)) for d in meta.shape)
    return f': "{_DTYPE_ABBREVIATIONS.get(dtype, dtype)}[{shape}]"'


def _trace_summary(stack_trace):
    """'File: f.py:8 in forward, code: y = self.l(x)' from the innermost frame of a recorded stack trace."""
    lines = stack_trace.strip().split("\n")
    for i in range(len(lines) - 1, -1, -1):
        frame = lines[i].strip()
        if frame.startswith("File "):
            parts = frame.split(", ")
            file = parts[0][len("File "):].strip('"')
            lineno = parts[1][len("line "):] if len(parts) > 1 else "?"
            name = parts[2][len("in "):] if len(parts) > 2 else "?"
            code = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return f"File: {file}:{lineno} in {name}, code: {code}"
    return stack_trace.strip()


def _device_repr(device):
    return f"device(type='{device.type}')" if device.index is None else \
        f"device(type='{device.type}', index={device.index})"


def base_globals():
    """What every generated forward can name."""
    from tandem.utils import _pytree
    return {"inf": math.inf, "nan": math.nan, "NoneType": type(None), "torch": tandem, "device": tandem.device,
            "fx_pytree": _pytree, "pytree": _pytree}


class _Writer:
    """The state of one code generation: the names used, the globals collected."""

    def __init__(self, graph):
        self.namespace = Namespace()
        self.globals = base_globals()
        for name, obj in self.globals.items():
            self.namespace.create_name(name, obj)
        for node in graph.nodes:
            self.namespace.create_name(node.name, node)
        self.wrapped = {}

    def add_global(self, name_hint, obj):
        """The name `obj` is reachable by in the code; tandem's by their torch.X path."""
        if is_from_tandem(obj) and obj is not tandem.device:
            return qualified_name(obj)
        if self.globals.get(name_hint) is obj:
            return name_hint
        name = self.namespace.create_name(name_hint, obj)
        self.globals[name] = obj
        return name

    def type_text(self, t):
        """An annotation that evaluates in the generated code: a generic (Tuple[Tensor, Tensor], Optional[int],
        list[str]) as its origin, made a global as PyTorch's FX does (typing_Tuple), with its arguments."""
        if t is None:
            return ""
        if t == ():
            return "()"  # Tuple[()]
        if t is ...:
            return "..."
        if isinstance(t, types.UnionType):
            origin = typing.Union
        else:
            origin = getattr(t, "__origin__", None)
        if origin is not None:
            if isinstance(t, typing._GenericAlias):  # typing.List[int]: written with typing.List, not list
                origin = _TYPING_ORIGINS.get(origin, origin)
            name = self.type_text(origin) if isinstance(origin, type) else self.add_global(repr(origin), origin)
            args = typing.get_args(t)
            return f"{name}[{','.join(self.type_text(arg) for arg in args)}]" if args else name
        if isinstance(t, type) and t.__module__ == "builtins":
            name = t.__qualname__
            return name if getattr(builtins, name, None) is t else self.add_global(name, t)  # NoneType
        if isinstance(t, type) and t is not tandem.Tensor and not is_from_tandem(t):
            return self.add_global(f"{t.__module__}.{t.__qualname__}", t)
        return type_repr(t)

    def value(self, arg):
        """Python source that evaluates to `arg` in the generated code."""
        if isinstance(arg, Node):
            return self.namespace.create_name(arg.name, arg)
        if isinstance(arg, tandem.Size):
            return f"torch.Size([{', '.join(self.value(a) for a in arg)}])"
        if isinstance(arg, tuple) and hasattr(arg, "_fields"):
            cls = self.add_global(qualified_name(type(arg)), type(arg))
            return f"{cls}({', '.join(self.value(a) for a in arg)})"
        if isinstance(arg, tuple):
            inner = ", ".join(self.value(a) for a in arg)
            return f"({inner},)" if len(arg) == 1 else f"({inner})"
        if isinstance(arg, list):
            return "[" + ", ".join(self.value(a) for a in arg) + "]"
        if isinstance(arg, dict):
            return "{" + ", ".join(f"{self.value(k)}: {self.value(v)}" for k, v in arg.items()) + "}"
        if isinstance(arg, slice):
            return f"slice({self.value(arg.start)}, {self.value(arg.stop)}, {self.value(arg.step)})"
        if isinstance(arg, tandem.dtype):
            return f"torch.{str(arg).split('.')[-1]}"
        if isinstance(arg, tandem.device):
            return _device_repr(arg)
        if isinstance(arg, enum.Enum):
            cls = self.add_global(qualified_name(type(arg)), type(arg))
            return f"{cls}.{arg.name}"
        if isinstance(arg, type):
            return self.add_global(qualified_name(arg), arg) if arg.__module__ != "builtins" else arg.__name__
        text = repr(arg)
        return text.replace("tandem.", "torch.") if text.startswith("tandem.") else text

    def call_args(self, args, kwargs):
        positional = ", ".join(self.value(a) for a in args)
        keywords = ", ".join(f"{k} = {self.value(v)}" for k, v in kwargs.items())
        return f"{positional}, {keywords}" if positional and keywords else positional or keywords

    def statement(self, node, root_module, verbose=False):
        """The line computing `node`, without the trailing deletions."""
        name = self.value(node)
        annotation = f" : {self.type_text(node.type)}" if node.type is not None else ""
        if verbose and not annotation:
            annotation = _tensor_annotation(node)
        if node.op == "call_method":
            return (f"{name}{annotation} = {format_target(self.value(node.args[0]), node.target)}"
                    f"({self.call_args(node.args[1:], node.kwargs)})")
        if node.op == "call_module":
            call = self.call_args(node.args, node.kwargs)
            return f"{name}{annotation} = {format_target(root_module, node.target)}({call})"
        if node.op == "get_attr":
            return f"{name}{annotation} = {format_target(root_module, node.target)}"
        return self.function_statement(node, name, annotation)

    def function_statement(self, node, name, annotation):
        target, args = node.target, node.args
        fn_name = getattr(target, "__name__", "")
        if getattr(target, "__module__", "") == "_operator" and not node.kwargs:
            if fn_name in _BINARY and len(args) == 2:
                return f"{name}{annotation} = {self.value(args[0])} {_BINARY[fn_name]} {self.value(args[1])}"
            if fn_name in _UNARY and len(args) == 1:
                return f"{name}{annotation} = {_UNARY[fn_name]}{self.value(args[0])}"
            if fn_name == "getitem" and len(args) == 2:
                return f"{name}{annotation} = {self.value(args[0])}[{self.value(args[1])}]"
            if fn_name in _INPLACE and len(args) == 2:
                return (f"{self.value(args[0])} {_INPLACE[fn_name]} {self.value(args[1])};  "
                        f"{name}{annotation} = {self.value(args[0])}")
            if fn_name == "setitem" and len(args) == 3:
                return (f"{self.value(args[0])}[{self.value(args[1])}] = {self.value(args[2])};  "
                        f"{name}{annotation} = {self.value(args[0])}")
        global_name = self.add_global(qualified_name(target), target)
        if global_name == "getattr" and target is builtins.getattr and len(args) == 2 and \
                isinstance(args[1], str) and args[1].isidentifier() and not node.kwargs:
            return f"{name}{annotation} = {format_target(self.value(args[0]), args[1])}"
        if node.meta.get("is_wrapped", False):
            self.wrapped.setdefault(global_name)
        return f"{name}{annotation} = {global_name}({self.call_args(args, node.kwargs)})"


def python_code(graph, root_module, verbose=False, body_transformer=None):
    """PythonCode for `graph`, with `root_module` the name the code uses for the module (normally 'self')."""
    writer = _Writer(graph)
    nodes = list(graph.nodes)
    # The last user of each value: the value is set to None right after that user's line.
    last_uses = {}
    seen = set()
    for user in reversed(nodes):
        for used in user.all_input_nodes:
            if used not in seen:
                seen.add(used)
                last_uses.setdefault(user, []).append(used)
    # all_input_nodes lists args then kwargs in first-appearance order, as a walk of the arguments does
    free_vars, body = [], []
    return_annotation = ""
    previous_trace = None  # the stack trace the last comment described ("" for none)
    for node in nodes:
        if node.op == "placeholder":
            annotation = f" : {writer.type_text(node.type)}" if node.type is not None else ""
            if verbose and not annotation:
                annotation = _tensor_annotation(node)
            default = f" = {writer.value(node.args[0])}" if node.args else ""
            free_vars.append(f"{node.target}{annotation}{default}")
            raw = node.target.replace("*", "")
            if raw != writer.value(node):
                body.append(f"{writer.value(node)} = {raw}\n")
            continue
        if verbose and node.op != "output":
            # a comment wherever the recorded source location changes (print_readable)
            trace = node.stack_trace or ""
            if trace != previous_trace:
                previous_trace = trace
                body.append(f"\n# {_trace_summary(trace)}\n" if trace else
                            "\n# No stacktrace found for following nodes\n")
        if node.op == "output":
            if node.type is not None:
                return_annotation = f" -> {writer.type_text(node.type)}"
            body.append(f"return {writer.value(node.args[0])}\n")
            continue
        line = writer.statement(node, root_module, verbose)
        dead = list(last_uses.get(node, []))
        if not node.users:
            dead.append(node)  # kept for its side effect: free its result at once
        if dead:
            line += ";  " + " = ".join([writer.value(n) for n in dead] + ["None"])
        body.append(line + "\n")
    if not any(not line.lstrip("\n").startswith("#") for line in body):
        body.append("pass\n")
    if body_transformer is not None:
        body = body_transformer(body)
    if not free_vars or free_vars[0] != "self":
        free_vars.insert(0, "self")
    code = "".join(body).lstrip("\n")
    code = "\n".join("    " + line for line in code.split("\n"))
    wrap_lines = "\n".join(f'torch.fx._symbolic_trace.wrap("{name}")' for name in writer.wrapped)
    src = f"\n{wrap_lines}\n\ndef forward({', '.join(free_vars)}){return_annotation}:\n{code}"
    return PythonCode(src, writer.globals)
