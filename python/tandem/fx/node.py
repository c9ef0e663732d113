"""fx.Node: one operation of a Graph (its op kind, target, arguments, users and metadata), and map_arg /
map_aggregate, which walk the nested tuples, lists, dicts and slices a node's arguments are made of."""
import inspect
import operator
from typing import NamedTuple

import tandem

from ._naming import pretty_target, qualified_name, type_repr
from .immutable_collections import immutable_dict, immutable_list

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect", "Argument", "Target"]

Target = object  # a callable (call_function) or a qualified attribute / method name (the other ops)
Argument = object  # a Node, a base value, or a tuple / list / dict / slice of Arguments

_LEGAL_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")

# Functions whose calls eliminate_dead_code keeps although nothing uses their result (assertions, profiler marks).
_side_effectful_functions = set()


def has_side_effect(fn):
    """Marks `fn` so that dead-code elimination keeps its calls; returns it (usable as a decorator)."""
    _side_effectful_functions.add(fn)
    return fn


def map_aggregate(a, fn):
    """Applies `fn` to every leaf of `a`, rebuilding tuples (named ones as their type), lists and dicts as the
    immutable kinds Nodes keep, and slices."""
    if isinstance(a, tuple):
        items = tuple(map_aggregate(elem, fn) for elem in a)
        return type(a)(*items) if hasattr(a, "_fields") else items
    if isinstance(a, list):
        return immutable_list(map_aggregate(elem, fn) for elem in a)
    if isinstance(a, dict):
        return immutable_dict((key, map_aggregate(value, fn)) for key, value in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Applies `fn` to each Node inside the argument structure `a`."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _format_arg(arg, max_list_len=float("inf")):
    """An argument as Graph.__str__ lists it: nodes as %name, strings bare."""
    if isinstance(arg, list):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"[{items}{more}]"
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"({items}{',' if len(arg) == 1 else ''}{more})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{key}: {_format_arg(value)}" for key, value in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    text = str(arg)
    # dtypes, layouts and memory formats print as tandem.X: graph listings name them torch.X, as generated code does
    return "torch." + text[len("tandem."):] if text.startswith("tandem.") and not isinstance(arg, str) else text


class ArgsKwargsPair(NamedTuple):
    args: tuple
    kwargs: dict


class Node:
    """One operation. ``op`` is placeholder, get_attr, call_function, call_method, call_module or output; ``target``
    is what it calls (a callable for call_function, a name otherwise). Nodes form a doubly linked list in their
    graph's order; ``users`` are the nodes that take this one as an argument."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in _LEGAL_OPS:
            raise AssertionError(f"op '{op}' is not in _legal_ops")
        if op == "call_function":
            if not callable(target):
                raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                                 f"{tandem.typename(target)} but a Callable is expected")
        elif op != "root" and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{tandem.typename(target)} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes = {}
        self.users = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta = {}
        self._args = ()
        self._kwargs = {}
        self._update_args_kwargs(args, kwargs)

    # ---- position in the graph ------------------------------------------------------------------------------------
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def prepend(self, x):
        """Moves node `x` to just before this one."""
        if self.graph is not x.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        if self is x:
            return
        x._remove_from_list()
        before = self._prev
        before._next, x._prev = x, before
        x._next, self._prev = self, x

    def append(self, x):
        """Moves node `x` to just after this one."""
        self._next.prepend(x)

    def _remove_from_list(self):
        before, after = self._prev, self._next
        before._next, after._prev = after, before
        self._prev = self._next = self

    # ---- arguments and users --------------------------------------------------------------------------------------
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, value):
        self._update_args_kwargs(value, self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value):
        self._update_args_kwargs(self._args, value)

    @property
    def all_input_nodes(self):
        """The nodes this one reads, each once, in the order they appear in args then kwargs."""
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        self.kwargs = {**self.kwargs, key: arg}

    def insert_arg(self, idx, arg):
        self.args = self.args[:idx] + (arg,) + self.args[idx:]

    def _update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        inputs = {}

        def register(n):
            inputs.setdefault(n)
            return n

        self._args = map_arg(tuple(new_args) if isinstance(new_args, list) else new_args, register)
        self._kwargs = map_arg(dict(new_kwargs), register)
        self._input_nodes = inputs
        for new in inputs:
            new.users.setdefault(self)

    @property
    def stack_trace(self):
        return self.meta.get("stack_trace", None)

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *, propagate_meta=False):
        """Makes every user of this node read `replace_with` instead; returns the users changed."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, propagate_meta=True), but "
                                     "replace_with already has .meta keys")
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if not delete_user_cb(user):
                continue
            user._replace_input(self, replace_with)
            changed.append(user)
        return changed

    def replace_input_with(self, old_input, new_input):
        """Makes this node read `new_input` wherever it read `old_input`."""
        self._replace_input(old_input, new_input)

    def _replace_input(self, old, new):
        def swap(n):
            return new if n is old else n

        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    # ---- queries --------------------------------------------------------------------------------------------------
    def is_impure(self, impure_random=True):
        """True for what dead-code elimination must keep: inputs, the output, side-effectful functions and modules
        marked ``_is_impure``."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_module":
            owner = self.graph.owning_module
            if owner is None:
                raise AssertionError("self.graph.owning_module not set for purity check")
            return bool(getattr(owner.get_submodule(self.target), "_is_impure", False))
        if self.op == "call_function":
            try:
                listed = self.target in _side_effectful_functions
            except TypeError:  # an unhashable callable object
                listed = False
            return listed or _is_mutating_operator(self.target)
        return False

    def normalized_arguments(self, root, arg_types=None, kwarg_types=None, normalize_to_only_use_kwargs=False):
        """The arguments bound to the target's Python signature with defaults filled in (None where the target has
        no readable signature, or for call_method / get_attr)."""
        if self.op == "call_function":
            target = self.target
        elif self.op == "call_module":
            target = root.get_submodule(self.target).forward
        else:
            return None
        try:
            signature = inspect.signature(inspect.unwrap(target))
            bound = signature.bind(*self.args, **self.kwargs)
        except (TypeError, ValueError):
            return None
        bound.apply_defaults()
        params = list(signature.parameters.values())
        if any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params):
            return None
        args, kwargs = [], {}
        for i, param in enumerate(params):  # what was positional stays positional unless asked otherwise
            if not normalize_to_only_use_kwargs and i < len(self.args):
                args.append(bound.arguments[param.name])
            else:
                kwargs[param.name] = bound.arguments[param.name]
        return ArgsKwargsPair(tuple(args), kwargs)

    # ---- printing -------------------------------------------------------------------------------------------------
    def __repr__(self):
        return self.name

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """This node as one line of Graph.__str__ (None for a placeholder when `placeholder_names` collects the
        signature instead)."""
        typename = f"{type_repr(self.type)} " if self.type is not None else ""
        if self.op == "placeholder":
            if placeholder_names:  # as PyTorch's: an empty list collects nothing, so graphs list placeholders
                placeholder_names.append(self.target + (f": {type_repr(self.type)}" if self.type else ""))
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={self.target}]{default}")
        if self.op == "get_attr":
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={pretty_target(self.target)}]")
        if self.op == "output":
            if self.type and maybe_return_typename:
                maybe_return_typename[0] = f" -> {type_repr(self.type)}"
            return f"return {self.args[0]}"
        return (f"%{self.name} : {typename}[num_users={len(self.users)}] = {self.op}[target="
                f"{pretty_target(self.target)}](args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")

    def _pretty_print_target(self, target):
        return pretty_target(target)


def _is_mutating_operator(target):
    """A tandem.ops operator whose schema writes an argument (PyTorch keeps those through dead-code elimination)."""
    from tandem._library.registry import OpOverload, OpOverloadPacket
    if isinstance(target, OpOverloadPacket):
        return any(_is_mutating_operator(op) for op in target._overloads.values())
    return isinstance(target, OpOverload) and any(a.type.is_write for a in target._schema.arguments)


# Callables PyTorch treats as side-effectful, present in tandem under the same names.
has_side_effect(operator.setitem)
for _name in ("_assert", "_assert_async"):
    if hasattr(tandem, _name):
        has_side_effect(getattr(tandem, _name))
for _name in ("_record_function_enter", "_record_function_exit"):  # the profiler's range operators
    _packet = getattr(tandem.ops.profiler, _name)
    has_side_effect(_packet)
    for _overload in _packet._overloads.values():
        has_side_effect(_overload)
del _name, _packet, _overload
__all__ += ["qualified_name"]
_get_qualified_name = qualified_name
