"""tandem.fx: PyTorch's FX toolkit for tandem programs. Symbolic tracing (``symbolic_trace``, ``Tracer``) records a
module's forward as a ``Graph`` of ``Node``s; a ``GraphModule`` runs that graph as generated Python code; the
``Interpreter`` and ``Transformer`` run or rewrite it node by node; ``replace_pattern`` rewrites subgraphs.
``wrap`` marks functions that tracing records as calls instead of tracing through them (docs/fx.md)."""
from . import node  # noqa: F401
from . import immutable_collections  # noqa: F401
from ._symbolic_trace import PH, Tracer, symbolic_trace, wrap  # noqa: F401
from .graph import Graph  # noqa: F401
from .graph_module import GraphModule  # noqa: F401
from .interpreter import Interpreter, Transformer  # noqa: F401
from .node import Node, has_side_effect, map_arg  # noqa: F401
from .proxy import Proxy  # noqa: F401
from .subgraph_rewriter import replace_pattern  # noqa: F401
from . import proxy, graph, graph_module, interpreter, subgraph_rewriter, passes, experimental, traceback  # noqa: F401,E402,E501

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter", "Transformer", "Node",
           "Proxy", "replace_pattern", "has_side_effect", "map_arg"]
