"""tandem.version, as torch.version: the package version and the CUDA toolkit the backend was built with."""
from . import _C

from .torch_version import TorchVersion

__all__ = ["__version__", "tandem_version", "cuda", "git_version", "hip", "rocm", "xpu", "debug"]

tandem_version = "0.1.0"  # the package's own release (pyproject.toml)
# tandem/__init__.py re-exports it as tandem.__version__. The release number is the PyTorch API that tandem
# follows (the PyTorch its tests compare with, requirements-dev.txt), so programs that gate features on
# `torch.__version__ >= "2.0"` take their current paths; tandem's own release is the local label.
__version__ = TorchVersion(f"2.15.0+tandem.{tandem_version}")
cuda = _C._cuda_version  # "13.0"; None in a build without the CUDA backend
hip = None  # no ROCm backend
rocm = None
xpu = None  # no Intel GPU backend
debug = False
# The commit PyTorch was built from; the extension records none, so this is what a PyTorch source build without
# git metadata reports (kornia's test header prints it).
git_version = "Unknown"
