"""PyTorch's argument-parser errors for a call that a C++-bound function refuses. nanobind answers such a call with
"isclose(): incompatible function arguments. The following argument types are supported: ...", which is not what
PyTorch users read or search for; PyTorch's parser names the argument and what it wanted ("isclose(): argument
'other' (position 2) must be Tensor, not float", "takes from 2 to 5 positional arguments but 6 were given", "got an
unexpected keyword argument 'foo'", "received an invalid combination of arguments - got (...), but expected one
of: ..."). The public-function and Tensor-method wrappers (python/src/builtin_function.cpp, torch_function.cpp) call
`message` on that error path only, with the function and the arguments of the call; the function's overloads are
read from nanobind's `__nb_signature__` and judged the way nanobind's casters judged them. A call this module
cannot explain keeps nanobind's message."""
import re

from . import _C
from ._library.schema import _split_top

# nanobind's rendering of a parameter type -> PyTorch's name for it in parser messages.
_TYPE_NAMES = {
    "tandem._C.Tensor": "Tensor", "float": "float", "int": "int", "bool": "bool", "str": "str", "complex": "complex",
    "tandem._C.dtype": "torch.dtype", "tandem._C.device": "torch.device", "tandem._C.Generator": "torch.Generator",
    "collections.abc.Sequence[int]": "tuple of ints", "collections.abc.Sequence[float]": "tuple of floats",
    "collections.abc.Sequence[tandem._C.Tensor]": "tuple of Tensors", "collections.abc.Sequence[bool]":
    "tuple of bools",
}
_type_name = _C._parser_type_name  # python/src/tensor.cpp: CPython's tp_name, tandem's classes as torch's
_described = _C._parser_argument_description  # python/src/parser_errors.cpp: "list of [int]"


def _is_int(value):  # python/src/int_caster.h: an int or an __index__ object, never a bool or a float
    return not isinstance(value, (bool, float)) and hasattr(type(value), "__index__")


def _is_float(value):  # nanobind's double caster: PyFloat_AsDouble, through __float__ or __index__
    return hasattr(type(value), "__float__") or hasattr(type(value), "__index__")


def _sequence_of(fits):
    return lambda value: isinstance(value, (list, tuple)) and all(fits(v) for v in value)


# PyTorch's type name -> whether a value passes nanobind's caster for it.
_FITS = {
    "Tensor": lambda value: isinstance(value, _C.Tensor),
    "float": _is_float,
    "int": _is_int,
    "bool": lambda value: value is True or value is False,
    "str": lambda value: isinstance(value, str),
    "complex": lambda value: _is_float(value) or hasattr(type(value), "__complex__"),
    "torch.dtype": lambda value: isinstance(value, _C.dtype),
    "torch.Generator": lambda value: isinstance(value, _C.Generator),
    "tuple of ints": _sequence_of(_is_int),
    "tuple of floats": _sequence_of(_is_float),
    "tuple of bools": _sequence_of(lambda value: value is True or value is False),
    "tuple of Tensors": _sequence_of(lambda value: isinstance(value, _C.Tensor)),
}


# PyTorch's parser takes NumPy's names for these parameters (python_arg_parser.cpp's
# numpy_compatibility_arg_names) while matching a call; its errors name the parameters by their own names only.
_NUMPY_ALIASES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}


class _Param:
    __slots__ = ("name", "type", "optional", "nullable", "keyword_only", "default", "check")

    def __init__(self, name, type_name, optional, nullable, keyword_only, default, check=None):
        self.name, self.type, self.optional, self.nullable = name, type_name, optional, nullable
        self.keyword_only, self.default = keyword_only, default
        self.check = check or _FITS.get(type_name)

    def fits(self, value):
        if value is None and self.nullable:
            return True
        return self.check is None or self.check(value)  # a type not listed is not judged here

    def __str__(self):  # PyTorch's "bool keepdim = False"
        text = f"{self.type or 'object'} {self.name}"
        return text + f" = {self.default}" if self.optional else text


_DEFAULT_SLOT = re.compile(r"\\=?(\d+)$")


def _overloads(function):
    """The overloads of a nanobind function as lists of _Param (self left out), or None when a signature cannot be
    read. An overload taking *args/**kwargs reads its arguments itself (the NumPy-style `axis=` forms) and is left
    out."""
    try:
        signatures = function.__nb_signature__
    except AttributeError:
        return None
    # an out= the binding takes as an object: a tuple for the functions with several results (tandem.return_types)
    out_type = "tuple of Tensors" if hasattr(_C.return_types, function.__name__) else "Tensor"
    overloads = []
    for text, _doc, defaults in signatures:
        text = text.strip().splitlines()[-1]
        match = re.match(r"(?:def )?\w+\((.*)\)(?: -> .*)?$", text)
        if match is None:
            return None
        parts = [part.strip() for part in _split_top(match.group(1))]
        if any(part.startswith("*") and part != "*" for part in parts):
            continue
        params, keyword_only = [], False
        for i, part in enumerate(parts):
            if part == "/":
                continue
            if part == "*":
                keyword_only = True
                continue
            if i == 0 and part == "self":
                continue
            name, _, rest = part.partition(":")
            annotation, has_default, default = rest.strip(), False, None
            if " = " in annotation:
                annotation, default = annotation.split(" = ", 1)
                has_default = True
                slot = _DEFAULT_SLOT.match(default)
                if slot is not None and defaults is not None:  # \\N: the value; \\=N: its text as bound
                    value = defaults[int(slot.group(1))]
                    default = value if default.startswith("\\=") else _default_text(value)
            nullable = annotation.endswith(" | None")
            annotation = annotation.removesuffix(" | None")
            name = name.strip()
            kind = _TYPE_NAMES.get(annotation, out_type if name == "out" else None)
            params.append(_Param(name, kind, has_default, nullable, keyword_only, default))
        overloads.append(params)
    return overloads


def _registered_overloads(name, method):
    """PyTorch's overloads registered for a binding whose own parameters differ from them
    (python/src/parser_errors.h, register_parser_signatures), as lists of _Param; a method's without input and out.
    PyTorch's "tuple of ints" dims there take one int too (its int[1]); None when none are registered."""
    registered = _C._parser_signatures(name)
    return None if registered is None else _parsed_signatures(registered, method)


def _parsed_signatures(signatures, method=False):
    """[(params, keyword-only text or None)] in PyTorch's printed form ("Tensor input", "*, bool keepdim =
    False") as lists of _Param."""
    overloads = []
    for params, keyword_only in signatures:
        parsed, after_star = [], False
        for entry in list(params) + (keyword_only.split(", ") if keyword_only else []):
            if entry == "*":
                after_star = True
                continue
            declaration, has_default, default = entry.partition(" = ")
            type_name, _, param_name = declaration.rpartition(" ")
            if method and param_name in ("input", "out"):  # PyTorch's methods take neither
                continue
            check = (lambda v: _is_int(v) or _FITS["tuple of ints"](v)) if type_name == "tuple of ints" else None
            parsed.append(_Param(param_name, type_name, bool(has_default), default == "None", after_star,
                                 default if has_default else None, check))
        overloads.append(parsed)
    return overloads


def refusal(name, signatures, args, kwargs):
    """PyTorch's parser error for a call of `name` (a Python-level function or method, args without self) that none
    of its overloads `signatures` (in PyTorch's printed form) takes: the one plausible overload's own error, or
    the "received an invalid combination of arguments" listing."""
    return _refusal(name, _parsed_signatures(signatures), args, kwargs, pytorch_overloads=True)


def _refusal(name, overloads, args, kwargs, pytorch_overloads=False):
    # PyTorch's parser raises the specific error when one overload alone takes this many arguments
    count = len(args) + len(kwargs)
    plausible = [p for p in overloads if sum(not q.optional for q in p) <= count <= len(p)]
    if len(overloads) == 1 or len(plausible) == 1:
        return _explain_one(name, (plausible or overloads)[0], args, kwargs)
    # tandem's bindings have overloads where PyTorch's function has one signature (add's alpha forms): a keyword
    # none of them knows is PyTorch's "unexpected keyword argument"
    unknown = [k for k in kwargs if not any(k == q.name for p in overloads for q in p)]
    if unknown and not pytorch_overloads:
        return f"{name}() got an unexpected keyword argument '{unknown[0]}'"
    return _invalid_combination(name, overloads, args, kwargs)


def _signatures(function, name, method):
    return _registered_overloads(name, method) or _overloads(function)


def _default_text(value):
    return "None" if value is None else repr(value)


def _explain_one(name, params, args, kwargs):
    """PyTorch's FunctionSignature::parse error for a call of this one overload, or None when it fits."""
    positional = [p for p in params if not p.keyword_only]
    if len(args) > len(positional):
        low, high = sum(not p.optional for p in params), len(positional)
        if low != high:
            return f"{name}() takes from {low} to {high} positional arguments but {len(args)} were given"
        return (f"{name}() takes {high} positional argument{'' if high == 1 else 's'} but {len(args)} "
                f"{'was' if len(args) == 1 else 'were'} given")
    for index, param in enumerate(params):
        alias = next((a for a in _NUMPY_ALIASES.get(param.name, ()) if a in kwargs), None)
        if index < len(args) and not param.keyword_only:
            value, where = args[index], f" (position {index + 1})"
        elif param.name in kwargs:
            value, where = kwargs[param.name], ""
        elif alias is not None:
            value, where = kwargs[alias], ""
        elif param.optional:
            continue
        else:
            missing = [f'"{p.name}"' for p in params[index:] if not p.optional]
            # PyTorch's own wording, plural ending included ("missing 1 required positional arguments")
            return (f"{name}() missing {len(missing)} required positional argument{'s' if len(missing) == 1 else ''}"
                    f": {', '.join(missing)}")
        if not param.fits(value):
            return f"{name}(): argument '{param.name}'{where} must be {param.type}, not {_type_name(value)}"
    names = {p.name: i for i, p in enumerate(params)}
    for key in kwargs:
        if key not in names:
            return f"{name}() got an unexpected keyword argument '{key}'"
        if names[key] < len(args) and not params[names[key]].keyword_only:
            return f"{name}() got multiple values for argument '{key}'"
    return None


def _invalid_combination(name, overloads, args, kwargs):
    """PyTorch's "received an invalid combination of arguments" (torch/csrc/utils/invalid_arguments.cpp), with its
    quirks kept, since users compare the text. It reads each overload back from its printed form, split at ", ":
    the "*" is an entry, and a parameter with a default is named by its default and has a type nothing matches
    (its name is the text after the last space). An overload is explained only when it has as many entries as
    arguments were given: the keywords must name its last entries, else they are "incorrect"; otherwise each
    argument is marked !type! unless its type's name is the entry's. Keywords are listed last-first (its map's
    order), and each listed item is followed by ", " when there are no positionals."""
    keywords = list(kwargs.items())[::-1]
    got = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in keywords]
    lines = [f"{name}() received an invalid combination of arguments - got ({_listed(got, args)}), but expected "
             "one of:"]
    for params in overloads:
        positional = [p for p in params if not p.keyword_only]
        keyword_only = [p for p in params if p.keyword_only]
        printed = positional + (["*"] + keyword_only if keyword_only else [])
        lines.append(f" * ({', '.join(map(str, printed))})")
        if len(printed) != len(args) + len(kwargs):
            continue
        entries = [("*", None) if p == "*" else (p.default, None) if p.optional else (p.name, p.type)
                   for p in printed]
        tail = dict(entries[len(args):])
        wrong = [k for k, _ in keywords if k not in tail]
        if wrong:
            lines.append(f"      didn't match because some of the keywords were incorrect: {', '.join(wrong)}")
            continue
        marks = [_mark(entry_type, a, _described(a)) for (_, entry_type), a in zip(entries, args)]
        marks += [_mark(entry_type, kwargs[key], f"{key}={_described(kwargs[key])}")
                  for key, entry_type in entries[len(args):]]
        lines.append(f"      didn't match because some of the arguments have invalid types: ({_listed(marks, args)})")
    return "\n".join(lines) + "\n"


def _listed(items, args):
    return ", ".join(items) if args else "".join(f"{item}, " for item in items)


def _mark(entry_type, value, text):
    name = _type_name(value)
    matches = entry_type is not None and (name == entry_type or (entry_type == "float" and name == "int"))
    return text if matches else f"!{text}!"


_UNPOSITIONED = re.compile(r"(\w+)\(\): argument '(\w+)' must be ")


def _with_position(function, name, args, kwargs, method_name, refused):
    """A binding's own "f(): argument 'x' must be ..." for an x this call gave by position, with the position
    PyTorch's parser names (1-based over the signature: a function's input counts, a method's self does not)."""
    match = _UNPOSITIONED.match(refused)
    if match is None or match.group(1) != name or match.group(2) in kwargs:
        return None
    given = len(args) - (method_name is not None)
    for params in _signatures(function, name, method_name is not None) or []:
        names = [p.name for p in params if not p.keyword_only]
        if match.group(2) in names and names.index(match.group(2)) < given:
            index = names.index(match.group(2))
            where = f"argument '{match.group(2)}' (position {index + 1}) must be "
            text = where.join(refused.split(f"argument '{match.group(2)}' must be ", 1))
            # A list PyTorch's parser refused for its first item: given by position, its message names the item
            value = args[index + (method_name is not None)]
            for kind in ("tuple", "list"):
                refusal = f"must be tuple of ints, not {kind}"
                if text.endswith(refusal) and isinstance(value, (tuple, list)) and value:
                    text = (text[:-len(", not " + kind)] + f", but found element of type "
                            f"{_type_name(value[0])} at pos 0")
            return text
    return None


def message(function, args, kwargs, method_name, refused):
    """PyTorch's parser error for `function(*args, **kwargs)`, which nanobind refused with the message `refused`
    (for a Tensor method, `method_name` is its name and args[0] is self), or None to keep nanobind's. A binding's
    own "argument 'x' must be" error gets x's position when the call gave x by position."""
    name = getattr(function, "__name__", None)
    if not isinstance(name, str):
        return None
    if not hasattr(function, "__nb_signature__"):  # a Python wrapper of a binding (_random_fills' fills)
        function = getattr(function, "__wrapped__", function)
    if not refused.startswith(f"{name}(): incompatible function arguments"):
        # a function called inside this one refused its arguments, or the binding worded its own error
        return _with_position(function, name, args, kwargs, method_name, refused)
    if method_name is not None:
        if not args:
            return f"unbound method TensorBase.{method_name}() needs an argument"
        if not isinstance(args[0], _C.Tensor):
            return (f"descriptor '{method_name}' for 'torch._C.TensorBase' objects doesn't apply to a "
                    f"'{_type_name(args[0])}' object")
        args = args[1:]
    registered = _registered_overloads(name, method_name is not None)
    overloads = registered or _overloads(function)
    if not overloads:
        return None
    if method_name is not None and "out" not in kwargs:  # PyTorch's methods list no out=
        overloads = [[p for p in params if p.name != "out"] for params in overloads]
    return _refusal(name, overloads, args, kwargs, pytorch_overloads=registered is not None)
