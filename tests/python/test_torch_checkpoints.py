"""tandem.save / tandem.load in PyTorch's checkpoint format: files written by PyTorch load into tandem objects,
files written by tandem load into PyTorch with weights_only=True, map_location, the restricted unpickler
against hostile pickles, and damaged archives."""
import io
import os
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
import torch

import oracle
import tandem

DTYPES = oracle.DTYPE_NAMES


class Marker:
    """A class from this test module: pickled by reference, so loading it needs weights_only=False."""

    def __init__(self, value):
        self.value = value


# ---- converting and comparing ---------------------------------------------------------------------------
def torch_tensor(name, shape=(2, 3)):
    t = torch.arange(int(np.prod(shape))).reshape(shape) % 7 - 3
    return t > 0 if name == "bool" else t.to(getattr(torch, name))


def to_tandem(obj):
    """The tandem counterpart of a torch object tree (tensors copied value by value)."""
    if isinstance(obj, torch.nn.Parameter):
        return tandem.nn.Parameter(to_tandem(obj.detach()), obj.requires_grad)
    if isinstance(obj, torch.Tensor):
        t = oracle.from_torch(obj.detach().float() if obj.dtype == torch.bfloat16 else obj.detach())
        t = t.to(tandem.bfloat16) if obj.dtype == torch.bfloat16 else t
        return t.requires_grad_(obj.requires_grad)
    if isinstance(obj, dict):
        return type(obj)((k, to_tandem(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_tandem(v) for v in obj)
    return obj


def assert_same(got, want):
    """``got`` (tandem or torch objects) equals ``want`` (torch objects) in types, dtypes, shapes, values."""
    if isinstance(want, torch.Tensor):
        assert isinstance(got, (tandem.Tensor, torch.Tensor)), type(got)
        assert isinstance(got, (tandem.nn.Parameter, torch.nn.Parameter)) == isinstance(want, torch.nn.Parameter)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        assert list(got.shape) == list(want.shape) and got.requires_grad == want.requires_grad
        wide = (lambda t: t.float()) if want.dtype == torch.bfloat16 else (lambda t: t)
        assert wide(got.detach()).tolist() == wide(want.detach()).tolist()
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype and np.array_equal(got, want)
    elif isinstance(want, (torch.Size, torch.device)):
        assert type(got).__name__ == type(want).__name__ and repr(got).split("(", 1)[1] == repr(want).split("(", 1)[1]
    elif isinstance(want, (dict, list, tuple)):
        assert type(got) is type(want) and len(got) == len(want)
        pairs = zip(got.items(), want.items()) if isinstance(want, dict) else zip(enumerate(got), enumerate(want))
        for (gk, gv), (wk, wv) in pairs:
            assert gk == wk
            assert_same(gv, wv)
    elif isinstance(want, torch.dtype):
        assert str(got).split(".")[-1] == str(want).split(".")[-1]
    else:
        assert type(got) is type(want) and got == want


# ---- the objects -------------------------------------------------------------------------------------------
def trained(make_optimizer):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    opt = make_optimizer(model.parameters())
    model(torch.randn(5, 3)).sum().backward()
    opt.step()
    return {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}


def module_state_dicts():
    torch.manual_seed(0)
    return {"conv": torch.nn.Conv2d(2, 3, 3).state_dict(), "embedding": torch.nn.Embedding(5, 2).state_dict(),
            "lstm": torch.nn.LSTM(2, 3).state_dict(), "norm": torch.nn.LayerNorm(4).state_dict()}


OBJECTS = {
    "modules": module_state_dicts,
    "adam": lambda: trained(lambda p: torch.optim.Adam(p, lr=0.01)),
    "sgd": lambda: trained(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9)),
    "plain values": lambda: {"n": 3, "x": -1.5, "big": 2**70, "s": "text", "none": None, "flag": True,
                             "nested": [1, (2, "b", [None]), {"k": (3.5,)}], "bytes": b"\x00\xff",
                             "set": {1, 2}, "complex": 1 + 2j, 7: "int key", "od": OrderedDict(b=1, a=2)},
    "every dtype": lambda: {name: torch_tensor(name) for name in DTYPES},
    "scalars and empties": lambda: [torch.tensor(2.5), torch.tensor(7), torch.zeros(0), torch.ones(2, 0, 3),
                                    torch.tensor(True)],
    "parameters and grad": lambda: (torch.nn.Parameter(torch.ones(2, 2)),
                                    torch.nn.Parameter(torch.zeros(3), requires_grad=False),
                                    torch.ones(3, requires_grad=True)),
    "non-contiguous": lambda: {"t": torch.arange(12.0).reshape(3, 4).t(), "step": torch.arange(10)[::3],
                               "column": torch.arange(6.0).reshape(2, 3)[:, 1],
                               "expanded": torch.ones(3, 1).expand(3, 4)},
    "top-level tensor": lambda: torch.arange(5.0),
    "size dtype device": lambda: {"size": torch.Size([2, 3]), "dtype": torch.float16, "device": torch.device("cpu")},
}


@pytest.mark.parametrize("name", OBJECTS)
def test_tandem_loads_what_torch_saves(tmp_path, name):
    obj = OBJECTS[name]()
    torch.save(obj, tmp_path / "ckpt.pt")
    assert_same(tandem.load(tmp_path / "ckpt.pt"), obj)


@pytest.mark.parametrize("name", OBJECTS)
def test_torch_loads_what_tandem_saves(tmp_path, name):
    obj = OBJECTS[name]()
    tandem.save(to_tandem(obj), tmp_path / "ckpt.pt")
    assert_same(torch.load(tmp_path / "ckpt.pt", weights_only=True), obj)
    assert_same(tandem.load(tmp_path / "ckpt.pt"), obj)  # and back into tandem


def test_numpy_arrays_both_ways(tmp_path):
    arrays = {"f64": np.sin(np.arange(12.0)).reshape(3, 4), "i32": np.arange(5, dtype=np.int32),
              "bool": np.array([True, False]), "scalar": np.float32(1.5), "t": np.arange(6.0).reshape(2, 3).T}
    torch.save(arrays, tmp_path / "torch.pt")
    assert_same(tandem.load(tmp_path / "torch.pt"), arrays)  # NumPy arrays pass tandem's weights_only reader
    with open(tmp_path / "tandem.pt", "wb") as f:  # as pytorch/examples' time_sequence_prediction saves
        tandem.save(arrays["f64"], f)
    assert_same(tandem.load(tmp_path / "tandem.pt"), arrays["f64"])
    # PyTorch's own weights_only reader refuses NumPy unless allowlisted: its rule, not the file's.
    assert_same(torch.load(tmp_path / "tandem.pt", weights_only=False), arrays["f64"])


def test_views_keep_sharing_one_storage(tmp_path):
    base = torch.arange(12.0).reshape(3, 4)
    torch.save({"base": base, "t": base.t(), "row": base[1], "tail": base.view(-1)[5:]}, tmp_path / "v.pt")
    got = tandem.load(tmp_path / "v.pt")
    assert got["t"].tolist() == base.t().tolist() and got["tail"].tolist() == list(range(5, 12))
    got["base"][1, 1] = 100.0  # one storage in the file: tandem's views share memory again
    assert got["t"][1, 1].item() == 100.0 and got["row"][1].item() == 100.0 and got["tail"][0].item() == 100.0

    tb = tandem.arange(12.0).reshape(3, 4)
    tandem.save({"t": tb.t(), "row": tb[2], "col": tb[:, 1]}, tmp_path / "w.pt")
    back = torch.load(tmp_path / "w.pt", weights_only=True)
    assert back["t"].untyped_storage().data_ptr() == back["row"].untyped_storage().data_ptr()
    assert back["t"].tolist() == tb.t().tolist() and back["row"].tolist() == [8.0, 9.0, 10.0, 11.0]
    assert back["col"].tolist() == [1.0, 5.0, 9.0]
    with zipfile.ZipFile(tmp_path / "w.pt") as z:
        assert [n for n in z.namelist() if "/data/" in n] == ["w/data/0"]


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if tandem.cuda.is_available() else []))
def test_views_share_memory_and_offsets_on_the_map_location(tmp_path, device):
    # Found by the utility program sweep: loaded onto a device, each view was copied there on its own (a write
    # through one no longer showed in the others), and views had storage offset 0 where PyTorch keeps the saved one.
    base = torch.arange(12.0)
    half = torch.arange(6.0).to(torch.bfloat16)
    torch.save({"base": base, "mid": base[2:5], "strided": base[1::3], "half": half, "half_tail": half[4:]},
               tmp_path / "v.pt")
    want = torch.load(tmp_path / "v.pt", weights_only=True)
    got = tandem.load(tmp_path / "v.pt", map_location=device)
    for key, value in want.items():
        assert got[key].device.type == device
        assert (got[key].storage_offset(), got[key].stride()) == (value.storage_offset(), value.stride()), key
    got["mid"].fill_(-1.0)
    got["strided"][-1] = 50.0
    got["half_tail"].fill_(7.0)
    assert got["base"].tolist() == [0.0, 1.0, -1.0, -1.0, -1.0, 5.0, 6.0, 7.0, 8.0, 9.0, 50.0, 11.0]
    assert got["half"].float().tolist() == [0.0, 1.0, 2.0, 3.0, 7.0, 7.0]


def test_partial_overlapping_and_bfloat16_views(tmp_path):
    tb = tandem.arange(12.0).reshape(3, 4)
    half = tandem.arange(6.0).to(tandem.bfloat16).reshape(2, 3)
    obj = {"head": tb[0, :2], "tail": tb[2, 2:],  # a gap between them in the storage's span
           "expanded": tandem.arange(3.0).reshape(3, 1).expand(3, 4), "half": half, "half_t": half.t()}
    tandem.save(obj, tmp_path / "p.pt")
    back = torch.load(tmp_path / "p.pt", weights_only=True)
    for key, value in obj.items():
        assert back[key].dtype == getattr(torch, str(value.dtype).split(".")[-1])
        assert back[key].float().tolist() == value.float().tolist()
    assert back["head"].storage_offset() == 0 and back["tail"].storage_offset() == 10
    assert back["half"].untyped_storage().data_ptr() == back["half_t"].untyped_storage().data_ptr()
    assert back["expanded"].stride() == (1, 0)


def test_parameter_attributes_round_trip(tmp_path):
    p = tandem.nn.Parameter(tandem.ones(2))
    p.note = "kept"
    tandem.save({"p": p}, tmp_path / "attr.pt")
    assert torch.load(tmp_path / "attr.pt", weights_only=True)["p"].note == "kept"
    back = tandem.load(tmp_path / "attr.pt")["p"]
    assert isinstance(back, tandem.nn.Parameter) and back.note == "kept" and back.requires_grad


def test_archive_layout_matches_torch(tmp_path, monkeypatch):
    tandem.save({"a": tandem.ones(3), "b": tandem.zeros(5, dtype=tandem.int64)}, tmp_path / "model.pt")
    raw = (tmp_path / "model.pt").read_bytes()
    with zipfile.ZipFile(tmp_path / "model.pt") as z:
        assert z.namelist() == ["model/data.pkl", "model/.format_version", "model/.storage_alignment",
                                "model/byteorder", "model/data/0", "model/data/1", "model/version"]
        for info in z.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
            name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
            assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0, info.filename
        assert z.read("model/byteorder") == b"little" and z.read("model/version") == b"3\n"
        assert z.read("model/data.pkl")[:2] == b"\x80\x02"  # protocol 2, as torch.save
    # PyTorch's checks of where each record's data starts, and its memory-mapped load.
    monkeypatch.setenv("TORCH_SERIALIZATION_DEBUG", "1")
    assert torch.load(tmp_path / "model.pt", weights_only=True)["a"].tolist() == [1.0] * 3
    assert torch.load(tmp_path / "model.pt", weights_only=True, mmap=True)["b"].tolist() == [0] * 5


def test_file_objects_and_protocols():
    for protocol in (2, 4, 5):
        buf = io.BytesIO()
        tandem.save({"w": tandem.arange(4)}, buf, pickle_protocol=protocol)
        buf.seek(0)
        assert tandem.load(buf)["w"].tolist() == [0, 1, 2, 3]
        buf.seek(0)
        # PyTorch's weights_only reader knows protocol 2 only (it refuses protocol 4's frames).
        assert torch.load(buf, weights_only=protocol == 2)["w"].tolist() == [0, 1, 2, 3]
    buf = io.BytesIO()
    torch.save([torch.ones(2)], buf)
    buf.seek(0)
    assert tandem.load(buf)[0].tolist() == [1.0, 1.0]


def test_saved_device_and_map_location(tmp_path, device):
    path = tmp_path / "dev.pt"
    w = tandem.arange(3.0).to(device)
    tandem.save({"w": w, "tail": w[1:]}, path)
    assert str(tandem.load(path)["w"].device) == device  # back where it was saved, as torch.load
    assert tandem.load(path, map_location="cpu")["w"].device.type == "cpu"
    back = torch.load(path, map_location="cpu", weights_only=True)
    assert back["w"].tolist() == [0.0, 1.0, 2.0] and back["tail"].storage_offset() == 1
    with zipfile.ZipFile(path) as z:
        assert device.encode() in z.read("dev/data.pkl")  # the storage's location, as torch.save writes it

    torch.save({"w": torch.arange(3.0)}, tmp_path / "cpu.pt")
    for map_location in (device, tandem.device(device), {"cpu": device}, lambda s, loc: s.to(device)):
        got = tandem.load(tmp_path / "cpu.pt", map_location=map_location)["w"]
        assert str(got.device) == device and got.tolist() == [0.0, 1.0, 2.0]
    assert tandem.load(tmp_path / "cpu.pt", map_location=lambda s, loc: None)["w"].device.type == "cpu"
    assert tandem.load(tmp_path / "cpu.pt", map_location=lambda s, loc: s)["w"].device.type == "cpu"


def test_map_location_to_a_missing_device_raises(tmp_path):
    torch.save(torch.ones(1), tmp_path / "x.pt")
    count = tandem.cuda.device_count() if tandem.cuda.is_available() else 0
    message = "is_available\\(\\) is False" if not count else f"device_count\\(\\) is {count}"
    with pytest.raises(RuntimeError, match=message):
        tandem.load(tmp_path / "x.pt", map_location=f"cuda:{count + 3}")


# ---- the restricted unpickler ------------------------------------------------------------------------------
def archive_with(path, pickle_bytes, records=None):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", pickle_bytes)
        for name, data in (records or {}).items():
            z.writestr(f"archive/{name}", data)
        z.writestr("archive/version", "3\n")
    return path


def reduce_global(module, name, arg):
    """A protocol-2 pickle calling module.name(arg)."""
    return b"\x80\x02c" + f"{module}\n{name}\n".encode() + pickle.dumps((arg,), protocol=2)[2:-1] + b"R."


HOSTILE = {
    "os.system": (reduce_global("os", "system", "touch {marker}"), "GLOBAL os.system was not an allowed global"),
    "builtins.eval": (reduce_global("builtins", "eval", "open({marker!r}, 'w')"), "GLOBAL eval was not an allowed"),
    "py2 __builtin__.exec": (reduce_global("__builtin__", "exec", "open({marker!r}, 'w')"), "GLOBAL exec was not"),
    "getattr": (reduce_global("builtins", "getattr", "x"), "GLOBAL getattr was not an allowed global"),
    "subprocess via protocol 4": (b"\x80\x04\x8c\nsubprocess\x8c\x04call\x93X\x04\x00\x00\x00true\x85R.",
                                  "GLOBAL subprocess.call was not"),
    "unknown torch name": (reduce_global("torch", "load", "x"), "tandem has no equivalent of torch.load"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_pickles_are_refused_without_running(tmp_path, name):
    payload, message = HOSTILE[name]
    marker = tmp_path / "ran"
    path = archive_with(tmp_path / "evil.pt", payload.replace(b"{marker}", str(marker).encode())
                        .replace(b"{marker!r}", repr(str(marker)).encode()))
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as info:
        tandem.load(path)
    assert message in str(info.value) or pytest.fail(str(info.value))
    assert not marker.exists()


def test_reduce_of_what_is_not_an_allowed_callable_is_refused(tmp_path):
    # An allowed global called with hostile arguments: a numpy subclass instead of ndarray, a non-callable.
    sub = b"\x80\x02cnumpy._core.multiarray\n_reconstruct\ncnumpy\nrecarray\n"
    with pytest.raises(pickle.UnpicklingError, match="numpy.recarray was not an allowed global"):
        tandem.load(archive_with(tmp_path / "a.pt", sub + b"K\x00\x85C\x01b\x87R."))
    not_callable = b"\x80\x02X\x01\x00\x00\x00x)R."
    with pytest.raises(pickle.UnpicklingError, match="REDUCE of 'x', which is not an allowed global"):
        tandem.load(archive_with(tmp_path / "b.pt", not_callable))


def test_build_cannot_alter_allowed_classes(tmp_path):
    # BUILD with a slot state on the Parameter class itself would set Parameter.__repr__ for the whole process.
    payload = (b"\x80\x02ctorch.nn.parameter\nParameter\n" + pickle.dumps((None, {"__repr__": None}), 2)[2:-1]
               + b"b.")
    with pytest.raises(pickle.UnpicklingError, match="sets the state of the class Parameter"):
        tandem.load(archive_with(tmp_path / "p.pt", payload))
    assert tandem.nn.Parameter.__repr__ is not None


def test_arbitrary_objects_need_weights_only_false(tmp_path):
    path = tmp_path / "obj.pt"
    tandem.save({"marker": Marker(5), "w": tandem.ones(2)}, path)
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {__name__}.Marker was not an allowed global"):
        tandem.load(path)
    got = tandem.load(path, weights_only=False)
    assert got["marker"].value == 5 and got["w"].tolist() == [1.0, 1.0]
    with tandem.serialization.safe_globals([Marker]):
        assert tandem.load(path)["marker"].value == 5
    assert Marker not in tandem.serialization.get_safe_globals()


def test_weights_only_false_maps_torch_names_to_tandem(tmp_path):
    torch.save({"size": torch.Size([4]), "layer": torch.nn.ReLU(), "w": torch.ones(1)}, tmp_path / "m.pt")
    got = tandem.load(tmp_path / "m.pt", weights_only=False)
    assert isinstance(got["layer"], tandem.nn.ReLU) and isinstance(got["size"], tandem.Size)


# ---- damaged and foreign files -----------------------------------------------------------------------------
def good_archive(tmp_path):
    path = tmp_path / "good.pt"
    torch.save({"a": torch.arange(100.0), "b": torch.ones(3)}, path)
    return path, path.read_bytes()


def test_truncated_archives_are_refused(tmp_path):
    path, data = good_archive(tmp_path)
    for cut in (len(data) - 1, len(data) - 30, len(data) // 2, 10, 4):
        path.write_bytes(data[:cut])
        with pytest.raises(RuntimeError, match="PytorchStreamReader failed"):
            tandem.load(path)


def test_damaged_records_are_refused(tmp_path):
    path, data = good_archive(tmp_path)
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("good/data/0")
        records = {i.filename: z.read(i.filename) for i in z.infolist()}
    name_len, extra_len = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
    start = info.header_offset + 30 + name_len + extra_len  # the local header's padding, not the directory's
    path.write_bytes(data[:start] + bytes([data[start] ^ 1]) + data[start + 1:])  # one flipped bit
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading file data/0"):
        tandem.load(path)

    def rewrite(**changes):
        with zipfile.ZipFile(path, "w") as z:
            for name, value in {**records, **changes}.items():
                if value is not None:
                    z.writestr(name, value)

    rewrite(**{"good/data/0": None})
    with pytest.raises(RuntimeError, match="failed locating file data/0: file not found"):
        tandem.load(path)
    rewrite(**{"good/data/0": b"\0" * 12})
    with pytest.raises(RuntimeError, match="record data/0 holds 12 bytes"):
        tandem.load(path)
    rewrite(**{"good/data.pkl": None})
    with pytest.raises(RuntimeError, match="failed locating file data.pkl"):
        tandem.load(path)
    rewrite(**{"good/byteorder": b"middle"})
    with pytest.raises(ValueError, match="Unknown endianness type: middle"):
        tandem.load(path)


def test_out_of_bounds_geometry_is_refused(tmp_path):
    torch.save(torch.ones(4), tmp_path / "x.pt")
    with zipfile.ZipFile(tmp_path / "x.pt") as z:
        pkl, data = z.read("x/data.pkl"), z.read("x/data/0")
    # The pickle's size tuple (4,) becomes (40,): past the storage's 4 elements.
    bad = pkl.replace(b"K\x04\x85", b"K(\x85", 1)
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 16"):
        tandem.load(archive_with(tmp_path / "bad.pt", bad, {"data/0": data}))


def test_big_endian_archives_are_swapped(tmp_path):
    buf = io.BytesIO()
    tandem.save(tandem.tensor([1.0, 2.0]), buf)
    with zipfile.ZipFile(buf) as z:
        records = {n.split("/", 1)[1]: z.read(n) for n in z.namelist() if not n.endswith("/version")}
    records["byteorder"] = b"big"
    records["data/0"] = np.array([1.0, 2.0], ">f4").tobytes()
    path = archive_with(tmp_path / "be.pt", records.pop("data.pkl"), records)
    assert tandem.load(path).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("content,found", [
    (b"", "the file is empty"),
    (pickle.dumps({"a": 1}), "plain pickle stream"),
    (b"\x93NUMPY\x01\x00", "NumPy .npy"),
    (b"hello, world, this is text", "starts with b'hello, w'"),
])
def test_other_formats_are_named(tmp_path, content, found):
    (tmp_path / "f.pt").write_bytes(content)
    with pytest.raises(ValueError, match=f"unrecognized file format: .*{found}"):
        tandem.load(tmp_path / "f.pt")


def test_save_errors_leave_no_file(tmp_path):
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        tandem.save({"f": lambda: 0}, tmp_path / "x.pt")
    with pytest.raises(ValueError, match="metadata is stored only in the safetensors format"):
        tandem.save({"a": tandem.ones(1)}, tmp_path / "x.pt", metadata={"k": "v"})
    assert not os.listdir(tmp_path)
