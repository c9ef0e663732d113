"""Unique, legal Python names for a graph's nodes and for the globals its generated code uses: 'add', 'add_1',
'float_1' (never a builtin's or keyword's name), the scheme PyTorch's printed graphs and code follow."""
import builtins
import keyword
import re
from collections import defaultdict

_ILLEGAL_CHARS = re.compile("[^0-9a-zA-Z_]+")
_NUMBERED = re.compile(r"(.*)_(\d+)$")
_LOWER_THEN_UPPER = re.compile(r"(?<=[a-z])([A-Z])")

# Names generated code binds itself (graph_module.py puts them in its globals): a node cannot take them.
RESERVED_GLOBALS = ("inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree")


def snake_case(name):
    """'MyModule' -> 'my_module', 'ReLU' -> 're_lu' (an underscore where lower case meets upper case)."""
    return _LOWER_THEN_UPPER.sub(r"_\1", name).lower()


class Namespace:
    """Hands out names: the candidate cleaned to an identifier, numbered ('_1', '_2', ...) past those taken."""

    def __init__(self):
        self._obj_to_name = {}
        self._used_names = set()
        self._base_count = defaultdict(int)

    def create_name(self, candidate, obj):
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        candidate = _ILLEGAL_CHARS.sub("_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        match = _NUMBERED.match(candidate)
        if match is None:
            base, num = candidate, None
        else:
            base, num = match.group(1), int(match.group(2))
            candidate = f"{base}_{num}"
        if not num:
            num = self._base_count[base]
        while candidate in self._used_names or self._is_illegal(candidate, obj):
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[obj] = candidate
        return candidate

    def associate_name_with_obj(self, name, obj):
        self._obj_to_name[obj] = name

    def _is_illegal(self, name, obj):
        if name in keyword.kwlist or name in RESERVED_GLOBALS:
            return True
        if name in builtins.__dict__:
            return obj is not builtins.__dict__[name]
        return False
