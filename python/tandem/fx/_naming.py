"""How FX writes the things a graph refers to: the dotted name of a target function ("torch.relu",
"operator.add", "__main__.helper"), of a type annotation ("torch.Tensor") and of a module target
(``getattr(self.seq, "0")``). tandem's public functions print under ``torch.``, as PyTorch's do: generated code runs
with ``torch`` bound to tandem, so a graph's text and code read the same in both libraries."""
import builtins
import sys

import tandem

# The public namespaces a tandem function can be reached by, most specific last: the first that holds the function
# under its own name gives its printed module, as PyTorch prints torch.relu and torch.nn.functional.relu.
_PUBLIC_MODULES = ("tandem", "tandem.nn.functional", "tandem.linalg", "tandem.special", "tandem.fft", "tandem.nn.init")


# Functions PyTorch defines in torch/functional.py (torch.einsum.__module__ is 'torch.functional'): its graphs and
# code name them torch.functional.X, and tandem.functional holds the same functions.
_TORCH_FUNCTIONAL_NAMES = frozenset({
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors",
    "cartesian_prod", "cdist", "chain_matmul", "einsum", "lu", "meshgrid", "norm", "split", "stft", "tensordot",
    "unique", "unique_consecutive", "unravel_index"})


# nn.functional functions that are PyTorch's torch.X itself (F.conv2d is torch.conv2d): PyTorch's graphs name
# them torch.X, and tandem.X computes the same. (Its other C functions live in torch._C._nn, which tandem has few of:
# those keep the torch.nn.functional.X spelling.)
_FUNCTIONAL_IS_TOP_LEVEL = frozenset({
    "adaptive_avg_pool1d", "avg_pool1d", "bilinear", "celu_", "channel_shuffle", "conv1d", "conv2d", "conv3d",
    "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_similarity", "hardshrink",
    "native_channel_shuffle", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_",
    "rrelu_", "selu_", "threshold_"})


def torch_spelling(module_name):
    """'tandem.nn.functional' -> 'torch.nn.functional': the name a tandem module has in generated code."""
    if module_name == "tandem" or module_name.startswith("tandem."):
        return "torch" + module_name[len("tandem"):]
    return module_name


def _reachable(module_name):
    """The object generated code reaches as `module_name` (its torch.X spelling) through attributes from tandem:
    not always the module of that name (tandem._assert_async is a function)."""
    obj = tandem
    for part in module_name.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _tandem_module_of(obj, name):
    """The public tandem module that holds `obj` under `name` (reachable by attributes from tandem), or None."""
    declared = getattr(obj, "__module__", None)
    candidates = list(_PUBLIC_MODULES)
    if name in _TORCH_FUNCTIONAL_NAMES:
        candidates.insert(0, "tandem.functional")
    if isinstance(declared, str) and (declared == "tandem" or declared.startswith("tandem.")):
        candidates.append(declared)
    for module_name in candidates:
        if module_name in sys.modules and getattr(_reachable(module_name), name, None) is obj:
            return module_name
    return None


def _operator_name(obj):
    """'torch.ops.aten.relu' / 'torch.ops.mylib.crop.default' for tandem's operators (tandem.ops), else None."""
    from tandem._library.registry import OpOverload, OpOverloadPacket
    if isinstance(obj, OpOverloadPacket):
        return f"torch.ops.{obj._namespace}.{obj._opname}"
    if isinstance(obj, OpOverload):
        return f"torch.ops.{obj._namespace}.{obj._opname}.{obj._overloadname}"
    return None


def is_from_tandem(obj):
    """True for a function or object that generated code reaches through the `torch` global."""
    if obj is tandem or _operator_name(obj) is not None:
        return True
    name = getattr(obj, "__name__", None)
    return isinstance(name, str) and _tandem_module_of(obj, name) is not None


def qualified_name(func):
    """The dotted name PyTorch gives a call_function target: builtins by their bare name, operator functions as
    'operator.add', tandem's as 'torch.X', any other as 'its.module.name'."""
    operator_name = _operator_name(func)
    if operator_name is not None:
        return operator_name
    name = getattr(func, "__name__", None)
    if name is None:
        raise RuntimeError(f"Unable to represent {func!r} by a qualified name")
    if getattr(builtins, name, None) is func:
        return name
    if getattr(tandem.Tensor, name, None) is func:
        return f"torch.Tensor.{name}"
    tandem_module = _tandem_module_of(func, name)
    if tandem_module == "tandem.nn.functional" and name in _FUNCTIONAL_IS_TOP_LEVEL and hasattr(tandem, name):
        return f"torch.{name}"
    if tandem_module is not None:
        return f"{torch_spelling(tandem_module)}.{name}"
    module = getattr(func, "__module__", None) or "builtins"
    return f"{torch_spelling(module)}.{name}"  # operator.abs stays '_operator.abs', as in PyTorch's code


def pretty_target(target):
    """A target as Graph.__str__ and print_tabular-style listings show it."""
    if isinstance(target, str):
        return target
    name = getattr(target, "__name__", None)
    module = getattr(target, "__module__", None)
    if name is not None and module == "builtins" and getattr(builtins, name, None) is target:
        return f"builtins.{name}"
    if name is not None and module == "_operator":
        return f"operator.{name}"
    return qualified_name(target)


def type_repr(obj):
    """A type annotation as it appears in a signature or a graph listing."""
    if obj is tandem.Tensor:
        return "torch.Tensor"
    if isinstance(obj, type):
        if obj.__module__ == "builtins":
            return obj.__qualname__
        return f"{torch_spelling(obj.__module__)}.{obj.__qualname__}"
    if obj is ...:
        return "..."
    if callable(obj) and hasattr(obj, "__code__"):
        return obj.__name__
    return repr(obj).replace("tandem.", "torch.")


def format_target(base, target):
    """'seq.0' under 'self' -> 'getattr(self.seq, "0")': each part that is not an identifier through getattr."""
    for part in target.split("."):
        base = f"{base}.{part}" if part.isidentifier() else f'getattr({base}, "{part}")'
    return base
