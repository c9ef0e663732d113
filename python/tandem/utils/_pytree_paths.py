"""Key paths for torch.utils._pytree: where each leaf sits in its tree (MappingKey, SequenceKey, GetAttrKey),
tree_flatten_with_path / tree_leaves_with_path / tree_map_with_path, keystr and key_get, and register_dataclass,
which makes a dataclass a container whose children are its fields. Code that names parameters or logged
metrics after their place in a nested output reads these paths."""
import collections
import dataclasses

from tandem._size import Size

from . import _pytree


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: object

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


# Registered containers' flatten_with_keys_fn: class -> fn(obj) -> ([(key, child), ...], context)
_KEYED_FLATTEN = {}


def _keyed_children(x):
    """[(key, child)] of a container, in tree_flatten's order."""
    keyed = _KEYED_FLATTEN.get(type(x))
    if keyed is not None:
        return list(keyed(x)[0])
    if type(x) in _pytree._CUSTOM_NODES:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {type(x)}. Please pass a "
                         "flatten_with_keys_fn argument to register_pytree_node.")
    if _pytree._is_namedtuple(x):
        return [(GetAttrKey(name), v) for name, v in zip(type(x)._fields, x)]
    if type(x) in (tuple, list, Size):
        return [(SequenceKey(i), v) for i, v in enumerate(x)]
    if type(x) in (dict, collections.OrderedDict, collections.defaultdict):
        return [(MappingKey(k), v) for k, v in x.items()]
    raise TypeError(f"{type(x)} is not a pytree container")


def tree_flatten_with_path(tree, is_leaf=None):
    """([(key path, leaf), ...], TreeSpec): tree_flatten's leaves, each with the keys that reach it."""
    _, spec = _pytree.tree_flatten(tree, is_leaf)
    found = []

    def walk(x, path):
        if _pytree.tree_is_leaf(x, is_leaf):
            found.append((path, x))
            return
        for key, child in _keyed_children(x):
            walk(child, path + (key,))

    walk(tree, ())
    return found, spec


def tree_leaves_with_path(tree, is_leaf=None):
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """tree_map whose func also gets each leaf's key path first: func(path, leaf, *matching leaves of rests)."""
    keyed, spec = tree_flatten_with_path(tree, is_leaf)
    others = [_pytree._flatten_up_to(spec, r) for r in rests]
    return spec.unflatten([func(path, leaf, *(o[i] for o in others)) for i, (path, leaf) in enumerate(keyed)])


def keystr(kp):
    """A key path as the Python expression that indexes it: "['a'][0].field"."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """The value a key path reaches in obj."""
    for k in kp:
        obj = k.get(obj)
    return obj


def register_dataclass(cls, *, field_names=None, drop_field_names=None, serialized_type_name=None):
    """Registers a dataclass (or, given field_names, any class built from keyword arguments) as a container of the
    named fields; a field holding None is kept in the spec, not as a leaf, as in PyTorch."""
    drop_field_names = drop_field_names or []
    if not dataclasses.is_dataclass(cls):
        if field_names is None:
            raise ValueError("field_names must be specified with a list of all fields used to initialize "
                             f"{cls}, as it is not a dataclass.")
    elif field_names is None:
        field_names = [f.name for f in dataclasses.fields(cls) if f.init]
    else:
        init_fields = {f.name for f in dataclasses.fields(cls) if f.init} - set(drop_field_names)
        if init_fields != set(field_names):
            message = "field_names does not include all dataclass fields.\n"
            missing, unexpected = init_fields - set(field_names), set(field_names) - init_fields
            if missing:
                message += (f"Missing fields in `field_names`: {missing}. If you want to include these fields in "
                            "the pytree, please add them to `field_names`, otherwise please add them to "
                            "`drop_field_names`.\n")
            if unexpected:
                message += (f"Unexpected fields in `field_names`: {unexpected}. Please remove these fields, or add "
                            "them to `drop_field_names`.\n")
            raise ValueError(message)
    names = list(field_names)

    def flatten(obj):
        present = [n for n in names if getattr(obj, n) is not None]
        return [getattr(obj, n) for n in present], [present, [n for n in names if n not in present]]

    def unflatten(values, context):
        present, absent = context
        return cls(**dict(zip(present, values)), **dict.fromkeys(absent))

    def flatten_with_keys(obj):
        values, (present, _) = flatten(obj)
        return [(GetAttrKey(n), v) for n, v in zip(present, values)], present

    _pytree.register_pytree_node(cls, flatten, unflatten, serialized_type_name=serialized_type_name,
                                 flatten_with_keys_fn=flatten_with_keys)
