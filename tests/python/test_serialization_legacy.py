"""tandem.load / tandem.save in PyTorch's legacy checkpoint format (PyTorch < 1.6, or
``_use_new_zipfile_serialization=False``): both directions against torch, shared storages, dtypes, map_location,
weights_only, and truncated or damaged files compared with torch's errors on the same bytes."""
import io
import pickle
import struct
from collections import OrderedDict

import pytest
import torch

import tandem
from test_torch_checkpoints import OBJECTS, Marker, assert_same, to_tandem

LEGACY = {"_use_new_zipfile_serialization": False}
UNSIGNED = ["uint16", "uint32", "uint64"]  # no typed storage: an UntypedStorage and _rebuild_tensor_v3


def torch_legacy_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf, **LEGACY)
    return buf.getvalue()


def tandem_legacy_bytes(obj):
    buf = io.BytesIO()
    tandem.save(obj, buf, **LEGACY)
    return buf.getvalue()


def pickle_ends(data):
    """Where each of the file's five pickles ends."""
    class Skim(pickle.Unpickler):
        def persistent_load(self, pid):
            return None

        def find_class(self, module, name):
            return lambda *args: None

    f, ends = io.BytesIO(data), []
    for _ in range(5):
        Skim(f).load()
        ends.append(f.tell())
    return ends


def outcome(load, data, **kwargs):
    """(exception type name, first line of its message), or "ok"."""
    try:
        load(io.BytesIO(data), **kwargs)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split("\n")[0]
    return "ok"


# ---- torch.save(legacy) -> tandem.load ---------------------------------------------------------------------
@pytest.mark.parametrize("name", OBJECTS)
def test_tandem_loads_torch_legacy_files(tmp_path, name):
    obj = OBJECTS[name]()
    torch.save(obj, tmp_path / "old.pt", **LEGACY)
    assert_same(tandem.load(tmp_path / "old.pt"), obj)
    assert_same(tandem.load(io.BytesIO(torch_legacy_bytes(obj))), obj)


@pytest.mark.parametrize("name", UNSIGNED + ["complex64", "complex128"])
def test_more_dtypes_from_torch(name):
    want = torch.tensor([0, 1, 2**15 + 3], dtype=getattr(torch, name))
    got = tandem.load(io.BytesIO(torch_legacy_bytes(want)))
    assert got.dtype == getattr(tandem, name) and got.tolist() == want.tolist()


def test_state_dict_keeps_order_and_metadata_and_loads_into_a_module():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    got = tandem.load(io.BytesIO(torch_legacy_bytes(model.state_dict())))
    assert type(got) is OrderedDict and list(got) == list(model.state_dict())
    assert got._metadata == model.state_dict()._metadata
    mine = tandem.nn.Sequential(tandem.nn.Linear(3, 4), tandem.nn.BatchNorm1d(4))
    mine.load_state_dict(got)
    assert mine[0].weight.tolist() == model[0].weight.tolist()
    assert got["1.num_batches_tracked"].dtype == tandem.int64


def test_views_share_one_storage():
    base = torch.arange(12.0).reshape(3, 4)
    got = tandem.load(io.BytesIO(torch_legacy_bytes({"base": base, "t": base.t(), "row": base[1],
                                                     "tail": base.view(-1)[5:]})))
    assert got["t"].tolist() == base.t().tolist() and got["tail"].tolist() == list(range(5, 12))
    got["base"][1, 2] = 100.0
    assert got["t"][2, 1].item() == 100.0 and got["row"][2].item() == 100.0 and got["tail"][1].item() == 100.0


def test_storage_views_of_old_pytorch():
    """PyTorch < 1.0 wrote storage views: view_metadata (view key, offset, size) in the persistent id."""
    root = ("storage", torch.FloatStorage, "root", "cpu", 6, None)
    view = ("storage", torch.FloatStorage, "root", "cpu", 6, ("view", 2, 3))  # elements 2..4 of root

    class OldWriter(pickle.Pickler):
        def reducer_override(self, t):
            if isinstance(t, torch.Tensor):  # the whole root, or elements 1..2 of the view
                pid, offset = (root, 0) if t.numel() == 6 else (view, 1)
                return torch._utils._rebuild_tensor_v2, (pid, offset, tuple(t.shape), (1,), False, OrderedDict())
            return NotImplemented

        def persistent_id(self, obj):
            return obj if isinstance(obj, tuple) and len(obj) == 6 and obj[0] == "storage" else None

    body = io.BytesIO()
    OldWriter(body, protocol=2).dump({"all": torch.zeros(6), "part": torch.zeros(2)})
    header = torch_legacy_bytes(0)[:pickle_ends(torch_legacy_bytes(0))[2]]
    data = (header + body.getvalue() + pickle.dumps(["root"], protocol=2) + struct.pack("<q", 6)
            + struct.pack("<6f", *range(6)))
    assert torch.load(io.BytesIO(data), weights_only=False)["part"].tolist() == [3.0, 4.0]
    got = tandem.load(io.BytesIO(data))
    assert got["all"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and got["part"].tolist() == [3.0, 4.0]
    got["all"][4] = 40.0
    assert got["part"][1].item() == 40.0  # the view shares the root's bytes


# ---- map_location, weights_only, mmap ------------------------------------------------------------------------
@pytest.mark.parametrize("map_location,device", [
    (None, "cpu"), ("cpu", "cpu"), ("cuda:0", "cuda:0"), ("cuda:1", "cuda:1"), (tandem.device("cuda", 1), "cuda:1"),
    ({"cpu": "cuda:1"}, "cuda:1"), (lambda storage, location: storage.cuda(1), "cuda:1"),
    (lambda storage, location: None, "cpu"),
])
def test_map_location(map_location, device):
    if "cuda" in device and tandem.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices (real or TANDEM_EMULATE_CUDA=2)")
    base = torch.arange(6.0).reshape(2, 3)
    data = torch_legacy_bytes({"w": base, "t": base.t(), "b": torch.tensor([1.5], dtype=torch.bfloat16)})
    got = tandem.load(io.BytesIO(data), map_location=map_location)
    assert {str(t.device) for t in got.values()} == {device}
    assert got["t"].cpu().tolist() == base.t().tolist() and got["b"].dtype == tandem.bfloat16
    assert got["b"].cpu().float().tolist() == [1.5]


def test_saved_on_cuda_goes_back_there_or_where_mapped():
    if tandem.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices (real or TANDEM_EMULATE_CUDA=2)")
    data = tandem_legacy_bytes({"w": tandem.arange(4.0, device="cuda:1"), "c": tandem.ones(2)})
    got = tandem.load(io.BytesIO(data))
    assert str(got["w"].device) == "cuda:1" and str(got["c"].device) == "cpu"
    got = tandem.load(io.BytesIO(data), map_location={"cuda:1": "cuda:0"})
    assert str(got["w"].device) == "cuda:0" and got["w"].cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    want = torch.load(io.BytesIO(data), map_location="cpu")  # this torch has no CUDA: it maps
    assert want["w"].tolist() == [0.0, 1.0, 2.0, 3.0] and want["w"].device.type == "cpu"


def test_weights_only_refuses_other_globals_as_torch():
    data = torch_legacy_bytes({"m": Marker(3), "t": torch.ones(1)})
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as ours:
        tandem.load(io.BytesIO(data))
    line = "WeightsUnpickler error: Unsupported global: GLOBAL test_torch_checkpoints.Marker was not an allowed global"
    assert line in str(theirs.value) and line in str(ours.value)
    got = tandem.load(io.BytesIO(data), weights_only=False)
    assert type(got["m"]) is Marker and got["m"].value == 3 and got["t"].tolist() == [1.0]
    with tandem.serialization.safe_globals([Marker]):
        assert tandem.load(io.BytesIO(data))["m"].value == 3


def test_mmap_is_refused_as_torch(tmp_path):
    path = tmp_path / "old.pt"
    torch.save({"a": torch.ones(2)}, path, **LEGACY)
    for f in (path, str(path)):  # PyTorch names the file only when it is given as a str
        with pytest.raises(RuntimeError) as theirs:
            torch.load(f, mmap=True)
        with pytest.raises(RuntimeError) as ours:
            tandem.load(f, mmap=True)
        assert str(ours.value) == str(theirs.value)
    assert tandem.load(path, mmap=False)["a"].tolist() == [1.0, 1.0]


# ---- tandem.save(legacy) -> torch.load -------------------------------------------------------------------------
@pytest.mark.parametrize("name", OBJECTS)
def test_torch_loads_tandem_legacy_files(tmp_path, name):
    obj = OBJECTS[name]()
    tandem.save(to_tandem(obj), tmp_path / "old.pt", **LEGACY)
    assert_same(torch.load(tmp_path / "old.pt", weights_only=True), obj)
    assert_same(tandem.load(tmp_path / "old.pt"), obj)


@pytest.mark.parametrize("name", ["complex64", "complex128", "uint8", "bool", "bfloat16"])
def test_torch_reads_more_dtypes(name):
    want = torch.tensor([0, 1, 3], dtype=getattr(torch, name))
    got = torch.load(io.BytesIO(tandem_legacy_bytes(tandem.tensor([0, 1, 3], dtype=getattr(tandem, name)))))
    assert got.dtype == want.dtype and torch.equal(got, want)


def test_header_is_torchs_and_views_share_in_torch():
    ours = tandem_legacy_bytes(tandem.ones(1))
    theirs = torch_legacy_bytes(torch.ones(1))
    header = pickle_ends(theirs)[2]  # magic number, protocol version, sys_info
    assert ours[:header] == theirs[:header]
    base = tandem.arange(12.0).reshape(3, 4)
    got = torch.load(io.BytesIO(tandem_legacy_bytes({"base": base, "t": base.t(), "row": base[1]})))
    assert got["t"].tolist() == base.t().tolist() and got["row"].tolist() == [4.0, 5.0, 6.0, 7.0]
    got["base"][1, 2] = -1.0
    assert got["t"][2, 1].item() == -1.0 and got["row"][2].item() == -1.0


def test_module_state_dict_into_torch():
    mine = tandem.nn.Linear(3, 2)
    theirs = torch.nn.Linear(3, 2)
    theirs.load_state_dict(torch.load(io.BytesIO(tandem_legacy_bytes(mine.state_dict()))))
    assert theirs.weight.tolist() == mine.weight.tolist() and theirs.bias.tolist() == mine.bias.tolist()


def test_several_objects_one_after_another_in_one_file():
    buf = io.BytesIO()
    tandem.save({"a": tandem.ones(2)}, buf, **LEGACY)
    tandem.save([tandem.zeros(3, dtype=tandem.int32)], buf, **LEGACY)
    for load in (torch.load, tandem.load):
        buf.seek(0)
        first, second = load(buf), load(buf)
        assert first["a"].tolist() == [1.0, 1.0] and second[0].tolist() == [0, 0, 0]
        assert str(second[0].dtype).endswith("int32") and buf.tell() == len(buf.getvalue())


@pytest.mark.parametrize("name", UNSIGNED)
def test_unsigned_dtypes_are_written_as_torch_writes_them(name):
    """torch.save writes them over an UntypedStorage, which PyTorch's own legacy reader cannot read back."""
    data = tandem_legacy_bytes(tandem.tensor([1, 7], dtype=getattr(tandem, name)))
    got = tandem.load(io.BytesIO(data))
    assert got.dtype == getattr(tandem, name) and got.tolist() == [1, 7]
    same = torch_legacy_bytes(torch.tensor([1, 7], dtype=getattr(torch, name)))
    assert outcome(torch.load, data) == outcome(torch.load, same)
    assert outcome(torch.load, data)[0] == "AttributeError"


def test_save_checks_its_arguments_as_for_the_zip_format():
    with pytest.raises(NotImplementedError, match="only the standard pickle module"):
        tandem.save(tandem.ones(1), io.BytesIO(), pickle_module=object(), **LEGACY)
    with pytest.raises(ValueError, match="pickle protocol must be <="):
        tandem.save(tandem.ones(1), io.BytesIO(), pickle_protocol=99, **LEGACY)
    buf = io.BytesIO()
    tandem.save({"a": tandem.ones(2)}, buf, pickle_protocol=4, **LEGACY)
    # torch's weights_only reader refuses protocol 4's FRAME opcode even in its own files
    assert torch.load(io.BytesIO(buf.getvalue()), weights_only=False)["a"].tolist() == [1.0, 1.0]
    assert tandem.load(io.BytesIO(buf.getvalue()))["a"].tolist() == [1.0, 1.0]


# ---- truncated and damaged files ---------------------------------------------------------------------------------
def test_every_truncation_fails_as_torch():
    data = torch_legacy_bytes({"a": torch.arange(6.0), "b": torch.ones(3, dtype=torch.float64)})
    for n in range(1, len(data)):
        # torch's weights_only reader reports a truncated pickle with its own internal errors
        # (IndexError, struct.error); pickle's messages are those of weights_only=False.
        want = outcome(torch.load, data[:n], weights_only=False)
        assert want != "ok"
        for weights_only in (True, False):
            assert outcome(tandem.load, data[:n], weights_only=weights_only) == want, n


def corrupt(data, what):
    ends = pickle_ends(data)
    keys = pickle.loads(data[ends[3]:ends[4]])
    count_at = ends[4]
    return {
        "count + 1": data[:count_at] + struct.pack("<q", 7) + data[count_at + 8:],
        "count - 1": data[:count_at] + struct.pack("<q", 5) + data[count_at + 8:],
        "huge count": data[:count_at] + struct.pack("<q", 2**60) + data[count_at + 8:],
        "negative count": data[:count_at] + struct.pack("<q", -1) + data[count_at + 8:],
        "protocol version": data[:ends[0]] + pickle.dumps(1000, protocol=2) + data[ends[1]:],
        "unknown key": data[:ends[3]] + pickle.dumps(keys + ["zzz"], protocol=2) + data[ends[4]:],
        "keys not a list": data[:ends[3]] + pickle.dumps(5, protocol=2) + data[ends[4]:],
        "trailing bytes": data + b"xyz",
        "other sys_info": data[:ends[1]] + pickle.dumps(5, protocol=2) + data[ends[2]:],
    }[what]


@pytest.mark.parametrize("what", ["count + 1", "count - 1", "huge count", "negative count", "protocol version",
                                  "unknown key", "keys not a list", "trailing bytes", "other sys_info"])
def test_damaged_files_fail_as_torch(what):
    data = corrupt(torch_legacy_bytes({"a": torch.arange(6.0), "b": torch.ones(3, dtype=torch.float64)}), what)
    want = outcome(torch.load, data)
    got = outcome(tandem.load, data)
    assert got == want if want != "ok" else got == "ok"


def test_damage_torch_does_not_notice_is_refused():
    data = torch_legacy_bytes({"a": torch.arange(6.0), "b": torch.ones(3)})
    ends = pickle_ends(data)
    keys = pickle.loads(data[ends[3]:ends[4]])
    # one storage's bytes missing: PyTorch returns uninitialised memory for it
    missing = data[:ends[3]] + pickle.dumps(keys[:1], protocol=2) + data[ends[4]:ends[4] + 8 + 24]
    with pytest.raises(RuntimeError, match="^tandem.load: the legacy checkpoint holds no bytes for storage"):
        tandem.load(io.BytesIO(missing))
    flags = torch_legacy_bytes(torch.tensor([True, False]))
    with pytest.raises(ValueError, match="holds bytes other than 0 and 1"):  # as for the zip format
        tandem.load(io.BytesIO(flags[:-2] + b"\x02\x00"))


def test_a_plain_pickle_is_still_named():
    with pytest.raises(pickle.UnpicklingError, match="unrecognized file format: the file is a plain pickle stream"):
        tandem.load(io.BytesIO(pickle.dumps(123, protocol=2) + torch_legacy_bytes(1)[15:]))


def test_malformed_object_pickle_is_an_unpickling_error():
    header = torch_legacy_bytes(0)[:pickle_ends(torch_legacy_bytes(0))[2]]
    setitems_on_a_str = b"\x80\x02X\x01\x00\x00\x00a(K\x01K\x02u."
    data = header + setitems_on_a_str + pickle.dumps([], protocol=2)
    for weights_only in (True, False):
        with pytest.raises(pickle.UnpicklingError, match="^tandem.load: the legacy checkpoint's object pickle is "
                                                          "damaged \\(TypeError"):
            tandem.load(io.BytesIO(data), weights_only=weights_only)


def test_file_objects_without_readinto():
    class Minimal:  # what torch.load needs of a file object
        def __init__(self, data):
            self._f = io.BytesIO(data)

        def read(self, n=-1):
            return self._f.read(n)

        def readline(self):
            return self._f.readline()

        def seek(self, offset, whence=0):
            return self._f.seek(offset, whence)

        def tell(self):
            return self._f.tell()

    data = torch_legacy_bytes({"a": torch.arange(3.0)})
    assert tandem.load(Minimal(data))["a"].tolist() == torch.load(Minimal(data))["a"].tolist() == [0.0, 1.0, 2.0]
