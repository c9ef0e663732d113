"""torch.save/torch.load on hostile files: garbage, empty, truncated checkpoints, other formats (NumPy .npy, a bare
pickle, a zip without data.pkl, text), directories and missing paths, unpicklable objects, bad map_location and
file objects opened the wrong way; plus round trips of odd tensors (empty, 0-dim, views, shared storage)."""
import io
import os
import pickle
import zipfile

WORKDIR = f"/tmp/hostile_serialization_{os.getpid()}"


def path(name):
    os.makedirs(WORKDIR, exist_ok=True)
    return os.path.join(WORKDIR, name)


def written(name, data):
    """A file holding `data` (bytes), its path."""
    p = path(name)
    with open(p, "wb") as f:
        f.write(data)
    return p


def checkpoint(L, obj=None):
    """A real checkpoint of this library's, as bytes."""
    buf = io.BytesIO()
    L.save({"w": L.arange(6.0).reshape(2, 3), "step": 3} if obj is None else obj, buf)
    return buf.getvalue()


def truncated(L, keep):
    data = checkpoint(L)
    return L.load(written(f"truncated_{keep}", data[:int(len(data) * keep)]))


def zip_without_pickle():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/readme.txt", "not a checkpoint")
    return buf.getvalue()


def npy_bytes():
    import numpy as np  # noqa: PLC0415 - the cases run without NumPy otherwise
    buf = io.BytesIO()
    np.save(buf, np.arange(3.0))
    return buf.getvalue()


def round_trip(L, obj, **kw):
    buf = io.BytesIO()
    L.save(obj, buf)
    buf.seek(0)
    return L.load(buf, **kw)


def save_to(L, target, obj=None):
    L.save(L.ones(2) if obj is None else obj, target)
    return os.path.getsize(target) > 0 if isinstance(target, str) else True


class _Evil:
    def __reduce__(self):
        return (os.getcwd, ())


CASES = {
    # ---- garbage and other formats
    "load/garbage": lambda L, d: L.load(written("garbage", b"\x00\x01not a checkpoint at all\xff" * 4)),
    "load/empty_file": lambda L, d: L.load(written("empty", b"")),
    "load/text": lambda L, d: L.load(written("text", b"hello world\n")),
    "load/one_byte": lambda L, d: L.load(written("one_byte", b"P")),
    "load/zip_magic_only": lambda L, d: L.load(written("zip_magic", b"PK\x03\x04" + b"\x00" * 40)),
    "load/truncated_half": lambda L, d: truncated(L, 0.5),
    "load/truncated_tail": lambda L, d: truncated(L, 0.98),
    "load/truncated_head": lambda L, d: truncated(L, 0.05),
    "load/zip_without_pickle": lambda L, d: L.load(written("no_pickle.zip", zip_without_pickle())),
    "load/npy": lambda L, d: L.load(written("array.npy", npy_bytes())),
    "load/bare_pickle_dict": lambda L, d: L.load(written("bare.pkl", pickle.dumps({"a": 1}))),
    "load/bare_pickle_dict_not_weights_only": lambda L, d: L.load(written("bare2.pkl", pickle.dumps({"a": [1, 2]})),
                                                                  weights_only=False),
    "load/bare_pickle_global": lambda L, d: L.load(written("evil.pkl", pickle.dumps(_Evil()))),
    "load/checkpoint_with_global_weights_only": lambda L, d: L.load(written("evil_ckpt", checkpoint(L, _Evil()))),
    "load/bytesio_garbage": lambda L, d: L.load(io.BytesIO(b"garbage bytes here")),
    "load/bytesio_empty": lambda L, d: L.load(io.BytesIO(b"")),
    "load/bytes_object": lambda L, d: L.load(checkpoint(L)),
    "load/int_path": lambda L, d: L.load(3),
    "load/none_path": lambda L, d: L.load(None),
    "load/missing_path": lambda L, d: L.load(path("does_not_exist.pt")),
    "load/directory": lambda L, d: L.load(WORKDIR if os.makedirs(WORKDIR, exist_ok=True) is None else None),
    "load/write_only_file": lambda L, d: L.load(open(written("wo", checkpoint(L)), "wb")),
    "load/bad_map_location_str": lambda L, d: L.load(io.BytesIO(checkpoint(L)), map_location="tpu"),
    "load/bad_map_location_type": lambda L, d: L.load(io.BytesIO(checkpoint(L)), map_location=3),
    "load/map_location_missing_cuda": lambda L, d: L.load(io.BytesIO(checkpoint(L)), map_location="cuda:9"),
    "load/mmap_bytesio": lambda L, d: L.load(io.BytesIO(checkpoint(L)), mmap=True),
    "load/mmap_garbage_file": lambda L, d: L.load(written("garbage_mmap", b"garbage" * 10), mmap=True),
    "load/ok_checkpoint": lambda L, d: L.load(written("ok.pt", checkpoint(L))),
    "load/ok_map_location_cpu": lambda L, d: L.load(io.BytesIO(checkpoint(L)), map_location="cpu")["w"],
    "load/ok_map_location_dict": lambda L, d: L.load(io.BytesIO(checkpoint(L)), map_location={"cpu": "cpu"})["w"],
    "load/ok_map_location_callable": lambda L, d: L.load(io.BytesIO(checkpoint(L)),
                                                         map_location=lambda s, loc: s)["w"],
    # ---- save to bad targets
    "save/directory": lambda L, d: save_to(L, WORKDIR if os.makedirs(WORKDIR, exist_ok=True) is None else None),
    "save/missing_parent": lambda L, d: save_to(L, path("no/such/dir/x.pt")),
    "save/int_target": lambda L, d: save_to(L, 3),
    "save/none_target": lambda L, d: save_to(L, None),
    "save/read_only_file": lambda L, d: save_to(L, open(written("ro", b"x"), "rb")),
    "save/text_file": lambda L, d: save_to(L, open(path("text_mode"), "w")),
    "save/lambda": lambda L, d: save_to(L, io.BytesIO(), {"f": lambda: 1}),
    "save/generator": lambda L, d: save_to(L, io.BytesIO(), (i for i in range(3))),
    "save/bad_protocol": lambda L, d: L.save(L.ones(2), io.BytesIO(), pickle_protocol=99),
    "save/ok_path": lambda L, d: save_to(L, path("ok_save.pt")),
    # ---- round trips of odd tensors
    "round_trip/empty": lambda L, d: round_trip(L, L.ones(0, 3)),
    "round_trip/0dim": lambda L, d: round_trip(L, L.tensor(2.5)),
    "round_trip/bool": lambda L, d: round_trip(L, L.tensor([True, False])),
    "round_trip/bfloat16": lambda L, d: round_trip(L, L.tensor([1.5, -2.25], dtype=L.bfloat16)),
    "round_trip/complex": lambda L, d: round_trip(L, L.tensor([1 + 2j, -3j])),
    "round_trip/int8_extremes": lambda L, d: round_trip(L, L.tensor([-128, 127], dtype=L.int8)),
    "round_trip/transposed_view": lambda L, d: round_trip(L, L.arange(6.0).reshape(2, 3).t()),
    "round_trip/strided_view": lambda L, d: round_trip(L, L.arange(10.0)[1::3]),
    "round_trip/expanded": lambda L, d: round_trip(L, L.tensor([1.0, 2.0]).expand(3, 2)),
    "round_trip/shared_storage": lambda L, d: (lambda r: (r[0], r[1], r[0].data_ptr() == r[1].data_ptr()))(
        round_trip(L, (lambda t: [t, t])(L.arange(3.0)))),
    "round_trip/view_pair_stays_shared": lambda L, d: (lambda r: (r[0].add_(1), r[1])[1])(
        round_trip(L, (lambda t: [t, t[1:]])(L.arange(4.0)))),
    "round_trip/nan_inf": lambda L, d: round_trip(L, L.tensor([float("nan"), float("inf"), -0.0])),
    "round_trip/requires_grad": lambda L, d: round_trip(L, L.ones(2, requires_grad=True)).requires_grad,
    "round_trip/parameter": lambda L, d: type(round_trip(L, L.nn.Parameter(L.ones(2)))).__name__,
    "round_trip/nested_containers": lambda L, d: round_trip(L, {"a": [L.ones(1), (L.zeros(2), {"b": None})],
                                                                "c": 1.5}),
    "round_trip/state_dict": lambda L, d: sorted(round_trip(L, L.nn.Linear(2, 3).state_dict()).keys()),
    "round_trip/dtype_and_device": lambda L, d: round_trip(L, [L.float16, L.device("cpu"), L.Size([2, 3])]),
    "round_trip/big_int_tuple": lambda L, d: round_trip(L, (2**70, -(2**70))),
    "round_trip/weights_only_false": lambda L, d: round_trip(L, {"s": {1, 2}}, weights_only=False),
    "round_trip/set_weights_only": lambda L, d: round_trip(L, {"s": {1, 2}}),
}

_FORMAT = ("tandem names the format it found (its error is a ValueError that is also the UnpicklingError, or for "
           "an empty file the EOFError, PyTorch raises); PyTorch's text comes from its unpickler")
KNOWN = {
    "load/garbage": _FORMAT, "load/empty_file": _FORMAT, "load/one_byte": _FORMAT, "load/npy": _FORMAT,
    "load/bytesio_garbage": _FORMAT, "load/bytesio_empty": _FORMAT, "load/bare_pickle_dict": _FORMAT,
    "load/bare_pickle_global": _FORMAT,
    "load/text": "PyTorch's unpickler fails with an incidental KeyError (101, the byte 'e'); " + _FORMAT,
    "load/bare_pickle_dict_not_weights_only": "PyTorch tries its legacy format ('Invalid magic number; corrupt "
                                              "file?', a RuntimeError); " + _FORMAT,
    "load/mmap_garbage_file": "PyTorch refuses mmap for a file not in its zip format (RuntimeError); tandem reads "
                              "the file and names its format (" + _FORMAT + ")",
    "load/checkpoint_with_global_weights_only": "tandem's text is PyTorch 2.6's for a global that is not allowed; "
                                                "PyTorch 2.15 words a blocked module's global differently",
    "load/map_location_missing_cuda": "the emulated GPUs exist: tandem names the device count (2), PyTorch without "
                                      "a GPU says CUDA is not available",
    "load/zip_without_pickle": "PyTorch's message is an internal assert (hasRecord(\"version\")); tandem names the "
                               "missing data.pkl",
    "save/directory": "PyTorch's message is an internal enforce ('[enforce fail at inline_container.cc:746]'); "
                      "tandem names the directory",
    "save/text_file": "tandem writes bytes, PyTorch a memoryview: Python's TypeError names the type written",
}
