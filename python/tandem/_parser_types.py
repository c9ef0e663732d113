"""PyTorch's argument parser's type check of int and bool arguments, for functions tandem writes in Python: a str
where an int belongs, or an int where a bool belongs, is a TypeError naming the argument, with its position when
it was given positionally ("istft(): argument 'normalized' (position 7) must be bool, not str")."""
from ._dim_args import _is_int, _parser_type_name


def _fits(value, kind):
    if kind == "bool":  # Python and NumPy bools only
        return type(value).__name__ in ("bool", "bool_")
    return _is_int(value) and type(value).__name__ != "bool_"  # anything with __index__ but a bool


def check(name, args, kwargs, spec):
    """spec: (label, kind) per parameter in positional order; kind "int" or "bool", "int?"/"bool?" where None is
    allowed, None for a parameter not checked here."""
    for position, (label, kind) in enumerate(spec, 1):
        if position <= len(args):
            value, where = args[position - 1], f" (position {position})"
        elif label in kwargs:
            value, where = kwargs[label], ""
        else:
            continue
        if kind is None or (value is None and kind.endswith("?")):
            continue
        base = kind.rstrip("?")
        if not _fits(value, base):
            raise TypeError(f"{name}(): argument '{label}'{where} must be {base}, not {_parser_type_name(value)}")
