"""torch.utils.cpp_extension: the module imports and answers its queries, but nothing builds. A PyTorch C++/CUDA
extension compiles against libtorch's headers and links libtorch, which tandem does not provide, so `load`,
`load_inline`, `CppExtension`, `CUDAExtension` and `BuildExtension` raise RuntimeError with a hint. Programs that
try to build an optional fast kernel and fall back to plain PyTorch code when that fails (a common pattern)
take their fallback; for a custom op of your own, use tandem.library.custom_op (docs/library.md)."""
import os
import shutil
import sys

IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform.startswith("darwin")
IS_LINUX = sys.platform.startswith("linux")
IS_HIP_EXTENSION = False
ROCM_HOME = None
ROCM_VERSION = None
SYCL_HOME = None


def _find_cuda_home():
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home is None:
        nvcc = shutil.which("nvcc")
        if nvcc is not None:
            home = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
        elif os.path.exists("/usr/local/cuda"):
            home = "/usr/local/cuda"
    return home


CUDA_HOME = _find_cuda_home()
_HINT = ("hint: tandem runs PyTorch programs but not PyTorch's compiled extensions (they link libtorch); write "
         "the op with tandem.library.custom_op (docs/library.md), or use the program's pure-PyTorch fallback")


def _cannot_build(what, name=None):
    named = f" '{name}'" if name else ""
    raise RuntimeError(f"Error building extension{named}: torch.utils.cpp_extension.{what} cannot build against "
                       f"tandem\n{_HINT}")


def load(name, sources, *args, **kwargs):
    _cannot_build("load", name)


def load_inline(name, cpp_sources, *args, **kwargs):
    _cannot_build("load_inline", name)


def CppExtension(name, sources, *args, **kwargs):  # noqa: N802 (PyTorch's name)
    _cannot_build("CppExtension", name)


def CUDAExtension(name, sources, *args, **kwargs):  # noqa: N802
    _cannot_build("CUDAExtension", name)


def SyclExtension(name, sources, *args, **kwargs):  # noqa: N802
    _cannot_build("SyclExtension", name)


class BuildExtension:
    """setuptools' build_ext for PyTorch extensions; refuses, as there are no libtorch headers to build with."""

    @classmethod
    def with_options(cls, **options):
        return cls

    def __init__(self, *args, **kwargs):
        _cannot_build("BuildExtension")


def include_paths(device_type="cpu", torch_include_dirs=True):
    _cannot_build("include_paths")


def library_paths(device_type="cpu", torch_include_dirs=True, cross_target_platform=None):
    _cannot_build("library_paths")


def is_ninja_available():
    return shutil.which("ninja") is not None


def verify_ninja_availability():
    if not is_ninja_available():
        raise RuntimeError("Ninja is required to load C++ extensions (pip install ninja to get it)")


def get_default_build_root():
    """PyTorch's default build root: torch_extensions in the user's cache directory (TORCH_EXTENSIONS_DIR, which
    PyTorch's builds prefer, does not change it)."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.realpath(os.path.join(cache, "torch_extensions"))


def get_cxx_compiler():
    return os.environ.get("CXX", "c++")
