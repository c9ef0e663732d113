"""Storages and the tensor methods on them against PyTorch: untyped_storage()/storage() (values, sharing,
deprecation warning), UntypedStorage/TypedStorage/FloatStorage & co., set_, resize_, resize_as_, is_set_to,
and the small compatibility names (post-accumulate-grad hooks, cfloat, dim_order, unsafe_split, ...)."""
import gc
import warnings

import numpy as np
import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error


# ------------------------------------------------------------------ untyped_storage / storage
def test_untyped_storage_reads_like_pytorch(device):
    t = tandem.arange(4.0, device=device)
    u = t.untyped_storage()
    tu = torch.arange(4.0).untyped_storage()
    assert isinstance(u, tandem.UntypedStorage)
    assert u.nbytes() == u.size() == len(u) == tu.nbytes() == 16
    assert u.element_size() == 1
    assert u.tolist() == tu.tolist()
    assert [u[i] for i in (0, 6, 7, -1)] == [tu[i] for i in (0, 6, 7, -1)]
    assert u[4:8].tolist() == tu[4:8].tolist() and u[4:8].nbytes() == 4
    assert u.device == t.device and u.is_cuda == (t.device.type == "cuda")
    assert repr(tandem.arange(2, dtype=tandem.uint8).untyped_storage()) == repr(
        torch.arange(2, dtype=torch.uint8).untyped_storage())


def test_storage_index_errors():
    u, tu = tandem.arange(4.0).untyped_storage(), torch.arange(4.0).untyped_storage()
    for key in (16, -17, 100):
        with pytest.raises(IndexError) as e:
            u[key]
        with pytest.raises(IndexError) as te:
            tu[key]
        assert str(e.value) == str(te.value)
    with pytest.raises(RuntimeError, match="^Trying to slice with a step of 2, but only a step of 1 is supported"):
        u[::2]
    with pytest.raises(AttributeError):
        u.dtype  # noqa: B018 - PyTorch's UntypedStorage has no dtype either


def test_storage_sharing_checks(device):
    a = tandem.arange(6.0, device=device)
    views = [a[1:], a.view(2, 3), a.t() if a.dim() == 2 else a.expand(2, 6), a.detach()]
    for v in views:
        assert v.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
    assert a.clone().untyped_storage().data_ptr() != a.untyped_storage().data_ptr()
    assert a[1:].data_ptr() - a.data_ptr() == 4
    assert a.untyped_storage().data_ptr() == a.data_ptr()


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_storage_keeps_the_memory_alive(device):
    u = tandem.arange(8, dtype=tandem.uint8, device=device).untyped_storage()
    s = tandem.arange(4.0, device=device).storage()
    gc.collect()
    junk = [tandem.full((8,), 255, dtype=tandem.uint8, device=device) for _ in range(8)]
    assert u.tolist() == list(range(8))
    assert s.tolist() == [0.0, 1.0, 2.0, 3.0]
    del junk


def test_typed_storage_and_its_warning(device, recwarn):
    import tandem._storage as st

    st._warned[0] = False
    t = tandem.arange(4.0, device=device)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = t.storage()
        s2 = t.storage()
    msgs = [str(x.message) for x in w if x.category is UserWarning]
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        torch.arange(4.0).storage()
    assert msgs == [st._TYPED_STORAGE_WARNING]  # once per process
    assert not tw or str(tw[0].message) == st._TYPED_STORAGE_WARNING  # PyTorch's text (if it has not warned yet)
    assert isinstance(s, tandem.TypedStorage) and isinstance(s, tandem.FloatStorage)
    assert not isinstance(s, tandem.DoubleStorage)
    assert (s.size(), len(s), s.nbytes(), s.element_size()) == (4, 4, 16, 4)
    assert s.dtype == tandem.float32 and s.device == t.device
    assert s[1] == 1.0 and s.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert s.data_ptr() == t.data_ptr() == s._untyped_storage.data_ptr() == s2.data_ptr()
    assert s.type() == "torch.FloatStorage" and s.pickle_storage_type() == "FloatStorage"
    s[0] = 5.0
    assert t[0].item() == 5.0  # the same memory


def test_set_warn_always_repeats_the_warning():
    tandem.set_warn_always(True)
    try:
        assert tandem.is_warn_always_enabled()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            tandem.zeros(2).storage()
            tandem.zeros(2).storage()
        assert sum("TypedStorage is deprecated" in str(x.message) for x in w) == 2
    finally:
        tandem.set_warn_always(False)
    assert not tandem.is_warn_always_enabled() and not torch.is_warn_always_enabled()


@pytest.mark.parametrize("name", ["FloatStorage", "DoubleStorage", "LongStorage", "IntStorage", "ByteStorage",
                                  "BoolStorage", "HalfStorage", "BFloat16Storage", "ShortStorage", "CharStorage"])
def test_legacy_storages(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = getattr(tandem, name)([1, 0, 1]), getattr(torch, name)([1, 0, 1])
        assert ours.tolist() == theirs.tolist()
        assert ours.size() == theirs.size() and ours.nbytes() == theirs.nbytes()
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        assert ours.type() == theirs.type()
        assert getattr(tandem, name)(3).size() == 3


def test_untyped_storage_constructors_and_changes(device):
    u = tandem.UntypedStorage(4, device=device)
    assert u.nbytes() == 4 and u.device == tandem.device(device)
    u.fill_(3)
    assert u.tolist() == [3, 3, 3, 3]
    u[0] = 7
    assert u[0] == 7
    u.resize_(8)
    assert u.nbytes() == 8 and u.tolist()[:4] == [7, 3, 3, 3]
    c = u.clone()
    assert c.data_ptr() != u.data_ptr() and c.tolist() == u.tolist()
    assert tandem.UntypedStorage([1, 2, 255]).tolist() == [1, 2, 255]
    assert tandem.UntypedStorage().nbytes() == 0
    assert tandem.UntypedStorage.from_buffer(b"abcd", dtype=tandem.uint8).tolist() == [97, 98, 99, 100]
    u.resize_(2)  # shrinking keeps the first bytes
    assert u.nbytes() == 2 and u.tolist() == [7, 3]


def test_shrinking_a_storage_frees_it_and_its_tensors_refuse_until_it_grows_back(device):
    # PyTorch programs free activations with untyped_storage().resize_(0) and grow them back before use (PyTorch
    # Geometric's RevGNN, FSDP-style code). PyTorch crashes when such a tensor is read while shrunk; tandem raises.
    t = tandem.arange(4.0, device=device)
    v = t[1:]
    s = t.untyped_storage()
    s.resize_(0)
    assert s.nbytes() == 0 and t.untyped_storage().nbytes() == 0 and t.shape == (4,)
    message = r"^The tensor reads bytes 0 to 16 of its storage, which resize_ made 0 bytes long\nhint: grow the " \
              r"storage back first: t.untyped_storage\(\).resize_\(16\)"
    for use in (lambda: t + 1, lambda: t.sum(), lambda: t.clone(), lambda: repr(t), lambda: t.cpu().numpy()):
        with pytest.raises(RuntimeError, match=message):
            use()
            # An emulated device reads the data in its worker: the error comes, as a real device's asynchronous
            # fault does, from the next launch or wait (a real device checks at the launch itself).
            if t.device.type == "cuda":
                tandem.cuda.synchronize(t.device)
    with pytest.raises(RuntimeError, match="reads bytes 4 to 16 of its storage"):
        v.tolist()
    s.resize_(16)  # back: the contents are undefined until written, as in PyTorch
    t.fill_(2.0)
    assert t.tolist() == [2.0] * 4 and v.tolist() == [2.0] * 3
    s.resize_(8)  # partly: what lies inside still reads
    assert t[:2].tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="which resize_ made 8 bytes long"):
        t[2:].tolist()


def test_shrinking_memory_another_library_owns_is_refused():
    t = tandem.from_numpy(np.ones(4, np.float32))
    with pytest.raises(RuntimeError, match="^Trying to resize storage that is not resizable"):
        t.untyped_storage().resize_(0)
    assert t.tolist() == [1.0] * 4


def test_revnet_style_free_and_recompute_of_an_activation(device):
    # Forward keeps y only as its shape; backward regrows y's storage and recomputes it in place.
    x = tandem.arange(6.0, device=device).reshape(2, 3)
    y = x * 3
    nbytes = y.untyped_storage().nbytes()
    y.untyped_storage().resize_(0)
    y.untyped_storage().resize_(nbytes)
    with tandem.no_grad():
        y.copy_(x * 3)
    assert y.tolist() == (tandem.arange(6.0).reshape(2, 3) * 3).tolist()


def test_storage_module_and_storage_type():
    for lib in (tandem, torch):
        assert lib.storage.UntypedStorage is lib.UntypedStorage and lib.storage.TypedStorage is lib.TypedStorage
        assert lib.zeros(2).storage_type() is lib.FloatStorage
        assert lib.zeros(2, dtype=lib.int64).storage_type() is lib.LongStorage
        assert lib.as_strided_copy(lib.arange(6.0), (2,), (2,), 1).tolist() == [1.0, 3.0]
        assert lib.is_vulkan_available() is False
    a = tandem.arange(6.0)
    assert tandem.as_strided_copy(a, (2,), (2,)).data_ptr() != a.data_ptr()


def test_storage_copies(device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dst = tandem.zeros(3, device=device).storage()
        dst.copy_(tandem.FloatStorage([1, 2, 3]).to(device=device))
        assert dst.tolist() == [1.0, 2.0, 3.0]
        u = tandem.UntypedStorage(12, device=device)
        u.copy_(dst)
        assert u.tolist() == dst._untyped_storage.tolist()
        with pytest.raises(RuntimeError, match="size does not match"):
            u.copy_(tandem.UntypedStorage(4, device=device))


def test_is_storage():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lib in (tandem, torch):
            t = lib.zeros(2)
            assert lib.is_storage(t.untyped_storage()) and lib.is_storage(t.storage())
            assert not lib.is_storage(t) and not lib.is_storage([1])


def test_hostile_storage_sizes():
    with pytest.raises(Exception) as e:  # noqa: PT011 - out of memory or a size error, never a crash
        tandem.UntypedStorage(2**62)
    assert isinstance(e.value, (RuntimeError, MemoryError))
    with pytest.raises(RuntimeError, match="non-negative"):
        tandem.UntypedStorage(-1)
    with pytest.raises(RuntimeError):
        tandem.FloatStorage(-1)


# ------------------------------------------------------------------ set_ / is_set_to
def test_set_forms(device):
    s = tandem.arange(6.0, device=device)
    t = tandem.zeros(2, device=device)
    assert t.set_(s) is t
    assert t.tolist() == s.tolist() and t.data_ptr() == s.data_ptr()
    assert t.is_set_to(s) and s.is_set_to(t) and t.view(6).is_set_to(s)
    assert not tandem.zeros(2).is_set_to(tandem.zeros(2))
    assert not tandem.zeros(0).is_set_to(tandem.zeros(0))
    t.set_(s.untyped_storage(), 1, (2,), (2,))
    assert t.cpu().tolist() == [1.0, 3.0] and t.storage_offset() == 1
    t.set_(s.untyped_storage(), 1, (2,))
    assert t.cpu().tolist() == [1.0, 2.0]
    t.set_(s, 1, (1,), (1,))
    assert t.cpu().tolist() == [1.0]
    t.set_(s.untyped_storage())
    assert t.shape == (6,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t.set_(s.storage())
    assert t.shape == (6,)
    t.set_()
    assert t.shape == (0,) and t.device == tandem.device(device)
    e = tandem.tensor([], dtype=tandem.int32, device=device).set_(tandem.UntypedStorage(7, device=device))
    assert e.shape == (1,)


def test_set_to_a_storage_grows_it_as_pytorch():
    s, ts = tandem.arange(6.0), torch.arange(6.0)
    t, tt = tandem.zeros(2), torch.zeros(2)
    t.set_(s.untyped_storage(), 1, (20,), (2,))
    tt.set_(ts.untyped_storage(), 1, (20,), (2,))
    assert s.untyped_storage().nbytes() == ts.untyped_storage().nbytes()
    assert t[:3].tolist() == tt[:3].tolist()
    assert s.tolist() == ts.tolist()


def test_set_from_a_legacy_storage():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tandem.tensor([]).set_(tandem.FloatStorage([1, 2, 3])).tolist() == [1.0, 2.0, 3.0]


def test_set_errors():
    s = [lambda lib: lib.zeros(2).set_(lib.arange(3)),
         lambda lib: lib.zeros(2, dtype=lib.int64).set_(lib.zeros(2)),
         lambda lib: lib.zeros(2).set_(lib.arange(6.0).untyped_storage(), -1, (2,), (1,)),
         lambda lib: lib.zeros(2, requires_grad=True).set_(lib.zeros(2)),
         lambda lib: lib.zeros(2).set_(lib.zeros(2).untyped_storage(), 0, (3,), (-1,)),
         lambda lib: lib.zeros(2).set_(lib.zeros(2).untyped_storage(), 0, (-3,), (1,)),
         lambda lib: lib.zeros(2).set_(lib.zeros(2).untyped_storage(), 0, (2**62,), (1,)),
         lambda lib: lib.zeros(2).set_(lib.zeros(2).untyped_storage(), 0, (2, 3), (1,)),
         lambda lib: lib.zeros(2).set_(lib.arange(3).storage())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in s:
            assert_same_error(case)
    for lib in (tandem, torch):
        with pytest.raises(TypeError, match="^set_\\(\\) received an invalid combination of arguments"):
            lib.zeros(2).set_(3)
        with pytest.raises(TypeError, match="^set_\\(\\) received an invalid combination of arguments"):
            lib.zeros(2).set_(lib.zeros(2).untyped_storage(), 1)
        with pytest.raises(TypeError):
            lib.zeros(2).is_set_to(3)


def test_set_across_devices_is_refused():
    if not tandem.cuda.is_available():
        pytest.skip("no cuda device")
    with pytest.raises(RuntimeError, match="different device"):
        tandem.zeros(2).set_(tandem.zeros(2, device="cuda:0"))


# ------------------------------------------------------------------ resize_
@pytest.mark.parametrize("shape", [(2, 2), (2, 5), (3,), (0,), (), (1, 2, 3, 1)])
def test_resize_keeps_data_and_grows(device, shape):
    t, tt = tandem.arange(6.0, device=device), torch.arange(6.0)
    assert t.resize_(shape) is t
    tt.resize_(shape)
    assert t.shape == tt.shape and t.stride() == tt.stride()
    n = min(6, tt.numel())
    assert t.reshape(-1)[:n].cpu().tolist() == tt.reshape(-1)[:n].tolist()


def test_resize_grows_the_shared_storage_for_every_view(device):
    b = tandem.arange(6.0, device=device)
    v = b[2:]
    b.resize_(20)
    assert b[:6].cpu().tolist() == [0, 1, 2, 3, 4, 5]
    assert v.cpu().tolist() == [2, 3, 4, 5]
    assert b.untyped_storage().data_ptr() == v.untyped_storage().data_ptr()
    assert v.untyped_storage().nbytes() == 80
    u = b.untyped_storage()
    b.resize_(40)
    assert u.nbytes() == 160  # a storage object sees its storage grow


def test_resize_as_and_memory_formats():
    for lib in (tandem, torch):
        a = lib.arange(6.0)
        assert a.clone().resize_as_(lib.zeros(2, 3).t()).stride() == (2, 1)
        assert lib.resize_as_(a.clone(), lib.zeros(2, 2)).shape == (2, 2)
        assert a.clone().resize_((2, 2)).tolist() == [[0.0, 1.0], [2.0, 3.0]]
        assert lib.zeros(1, 2, 3, 4).resize_(1, 2, 3, 4, memory_format=lib.channels_last).stride() == (24, 1, 8, 2)
        assert lib.zeros(2, 3).t().resize_(3, 2).stride() == (1, 3)  # the same sizes: nothing changes
        assert lib.zeros(2, 3).t().resize_(3, 2, memory_format=lib.contiguous_format).stride() == (2, 1)
        assert lib.zeros(1, 2, 3, 4, 5).resize_(1, 2, 3, 4, 5, memory_format=lib.channels_last_3d).stride() == \
            (120, 1, 40, 10, 2)


def test_resize_errors():
    cases = [lambda lib: lib.arange(6.0, requires_grad=True).resize_(2),
             lambda lib: lib.arange(6.0, requires_grad=True)[:3].resize_(2),
             lambda lib: lib.from_numpy(np.zeros(3)).resize_(5),
             lambda lib: lib.zeros(2).resize_(-1),
             lambda lib: lib.zeros(2).resize_(2**62, 4),
             lambda lib: lib.zeros(2, 3).resize_(2, 3, memory_format=lib.channels_last),
             lambda lib: lib.zeros(2).resize_(3, memory_format=lib.channels_last_3d),
             lambda lib: lib.zeros(2).resize_(3, memory_format=lib.preserve_format),
             lambda lib: lib.zeros(2).resize_as_(lib.zeros(3), memory_format=lib.channels_last)]
    for case in cases:
        assert_same_error(case)
    with tandem.no_grad():
        with pytest.raises(RuntimeError, match="^cannot resize variables that require grad"):
            tandem.zeros(2, requires_grad=True).resize_(3)
    for lib in (tandem, torch):
        with pytest.raises(TypeError):
            lib.zeros(2).resize_()
        with pytest.raises(TypeError):
            lib.zeros(2).resize_(2.0)
        with pytest.raises(TypeError):
            lib.zeros(2).resize_as_(3)
    assert tandem.from_numpy(np.zeros(3)).resize_(2).shape == (2,)  # shrinking needs no new memory


def test_deprecated_resize_reshapes():
    for lib in (tandem, torch):
        a = lib.arange(6.0)
        with pytest.warns(UserWarning, match="^non-inplace resize is deprecated"):
            r = a.resize(2, 3)
        assert r.tolist() == [[0, 1, 2], [3, 4, 5]] and r.data_ptr() == a.data_ptr()
        with pytest.warns(UserWarning, match="^non-inplace resize_as is deprecated"):
            assert a.resize_as(lib.zeros(3, 2)).shape == (3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(lambda lib: lib.arange(6.0).resize(3))
        assert_same_error(lambda lib: lib.arange(6.0).resize_as(lib.zeros(2)))


def test_resize_to_a_huge_size_is_a_clear_error():
    with pytest.raises((RuntimeError, MemoryError)):
        tandem.zeros(2).resize_(2**40)
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        tandem.zeros(2).resize_(2**62, 2**62)


# ------------------------------------------------------------------ small names
def test_post_accumulate_grad_hook_order_and_identity():
    for lib in (tandem, torch):
        p = lib.zeros(2, requires_grad=True)
        order = []
        p.register_hook(lambda g: order.append("pre"))
        h = p.register_post_accumulate_grad_hook(lambda t: order.append(("post", t is p, t.grad.tolist())))
        (p * 2).sum().backward()
        assert order == ["pre", ("post", True, [2.0, 2.0])], lib
        h.remove()
        (p * 2).sum().backward()
        assert order == ["pre", ("post", True, [2.0, 2.0]), "pre"]
    assert_same_error(lambda lib: (lib.zeros(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(print))
    assert_same_error(lambda lib: lib.zeros(2).register_post_accumulate_grad_hook(print))


def test_post_accumulate_grad_hook_steps_an_optimizer_in_backward():
    model = tandem.nn.Linear(3, 1)
    opts = {p: tandem.optim.SGD([p], lr=0.1) for p in model.parameters()}

    def step(p):
        opts[p].step()
        opts[p].zero_grad()

    for p in model.parameters():
        p.register_post_accumulate_grad_hook(step)
    before = [p.detach().clone() for p in model.parameters()]
    model(tandem.ones(4, 3)).sum().backward()
    after = list(model.parameters())
    assert all(not tandem.equal(a, b) for a, b in zip(before, after))
    assert all(p.grad is None for p in model.parameters())


def test_output_nr_cfloat_dim_order(device):
    for lib in (tandem, torch):
        x = lib.eye(3, dtype=lib.float64, requires_grad=True)
        assert [t.output_nr for t in lib.linalg.qr(x * 2)] == [0, 1]
        assert lib.zeros(2).output_nr == 0 and (x * 2).output_nr == 0
    assert_same(tandem.zeros(2, device=device).cfloat().cpu(), torch.zeros(2).cfloat())
    assert_same(tandem.zeros(2, dtype=tandem.int64, device=device).cdouble().cpu(),
                torch.zeros(2, dtype=torch.int64).cdouble())
    for shape_fn in (lambda lib: lib.zeros(2, 3), lambda lib: lib.zeros(2, 3).t(),
                     lambda lib: lib.zeros(1, 2, 3, 4).to(memory_format=lib.channels_last),
                     lambda lib: lib.zeros(2, 3).expand(2, 2, 3)):
        assert shape_fn(tandem).dim_order() == shape_fn(torch).dim_order()
    assert_same_error(lambda lib: lib.zeros(2, 1).dim_order(ambiguity_check=True))
    t = tandem.zeros(3, device=device)
    assert t.const_data_ptr() == t.data_ptr()
    assert not any(getattr(t, n) for n in ("is_xla", "is_ipu", "is_mtia", "is_maia", "is_vulkan"))


def test_small_functions():
    for lib in (tandem, torch):
        assert lib.get_device(lib.zeros(2)) == -1
        assert not lib.is_signed(lib.zeros(2, dtype=lib.uint8)) and lib.is_signed(lib.zeros(2))
        assert [x.tolist() for x in lib.unsafe_chunk(lib.arange(5), 2)] == [[0, 1, 2], [3, 4]]
        assert [x.tolist() for x in lib.unsafe_split(lib.arange(5), 2)] == [[0, 1], [2, 3], [4]]
        assert [x.tolist() for x in lib.unsafe_split_with_sizes(lib.arange(5), [2, 3])] == [[0, 1], [2, 3, 4]]
        assert [x.tolist() for x in lib.arange(5).unsafe_split_with_sizes([2, 3])] == [[0, 1], [2, 3, 4]]
        assert lib.constant_pad_nd(lib.ones(2, 2), [1, 1], 2.0).tolist() == [[2, 1, 1, 2]] * 2
        assert lib.get_num_interop_threads() >= 1
        assert lib.set_flush_denormal(False) is True
    assert_same_error(lambda lib: lib.get_device(3))
    assert_same_error(lambda lib: lib.constant_pad_nd(lib.ones(2, 2), [1, 1, 1]))
    assert_same_error(lambda lib: lib.set_num_interop_threads(0))
    assert_same_error(lambda lib: lib.arange(5).unsafe_split([2, 3]))


def test_set_default_tensor_type_warns_and_sets_the_dtype():
    try:
        for lib in (tandem, torch):
            with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated as of PyTorch 2.1"):
                lib.set_default_tensor_type(lib.DoubleTensor)
            assert str(lib.get_default_dtype()).endswith("float64")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lib.set_default_tensor_type("torch.FloatTensor")
            assert str(lib.get_default_dtype()).endswith("float32")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_same_error(lambda lib: lib.set_default_tensor_type(lib.LongTensor))
            assert_same_error(lambda lib: lib.set_default_tensor_type(lib.float64))
    finally:
        tandem.set_default_dtype(tandem.float32)
        torch.set_default_dtype(torch.float32)


def test_deprecated_autocast_functions():
    for lib in (tandem, torch):
        with pytest.warns(DeprecationWarning, match="is_autocast_cpu_enabled\\(\\) is deprecated"):
            assert lib.is_autocast_cpu_enabled() is False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert str(lib.get_autocast_cpu_dtype()).endswith("bfloat16")
            assert str(lib.get_autocast_gpu_dtype()).endswith("float16")
            lib.set_autocast_cpu_dtype(lib.float16)
            assert str(lib.get_autocast_cpu_dtype()).endswith("float16")
            lib.set_autocast_cpu_dtype(lib.bfloat16)
            assert str(lib.get_autocast_ipu_dtype()).endswith("float16")
            assert str(lib.get_autocast_xla_dtype()).endswith("bfloat16")
            assert lib.is_autocast_ipu_enabled() is False and lib.is_autocast_xla_enabled() is False


def test_from_file(tmp_path):
    path = tmp_path / "data.bin"
    np.arange(6, dtype=np.float32).tofile(path)
    assert_same(tandem.from_file(str(path), size=4, dtype=tandem.float32),
                torch.from_file(str(path), size=4, dtype=torch.float32))
    with pytest.raises(RuntimeError):
        tandem.from_file(str(path), size=100, dtype=tandem.float32)


def test_growing_keeps_exported_memory_alive():
    # A NumPy array made before resize_ keeps reading the block it was given (PyTorch frees it: a dangling
    # array); tensors on the storage see the grown copy.
    t = tandem.arange(4.0)
    arr = t.numpy()
    cap = tandem.arange(4.0)
    exported = np.from_dlpack(cap)
    t.resize_(1000)
    cap.resize_(1000)
    junk = [tandem.full((1000,), 9.0) for _ in range(8)]
    assert arr.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert exported.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert t[:4].tolist() == [0.0, 1.0, 2.0, 3.0]
    del junk
