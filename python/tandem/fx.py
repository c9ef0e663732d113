"""tandem.fx: only ``wrap``, the leaf-function registration libraries call at import time (timm decorates its
layer helpers with ``@torch.fx.wrap``). tandem has no FX symbolic tracing; ``wrap`` records the name as
PyTorch does, so a program that merely marks its functions runs, and any other name of torch.fx raises an
AttributeError that says so."""
import inspect

# (id of the module globals, function name) -> those globals: what a tracer would patch, as PyTorch keeps it
_wrapped_fns_to_patch = {}


def wrap(fn_or_name):
    """Registers a module-level function (or its name) as an FX leaf and returns the argument unchanged."""
    if callable(fn_or_name):
        fn_name = fn_or_name.__name__
    elif isinstance(fn_or_name, str):
        fn_name = fn_or_name
    else:
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    caller = inspect.currentframe().f_back
    try:
        if caller.f_code.co_name != "<module>":
            raise NotImplementedError("wrap must be called at the top level of a module")
        _wrapped_fns_to_patch[(id(caller.f_globals), fn_name)] = caller.f_globals
    finally:
        del caller  # a frame held in a local keeps the importing stack alive until the next collection
    return fn_or_name


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(f"module 'tandem.fx' has no attribute '{name}'")
    raise AttributeError(f"module 'tandem.fx' has no attribute '{name}'\nhint: tandem has no FX symbolic tracing "
                         "(symbolic_trace, GraphModule, Tracer, Interpreter); tandem.fx has only wrap "
                         "(docs/compat.md)")
