"""tandem._dynamo.explain: PyTorch's report of how torch.compile would split a function into graphs. tandem
compiles nothing (tandem.compiler), so the function runs eagerly, once, as PyTorch's explain runs it once, and the
report says what tandem made of it: no graphs, hence no graph breaks, no ops captured and no guards. Scripts that
check `graph_break_count == 0` before compiling (PyTorch Geometric's tests do) read the truth for tandem."""
import dataclasses
import warnings

__all__ = ["ExplainOutput", "explain"]


@dataclasses.dataclass
class ExplainOutput:
    """What explain(f)(*args) returns (PyTorch's fields, in its order)."""

    graphs: list
    graph_count: int
    graph_break_count: int
    break_reasons: list
    op_count: int
    ops_per_graph: list = None
    out_guards: list = None
    compile_times: str = None

    def __str__(self):
        # PyTorch's layout: counts, then one indented block per break reason, graph and guard.
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for number, reason in enumerate(self.break_reasons, 1):
            lines += [f"  Break Reason {number}:", f"    Reason: {reason.reason}", "    User Stack:"]
            lines += [f"      {frame}" for frame in reason.user_stack]
        if self.ops_per_graph is not None:
            lines.append("Ops per Graph:")
            for number, ops in enumerate(self.ops_per_graph, 1):
                lines += [f"  Ops {number}:"] + [f"    {op}" for op in ops]
        if self.out_guards is not None:
            lines.append("Out Guards:")
            for number, guard in enumerate(self.out_guards, 1):
                lines += [f"  Guard {number}:", f"    {guard}"]
        if self.compile_times is not None:
            lines.append(f"Compile Times: {self.compile_times}")
        return "\n".join(lines) + "\n"


def explain(f, *extra_args, **extra_kwargs):
    """explain(f)(*args, **kwargs): runs f(*args, **kwargs) and returns an ExplainOutput. The older form
    explain(f, *args, **kwargs) still runs at once, with PyTorch's FutureWarning."""
    def inner(*args, **kwargs):
        f(*args, **kwargs)
        return ExplainOutput(graphs=[], graph_count=0, graph_break_count=0, break_reasons=[], op_count=0,
                             ops_per_graph=[], out_guards=[], compile_times="")

    if extra_args or extra_kwargs:
        warnings.warn("explain(f, *args, **kwargs) is deprecated, use explain(f)(*args, **kwargs) instead.  If you "
                      "don't migrate, we may break your explain call in the future if your user defined kwargs "
                      "conflict with future kwargs added to explain(f).", FutureWarning, stacklevel=2)
        return inner(*extra_args, **extra_kwargs)
    return inner
