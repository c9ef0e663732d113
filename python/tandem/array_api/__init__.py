"""tandem.array_api: the Python Array API standard (2024.12) over tandem tensors.

`t.__array_namespace__()` returns this module. It is a namespace of thin functions: the arrays are tandem
Tensors themselves (no wrapper, no copies), and every function calls tandem's ops, adapting only the standard's
argument conventions (axis/keepdims, copy=, the standard's promotion for Python scalars). What tandem lacks a
kernel for is composed from its ops (marked in each file), or raises NotImplementedError naming the missing op.
docs/array_api.md lists what is supported and the conformance-suite counts.
"""
import math as _math

from .. import _C
from ._dtypes import (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64,  # noqa: F401
                      complex64, complex128, astype, can_cast, finfo, iinfo, isdtype, result_type)
from ._info import __array_namespace_info__  # noqa: F401
from ._creation import (asarray, arange, empty, empty_like, eye, from_dlpack, full, full_like, linspace,  # noqa: F401
                        meshgrid, ones, ones_like, tril, triu, zeros, zeros_like)
from ._elementwise import *  # noqa: F401,F403
from ._elementwise import __all__ as _elementwise_names  # noqa: F401
from ._statistical import (max, min, mean, prod, std, sum, var, cumulative_sum, cumulative_prod,  # noqa: F401
                           all, any, diff)
from ._searching import (argmax, argmin, count_nonzero, nonzero, searchsorted, where, argsort, sort,  # noqa: F401
                         unique_all, unique_counts, unique_inverse, unique_values)
from ._manipulation import (broadcast_arrays, broadcast_to, concat, expand_dims, flip, moveaxis,  # noqa: F401
                            permute_dims, repeat, reshape, roll, squeeze, stack, tile, unstack, take,
                            take_along_axis, matmul, matrix_transpose, tensordot, vecdot)

__array_api_version__ = "2024.12"

e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None

from . import _linalg as linalg  # noqa: F401  the standard's linalg extension over tandem.linalg
from . import _array_methods
_array_methods.install()  # Tensor.to_device, Tensor.__complex__


from . import _fft as fft  # noqa: E402,F401  the standard's fft extension over tandem.fft


_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


def _array_namespace(self, /, *, api_version=None):
    """Tensor.__array_namespace__: this module, for the standard's versions it covers (2024.12 is a superset)."""
    if api_version is not None and api_version not in _VERSIONS:
        raise ValueError(f"Unrecognized array API version: {api_version!r}\nhint: tandem.array_api implements "
                         f"{_VERSIONS[-1]}; pass api_version=None or one of {', '.join(_VERSIONS)}")
    import sys
    return sys.modules[__name__]
