"""How PyTorch's Python-level nn.functional functions reach __torch_function__, so traced graphs record the same
call: they pass their required parameters positionally and every parameter with a default as a keyword, with its
value (``F.relu(x)`` arrives as ``relu(x, inplace=False)``); PyTorch's C functions (F.conv2d, F.linear, F.gelu)
arrive as called, and F.tanh / F.sigmoid are ``input.tanh()`` / ``input.sigmoid()``. tandem's dispatch hands a
handler the arguments as the caller gave them (docs/compat.md, "__torch_function__"), so the tracer re-spells them."""
import inspect
import sys

# Python functions of PyTorch's nn.functional that are a Tensor method call, not a dispatched function.
_AS_METHODS = {"tanh": "tanh", "sigmoid": "sigmoid"}


def _functional_name(fn):
    """The name of `fn` in tandem.nn.functional when it is that module's function, else None."""
    functional = sys.modules.get("tandem.nn.functional")
    name = getattr(fn, "__name__", None)
    if functional is None or not isinstance(name, str) or getattr(functional, name, None) is not fn:
        return None
    return name


def as_pytorch_records(fn, args, kwargs):
    """(op, target, args, kwargs) for a call of `fn` as PyTorch's tracer records it."""
    name = _functional_name(fn)
    if name is None:
        return "call_function", fn, args, kwargs
    if name in _AS_METHODS and len(args) == 1 and not kwargs:
        return "call_method", _AS_METHODS[name], args, kwargs
    builtins_module = sys.modules.get("tandem._builtin_functions")
    if name in getattr(builtins_module, "_FUNCTIONAL_BUILTINS", ()):
        return "call_function", fn, args, kwargs
    try:
        signature = inspect.signature(inspect.unwrap(fn))
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return "call_function", fn, args, kwargs  # no Python signature (a C++ function) or a bad call: as given
    bound.apply_defaults()
    positional, keywords = [], {}
    for pname, param in signature.parameters.items():
        if param.kind is param.VAR_POSITIONAL:
            positional.extend(bound.arguments.get(pname, ()))
        elif param.kind is param.VAR_KEYWORD:
            keywords.update(bound.arguments.get(pname, {}))
        elif param.default is param.empty and param.kind is not param.KEYWORD_ONLY:
            positional.append(bound.arguments[pname])
        else:
            keywords[pname] = bound.arguments[pname]
    return "call_function", fn, tuple(positional), keywords
