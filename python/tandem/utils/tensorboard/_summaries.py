"""Summary.Value messages (tensorboard's summary.proto) for scalars, histograms, images and text: the values are
turned into NumPy arrays on the host here, then hand-encoded with _protobuf."""
import numpy as np

from . import _protobuf as pb
from ._png import encode_png

_DT_FLOAT, _DT_DOUBLE, _DT_STRING = 1, 2, 7  # tensorflow DataType enum values


def make_np(x):
    """A host NumPy array from a tandem tensor (any device), an ndarray, a list or a Python/NumPy scalar."""
    import tandem
    if isinstance(x, list):
        return np.array(x)
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, tandem.Tensor):
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def summary(*values):
    """A Summary message: repeated Value value = 1."""
    return b"".join(pb.bytes_field(1, v) for v in values)


def _metadata(plugin_name, content=b""):
    """SummaryMetadata{plugin_data=1: PluginData{plugin_name=1, content=2}}."""
    plugin_data = pb.bytes_field(1, plugin_name) + (pb.bytes_field(2, content) if content else b"")
    return pb.bytes_field(1, plugin_data)


def _value(tag, metadata=None, **payload):
    """Value{tag=1, simple_value=2, image=4, histo=5, tensor=8, metadata=9}; payload holds one encoded field."""
    out = pb.bytes_field(1, tag)
    if metadata is not None:
        out += pb.bytes_field(9, metadata)
    return out + b"".join(payload.values())


def _tensor_proto(dtype, values_field, dims):
    """TensorProto{dtype=1, tensor_shape=2: TensorShapeProto{dim=2: Dim{size=1}}, ...values}."""
    shape = b"".join(pb.bytes_field(2, pb.varint_field(1, d)) for d in dims)
    return pb.varint_field(1, dtype) + (pb.bytes_field(2, shape) if dims else b"") + values_field


def scalar_value(tag, scalar, new_style=False, double_precision=False):
    scalar = make_np(scalar).squeeze()
    if scalar.ndim != 0:
        # PyTorch's text, including the run of spaces its source's line continuation leaves in it
        raise AssertionError(f"Tensor should contain one element (0 dimensions).             Was given size: "
                             f"{scalar.size} and {scalar.ndim} dimensions.")
    scalar = float(scalar)
    if not new_style:
        return _value(tag, simple_value=pb.float_field(2, scalar))
    # new_style: a rank-0 tensor read by the scalars plugin (float_val=5 packed, or double_val=6 packed)
    if double_precision:
        tensor = _tensor_proto(_DT_DOUBLE, pb.packed_doubles_field(6, [scalar]), [])
    else:
        tensor = _tensor_proto(_DT_FLOAT, pb.bytes_field(5, np.array([scalar], "<f4").tobytes()), [])
    return _value(tag, _metadata("scalars"), tensor=pb.bytes_field(8, tensor))


def histogram_proto(minimum, maximum, num, total, sum_squares, bucket_limits, bucket_counts):
    """HistogramProto{min=1, max=2, num=3, sum=4, sum_squares=5, bucket_limit=6 packed, bucket=7 packed}."""
    return (pb.double_field(1, minimum) + pb.double_field(2, maximum) + pb.double_field(3, num)
            + pb.double_field(4, total) + pb.double_field(5, sum_squares)
            + pb.packed_doubles_field(6, bucket_limits) + pb.packed_doubles_field(7, bucket_counts))


def histogram_raw_value(tag, minimum, maximum, num, total, sum_squares, bucket_limits, bucket_counts):
    histo = histogram_proto(minimum, maximum, num, total, sum_squares, bucket_limits, bucket_counts)
    return _value(tag, histo=pb.bytes_field(5, histo))


def tensorflow_bins():
    """TensorFlow's default histogram edges: +-1e-12 growing by 10% per bucket up to 1e20, and 0."""
    positive = []
    edge = 1e-12
    while edge < 1e20:
        positive.append(edge)
        edge *= 1.1
    return [-e for e in reversed(positive)] + [0.0] + positive


def _merge_buckets(counts, limits, max_bins):
    """Sum runs of neighbouring buckets so at most about max_bins remain (the last run is padded with empty
    buckets); limits keeps the left edge of each run and the overall right edge."""
    group = len(counts) // max_bins
    padded = np.concatenate([counts, np.zeros(-len(counts) % group, counts.dtype)])
    merged = padded.reshape(-1, group).sum(axis=1)
    return merged, np.append(limits[:-1:group], limits[-1])


def histogram_value(tag, values, bins, max_bins=None):
    values = make_np(values).astype(float).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        counts, limits = _merge_buckets(counts, limits, max_bins)
    # Drop the empty buckets at both ends, keeping one empty bucket just left of the data so the plot starts
    # at zero height; bucket_limit holds right edges, so that bucket's limit is the data's left edge.
    nonzero = np.flatnonzero(counts)
    if nonzero.size:
        first, last = int(nonzero[0]), int(nonzero[-1])
        if first > 0:
            counts, limits = counts[first - 1:last + 1], limits[first:last + 2]
        else:
            counts, limits = np.concatenate([[0], counts[:last + 1]]), limits[:last + 2]
    else:
        limits = limits[1:]
    histo = histogram_proto(values.min(), values.max(), values.size, values.sum(), values.dot(values), limits,
                            counts)
    return _value(tag, histo=pb.bytes_field(5, histo))


def _to_hwc(array, dataformats):
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(f"You can not use the same dimension shorthand twice.             input_format: "
                             f"{dataformats}")
    if array.ndim != len(dataformats):
        raise AssertionError(f"size of input tensor and input format are different.         tensor shape: "
                             f"{array.shape}, input_format: {dataformats}")
    dataformats = dataformats.upper()
    if array.ndim == 4:
        return _grid(array.transpose([dataformats.find(c) for c in "NCHW"])).transpose(1, 2, 0)
    if array.ndim == 3:
        hwc = array.transpose([dataformats.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, axis=2) if hwc.shape[2] == 1 else hwc
    if array.ndim == 2:
        return np.stack([array.transpose([dataformats.find(c) for c in "HW"])] * 3, axis=2)
    raise AssertionError(f"an image needs 2, 3 or 4 dimensions, got shape {array.shape}")


def _grid(nchw, columns=8):
    """Tiles a batch of images row by row, at most 8 per row, on a zero canvas (grayscale becomes RGB)."""
    if nchw.shape[1] == 1:
        nchw = np.concatenate([nchw] * 3, axis=1)
    count, channels, height, width = nchw.shape
    if channels not in (3, 4):
        raise AssertionError(f"a batch of images needs 1, 3 or 4 channels, got {channels}")
    columns = min(count, columns)
    rows = -(-count // columns)
    canvas = np.zeros((channels, height * rows, width * columns), dtype=nchw.dtype)
    for i in range(count):
        row, column = divmod(i, columns)
        canvas[:, row * height:(row + 1) * height, column * width:(column + 1) * width] = nchw[i]
    return canvas


def image_value(tag, images, dataformats):
    """Floats are taken as [0, 1] and scaled by 255, uint8 as is; both are clipped to [0, 255] and PNG-encoded."""
    array = make_np(images)
    scale = 1 if array.dtype == np.uint8 else 255
    hwc = _to_hwc(array, dataformats)
    hwc = (hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    height, width, channels = hwc.shape
    image = (pb.varint_field(1, height) + pb.varint_field(2, width) + pb.varint_field(3, channels)
             + pb.bytes_field(4, encode_png(hwc)))
    return _value(tag, image=pb.bytes_field(4, image))


def text_value(tag, text):
    """The text plugin's form: a DT_STRING tensor of shape [1] (string_val=8) tagged <tag>/text_summary, with
    TextPluginData{version=0} as content (empty when encoded)."""
    tensor = _tensor_proto(_DT_STRING, pb.bytes_field(8, text.encode("utf-8")), [1])
    return _value(tag + "/text_summary", _metadata("text"), tensor=pb.bytes_field(8, tensor))
