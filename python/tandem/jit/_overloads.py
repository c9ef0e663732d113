"""torch.jit._overload / _overload_method: TorchScript's overload declarations (timm 0.3's DenseNet and
torchvision-era models declare `forward` overloads with them). Outside the compiler PyTorch only checks that a
declaration's body is `pass` or `...`, records it and returns the function, so the plain definition that follows
wins; tandem does the same."""
import ast
import inspect
import textwrap
import warnings

_overloaded_fns = {}      # qualified name -> declarations
_overloaded_methods = {}  # qualified name -> {class name: declarations}


def _qualified_name(func):
    return f"{func.__module__}.{func.__qualname__}"


def _check_overload_body(func, kind):
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):  # no source to read: PyTorch warns and lets it pass
        warnings.warn(f"Unable to retrieve source for @torch.jit.{kind} function: {func}.", stacklevel=3)
        return
    definition = next(node for node in ast.parse(source).body
                      if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    body = definition.body
    only_pass = len(body) == 1 and (isinstance(body[0], ast.Pass) or (
        isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and body[0].value.value is ...))
    if not only_pass:
        head = "\n".join(source.split("\n")[:3])
        raise RuntimeError("Only `pass` statement or `...` can be the body of overload declaration:\n"
                           f"{head} <- Expecting `pass` or `...` here!\n"
                           "hint: declare each overload with a body of `...`, then define the function itself after "
                           "them")


def _overload(func):
    _check_overload_body(func, "_overload")
    _overloaded_fns.setdefault(_qualified_name(func), []).append(func)
    return func


def _overload_method(func):
    _check_overload_body(func, "_overload_method")
    class_name = func.__qualname__.rpartition(".")[0].rpartition(".")[2]
    _overloaded_methods.setdefault(_qualified_name(func), {}).setdefault(class_name, []).append(func)
    return func
