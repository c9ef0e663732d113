"""How a DataLoader turns a list of samples into a batch (default_collate) or converts single samples
(default_convert), at PyTorch's module path, with PyTorch's extension point: ``collate(batch, collate_fn_map=)``
looks the first sample's type up in the map (exactly, then by isinstance in the map's order) and otherwise
recurses into mappings, namedtuples and sequences, keeping their types where it can (an OrderedDict batch is an
OrderedDict of batches; a tuple gives a list, as in PyTorch). Programs register their own types in
``default_collate_fn_map``."""
import collections.abc
import copy
import re

import numpy as np

import tandem
from ...._C import Tensor
from ...._layouts import is_sparse_tensor

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map", "collate_tensor_fn",
           "collate_numpy_array_fn", "collate_numpy_scalar_fn", "collate_float_fn", "collate_int_fn",
           "collate_str_fn", "default_collate_err_msg_format", "np_str_obj_array_pattern"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")
default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                  "lists; found {}")


def _rebuilt_mapping(elem, items):
    """A mapping of elem's type holding items (a copy of elem updated, so extra attributes such as a
    defaultdict's factory stay), or a dict where the type allows neither."""
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(items)
            return clone
        return type(elem)(items)
    except TypeError:
        return items


def _rebuilt_sequence(elem, values):
    """A sequence of elem's type holding values (a list for tuples, as PyTorch's collate gives)."""
    if isinstance(elem, tuple):
        return values
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, value in enumerate(values):
                clone[i] = value
            return clone
        return type(elem)(values)
    except TypeError:
        return values


def default_convert(data):
    """``data`` with its NumPy arrays and numbers as tensors, recursing into mappings, namedtuples and sequences
    (tuples become lists, as in PyTorch); string and object arrays and anything else are returned as they are."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, (np.ndarray, np.generic)):  # arrays and NumPy scalars
        return data if np_str_obj_array_pattern.search(data.dtype.str) else tandem.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuilt_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuilt_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map=None):
    """One batch from a list of samples of the same structure (module docstring)."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type, collate_fn in collate_fn_map.items():
            if isinstance(elem, collate_type):
                return collate_fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuilt_mapping(elem, {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                                       for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # each position's samples stay the tuple zip gives, as in PyTorch: strings in a list come back as a tuple
        return _rebuilt_sequence(elem, [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)])
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    if is_sparse_tensor(batch[0]):  # PyTorch's refusal
        raise RuntimeError("Batches of sparse tensors are not currently supported by the default collate_fn; "
                           "please provide a custom collate_fn to handle them appropriately.")
    return tandem.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    if np_str_obj_array_pattern.search(batch[0].dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    return collate([tandem.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return tandem.as_tensor(np.array(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return tandem.tensor(batch, dtype=tandem.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return tandem.tensor(batch)  # bools too; the dtype comes from the whole batch ([1, 2.5] is float32)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {Tensor: collate_tensor_fn, np.ndarray: collate_numpy_array_fn,
                          (np.bool_, np.number, np.object_): collate_numpy_scalar_fn, float: collate_float_fn,
                          int: collate_int_fn, str: collate_str_fn, bytes: collate_str_fn}


def default_collate(batch):
    """Stacks tensors, turns NumPy arrays and numbers into tensors, and recurses into dicts, namedtuples, tuples and
    lists (collate with default_collate_fn_map)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
