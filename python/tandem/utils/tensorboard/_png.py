"""A minimal PNG encoder (8-bit gray, gray+alpha, RGB or RGBA, no filtering, zlib-compressed) so image
summaries need neither PIL nor TensorFlow."""
import struct
import zlib

import numpy as np

_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type (gray, gray+alpha, RGB, RGBA)


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(hwc):
    """hwc: a uint8 array of shape (height, width, channels), channels in 1..4."""
    height, width, channels = hwc.shape
    if channels not in _COLOR_TYPE:
        raise ValueError(f"an image needs 1, 2, 3 or 4 channels to be encoded as PNG, got {channels}")
    rows = np.ascontiguousarray(hwc, dtype=np.uint8).reshape(height, width * channels)
    # Each scanline starts with its filter type; 0 = None keeps the encoder trivial and zlib still compresses.
    scanlines = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1).tobytes()
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPE[channels], 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(scanlines, 6))
            + _chunk(b"IEND", b""))
