"""tandem._higher_order_ops: where PyTorch keeps its structured control flow (cond, while_loop, associative_scan),
run eagerly here (tandem has no graph compiler)."""
from .._control_flow import cond, while_loop  # noqa: F401
from .associative_scan import associative_scan  # noqa: F401

__all__ = ["associative_scan", "cond", "while_loop"]
