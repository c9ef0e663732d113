"""Containers: Sequential, ModuleList, ModuleDict."""
import collections.abc
import operator
from collections import OrderedDict

from .module import Module, _addindent


def _index(idx, n):
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


class _ModuleSequence(Module):
    """What Sequential and ModuleList share: a sequence of modules, indexed by position, numbered "0", "1", ...
    (Sequential may also hold named ones), and renumbered when entries are removed or inserted, as PyTorch does."""

    def _from_items(self, items):
        """A container of the same type holding (key, module) pairs, for slicing."""
        raise NotImplementedError

    def _renumber(self, modules):
        self._modules.clear()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self._from_items(list(self._modules.items())[idx])
        return list(self._modules.values())[_index(idx, len(self))]

    def __setitem__(self, idx, module):
        setattr(self, list(self._modules.keys())[_index(idx, len(self))], module)

    def __delitem__(self, idx):
        keys = list(self._modules.keys())
        for key in keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(self))]]:
            delattr(self, key)
        self._renumber(list(self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential):  # PyTorch's parameter name (extend(sequential=...))
        for m in sequential:
            self.append(m)
        return self

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        self._renumber(items)

    def pop(self, key):
        module = self[key]
        del self[key]
        return module


class Sequential(_ModuleSequence):
    """Runs its modules in order, feeding each one's output to the next."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _from_items(self, items):
        return type(self)(OrderedDict(items))

    def insert(self, index, module):
        if not isinstance(module, Module):  # PyTorch's own check (an assertion, not add_module's TypeError)
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self)
        if not -n <= index <= n:  # PyTorch refuses what list.insert would clamp
            raise IndexError(f"Index out of range: {index}")
        super().insert(index, module)
        return self  # Sequential.insert returns the container in PyTorch (ModuleList.insert returns None)

    # `+` and `*` join and repeat Sequentials (the same module objects, renumbered "0", "1", ...), as PyTorch's.
    def _check_added(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")

    def _check_factor(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __add__(self, other):
        self._check_added(other)
        return Sequential().extend(list(self) + list(other))

    def __iadd__(self, other):
        self._check_added(other)
        return self.extend(list(other))

    def __mul__(self, other):
        self._check_factor(other)
        return Sequential().extend(list(self) * other)

    __rmul__ = __mul__

    def __imul__(self, other):
        self._check_factor(other)
        return self.extend(list(self) * (other - 1))

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(_ModuleSequence):
    """A list of modules whose parameters are registered with the parent."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _from_items(self, items):
        return type(self)([m for _, m in items])

    def extend(self, modules):
        if not isinstance(modules, collections.abc.Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        return super().extend(modules)

    def __add__(self, other):
        """A new ModuleList of this one's modules, then those of `other` (any iterable of modules)."""
        return ModuleList(list(self) + list(other))

    def __repr__(self):
        """Runs of identical entries are collapsed ("(0-2): 3 x Linear(...)"), as PyTorch prints them."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []  # [start, end, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [
            _addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2) for a, b, r in runs
        ]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules whose parameters are registered with the parent."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        """Adds (or replaces) the modules of a mapping, or of an iterable of (key, module) pairs, in their order;
        anything else is PyTorch's TypeError / ValueError naming the offending element."""
        if not isinstance(modules, collections.abc.Iterable):
            raise TypeError(f"ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            f"{type(modules).__name__}")
        if isinstance(modules, collections.abc.Mapping) or hasattr(modules, "items"):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, collections.abc.Iterable):  # PyTorch's words, its missing space included
                raise TypeError(f"ModuleDict update sequence element #{j} should be Iterable; is"
                                f"{type(pair).__name__}")
            if len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required")
            self[pair[0]] = pair[1]
