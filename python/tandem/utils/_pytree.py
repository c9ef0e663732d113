"""torch.utils._pytree's core: flatten nested Python containers (tuple, list, dict, OrderedDict, defaultdict, Size,
namedtuple) into a list of leaves and a TreeSpec that rebuilds them. tandem.func uses it for the argument and
output structures of its transforms; TreeSpec's repr is PyTorch's, because transform error messages print it."""
import collections

from tandem._size import Size

__all__ = ["TreeSpec", "LeafSpec", "tree_flatten", "tree_unflatten", "tree_leaves", "tree_structure", "tree_map",
           "tree_map_", "treespec_pprint"]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _node_kind(x):
    """(type shown in the spec, context, children) for a container, None for a leaf."""
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
        return f"TreeSpec({self.kind}, {self._context}, [{inner}])"

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
