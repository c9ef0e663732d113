"""tandem.backends: process-wide switches of the math backends, as torch.backends."""
from . import cpu  # noqa: F401
from . import cuda  # noqa: F401
from . import cudnn  # noqa: F401  (flags only: tandem has no cuDNN)
from . import mps  # noqa: F401  (never available: tandem has no Metal backend)
from . import mkl, mkldnn, nnpack  # noqa: F401  (never available: tandem's CPU math is its own and OpenBLAS's)
from . import mha, openmp, opt_einsum  # noqa: F401  (fast-path flag; OpenMP threads; einsum path switch)
from . import quantized  # noqa: F401  (the quantized engine name: tandem computes the x86 engine's way)
