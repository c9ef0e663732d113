"""The TorchScript executor and fuser switches that training scripts flip through torch._C before they start
(Megatron-LM's fused kernels, StyleGAN2, older BERT code): _jit_set_profiling_executor, _jit_set_profiling_mode,
_jit_override_can_fuse_on_cpu/gpu, _jit_set_texpr_fuser_enabled, _jit_set_fusion_strategy, ... tandem.jit runs
functions eagerly and fuses nothing, so these only remember their settings and answer as PyTorch does (the setters
that return the previous value return it), so a script that sets them, or reads one back, runs on."""
from . import cuda

_DEFAULT_FUSION_STRATEGY = [("STATIC", 2), ("DYNAMIC", 10)]
_flags = {"profiling_executor": True, "profiling_mode": True, "can_fuse_on_cpu": False, "can_fuse_on_gpu": True,
          "texpr_fuser": True, "graph_executor_optimize": True, "autodiff_subgraph_inlining": True,
          "fusion_strategy": list(_DEFAULT_FUSION_STRATEGY)}


def _as_bool(name, signature, args):
    """pybind11's bool argument: exactly one, a bool, a number or None (anything with __bool__ but no length)."""
    ok = len(args) == 1 and (args[0] is None or isinstance(args[0], (bool, int, float)) or
                             type(args[0]).__name__ == "bool_")
    if not ok:
        shown = ", ".join(repr(a) for a in args)
        raise TypeError(f"{name}(): incompatible function arguments. The following argument types are supported:\n"
                        f"    1. {signature}\n\nInvoked with: {shown}")
    return bool(args[0])


def _setter(flag, name, returns_previous):
    signature = f"(arg0: bool) -> {'bool' if returns_previous else 'None'}"

    def set_flag(*args):
        previous, _flags[flag] = _flags[flag], _as_bool(name, signature, args)
        return previous if returns_previous else None

    set_flag.__name__ = name
    return set_flag


def _getter(flag, name):
    def get_flag():
        return _flags[flag]

    get_flag.__name__ = name
    return get_flag


def _get_graph_executor_optimize(new_settings=None):
    """The current setting; with an argument, sets it and returns the previous one."""
    previous = _flags["graph_executor_optimize"]
    if new_settings is not None:
        _flags["graph_executor_optimize"] = bool(new_settings)
    return previous


def _jit_set_fusion_strategy(strategy):
    """[(kind, depth), ...] with kind 'STATIC' or 'DYNAMIC'; returns the previous strategy."""
    checked = []
    for kind, depth in strategy:
        if kind not in ("STATIC", "DYNAMIC"):
            raise ValueError(f"FusionBehavior only supported 'STATIC' or 'DYNAMIC', got: {kind}")
        checked.append((kind, int(depth)))
    previous, _flags["fusion_strategy"] = _flags["fusion_strategy"], checked
    return previous


def _jit_set_nvfuser_enabled(*args):
    """A no-op in PyTorch too (nvfuser left TorchScript)."""
    _as_bool("_jit_set_nvfuser_enabled", "(arg0: bool) -> None", args)


def _cuda_getDeviceCount():
    return cuda.device_count()


def install(c_module):
    setters = [("profiling_executor", "_jit_set_profiling_executor", True),
               ("profiling_mode", "_jit_set_profiling_mode", True),
               ("can_fuse_on_cpu", "_jit_override_can_fuse_on_cpu", False),
               ("can_fuse_on_gpu", "_jit_override_can_fuse_on_gpu", False),
               ("texpr_fuser", "_jit_set_texpr_fuser_enabled", False),
               ("graph_executor_optimize", "_set_graph_executor_optimize", False),
               ("autodiff_subgraph_inlining", "_debug_set_autodiff_subgraph_inlining", False)]
    for flag, name, returns_previous in setters:
        setattr(c_module, name, _setter(flag, name, returns_previous))
    for flag, name in [("can_fuse_on_cpu", "_jit_can_fuse_on_cpu"), ("can_fuse_on_gpu", "_jit_can_fuse_on_gpu"),
                       ("texpr_fuser", "_jit_texpr_fuser_enabled")]:
        setattr(c_module, name, _getter(flag, name))
    c_module._get_graph_executor_optimize = _get_graph_executor_optimize
    c_module._jit_set_fusion_strategy = _jit_set_fusion_strategy
    c_module._jit_set_nvfuser_enabled = _jit_set_nvfuser_enabled
    c_module._cuda_getDeviceCount = _cuda_getDeviceCount
