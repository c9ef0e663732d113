"""Storages and resizing beyond views.py's: resize_/resize_as_/set_ of views, tensors that require grad, shared
storages and memory formats, set_ with every argument form; untyped_storage()/storage() methods (nbytes, size,
resize_ of a shared storage, tolist, copy_ between storages and devices, slicing, element access, fill_, type
conversions, element_size, data_ptr agreement), as_strided_ on views, share_memory_/is_shared, tensors built from
storages (Tensor.new, tensor.set_(storage), torch.tensor(storage)), and storage of an emulated GPU tensor."""
from . import T

HUGE = 2**62


def ar(L, d, n=6, dtype=None):
    return L.arange(float(n), device=d, dtype=getattr(L, dtype) if dtype else None)


def U(L, d, n=6, dtype=None):
    """The untyped storage of an arange: 8 * n bytes of float64 unless dtype says otherwise."""
    return ar(L, d, n, dtype or "float64").untyped_storage()


def after(x, fn):
    """fn(x) runs for its effect; x afterwards (values, shape)."""
    fn(x)
    return x


def grad_leaf(L, d):
    return L.ones(4, device=d, requires_grad=True)


CASES = {
    # ---- resize_ on views, grads, modes
    "resize_/view_grow": lambda L, d: ar(L, d)[:2].resize_(4),
    "resize_/view_shrink_ok": lambda L, d: ar(L, d)[1:5].resize_(2),
    "resize_/transposed_same_numel": lambda L, d: ar(L, d).reshape(2, 3).t().resize_(3, 2).stride(),
    "resize_/transposed_grow": lambda L, d: ar(L, d).reshape(2, 3).t().resize_(7).shape,
    "resize_/requires_grad_leaf": lambda L, d: grad_leaf(L, d).resize_(2),
    "resize_/requires_grad_no_grad_ok": lambda L, d: (lambda x: (L.no_grad().__enter__(), x.resize_(2),
                                                                 L.set_grad_enabled(True))[1])(grad_leaf(L, d)),
    "resize_/requires_grad_nonleaf": lambda L, d: (grad_leaf(L, d) * 2).resize_(2),
    "resize_/detached_ok": lambda L, d: grad_leaf(L, d).detach().resize_(2),
    "resize_/same_size_requires_grad": lambda L, d: grad_leaf(L, d).resize_(4),
    "resize_/tuple_arg": lambda L, d: ar(L, d).resize_((2, 3)),
    "resize_/list_arg": lambda L, d: ar(L, d).resize_([3, 2]),
    "resize_/float_size": lambda L, d: ar(L, d).resize_(2.0),
    "resize_/str_size": lambda L, d: ar(L, d).resize_("2"),
    "resize_/none_size": lambda L, d: ar(L, d).resize_(None),
    "resize_/tensor_size": lambda L, d: ar(L, d).resize_(T(L, 2)).shape,
    "resize_/size_object": lambda L, d: ar(L, d).resize_(L.Size([3, 2])),
    "resize_/no_args": lambda L, d: ar(L, d).resize_(),
    "resize_/zero_dim": lambda L, d: ar(L, d).resize_(()).shape,
    "resize_/memory_format_channels_last": lambda L, d: L.zeros(2, 3, 4, 5, device=d).resize_(
        2, 3, 4, 5, memory_format=L.channels_last).stride(),
    "resize_/memory_format_wrong_rank": lambda L, d: L.zeros(6, device=d).resize_(2, 3, memory_format=L.channels_last),
    "resize_/memory_format_preserve": lambda L, d: L.zeros(6, device=d).resize_(2, 3, memory_format=L.preserve_format),
    "resize_/memory_format_str": lambda L, d: L.zeros(6, device=d).resize_(2, 3, memory_format="contiguous"),
    "resize_/shared_storage_grow": lambda L, d: (lambda x: (x[:2].resize_(10), x.shape)[1])(ar(L, d)),
    "resize_/int_keeps_values": lambda L, d: ar(L, d, dtype="int32").resize_(2, 2),
    "resize_/bool_keeps_values": lambda L, d: T(L, [True, False, True], d).resize_(2),
    "resize_/complex_keeps_values": lambda L, d: T(L, [1 + 2j, 3j, 4], d).resize_(1, 2),
    "resize_/inference_tensor": lambda L, d: (lambda m: (m.__enter__(), L.ones(3, device=d), m.__exit__(None, None, None))[1])(
        L.inference_mode()).resize_(2),
    "resize_/grow_then_slice_values": lambda L, d: ar(L, d).resize_(2).resize_(6)[:2],
    "resize_as_/different_dtype": lambda L, d: ar(L, d).resize_as_(L.zeros(2, 2, device=d, dtype=L.int64)),
    "resize_as_/not_tensor": lambda L, d: ar(L, d).resize_as_([1, 2]),
    "resize_as_/requires_grad": lambda L, d: grad_leaf(L, d).resize_as_(L.zeros(2, device=d)),
    "resize_as_/channels_last_source": lambda L, d: L.zeros(24, device=d).resize_as_(
        L.zeros(1, 2, 3, 4, device=d).to(memory_format=L.channels_last)).stride(),
    "resize_as_/memory_format_kw": lambda L, d: L.zeros(24, device=d).resize_as_(
        L.zeros(1, 2, 3, 4, device=d), memory_format=L.channels_last).stride(),
    "resize_as_/empty": lambda L, d: ar(L, d).resize_as_(L.zeros(0, 3, device=d)).shape,
    # ---- set_
    "set_/no_args_empties": lambda L, d: ar(L, d).set_().shape,
    "set_/storage_whole": lambda L, d: L.empty(0, device=d, dtype=L.float64).set_(U(L, d)),
    "set_/storage_offset_size": lambda L, d: L.empty(0, device=d, dtype=L.float64).set_(U(L, d), 2, (2, 2)),
    "set_/storage_offset_size_stride": lambda L, d: L.empty(0, device=d, dtype=L.float64).set_(U(L, d), 1, (2, 2),
                                                                                              (1, 2)),
    "set_/storage_size_list": lambda L, d: L.empty(0, device=d, dtype=L.float64).set_(U(L, d), 0, [3]),
    "set_/storage_kwargs": lambda L, d: L.empty(0, device=d, dtype=L.float64).set_(
        source=U(L, d), storage_offset=1, size=(2,), stride=(2,)),
    "set_/storage_zero_stride": lambda L, d: L.empty(0, device=d, dtype=L.float64).set_(U(L, d), 3, (4,), (0,)),
    "set_/storage_size_stride_rank_mismatch": lambda L, d: L.empty(0, device=d, dtype=L.float64).set_(
        U(L, d), 0, (2, 2), (1,)),
    "set_/storage_float_offset": lambda L, d: L.empty(0, device=d, dtype=L.float64).set_(U(L, d), 1.0, (2,)),
    "set_/storage_end_exact_ok": lambda L, d: L.empty(0, device=d, dtype=L.float64).set_(U(L, d), 5, (1,)),
    "set_/storage_empty_size_past_end": lambda L, d: L.empty(0, device=d, dtype=L.float64).set_(U(L, d), 100,
                                                                                                (0,)).shape,
    "set_/storage_odd_bytes_int16": lambda L, d: L.empty(0, device=d, dtype=L.float32).set_(
        ar(L, d, 3, "int16").untyped_storage()).shape,
    "set_/typed_storage": lambda L, d: L.empty(0, device=d).set_(ar(L, d, 4, "float32").storage()),
    "set_/typed_storage_dtype_differs": lambda L, d: L.empty(0, device=d).set_(ar(L, d, 4, "float64").storage()),
    "set_/tensor_dtype_differs": lambda L, d: L.empty(0, device=d).set_(ar(L, d, 4, "float64")),
    "set_/tensor_view_keeps_offset": lambda L, d: L.empty(0, device=d).set_(ar(L, d)[2:]).storage_offset(),
    "set_/tensor_shares": lambda L, d: (lambda s: (L.empty(0, device=d).set_(s).fill_(3.0), s)[1])(ar(L, d)),
    "set_/self": lambda L, d: (lambda x: x.set_(x))(ar(L, d)),
    "set_/requires_grad_leaf": lambda L, d: grad_leaf(L, d).set_(ar(L, d)),
    "set_/requires_grad_no_grad_ok": lambda L, d: (lambda x: (L.set_grad_enabled(False), x.set_(ar(L, d, 4)),
                                                              L.set_grad_enabled(True))[1])(grad_leaf(L, d)),
    "set_/not_storage": lambda L, d: L.empty(0, device=d).set_([1.0, 2.0]),
    "set_/int_source": lambda L, d: L.empty(0, device=d).set_(3),
    "set_/size_without_offset": lambda L, d: L.empty(0, device=d, dtype=L.float64).set_(U(L, d), size=(2,)),
    "set_/view_of_other": lambda L, d: (lambda x: (x[1:3].set_(ar(L, d, 2)), x)[1])(ar(L, d)),
    # ---- as_strided_ on views
    "as_strided_/view_offset_absolute": lambda L, d: ar(L, d)[2:].as_strided_((2,), (1,)),
    "as_strided_/view_explicit_offset": lambda L, d: ar(L, d)[2:].as_strided_((2,), (1,), 1),
    "as_strided_/view_past_storage": lambda L, d: ar(L, d)[2:].as_strided_((3,), (2,), 2),
    "as_strided_/requires_grad": lambda L, d: grad_leaf(L, d).as_strided_((2,), (2,)),
    "as_strided_/zero_stride_ok": lambda L, d: ar(L, d).as_strided_((3, 2), (0, 1)),
    "as_strided_/storage_offset_kw": lambda L, d: ar(L, d).as_strided_(size=(2,), stride=(3,), storage_offset=1),
    "as_strided/view_of_view": lambda L, d: ar(L, d, 12).reshape(3, 4)[1:].t().as_strided((2, 2), (4, 1), 1),
    "as_strided/float_size": lambda L, d: ar(L, d).as_strided((2.0,), (1,)),
    "as_strided/stride_none": lambda L, d: ar(L, d).as_strided((2,), None),
    # ---- untyped_storage()
    "untyped_storage/nbytes": lambda L, d: ar(L, d, 5, "float32").untyped_storage().nbytes(),
    "untyped_storage/size": lambda L, d: ar(L, d, 5, "int16").untyped_storage().size(),
    "untyped_storage/len": lambda L, d: len(ar(L, d, 5, "int16").untyped_storage()),
    "untyped_storage/view_whole": lambda L, d: ar(L, d, 8, "float32")[2:4].untyped_storage().nbytes(),
    "untyped_storage/element_size": lambda L, d: ar(L, d, 5).untyped_storage().element_size(),
    "untyped_storage/tolist": lambda L, d: T(L, [1, 258], d, "int16").untyped_storage().tolist(),
    "untyped_storage/getitem": lambda L, d: T(L, [1, 258], d, "int16").untyped_storage()[2],
    "untyped_storage/getitem_slice": lambda L, d: T(L, [1, 258], d, "int16").untyped_storage()[1:3].tolist(),
    "untyped_storage/getitem_slice_step": lambda L, d: T(L, [1, 258], d, "int16").untyped_storage()[::2],
    "untyped_storage/getitem_float": lambda L, d: T(L, [1, 258], d, "int16").untyped_storage()[1.0],
    "untyped_storage/setitem_then_tensor": lambda L, d: (lambda x: (x.untyped_storage().__setitem__(0, 7), x)[1])(
        T(L, [1, 2], d, "int16")),
    "untyped_storage/setitem_negative_value": lambda L, d: T(L, [1, 2], d, "int16").untyped_storage().__setitem__(
        0, -1),
    "untyped_storage/fill_then_tensor": lambda L, d: (lambda x: (x.untyped_storage().fill_(1), x)[1])(
        T(L, [0, 0], d, "int16")),
    "untyped_storage/fill_negative": lambda L, d: T(L, [0, 0], d, "int16").untyped_storage().fill_(-1).tolist(),
    "untyped_storage/fill_bool": lambda L, d: T(L, [0, 0], d, "int16").untyped_storage().fill_(True).tolist(),
    "untyped_storage/fill_str": lambda L, d: T(L, [0, 0], d, "int16").untyped_storage().fill_("1"),
    "untyped_storage/setitem_300": lambda L, d: (lambda s: (s.__setitem__(0, 300), s.tolist())[1])(
        T(L, [0], d, "int16").untyped_storage()),
    "untyped_storage/setitem_slice_300": lambda L, d: (lambda s: (s.__setitem__(slice(0, 2), 300), s.tolist())[1])(
        T(L, [0], d, "int16").untyped_storage()),
    "untyped_storage/setitem_float_value": lambda L, d: T(L, [0], d, "int16").untyped_storage().__setitem__(0, 1.5),
    "untyped_storage/setitem_float_key": lambda L, d: T(L, [0], d, "int16").untyped_storage().__setitem__(1.0, 1),
    "untyped_storage/getitem_bool": lambda L, d: T(L, [0], d, "int16").untyped_storage()[True],
    "untyped_storage/resize_bool": lambda L, d: T(L, [0], d, "int16").untyped_storage().resize_(True),
    "untyped_storage/copy_int": lambda L, d: T(L, [0], d, "int16").untyped_storage().copy_(3),
    "untyped_storage/fill_float": lambda L, d: (lambda x: (x.untyped_storage().fill_(1.5), x)[1])(
        T(L, [0, 0], d, "int16")),
    "untyped_storage/resize_grow_shared": lambda L, d: (lambda x: (x.untyped_storage().resize_(32), x,
                                                                   x.untyped_storage().nbytes())[1:])(
        T(L, [1.0, 2.0], d, "float64")),
    "untyped_storage/resize_shrink_then_read": lambda L, d: (lambda x: (x.untyped_storage().resize_(8), x)[1])(
        T(L, [1.0, 2.0], d, "float64")),
    "untyped_storage/resize_float": lambda L, d: T(L, [1.0], d).untyped_storage().resize_(8.0),
    "untyped_storage/copy_between": lambda L, d: (lambda a, b: (a.untyped_storage().copy_(b.untyped_storage()), a)[1])(
        L.zeros(3, device=d), ar(L, d, 3, "float32")),
    "untyped_storage/copy_size_mismatch": lambda L, d: L.zeros(3, device=d).untyped_storage().copy_(
        L.zeros(4, device=d).untyped_storage()),
    "untyped_storage/copy_from_cpu": lambda L, d: (lambda a: (a.untyped_storage().copy_(
        ar(L, "cpu", 3, "float32").untyped_storage()), a)[1])(L.zeros(3, device=d)),
    "untyped_storage/copy_not_storage": lambda L, d: L.zeros(3, device=d).untyped_storage().copy_(L.ones(3)),
    "untyped_storage/clone_independent": lambda L, d: (lambda x: (x.untyped_storage().clone().fill_(0), x)[1])(
        T(L, [1, 2], d, "int16")),
    "untyped_storage/cpu_tolist": lambda L, d: T(L, [1.0], d, "float32").untyped_storage().cpu().tolist(),
    "untyped_storage/data_ptr_matches": lambda L, d: (lambda x: x.untyped_storage().data_ptr() == x.data_ptr())(
        ar(L, d)),
    "untyped_storage/data_ptr_view": lambda L, d: (lambda x: x[2:].untyped_storage().data_ptr() == x.data_ptr())(
        ar(L, d)),
    "untyped_storage/same_object_twice": lambda L, d: (lambda x: x.untyped_storage().data_ptr() ==
                                                       x.view(2, 3).untyped_storage().data_ptr())(ar(L, d)),
    "untyped_storage/is_shared": lambda L, d: ar(L, "cpu").untyped_storage().is_shared(),
    "untyped_storage/element_access_bool": lambda L, d: T(L, [True, False], d).untyped_storage().tolist(),
    "untyped_storage/tensor_from_storage": lambda L, d: L.tensor(T(L, [1, 2], "cpu", "int8").untyped_storage()),
    "untyped_storage/frombuffer_storage": lambda L, d: L.frombuffer(bytearray(b"\x01\x02"), dtype=L.uint8)
    .untyped_storage().tolist(),
    "UntypedStorage/from_list": lambda L, d: L.UntypedStorage([1, 2, 300]).tolist(),
    "UntypedStorage/from_list_ok": lambda L, d: L.UntypedStorage([1, 2, 3]).tolist(),
    "UntypedStorage/float_size": lambda L, d: L.UntypedStorage(3.0),
    "UntypedStorage/none": lambda L, d: L.UntypedStorage(None),
    "UntypedStorage/str": lambda L, d: L.UntypedStorage("ab"),
    "UntypedStorage/float_items": lambda L, d: L.UntypedStorage((1, 2.5)),
    "UntypedStorage/negative_items": lambda L, d: L.UntypedStorage([1, -2]).tolist(),
    "UntypedStorage/two_ints": lambda L, d: L.UntypedStorage(3, 4),
    "UntypedStorage/device_kw": lambda L, d: L.UntypedStorage(4, device="cpu").nbytes(),
    "UntypedStorage/zero_size_ok": lambda L, d: L.UntypedStorage(0).tolist(),
    # ---- storage() (TypedStorage)
    "storage/size_dtype": lambda L, d: (lambda s: (s.size(), str(s.dtype)))(ar(L, d, 5, "int32").storage()),
    "storage/tolist_view": lambda L, d: ar(L, d, 5, "float32")[2:].storage().tolist(),
    "storage/getitem_negative": lambda L, d: ar(L, d, 5, "float32").storage()[-1],
    "storage/getitem_oob": lambda L, d: ar(L, d, 5, "float32").storage()[5],
    "storage/setitem": lambda L, d: (lambda x: (x.storage().__setitem__(1, 9.5), x)[1])(ar(L, d, 3, "float32")),
    "storage/setitem_slice": lambda L, d: (lambda x: (x.storage().__setitem__(slice(0, 2), 4.0), x)[1])(
        ar(L, d, 3, "float32")),
    "storage/fill_": lambda L, d: (lambda x: (x.storage().fill_(2), x)[1])(ar(L, d, 3, "int64")),
    "storage/nbytes": lambda L, d: ar(L, d, 3, "float16").storage().nbytes(),
    "storage/element_size": lambda L, d: ar(L, d, 3, "complex64").storage().element_size(),
    "storage/resize_grow": lambda L, d: (lambda x: (x.storage().resize_(6), x.storage().size())[1])(
        ar(L, d, 3, "float32")),
    "storage/float": lambda L, d: ar(L, d, 3, "int32").storage().float().tolist(),
    "storage/half_values": lambda L, d: T(L, [1.5, -2.25], d, "float32").storage().half().tolist(),
    "storage/bool_of_ints": lambda L, d: T(L, [0, 3], d, "int64").storage().bool().tolist(),
    "storage/complex_float": lambda L, d: T(L, [1.5], d, "float32").storage().complex_float().tolist(),
    "storage/float_is_copy": lambda L, d: (lambda x: (x.storage().float().fill_(9.0), x)[1])(ar(L, d, 3, "float32")),
    "storage/double_dtype": lambda L, d: str(ar(L, d, 3, "int32").storage().double().dtype),
    "storage/int_of_float": lambda L, d: T(L, [1.7, -2.7], d, "float32").storage().int().tolist(),
    "storage/type_str": lambda L, d: ar(L, d, 3, "int32").storage().type(),
    "storage/untyped_nbytes": lambda L, d: ar(L, d, 3, "int32").storage().untyped().nbytes(),
    "storage/bool_tolist": lambda L, d: T(L, [True, False], d).storage().tolist(),
    "storage/complex_tolist": lambda L, d: T(L, [1 + 2j], d).storage().tolist(),
    "storage/bfloat16_tolist": lambda L, d: T(L, [1.5, -2.0], d, "bfloat16").storage().tolist(),
    "TypedStorage/list_dtype": lambda L, d: L.TypedStorage([1, 2], dtype=L.float32).tolist(),
    "TypedStorage/negative_size": lambda L, d: L.TypedStorage(-1, dtype=L.float32),
    "TypedStorage/no_dtype": lambda L, d: L.TypedStorage(2).dtype,
    "FloatStorage/ok": lambda L, d: L.FloatStorage(3).size(),
    "FloatStorage/list": lambda L, d: L.FloatStorage([1.5, 2.5]).tolist(),
    "LongStorage/floats": lambda L, d: L.LongStorage([1.5, 2.5]).tolist(),
    # ---- Tensor.new from a storage / share_memory_
    "new/storage": lambda L, d: ar(L, "cpu", 3, "float32").new(ar(L, "cpu", 3, "float32").storage()),
    "new/untyped_storage": lambda L, d: ar(L, "cpu", 3, "float32").new(ar(L, "cpu", 3, "float32").untyped_storage()),
    "new/storage_dtype_differs": lambda L, d: ar(L, "cpu", 3, "float32").new(ar(L, "cpu", 3, "int64").storage()),
    "new/sizes": lambda L, d: ar(L, d, 3, "float32").new(2, 3).shape,
    "new/list": lambda L, d: ar(L, d, 3, "int32").new([1, 2]),
    "new/tensor": lambda L, d: ar(L, "cpu", 3, "float32").new(ar(L, "cpu", 2, "float32")),
    "new/tensor_dtype_differs": lambda L, d: ar(L, "cpu", 3, "float32").new(ar(L, "cpu", 2, "int64")),
    "new/negative": lambda L, d: ar(L, d, 3, "float32").new(-1),
    "new/empty": lambda L, d: ar(L, d, 3, "float32").new().shape,
    "share_memory_/values_kept": lambda L, d: ar(L, "cpu").share_memory_(),
    "share_memory_/is_shared_view": lambda L, d: (lambda x: (x.share_memory_(), x[2:].is_shared())[1])(ar(L, "cpu")),
    "share_memory_/requires_grad": lambda L, d: grad_leaf(L, "cpu").share_memory_().requires_grad,
    "share_memory_/empty": lambda L, d: L.zeros(0).share_memory_().is_shared(),
    "share_memory_/after_view_taken": lambda L, d: (lambda x: (lambda v: (x.share_memory_(), v.add_(1), x)[2])(x[:2]))(
        ar(L, "cpu")),
    "is_shared/fresh": lambda L, d: ar(L, "cpu").is_shared(),
    "is_pinned/cpu": lambda L, d: ar(L, "cpu").is_pinned(),
}

KNOWN = {
    "as_strided/float_size": "needs C++: the binding's size parser words a float element its own way "
                             "(TypeError both)",
    "as_strided/stride_none": "needs C++: nanobind's overload error for a None stride (TypeError both)",
    "TypedStorage/negative_size": "PyTorch's message is its allocator's internal enforce (a wrapped byte count); "
                                  "tandem names the negative size (RuntimeError both)",
    "new/tensor_dtype_differs": "PyTorch's message prints its C++ TensorOptions; tandem's names the two dtypes "
                                "(RuntimeError both)",
    "resize_/inference_tensor": "tandem's inference_mode does not mark the tensors it makes (docs/compat.md, "
                                "is_inference), so in-place updates outside it are allowed",
    "share_memory_/after_view_taken": "needs C++: share_memory_ re-points the tensor at a shared copy; views taken "
                                      "before keep the old memory (tandem cannot swap a storage's memory under its "
                                      "views; PyTorch moves the storage itself)",
    "untyped_storage/resize_shrink_then_read": "tandem refuses to read a tensor whose storage resize_ made too "
                                               "small (an error naming the fix); PyTorch reads past the end of its "
                                               "storage",
    "untyped_storage/tensor_from_storage": "PyTorch's tensor() reads an UntypedStorage as an empty sequence "
                                           "(tensor([], dtype=int64)); tandem reads its bytes",
}
