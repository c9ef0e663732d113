"""Device and dtype parsing: torch.device from odd strings ("cuda:-1", "cpu:1", "cuda:1:2", " cuda", "CUDA",
"mps", "cuda:"), ints, bools, floats, None and index= keywords; device objects compared, hashed, pickled and
used as context managers; dtype objects compared, ordered, hashed, pickled, copied, their attributes and
to_real/to_complex; Python types (float, int, bool, complex) and strings where a dtype belongs; dtype and
device strings in .to()/.type(); set_default_dtype with integer, complex, string and None dtypes (and what
tensor()/arange/zeros then infer), set_default_tensor_type strings and classes, set_default_device misuse;
finfo/iinfo of the wrong kind. Every case that changes a default puts it back (with_defaults)."""
import copy
import pickle

from . import T


def with_defaults(L, fn):
    """fn() with the default dtype and device restored afterwards, whatever fn did or raised."""
    try:
        return fn()
    finally:
        L.set_default_dtype(L.float32)
        L.set_default_device(None)


def dflt(L, dtype, then):
    """then() after set_default_dtype(dtype), the default put back."""
    return with_defaults(L, lambda: (L.set_default_dtype(dtype), then())[1])


def dtype_name(x):
    return str(x.dtype)


def dev(L, *args, **kwargs):
    """A device as (type, index, str): what the harness compares."""
    d = L.device(*args, **kwargs)
    return d.type, d.index, str(d)


CASES = {
    # ---- torch.device strings
    "device/cuda_negative_index": lambda L, d: dev(L, "cuda:-1"),
    "device/cpu_index_1": lambda L, d: dev(L, "cpu:1"),
    "device/two_colons": lambda L, d: dev(L, "cuda:1:2"),
    "device/leading_space": lambda L, d: dev(L, " cuda"),
    "device/trailing_space": lambda L, d: dev(L, "cuda "),
    "device/upper_case": lambda L, d: dev(L, "CUDA"),
    "device/upper_cpu": lambda L, d: dev(L, "CPU"),
    "device/mps": lambda L, d: dev(L, "mps"),
    "device/meta_index": lambda L, d: dev(L, "meta:0"),
    "device/colon_no_index": lambda L, d: dev(L, "cuda:"),
    "device/leading_zero": lambda L, d: dev(L, "cuda:01"),
    "device/plus_index": lambda L, d: dev(L, "cuda:+1"),
    "device/huge_index": lambda L, d: dev(L, "cuda:99999999999"),
    "device/empty": lambda L, d: dev(L, ""),
    "device/unknown": lambda L, d: dev(L, "gpu"),
    "device/xla": lambda L, d: dev(L, "xla"),
    "device/cuda_ok": lambda L, d: dev(L, "cuda:1"),
    "device/index_kw": lambda L, d: dev(L, "cuda", index=1),
    "device/index_positional": lambda L, d: dev(L, "cuda", 1),
    "device/index_negative": lambda L, d: dev(L, "cuda", -1),
    "device/index_twice": lambda L, d: dev(L, "cuda:0", 1),
    "device/index_float": lambda L, d: dev(L, "cuda", 1.0),
    "device/index_bool": lambda L, d: dev(L, "cuda", True),
    "device/index_str": lambda L, d: dev(L, "cuda", "1"),
    "device/index_none": lambda L, d: dev(L, "cuda", None),
    "device/cpu_index_kw": lambda L, d: dev(L, "cpu", index=0),
    "device/int": lambda L, d: dev(L, 0),
    "device/int_negative": lambda L, d: dev(L, -1),
    "device/bool": lambda L, d: dev(L, True),
    "device/float": lambda L, d: dev(L, 1.0),
    "device/none": lambda L, d: dev(L, None),
    "device/no_args": lambda L, d: dev(L),
    "device/from_device": lambda L, d: dev(L, L.device("cuda:1")),
    "device/from_device_with_index": lambda L, d: dev(L, L.device("cuda:1"), 0),
    "device/list": lambda L, d: dev(L, ["cpu"]),
    "device/type_kw": lambda L, d: dev(L, type="cuda", index=1),
    "device/bytes": lambda L, d: dev(L, b"cpu"),
    # ---- device objects
    "device_obj/eq_string": lambda L, d: L.device("cpu") == "cpu",
    "device_obj/eq_same": lambda L, d: L.device("cuda:0") == L.device("cuda", 0),
    "device_obj/eq_no_index": lambda L, d: L.device("cuda") == L.device("cuda:0"),
    "device_obj/hash_equal": lambda L, d: hash(L.device("cuda:1")) == hash(L.device("cuda", 1)),
    "device_obj/dict_key": lambda L, d: {L.device("cpu"): 1}[L.device("cpu")],
    "device_obj/pickle": lambda L, d: dev(L, pickle.loads(pickle.dumps(L.device("cuda:1")))),
    "device_obj/deepcopy": lambda L, d: dev(L, copy.deepcopy(L.device("cuda:1"))),
    "device_obj/repr": lambda L, d: repr(L.device("cuda", 1)),
    "device_obj/repr_no_index": lambda L, d: repr(L.device("cpu")),
    "device_obj/lt": lambda L, d: L.device("cpu") < L.device("cuda"),
    "device_obj/int": lambda L, d: int(L.device("cuda:1")),
    "device_obj/index_attr_set": lambda L, d: setattr(L.device("cpu"), "index", 1),
    "device_obj/context_manager": lambda L, d: with_defaults(L, lambda: (lambda m: (
        m.__enter__(), str(L.zeros(1).device), m.__exit__(None, None, None))[1])(L.device("cpu"))),
    "device_obj/context_meta": lambda L, d: with_defaults(L, lambda: (lambda m: (
        m.__enter__(), str(L.zeros(1).device), m.__exit__(None, None, None))[1])(L.device("meta"))),
    "device_obj/context_restores": lambda L, d: with_defaults(L, lambda: (lambda m: (
        m.__enter__(), m.__exit__(None, None, None), str(L.zeros(1).device))[2])(L.device("meta"))),
    # ---- devices in factories and .to
    "factory/device_cpu_index": lambda L, d: L.zeros(2, device="cpu:1"),
    "factory/device_bad_string": lambda L, d: L.zeros(2, device="cuda:-1"),
    "factory/device_upper": lambda L, d: L.zeros(2, device="CPU"),
    "factory/device_list": lambda L, d: L.zeros(2, device=["cpu"]),
    "factory/device_float": lambda L, d: L.zeros(2, device=0.0),
    "to/device_string_bad": lambda L, d: L.zeros(2).to("cuda:x"),
    "to/dtype_string": lambda L, d: L.zeros(2).to("float32"),
    "to/torch_prefixed_string": lambda L, d: L.zeros(2).to("torch.float64"),
    "to/python_float": lambda L, d: L.zeros(2, dtype=L.int32).to(float),
    "to/python_int": lambda L, d: L.zeros(2).to(int),
    "to/python_bool": lambda L, d: L.ones(2).to(bool),
    "to/python_complex": lambda L, d: L.ones(2).to(complex),
    "to/dtype_twice": lambda L, d: L.zeros(2).to(L.float32, L.float64),
    "to/dtype_then_device": lambda L, d: L.zeros(2).to(L.float64, "cpu"),
    "to/device_then_dtype": lambda L, d: L.zeros(2).to("cpu", L.float64),
    "to/device_dtype_kw": lambda L, d: L.zeros(2).to(device="cpu", dtype=L.int8),
    "to/other_tensor": lambda L, d: L.zeros(2).to(L.ones(1, dtype=L.int16)),
    "to/copy_kw": lambda L, d: (lambda x: x.to(L.float32, copy=True) is x)(L.zeros(2)),
    "to/same_no_copy": lambda L, d: (lambda x: x.to(L.float32) is x)(L.zeros(2)),
    "to/non_blocking_str": lambda L, d: L.zeros(2).to(L.float64, non_blocking="yes"),
    "to/none": lambda L, d: L.zeros(2).to(None),
    "to/no_args": lambda L, d: L.zeros(2).to(),
    "to/layout_kw": lambda L, d: L.zeros(2).to(layout=L.strided),
    # ---- .type()
    "type/no_args": lambda L, d: L.zeros(2, dtype=L.int16).type(),
    "type/string_double": lambda L, d: L.zeros(2).type("torch.DoubleTensor"),
    "type/string_dtype_name": lambda L, d: L.zeros(2).type("float32"),
    "type/string_bad": lambda L, d: L.zeros(2).type("torch.NopeTensor"),
    "type/dtype": lambda L, d: L.zeros(2).type(L.int64),
    "type/legacy_class": lambda L, d: L.zeros(2).type(L.IntTensor),
    "type/python_float": lambda L, d: L.zeros(2, dtype=L.int32).type(float),
    "type/int": lambda L, d: L.zeros(2).type(3),
    "type/dtype_kw": lambda L, d: L.zeros(2).type(dtype=L.float16),
    # ---- dtype objects
    "dtype/eq_alias": lambda L, d: (L.float32 == L.float, L.float64 is L.double, L.int64 is L.long),
    "dtype/eq_string": lambda L, d: L.float32 == "float32",
    "dtype/lt": lambda L, d: L.float32 < L.float64,
    "dtype/hash_alias": lambda L, d: hash(L.float) == hash(L.float32),
    "dtype/pickle_identity": lambda L, d: pickle.loads(pickle.dumps(L.bfloat16)) is L.bfloat16,
    "dtype/deepcopy_identity": lambda L, d: copy.deepcopy(L.complex64) is L.complex64,
    "dtype/copy_identity": lambda L, d: copy.copy(L.int8) is L.int8,
    "dtype/construct": lambda L, d: L.dtype(),
    "dtype/construct_str": lambda L, d: L.dtype("float32"),
    "dtype/repr": lambda L, d: repr(L.half),
    "dtype/attributes": lambda L, d: [(t.is_floating_point, t.is_complex, t.is_signed, t.itemsize) for t in (
        L.float16, L.bfloat16, L.complex128, L.bool, L.uint8, L.int8, L.int64)],
    "dtype/to_complex_int": lambda L, d: L.int32.to_complex(),
    "dtype/to_complex_float16": lambda L, d: L.float16.to_complex(),
    "dtype/to_complex_bfloat16": lambda L, d: L.bfloat16.to_complex(),
    "dtype/to_real_complex": lambda L, d: L.complex128.to_real(),
    "dtype/to_real_int": lambda L, d: L.int16.to_real(),
    "dtype/to_real_bool": lambda L, d: L.bool.to_real(),
    "dtype/set_attribute": lambda L, d: setattr(L.float32, "itemsize", 8),
    "dtype/in_set": lambda L, d: L.double in {L.float64, L.float32},
    # ---- Python types and strings as dtypes in factories
    "factory/dtype_python_float": lambda L, d: dtype_name(L.zeros(2, dtype=float, device=d)),
    "factory/dtype_python_int": lambda L, d: dtype_name(L.zeros(2, dtype=int, device=d)),
    "factory/dtype_python_bool": lambda L, d: dtype_name(L.ones(2, dtype=bool, device=d)),
    "factory/dtype_python_complex": lambda L, d: dtype_name(L.ones(2, dtype=complex, device=d)),
    "factory/dtype_string": lambda L, d: L.zeros(2, dtype="float32", device=d),
    "factory/dtype_str_type": lambda L, d: L.zeros(2, dtype=str, device=d),
    "factory/dtype_object_type": lambda L, d: L.zeros(2, dtype=object, device=d),
    "factory/tensor_dtype_python_float": lambda L, d: L.tensor([1, 2], dtype=float, device=d),
    "factory/arange_dtype_python_int": lambda L, d: L.arange(3.5, dtype=int, device=d),
    "factory/layout_string": lambda L, d: L.zeros(2, layout="strided", device=d),
    "factory/layout_none": lambda L, d: L.zeros(2, layout=None, device=d),
    # ---- set_default_dtype and what factories then infer
    "set_default_dtype/int32": lambda L, d: dflt(L, L.int32, L.get_default_dtype),
    "set_default_dtype/bool": lambda L, d: dflt(L, L.bool, L.get_default_dtype),
    "set_default_dtype/complex64": lambda L, d: dflt(L, L.complex64, L.get_default_dtype),
    "set_default_dtype/string": lambda L, d: dflt(L, "float64", L.get_default_dtype),
    "set_default_dtype/none": lambda L, d: dflt(L, None, L.get_default_dtype),
    "set_default_dtype/python_float": lambda L, d: dflt(L, float, L.get_default_dtype),
    "set_default_dtype/float16_ok": lambda L, d: dflt(L, L.float16, lambda: dtype_name(L.tensor([1.5], device=d))),
    "set_default_dtype/bfloat16_ok": lambda L, d: dflt(L, L.bfloat16, lambda: dtype_name(L.arange(1.5, device=d))),
    "set_default_dtype/float64_complex_infer": lambda L, d: dflt(L, L.float64,
                                                                lambda: dtype_name(L.tensor([1 + 2j], device=d))),
    "set_default_dtype/float16_complex_infer": lambda L, d: dflt(L, L.float16,
                                                                lambda: dtype_name(L.tensor([1j], device=d))),
    "set_default_dtype/float64_zeros": lambda L, d: dflt(L, L.float64, lambda: dtype_name(L.zeros(1, device=d))),
    "set_default_dtype/float64_linspace": lambda L, d: dflt(L, L.float64,
                                                           lambda: dtype_name(L.linspace(0, 1, 3, device=d))),
    "set_default_dtype/float64_int_tensor": lambda L, d: dflt(L, L.float64, lambda: dtype_name(L.tensor([1], device=d))),
    "set_default_dtype/float64_scalar_promotion": lambda L, d: dflt(
        L, L.float64, lambda: dtype_name(L.arange(3, device=d) * 1.5)),
    "set_default_dtype/float16_randn": lambda L, d: dflt(L, L.float16, lambda: dtype_name(L.randn(2, device=d))),
    "set_default_dtype/failed_keeps_old": lambda L, d: with_defaults(L, lambda: (
        L.set_default_dtype(L.float64), _swallow(lambda: L.set_default_dtype(L.int8)), L.get_default_dtype())[2]),
    "set_default_dtype/no_args": lambda L, d: L.set_default_dtype(),
    # ---- set_default_tensor_type
    "set_default_tensor_type/double_string": lambda L, d: with_defaults(L, lambda: (
        L.set_default_tensor_type("torch.DoubleTensor"), L.get_default_dtype())[1]),
    "set_default_tensor_type/class": lambda L, d: with_defaults(L, lambda: (
        L.set_default_tensor_type(L.DoubleTensor), dtype_name(L.tensor([1.5])))[1]),
    "set_default_tensor_type/int_string": lambda L, d: with_defaults(L, lambda: L.set_default_tensor_type(
        "torch.IntTensor")),
    "set_default_tensor_type/bad_string": lambda L, d: with_defaults(L, lambda: L.set_default_tensor_type("float")),
    "set_default_tensor_type/missing_module": lambda L, d: with_defaults(L, lambda: L.set_default_tensor_type(
        "nosuchmodule.FloatTensor")),
    "set_default_tensor_type/missing_attribute": lambda L, d: with_defaults(L, lambda: L.set_default_tensor_type(
        "torch.NopeTensor")),
    "set_default_tensor_type/numpy_type": lambda L, d: with_defaults(L, lambda: L.set_default_tensor_type(
        "numpy.float32")),
    "set_default_tensor_type/int": lambda L, d: with_defaults(L, lambda: L.set_default_tensor_type(3)),
    "set_default_tensor_type/dtype": lambda L, d: with_defaults(L, lambda: L.set_default_tensor_type(L.float64)),
    "set_default_tensor_type/half_string": lambda L, d: with_defaults(L, lambda: (
        L.set_default_tensor_type("torch.HalfTensor"), L.get_default_dtype())[1]),
    # ---- set_default_device
    "set_default_device/cpu": lambda L, d: with_defaults(L, lambda: (L.set_default_device("cpu"),
                                                                     str(L.zeros(1).device))[1]),
    "set_default_device/meta": lambda L, d: with_defaults(L, lambda: (L.set_default_device("meta"),
                                                                      str(L.ones(2).device), L.ones(2).shape)[1:]),
    "set_default_device/bad_string": lambda L, d: with_defaults(L, lambda: L.set_default_device("cuda:-1")),
    "set_default_device/float": lambda L, d: with_defaults(L, lambda: L.set_default_device(1.5)),
    "set_default_device/get": lambda L, d: with_defaults(L, lambda: (L.set_default_device("meta"),
                                                                     str(L.get_default_device()))[1]),
    "set_default_device/get_after_none": lambda L, d: with_defaults(L, lambda: (L.set_default_device(None),
                                                                                str(L.get_default_device()))[1]),
    "set_default_device/explicit_wins": lambda L, d: with_defaults(L, lambda: (
        L.set_default_device("meta"), str(L.zeros(1, device="cpu").device))[1]),
    "set_default_device/tensor_from_data": lambda L, d: with_defaults(L, lambda: (
        L.set_default_device("meta"), str(L.tensor([1.0]).device))[1]),
    # ---- finfo / iinfo
    "finfo/int": lambda L, d: L.finfo(L.int32),
    "finfo/bool": lambda L, d: L.finfo(L.bool),
    "finfo/string": lambda L, d: L.finfo("float32"),
    "finfo/default": lambda L, d: L.finfo().eps,
    "finfo/complex64": lambda L, d: (L.finfo(L.complex64).eps, str(L.finfo(L.complex64).dtype)),
    "finfo/bfloat16": lambda L, d: (L.finfo(L.bfloat16).tiny, L.finfo(L.bfloat16).bits,
                                    L.finfo(L.bfloat16).resolution),
    "finfo/float16_fields": lambda L, d: (L.finfo(L.float16).max, L.finfo(L.float16).smallest_normal,
                                          L.finfo(L.float16).min),
    "finfo/python_float": lambda L, d: (L.finfo(float).eps, str(L.finfo(float).dtype)),
    "iinfo/float": lambda L, d: L.iinfo(L.float32),
    "iinfo/bool": lambda L, d: L.iinfo(L.bool),
    "iinfo/uint8": lambda L, d: (L.iinfo(L.uint8).max, L.iinfo(L.uint8).min, L.iinfo(L.uint8).bits),
    "iinfo/int64_dtype": lambda L, d: str(L.iinfo(L.int64).dtype),
    "iinfo/none": lambda L, d: L.iinfo(None),
    "iinfo/python_int": lambda L, d: (L.iinfo(int).max, str(L.iinfo(int).dtype)),
}


def _swallow(fn):
    try:
        fn()
    except Exception:  # noqa: BLE001 - the case checks the state after a refused call
        pass


_CPP = "needs C++: "
_DEVICE_WORDS = (_CPP + "tandem.device and the factories' device argument are parsed in the binding, which words a "
                 "wrong type its own way (PyTorch lists its overloads); same exception type")
_DEVICE_TYPES = ("tandem knows the cpu, cuda and meta device types; PyTorch's parser also takes mps, xla, ipu, ... "
                 "(a tensor on them fails later there), and its message lists them all")
_CPU_INDEX = ("tandem's CPU device has one index: 'cpu:1' is refused and cpu/meta index 0 reads as no index "
              "(docs/devices.md); PyTorch keeps the index it was given")
_DTYPE_WORDS = _CPP + "the binding's dtype argument check words a wrong type its own way (TypeError both)"
_NO_COMPLEX32 = "tandem has no complex32 (docs/compat.md: chalf)"
_NANOBIND = (_CPP + "nanobind's own wording for a missing constructor, a read-only property or a comparison the "
             "type does not define (same exception type)")
KNOWN = {
    "device/bool": _DEVICE_WORDS, "device/float": _DEVICE_WORDS, "device/list": _DEVICE_WORDS,
    "device/no_args": _DEVICE_WORDS, "device/none": _DEVICE_WORDS, "device/index_float": _DEVICE_WORDS,
    "device/index_str": _DEVICE_WORDS, "factory/device_float": _DEVICE_WORDS, "factory/device_list": _DEVICE_WORDS,
    "set_default_device/float": _DEVICE_WORDS, "device/huge_index": _DEVICE_WORDS,
    "device/index_bool": _CPP + "the device binding takes a bool index as an int; PyTorch's parser refuses it",
    "device/from_device_with_index": _CPP + "the device binding reads device(device, index) as a device string with "
                                     "two indices (RuntimeError); PyTorch's parser wants a str (TypeError)",
    "device/mps": _DEVICE_TYPES, "device/xla": _DEVICE_TYPES, "device/unknown": _DEVICE_TYPES,
    "device/upper_case": _DEVICE_TYPES, "device/upper_cpu": _DEVICE_TYPES, "factory/device_upper": _DEVICE_TYPES,
    "device/cpu_index_1": _CPU_INDEX, "device/cpu_index_kw": _CPU_INDEX, "device/meta_index": _CPU_INDEX,
    "factory/device_cpu_index": _CPU_INDEX,
    "device_obj/eq_string": "tandem.device compares equal to its string (docs/devices.md); PyTorch's does not",
    "device_obj/index_attr_set": _NANOBIND, "device_obj/lt": _NANOBIND, "dtype/construct": _NANOBIND,
    "dtype/construct_str": _NANOBIND, "dtype/lt": _NANOBIND, "dtype/set_attribute": _NANOBIND,
    "device_obj/int": _NANOBIND,
    "dtype/to_complex_bfloat16": _NO_COMPLEX32, "dtype/to_complex_float16": _NO_COMPLEX32,
    "set_default_dtype/float16_complex_infer": _NO_COMPLEX32,
    "factory/dtype_object_type": _DTYPE_WORDS, "factory/dtype_str_type": _DTYPE_WORDS,
    "factory/dtype_string": _DTYPE_WORDS,
    "to/layout_kw": _CPP + "Tensor.to has no layout keyword in either library; the binding's TypeError is "
                    "Python's 'unexpected keyword' one",
}
