"""tandem.fx.passes: analyses and transformations of a GraphModule (shape_prop.ShapeProp, split_module)."""
from . import shape_prop, split_module  # noqa: F401
