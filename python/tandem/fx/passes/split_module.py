"""split_module(m, root_m, split_callback): cuts a traced GraphModule into submodules ``submod_<partition>``, one
per value `split_callback(node)` returns, and a top-level graph that calls them in dependency order, as PyTorch's
torch.fx.passes.split_module does. Placeholders and get_attr nodes stay at the top and are passed in; a partition
returns what other partitions or the output use (one value as itself, several as a tuple)."""
import inspect

from ..graph import Graph
from ..graph_module import GraphModule
from ..node import map_arg
from ..proxy import Proxy

__all__ = ["Partition", "split_module"]


class Partition:
    """One submodule in the making: its nodes, the values it takes and gives, the partitions it waits for."""

    def __init__(self, name):
        self.name = name
        self.submod_name = f"submod_{name}"
        self.node_names = []
        self.inputs = {}  # value name -> None, in order of first use
        self.outputs = {}
        self.dependencies = {}
        self.dependents = {}
        self.graph = Graph()
        self.environment = {}
        self.targets = {}

    def __repr__(self):
        return (f"name: {self.name},\n nodes: {self.node_names},\n inputs: {self.inputs},\n outputs: "
                f"{self.outputs},\n partitions depended on: {self.dependencies},\n partition dependents: "
                f"{self.dependents}")


def _assign_partitions(m, split_callback):
    partitions = {}
    for node in m.graph.nodes:
        if node.op in ("placeholder", "get_attr", "output"):
            continue
        name = str(split_callback(node))
        partition = partitions.get(name)
        if partition is None:
            partitions[name] = partition = Partition(name)
        partition.node_names.append(node.name)
        node._fx_partition = name
    return partitions


def _record_uses(m, partitions):
    """Every value crossing from one partition (or from the top: placeholders, get_attr) into another."""

    def record(def_node, use_node):
        defined = getattr(def_node, "_fx_partition", None)
        used = getattr(use_node, "_fx_partition", None)
        if defined == used:
            return
        if defined is not None:
            partitions[defined].outputs.setdefault(def_node.name)
            if used is not None:
                partitions[defined].dependents.setdefault(used)
        if used is not None:
            partitions[used].inputs.setdefault(def_node.name)
            if defined is not None:
                partitions[used].dependencies.setdefault(defined)

    for node in m.graph.nodes:
        for used in node.all_input_nodes:
            record(used, node)


def _sorted_partition_names(partitions):
    """Partitions in an order where each comes after those it depends on (PyTorch's: a stack of ready ones)."""
    waiting = {name: dict(p.dependencies) for name, p in partitions.items()}
    ready = [name for name, deps in waiting.items() if not deps]
    order = []
    while ready:
        name = ready.pop()
        order.append(name)
        for dependent in partitions[name].dependents:
            waiting[dependent].pop(name)
            if not waiting[dependent]:
                ready.append(dependent)
    if len(order) != len(partitions):
        raise RuntimeError("cycle exists between partitions!")
    return order


def _fill_partition(m, partition, nodes_by_name, qualname_map, keep_names):
    for name in partition.inputs:
        original = nodes_by_name[name]
        placeholder = partition.graph.placeholder(name, type_expr=original.type)
        placeholder.meta = original.meta.copy()
        partition.environment[original] = placeholder
    for name in partition.node_names:
        node = nodes_by_name[name]
        args = map_arg(node.args, lambda n: partition.environment[n])
        kwargs = map_arg(node.kwargs, lambda n: partition.environment[n])
        target = node.target
        if node.op == "call_module":
            obj = m
            for atom in node.target.split("."):
                if not hasattr(obj, atom):
                    raise AttributeError(f"Operator target {node.target} not found!")
                obj = getattr(obj, atom)
            target = node.target.replace(".", "_")  # a submodule's child, flat: seq.0 -> seq_0
            partition.targets[target] = obj
            if qualname_map is not None:
                qualname_map[f"{partition.submod_name}.{target}"] = node.target
        new_node = partition.graph.create_node(op=node.op, target=target, args=args, kwargs=kwargs,
                                               type_expr=node.type, name=node.name if keep_names else None)
        new_node.meta = node.meta.copy()
        partition.environment[node] = new_node
    values = tuple(partition.environment[nodes_by_name[name]] for name in partition.outputs)
    partition.graph.output(values[0] if len(values) == 1 else values)


def split_module(m, root_m, split_callback, qualname_map=None, keep_original_order=False,
                 keep_original_node_name=False, keep_original_input_name=True, partition_affix=None):
    """A GraphModule that calls one submodule per partition of `m`'s nodes (`split_callback(node)` names a node's
    partition); `qualname_map`, when given, is filled with submodule paths -> their paths in `m`."""
    if keep_original_order:
        raise NotImplementedError("split_module(keep_original_order=True) is not supported by tandem.fx")
    nodes_by_name = {n.name: n for n in m.graph.nodes}
    partitions = _assign_partitions(m, split_callback)
    try:
        _record_uses(m, partitions)
        order = _sorted_partition_names(partitions)
        base_graph = Graph()
        base_env = {}
        base_attrs = {}
        for node in m.graph.nodes:
            if node.op == "placeholder":
                default = node.args[0] if node.args else inspect.Signature.empty
                base_env[node.name] = base_graph.placeholder(node.target, type_expr=node.type, default_value=default)
                base_env[node.name].meta = node.meta.copy()
            elif node.op == "get_attr":
                base_env[node.name] = base_graph.get_attr(node.target)
                base_env[node.name].meta = node.meta.copy()
                obj = m
                for atom in node.target.split("."):
                    if not hasattr(obj, atom):
                        raise AttributeError(f"Node target {node.target} not found!")
                    obj = getattr(obj, atom)
                base_attrs[node.target] = obj
        for name in order:
            partition = partitions[name]
            _fill_partition(m, partition, nodes_by_name, qualname_map, keep_original_node_name)
            base_attrs[partition.submod_name] = GraphModule(partition.targets, partition.graph)
            call = base_graph.call_module(partition.submod_name, tuple(base_env[i] for i in partition.inputs))
            if len(partition.outputs) > 1:
                result = Proxy(call)
                for i, output_name in enumerate(partition.outputs):
                    base_env[output_name] = result[i].node
            elif len(partition.outputs) == 1:
                base_env[next(iter(partition.outputs))] = call
        output = next(n for n in m.graph.nodes if n.op == "output")
        base_graph.output(map_arg(output.args[0], lambda n: base_env[n.name]))
        return GraphModule(base_attrs, base_graph)
    finally:
        for node in m.graph.nodes:
            if hasattr(node, "_fx_partition"):
                del node._fx_partition
