"""CRC-32C (Castagnoli), the checksum TFRecord framing uses, computed with a 256-entry table so event files
can be written without TensorFlow or a compiled crc32c package."""

_POLY_REVERSED = 0x82F63B78  # the Castagnoli polynomial 0x1EDC6F41, bit-reversed for the LSB-first form


def _make_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY_REVERSED if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_TABLE = _make_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    """TFRecord stores the CRC rotated right by 15 bits plus a constant, so a CRC of data that itself holds
    CRCs does not degenerate."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
