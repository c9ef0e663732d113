"""replace_pattern(gm, pattern, replacement): finds every non-overlapping occurrence of `pattern`'s graph (its
operations and their data dependencies; its inputs match any value) in gm's graph and puts `replacement`'s graph in
its place. Patterns are small, so the matcher backtracks freely over them."""
from typing import NamedTuple

from .graph import _has_path
from .graph_module import GraphModule, _copy_attr
from .node import Node

__all__ = ["Match", "ReplacedPatterns", "replace_pattern", "replace_pattern_with_filters"]


class Match(NamedTuple):
    anchor: Node  # the pattern node the match was grown from
    nodes_map: dict  # pattern node -> graph node


class ReplacedPatterns(NamedTuple):
    anchor: Node
    nodes_map: dict
    replacements: list  # the nodes inserted in place of the match


class _InternalMatch:
    def __init__(self, anchors):
        self.anchors = anchors
        self.nodes_map = {}
        self.placeholder_nodes = []
        self.returning_nodes = []

    def copy(self):
        other = _InternalMatch(self.anchors)
        other.nodes_map = dict(self.nodes_map)
        return other


class _SubgraphMatcher:
    """Matches a pattern graph's non-placeholder nodes, starting from the nodes its output returns."""

    def __init__(self, pattern, ignore_literals=False):
        self.pattern = pattern
        self.ignore_literals = ignore_literals
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]
        output = next(n for n in reversed(pattern.nodes) if n.op == "output")
        returned = output.args[0]
        self.returning = list(returned) if isinstance(returned, (tuple, list)) else [returned]
        self.anchors = self.returning

    def _nodes_equal(self, pn, gn):
        if pn.op == "placeholder":
            return True  # a pattern input stands for any value
        return pn.op == gn.op and (pn.op == "output" or pn.target == gn.target)

    def _match_args(self, pa, ga, match):
        if isinstance(pa, (list, tuple)) and isinstance(ga, (list, tuple)):
            return len(pa) == len(ga) and all(self._match_args(p, g, match) for p, g in zip(pa, ga))
        if isinstance(pa, dict) and isinstance(ga, dict):
            return pa.keys() == ga.keys() and all(self._match_args(pa[k], ga[k], match) for k in pa)
        if isinstance(pa, Node) and isinstance(ga, Node):
            return self._match_nodes(pa, ga, match)
        if isinstance(pa, Node) and pa.op == "placeholder":  # a pattern input may stand for a literal too
            if pa in match.nodes_map:
                return match.nodes_map[pa] == ga
            match.nodes_map[pa] = ga
            return True
        if isinstance(pa, Node) or isinstance(ga, Node):
            return False
        return self.ignore_literals or type(pa) is type(ga) and pa == ga

    def _match_nodes(self, pn, gn, match):
        if pn in match.nodes_map:
            return match.nodes_map[pn] is gn
        if pn.op != "placeholder" and any(gn is other for other in match.nodes_map.values()):
            return False  # each graph node stands for one pattern node
        if not self._nodes_equal(pn, gn):
            return False
        saved = dict(match.nodes_map)
        match.nodes_map[pn] = gn
        if pn.op == "placeholder":
            return True
        if self._match_args(pn.args, gn.args, match) and self._match_args(pn.kwargs, gn.kwargs, match):
            return True
        match.nodes_map = saved
        return False

    def _is_contained(self, nodes_map):
        """Nodes inside the match (not its inputs, not what it returns) must not be used outside it."""
        matched = {gn for pn, gn in nodes_map.items() if pn.op != "placeholder"}
        for pn, gn in nodes_map.items():
            if pn.op == "placeholder" or pn in self.returning:
                continue
            if any(user not in matched for user in gn.users):
                return False
        return True

    def match(self, graph):
        candidates = [(anchor, [n for n in graph.nodes if n.op not in ("placeholder", "output")
                                and self._nodes_equal(anchor, n)]) for anchor in self.anchors]
        matches = []
        # Backtracking over the anchors (a pattern returns few values), as an explicit stack of partial matches.
        stack = [(0, _InternalMatch(self.anchors))]
        while stack:
            index, match = stack.pop()
            if index == len(candidates):
                match.placeholder_nodes = [match.nodes_map.get(pn) for pn in self.placeholders]
                match.returning_nodes = [match.nodes_map[pn] for pn in self.returning]
                matches.append(match)
                continue
            anchor, nodes = candidates[index]
            for node in reversed(nodes):  # reversed onto the stack: graph order when popped
                attempt = match.copy()
                if self._match_nodes(anchor, node, attempt):
                    stack.append((index + 1, attempt))
        matches = [m for m in matches if self._is_contained(m.nodes_map)]
        kept, used = [], set()
        for m in matches:
            nodes = {gn for pn, gn in m.nodes_map.items() if pn.op not in ("placeholder", "output")}
            if nodes & used:
                continue
            kept.append(m)
            used |= nodes
        return kept


def _graph_of(obj):
    from ._symbolic_trace import symbolic_trace
    return obj.graph if isinstance(obj, GraphModule) else symbolic_trace(obj).graph


def _insert_point(graph, match):
    """Before the first user of what the match returns (or, with no users, after its last returning node)."""
    users = set()
    for n in match.returning_nodes:
        users.update(n.users)
    for n in graph.nodes:
        if n in users:
            return n
    following = None
    for n in reversed(graph.nodes):
        if n in match.returning_nodes:
            return following
        following = n
    return None


def _replace(gm, pattern, replacement, match_filters=None, ignore_literals=False):
    graph = gm.graph
    pattern_graph = _graph_of(pattern)
    replacement_graph = _graph_of(replacement)
    matcher = _SubgraphMatcher(pattern_graph, ignore_literals)
    matches = matcher.match(graph)
    matches = [m for m in matches if all(f(m, graph, pattern_graph) for f in (match_filters or []))]
    replacement_placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    changed = {}  # a returning node already replaced by an earlier match -> its replacement
    results = []
    for match in matches:
        if len(match.placeholder_nodes) != len(replacement_placeholders):
            raise AssertionError("the pattern and the replacement must take the same number of inputs")
        val_map = {}
        for rn, gn in zip(replacement_placeholders, match.placeholder_nodes):
            val_map[rn] = changed.get(gn, gn) if isinstance(gn, Node) else gn
        with graph.inserting_before(_insert_point(graph, match)):
            copied = graph.graph_copy(replacement_graph, val_map)
        if isinstance(copied, Node):
            copied = (copied,)
        inputs = set(val_map[rn] for rn in replacement_placeholders if isinstance(val_map[rn], Node))
        inserted = [v for k, v in val_map.items() if k.op != "placeholder" and v not in inputs]
        if len(match.returning_nodes) != len(copied):
            raise AssertionError("the pattern and the replacement must return the same number of values")
        for gn, new in zip(match.returning_nodes, copied):
            gn.replace_all_uses_with(new)
            changed[gn] = new
        for pn in reversed(pattern_graph.nodes):
            if pn.op not in ("placeholder", "output"):
                graph.erase_node(match.nodes_map[pn])
        results.append(ReplacedPatterns(match.anchors[0], match.nodes_map, inserted))
    gm.recompile()
    if hasattr(replacement, "named_modules"):  # a Module replacement: install what its nodes refer to
        for node in graph.nodes:
            if (node.op in ("get_attr", "call_module") and not _has_path(gm, node.target)
                    and _has_path(replacement, node.target)):
                _copy_attr(replacement, gm, node.target)
    return results


def replace_pattern(gm, pattern, replacement):
    """Replaces each non-overlapping match of `pattern` (a function or GraphModule) in gm's graph with
    `replacement`; recompiles gm and returns the Matches (pattern anchor, pattern node -> graph node)."""
    return [Match(anchor=m.anchor, nodes_map=m.nodes_map) for m in _replace(gm, pattern, replacement)]


def replace_pattern_with_filters(gm, pattern, replacement=None, match_filters=None, ignore_literals=False,
                                 replacement_callback=None, node_name_match=""):
    """replace_pattern keeping only the matches every `match_filters(match, graph, pattern_graph)` accepts."""
    if replacement is None:
        raise NotImplementedError("replacement_callback is not supported by tandem.fx; pass a replacement")
    return _replace(gm, pattern, replacement, match_filters, ignore_literals)

