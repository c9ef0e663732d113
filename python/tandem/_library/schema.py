"""Operator schemas ("name.overload(Tensor x, SymInt[] box, *, float s=1.) -> Tensor"): parsing, printing, and
binding a call's arguments to them with PyTorch's errors for a wrong value, a missing one or too many."""
import re
from dataclasses import dataclass, field

from .. import _C

# Base types a schema may name, and the type name PyTorch's argument errors print for each.
_BASE_TYPES = {"Tensor": "Tensor", "SymInt": "int", "int": "int", "float": "float", "bool": "bool", "str": "str",
               "Scalar": "number", "ScalarType": "int", "Device": "Device", "Layout": "int", "MemoryFormat": "int",
               "Generator": "Generator", "Dimname": "str", "Any": "Any", "complex": "complex"}
_UNKNOWN_TYPE = ("unknown type specifier. Common valid schema types include Tensor, SymInt, int, float, bool, Scalar; "
                 "for a full list, please see https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/"
                 "README.md#func :")
_TYPE = re.compile(r"^(\w+)(\((\w+)(!?)\))?(\[(\d*)\])?(\?)?(\[(\d*)\])?(\?)?$")


@dataclass
class SchemaType:
    base: str  # "Tensor", "SymInt", ...
    alias: str | None = None  # the alias set of "Tensor(a!)"
    is_write: bool = False
    list_of: bool = False  # "T[]" or "T?[]"
    elem_optional: bool = False  # "T?[]"
    optional: bool = False  # "T?" or "T[]?"
    list_size: str = ""  # the N of "int[N]": such a list also takes one int

    def __str__(self):
        s = self.base + (f"({self.alias}{'!' if self.is_write else ''})" if self.alias else "")
        if self.list_of:
            s += ("?" if self.elem_optional else "") + f"[{self.list_size}]"
        return s + ("?" if self.optional else "")

    @property
    def is_tensor_like(self):
        return self.base == "Tensor"

    def python_name(self):
        """The type as PyTorch's argument errors name it: List[int], Optional[Tensor], ..."""
        name = _BASE_TYPES[self.base]
        if self.elem_optional:
            name = f"Optional[{name}]"
        if self.list_of:
            name = f"List[{name}]"
        return f"Optional[{name}]" if self.optional else name


@dataclass
class Argument:
    name: str
    type: SchemaType
    default: str | None = None  # the schema's text for the default, None when there is none
    kwarg_only: bool = False

    def __str__(self):
        default = self.default
        if default is not None and self.type.base == "float" and re.fullmatch(r"-?\d+\.0", default):
            default = default[:-1]  # PyTorch prints a float default as C++ does: 1. for 1.0
        return f"{self.type} {self.name}" + ("" if default is None else f"={default}")


@dataclass
class Schema:
    name: str  # "mylib::crop" or "crop"
    overload: str = ""
    arguments: list = field(default_factory=list)
    returns: list = field(default_factory=list)  # [(SchemaType, name or None)]
    returns_tuple: bool = True  # "(Tensor)" vs "Tensor"

    @property
    def overload_name(self):  # PyTorch's FunctionSchema spelling
        return self.overload

    def __str__(self):
        params, star = [], False
        for a in self.arguments:
            if a.kwarg_only and not star:
                params.append("*")
                star = True
            params.append(str(a))
        rets = [str(t) + (f" {n}" if n else "") for t, n in self.returns]
        ret = f"({', '.join(rets)})" if self.returns_tuple else rets[0]
        name = self.name + (f".{self.overload}" if self.overload else "")
        return f"{name}({', '.join(params)}) -> {ret}"

    @property
    def mutated_arguments(self):
        return [a.name for a in self.arguments if a.type.is_write]

    @property
    def is_mutable(self):
        return any(a.type.is_write for a in self.arguments)

    @property
    def returns_alias(self):
        return any(t.alias for t, _ in self.returns)


def _here(text, start, end, message):
    return RuntimeError(f"{message}\n{text}\n{' ' * start}{'~' * max(end - start, 1)} <--- HERE\n")


def _parse_type(text, spec, start):
    m = _TYPE.match(spec)
    if not m or m.group(1) not in _BASE_TYPES:
        end = start + len(re.match(r"\w*", spec).group(0))
        raise _here(text, start, end, "\n" + _UNKNOWN_TYPE)
    base, alias, write = m.group(1), m.group(3), m.group(4) == "!"
    first_list, first_opt, second_list, second_opt = m.group(5), m.group(7), m.group(8), m.group(10)
    if second_list:  # "T?[]" with a possible trailing "?"
        return SchemaType(base, alias, write, list_of=True, elem_optional=bool(first_opt), optional=bool(second_opt))
    return SchemaType(base, alias, write, list_of=bool(first_list), optional=bool(first_opt),
                      list_size=m.group(6) or "")


def _split_top(s):
    """Splits on the commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for ch in s:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def _parse_returns(text, ret, offset):
    ret = ret.strip()
    if not ret:
        raise _here(text, len(text), len(text) + 1, "expected ident but found 'eof' here:")
    if not ret.startswith("("):
        return [(_parse_type(text, ret, offset), None)], False
    if not ret.endswith(")"):
        raise _here(text, offset, len(text), "expected ) to close the returns here:")
    inner = ret[1:-1].strip()
    if inner.startswith("(") and inner.endswith(")"):  # "((Tensor))": a one-element tuple
        inner = inner[1:-1]
    returns = []
    for part in _split_top(inner):
        words = part.split()
        returns.append((_parse_type(text, words[0], offset + text[offset:].find(words[0])),
                        words[1] if len(words) > 1 else None))
    return returns, True


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?inf|nan")


def _check_numeric_default(text, argument, at):
    """A number type's default must read as a number (or None for an optional one), as PyTorch's lexer wants."""
    t, default = argument.type, argument.default
    if default is None or t.list_of or t.base not in ("int", "SymInt", "float"):
        return
    if _NUMBER.fullmatch(default) or (t.optional and default == "None"):
        return
    raise _here(text, at, at + 1, "\ninvalid numeric default value:")


def parse_schema(text):
    """Parses a full schema ("name(...) -> ...", the name may carry "ns::" and ".overload")."""
    m = re.match(r"^\s*([\w:]*?)(?:\.(\w+))?\s*\(", text)
    if not text.strip():
        raise _here(text, 0, 1, "expected ident but found 'eof' here:")
    if not m:
        if re.fullmatch(r"\s*[\w:]+(\.\w+)?\s*", text):
            raise RuntimeError("Tried to parse a function schema but only the operator name was given")
        raise _here(text, 0, len(text), "expected ( to open the arguments here:")
    if not m.group(1):  # PyTorch's lexer wants the operator's name first
        raise _here(text, m.end() - 1, m.end(), "expected ident but found '(' here:")
    depth, close = 0, None
    for i in range(m.end() - 1, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            close = i
            break
    arrow = text.find("->", m.end())
    if close is None or (arrow != -1 and arrow < close):
        at = arrow if arrow != -1 else len(text)
        raise _here(text, at, at + 2, "expected ) but found 'arrow' here:" if arrow != -1 else
                    "expected ) but found the end of the schema here:")
    rest = text[close + 1:]
    if not rest.strip().startswith("->"):
        tail = rest.lstrip()
        at = len(text) - len(tail)
        found = f"'{tail[0]}'" if tail else "'eof'"
        raise _here(text, at, at + 1, f"expected arrow but found {found} here:")
    schema = Schema(m.group(1), m.group(2) or "")
    kwarg_only, pos = False, m.end()
    for part in _split_top(text[m.end():close]):
        start = pos + len(part) - len(part.lstrip())
        pos += len(part) + 1
        part = part.strip()
        if part == "*":
            kwarg_only = True
            continue
        decl, _, default = part.partition("=")
        words = decl.split()
        if len(words) != 2:
            raise _here(text, start, start + len(part), "expected a type and a name here:")
        argument = Argument(words[1], _parse_type(text, words[0], start), default.strip() if default else None,
                            kwarg_only)
        _check_numeric_default(text, argument, start + len(decl) + 1)
        schema.arguments.append(argument)
    arrow_at = close + 1 + rest.find("->") + 2
    schema.returns, schema.returns_tuple = _parse_returns(text, text[arrow_at:], arrow_at)
    return schema


def _fits(value, t, numbers_for_tensors=False):
    """Whether a Python value can be passed for a schema type (numbers_for_tensors: a number stands for a Tensor,
    as ATen's operators take it)."""
    if value is None:
        return t.optional
    if t.list_of:
        if t.list_size and t.base in ("SymInt", "int") and isinstance(value, int):
            return True  # int[2] takes a single int, broadcast to the list
        return isinstance(value, (list, tuple)) and all(
            (v is None and t.elem_optional) or (v is not None and _fits_one(v, t.base, numbers_for_tensors))
            for v in value)
    return _fits_one(value, t.base, numbers_for_tensors)


def _fits_one(v, base, numbers_for_tensors=False):
    if base == "Tensor" and numbers_for_tensors and isinstance(v, (int, float, complex)):
        return True
    checks = {"Tensor": lambda: isinstance(v, _C.Tensor),
              "SymInt": lambda: isinstance(v, int), "int": lambda: isinstance(v, int),
              "float": lambda: isinstance(v, (int, float)) and not isinstance(v, bool),
              "bool": lambda: isinstance(v, bool), "str": lambda: isinstance(v, str),
              "Scalar": lambda: isinstance(v, (int, float, complex)),
              "ScalarType": lambda: isinstance(v, _C.dtype), "Device": lambda: isinstance(v, (_C.device, str, int)),
              "Dimname": lambda: isinstance(v, str)}
    return checks.get(base, lambda: True)()


def bind(schema, args, kwargs, numbers_for_tensors=False):
    """Matches a call to the schema: (positional values, keyword-only values), as PyTorch passes them to a
    kernel; the defaults a caller left out are not filled in (the kernel's own defaults apply).
    numbers_for_tensors: a number may stand for a Tensor argument (ATen's operators convert it)."""
    declaration = f"Declaration: {schema}"
    positional = [a for a in schema.arguments if not a.kwarg_only]
    received = len(args) + len(kwargs)
    if len(args) > len(positional) or received > len(schema.arguments):  # PyTorch counts first
        raise RuntimeError(f"{schema.name}() expected at most {len(schema.arguments)} argument(s) but received "
                           f"{received} argument(s). {declaration}")
    names = {a.name for a in schema.arguments}
    for k in kwargs:
        if k not in names:
            raise RuntimeError(f"Unknown keyword argument '{k}' for operator '{schema.name}'. Schema: {schema}")
    values = dict(zip((a.name for a in positional), args))
    for k, v in kwargs.items():
        if k in values:
            raise RuntimeError(f"{schema.name}() got multiple values for argument '{k}'. {declaration}")
        values[k] = v
    for i, a in enumerate(schema.arguments):
        if a.name not in values:
            if a.default is None:
                raise RuntimeError(f"{schema.name}() is missing value for argument '{a.name}'. {declaration}")
            continue
        v = values[a.name]
        if not _fits(v, a.type, numbers_for_tensors):
            raise RuntimeError(f"{schema.name}() Expected a value of type '{a.type.python_name()}' for argument "
                               f"'{a.name}' but instead found type '{type(v).__name__}'.\nPosition: {i}\n"
                               f"Value: {v!r}\n{declaration}")
    # Trailing arguments equal to their defaults are dropped, as PyTorch's dispatcher does: a kernel, and
    # register_autograd's backward, see only the inputs that differ from the schema's defaults.
    last = max((i for i, a in enumerate(positional) if a.name in values and not _is_default(a, values[a.name])),
               default=-1)
    bound_args = tuple(values[a.name] if a.name in values else default_value(a) for a in positional[:last + 1])
    bound_kwargs = {a.name: values[a.name] for a in schema.arguments if a.kwarg_only and a.name in values}
    return bound_args, bound_kwargs


def _is_default(argument, value):
    if argument.default is None or isinstance(value, _C.Tensor):
        return False
    default = default_value(argument)
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (value, default))
    return (numbers or type(value) is type(default)) and value == default  # 2 passed for "float s=2." is default


def default_value(argument):
    """A schema default as a Python value (for a defaulted argument before one the caller passed)."""
    text = argument.default
    if text in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[text]
    if text.startswith(("'", '"')):
        return text[1:-1]
    if text.startswith("["):
        return [default_value(Argument("", argument.type, p.strip())) for p in _split_top(text[1:-1])]
    if argument.type.base == "ScalarType" and hasattr(_C, text):
        return getattr(_C, text)
    try:
        return int(text)
    except ValueError:
        return float(text)


def fill_defaults(schema, args):
    """All positional arguments, the defaults of those not passed filled in (setup_context's `inputs`)."""
    positional = [a for a in schema.arguments if not a.kwarg_only]
    return tuple(args) + tuple(default_value(a) for a in positional[len(args):])
