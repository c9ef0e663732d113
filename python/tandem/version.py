"""tandem.version, as torch.version: the package version and the CUDA toolkit the backend was built with."""
from . import _C

__all__ = ["__version__", "cuda", "hip", "debug"]

__version__ = "0.1.0"  # tandem/__init__.py re-exports it as tandem.__version__
cuda = _C._cuda_version  # "13.0"; None in a build without the CUDA backend
hip = None  # no ROCm backend
debug = False
