"""fuse(model): folds each eval-mode BatchNorm into the convolution or linear layer that feeds it (and only it),
on the traced graph, as torch.fx.experimental.optimization.fuse."""
import copy

from tandem import nn
from tandem.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

from ..graph_module import GraphModule
from ..node import Node
from .._symbolic_trace import symbolic_trace

__all__ = ["fuse", "matches_module_pattern", "replace_node_module"]

_PATTERNS = [(nn.Conv1d, nn.BatchNorm1d), (nn.Conv2d, nn.BatchNorm2d), (nn.Conv3d, nn.BatchNorm3d),
             (nn.Linear, nn.BatchNorm1d)]


def _parent_name(target):
    """'a.b.c' -> ('a.b', 'c')."""
    parent, _, name = target.rpartition(".")
    return parent, name


def matches_module_pattern(pattern, node, modules):
    """True when `node` and its first argument are call_module nodes of exactly the pattern's two types."""
    if len(node.args) == 0:
        return False
    for expected_type, current in zip(pattern, (node.args[0], node)):
        if not isinstance(current, Node) or current.op != "call_module" or not isinstance(current.target, str):
            return False
        if current.target not in modules or type(modules[current.target]) is not expected_type:
            return False
    return True


def replace_node_module(node, modules, new_module):
    """Installs `new_module` where the call_module `node` points."""
    parent_name, name = _parent_name(node.target)
    modules[node.target] = new_module
    setattr(modules[parent_name], name, new_module)


def fuse(model, inplace=False, no_trace=False):
    """A GraphModule computing what the eval-mode `model` does, with Conv/Linear + BatchNorm pairs merged."""
    if not inplace:
        model = copy.deepcopy(model)
    if not no_trace or not isinstance(model, GraphModule):
        fx_model = symbolic_trace(model)
    else:
        fx_model = model
    modules = dict(fx_model.named_modules())
    new_graph = copy.deepcopy(fx_model.graph)
    for pattern in _PATTERNS:
        for node in new_graph.nodes:
            if not matches_module_pattern(pattern, node, modules):
                continue
            if len(node.args[0].users) > 1:  # the layer's output is needed unnormalised elsewhere
                continue
            first_layer = modules[node.args[0].target]
            bn = modules[node.target]
            if not bn.track_running_stats:
                continue
            if pattern[0] is nn.Linear:
                fused = fuse_linear_bn_eval(first_layer, bn)
            else:
                fused = fuse_conv_bn_eval(first_layer, bn)
            replace_node_module(node.args[0], modules, fused)
            node.replace_all_uses_with(node.args[0])
            new_graph.erase_node(node)
    return GraphModule(fx_model, new_graph)


