"""tandem.utils.tensorboard.SummaryWriter: the event files are read back with a reader written here (TFRecord
framing, both CRC-32C checks, protobuf wire format), independent of the writer's encoders, and checked against
NumPy. PyTorch's writer needs the tensorboard package, which is not a test dependency, so the field layout
(tensorboard's event.proto/summary.proto) is the oracle."""
import glob
import os
import re
import socket
import struct
import subprocess
import sys
import time
import zlib

import numpy as np
import pytest

import tandem
from tandem.utils.tensorboard import SummaryWriter


# ---- reader ----------------------------------------------------------------------------------------------------
def crc32c_bitwise(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def read_records(path):
    data = open(path, "rb").read()
    records, pos = [], 0
    while pos < len(data):
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        assert length_crc == masked(crc32c_bitwise(header))
        payload = data[pos + 12:pos + 12 + length]
        (data_crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        assert data_crc == masked(crc32c_bitwise(payload))
        records.append(payload)
        pos += 16 + length
    assert pos == len(data)
    return records


def decode(message):
    """Protobuf wire format -> {field: [values]}: varints as int, fixed64/fixed32 as raw 8/4 bytes, the rest
    as bytes."""
    fields, pos = {}, 0

    def varint():
        nonlocal pos
        value, shift = 0, 0
        while True:
            byte = message[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while pos < len(message):
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            value = varint()
        elif wire == 1:
            value, pos = message[pos:pos + 8], pos + 8
        elif wire == 5:
            value, pos = message[pos:pos + 4], pos + 4
        else:
            assert wire == 2
            length = varint()
            value, pos = message[pos:pos + length], pos + length
        fields.setdefault(field, []).append(value)
    return fields


def f64(raw):
    return struct.unpack("<d", raw)[0]


def events(path):
    """Each Event as a dict: wall_time, step, file_version, values (list of decoded Summary.Value dicts)."""
    out = []
    for record in read_records(path):
        fields = decode(record)
        event = {"wall_time": f64(fields[1][0]), "step": fields.get(2, [0])[0]}
        if 3 in fields:
            event["file_version"] = fields[3][0].decode()
        if 7 in fields:
            event["session_log"] = decode(fields[7][0]).get(1, [0])[0]
        if 5 in fields:
            event["values"] = [decode(v) for v in decode(fields[5][0]).get(1, [])]
        out.append(event)
    return out


def event_file(log_dir):
    (path,) = glob.glob(os.path.join(log_dir, "events.out.tfevents.*"))
    return path


def summaries(log_dir):
    """(tag, step, value dict) of every summary value in the directory's event file."""
    return [(v[1][0].decode(), e["step"], v) for e in events(event_file(log_dir)) for v in e.get("values", [])]


def png_pixels(png):
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        kind, data = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", png[pos + 8 + length:pos + 12 + length])[0] == zlib.crc32(kind + data)
        chunks[kind] = data
        pos += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, 1 + width * channels)
    assert depth == 8 and (rows[:, 0] == 0).all()  # filter type None on every line
    return rows[:, 1:].reshape(height, width, channels)


# ---- tests -----------------------------------------------------------------------------------------------------
def test_file_name_and_version_record(tmp_path):
    with SummaryWriter(str(tmp_path), filename_suffix=".v1") as writer:
        assert writer.get_logdir() == str(tmp_path)
    path = event_file(str(tmp_path))
    pattern = r"events\.out\.tfevents\.\d{10}\.%s\.%d\.\d+\.v1" % (re.escape(socket.gethostname()), os.getpid())
    assert re.fullmatch(pattern, os.path.basename(path))
    (first,) = events(path)
    assert first["file_version"] == "brain.Event:2" and abs(first["wall_time"] - time.time()) < 60


def test_default_log_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_lr0.1") as writer:
        log_dir = writer.get_logdir()
    assert re.fullmatch(r"runs/[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_%s_lr0\.1" % re.escape(socket.gethostname()),
                        log_dir)
    assert os.path.isdir(tmp_path / log_dir)


def test_add_scalar(tmp_path, device):
    with SummaryWriter(str(tmp_path)) as writer:
        for step in range(3):
            writer.add_scalar("loss/train", tandem.tensor(1.0 / (step + 1), device=device), step)
        writer.add_scalar("lr", 0.5, global_step=10, walltime=1234.5)
        writer.add_scalar("acc", np.float64(0.25), tandem.tensor(7, device=device))
        writer.add_scalar("loss/new", tandem.tensor([[3.0]], device=device), 4, new_style=True)
        writer.add_scalar("loss/double", 0.1, 5, new_style=True, double_precision=True)
    got = summaries(str(tmp_path))
    assert [(tag, step) for tag, step, _ in got] == [("loss/train", 0), ("loss/train", 1), ("loss/train", 2),
                                                      ("lr", 10), ("acc", 7), ("loss/new", 4), ("loss/double", 5)]
    simple = [struct.unpack("<f", v[2][0])[0] for _, _, v in got[:5]]
    assert simple == [1.0, np.float32(0.5), np.float32(1 / 3), 0.5, 0.25]
    assert [e["wall_time"] for e in events(event_file(str(tmp_path))) if e["step"] == 10] == [1234.5]
    new, double = got[5][2], got[6][2]
    assert decode(decode(new[9][0])[1][0]) == {1: [b"scalars"]}  # metadata.plugin_data.plugin_name
    tensor = decode(new[8][0])
    assert tensor[1] == [1] and struct.unpack("<f", tensor[5][0]) == (3.0,)  # DT_FLOAT, float_val
    tensor = decode(double[8][0])
    assert tensor[1] == [2] and struct.unpack("<d", tensor[6][0]) == (0.1,)  # DT_DOUBLE, double_val


def test_add_scalars_writes_one_run_per_key(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        for step in range(2):
            writer.add_scalars("loss/split", {"train": 1.0 + step, "val": tandem.tensor(2.0 + step)}, step)
    assert sorted(os.listdir(tmp_path))[-2:] == ["loss_split_train", "loss_split_val"]
    for key, base in (("train", 1.0), ("val", 2.0)):
        got = summaries(str(tmp_path / f"loss_split_{key}"))
        assert [(tag, step, struct.unpack("<f", v[2][0])[0]) for tag, step, v in got] == \
            [("loss/split", 0, base), ("loss/split", 1, base + 1)]
    assert summaries(str(tmp_path)) == []


def histogram(value):
    histo = decode(value[5][0])
    stats = [f64(histo[i][0]) for i in range(1, 6)]
    limits = np.frombuffer(histo[6][0], "<f8")
    counts = np.frombuffer(histo[7][0], "<f8")
    return stats, limits, counts


def test_add_histogram(tmp_path, device):
    values = np.random.default_rng(0).standard_normal((20, 25)).astype(np.float32)
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_histogram("w", tandem.tensor(values, device=device), 3)
        writer.add_histogram("w10", values, 3, bins=10)
        writer.add_histogram("wauto", values.tolist(), 3, bins="auto")
        writer.add_histogram("gap", np.array([5.0, 6.0]), bins=np.array([0.0, 1.0, 2.0, 10.0, 11.0]))
        writer.add_histogram_raw("raw", 0.0, 3.0, 4, 5.0, 6.0, [1.0, 2.0], [3, 4], global_step=1)
    got = {tag: histogram(v) for tag, _, v in summaries(str(tmp_path))}
    flat = values.astype(np.float64).ravel()
    expected_stats = [flat.min(), flat.max(), 500.0, flat.sum(), flat.dot(flat)]
    for tag in ("w", "w10", "wauto"):
        stats, limits, counts = got[tag]
        np.testing.assert_allclose(stats, expected_stats, rtol=1e-12)
        assert counts.sum() == 500 and len(limits) == len(counts)
    # default buckets: TensorFlow's edges, +-1e-12 * 1.1**k, trimmed to the data plus one empty bucket on the left
    _, limits, counts = got["w"]
    assert counts[0] == 0 and counts[1] > 0 and counts[-1] > 0
    assert limits[0] < flat.min() <= limits[1] and limits[-2] < flat.max() <= limits[-1]
    positive, negative = limits[limits > 0], -limits[limits < 0][::-1]
    assert 0.0 in limits and positive[0] == negative[0] == 1e-12
    np.testing.assert_allclose(positive[1:] / positive[:-1], 1.1, rtol=1e-12)
    np.testing.assert_allclose(negative[1:] / negative[:-1], 1.1, rtol=1e-12)
    # explicit bins: NumPy's counts, with a zero bucket whose right edge is the data's left edge
    np_counts, np_edges = np.histogram(flat, bins=10)
    _, limits, counts = got["w10"]
    assert counts.tolist() == [0] + np_counts.tolist() and limits.tolist() == np_edges.tolist()
    _, limits, counts = got["gap"]  # buckets [0,1) [1,2) empty are trimmed to one; [10, 11] empty is dropped
    assert counts.tolist() == [0, 2] and limits.tolist() == [2.0, 10.0]
    stats, limits, counts = got["raw"]
    assert stats == [0.0, 3.0, 4.0, 5.0, 6.0] and limits.tolist() == [1, 2] and counts.tolist() == [3, 4]


def test_add_histogram_max_bins(tmp_path):
    values = np.arange(100.0)
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_histogram("m", values, bins=10, max_bins=3)  # groups of 3 buckets, the last padded
    _, limits, counts = histogram(summaries(str(tmp_path))[0][2])
    edges = np.histogram(values, bins=10)[1]
    assert counts.tolist() == [0, 30, 30, 30, 10] and limits.tolist() == edges[[0, 3, 6, 9, 10]].tolist()


def image(value):
    fields = decode(value[4][0])
    return fields[1][0], fields[2][0], fields[3][0], png_pixels(fields[4][0])


def test_add_image_formats(tmp_path, device):
    rng = np.random.default_rng(1)
    chw = rng.random((3, 4, 6)).astype(np.float32)
    hwc_u8 = (rng.random((5, 2, 4)) * 255).astype(np.uint8)
    gray = rng.random((3, 7)).astype(np.float32)
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_image("chw", tandem.tensor(chw, device=device), 1)
        writer.add_image("hwc_rgba", hwc_u8, 1, dataformats="HWC")
        writer.add_image("gray", tandem.tensor(gray), 1, dataformats="HW")
        writer.add_image("one_channel", gray[None] * 2 - 0.5, 1)  # out of [0, 1]: clipped
    got = {tag: image(v) for tag, _, v in summaries(str(tmp_path))}
    height, width, colorspace, pixels = got["chw"]
    assert (height, width, colorspace) == (4, 6, 3)
    assert (pixels == (chw.transpose(1, 2, 0) * 255).astype(np.uint8)).all()
    height, width, colorspace, pixels = got["hwc_rgba"]
    assert (height, width, colorspace) == (5, 2, 4) and (pixels == hwc_u8).all()
    height, width, colorspace, pixels = got["gray"]
    assert (height, width, colorspace) == (3, 7, 3)
    assert (pixels == np.repeat((gray * 255).astype(np.uint8)[:, :, None], 3, axis=2)).all()
    expected = np.repeat(((gray * 2 - 0.5) * 255).clip(0, 255).astype(np.uint8)[:, :, None], 3, axis=2)
    assert (got["one_channel"][3] == expected).all()


def test_add_images_grid(tmp_path, device):
    batch = np.random.default_rng(2).random((10, 1, 4, 5)).astype(np.float32)
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_images("batch", tandem.tensor(batch, device=device), 2)
        writer.add_images("nhwc", (batch.transpose(0, 2, 3, 1)[:3] * 255).astype(np.uint8), 2, dataformats="NHWC")
    got = {tag: image(v) for tag, _, v in summaries(str(tmp_path))}
    height, width, colorspace, pixels = got["batch"]
    assert (height, width, colorspace) == (8, 40, 3)  # 8 per row: 2 rows of 8 columns
    u8 = (batch * 255).astype(np.uint8)[:, 0]
    assert (pixels[4:8, 5:10, 1] == u8[9]).all() and (pixels[4:8, 10:, :] == 0).all()
    assert (pixels[0:4, 35:40, 2] == u8[7]).all()
    assert got["nhwc"][:3] == (4, 15, 3) and (got["nhwc"][3][:, 5:10, 0] == u8[1]).all()


def solid_figure(color, size=(2, 1), dpi=10):
    """A matplotlib figure with no axes, every pixel of it the face colour."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt.figure(figsize=size, dpi=dpi, facecolor=color)


def test_add_figure(tmp_path):
    red, blue = solid_figure((1, 0, 0)), solid_figure((0, 0, 1))
    import matplotlib.pyplot as plt
    kept = solid_figure((0, 1, 0, 0.5), size=(1, 3))
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_figure("one", kept, 3, close=False)
        writer.add_figure("two", [red, blue], 4, walltime=99.0)
    assert plt.fignum_exists(kept.number) and not plt.fignum_exists(red.number)
    assert not plt.fignum_exists(blue.number)
    plt.close(kept)
    got = {tag: (step, image(v)) for tag, step, v in summaries(str(tmp_path))}
    step, (height, width, colorspace, pixels) = got["one"]
    assert (step, height, width, colorspace) == (3, 30, 10, 3)  # RGB: the alpha channel is dropped
    assert (pixels == [0, 255, 0]).all()  # half-transparent green drawn on Agg's cleared (transparent) canvas
    step, (height, width, colorspace, pixels) = got["two"]
    assert (step, height, width, colorspace) == (4, 10, 40, 3)  # a list is tiled as a batch, side by side
    assert (pixels[:, :20] == [255, 0, 0]).all() and (pixels[:, 20:] == [0, 0, 255]).all()
    assert [e["wall_time"] for e in events(event_file(str(tmp_path))) if e["step"] == 4] == [99.0]


def pr_curve(value):
    """(plugin content, shape, float32 values) of a pr_curves summary value."""
    plugin_data = decode(decode(value[9][0])[1][0])
    assert plugin_data[1] == [b"pr_curves"]
    tensor = decode(value[8][0])
    assert tensor[1] == [1]  # DT_FLOAT
    shape = [decode(d)[1][0] for d in decode(tensor[2][0])[2]]
    return plugin_data[2][0], shape, np.frombuffer(tensor[5][0], "<f4").reshape(shape)


def brute_force_pr_curve(labels, predictions, num_thresholds, weights):
    """Per threshold i: the weight of the positives and negatives whose bucket floor(p * (n - 1)) is >= i."""
    buckets = np.floor(predictions * (num_thresholds - 1))
    rows = []
    for i in range(num_thresholds):
        tp = sum(w for b, y, w in zip(buckets, labels, weights) if b >= i and y)
        fp = sum(w for b, y, w in zip(buckets, labels, weights) if b >= i and not y)
        rows.append((tp, fp))
    tp, fp = np.array(rows).T
    fn, tn = tp[0] - tp, fp[0] - fp
    return np.stack([tp, fp, tn, fn, tp / np.maximum(1e-7, tp + fp), tp / np.maximum(1e-7, tp + fn)])


def test_add_pr_curve(tmp_path, device):
    rng = np.random.default_rng(3)
    labels, predictions, weights = rng.integers(0, 2, 50), rng.random(50), rng.random(50)
    predictions[:3] = [0.0, 1.0, 0.5]
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_pr_curve("pr", tandem.tensor(labels, device=device), tandem.tensor(predictions, device=device), 1)
        writer.add_pr_curve("weighted", labels == 1, predictions.astype(np.float32), 2, num_thresholds=9,
                            weights=tandem.tensor(weights, device=device))
        writer.add_pr_curve("capped", labels, predictions, 3, num_thresholds=500)
    got = {tag: (step, pr_curve(v)) for tag, step, v in summaries(str(tmp_path))}
    step, (content, shape, data) = got["pr"]
    # PrCurvePluginData{num_thresholds=2}; version 0 is not encoded
    assert (step, content, shape) == (1, b"\x10\x7f", [6, 127])
    expected = brute_force_pr_curve(labels, predictions, 127, np.ones(50))
    np.testing.assert_array_equal(data, expected.astype(np.float32))
    assert data[0, 0] == labels.sum() and data[1, 0] == 50 - labels.sum()
    assert labels[1] == 0 and (data[:4, -1] == [0, 1, 26, 23]).all()  # only prediction 1.0 reaches threshold 1
    step, (content, shape, data) = got["weighted"]
    assert (step, content, shape) == (2, b"\x10\x09", [6, 9])
    expected = brute_force_pr_curve(labels, predictions.astype(np.float32), 9, weights)
    np.testing.assert_allclose(data, expected.astype(np.float32), rtol=1e-6)
    assert got["capped"][1][:2] == (b"\x10\x7f", [6, 127])  # num_thresholds is capped at 127


def test_add_pr_curve_raw(tmp_path, device):
    counts = [tandem.tensor([5.0, 3.0, 0.0], device=device), [4, 1, 0], np.array([0, 3, 4]), [0, 2, 5],
              [0.55, 0.75, 0.0], [1.0, 0.6, 0.0]]
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_pr_curve_raw("raw", *counts, global_step=7, num_thresholds=3)
    ((tag, step, value),) = summaries(str(tmp_path))
    content, shape, data = pr_curve(value)
    assert (tag, step, content, shape) == ("raw", 7, b"\x10\x03", [6, 3])
    np.testing.assert_array_equal(data, np.array([[5, 3, 0], [4, 1, 0], [0, 3, 4], [0, 2, 5], [0.55, 0.75, 0],
                                                  [1, 0.6, 0]], np.float32))


def test_add_embedding(tmp_path, device, capsys):
    rng = np.random.default_rng(4)
    mat = rng.standard_normal((5, 3)).astype(np.float32)
    images = rng.random((5, 1, 2, 3)).astype(np.float32)
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_embedding(tandem.tensor(mat, device=device), metadata=["a", "b", 3, "d", "e"],
                             label_img=tandem.tensor(images, device=device))
        writer.add_embedding(mat[:2].astype(np.float64), metadata=[["x", 1], ["y", 2]],
                             metadata_header=["name", "n"], global_step=12, tag='run/1%"q"')
        assert capsys.readouterr().out == ""
        writer.add_embedding(tandem.tensor([[1, 2]], device=device), global_step=12, tag='run/1%"q"')
        assert capsys.readouterr().out == ("warning: Embedding dir exists, did you set global_step for "
                                           "add_embedding()?\n")

    def read(path):
        return (tmp_path / path).read_text()

    rows = ["\t".join(repr(float(x)) for x in row) for row in mat]
    assert read("00000/default/tensors.tsv") == "\n".join(rows) + "\n"
    assert read("00000/default/metadata.tsv") == "a\nb\n3\nd\ne\n"
    # 5 images: 3 per row on a square canvas as wide as a row (9 x 9), the rest black
    sprite = png_pixels((tmp_path / "00000/default/sprite.png").read_bytes())
    assert sprite.shape == (9, 9, 3) and (sprite[4:] == 0).all() and (sprite[2:4, 6:] == 0).all()
    expected = np.uint8(images[:, 0] * 255)
    assert (sprite[0:2, 3:6, 1] == expected[1]).all() and (sprite[2:4, 3:6, 0] == expected[4]).all()
    run = "00012/run%2f1%25\"q\""  # / and % escaped in the directory name; the quote is kept
    assert read(f"{run}/tensors.tsv") == "1\t2\n"  # rewritten by the second call at the same step
    assert read(f"{run}/metadata.tsv") == "name\tn\nx\t1\ny\t2\n"
    assert read("projector_config.pbtxt") == (
        'embeddings {\n  tensor_name: "default:00000"\n  metadata_path: "00000/default/metadata.tsv"\n'
        '  sprite {\n    image_path: "00000/default/sprite.png"\n    single_image_dim: 3\n    single_image_dim: 2\n'
        '  }\n  tensor_path: "00000/default/tensors.tsv"\n}\n'
        'embeddings {\n  tensor_name: "run/1%\\"q\\":00012"\n  metadata_path: "00012/run%2f1%25\\"q\\"/metadata.tsv"\n'
        '  tensor_path: "00012/run%2f1%25\\"q\\"/tensors.tsv"\n}\n'
        'embeddings {\n  tensor_name: "run/1%\\"q\\":00012"\n  tensor_path: "00012/run%2f1%25\\"q\\"/tensors.tsv"\n}\n')


def test_add_embedding_errors(tmp_path):
    (tmp_path / "00001").mkdir()
    (tmp_path / "00001" / "default").write_text("")
    with SummaryWriter(str(tmp_path)) as writer:
        with pytest.raises(AssertionError, match="^#labels should equal with #data points$"):
            writer.add_embedding(tandem.ones(3, 2), metadata=[1, 2])
        with pytest.raises(AssertionError, match="^#images should equal with #data points$"):
            writer.add_embedding(tandem.ones(3, 2), label_img=tandem.ones(2, 3, 4, 4), global_step=2)
        with pytest.raises(AssertionError, match=r"^mat should be 2D, where mat.size\(0\) is the number of data "
                                                 r"points$"):
            writer.add_embedding(tandem.ones(3), global_step=3)
        with pytest.raises(AssertionError, match="^len of header must be equal to the number of columns in "
                                                 "metadata$"):
            writer.add_embedding(tandem.ones(2, 2), metadata=[[1, 2], [3, 4]], metadata_header=["a"], global_step=4)
        with pytest.raises(NotADirectoryError, match=rf"^Path: `{re.escape(str(tmp_path))}/00001/default` exists, "
                                                     r"but is a file. Cannot proceed.$"):
            writer.add_embedding(tandem.ones(3, 2), global_step=1)
    assert not (tmp_path / "projector_config.pbtxt").exists()


def graph_nodes(log_dir):
    """{name: (op, inputs, output shapes, attr)} of the GraphDef event, checking the run-metadata event after it."""
    graph_events = [e for e in map(decode, read_records(event_file(log_dir))) if 4 in e or 8 in e]
    assert [sorted(e) for e in graph_events] == [[1, 4], [1, 8]]  # no step, as PyTorch writes them
    tagged = decode(graph_events[1][8][0])
    assert tagged == {1: [b"step1"], 2: [b"\n\x11\n\x0f\n\r/device:CPU:0"]}
    graph = decode(graph_events[0][4][0])
    assert decode(graph[4][0]) == {1: [22]}  # versions.producer
    nodes = {}
    for raw in graph[1]:
        node = decode(raw)
        attrs = {decode(entry)[1][0].decode(): decode(decode(entry)[2][0]) for entry in node[5]}
        shapes = [tuple(decode(d)[1][0] for d in decode(shape).get(2, []))
                  for shape in decode(attrs["_output_shapes"][1][0])[7]]
        nodes[node[1][0].decode()] = (node[2][0].decode(), [i.decode() for i in node.get(3, [])], shapes,
                                      attrs["attr"][2][0].decode())
    return nodes


class GraphNet(tandem.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tandem.nn.Conv2d(1, 2, 3)
        self.seq = tandem.nn.Sequential(tandem.nn.Linear(8, 4), tandem.nn.ReLU())
        self.head = tandem.nn.Linear(4, 3)
        self.skip = tandem.nn.Linear(8, 4)
        self.attn = tandem.nn.MultiheadAttention(4, 1, batch_first=True)  # computes without calling out_proj
        self.drop = tandem.nn.Dropout(0.5)

    def forward(self, x, unused, bias):
        h = tandem.relu(self.conv(x)).flatten(1)  # functional code between modules is walked through
        h = self.seq(h) + self.skip(h) * bias  # two producers and an input
        h = self.drop(h)
        a, _ = self.attn(h[:, None], h[:, None], h[:, None])
        return self.seq[1](self.head(a[:, 0])), x.sum()  # seq[1] called twice; an output straight from an input


def test_add_graph(tmp_path, device, capsys):
    model = GraphNet().to(device).train()
    x = tandem.randn(2, 1, 4, 4, device=device)
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_graph(model, (x, tandem.ones(1), tandem.tensor(2.0, device=device)), use_strict_trace=False)
    assert model.training and capsys.readouterr().out == ""  # eval while recording, then restored
    assert all(not m._forward_hooks and not m._forward_pre_hooks for m in model.modules())
    nodes = graph_nodes(str(tmp_path))
    assert list(nodes) == ["input/x", "input/bias", "output/output.1", "output/output.2", "GraphNet/Conv2d[conv]",
                           "GraphNet/Sequential[seq]/Linear[0]", "GraphNet/Sequential[seq]/ReLU[1]",
                           "GraphNet/Linear[skip]", "GraphNet/Dropout[drop]", "GraphNet/MultiheadAttention[attn]",
                           "GraphNet/Linear[head]", "GraphNet/Sequential[seq]/ReLU[1].1"]
    assert nodes["input/x"] == ("IO Node", [], [(2, 1, 4, 4)], "")
    assert nodes["input/bias"] == ("IO Node", [], [()], "")
    assert nodes["output/output.1"] == ("IO Node", ["GraphNet/Sequential[seq]/ReLU[1].1"], [(2, 3)], "")
    assert nodes["output/output.2"] == ("IO Node", ["input/x"], [()], "")
    assert nodes["GraphNet/Conv2d[conv]"] == ("Conv2d", ["input/x"], [(2, 2, 2, 2)],
                                              "1, 2, kernel_size=(3, 3), stride=(1, 1)")
    assert nodes["GraphNet/Sequential[seq]/Linear[0]"] == ("Linear", ["GraphNet/Conv2d[conv]"], [(2, 4)],
                                                           "in_features=8, out_features=4, bias=True")
    assert nodes["GraphNet/Dropout[drop]"][:3] == (
        "Dropout", ["GraphNet/Sequential[seq]/ReLU[1]", "GraphNet/Linear[skip]", "input/bias"], [(2, 4)])
    assert nodes["GraphNet/MultiheadAttention[attn]"][:3] == ("MultiheadAttention", ["GraphNet/Dropout[drop]"],
                                                             [(2, 1, 4), (2, 1, 1)])
    assert nodes["GraphNet/Linear[head]"][1] == ["GraphNet/MultiheadAttention[attn]"]
    assert nodes["GraphNet/Sequential[seq]/ReLU[1].1"][:2] == ("ReLU", ["GraphNet/Linear[head]"])


def test_add_graph_single_module_and_verbose(tmp_path, capsys):
    embedding = tandem.nn.Embedding(10, 3)
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_graph(embedding, tandem.tensor([[1, 2]]), verbose=True)
    assert graph_nodes(str(tmp_path)) == {
        "input/input": ("IO Node", [], [(1, 2)], ""),
        "output/output.1": ("IO Node", ["Embedding"], [(1, 2, 3)], ""),
        "Embedding": ("Embedding", ["input/input"], [(1, 2, 3)], "10, 3")}
    assert capsys.readouterr().out == ("input/input = IO Node() -> [[1, 2]]\n"
                                       "output/output.1 = IO Node(Embedding) -> [[1, 2, 3]]\n"
                                       "Embedding = Embedding(input/input) -> [[1, 2, 3]]\n")


def test_add_graph_error(tmp_path, capsys):
    with SummaryWriter(str(tmp_path)) as writer:
        with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
            writer.add_graph(tandem.nn.Sequential(tandem.nn.Linear(2, 2)), tandem.ones(3, 5))
    assert capsys.readouterr().out.endswith("\nError occurs, No graph saved\n")
    assert [e for e in map(decode, read_records(event_file(str(tmp_path)))) if 4 in e] == []


def test_add_text(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_text("notes", "lr **0.1**, héllo", 4)
    ((tag, step, value),) = summaries(str(tmp_path))
    assert (tag, step) == ("notes/text_summary", 4)
    assert decode(decode(value[9][0])[1][0])[1] == [b"text"]
    tensor = decode(value[8][0])
    assert tensor[1] == [7] and tensor[8] == ["lr **0.1**, héllo".encode()]  # DT_STRING, string_val
    assert decode(decode(tensor[2][0])[2][0]) == {1: [1]}  # shape [1]


def test_add_hparams(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_hparams({"lr": 0.1, "opt": "adam", "layers": tandem.tensor(3), "skip": None},
                           {"hparam/loss": 0.25}, {"opt": ["adam", "sgd"]}, run_name="trial")
    got = summaries(str(tmp_path / "trial"))
    assert [tag for tag, _, _ in got] == ["_hparams_/experiment", "_hparams_/session_start_info",
                                          "_hparams_/session_end_info", "hparam/loss"]
    contents = [decode(decode(decode(v[9][0])[1][0])[2][0]) for _, _, v in got[:3]]
    infos = [decode(i) for i in decode(contents[0][2][0])[4]]
    assert [(i[1][0], i[4][0]) for i in infos] == [(b"lr", 3), (b"opt", 1), (b"layers", 3)]
    assert [decode(v)[3][0] for v in decode(infos[1][5][0])[1]] == [b"adam", b"sgd"]
    metric = decode(decode(decode(contents[0][2][0])[5][0])[1][0])
    assert metric == {2: [b"hparam/loss"]}
    start = {decode(e)[1][0]: decode(decode(e)[2][0]) for e in decode(contents[1][3][0])[1]}
    assert f64(start[b"lr"][2][0]) == 0.1 and start[b"opt"][3] == [b"adam"] and f64(start[b"layers"][2][0]) == 3
    assert decode(contents[2][4][0]) == {1: [1]}  # STATUS_SUCCESS
    assert struct.unpack("<f", got[3][2][2][0]) == (np.float32(0.25),)


def test_purge_step_and_reopen_after_close(tmp_path):
    writer = SummaryWriter(str(tmp_path), purge_step=5)
    writer.add_scalar("x", 1.0, 5)
    writer.close()
    writer.close()
    first = events(event_file(str(tmp_path)))
    assert [(e["step"], e.get("file_version"), e.get("session_log")) for e in first[:3]] == \
        [(0, "brain.Event:2", None), (5, "brain.Event:2", None), (5, None, 1)]
    writer.add_scalar("x", 2.0, 6)  # writing after close opens a new event file, as PyTorch does
    writer.flush()
    assert len(glob.glob(str(tmp_path / "events.out.tfevents.*"))) == 2
    writer.close()


def test_flush_by_queue_and_by_time(tmp_path):
    writer = SummaryWriter(str(tmp_path), max_queue=3, flush_secs=0.2)
    path = event_file(str(tmp_path))
    writer.add_scalar("x", 1.0, 0)
    writer.add_scalar("x", 1.0, 1)
    assert len(read_records(path)) == 1  # only the version record: two events wait in the queue
    writer.add_scalar("x", 1.0, 2)
    assert len(read_records(path)) == 4
    writer.add_scalar("x", 1.0, 3)
    deadline = time.time() + 10
    while len(read_records(path)) < 5 and time.time() < deadline:
        time.sleep(0.05)
    assert len(read_records(path)) == 5
    writer.close()


def run_python(code):
    """Runs code in a fresh interpreter that imports this tandem."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tandem.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)


def test_closes_on_interpreter_exit(tmp_path):
    code = ("from tandem.utils.tensorboard import SummaryWriter\n"
            f"w = SummaryWriter({str(tmp_path)!r})\nw.add_scalar('x', 3.0, 9)\n")
    run_python(code)
    assert [(tag, step) for tag, step, _ in summaries(str(tmp_path))] == [("x", 9)]


def test_errors(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        with pytest.raises(AssertionError, match=r"^Tensor should contain one element \(0 dimensions\). +Was "
                                                 r"given size: 2 and 1 dimensions\.$"):
            writer.add_scalar("x", tandem.ones(2))
        with pytest.raises(NotImplementedError, match="^Got <class 'object'>, but numpy array or torch tensor "
                                                      "are expected.$"):
            writer.add_scalar("x", object())
        with pytest.raises(ValueError, match="^The input has no element.$"):
            writer.add_histogram("h", tandem.ones(0))
        with pytest.raises(ValueError, match=r"^len\(bucket_limits\) != len\(bucket_counts\), see the document.$"):
            writer.add_histogram_raw("h", 0, 1, 1, 1, 1, [1.0], [1, 2])
        with pytest.raises(AssertionError, match=r"^size of input tensor and input format are different. +tensor "
                                                 r"shape: \(2, 3\), input_format: CHW$"):
            writer.add_image("i", tandem.ones(2, 3))
        with pytest.raises(AssertionError, match="^You can not use the same dimension shorthand twice. +"
                                                 "input_format: HHW$"):
            writer.add_image("i", tandem.ones(2, 3, 4), dataformats="HHW")
        with pytest.raises(TypeError, match="^hparam_dict and metric_dict should be dictionary.$"):
            writer.add_hparams([("lr", 0.1)], {})
        with pytest.raises(ValueError, match="^value should be one of int, float, str, bool, or torch.Tensor$"):
            writer.add_hparams({"lr": [0.1]}, {})
        with pytest.raises(TypeError, match=r"^parameter: hparam_domain_discrete\[lr\] should be a list of same "
                                            r"type as hparam_dict\[lr\].$"):
            writer.add_hparams({"lr": 1}, {}, {"lr": [1.0]})
        for method, args in [("add_video", ("v", tandem.ones(1, 1, 3, 4, 4))), ("add_audio", ("a", tandem.ones(8))),
                             ("add_mesh", ("m", tandem.ones(1, 3, 3)))]:
            with pytest.raises(NotImplementedError, match=rf"^SummaryWriter\.{method} is not supported by tandem"):
                getattr(writer, method)(*args)
    assert summaries(str(tmp_path)) == []


def test_dropped_writer_is_flushed_on_interpreter_exit(tmp_path):
    code = ("from tandem.utils.tensorboard import SummaryWriter\n"
            f"SummaryWriter({str(tmp_path)!r}).add_scalar('x', 3.0, 9)\nimport gc; gc.collect()\n")
    run_python(code)
    assert [(tag, step) for tag, step, _ in summaries(str(tmp_path))] == [("x", 9)]
