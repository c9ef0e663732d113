"""The checkpoint reader: tandem.load of a file whose ``tandem.structure`` metadata (the nested dicts, lists
and tuples of a saved state_dict) comes from the fuzzer, around three valid tensors. atheris drives it;
every structure must load, and then survive save -> load unchanged, or be refused with a
"tandem.load: ..." ValueError."""
import json
import struct
import sys

import atheris

with atheris.instrument_imports(include=["tandem.serialization"]):
    import tandem.serialization  # noqa: F401  (instrumented for coverage)

from load_checks import check_round_trip, load_or_refuse

# Three tensors the structure can name: "w" (float32 [2, 2]), "b" (int64 [2]) and "s" (bool []).
_TENSORS = {"w": ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4)),
            "b": ("I64", [2], struct.pack("<2q", -1, 7)),
            "s": ("BOOL", [], b"\x01")}


def checkpoint_file(structure_text):
    header, blobs, offset = {"__metadata__": {"tandem.structure": structure_text}}, [], 0
    for key, (code, shape, data) in _TENSORS.items():
        header[key] = {"dtype": code, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def test_one_input(data):
    obj = load_or_refuse(checkpoint_file(data.decode("utf-8", "replace")))
    if obj is not None:
        check_round_trip(obj)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
