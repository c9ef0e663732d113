"""NumPy and DLPack interchange from the tensor's side: __array__ with dtype= and copy= (of tensors that require
grad, conjugate and negative views, non-contiguous, 0-d, empty, bool/float16/bfloat16/complex), NumPy ufuncs
and functions applied to tensors (__array_wrap__: np.add, np.sin, np.sum return tensors or NumPy scalars), numpy()
with force=, from_dlpack of tensors, NumPy arrays and objects that are not exporters, __dlpack__ with stream
and version arguments, __dlpack_device__, as_tensor/asarray of objects exposing only __array_interface__ or
__array__, and tensors as NumPy indices and shapes."""
from . import R, T


def np():
    import numpy  # noqa: PLC0415 - imported when a case runs
    return numpy


def A(a):
    """A NumPy result as (dtype name, shape, values): what the harness compares (it reads tensors, not arrays)."""
    if isinstance(a, np().ndarray):
        return a.dtype.name, a.shape, a.tolist()
    return a


def cpu(L, x):
    """x on the CPU (NumPy reads host memory only)."""
    return x.cpu()


class OnlyInterface:
    """An object exposing a float64 buffer through __array_interface__ alone."""

    def __init__(self, array):
        self._array = array
        self.__array_interface__ = array.__array_interface__


class OnlyArray:
    """An object with __array__ and nothing else."""

    def __init__(self, array):
        self._array = array

    def __array__(self, dtype=None, copy=None):
        return self._array if dtype is None else self._array.astype(dtype)


class NoDlpack:
    pass


def wrapped(L, d, fn):
    """fn on a CPU tensor (NumPy's ufuncs run on host memory): the result, as whatever type it is."""
    return fn(R(L, (2, 3), "cpu"))


CASES = {
    # ---- __array__
    "array/ok": lambda L, d: A(np().asarray(cpu(L, R(L, (2, 3), d)))),
    "array/dtype": lambda L, d: A(np().asarray(cpu(L, R(L, (3,), d)), dtype=np().float32)),
    "array/dtype_int": lambda L, d: A(np().asarray(cpu(L, R(L, (3,), d)), dtype=np().int16)),
    "array/requires_grad": lambda L, d: A(np().asarray(R(L, (3,), "cpu").requires_grad_())),
    "array/requires_grad_array_call": lambda L, d: A(R(L, (3,), "cpu").requires_grad_().__array__()),
    "array/conj_view": lambda L, d: A(np().asarray(T(L, [1 + 2j], "cpu").conj())),
    "array/neg_view": lambda L, d: A(np().asarray(T(L, [1 + 2j], "cpu").conj().imag)),
    "array/transposed": lambda L, d: np().asarray(cpu(L, R(L, (2, 3), d)).t()).flags["C_CONTIGUOUS"],
    "array/0d": lambda L, d: np().asarray(T(L, 2.5, "cpu")).shape,
    "array/empty": lambda L, d: np().asarray(L.zeros(0, 3)).shape,
    "array/bfloat16": lambda L, d: A(np().asarray(T(L, [1.5], "cpu", "bfloat16"))),
    "array/float16": lambda L, d: np().asarray(T(L, [1.5], "cpu", "float16")).dtype.name,
    "array/bool": lambda L, d: np().asarray(T(L, [True, False], "cpu")).dtype.name,
    "array/copy_false": lambda L, d: np().asarray(cpu(L, R(L, (3,), d)), copy=False).shape,
    "array/copy_false_dtype": lambda L, d: A(np().array(cpu(L, R(L, (3,), d)), dtype=np().float32, copy=False)),
    "array/shares_memory": lambda L, d: (lambda t: (np().asarray(t).__setitem__(0, 9.0), t[0].item())[1])(
        L.zeros(3, dtype=L.float64)),
    "array/tensor_as_list_element": lambda L, d: A(np().array([T(L, 1.0), T(L, 2.0)])),
    "array/tensor_in_nested_list": lambda L, d: np().array([[T(L, [1.0, 2.0])]]).shape,
    # ---- ufuncs and functions on tensors
    "ufunc/add_scalar": lambda L, d: type(wrapped(L, d, lambda t: np().add(t, 1))).__name__,
    "ufunc/add_values": lambda L, d: A(wrapped(L, d, lambda t: np().asarray(np().add(t, 1)))),
    "ufunc/sin": lambda L, d: type(wrapped(L, d, np().sin)).__name__,
    "ufunc/sum": lambda L, d: type(wrapped(L, d, np().sum)).__name__,
    "ufunc/sum_value": lambda L, d: float(wrapped(L, d, np().sum)),
    "ufunc/mean_axis": lambda L, d: type(wrapped(L, d, lambda t: np().mean(t, axis=0))).__name__,
    "ufunc/comparison": lambda L, d: type(wrapped(L, d, lambda t: np().greater(t, 0))).__name__,
    "ufunc/array_plus_tensor": lambda L, d: type(np().ones(3) + T(L, [1.0, 2.0, 3.0])).__name__,
    "ufunc/array_plus_tensor_value": lambda L, d: np().ones(3) + T(L, [1.0, 2.0, 3.0]),
    "ufunc/out_tensor": lambda L, d: (lambda t: np().add(np().ones(2), 1, out=t))(L.zeros(2, dtype=L.float64)),
    "np/concatenate": lambda L, d: type(np().concatenate([T(L, [1.0]), T(L, [2.0])])).__name__,
    "np/dot": lambda L, d: A(np().dot(np().asarray(T(L, [1.0, 2.0])), np().asarray(T(L, [3.0, 4.0])))),
    "np/reshape_by_tensor": lambda L, d: np().zeros(6).reshape(T(L, [2, 3])).shape,
    "np/index_by_tensor": lambda L, d: A(np().arange(5.0)[T(L, [0, 3])]),
    "np/index_by_0d_tensor": lambda L, d: A(np().arange(5.0)[T(L, 2)]),
    "np/index_by_float_tensor": lambda L, d: A(np().arange(5.0)[T(L, 2.0)]),
    "np/index_by_bool_tensor": lambda L, d: A(np().arange(3.0)[T(L, [True, False, True])]),
    "np/zeros_by_tensor_size": lambda L, d: np().zeros(T(L, 3)).shape,
    "np/range_by_tensor": lambda L, d: list(range(T(L, 3))),
    # ---- numpy()
    "numpy/force_requires_grad": lambda L, d: A(R(L, (2,), d).requires_grad_().numpy(force=True)),
    "numpy/force_conj": lambda L, d: A(T(L, [1 + 2j], d).conj().numpy(force=True)),
    "numpy/requires_grad_without_force": lambda L, d: A(R(L, (2,), "cpu").requires_grad_().numpy()),
    "numpy/force_bfloat16": lambda L, d: A(T(L, [1.5], d, "bfloat16").numpy(force=True)),
    "numpy/force_positional": lambda L, d: A(R(L, (2,), d).numpy(True)),
    "numpy/force_str": lambda L, d: A(R(L, (2,), d).numpy(force="yes")),
    # ---- DLPack (exports of host tensors: an emulated GPU's memory is host memory, which tandem refuses to export
    # as CUDA memory; tests/python/test_dlpack*.py cover real GPUs)
    "from_dlpack/tensor": lambda L, d: L.from_dlpack(R(L, (2, 3), "cpu")),
    "from_dlpack/shares": lambda L, d: (lambda t: (L.from_dlpack(t).fill_(7.0), t)[1])(R(L, (3,), "cpu")),
    "from_dlpack/numpy": lambda L, d: L.from_dlpack(np().arange(4.0)),
    "from_dlpack/numpy_readonly": lambda L, d: L.from_dlpack((lambda a: (a.setflags(write=False), a)[1])(
        np().arange(3.0))),
    "from_dlpack/numpy_bool": lambda L, d: L.from_dlpack(np().array([True, False])),
    "from_dlpack/numpy_noncontiguous": lambda L, d: L.from_dlpack(np().arange(6.0).reshape(2, 3)[:, ::2]),
    "from_dlpack/numpy_negative_strides": lambda L, d: L.from_dlpack(np().arange(4.0)[::-1]),
    "from_dlpack/numpy_0d": lambda L, d: L.from_dlpack(np().array(2.5)),
    "from_dlpack/numpy_big_endian": lambda L, d: L.from_dlpack(np().arange(3, dtype=">f4")),
    "from_dlpack/not_exporter": lambda L, d: L.from_dlpack(NoDlpack()),
    "from_dlpack/list": lambda L, d: L.from_dlpack([1.0, 2.0]),
    "from_dlpack/none": lambda L, d: L.from_dlpack(None),
    "from_dlpack/transposed": lambda L, d: L.from_dlpack(R(L, (2, 3), "cpu").t()),
    "from_dlpack/conj_view": lambda L, d: L.from_dlpack(T(L, [1 + 2j], "cpu").conj()),
    "from_dlpack/requires_grad": lambda L, d: L.from_dlpack(R(L, (2,), "cpu").requires_grad_()),
    "from_dlpack/bool": lambda L, d: L.from_dlpack(T(L, [True, False], "cpu")),
    "from_dlpack/empty": lambda L, d: L.from_dlpack(L.zeros(0, 2, device="cpu")).shape,
    "from_dlpack/expanded": lambda L, d: L.from_dlpack(R(L, (1, 3), "cpu").expand(2, 3)),
    "from_dlpack/capsule_twice": lambda L, d: (lambda c: (L.from_dlpack(c), L.from_dlpack(c)))(
        R(L, (2,), "cpu").__dlpack__()),
    "dlpack/dlpack_device": lambda L, d: R(L, (2,), "cpu").__dlpack_device__(),  # the oracle has no GPU
    "dlpack/stream_on_cpu": lambda L, d: L.from_dlpack(R(L, (2,), "cpu").__dlpack__(stream=1)),
    "dlpack/max_version_old": lambda L, d: L.from_dlpack(R(L, (2,), "cpu").__dlpack__(max_version=(0, 8))),
    "dlpack/max_version_new": lambda L, d: L.from_dlpack(R(L, (2,), "cpu").__dlpack__(max_version=(1, 0))),
    "dlpack/copy_true": lambda L, d: (lambda t: (L.from_dlpack(t.__dlpack__(copy=True)).fill_(5.0), t)[1])(
        R(L, (2,), "cpu")),
    "dlpack/numpy_from_tensor": lambda L, d: A(np().from_dlpack(cpu(L, R(L, (2, 2), d)))),
    "dlpack/numpy_from_requires_grad": lambda L, d: A(np().from_dlpack(R(L, (2,), "cpu").requires_grad_())),
    "dlpack/numpy_from_bfloat16": lambda L, d: A(np().from_dlpack(T(L, [1.0], "cpu", "bfloat16"))),
    "utils.dlpack/to_dlpack_round_trip": lambda L, d: L.utils.dlpack.from_dlpack(L.utils.dlpack.to_dlpack(
        R(L, (2, 2), "cpu"))),
    # ---- objects exposing only an array protocol
    "as_tensor/array_interface_only": lambda L, d: L.as_tensor(OnlyInterface(np().arange(3.0)), device=d),
    "as_tensor/array_only": lambda L, d: L.as_tensor(OnlyArray(np().arange(3.0)), device=d),
    "tensor/array_only": lambda L, d: L.tensor(OnlyArray(np().arange(3, dtype=np().int32)), device=d),
    "asarray/array_interface_only": lambda L, d: L.asarray(OnlyInterface(np().arange(3.0)), device=d),
    "asarray/array_only_dtype": lambda L, d: L.asarray(OnlyArray(np().arange(3.0)), dtype=L.float32, device=d),
    "tensor/array_interface_only": lambda L, d: L.tensor(OnlyInterface(np().arange(3.0)), device=d),
    "tensor/list_of_arrays": lambda L, d: L.tensor([np().arange(2.0), np().arange(2.0)], device=d),
    "tensor/list_of_array_only": lambda L, d: L.tensor([OnlyArray(np().arange(2.0))], device=d),
}

_EAGER_CONJ = "tandem's conj() is eager (docs/compat.md): there is no conjugate or negative bit to refuse"
_AXIS = ("tandem's reductions take NumPy's axis= (docs/compat.md), so NumPy's np.sum/np.mean, which call the "
         "method with axis=, work on a tensor; PyTorch's refuse axis= (TypeError)")

KNOWN = {
    "array/conj_view": _EAGER_CONJ, "array/neg_view": _EAGER_CONJ, "from_dlpack/conj_view": _EAGER_CONJ,
    "array/copy_false": "tandem's __array__ takes NumPy 2's copy= and shares the tensor's memory; PyTorch's has no "
                        "copy= parameter, so NumPy refuses copy=False there",
    "ufunc/sum": _AXIS, "ufunc/sum_value": _AXIS, "ufunc/mean_axis": _AXIS,
    "ufunc/array_plus_tensor": "needs C++ fix (round 5's NumPy operand): PyTorch's reflected add refuses an ndarray "
                               "(a TypeError from Python's fallback); tandem's binding adds it",
    "ufunc/array_plus_tensor_value": "as ufunc/array_plus_tensor",
    "asarray/array_only_dtype": "needs C++ fix: with a dtype, PyTorch's data parser reads an object that has only "
                                "__array__ as a number (TypeError 'must be real number'); tandem's parser says it "
                                "cannot infer the dtype (RuntimeError)",
    "from_dlpack/numpy_negative_strides": "needs C++ fix: tandem's DLPack import refuses negative strides with a "
                                          "ValueError naming them; PyTorch fails computing the storage size "
                                          "(RuntimeError 'Storage size calculation overflowed')",
    "np/reshape_by_tensor": "needs C++ fix: NumPy reads tandem's Tensor as a sequence (the binding fills the "
                            "sequence slots), so a 1-d integer tensor passes as a shape; PyTorch's Tensor is no "
                            "sequence to NumPy (TypeError)",
}
