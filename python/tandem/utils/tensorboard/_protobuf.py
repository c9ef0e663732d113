"""The few protobuf wire-format encoders the event messages need (varint, 64-bit, length-delimited and 32-bit
fields), so tandem writes TensorBoard's messages without the protobuf package. Each function returns the bytes
of one field (key + payload); a message is the concatenation of its fields."""
import struct

_VARINT, _FIXED64, _LENGTH_DELIMITED, _FIXED32 = 0, 1, 2, 5


def _varint(value):
    value &= 0xFFFFFFFFFFFFFFFF  # negative int32/int64 are sent as their 64-bit two's complement
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _key(field, wire_type):
    return _varint((field << 3) | wire_type)


def varint_field(field, value):
    """int32, int64, bool and enum fields."""
    return _key(field, _VARINT) + _varint(int(value))


def double_field(field, value):
    return _key(field, _FIXED64) + struct.pack("<d", float(value))


def float_field(field, value):
    return _key(field, _FIXED32) + struct.pack("<f", float(value))


def bytes_field(field, data):
    """bytes, string (str is UTF-8 encoded) and embedded-message fields."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return _key(field, _LENGTH_DELIMITED) + _varint(len(data)) + bytes(data)


def packed_doubles_field(field, values):
    values = [float(v) for v in values]
    return bytes_field(field, struct.pack("<%dd" % len(values), *values))
