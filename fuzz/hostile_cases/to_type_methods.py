"""Tensor.to()/.type() and the dtype shorthand methods with hostile arguments, beyond conversion.py and
device_dtype_parsing.py (which hold bad dtype/device names and Python types as dtypes): .to()'s three signatures
(device with dtype, dtype alone, other tensor) with positional and keyword non_blocking/copy/memory_format in every
order, too many positionals, a tensor or a size where a dtype belongs, keywords that belong to another signature,
copy=True/False identity and aliasing, memory formats that do not fit the rank; .type() with non_blocking, legacy
tensor-type strings and classes of the other device, bad keywords; the shorthand methods (.double(), .float(),
.half(), .bfloat16(), .int(), .long(), .short(), .char(), .byte(), .bool(), .cfloat(), .cdouble()) with
memory_format, positionals and bad keywords, their values at the dtype edges (NaN/inf/negatives to integers and
uint8, complex to real), their autograd (a gradient through a float conversion, an integer conversion cutting the
graph) and .cpu() with memory_format and bad arguments. .cuda() is left out: the oracle runs where CUDA is absent."""
import math

from . import R, T


def x(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


def x4(L, d, dtype="float32"):
    return R(L, (2, 3, 4, 5), d, dtype)


def same(a, b):
    """Whether b is the same Python object as a, whether it shares a's storage and b's values."""
    return a is b, a.data_ptr() == b.data_ptr(), b


def alias(L, d, fn, dtype="float32"):
    t = x(L, d, dtype=dtype)
    return same(t, fn(t))


def strides(t):
    return t.stride(), t.is_contiguous(), t


def grad_through(L, d, fn):
    leaf = x(L, d, dtype="float64").requires_grad_()
    fn(leaf).sum().backward()
    return leaf.grad


def grad_state(t):
    return t.requires_grad, t.grad_fn is None, t.is_leaf


EDGE = [math.nan, math.inf, -math.inf, -1.5, 300.7, -129.0, 0.5, 2.0 ** 40]
CASES = {
    # ---- .to(): the device/dtype signature
    "to/device_dtype_positional": lambda L, d: x(L, d).to(d, L.float64),
    "to/device_dtype_non_blocking_positional": lambda L, d: x(L, d).to(d, L.float64, True),
    "to/device_dtype_nb_copy_positional": lambda L, d: x(L, d).to(d, L.float64, False, True),
    "to/device_dtype_five_positionals": lambda L, d: x(L, d).to(d, L.float64, False, True, L.preserve_format),
    "to/device_dtype_six_positionals": lambda L, d: x(L, d).to(d, L.float64, False, True, L.preserve_format, 1),
    "to/device_none_dtype": lambda L, d: x(L, d).to(None, L.float64),
    "to/device_dtype_none": lambda L, d: x(L, d).to(d, None),
    "to/device_obj_dtype": lambda L, d: x(L, d).to(L.device(d), L.int32),
    "to/device_int_dtype": lambda L, d: x(L, "cpu").to(-1, L.float64),
    "to/device_kw_dtype_positional": lambda L, d: x(L, d).to(L.float64, device=d),
    "to/dtype_positional_device_kw_none": lambda L, d: x(L, d).to(L.float64, device=None),
    "to/device_positional_dtype_kw": lambda L, d: x(L, d).to(d, dtype=L.float16),
    "to/device_dtype_copy_kw": lambda L, d: alias(L, d, lambda t: t.to(d, L.float32, copy=True)),
    "to/device_dtype_same_no_copy": lambda L, d: alias(L, d, lambda t: t.to(d, L.float32)),
    "to/device_dtype_nb_kw": lambda L, d: x(L, d).to(d, L.float64, non_blocking=True),
    "to/device_dtype_nb_twice": lambda L, d: x(L, d).to(d, L.float64, True, non_blocking=True),
    "to/device_dtype_copy_twice": lambda L, d: x(L, d).to(d, L.float64, False, True, copy=True),
    "to/device_dtype_memory_format_kw": lambda L, d: strides(x4(L, d).to(d, L.float64,
                                                                         memory_format=L.channels_last)),
    "to/device_memory_format_rank2": lambda L, d: x(L, d).to(d, L.float64, memory_format=L.channels_last),
    "to/device_dtype_str_dtype": lambda L, d: x(L, d).to(d, "float64"),
    "to/device_dtype_python_float": lambda L, d: x(L, d).to(d, float),
    "to/device_dtype_int_dtype": lambda L, d: x(L, d).to(d, 3),
    "to/device_dtype_tensor_dtype": lambda L, d: x(L, d).to(d, x(L, d)),
    "to/device_twice": lambda L, d: x(L, d).to(d, d),
    "to/device_kw_twice": lambda L, d: x(L, d).to(d, device=d),
    "to/dtype_kw_twice": lambda L, d: x(L, d).to(L.float64, dtype=L.float64),
    "to/device_dtype_nb_str": lambda L, d: x(L, d).to(d, L.float64, "no"),
    "to/device_dtype_nb_int": lambda L, d: x(L, d).to(d, L.float64, 1),
    "to/device_dtype_nb_none": lambda L, d: x(L, d).to(d, L.float64, None),
    "to/copy_int": lambda L, d: x(L, d).to(L.float64, copy=1),
    "to/copy_none": lambda L, d: x(L, d).to(L.float64, copy=None),
    "to/copy_str": lambda L, d: x(L, d).to(L.float64, copy="yes"),
    # ---- .to(): the dtype signature
    "to/dtype_nb_positional": lambda L, d: x(L, d).to(L.float64, True),
    "to/dtype_nb_copy_positional": lambda L, d: alias(L, d, lambda t: t.to(L.float32, False, True)),
    "to/dtype_four_positionals": lambda L, d: x(L, d).to(L.float64, False, False, L.contiguous_format),
    "to/dtype_five_positionals": lambda L, d: x(L, d).to(L.float64, False, False, L.contiguous_format, 1),
    "to/dtype_memory_format_positional_bad": lambda L, d: x(L, d).to(L.float64, False, False, "channels_last"),
    "to/dtype_copy_false_same": lambda L, d: alias(L, d, lambda t: t.to(L.float32, copy=False)),
    "to/dtype_copy_false_other": lambda L, d: alias(L, d, lambda t: t.to(L.float64, copy=False)),
    "to/dtype_copy_true_values": lambda L, d: x(L, d).to(L.float32, copy=True) + 0,
    "to/dtype_channels_last": lambda L, d: strides(x4(L, d).to(L.float64, memory_format=L.channels_last)),
    "to/dtype_channels_last_3d_rank4": lambda L, d: x4(L, d).to(L.float64, memory_format=L.channels_last_3d),
    "to/dtype_channels_last_3d_rank5": lambda L, d: strides(R(L, (2, 3, 2, 2, 2), d).to(
        L.float64, memory_format=L.channels_last_3d)),
    "to/dtype_channels_last_rank3": lambda L, d: R(L, (2, 3, 4), d).to(L.float64, memory_format=L.channels_last),
    "to/dtype_preserve_noncontig": lambda L, d: strides(x(L, d, (3, 4)).t().to(L.float64)),
    "to/dtype_contiguous_noncontig": lambda L, d: strides(x(L, d, (3, 4)).t().to(
        L.float64, memory_format=L.contiguous_format)),
    "to/memory_format_only_channels_last": lambda L, d: strides(x4(L, d).to(memory_format=L.channels_last)),
    "to/memory_format_only_same": lambda L, d: alias(L, d, lambda t: t.to(memory_format=L.contiguous_format)),
    "to/contiguous_format_transposed_aliases": lambda L, d: alias(L, d, lambda t: t.t().to(
        memory_format=L.contiguous_format)),
    "to/contiguous_format_transposed_strides": lambda L, d: strides(x(L, d, (3, 4)).t().to(
        memory_format=L.contiguous_format)),
    "to/contiguous_format_expanded": lambda L, d: strides(x(L, d, (1, 3)).expand(4, 3).to(
        memory_format=L.contiguous_format)),
    "to/contiguous_format_channels_last_input": lambda L, d: strides(x4(L, d).to(memory_format=L.channels_last).to(
        memory_format=L.contiguous_format)),
    "to/channels_last_twice_aliases": lambda L, d: (lambda t: (t.to(memory_format=L.channels_last) is t,
                                                               t.stride()))(x4(L, d).to(memory_format=L.channels_last)),
    "to/contiguous_format_permuted_4d": lambda L, d: strides(x4(L, d).permute(0, 2, 1, 3).to(
        memory_format=L.contiguous_format)),
    "to/contiguous_format_copy_true": lambda L, d: strides(x(L, d, (3, 4)).t().to(
        copy=True, memory_format=L.contiguous_format)),
    "to/memory_format_str": lambda L, d: x(L, d).to(memory_format="contiguous_format"),
    "to/memory_format_none": lambda L, d: x(L, d).to(L.float64, memory_format=None),
    "to/memory_format_dtype": lambda L, d: x(L, d).to(L.float64, memory_format=L.float64),
    "to/dtype_tensor_kw": lambda L, d: x(L, d).to(dtype=x(L, d)),
    "to/dtype_size": lambda L, d: x(L, d).to(L.Size([2, 3])),
    "to/dtype_list": lambda L, d: x(L, d).to([L.float64]),
    "to/dtype_layout_positional": lambda L, d: x(L, d).to(L.strided),
    "to/non_blocking_only": lambda L, d: x(L, d).to(non_blocking=True),
    "to/copy_only_true": lambda L, d: alias(L, d, lambda t: t.to(copy=True)),
    "to/copy_only_false": lambda L, d: alias(L, d, lambda t: t.to(copy=False)),
    "to/bool_positional": lambda L, d: x(L, d).to(True),
    "to/int_positional_negative": lambda L, d: x(L, d).to(-1),
    "to/float_positional": lambda L, d: x(L, d).to(1.5),
    "to/unknown_kw_with_dtype": lambda L, d: x(L, d).to(L.float64, pin_memory=True),
    "to/requires_grad_kw": lambda L, d: x(L, d).to(L.float64, requires_grad=True),
    # ---- .to(): the other-tensor signature
    "to/other_nb_positional": lambda L, d: x(L, d).to(x(L, d, (1,), "int16"), True),
    "to/other_nb_copy_positional": lambda L, d: alias(L, d, lambda t: t.to(x(L, d, (1,)), False, True)),
    "to/other_same_no_copy": lambda L, d: alias(L, d, lambda t: t.to(x(L, d, (5,)))),
    "to/other_copy_kw": lambda L, d: alias(L, d, lambda t: t.to(x(L, d, (1,)), copy=True)),
    "to/other_memory_format": lambda L, d: strides(x4(L, d).to(x(L, d, (1,), "float64"),
                                                               memory_format=L.channels_last)),
    "to/other_with_dtype_kw": lambda L, d: x(L, d).to(x(L, d, (1,)), dtype=L.float64),
    "to/other_with_device_kw": lambda L, d: x(L, d).to(x(L, d, (1,)), device=d),
    "to/other_then_dtype": lambda L, d: x(L, d).to(x(L, d, (1,)), L.float64),
    "to/other_kw": lambda L, d: x(L, d).to(other=x(L, d, (1,), "float64")),
    "to/other_kw_tensor_name": lambda L, d: x(L, d).to(tensor=x(L, d, (1,), "float64")),
    "to/other_bool_tensor": lambda L, d: x(L, d).to(T(L, [True], d)),
    "to/other_complex_tensor": lambda L, d: x(L, d).to(T(L, [1j], d)),
    "to/other_0d": lambda L, d: x(L, d).to(T(L, 1, d, "int8")),
    "to/other_empty": lambda L, d: x(L, d).to(L.empty(0, dtype=L.float16, device=d)),
    "to/other_requires_grad": lambda L, d: grad_state(x(L, d).to(x(L, d, (1,), "float64").requires_grad_())),
    "to/other_is_self": lambda L, d: (lambda t: same(t, t.to(t)))(x(L, d)),
    "to/other_meta": lambda L, d: x(L, d).to(L.empty(1, device="meta")).shape,
    # ---- .to(): values and autograd
    "to/nan_inf_to_int32": lambda L, d: T(L, EDGE[3:], d).to(L.int32),
    "to/negative_to_uint8": lambda L, d: T(L, [-1.0, -2.5, 255.0, 256.0], d).to(L.uint8),
    "to/int64_to_int8_wraps": lambda L, d: T(L, [127, 128, -129, 1000, -1000], d).to(L.int8),
    "to/int64_to_uint8_wraps": lambda L, d: T(L, [-1, 256, 257, -256], d).to(L.uint8),
    "to/int64_to_bool": lambda L, d: T(L, [0, -1, 2**40], d).to(L.bool),
    "to/float_to_bool_nan": lambda L, d: T(L, [0.0, -0.0, math.nan, 1e-45, math.inf], d).to(L.bool),
    "to/huge_to_half": lambda L, d: T(L, [70000.0, -1e10, 65504.0, 65520.0], d).to(L.float16),
    "to/huge_to_bfloat16": lambda L, d: T(L, [3.5e38, 1e39], d, "float64").to(L.bfloat16),
    "to/complex_to_float": lambda L, d: T(L, [1 + 2j, -3j], d).to(L.float32),
    "to/complex_to_int": lambda L, d: T(L, [1.7 + 2j, -3.2 - 1j], d).to(L.int64),
    "to/complex_to_bool": lambda L, d: T(L, [0j, 1j, 0.5 + 0j], d).to(L.bool),
    "to/bool_to_complex": lambda L, d: T(L, [True, False], d).to(L.complex64),
    "to/int_to_complex_via_other": lambda L, d: T(L, [1, -2], d).to(T(L, [0j], d, "complex128")),
    "to/grad_float64_to_float32": lambda L, d: grad_through(L, d, lambda t: t.to(L.float32) * 2),
    "to/grad_to_half": lambda L, d: grad_through(L, d, lambda t: t.to(L.float16).float() * 3),
    "to/grad_to_complex": lambda L, d: grad_through(L, d, lambda t: t.to(L.complex128).abs()),
    "to/int_cuts_graph": lambda L, d: grad_state(x(L, d).requires_grad_().to(L.int64)),
    "to/int_backward": lambda L, d: x(L, d).requires_grad_().to(L.int64).sum().backward(),
    "to/grad_same_dtype_identity": lambda L, d: grad_state(x(L, d).requires_grad_().to(L.float32)),
    "to/grad_copy_true": lambda L, d: grad_state(x(L, d).requires_grad_().to(L.float32, copy=True)),
    "to/no_grad_mode": lambda L, d: (lambda t: L.no_grad()(lambda: grad_state(t.to(L.float64)))())(
        x(L, d).requires_grad_()),
    # ---- .type()
    "type/non_blocking_kw": lambda L, d: x(L, d).type(L.float64, non_blocking=True),
    "type/non_blocking_positional": lambda L, d: x(L, d).type(L.float64, True),
    "type/three_positionals": lambda L, d: x(L, d).type(L.float64, True, 1),
    "type/str_non_blocking": lambda L, d: x(L, d).type("torch.DoubleTensor", non_blocking=True),
    "type/same_type_identity": lambda L, d: alias(L, d, lambda t: t.type(L.float32)),
    "type/same_str_identity": lambda L, d: alias(L, "cpu", lambda t: t.type("torch.FloatTensor")),
    "type/legacy_byte": lambda L, d: T(L, [-1.0, 300.0], d).type("torch.ByteTensor"),
    "type/legacy_bool": lambda L, d: T(L, [0.0, 2.0], d).type("torch.BoolTensor"),
    "type/legacy_half": lambda L, d: x(L, d).type("torch.HalfTensor"),
    "type/legacy_bfloat16": lambda L, d: x(L, d).type("torch.BFloat16Tensor"),
    "type/legacy_complex": lambda L, d: x(L, d).type("torch.ComplexFloatTensor"),
    "type/legacy_short_class": lambda L, d: x(L, d).type(L.ShortTensor),
    "type/legacy_char_class": lambda L, d: x(L, d).type(L.CharTensor),
    "type/string_no_prefix": lambda L, d: x(L, d).type("DoubleTensor"),
    "type/string_dtype_prefixed": lambda L, d: x(L, d).type("torch.float64"),
    "type/string_empty": lambda L, d: x(L, d).type(""),
    "type/string_sparse": lambda L, d: x(L, d).type("torch.sparse.FloatTensor"),
    "type/tensor_arg": lambda L, d: x(L, d).type(x(L, d, dtype="float64")),
    "type/none": lambda L, d: x(L, "cpu").type(None),
    "type/python_int": lambda L, d: x(L, d).type(int),
    "type/python_bool": lambda L, d: x(L, d).type(bool),
    "type/python_complex": lambda L, d: x(L, d).type(complex),
    "type/python_str_class": lambda L, d: x(L, d).type(str),
    "type/tensor_class": lambda L, d: x(L, d).type(L.Tensor),
    "type/unknown_kw": lambda L, d: x(L, d).type(L.float64, copy=True),
    "type/dtype_twice": lambda L, d: x(L, d).type(L.float64, dtype=L.float64),
    "type/non_blocking_int_positional": lambda L, d: x(L, d).type(L.float64, 1),
    "type/non_blocking_none_kw": lambda L, d: x(L, d).type(L.float64, non_blocking=None),
    "type/memory_format_rank2": lambda L, d: x(L, d).type(L.float64, memory_format=L.channels_last),
    "type/memory_format_channels_last": lambda L, d: strides(x4(L, d).type(L.float64, memory_format=L.channels_last)),
    "type/memory_format_same_dtype": lambda L, d: strides(x4(L, d).type(L.float32, memory_format=L.channels_last)),
    "type/memory_format_str": lambda L, d: x(L, d).type(L.float64, memory_format="channels_last"),
    "type/string_cuda_sparse_name_kw": lambda L, d: x(L, d).type(dtype=[L.float64]),
    "Tensor.type/unbound_no_self": lambda L, d: L.Tensor.type(),
    "Tensor.long/unbound_no_self": lambda L, d: L.Tensor.long(),
    "Tensor.cpu/unbound_not_tensor": lambda L, d: L.Tensor.cpu(1.0),
    "type/returns_str_int8": lambda L, d: T(L, [1], "cpu", "int8").type(),
    "type/returns_str_bool": lambda L, d: T(L, [True], "cpu").type(),
    "type/returns_str_complex": lambda L, d: T(L, [1j], "cpu").type(),
    "type/returns_str_bfloat16": lambda L, d: x(L, "cpu", dtype="bfloat16").type(),
    "type/grad": lambda L, d: grad_through(L, d, lambda t: t.type(L.float32) * 2),
    "type/values_nan_to_int": lambda L, d: T(L, EDGE[3:], d).type(L.int64),
    # ---- the shorthand methods
    "double/memory_format_channels_last": lambda L, d: strides(x4(L, d).double(memory_format=L.channels_last)),
    "float/memory_format_rank2_channels_last": lambda L, d: x(L, d).float(memory_format=L.channels_last),
    "half/memory_format_preserve": lambda L, d: strides(x(L, d, (3, 4)).t().half(memory_format=L.preserve_format)),
    "int/memory_format_contiguous": lambda L, d: strides(x(L, d, (3, 4)).t().int(
        memory_format=L.contiguous_format)),
    "long/memory_format_positional": lambda L, d: x(L, d).long(L.contiguous_format),
    "double/dtype_positional": lambda L, d: x(L, d).double(L.float32),
    "float/dtype_kw": lambda L, d: x(L, d).float(dtype=L.float64),
    "bool/unknown_kw": lambda L, d: x(L, d).bool(copy=True),
    "byte/memory_format_str": lambda L, d: x(L, d).byte(memory_format="channels_last"),
    "short/memory_format_none": lambda L, d: x(L, d).short(memory_format=None),
    "char/two_positionals": lambda L, d: x(L, d).char(L.contiguous_format, L.contiguous_format),
    "cfloat/memory_format": lambda L, d: strides(x4(L, d).cfloat(memory_format=L.channels_last)),
    "cdouble/values_from_int": lambda L, d: T(L, [1, -2], d).cdouble(),
    "bfloat16/memory_format_rank3": lambda L, d: R(L, (2, 3, 4), d).bfloat16(memory_format=L.channels_last),
    "double/same_identity": lambda L, d: alias(L, d, lambda t: t.double(), "float64"),
    "float/same_identity": lambda L, d: alias(L, d, lambda t: t.float()),
    "half/same_identity_channels_last_request": lambda L, d: (lambda t: (t.half(memory_format=L.channels_last)
                                                                         .is_contiguous(), t.is_contiguous()))(
        x4(L, d, "float16")),
    "int/nan_inf": lambda L, d: T(L, EDGE, d).int(),
    "long/nan_inf": lambda L, d: T(L, EDGE, d).long(),
    "short/overflow": lambda L, d: T(L, [40000.0, -40000.0, 32767.9], d).short(),
    "char/overflow": lambda L, d: T(L, [200, -200, 128], d).char(),
    "byte/negative_floats": lambda L, d: T(L, [-1.0, -0.5, 255.5, 511.0], d).byte(),
    "byte/from_int8": lambda L, d: T(L, [-1, -128, 127], d, "int8").byte(),
    "bool/from_float_edges": lambda L, d: T(L, EDGE + [0.0, -0.0], d).bool(),
    "half/from_int_large": lambda L, d: T(L, [65504, 65519, 65520, 2**31 - 1], d).half(),
    "bfloat16/from_int_odd": lambda L, d: T(L, [257, 2**24 + 1, -(2**31)], d).bfloat16(),
    "float/from_int64_large": lambda L, d: T(L, [2**53 + 1, 2**63 - 1], d).float(),
    "double/from_complex": lambda L, d: T(L, [1 + 2j], d).double(),
    "int/from_complex": lambda L, d: T(L, [1.9 - 2j], d).int(),
    "bool/from_complex": lambda L, d: T(L, [0j, 0.0 + 1e-30j], d).bool(),
    "cfloat/from_bool": lambda L, d: T(L, [True, False], d).cfloat(),
    "float/grad": lambda L, d: grad_through(L, d, lambda t: t.float() * t.float()),
    "half/grad": lambda L, d: grad_through(L, d, lambda t: (t.half() * 2).double()),
    "bfloat16/grad": lambda L, d: grad_through(L, d, lambda t: t.bfloat16().double() ** 2),
    "cdouble/grad": lambda L, d: grad_through(L, d, lambda t: (t.cdouble() * 1j).imag),
    "long/cuts_graph": lambda L, d: grad_state(x(L, d).requires_grad_().long()),
    "bool/cuts_graph": lambda L, d: grad_state(x(L, d).requires_grad_().bool()),
    "long/requires_grad_after": lambda L, d: x(L, d).requires_grad_().long().requires_grad_(),
    "float/on_int_requires_grad": lambda L, d: grad_state(T(L, [1, 2], d).float().requires_grad_()),
    "int/empty": lambda L, d: x(L, d, (0, 3)).int(),
    "half/0d": lambda L, d: T(L, 1.5, d, "float64").half(),
    "byte/0d_negative": lambda L, d: T(L, -3, d).byte(),
    # ---- .cpu()
    "cpu/memory_format_channels_last": lambda L, d: strides(x4(L, d).cpu(memory_format=L.channels_last)),
    "cpu/memory_format_rank2_channels_last": lambda L, d: x(L, d).cpu(memory_format=L.channels_last),
    "cpu/positional": lambda L, d: x(L, d).cpu(L.contiguous_format),
    "cpu/unknown_kw": lambda L, d: x(L, d).cpu(non_blocking=True),
    "cpu/identity_on_cpu": lambda L, d: alias(L, "cpu", lambda t: t.cpu()),
    "cpu/grad": lambda L, d: grad_through(L, d, lambda t: t.cpu() * 2),
    "cpu/keeps_dtype": lambda L, d: x(L, d, dtype="bfloat16").cpu().dtype,
    "cpu/memory_format_noncontig": lambda L, d: strides(x(L, "cpu", (3, 4)).t().cpu(
        memory_format=L.contiguous_format)),
    # ---- torch-level conversions with hostile arguments
    "Tensor.to/unbound_no_self": lambda L, d: L.Tensor.to(),
    "Tensor.to/unbound_not_tensor": lambda L, d: L.Tensor.to([1.0], L.float64),
    "Tensor.double/unbound_not_tensor": lambda L, d: L.Tensor.double(1.0),
    "Tensor.type/unbound_not_tensor": lambda L, d: L.Tensor.type("x"),
    "to/int_storage_offset_view": lambda L, d: x(L, d, (4, 4))[1:, 2:].to(L.float64),
    "to/expanded_view": lambda L, d: strides(x(L, d, (1, 3)).expand(4, 3).to(L.float64)),
    "to/expanded_view_same_dtype": lambda L, d: strides(x(L, d, (1, 3)).expand(4, 3).to(L.float32)),
    "to/expanded_view_same_dtype_copy": lambda L, d: strides(x(L, d, (1, 3)).expand(4, 3).to(L.float32, copy=True)),
    "to/zero_stride_channels_last": lambda L, d: strides(x(L, d, (1, 3, 1, 1)).expand(2, 3, 4, 5).to(
        L.float64, memory_format=L.channels_last)),
}

# Tensor.to's parser messages (and to(tensor=y)) follow PyTorch since session 43 (python/src/cuda.cpp).
KNOWN = {
    "cpu/unknown_kw": "by design: tandem's Tensor.cpu takes non_blocking=True (a pinned, asynchronous copy: "
                      "docs/devices.md, docs/compat.md); PyTorch's cpu() has no such keyword",
}
