"""Helpers of PyTorch's torch.nn.modules.utils that programs import directly, and own_init for tandem's layers."""
import collections
import types
from itertools import repeat


def own_init(cls):
    """cls with its own copy of the __init__ it inherits from a shared private base, named after cls: PyTorch
    writes an __init__ in each of these classes, so Python's argument errors name the class ("Conv1d.__init__()
    got an unexpected keyword argument 'x'", not "_ConvForwardNd.__init__()"). Subclasses still inherit it."""
    base = cls.__init__
    code = base.__code__
    if hasattr(code, "co_qualname"):  # Python 3.11+, whose messages name the qualified function
        code = code.replace(co_qualname=f"{cls.__qualname__}.__init__")
    init = types.FunctionType(code, base.__globals__, "__init__", base.__defaults__, base.__closure__)
    init.__kwdefaults__, init.__doc__ = base.__kwdefaults__, base.__doc__
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init
    return cls


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """t reversed with each element repeated n times: a Conv/Pool padding as F.pad takes it."""
    return tuple(x for x in reversed(t) for _ in range(n))


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strips ``prefix`` (e.g. DistributedDataParallel's "module.") from the keys that have it, in place."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                metadata[key[len(prefix):]] = metadata.pop(key)
