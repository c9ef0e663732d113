"""tandem: a tensor library with a PyTorch-shaped API and an explicit, well-guarded host/device boundary.

The math lives in the C++ core (tandem._C); this package only adds Python bookkeeping.
"""
import os as _os

# OpenMP threads that finish early sleep instead of spinning: with more runnable threads than cores (other
# processes, a second thread count), spinning workers starve the one still computing and a 1 ms step
# becomes 30 ms. Must be set before _C loads the OpenMP runtime; an explicit setting wins.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from . import _blas_core  # noqa: E402

with _blas_core.chosen_while(_os.environ):  # OpenBLAS's kernels for this CPU, not its fallback for unknown models
    from . import _C  # noqa: E402
from ._C import *  # noqa: F401,F403  (dtypes, Tensor, ops)
from ._C import Tensor, OutOfMemoryError  # noqa: F401
from ._C import _standard_gamma, _standard_gamma_grad, _sample_dirichlet  # noqa: F401  (import * skips _names)
from ._size import Size
from ._creation import tensor, as_tensor  # noqa: F401
from ._tensor_str import set_printoptions, get_printoptions, printoptions, tensor_repr as _tensor_repr  # noqa: F401
from ._tensor_str import tensor_format as _tensor_format
from ._numpy import from_numpy, from_dlpack  # noqa: F401
from ._errors import DeviceMismatchError, HostConversionError, RequiresGradConversionError  # noqa: F401
from ._host_conversion import allow_host_conversion  # noqa: F401
from . import cuda  # noqa: F401
from ._transfer_guard import transfer_guard, get_transfer_guard, TransferGuardError  # noqa: F401
from . import profiler  # noqa: F401
from . import backends  # noqa: F401
from ._runtime_flags import *  # noqa: F401,F403  (set_float32_matmul_precision, use_deterministic_algorithms)
from .compiler import compile  # noqa: F401,A001  (runs eagerly: tandem has no graph compiler)
from . import compiler, _dynamo, jit, testing, random, types, futures, overrides  # noqa: F401  (small, stdlib-only: docs/compat.md)
from . import quasirandom  # noqa: E402,F401  (SobolEngine; its direction numbers come from SciPy)
from .futures import Future  # noqa: F401,E402  (torch.Future, the class torch.futures.Future is)
from . import __future__  # noqa: F401  (the module-conversion switches nn.Module._apply reads)
from ._sym import *  # noqa: F401,F403  (sym_int, sym_max, ...: plain numbers when running eagerly)
from .random import manual_seed  # noqa: F401  (int() of the seed first, as PyTorch's)
from ._autograd import *  # noqa: F401,F403
from ._nn import nn, optim, utils, save, load  # noqa: F401
from ._quantized_types import *  # noqa: F401,F403,E402  (qint8, per_tensor_affine, ...: names, no quantized tensors)
from . import ao, quantization  # noqa: F401,E402  (dynamic quantization)
import tandem.nn.quantized  # noqa: F401,E402  (its older name, which PyTorch also imports at start-up)
from . import accelerator, onnx, hub, _logging  # noqa: F401
from . import amp, cpu  # noqa: F401  (mixed precision; tandem.cpu.amp)
from .amp import autocast, GradScaler  # noqa: F401  (torch.GradScaler is torch.amp.GradScaler)
from ._device_streams import Stream, Event  # noqa: F401  (device-agnostic: cpu, or tandem.cuda's)
from . import distributed  # noqa: F401
from ._legacy import LEGACY_TYPES as _LEGACY_TYPES, tensor_type as _tensor_type, Variable as _Variable
from ._legacy import tensor_type_as as _tensor_type_as
from ._legacy import tensor_where as _tensor_where, volatile as _volatile
from ._finfo import finfo, iinfo  # noqa: F401
from ._dtype_functions import can_cast, isdtype, install_dtype_methods, promote_types, result_type  # noqa: F401
install_dtype_methods()  # dtype.to_complex() / dtype.to_real()
from . import _clamp_checks  # noqa: E402
_clamp_checks.install()  # int_t.clamp_(0.5) refused with PyTorch's message
from . import _gcd_lcm_args  # noqa: E402
_gcd_lcm_args.install(globals())  # t.gcd(18) refused: tensors only, as PyTorch's
from . import _histc_args  # noqa: E402
_histc_args.install(globals())  # histc(x, min=t.min(), max=t.max()): 0-dim tensors as Scalars, as PyTorch's
from . import _norm_checks  # noqa: E402
_norm_checks.install(globals())  # norm's dtype= rules and the inf norm of an empty dim refused, as PyTorch's
from . import _generator_copies  # noqa: E402
_generator_copies.install()  # pickle, deepcopy and clone_state() of a Generator
from . import _data_assignment  # noqa: E402
_data_assignment.install()  # t.data = x checks x as PyTorch's
from . import _autograd_properties  # noqa: E402
_autograd_properties.install()  # del t.grad; t.requires_grad = True refused on non-leaves
from . import _subclass_dispatch  # noqa: E402
_subclass_dispatch.install()  # iteration and .data of a subclass reach its __torch_function__
from . import _tensor  # noqa: E402,F401  (torch._tensor._convert, for subclasses' own __torch_function__)
from . import array_api  # noqa: F401
from . import _compositions

globals().update(_LEGACY_TYPES)  # FloatTensor, LongTensor, ...
autograd.Variable = _Variable
from .autograd import variable as _autograd_variable  # noqa: E402,F401  (torch.autograd.variable, an attribute)

_C._set_size_class(Size)  # Tensor.shape and size() make their Size in C++
Tensor.__repr__ = _tensor_repr
Tensor.__format__ = _tensor_format
Tensor.type = _tensor_type
Tensor.type_as = _tensor_type_as
from . import _conversion_methods  # noqa: E402
_conversion_methods.install()  # x.half(memory_format=...), cpu(memory_format=...) and PyTorch's argument errors
from . import _c_names  # noqa: E402
_c_names.install(_C)  # _log_api_usage_once, _get_tracing_state, ...: torch._C names libraries call
from . import _jit_executor_flags  # noqa: E402
_jit_executor_flags.install(_C)  # _jit_set_profiling_mode, _jit_override_can_fuse_on_gpu, ...: kept, not used
Tensor.where = _tensor_where
Tensor.volatile = _volatile  # always False, with PyTorch's warnings
Tensor.__array_namespace__ = array_api._array_namespace
_compositions.install(globals())  # tril, einsum, ... and their Tensor methods
from . import linalg  # noqa: E402
from . import _linalg_polar  # noqa: E402
_linalg_polar.install(linalg)  # linalg.polar, linalg.matrix_sqrth
from . import special  # noqa: E402,F401
from . import fft  # noqa: E402,F401
from . import _stft  # noqa: E402
_stft.install(globals())  # tandem.stft/istft and the Tensor methods
linalg._install(globals())  # tandem.det, tandem.inverse, Tensor.det(), ...
from ._lobpcg import lobpcg  # noqa: E402,F401
from . import _compositions_more  # noqa: E402
_compositions_more.install(globals())  # nan_to_num, addr, asarray, ... and their Tensor methods
from . import _compositions_extra, _torch_functional_forms, _layouts  # noqa: E402
_compositions_extra.install(globals())  # deg2rad, block_diag, cov, *_scatter, *_copy, linalg.vander, ...
_torch_functional_forms.install(globals())  # torch.conv1d, torch.batch_norm, torch.kl_div, torch.abs_, ...
from . import _torch_rnn_forms, _batch_norm_forms  # noqa: E402
_batch_norm_forms.install(globals())  # native_batch_norm, batch_norm_stats/elemt/gather_stats/..., native_dropout
_torch_rnn_forms.install(globals())  # torch.lstm, torch.gru_cell, ... (the functional forms nn.LSTM's are)
_layouts.install(globals())  # e, pi, strided, channels_last; memory_format= on contiguous/clone/to/*_like
from .autograd.anomaly_mode import (is_anomaly_enabled, is_anomaly_check_nan_enabled,  # noqa: E402,F401
                                    set_anomaly_enabled)
from . import _storage  # noqa: E402
_storage.install(globals())  # UntypedStorage, TypedStorage, FloatStorage..., Tensor.storage/set_/resize_
from . import storage  # noqa: E402,F401  (torch.storage)
from . import _return_types  # noqa: E402
_return_types.install()  # tandem.return_types importable (pickle) and PyTorch's repr for every return type
from . import _tensor_extras  # noqa: E402
_tensor_extras.install(globals())  # register_post_accumulate_grad_hook, cfloat, dim_order, unsafe_split, ...
from . import _foreach  # noqa: E402
_foreach.install(globals())  # torch._foreach_add_, _foreach_lerp_, _foreach_norm, ... (loops of tandem ops)
from . import _vmap_internals  # noqa: E402,F401  (torch._vmap_internals: the older vmap libraries import)
from . import sparse  # noqa: E402
sparse.install(globals())  # sparse_coo_tensor, spmm; sparse paths of mm/matmul/addmm; Tensor.to_sparse/to_dense
from . import _deprecated_overloads  # noqa: E402
_deprecated_overloads.install(globals())  # t.add_(alpha, other), torch.addcmul(input, value, t1, t2), ... (warn)
from . import distributions  # noqa: E402,F401  (eager, as torch.distributions; pure Python, ~20 ms)
from . import signal  # noqa: E402,F401  (torch.signal.windows: compositions)
from . import masked  # noqa: E402,F401  (torch.masked's reductions with mask=: compositions)
from . import xpu, mps, functional  # noqa: E402,F401  (no XPU/MPS devices: their queries answer as PyTorch's)
from ._compositions_nd import histogramdd, nonzero_static, empty_permuted  # noqa: E402,F401
from ._segment_reduction import segment_reduce  # noqa: E402,F401  (scatter_reduce by segment: docs/ops.md)
from ._fake_quantize import (fake_quantize_per_tensor_affine,  # noqa: E402,F401  (quantisation-aware training)
                             fake_quantize_per_channel_affine, _fake_quantize_learnable_per_tensor_affine,
                             _fake_quantize_learnable_per_channel_affine)
_segment_reduce = segment_reduce  # PyTorch's private name for it (PyTorch Geometric's segment() calls it)
from ._build_queries import (get_device_module, is_distributed, has_lapack, has_mkl, has_openmp,  # noqa: E402,F401
                             has_spectral, init_num_threads)
from . import _removed  # noqa: E402
_removed.install(globals())  # torch.qr, solve, eig, lstsq, symeig, matrix_rank: PyTorch's "now removed" errors
from .utils.dlpack import to_dlpack  # noqa: E402,F401
from . import func  # noqa: E402,F401  (torch.func: grad, vjp, jvp, jacrev, vmap, ...; docs/compat.md)
from .func import vmap  # noqa: E402,F401  (torch.vmap is torch.func.vmap)

from . import version  # noqa: E402
from .version import __version__  # noqa: E402,F401
from . import __config__  # noqa: E402,F401  (the build as text: torch_geometric reads torch.__config__.show())
from . import library  # noqa: E402,F401  (torch.library: custom operators, docs/library.md)
from . import _ops  # noqa: E402,F401  (torch._ops: OpOverload, OpOverloadPacket, as PyTorch imports it)
from ._library.registry import ops  # noqa: E402,F401  (torch.ops.<namespace>.<op>)
from . import _profiler_ops  # noqa: E402
_profiler_ops.install()  # torch.ops.profiler._record_function_enter/_exit (record_function as operators)
from ._control_flow import cond, while_loop  # noqa: E402,F401
from ._assert_async import _assert_async, _assert  # noqa: E402,F401  (kornia's argument checks; FX's assertions)
from . import _function_pickling  # noqa: E402
_function_pickling.install()  # C++ functions deep-copy and pickle as PyTorch's builtins
from . import _numpy_arg_names  # noqa: E402
_numpy_arg_names.install(globals())  # axis=/keepdims= on the Python-level functions (C++ ones: numpy_arg_names.cpp)
from . import _attribute_setters  # noqa: E402
_attribute_setters.install()  # t.shape = ... is PyTorch's "not writable"; t.real = 5.0
from . import _builtin_functions  # noqa: E402
_builtin_functions.install(globals())  # last: the Python-level functions are never bound as methods, as PyTorch's
# The classes print as PyTorch's do (<class 'torch.device'>, in messages too): under the name users reach them by.
device.__module__ = dtype.__module__ = __name__
from . import fx  # noqa: E402,F401  (after the wrappers: FX records the public functions)
from . import export  # noqa: E402,F401  (torch.export: traces with FX)
# Last, when Tensor's operator methods are final: x[i], x[i] = v and + - * / (in place too) on plain operands
# call their implementations from the type's slots (python/src/operator_slots.cpp).
_C._install_operator_slots()


def __getattr__(name):
    # PyTorch's torch.torch is torch itself (its __init__ imports its own package), and kornia annotates with
    # torch.torch.Tensor. Answered here rather than bound as a global, so `from tandem import *` brings no `torch`
    # (PyTorch's __all__ leaves it out too).
    if name == "torch":
        import sys  # noqa: PLC0415
        return sys.modules[__name__]
    if name == "_inductor":  # PyTorch imports it lazily on first access (torch._inductor.config.X = ... in scripts)
        import importlib  # noqa: PLC0415
        return importlib.import_module("._inductor", __name__)
    raise AttributeError(f"module 'tandem' has no attribute '{name}'")
