"""The embedding projector's files, as torch.utils.tensorboard writes them: under <log_dir>/<step:05d>/<tag>/ a
tensors.tsv (one row per point), optional metadata.tsv and sprite.png, and <log_dir>/projector_config.pbtxt
(a ProjectorConfig in protobuf text format) listing every embedding the writer has added."""
import math
import os

import numpy as np

from ._png import encode_png
from ._summaries import _grid, make_np


def encode_tag(tag):
    """The tag as one path component: %, / and \\ become %25, %2f and %5c (PyTorch's escaping)."""
    return tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")


def make_save_dir(save_path):
    if os.path.exists(save_path):
        if not os.path.isdir(save_path):
            raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
        print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
    else:
        os.makedirs(save_path)


def write_metadata(metadata, save_path, metadata_header=None):
    """One label per line, or with a header, tab-separated columns under it."""
    if not metadata_header:
        lines = [str(x) for x in metadata]
    else:
        if len(metadata_header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(e) for e in row) for row in [metadata_header] + list(metadata)]
    with open(os.path.join(save_path, "metadata.tsv"), "wb") as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8"))


def write_sprite(label_img, save_path):
    """The images tiled ceil(sqrt(N)) per row on a square canvas as wide as a row (the projector needs a square
    sprite), with values taken as [0, 1] and scaled by 255 whatever the dtype, as PyTorch does."""
    images = make_np(label_img)
    columns = math.ceil(images.shape[0] ** 0.5)
    if images.ndim != 4 or images.shape[1] not in (1, 3):
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    hwc = _grid(images, columns).transpose(1, 2, 0)
    square = np.zeros((hwc.shape[1], hwc.shape[1], 3))
    square[:hwc.shape[0]] = hwc
    with open(os.path.join(save_path, "sprite.png"), "wb") as f:
        f.write(encode_png(np.uint8((square * 255).clip(0, 255))))


def write_tensors(mat, save_path):
    """Each row's values as Python numbers (str of .item()), tab-separated."""
    with open(os.path.join(save_path, "tensors.tsv"), "wb") as f:
        for row in mat:
            f.write(("\t".join(str(x.item()) for x in row) + "\n").encode("utf-8"))


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "'": "\\'", "\\": "\\\\"}


def _text_string(value):
    """A string in protobuf text format: quoted, C escapes, other control characters as octal, the rest as is."""
    out = "".join(_ESCAPES.get(c, "\\%03o" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7F else c) for c in value)
    return f'"{out}"'


def embedding_info(tag, global_step, subdir, has_metadata, sprite_shape):
    """One EmbeddingInfo entry, its fields in field-number order as protobuf's text format prints them
    (tensor_name=1, metadata_path=2, sprite=5, tensor_path=6)."""
    lines = [f"  tensor_name: {_text_string(f'{tag}:{str(global_step).zfill(5)}')}"]
    if has_metadata:
        lines.append(f"  metadata_path: {_text_string(subdir + '/metadata.tsv')}")
    if sprite_shape is not None:
        lines += ["  sprite {", f"    image_path: {_text_string(subdir + '/sprite.png')}",
                  f"    single_image_dim: {sprite_shape[3]}", f"    single_image_dim: {sprite_shape[2]}", "  }"]
    lines.append(f"  tensor_path: {_text_string(subdir + '/tensors.tsv')}")
    return "embeddings {\n" + "\n".join(lines) + "\n}\n"


def add_embedding(log_dir, entries, mat, metadata, label_img, global_step, tag, metadata_header):
    """Writes one embedding's files, appends its entry to entries (the writer's list) and rewrites the config."""
    mat = make_np(mat)
    global_step = 0 if global_step is None else global_step
    subdir = f"{str(global_step).zfill(5)}/{encode_tag(tag)}"
    save_path = os.path.join(log_dir, subdir)
    make_save_dir(save_path)
    if metadata is not None:
        if mat.shape[0] != len(metadata):
            raise AssertionError("#labels should equal with #data points")
        write_metadata(metadata, save_path, metadata_header)
    if label_img is not None:
        if mat.shape[0] != label_img.shape[0]:
            raise AssertionError("#images should equal with #data points")
        write_sprite(label_img, save_path)
    if mat.ndim != 2:
        raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
    write_tensors(mat, save_path)
    entries.append(embedding_info(tag, global_step, subdir, metadata is not None,
                                  None if label_img is None else tuple(label_img.shape)))
    with open(os.path.join(log_dir, "projector_config.pbtxt"), "wb") as f:
        f.write("".join(entries).encode("utf-8"))
