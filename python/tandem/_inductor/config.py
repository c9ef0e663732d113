"""tandem._inductor.config: torch._inductor.config's commonly set knobs, with PyTorch's defaults.

tandem compiles nothing, so nothing reads them; they exist so that scripts that tune the compiler before calling
torch.compile (``config.coordinate_descent_tuning = True``) keep running. As in PyTorch, a name that is not a
knob fails to read or set with AttributeError.
"""
import sys
import types

coordinate_descent_tuning = False
coordinate_descent_check_all_directions = False
coordinate_descent_search_radius = 1
max_autotune = False
max_autotune_gemm = False
max_autotune_pointwise = False
fx_graph_cache = True
freezing = False
epilogue_fusion = True
aggressive_fusion = False
force_fuse_int_mm_with_mul = False
benchmark_kernel = False
cpp_wrapper = False
conv_1x1_as_mm = False
shape_padding = True
split_reductions = True
debug = False


class _Section:
    """A knob group such as ``config.triton``: its known names only."""

    def __init__(self, path, defaults):
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_values", dict(defaults))

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"{self._path}.{name} does not exist") from None

    def __setattr__(self, name, value):
        if name not in self._values:
            raise AttributeError(f"{self._path}.{name} does not exist")
        self._values[name] = value


triton = _Section("torch._inductor.config.triton",
                  {"unique_kernel_names": True, "cudagraphs": False, "cudagraph_trees": True,
                   "autotune_pointwise": True, "autotune_cublasLt": True, "divisible_by_16": True})


class _ConfigModule(types.ModuleType):
    """Refuses names that are not knobs, as PyTorch's config module does."""

    def __getattr__(self, name):
        raise AttributeError(f"torch._inductor.config.{name} does not exist")

    def __setattr__(self, name, value):
        if not name.startswith("_") and name not in self.__dict__:
            raise AttributeError(f"torch._inductor.config.{name} does not exist")
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _ConfigModule
