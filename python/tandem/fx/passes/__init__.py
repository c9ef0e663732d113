"""tandem.fx.passes: analyses that run over a GraphModule (shape_prop.ShapeProp)."""
from . import shape_prop  # noqa: F401
