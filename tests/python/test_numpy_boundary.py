"""The NumPy boundary on the host: Tensor.numpy / __array__ / from_numpy / tensor(ndarray) / DLPack.

PyTorch is the oracle for values, dtypes and the exact type and first line of every error.
"""
import gc
import sys
import warnings
import weakref

import numpy as np
import pytest
import torch
import torch.utils.dlpack as tud

import tandem

# Every dtype NumPy can hold, by name; tests look the dtype objects up (parametrizing with the objects
# themselves makes pytest keep them alive past the extension's teardown).
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def dtypes(name):
    """(tandem dtype, numpy scalar type, torch dtype) called `name`."""
    return getattr(tandem, name), np.dtype(name).type, getattr(torch, name)


def sample(np_dtype, shape=(2, 3)):
    a = np.arange(int(np.prod(shape))).reshape(shape) % 3
    return a.astype(np_dtype)


def raises_like(torch_fn, tandem_fn):
    """Both raise the same exception type with the same first line; tandem's second line is a hint."""
    with pytest.raises(Exception) as expected:
        torch_fn()
    with pytest.raises(type(expected.value)) as got:
        tandem_fn()
    want = str(expected.value).splitlines()[0].strip()
    lines = str(got.value).splitlines()
    assert lines[0].strip() == want
    assert lines[1].startswith("hint:")
    return got.value


# ---- Tensor.numpy ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", DTYPES)
def test_numpy_every_dtype_matches_torch(name):
    td, nd, tor = dtypes(name)
    ref = sample(nd)
    t = tandem.tensor(ref.tolist(), dtype=td)
    a = t.numpy()
    assert a.dtype == np.dtype(nd) and a.dtype.type is np.dtype(nd).type
    assert a.shape == (2, 3)
    np.testing.assert_array_equal(a, torch.tensor(ref.tolist(), dtype=tor).numpy())


def test_numpy_shares_memory_both_ways():
    t = tandem.zeros(2, 3)
    a = t.numpy()
    a[1, 2] = 7.0
    assert t.tolist()[1][2] == 7.0
    t.fill_(3.0)
    assert (a == 3.0).all()
    assert a.ctypes.data == t.data_ptr() and a.flags.writeable


def test_numpy_views_with_offsets_strides_and_zero_strides():
    base = tandem.tensor(np.arange(24.0).reshape(4, 6).tolist())
    ref = torch.arange(24.0).reshape(4, 6)
    for view, tview in [
        (base.transpose(0, 1), ref.transpose(0, 1)),
        (base.narrow(1, 2, 3), ref.narrow(1, 2, 3)),
        (base.select(0, 2), ref.select(0, 2)),
        (base.narrow(0, 1, 2).transpose(0, 1), ref.narrow(0, 1, 2).transpose(0, 1)),
        (base.select(1, 4).unsqueeze(1).expand(4, 5), ref.select(1, 4).unsqueeze(1).expand(4, 5)),
    ]:
        a = view.numpy()
        want = tview.numpy()
        np.testing.assert_array_equal(a, want)
        assert a.strides == want.strides
        assert a.ctypes.data == view.data_ptr()
    # writes through an offset view land in the base tensor
    base.narrow(1, 2, 3).numpy()[0, 0] = -1.0
    assert base.tolist()[0][2] == -1.0


def test_numpy_zero_dim_and_empty():
    a = tandem.tensor(2.5).numpy()
    assert a.shape == () and a.dtype == np.float32 and a[()] == 2.5
    e = tandem.zeros(0, 3).numpy()
    assert e.shape == (0, 3) and e.dtype == np.float32
    assert tandem.zeros(2, 0, dtype=tandem.int64).numpy().shape == (2, 0)


def test_numpy_keeps_storage_alive_after_tensor_dies():
    t = tandem.ones(1000)
    ref = weakref.ref(t)
    a = t.numpy()
    del t
    gc.collect()
    a += 1  # still valid memory
    assert a.sum() == 2000.0
    del a
    gc.collect()
    assert ref() is None  # the array was the last owner


def test_numpy_force_copies():
    t = tandem.ones(3)
    a = t.numpy(force=True)
    a[0] = 5
    assert t.tolist() == [1.0, 1.0, 1.0]
    assert not np.shares_memory(a, t.numpy())
    g = tandem.ones(2, requires_grad=True)
    np.testing.assert_array_equal(g.numpy(force=True), [1.0, 1.0])


def test_numpy_errors_match_torch():
    raises_like(lambda: torch.ones(2, requires_grad=True).numpy(), lambda: tandem.ones(2, requires_grad=True).numpy())
    err = raises_like(
        lambda: torch.ones(2, dtype=torch.bfloat16).numpy(), lambda: tandem.ones(2, dtype=tandem.bfloat16).numpy()
    )
    assert ".float()" in str(err)
    raises_like(
        lambda: np.asarray(torch.ones(2, dtype=torch.bfloat16)),
        lambda: np.asarray(tandem.ones(2, dtype=tandem.bfloat16)),
    )
    raises_like(
        lambda: np.asarray(torch.ones(2, requires_grad=True)), lambda: np.asarray(tandem.ones(2, requires_grad=True))
    )
    with pytest.raises(RuntimeError) as e:
        tandem.ones(2, requires_grad=True).numpy()
    assert ".detach().numpy()" in str(e.value).splitlines()[1]
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        tandem.ones(2, dtype=tandem.bfloat16).numpy(force=True)


def test_memoryview_refuses_with_numpy_message():
    with pytest.raises(BufferError, match="requires grad"):
        memoryview(tandem.ones(2, requires_grad=True))
    m = memoryview(tandem.tensor([1, 2], dtype=tandem.int16))
    assert m.format == "h" and m.tolist() == [1, 2]


# ---- __array__ -------------------------------------------------------------------------------------------


def test_array_protocol_copy_semantics():
    t = tandem.tensor([1.0, 2.0])
    assert np.shares_memory(np.asarray(t), t.numpy())
    assert np.shares_memory(np.array(t, copy=False), t.numpy())
    assert not np.shares_memory(np.array(t, copy=True), t.numpy())
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError):
        np.array(t, dtype=np.float64, copy=False)
    # the method itself (what NumPy calls when the buffer path does not apply)
    assert np.shares_memory(t.__array__(), t.numpy())
    assert not np.shares_memory(t.__array__(copy=True), t.numpy())
    assert t.__array__(np.float64).dtype == np.float64
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        t.__array__(np.float64, copy=False)
    assert np.shares_memory(t.__array__(np.float32, copy=False), t.numpy())


def test_ndarray_operands_behave_as_in_pytorch():
    # PyTorch 2.x: Tensor's operators return NotImplemented for an ndarray, so NumPy computes `t + arr` (its
    # dtype, wrapped back into a tensor by __array_wrap__), while __array_priority__ makes NumPy defer `arr + t`
    # to Tensor.__radd__, which declines too: a TypeError. `==` alone takes the array.
    torch = pytest.importorskip("torch")

    def outcome(lib, fn):
        t = lib.tensor([1.0, 2.0])
        try:
            r = fn(lib, t)
        except TypeError:
            return "TypeError"
        return type(r).__name__, str(r.dtype).split(".")[-1], r.tolist()

    cases = [lambda L, t: t + np.ones(2), lambda L, t: t * np.array(2.0), lambda L, t: np.ones(2) + t,
             lambda L, t: np.ones(2) * t - t, lambda L, t: np.float32(2) * t,
             lambda L, t: np.array([1, 2]) == L.tensor([1, 3]), lambda L, t: t < np.ones(2)]
    for case in cases:
        assert outcome(tandem, case) == outcome(torch, case)
    assert outcome(tandem, cases[0]) == ("Tensor", "float64", [2.0, 3.0])


@pytest.mark.parametrize("call", ["function", "method", "out", "in_place", "in_place_alpha", "function_alpha"])
def test_forms_that_take_a_tensor_refuse_an_ndarray_as_pytorch(call):
    torch = pytest.importorskip("torch")
    calls = {"function": lambda L, t, a: L.mul(t, a), "method": lambda L, t, a: t.sub(a),
             "out": lambda L, t, a: L.add(t, a, out=L.empty(2)), "in_place": lambda L, t, a: t.mul_(a),
             "in_place_alpha": lambda L, t, a: t.add_(a, alpha=2),
             "function_alpha": lambda L, t, a: L.add(t, a, alpha=2)}
    errors = []
    for lib in (torch, tandem):
        t = lib.tensor([1.0, 2.0])
        with pytest.raises(TypeError) as info:
            calls[call](lib, t, np.ones(2))
        errors.append(str(info.value).splitlines()[0])
        assert t.tolist() == [1.0, 2.0]
    if call not in ("in_place_alpha", "function_alpha"):  # PyTorch lists its overloads there
        assert errors[1] == errors[0]


def test_pandas_and_sklearn_take_tensors():
    pd = pytest.importorskip("pandas")
    metrics = pytest.importorskip("sklearn.metrics")
    df = pd.DataFrame(tandem.tensor([[1, 2], [3, 4]]))
    assert df.shape == (2, 2) and df.values.tolist() == [[1, 2], [3, 4]]
    y = tandem.tensor([0, 1, 1, 0])
    p = tandem.tensor([0, 1, 0, 0])
    assert metrics.accuracy_score(y, p) == 0.75
    assert np.array([tandem.tensor(1.0), tandem.tensor(2.0)]).tolist() == [1.0, 2.0]


# ---- from_numpy ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", DTYPES)
def test_from_numpy_every_dtype_zero_copy(name):
    td, nd, tor = dtypes(name)
    a = sample(nd)
    t = tandem.from_numpy(a)
    assert t.dtype is td
    assert t.tolist() == torch.from_numpy(a).tolist()
    assert t.data_ptr() == a.ctypes.data
    t.fill_(1)
    assert (a == 1).all()


def test_from_numpy_strided_offset_zero_dim_empty():
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    for view in [a[:, 1:3, ::2], a.transpose(2, 0, 1), a[1], a[..., 3], np.broadcast_to(a[0, 0], (2, 5))]:
        t = tandem.from_numpy(view) if view.flags.writeable else None
        if t is None:
            with pytest.warns(UserWarning):
                t = tandem.from_numpy(view)
        ref = torch.from_numpy(view.copy())
        assert t.tolist() == ref.tolist()
        assert t.stride() == torch.from_numpy(view).stride()
        assert t.data_ptr() == view.ctypes.data
    z = tandem.from_numpy(np.array(3.5))
    assert z.shape == () and z.tolist() == 3.5
    e = tandem.from_numpy(np.zeros((0, 4), dtype=np.int16))
    assert e.shape == (0, 4) and e.dtype is tandem.int16


def test_from_numpy_round_trip_is_the_same_memory():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)[:, 1:]
    b = tandem.from_numpy(a).numpy()
    assert b.ctypes.data == a.ctypes.data and b.strides == a.strides
    b[0, 0] = 99
    assert a[0, 0] == 99


def test_from_numpy_keeps_array_alive():
    class Owner(np.ndarray):  # a subclass, so the array can be weak-referenced
        pass

    a = np.arange(1000.0).view(Owner)
    ref = weakref.ref(a)
    t = tandem.from_numpy(a)
    del a
    gc.collect()
    assert ref() is not None
    assert t.tolist()[999] == 999.0
    del t
    gc.collect()
    assert ref() is None


def test_from_numpy_errors_match_torch():
    neg = np.arange(4.0)[::-1]
    err = raises_like(lambda: torch.from_numpy(neg), lambda: tandem.from_numpy(neg))
    assert isinstance(err, ValueError)
    big = np.zeros(3, dtype=">f4")
    raises_like(lambda: torch.from_numpy(big), lambda: tandem.from_numpy(big))
    odd = np.lib.stride_tricks.as_strided(np.zeros(8, "f4"), (2,), (6,))
    raises_like(lambda: torch.from_numpy(odd), lambda: tandem.from_numpy(odd))
    with pytest.raises(TypeError, match=r"^expected np.ndarray \(got list\)"):
        tandem.from_numpy([1, 2])
    for dt in ["O", "M8[s]"]:  # torch's own message lists more types, so compare up to the list
        a = np.zeros(3, dtype=dt)
        with pytest.raises(TypeError) as want:
            torch.from_numpy(a)
        with pytest.raises(TypeError) as got:
            tandem.from_numpy(a)
        prefix = str(want.value).split(". The only")[0]
        assert str(got.value).startswith(prefix + ". The only supported types are:")
        assert str(got.value).splitlines()[1].startswith("hint:")
    for dt in ["U3", "S2", "f16" if hasattr(np, "float128") else "V2"]:  # (uint16/32/64 convert: test_uint_dtypes)
        with pytest.raises(TypeError, match=r"can't convert np.ndarray of type numpy\.") as e:
            tandem.from_numpy(np.zeros(3, dtype=dt))
        assert "astype" in str(e.value)


def test_from_numpy_read_only_warns_and_refuses_writes():
    a = np.ones(3)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        t = tandem.from_numpy(a)
    assert t.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="read-only"):
        t.fill_(2.0)
    with pytest.raises(RuntimeError, match="read-only"):
        t.add_(1.0)
    assert not t.numpy().flags.writeable  # exported back read-only too
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning):
            tandem.from_numpy(a)


def traced_bytes_of_this_test():
    """Bytes tracemalloc holds, less what pytest-xdist's receiver thread allocated meanwhile (the controller can
    send this worker its next tests while the loop runs: a CI run saw 170 kB appear that way)."""
    import tracemalloc

    snapshot = tracemalloc.take_snapshot().filter_traces([
        tracemalloc.Filter(False, "*/execnet/*", all_frames=True),
        tracemalloc.Filter(False, "*/xdist/*", all_frames=True),
        tracemalloc.Filter(False, tracemalloc.__file__),
    ])
    return sum(trace.size for trace in snapshot.traces)


def no_growth(fn, n=2000, rounds=3):
    """fn() n times must not keep Python objects or memory alive. A leak grows the heap in every round; another
    thread's allocation (the test runner's) lands in one, so one round without growth passes."""
    import tracemalloc

    fn()
    gc.collect()
    growth = []
    for _ in range(rounds):
        tracemalloc.start(16)
        before = traced_bytes_of_this_test()
        for _ in range(n):
            fn()
        gc.collect()
        growth.append(traced_bytes_of_this_test() - before)
        tracemalloc.stop()
        if growth[-1] < 64 * 1024:
            return
    raise AssertionError(f"the heap grew in every round: {growth} bytes")


def test_no_leaks_on_success_and_error_paths():
    a = np.ones(1000)
    neg = a[::-1]
    ro = np.ones(10)
    ro.flags.writeable = False
    base = sys.getrefcount(a), sys.getrefcount(neg), sys.getrefcount(ro)

    def errors():
        for bad in (neg, np.zeros(2, ">f8"), np.zeros(2, "O")):
            with pytest.raises((ValueError, TypeError)):
                tandem.from_numpy(bad)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(UserWarning):
                tandem.from_numpy(ro)

    no_growth(lambda: tandem.from_numpy(a))
    no_growth(lambda: tandem.ones(10).numpy())
    no_growth(lambda: tandem.tensor(a))
    no_growth(errors, n=300)
    no_growth(lambda: tandem.from_dlpack(a))
    no_growth(lambda: np.from_dlpack(tandem.ones(10)))
    no_growth(lambda: tandem.ones(4).__dlpack__())  # unconsumed capsules free their tensor
    gc.collect()
    assert (sys.getrefcount(a), sys.getrefcount(neg), sys.getrefcount(ro)) == base


# ---- tensor / as_tensor from NumPy -----------------------------------------------------------------------


@pytest.mark.parametrize("name", DTYPES)
def test_tensor_from_ndarray_copies_and_converts(name):
    td, nd, tor = dtypes(name)
    a = sample(nd)
    t = tandem.tensor(a)
    assert t.dtype is td and t.tolist() == torch.tensor(a).tolist()
    assert t.data_ptr() != a.ctypes.data
    f = tandem.tensor(a, dtype=tandem.float64)
    assert f.dtype is tandem.float64 and f.tolist() == torch.tensor(a, dtype=torch.float64).tolist()


def test_tensor_from_awkward_arrays_copies_them():
    a = np.arange(6.0).reshape(2, 3)
    assert tandem.tensor(a[:, ::-1]).tolist() == a[:, ::-1].tolist()
    assert tandem.tensor(np.arange(3, dtype=">i4")).tolist() == [0, 1, 2]
    ro = np.ones(2)
    ro.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a copy: no read-only warning
        t = tandem.tensor(ro)
    t.fill_(3)
    assert ro.tolist() == [1.0, 1.0]
    g = tandem.tensor(a, requires_grad=True)
    assert g.requires_grad and g.dtype is tandem.float64


def test_tensor_from_numpy_scalars():
    for s, td in [(np.float32(1.5), tandem.float32), (np.int16(3), tandem.int16), (np.bool_(True), tandem.bool),
                  (np.float64(2.0), tandem.float64), (np.float16(0.5), tandem.float16)]:
        t = tandem.tensor(s)
        assert t.dtype is td and t.shape == () and t.tolist() == s.item()


def test_as_tensor_shares_when_it_can():
    a = np.arange(4.0)
    t = tandem.as_tensor(a)
    assert t.data_ptr() == a.ctypes.data
    assert tandem.as_tensor(a, dtype=tandem.float64).data_ptr() == a.ctypes.data
    c = tandem.as_tensor(a, dtype=tandem.float32)
    assert c.dtype is tandem.float32 and c.data_ptr() != a.ctypes.data and c.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert tandem.as_tensor(a, device="cpu").data_ptr() == a.ctypes.data
    assert tandem.as_tensor(a[::-1]).tolist() == [3.0, 2.0, 1.0, 0.0]


# ---- DLPack ----------------------------------------------------------------------------------------------

VERSIONS = [None, (1, 0)]


@pytest.mark.parametrize("max_version", VERSIONS, ids=["legacy", "versioned"])
def test_dlpack_capsule_names_and_consumption(max_version):
    t = tandem.arange(6).reshape(2, 3) if hasattr(tandem, "arange") else tandem.tensor([[0, 1, 2], [3, 4, 5]])
    cap = t.__dlpack__(max_version=max_version)
    name = "dltensor" if max_version is None else "dltensor_versioned"
    assert f"\"{name}\"" in repr(cap)
    u = tandem.from_dlpack(cap)
    assert f"\"used_{name}\"" in repr(cap)
    assert u.tolist() == t.tolist() and u.data_ptr() == t.data_ptr()
    with pytest.raises(RuntimeError, match="^from_dlpack received an invalid capsule"):
        tandem.from_dlpack(cap)
    assert t.__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("name", DTYPES)
def test_dlpack_round_trips_with_numpy_and_torch(name):
    td, nd, tor = dtypes(name)
    a = sample(nd, (3, 4))[:, 1:]
    # numpy -> tandem -> numpy, zero-copy all the way
    t = tandem.from_dlpack(a)
    assert t.dtype is td and t.tolist() == a.tolist() and t.data_ptr() == a.ctypes.data
    back = np.from_dlpack(t)
    assert back.ctypes.data == a.ctypes.data and back.strides == a.strides
    # torch -> tandem -> torch, both capsule versions
    x = torch.from_numpy(a.copy())
    for cap in (x.__dlpack__(), x.__dlpack__(max_version=(1, 0))):
        y = tandem.from_dlpack(cap)
        assert y.dtype is td and y.data_ptr() == x.data_ptr() and y.tolist() == x.tolist()
    z = torch.from_dlpack(t)
    assert z.dtype is tor and z.data_ptr() == t.data_ptr() and z.stride() == tuple(t.stride())
    w = tud.from_dlpack(t.__dlpack__())
    assert w.data_ptr() == t.data_ptr()
    assert tandem.from_dlpack(tud.to_dlpack(x)).data_ptr() == x.data_ptr()


def test_dlpack_bfloat16_with_torch():
    x = torch.tensor([1.5, -2.0], dtype=torch.bfloat16)
    t = tandem.from_dlpack(x)
    assert t.dtype is tandem.bfloat16 and t.data_ptr() == x.data_ptr()
    y = torch.from_dlpack(t)
    assert y.dtype is torch.bfloat16 and y.tolist() == [1.5, -2.0]


def test_dlpack_lifetime_and_writes():
    t = tandem.zeros(4)
    x = torch.from_dlpack(t)
    x[1] = 5.0
    assert t.tolist()[1] == 5.0
    ref = weakref.ref(t)
    del t
    gc.collect()
    assert ref() is None
    assert x.tolist() == [0.0, 5.0, 0.0, 0.0]  # still valid: the capsule's context holds the storage
    a = np.ones(8)
    u = tandem.from_dlpack(a)
    del a
    gc.collect()
    u.fill_(2.0)
    assert u.tolist() == [2.0] * 8


def test_dlpack_deleter_runs_exactly_once():
    a = np.ones(16)
    start = sys.getrefcount(a)
    for _ in range(50):
        cap = a.__dlpack__(max_version=(1, 0))
        t = tandem.from_dlpack(cap)
        del cap  # renamed: its destructor must not free the tensor again
        gc.collect()
        assert sys.getrefcount(a) == start + 1
        del t
    unused = a.__dlpack__()
    del unused  # never consumed: the capsule frees it
    gc.collect()
    assert sys.getrefcount(a) == start


def test_dlpack_read_only():
    a = np.ones(3)
    a.flags.writeable = False
    t = tandem.from_dlpack(a)  # NumPy 2 exports read-only arrays through versioned capsules only
    with pytest.raises(RuntimeError, match="read-only"):
        t.fill_(0.0)
    cap = t.__dlpack__(max_version=(1, 0))
    back = np.from_dlpack(cap if hasattr(cap, "__dlpack__") else t)
    assert not back.flags.writeable
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()
    assert tandem.from_dlpack(t.__dlpack__(copy=True)).data_ptr() != t.data_ptr()


def test_dlpack_export_arguments():
    t = tandem.ones(2)
    assert np.from_dlpack(t, copy=True).ctypes.data != t.data_ptr()
    assert np.from_dlpack(t, device="cpu").ctypes.data == t.data_ptr()
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="^Can't export tensors that require gradient, use tensor.detach()"):
        tandem.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError):
        torch.ones(2, requires_grad=True).__dlpack__()
    # not an exporter: PyTorch reads it as a capsule and finds it invalid (its RuntimeError; tandem's hint names it)
    with pytest.raises(RuntimeError) as want:
        torch.from_dlpack([1, 2])
    with pytest.raises(RuntimeError, match="hint: from_dlpack takes an object with __dlpack__") as got:
        tandem.from_dlpack([1, 2])
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]
    assert tandem.from_dlpack(tandem.empty(0, 3)).shape == (0, 3)
    assert tandem.from_dlpack(tandem.tensor(4.0)).tolist() == 4.0


def test_dlpack_unsupported_dtype_leaves_capsule_unconsumed():
    x = torch.ones(2, dtype=torch.float8_e4m3fn)  # tandem has no float8
    cap = x.__dlpack__()
    with pytest.raises(TypeError, match="unsupported DLPack dtype"):
        tandem.from_dlpack(cap)
    assert '"dltensor"' in repr(cap)
    assert torch.from_dlpack(cap).float().tolist() == [1, 1]


@pytest.mark.parametrize("max_version", VERSIONS, ids=["legacy", "versioned"])
def test_dlpack_export_context_is_freed_on_every_path(max_version):
    # A tensor over a NumPy array: the array's refcount shows whether tandem's export context was freed.
    a = np.ones(32)
    start = sys.getrefcount(a)
    consumers = [lambda cap: None, tandem.from_dlpack, tud.from_dlpack]
    for consume in consumers:
        for _ in range(20):
            t = tandem.from_numpy(a)
            out = consume(t.__dlpack__(max_version=max_version))
            del t, out
    gc.collect()
    assert sys.getrefcount(a) == start


def test_tensor_and_as_tensor_from_ndarray_onto_a_device(device):
    """tandem.tensor(ndarray, device=...) copies onto the device in one step (converted on the way), and
    as_tensor too; both follow the default device when none is given."""
    a = np.arange(6.0).reshape(2, 3)
    for dtype in (None, tandem.float32, tandem.bfloat16, tandem.int64):
        t = tandem.tensor(a, dtype=dtype, device=device)
        assert t.device == tandem.device(device) and t.dtype == (dtype or tandem.float64)
        assert t.cpu().tolist() == a.tolist()
    t = tandem.as_tensor(a, device=device)
    assert t.device == tandem.device(device) and t.dtype == tandem.float64 and t.cpu().tolist() == a.tolist()
    a[0, 0] = 7.0  # a device copy never aliases the array; a cpu as_tensor does (as PyTorch)
    assert t[0, 0].item() == (7.0 if device == "cpu" else 0.0)
    with tandem.device(device):
        assert tandem.tensor(a).device == tandem.device(device)
    r = tandem.tensor(a, device=device, requires_grad=True)
    assert r.requires_grad and r.is_leaf
