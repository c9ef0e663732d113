"""tandem.save / tandem.load: round trips, interchange with the safetensors package, atomic writes, and a
table of damaged and hostile files."""
import io
import json
import os
import struct
import subprocess
import sys
import textwrap

import pytest
import torch

import tandem

safetensors_torch = pytest.importorskip("safetensors.torch")

DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def sample(name, shape=(2, 3)):
    t = torch.arange(int(torch.tensor(shape).prod())).reshape(shape) % 7 - 3
    return t.to(getattr(torch, name)) if name != "bool" else t > 0


def to_tandem(t):
    return tandem.tensor(t.tolist(), dtype=getattr(tandem, str(t.dtype).replace("torch.", "")))


def assert_same(a, b):
    assert str(a.dtype).replace("tandem.", "") == str(b.dtype).replace("torch.", "")
    assert list(a.shape) == list(b.shape)
    assert a.tolist() == b.tolist()


@pytest.mark.parametrize("name", DTYPES)
def test_round_trip_every_dtype(tmp_path, name):
    t = to_tandem(sample(name))
    tandem.save({"x": t}, tmp_path / "a.safetensors")
    back = tandem.load(tmp_path / "a.safetensors")
    assert list(back) == ["x"]
    assert back["x"].dtype == t.dtype and back["x"].tolist() == t.tolist()


def test_non_contiguous_zero_dim_and_empty(tmp_path):
    base = tandem.arange(12, dtype=tandem.float32).reshape(3, 4)
    obj = {"t": base.t(), "scalar": tandem.tensor(2.5), "empty": tandem.empty((0, 3))}
    tandem.save(obj, tmp_path / "a.safetensors")
    back = tandem.load(tmp_path / "a.safetensors")
    assert back["t"].tolist() == base.t().tolist()
    assert back["scalar"].shape == () and back["scalar"].item() == 2.5
    assert list(back["empty"].shape) == [0, 3]


def test_nested_structure_round_trip(tmp_path):
    w = tandem.ones((2, 2))
    obj = {
        "model": {"fc.weight": w, "fc.bias": tandem.zeros(2)},
        "optim": {"state": {0: {"step": tandem.tensor(3.0), "exp_avg": w}}, "param_groups": [{"lr": 0.1, "params": [0], "betas": (0.9, 0.99), "nesterov": False, "name": None}]},
        "list": [tandem.tensor([1, 2]), 3, "s"],
    }
    tandem.save(obj, tmp_path / "n.safetensors")
    back = tandem.load(tmp_path / "n.safetensors")
    assert back["model"]["fc.weight"].tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert back["optim"]["state"][0]["step"].item() == 3.0
    assert back["optim"]["param_groups"] == [{"lr": 0.1, "params": [0], "betas": (0.9, 0.99), "nesterov": False, "name": None}]
    assert back["list"][0].tolist() == [1, 2] and back["list"][1:] == [3, "s"]
    single = tmp_path / "single.safetensors"
    tandem.save(tandem.arange(3), single)
    assert tandem.load(single).tolist() == [0, 1, 2]


def test_file_objects(tmp_path):
    tandem.save({"a": tandem.arange(4)}, tmp_path / "f.safetensors")
    buf = io.BytesIO((tmp_path / "f.safetensors").read_bytes())  # load tells the format by its first bytes
    assert tandem.load(buf)["a"].tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("name", DTYPES)
def test_safetensors_reads_tandem_files(tmp_path, name):
    t = sample(name, (3, 2))
    tandem.save({"w": to_tandem(t), "b": to_tandem(sample(name, (4,)))}, tmp_path / "t.safetensors")
    got = safetensors_torch.load_file(str(tmp_path / "t.safetensors"))
    assert torch.equal(got["w"], t)
    assert torch.equal(got["b"], sample(name, (4,)))


@pytest.mark.parametrize("name", DTYPES)
def test_tandem_reads_safetensors_files(tmp_path, name):
    tensors = {"w": sample(name, (3, 2)), "z": sample(name, (1,)), "e": sample(name, (0,))}
    safetensors_torch.save_file(tensors, str(tmp_path / "r.safetensors"), metadata={"format": "pt"})
    got = tandem.load(tmp_path / "r.safetensors")
    assert sorted(got) == ["e", "w", "z"]
    for k, v in tensors.items():
        assert_same(got[k], v)


def test_map_location(tmp_path, device):
    tandem.save({"a": tandem.arange(3)}, tmp_path / "m")
    got = tandem.load(tmp_path / "m", map_location=device)["a"]
    assert str(got.device).startswith(device.split(":")[0])
    assert got.tolist() == [0, 1, 2]
    src = tandem.arange(3).to(device)
    tandem.save({"a": src}, tmp_path / "d.safetensors")
    assert tandem.load(tmp_path / "d.safetensors")["a"].device.type == "cpu"  # safetensors holds no device


def test_unsupported_objects_are_refused(tmp_path):
    with pytest.raises(TypeError, match="cannot store an object of type object"):
        tandem.save({"a": object()}, tmp_path / "x.safetensors")
    assert not os.listdir(tmp_path)  # no temporary file left behind


def _write(path, header_obj=None, data=b"", raw_header=None, length=None):
    text = raw_header if raw_header is not None else json.dumps(header_obj).encode()
    n = len(text) if length is None else length
    path.write_bytes(struct.pack("<Q", n) + text + data)
    return path


DAMAGED = [
    ("empty file", lambda p: p.write_bytes(b""), "too small"),
    ("short length", lambda p: p.write_bytes(b"\x01\x02"), "too small"),
    ("header past end", lambda p: _write(p, {"a": 1}, length=1000), "runs past the end"),
    ("huge header length", lambda p: _write(p, {}, length=1 << 40), "100 MB"),
    ("not json", lambda p: _write(p, raw_header=b"{not json}"), "not valid UTF-8 JSON"),
    ("not utf8", lambda p: _write(p, raw_header=b"\xff\xfe"), "not valid UTF-8 JSON"),
    ("json list", lambda p: _write(p, [1, 2]), "expected a JSON object"),
    ("deep nesting", lambda p: _write(p, raw_header=b"[" * 100000 + b"]" * 100000), "not valid UTF-8 JSON"),
    ("bad dtype", lambda p: _write(p, {"a": {"dtype": "X9", "shape": [1], "data_offsets": [0, 1]}}, b"\0"), "unsupported dtype"),
    ("negative shape", lambda p: _write(p, {"a": {"dtype": "U8", "shape": [-1], "data_offsets": [0, 1]}}, b"\0"), "invalid shape"),
    ("huge dim", lambda p: _write(p, {"a": {"dtype": "U8", "shape": [0, 2**70], "data_offsets": [0, 0]}}), "invalid shape"),
    ("float shape", lambda p: _write(p, {"a": {"dtype": "U8", "shape": [1.5], "data_offsets": [0, 1]}}, b"\0"), "invalid shape"),
    ("offsets past end", lambda p: _write(p, {"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8), "outside the data"),
    ("reversed offsets", lambda p: _write(p, {"a": {"dtype": "U8", "shape": [0], "data_offsets": [2, 1]}}, b"\0\0"), "outside the data"),
    ("size mismatch", lambda p: _write(p, {"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8), "needs 12 bytes"),
    ("overlap", lambda p: _write(p, {"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]}, "b": {"dtype": "U8", "shape": [2], "data_offsets": [1, 3]}}, b"\0" * 3), "overlaps"),
    ("gap", lambda p: _write(p, {"a": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}}, b"\0\0"), "gap"),
    ("trailing bytes", lambda p: _write(p, {"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}, b"\0\0"), "trailing garbage"),
    ("duplicate key", lambda p: _write(p, raw_header=b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', data=b"\0"), "duplicate key"),
    ("extra field", lambda p: _write(p, {"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1], "code": "x"}}, b"\0"), "expected dtype, shape, data_offsets"),
    ("bad metadata", lambda p: _write(p, {"__metadata__": {"k": 1}}), "__metadata__"),
    ("bad structure", lambda p: _write(p, {"__metadata__": {"tandem.structure": '{"evil": 1}'}}), "unknown structure kind"),
    ("structure names missing tensor", lambda p: _write(p, {"__metadata__": {"tandem.structure": '{"tensor": "nope"}'}}), "does not hold"),
]


@pytest.mark.parametrize("make,message", [d[1:] for d in DAMAGED], ids=[d[0] for d in DAMAGED])
def test_damaged_files_are_rejected(tmp_path, make, message):
    path = tmp_path / "bad.safetensors"  # the suffix makes load read even a damaged header as safetensors
    make(path)
    with pytest.raises(ValueError, match=message):
        tandem.load(path)


def test_truncated_real_file_is_rejected(tmp_path):
    path = tmp_path / "t.safetensors"
    tandem.save({"a": tandem.ones(100), "b": tandem.zeros(10)}, path)
    data = path.read_bytes()
    for cut in (len(data) - 1, len(data) - 200, 20, 7):
        path.write_bytes(data[:cut])
        with pytest.raises(ValueError):
            tandem.load(path)


def test_kill_mid_save_leaves_old_file_intact(tmp_path):
    target = tmp_path / "model.safetensors"
    tandem.save({"w": tandem.full((4,), 7.0)}, target)
    before = target.read_bytes()
    # The child starts a large save and is killed while it writes; the old file must survive unchanged.
    script = textwrap.dedent(
        f"""
        import os, sys, tandem
        import tandem.serialization as s
        real_fsync = os.fsync
        def slow_fsync(fd):
            sys.stdout.write("writing\\n"); sys.stdout.flush()
            import time; time.sleep(60)
        os.fsync = slow_fsync
        tandem.save({{"w": tandem.ones(1 << 20)}}, {str(target)!r})
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, env=env)
    assert child.stdout.readline().strip() == b"writing"
    child.kill()
    child.wait()
    assert target.read_bytes() == before
    assert tandem.load(target)["w"].tolist() == [7.0] * 4


def test_safetensors_reads_nested_tandem_files(tmp_path):
    path = tmp_path / "nested.safetensors"
    tandem.save({"model": {"w": tandem.ones(2)}, "step": 3, "list": [tandem.zeros(1)]}, path)
    got = safetensors_torch.load_file(str(path))
    assert sorted(got) == ["list.0", "model.w"]
    assert got["model.w"].tolist() == [1.0, 1.0]


def test_save_refuses_what_load_would_refuse(tmp_path):
    path = tmp_path / "m.safetensors"
    x = tandem.ones(2)
    with pytest.raises(TypeError, match="metadata must map str to str"):
        tandem.save({"x": x}, path, metadata={"epoch": 3})
    with pytest.raises(ValueError, match="reserved"):
        tandem.save({"x": x}, path, metadata={"tandem.structure": "[]"})
    assert not path.exists()  # nothing half-written
    tandem.save({"x": x}, path, metadata={"epoch": "3"})
    assert tandem.load(path)["x"].tolist() == [1.0, 1.0]


def test_save_of_a_container_that_contains_itself_raises_instead_of_hanging(tmp_path):
    loop = [tandem.ones(1)]
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        tandem.save(loop, tmp_path / "loop.safetensors")
    d = {"w": tandem.ones(1)}
    d["self"] = {"again": d}
    with pytest.raises(ValueError, match="contains itself"):
        tandem.save(d, tmp_path / "d.safetensors")
    shared = [tandem.zeros(1)]
    tandem.save({"a": shared, "b": shared}, tmp_path / "shared.safetensors")  # shared, not cyclic: fine
    back = tandem.load(tmp_path / "shared.safetensors")
    assert back["a"][0].tolist() == [0.0] and back["b"][0].tolist() == [0.0]


def test_load_refuses_bool_bytes_other_than_0_and_1(tmp_path):
    import json
    import struct

    header = json.dumps({"m": {"dtype": "BOOL", "shape": [3], "data_offsets": [0, 3]}}).encode()
    header += b" " * (-len(header) % 8)
    path = tmp_path / "bad_bool.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + bytes([1, 2, 0]))
    with pytest.raises(ValueError, match="BOOL holds bytes other than 0 and 1"):
        tandem.load(path)
    path.write_bytes(struct.pack("<Q", len(header)) + header + bytes([1, 0, 1]))
    t = tandem.load(path)["m"]
    assert t.tolist() == [True, False, True] and t.sum().item() == 2
