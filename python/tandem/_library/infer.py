"""infer_schema: an operator schema from a Python function's type hints, with PyTorch's errors for what a schema
cannot express (tuples, dicts, varargs, missing annotations, unknown mutated arguments)."""
import collections.abc
import inspect
import typing
from types import GenericAlias

from .. import _C, types

UNKNOWN_MUTATES = "unknown"


def _variants(py_type, name, as_list, optional_elems, optional_list):
    """The spellings of one base type (T, Optional[T], Sequence[T], list[T], ...) and their schema types."""
    def sequences(t):
        return (typing.Sequence[t], typing.List[t], GenericAlias(collections.abc.Sequence, (t,)),  # noqa: UP006
                GenericAlias(list, (t,)))

    out = [(py_type, name), (typing.Optional[py_type], f"{name}?")]  # noqa: UP045
    if as_list:
        out += [(s, f"{name}[]") for s in sequences(py_type)]
    if optional_elems:
        out += [(s, f"{name}?[]") for s in sequences(typing.Optional[py_type])]  # noqa: UP045
    if optional_list:
        out += [(typing.Optional[s], f"{name}[]?") for s in sequences(py_type)]  # noqa: UP045
    if optional_elems and optional_list:
        out += [(typing.Optional[s], f"{name}?[]?") for s in sequences(typing.Optional[py_type])]  # noqa: UP045
    return out


# (type, schema name, T[], T?[], T[]?), as PyTorch supports them.
_PARAM_TYPES = dict(pair for row in [(_C.Tensor, "Tensor", True, True, True), (int, "SymInt", True, False, True),
                                     (float, "float", True, False, True), (bool, "bool", True, False, True),
                                     (str, "str", False, False, False), (types.Number, "Scalar", True, False, False),
                                     (_C.dtype, "ScalarType", False, False, False),
                                     (_C.device, "Device", False, False, False)]
                    for pair in _variants(*row))
_RETURN_TYPES = {_C.Tensor: "Tensor", typing.List[_C.Tensor]: "Tensor[]", list[_C.Tensor]: "Tensor[]",  # noqa: UP006
                 int: "SymInt", float: "float", bool: "bool", types.Number: "Scalar"}


def _resolve(annotation, fn, error):
    """A string annotation ("Tensor", "Optional[int]", from `from __future__ import annotations`) as a type."""
    if isinstance(annotation, str):
        import tandem  # noqa: PLC0415  (names a string annotation may use: Tensor, device, dtype, types)

        scope = {"Tensor": _C.Tensor, "device": _C.device, "dtype": _C.dtype, "types": types, "torch": tandem,
                 "tandem": tandem, "Optional": typing.Optional, "List": typing.List, "Sequence": typing.Sequence,
                 "Union": typing.Union, **fn.__globals__}
        try:
            return eval(annotation, scope)  # noqa: S307  (the user's own annotation, as Python itself would)
        except Exception as e:  # noqa: BLE001  (any failure is the annotation's fault)
            error(f"Unsupported type annotation {annotation}. It is not a type. ({type(e).__name__}: {e})")
    origin = typing.get_origin(annotation)
    if origin is not None and any(isinstance(a, str) for a in typing.get_args(annotation)):
        return GenericAlias(origin, tuple(_resolve(a, fn, error) for a in typing.get_args(annotation)))
    return annotation


def _default_text(name, value, error):
    if value is None or isinstance(value, (int, float, bool)):
        return str(value)
    if isinstance(value, (str, _C.device)):
        return f'"{value}"'
    if isinstance(value, _C.dtype):
        return str(value).split(".")[-1]
    error(f"Parameter {name} has an unsupported default value type {type(value)}. Please file an issue on GitHub "
          "so we can prioritize this.")


def _tuple_as_list(t):
    args = typing.get_args(t)
    if not args:
        return list
    if len(args) == 1 or (len(args) == 2 and args[1] is Ellipsis):
        return list[args[0]]
    return list[typing.Union[args]]  # noqa: UP007


def _parse_return(annotation, error):
    if annotation is None:
        return "()"
    if annotation is inspect.Parameter.empty:
        error("No return type annotation was provided. Please add one.")
    if typing.get_origin(annotation) is not tuple:
        if annotation not in _RETURN_TYPES:
            error(f"Return has unsupported type {annotation}. The valid types are: {_RETURN_TYPES}.")
        return _RETURN_TYPES[annotation]
    args = typing.get_args(annotation)
    for a in args:
        if a not in _RETURN_TYPES:
            error(f"Return has unsupported type {annotation}. The valid types are: {_RETURN_TYPES}.")
    inner = ", ".join(_RETURN_TYPES[a] for a in args)
    return f"(({inner}))" if len(args) == 1 else f"({inner})"


def infer_schema(prototype_function, /, *, mutates_args, op_name=None, tags=()):
    """The schema of `prototype_function` from its type hints: "(Tensor x, SymInt[] box) -> Tensor", prefixed
    with `op_name` when given. `mutates_args` names the Tensor arguments the function writes ("unknown": all)."""
    sig = inspect.signature(prototype_function)

    def error(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    if not isinstance(mutates_args, str):
        mutates_args = tuple(mutates_args)
    params, seen, star = [], set(), False
    for idx, (name, param) in enumerate(sig.parameters.items()):
        if param.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            error("We do not support positional-only args, varargs, or varkwargs.")
        if param.kind == inspect.Parameter.KEYWORD_ONLY and not star:
            params.append("*")
            star = True
        if param.annotation is inspect.Parameter.empty:
            error(f"Parameter {name} must have a type annotation.")
        annotation = _resolve(param.annotation, prototype_function, error)
        if annotation not in _PARAM_TYPES:
            if typing.get_origin(annotation) is tuple:
                as_list = _tuple_as_list(annotation)
                example = f"For example, {as_list}.\n\n" if as_list in _PARAM_TYPES else "\n\n"
                error(f"Parameter {name} has unsupported type {param.annotation}. We do not support Tuple inputs in "
                      f"schema. As a workaround, please try to use List instead. {example}The valid types are: "
                      f"{_PARAM_TYPES.keys()}.")
            error(f"Parameter {name} has unsupported type {param.annotation}. The valid types are: "
                  f"{_PARAM_TYPES.keys()}.")
        schema_type = _PARAM_TYPES[annotation]
        if isinstance(mutates_args, str):
            if mutates_args != UNKNOWN_MUTATES:
                raise ValueError("mutates_args must either be a sequence of the names of the arguments that are "
                                 "mutated or the string 'unknown'. ")
            if schema_type.startswith("Tensor"):
                schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        elif name in mutates_args:
            if not schema_type.startswith("Tensor"):
                error(f"Parameter {name} is in mutable_args but only Tensors or collections of Tensors can be "
                      "mutated")
            schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        seen.add(name)
        if param.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
        else:
            params.append(f"{schema_type} {name}={_default_text(name, param.default, error)}")
    if mutates_args != UNKNOWN_MUTATES:
        unseen = set(mutates_args) - seen
        if unseen:
            error(f"{unseen} in mutates_args were not found in the custom op's signature. mutates_args should "
                  "contain the names of all args that the custom op mutates, or just the string 'unknown' if you "
                  "don't know.")
    ret = _parse_return(_resolve(sig.return_annotation, prototype_function, error), error)
    return f"{op_name or ''}({', '.join(params)}) -> {ret}"
