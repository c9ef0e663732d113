"""The safetensors reader (tandem.load's header parser and tensor construction) on fuzzed files, under
atheris (libFuzzer's engine for Python). Every file must load, and then survive save -> load unchanged, or
be refused with a "tandem.load: ..." ValueError. Run through `make fuzz` / `make fuzz-smoke`.

An input's first byte picks how it becomes a file. Odd: the rest is the file as is. Even: the rest is the
header's JSON, a NUL byte, then the data bytes, and the 8-byte length is written here, so mutations of the
JSON reach the field checks instead of mostly breaking the length."""
import struct
import sys

import atheris

with atheris.instrument_imports(include=["tandem.serialization"]):
    import tandem.serialization  # noqa: F401  (instrumented for coverage)

from load_checks import check_round_trip, load_or_refuse


def as_file(data):
    if not data or data[0] & 1:
        return data[1:]
    header, _, tensor_bytes = data[1:].partition(b"\0")
    return struct.pack("<Q", len(header)) + header + tensor_bytes


def test_one_input(data):
    obj = load_or_refuse(as_file(data))
    if obj is not None:
        check_round_trip(obj)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
