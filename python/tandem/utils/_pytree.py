"""torch.utils._pytree's core: flatten nested Python containers (tuple, list, dict, OrderedDict, defaultdict, Size,
namedtuple) into a list of leaves and a TreeSpec that rebuilds them. tandem.func uses it for the argument and
output structures of its transforms; TreeSpec's repr is PyTorch's, because transform error messages print it.
Research code registers its own containers (register_pytree_node) and maps over tensors only (tree_map_only,
tree_all/tree_any and their _only forms, tree_iter)."""
import collections
from typing import Any, Callable, Iterable

from tandem._size import Size

__all__ = ["TreeSpec", "LeafSpec", "register_pytree_node", "tree_is_leaf", "tree_flatten", "tree_unflatten",
           "tree_iter", "tree_leaves", "tree_structure", "tree_map", "tree_map_", "tree_map_only", "tree_map_only_",
           "tree_all", "tree_any", "tree_all_only", "tree_any_only", "treespec_pprint", "is_namedtuple",
           "is_namedtuple_class", "is_namedtuple_instance", "MappingKey", "SequenceKey", "GetAttrKey",
           "tree_flatten_with_path", "tree_leaves_with_path", "tree_map_with_path", "keystr", "key_get",
           "register_dataclass", "PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext",
           "ToDumpableContextFn", "FromDumpableContextFn", "PyTreeSpec"]

# PyTorch's annotation aliases: code types its functions with them (`args: tuple[PyTree, ...]`)
Context = Any
PyTree = Any
FlattenFn = Callable[[PyTree], tuple[list[Any], Context]]
UnflattenFn = Callable[[Iterable[Any], Context], PyTree]
DumpableContext = Any
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
KeyEntry = Any
KeyPath = tuple[KeyEntry, ...]
FlattenFunc = FlattenFn
UnflattenFunc = UnflattenFn

# Containers registered by register_pytree_node: class -> (flatten_fn, unflatten_fn)
_CUSTOM_NODES = {}


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _node_kind(x):
    """(type shown in the spec, context, children) for a container, None for a leaf."""
    registered = _CUSTOM_NODES.get(type(x))
    if registered is not None:
        children, context = registered[0](x)
        return type(x), context, list(children)
    if _is_namedtuple(x):
        return "namedtuple", type(x), list(x)
    t = type(x)
    if t is tuple:
        return "tuple", None, list(x)
    if t is list:
        return "list", None, list(x)
    if t is Size:
        # PyTorch registers torch.Size as a node (its leaves are the ints, and it rebuilds as a plain tuple):
        # code that maps over a function's result (pyro's provenance tracking of x.size()) relies on reaching them
        return "Size", None, list(x)
    if t is dict:
        return "dict", list(x.keys()), list(x.values())
    if t is collections.OrderedDict:
        return "OrderedDict", list(x.keys()), list(x.values())
    if t is collections.defaultdict:
        return "defaultdict", [x.default_factory, list(x.keys())], list(x.values())
    return None


class TreeSpec:
    """The structure of a flattened tree: a container kind, its context (keys, namedtuple class) and the specs of
    its children."""

    def __init__(self, kind, context, children):
        self.kind = kind
        self._context = context
        self._children = list(children)
        self.num_leaves = sum(c.num_leaves for c in self._children)

    @property
    def num_children(self):
        return len(self._children)

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self):
        return list(self._children)

    def is_leaf(self):
        return False

    def _rebuild(self, children):
        if isinstance(self.kind, type):  # a registered container
            return _CUSTOM_NODES[self.kind][1](children, self._context)
        if self.kind in ("tuple", "Size"):
            return tuple(children)
        if self.kind == "list":
            return list(children)
        if self.kind == "namedtuple":
            return self._context(*children)
        if self.kind == "dict":
            return dict(zip(self._context, children))
        if self.kind == "OrderedDict":
            return collections.OrderedDict(zip(self._context, children))
        factory, keys = self._context
        return collections.defaultdict(factory, zip(keys, children))

    def __repr__(self, indent=0):
        inner = ""
        if self._children:
            indent += 2
            inner = self._children[0].__repr__(indent)
            if len(self._children) > 1:
                inner += "," + ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        kind = self.kind.__name__ if isinstance(self.kind, type) else self.kind
        return f"TreeSpec({kind}, {self._context}, [{inner}])"

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, TreeSpec) or other.is_leaf():
            return False
        return (self.kind == other.kind and self._context == other._context
                and self._children == other._children)

    def __hash__(self):
        return hash((self.kind, len(self._children)))

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)


PyTreeSpec = TreeSpec


class LeafSpec(TreeSpec):
    def __init__(self):
        super().__init__(None, None, [])
        self.num_leaves = 1

    def is_leaf(self):
        return True

    def __repr__(self, indent=0):
        return "*"

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __hash__(self):
        return 0


_LEAF = LeafSpec()


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    """Makes `cls` a container: flatten_fn(obj) -> (children, context), unflatten_fn(children, context) -> obj.
    flatten_with_keys_fn(obj) -> ([(key, child), ...], context) gives tree_flatten_with_path its keys. The
    serialization arguments are accepted for PyTorch's signature; tandem does not serialize TreeSpecs."""
    if cls in _CUSTOM_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _CUSTOM_NODES[cls] = (flatten_fn, unflatten_fn)
    if flatten_with_keys_fn is not None:
        from ._pytree_paths import _KEYED_FLATTEN
        _KEYED_FLATTEN[cls] = flatten_with_keys_fn


def is_namedtuple_class(cls):
    return isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)


def is_namedtuple_instance(obj):
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj):
    """A namedtuple class or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def tree_is_leaf(tree, is_leaf=None):
    """True for a leaf: not a container, or picked by is_leaf. An empty container is not a leaf."""
    return (is_leaf is not None and is_leaf(tree)) or _node_kind(tree) is None


def tree_flatten(tree, is_leaf=None):
    """(leaves in order, TreeSpec). None and every non-container object are leaves."""
    leaves = []

    def spec_of(x):
        node = None if (is_leaf is not None and is_leaf(x)) else _node_kind(x)
        if node is None:
            leaves.append(x)
            return _LEAF
        kind, context, children = node
        return TreeSpec(kind, context, [spec_of(c) for c in children])

    spec = spec_of(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a "
                         f"pytree that holds {treespec.num_leaves} items ({treespec}).")
    it = iter(leaves)

    def build(spec):
        if spec.is_leaf():
            return next(it)
        return spec._rebuild([build(c) for c in spec._children])

    return build(treespec)


def tree_iter(tree, is_leaf=None):
    """The leaves one at a time, in tree_flatten's order."""
    yield from tree_flatten(tree, is_leaf)[0]


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [_flatten_up_to(spec, r) for r in rests]
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def tree_map_(func, tree, *rests, is_leaf=None):
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [_flatten_up_to(spec, r) for r in rests]
    for xs in zip(leaves, *others):
        func(*xs)
    return tree


def _leaf_filter(type_or_types_or_pred):
    """tree_map_only's first argument as a predicate: a type, a tuple of types (or a union), or a predicate."""
    if isinstance(type_or_types_or_pred, (type, tuple)) or type(type_or_types_or_pred).__name__ == "UnionType":
        return lambda x: isinstance(x, type_or_types_or_pred)
    if callable(type_or_types_or_pred):
        return type_or_types_or_pred
    raise TypeError("Argument must be a type, a tuple of types, or a callable.")


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """func applied to the leaves that are of the given type(s) (or that the predicate picks); the others stay."""
    picked = _leaf_filter(type_or_types_or_pred)
    return tree_map(lambda x: func(x) if picked(x) else x, tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    picked = _leaf_filter(type_or_types_or_pred)
    return tree_map_(lambda x: func(x) if picked(x) else None, tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(pred(x) for x in tree_iter(tree, is_leaf))


def tree_any(pred, tree, is_leaf=None):
    return any(pred(x) for x in tree_iter(tree, is_leaf))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None):
    """pred holds for every leaf of the given type(s); leaves of other types are not asked."""
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None):
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def _flatten_up_to(spec, tree):
    """The subtrees of `tree` at the leaf positions of `spec` (ValueError when the structures differ)."""
    if spec.is_leaf():
        return [tree]
    node = _node_kind(tree)
    if node is None or node[0] != spec.kind:
        raise ValueError(f"Node type mismatch; expected {spec.kind}, but got {type(tree)}.")
    kind, context, children = node
    if len(children) != spec.num_children:
        raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got {len(children)}.")
    if kind in ("dict", "OrderedDict", "defaultdict"):
        keys = context if kind != "defaultdict" else context[1]
        want = spec._context if kind != "defaultdict" else spec._context[1]
        if set(keys) != set(want):
            raise ValueError(f"Node keys mismatch; expected {want}, but got {keys}.")
        children = [tree[k] for k in want]
    elif kind == "namedtuple" and context is not spec._context:
        raise ValueError(f"Node context mismatch for custom node type {spec._context}.")
    out = []
    for child_spec, child in zip(spec._children, children):
        out.extend(_flatten_up_to(child_spec, child))
    return out


def _broadcast_to_and_flatten(tree, treespec):
    """`tree` (a prefix of the structure `treespec` describes, e.g. in_dims) broadcast to one entry per leaf of
    treespec; None when it is not a prefix."""
    def broadcast(prefix, spec):
        if _node_kind(prefix) is None:
            return [prefix] * spec.num_leaves
        if spec.is_leaf():
            raise ValueError("prefix is deeper than the tree")
        kind, context, children = _node_kind(prefix)
        if kind != spec.kind or len(children) != spec.num_children:
            raise ValueError("structure mismatch")
        if kind in ("dict", "OrderedDict", "defaultdict"):
            keys = context if kind != "defaultdict" else context[1]
            want = spec._context if kind != "defaultdict" else spec._context[1]
            if set(keys) != set(want):
                raise ValueError("keys mismatch")
            children = [prefix[k] for k in want]
        out = []
        for child, child_spec in zip(children, spec._children):
            out.extend(broadcast(child, child_spec))
        return out

    try:
        return broadcast(tree, treespec)
    except ValueError:
        return None


class _Asterisk(str):
    def __repr__(self):
        return "*"


def treespec_pprint(treespec):
    return repr(tree_unflatten([_Asterisk("*")] * treespec.num_leaves, treespec))


from ._pytree_paths import (GetAttrKey, MappingKey, SequenceKey, key_get, keystr, register_dataclass,  # noqa: E402
                            tree_flatten_with_path, tree_leaves_with_path, tree_map_with_path)
