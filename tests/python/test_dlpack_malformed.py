"""Malformed DLPack capsules (another library's bug, or a hostile caller) are refused with a clear error
before anything reads through their pointers; well-formed ones built by hand import correctly."""
import ctypes

import pytest

import tandem


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

_keep = []  # buffers the capsules point into live as long as the test module


def capsule(data, shape, strides=None, ndim=None, byte_offset=0):
    """A legacy "dltensor" capsule over float32 `data` (a ctypes array or None) with the given fields."""
    shape_arr = None if shape is None else (ctypes.c_int64 * max(len(shape), 1))(*shape)
    strides_arr = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
    m = DLManagedTensor()
    m.dl_tensor.data = ctypes.cast(data, ctypes.c_void_p).value if data is not None else None
    m.dl_tensor.device = DLDevice(1, 0)
    m.dl_tensor.ndim = len(shape) if ndim is None else ndim
    m.dl_tensor.dtype = DLDataType(2, 32, 1)  # float32
    m.dl_tensor.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64)) if shape_arr is not None else None
    m.dl_tensor.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64)) if strides_arr else None
    m.dl_tensor.byte_offset = byte_offset
    _keep.extend([data, shape_arr, strides_arr, m])
    return _new_capsule(ctypes.addressof(m), b"dltensor", None)


def buffer(values):
    return (ctypes.c_float * len(values))(*values)


def test_a_hand_made_capsule_imports():
    t = tandem.from_dlpack(capsule(buffer([1, 2, 3, 4, 5, 6]), [2, 3]))
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]] and t.dtype == tandem.float32
    t = tandem.from_dlpack(capsule(buffer([1, 2, 3, 4, 5, 6]), [3], strides=[2], byte_offset=4))
    assert t.tolist() == [2, 4, 6]
    assert tandem.from_dlpack(capsule(None, [0, 3])).shape == (0, 3)  # no elements: a null pointer is fine
    assert tandem.from_dlpack(capsule(None, [0, 3], byte_offset=4)).shape == (0, 3)  # fuzz_dlpack: was UB


@pytest.mark.parametrize("fields,kind,words", [
    (dict(data=buffer([1, 2]), shape=None, ndim=2), ValueError, "null shape"),
    (dict(data=None, shape=[4]), ValueError, "null data pointer"),
    (dict(data=buffer([1, 2]), shape=[2], byte_offset=2**64 - 4), ValueError, "address space"),
    (dict(data=buffer([1, 2]), shape=[2], strides=[2**62]), ValueError, "address space"),
    (dict(data=buffer([1, 2]), shape=[2**62]), ValueError, "address space"),
    (dict(data=buffer([1, 2]), shape=[2**62, 2**62, 4]), RuntimeError, "overflow"),
    (dict(data=buffer([1, 2]), shape=[2], ndim=-1), ValueError, "ndim -1 is out of range"),
    (dict(data=buffer([1, 2]), shape=[2], ndim=100000), ValueError, "ndim 100000 is out of range"),
    (dict(data=buffer([1, 2]), shape=[-3]), RuntimeError, "negative dimension"),
    (dict(data=buffer([1, 2]), shape=[2], strides=[-1]), ValueError, "negative strides"),
    (dict(data=buffer([1, 2]), shape=[1], byte_offset=2), ValueError,  # fuzz_dlpack: was a misaligned read
     r"^from_dlpack\(\): the first element \(data \+ byte_offset 2\) is not aligned to the element size \(4 bytes\)"),
])
def test_malformed_capsules_are_refused(fields, kind, words):
    cap = capsule(**fields)
    with pytest.raises(kind, match=words):
        tandem.from_dlpack(cap)
