"""fx.Graph: an ordered list of Nodes (placeholders, operations, one output) with the editing API PyTorch's FX
has: an insertion point, node creation, copying, erasing, dead-code elimination, a consistency check (lint), and
its two printed forms (``str(graph)`` and ``print_tabular``)."""
import contextlib
import copy
import inspect
import warnings

from . import _codegen
from ._namespace import Namespace, snake_case
from .node import _LEGAL_OPS, Node, map_arg

__all__ = ["Graph", "PythonCode"]
PythonCode = _codegen.PythonCode


class _NodeList:
    """graph.nodes: a live view in graph order. Iteration steps past nodes erased meanwhile, so a loop may erase
    the node it is on."""

    def __init__(self, graph, reverse=False):
        self._graph = graph
        self._reverse = reverse

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        step = "_prev" if self._reverse else "_next"
        cur = getattr(root, step)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, step)

    def __reversed__(self):
        return iter(_NodeList(self._graph, not self._reverse))


class _InsertPoint:
    """Where create_node puts new nodes; restored on leaving the ``with`` block (it takes effect at once)."""

    def __init__(self, graph, insert):
        self._graph = graph
        self._previous, graph._insert = graph._insert, insert

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc, tb):
        self._graph._insert = self._previous


class Graph:
    """The intermediate representation FX works on. Build one by tracing (``Tracer().trace(module)``) or by hand
    (``placeholder``, ``call_function``, ..., ``output``)."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._body_transformer = None  # on_generate_code's: rewrites the body lines of generated code

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, module):
        self._owning_module = module

    @property
    def nodes(self):
        return _NodeList(self)

    def find_nodes(self, *, op, target=None, sort=True):
        """The nodes with this op (and target), in graph order."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---- insertion point and creation -----------------------------------------------------------------------------
    def inserting_before(self, n=None):
        """New nodes go just before `n` (at the start of the graph when None), in a ``with`` block."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        """New nodes go just after `n` (at the end of the graph when None). As in PyTorch, each new node goes right
        after `n`, so nodes created in turn end up in reverse order."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def _target_to_str(self, target):
        if callable(target):
            op = target.__name__
        else:
            op = target
            if op.startswith("__") and op.endswith("__"):
                op = op[2:-2]
        return snake_case(op)

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Creates a node at the insertion point, named `name` or after its target (made unique)."""
        if op not in _LEGAL_OPS or op == "root":
            raise AssertionError(f"op '{op}' is not in _legal_ops")
        # empty ones of any kind stand for none, as in PyTorch
        if not args:
            args = ()
        elif not isinstance(args, tuple):
            raise AssertionError(f"args must be a tuple, got {type(args)}")
        if not kwargs:
            kwargs = {}
        elif not isinstance(kwargs, dict):
            raise AssertionError(f"kwargs must be a dict, got {type(kwargs)}")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        node = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, node)
        self._insert(node)
        self._len += 1
        return node

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        if self.owning_module is not None and not _has_path(self.owning_module, qualified_name):
            warnings.warn("Attempted to insert a get_attr Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule, "
                          "GraphModule.add_parameter to add the necessary Parameter, or nn.Module.register_buffer "
                          "to add the necessary buffer", stacklevel=2)
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        # get_submodule raises for a missing path (PyTorch's AttributeError); the warning is for a None entry
        if self.owning_module is not None and self.owning_module.get_submodule(module_name) is None:
            warnings.warn("Attempted to insert a call_module Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule", stacklevel=2)
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr=None):
        return self.create_node(op="output", target="output", args=(result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """A copy of `node` (of any graph) at the insertion point, its node arguments mapped by `arg_transform`."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        copied = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        copied.meta = copy.copy(node.meta)
        return copied

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copies the nodes of `g` into this graph (val_map: g's nodes -> ours, filled in); returns what g's output
        returns, mapped, without copying the output node."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                result = map_arg(node.args[0], lambda n: val_map[n])
                return (result, node) if return_output_node else result
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        copied = Graph(tracer_cls=self._tracer_cls)
        result = copied.graph_copy(self, val_map={}, return_output_node=True)
        copied._body_transformer = self._body_transformer
        if result is not None:
            value, old_output = result
            new_output = copied.output(value, type_expr=getattr(old_output, "type", None))
            new_output.meta = copy.copy(old_output.meta)
        return copied

    # ---- removal and checks ---------------------------------------------------------------------------------------
    def erase_node(self, to_erase):
        """Removes a node nothing uses any more."""
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users in the "
                               f"graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            warnings.warn(f"erase_node({to_erase}) on an already erased node")
            return
        before, after = to_erase._prev, to_erase._next
        before._next, after._prev = after, before  # to_erase keeps its links, so a loop over nodes steps on
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs(map_arg(to_erase._args, lambda n: None),
                                     map_arg(to_erase._kwargs, lambda n: None))

    def eliminate_dead_code(self, is_impure_node=None):
        """Erases the nodes whose results nothing uses and that have no side effect; True if any went."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and not node.users:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self):
        """Checks that every node belongs here, reads only values defined before it, has a unique name, and (with
        an owning module) that its get_attr / call_module targets exist."""
        seen_values, seen_names = set(), set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node.op not in _LEGAL_OPS:
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to this Graph, but was used "
                                       "as an argument! If you are copying nodes from another graph, make sure to "
                                       f"use ``arg_transform`` on node_copy() to remap values\n{self}")
                if arg not in seen_values:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been defined! "
                                       f"Please check that Nodes in the graph are topologically ordered\n{self}")
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_values.add(node)
            seen_names.add(node.name)
        if self.owning_module is None:
            return
        for node in self.nodes:
            if node.op in ("get_attr", "call_module"):
                self._check_target(node)

    def _check_target(self, node):
        if not isinstance(node.target, str):
            raise ValueError(f"Node {node} target {node.target} has type {type(node.target).__name__} but a str is "
                             "expected")
        import tandem
        obj = self.owning_module
        atoms = node.target.split(".")
        for i, atom in enumerate(atoms):
            # each level on the path must exist, and for call_module be a Module (a None entry counts as missing)
            nxt = getattr(obj, atom, None)
            seen = ".".join(atoms[:i])
            if nxt is None:
                raise RuntimeError(f"Node {node} target {node.target} references nonexistent attribute {atom} of "
                                   f"{seen}")
            if node.op == "call_module" and not isinstance(nxt, tandem.nn.Module):
                raise RuntimeError(f"Node {node} target {node.target} {atom} of {seen} does not reference an "
                                   "nn.Module")
            obj = nxt

    # ---- printing and code ----------------------------------------------------------------------------------------
    def __str__(self):
        placeholder_names = []
        return_typename = [""]
        lines = [node.format_node(placeholder_names, return_typename) for node in self.nodes]
        text = f"graph({', '.join(placeholder_names)}){return_typename[0]}:"
        for line in lines:
            if line:
                text += "\n    " + line
        return text

    def print_tabular(self):
        """Prints the nodes as a table (opcode, name, target, args, kwargs); needs the `tabulate` package."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found on this machine. Run "
                  "`pip install tabulate` to install the library.")
            raise
        rows = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))

    def python_code(self, root_module, *, verbose=False, include_stride=False, include_device=False,
                    colored=False):
        """The Python source of this graph as a ``forward`` (and the globals it runs with)."""
        return _codegen.python_code(self, root_module, verbose=verbose, body_transformer=self._body_transformer)

    def on_generate_code(self, make_transformer):
        """Installs ``make_transformer(current)``, a function that rewrites the list of body lines of the code
        generated from now on; returns a context manager that puts the previous one back on exit."""
        previous = self._body_transformer
        self._body_transformer = make_transformer(previous)
        graph = self

        @contextlib.contextmanager
        def restore_on_exit():
            try:
                yield
            finally:
                graph._body_transformer = previous

        return restore_on_exit()

    def process_inputs(self, *args):
        return args

    def process_outputs(self, out):
        return out


def _has_path(module, qualified_name):
    obj = module
    for atom in qualified_name.split("."):
        if not hasattr(obj, atom):
            return False
        obj = getattr(obj, atom)
    return True
