#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/corpus/<target>/ (committed; rerun after changing an input encoding).

Seeds are small, valid-looking inputs that reach deep into each target at once: for the C++ targets, byte
programs in fuzz/fuzz_input.h's encoding (the decoders in fuzz_*.cpp read them back); for the Python targets,
safetensors files and checkpoint structures like the ones tandem.save writes. Standard library only."""
import json
import pathlib
import shutil
import struct

HERE = pathlib.Path(__file__).resolve().parent
EDGES = [2**63 - 1, -2**63, 2**62, -2**62, 2**32, 2**31 - 1, (2**63 - 1) // 3]  # escapes 0x81..0x87


def integer(v):
    """FuzzInput::integer()'s encoding of v."""
    if v in EDGES:
        return bytes([0x81 + EDGES.index(v)])
    if -120 <= v <= 127:
        return struct.pack("b", v)
    return b"\x80" + struct.pack("<q", v)


def ints(*values):
    return b"".join(integer(v) for v in values)


def int_list(*values):
    return bytes([len(values)]) + ints(*values)


def shape(*sizes):
    return bytes([len(sizes), *sizes])


# ---- fuzz_views: a base shape, then (op code, arguments) pairs; op codes as in fuzz_views.cpp ---------------
VIEW, RESHAPE, FLATTEN, PERMUTE, TRANSPOSE, SQUEEZE, SQUEEZE_DIMS, UNSQUEEZE, EXPAND, NARROW, SELECT, SLICE, \
    SPLIT, SPLIT_SIZES, CHUNK, UNBIND, T, MT, MATRIX_T = range(19)


def views_seeds():
    return {
        "transpose_slice_view": shape(2, 3, 4) + bytes([TRANSPOSE]) + ints(0, 2) + bytes([SLICE, 1]) + ints(0, 3, 2)
        + bytes([RESHAPE]) + int_list(-1),
        "expand_unsqueeze": shape(3, 1) + bytes([EXPAND]) + int_list(2, 3, 4) + bytes([UNSQUEEZE]) + ints(-1)
        + bytes([PERMUTE]) + int_list(3, 0, 2, 1),
        "view_infer": shape(4, 4) + bytes([VIEW]) + int_list(2, -1, 2) + bytes([FLATTEN]) + ints(1, -1),
        "narrow_select": shape(4, 3, 2) + bytes([NARROW]) + ints(0, -3, 2) + bytes([SELECT]) + ints(-1, 1)
        + bytes([MT]),
        "huge_expand": shape(1) + bytes([EXPAND]) + int_list(2**32, 2**31 - 1, 1) + bytes([SQUEEZE]),
        "huge_step": shape(4, 2) + bytes([SLICE, 0]) + ints(1, 2**63 - 1, 2**62),
        "split_chunk": shape(4, 3) + bytes([CHUNK]) + ints(3, 0, 1) + bytes([SPLIT_SIZES]) + int_list(1, 2)
        + ints(1, 0) + bytes([SPLIT]) + ints(1, 0, 0),
        "empty": shape(0, 3) + bytes([VIEW]) + int_list(3, 0, -1) + bytes([UNBIND]) + ints(0, 0) + bytes([T]),
        "scalar": shape() + bytes([UNSQUEEZE]) + ints(0) + bytes([SQUEEZE_DIMS]) + int_list(0)
        + bytes([MATRIX_T]),
    }


# ---- fuzz_indexing: base shape, transpose flag, dim, op code, index tensors ----------------------------------
OPS = ["index", "index_put_", "index_select", "index_add_", "index_copy_", "index_fill_", "take", "gather",
       "scatter_", "scatter_add_", "take_along_dim", "masked_fill_", "masked_select", "nonzero", "flip",
       "mask_indices"]
INT64, INT32, BOOL, UINT8, FLOAT64 = range(5)


def index_value(v):
    """fuzz_indexing.cpp's index_value(): one byte for -5..5, else an escape and integer()."""
    return bytes([v + 5]) if -5 <= v <= 5 else b"\xc0" + integer(v)


def index_tensor(kind, sizes, values):
    body = bytes(v & 1 for v in values) if kind in (BOOL, UINT8) else b"".join(index_value(v) for v in values)
    return bytes([kind]) + shape(*sizes) + body


def op(name, dim, base=(3, 4), transposed=False):
    return shape(*base) + bytes([transposed]) + integer(dim) + bytes([OPS.index(name)])


def indexing_seeds():
    return {
        "index_two_ints": op("index", 0) + bytes([2, 1]) + index_tensor(INT64, [2], [0, -1]) + bytes([1])
        + index_tensor(INT64, [2, 1], [1, 3]),
        "index_mask": op("index", 0, transposed=True) + bytes([1, 1]) + index_tensor(BOOL, [4, 3], list(range(12))),
        "index_put_accumulate": op("index_put_", 0) + bytes([1, 1]) + index_tensor(INT64, [3], [0, 0, 2])
        + shape(3, 1) + b"\x01",
        "index_select": op("index_select", 1) + index_tensor(INT32, [3], [3, -4, 0]),
        "index_add": op("index_add_", 0) + index_tensor(INT64, [2], [2, 2]) + shape(2, 4),
        "take": op("take", 0, transposed=True) + index_tensor(INT64, [2, 2], [0, 11, -12, 5]),
        "take_far": op("take", 0) + index_tensor(INT64, [2], [2**63 - 1, -2**63]),
        "gather": op("gather", -1) + index_tensor(INT64, [3, 2], [0, 3, 1, 2, -4, 3]),
        "scatter_add": op("scatter_add_", 0) + index_tensor(INT64, [2, 4], [0, 1, 2, 0, 2, 2, 1, 0]) + shape(2, 4),
        "masked_fill": op("masked_fill_", 0) + index_tensor(BOOL, [4], [1, 0, 1, 0]),
        "take_along_dim": op("take_along_dim", 1) + index_tensor(INT64, [3, 1], [0, 3, -1]) + b"\x01",
        "flip": op("flip", 0, base=(2, 3, 2)) + int_list(0, -1),
        "out_of_range": op("index_select", 0) + index_tensor(INT64, [1], [5]),
    }


# ---- fuzz_dlpack: DLTensor fields in the order fuzz_dlpack.cpp reads them -----------------------------------
def dltensor(device=0, device_id=0, code=2, bits=2, lanes_raw=None, ndim=2, null_shape=False, strides=None,
             sizes=(2, 3), data=2, byte_offset=0):
    out = bytes([device, device_id, code, bits]) + (b"\x00" + integer(lanes_raw) if lanes_raw is not None else b"\x01")
    out += bytes([ndim, (1 if null_shape else 0) | (2 if strides is not None else 0)])
    out += bytes((list(sizes) + [1] * 6)[:6]) + bytes((list(strides or []) + [1] * 6)[:6])
    out += bytes([data]) + (b"\x07" if data == 1 else b"")  # near the top: 7 * 64 bytes below it
    return out + bytes([1, byte_offset])


def dlpack_seeds():
    return {
        "float32_2x3": dltensor(),
        "strided_offset": dltensor(strides=[1, 2], sizes=(3, 2), byte_offset=4),
        "int64_broadcast": dltensor(code=0, bits=3, strides=[0, 1]),
        "bool_scalar": dltensor(code=6, bits=0, ndim=0),
        "bfloat16": dltensor(code=4, bits=1, sizes=(4, 4)),
        "null_data_empty": dltensor(sizes=(0, 3), data=0),
        "null_shape": dltensor(null_shape=True),
        "top_of_address_space": dltensor(data=1),
        "cuda": dltensor(device=4),
        "lanes": dltensor(lanes_raw=4),
    }


# ---- fuzz_safetensors / fuzz_checkpoint ---------------------------------------------------------------------
def safetensors_file(tensors, metadata=None):
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for key, (code, dims, data) in tensors.items():
        header[key] = {"dtype": code, "shape": dims, "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def structure(obj):
    return json.dumps(obj, separators=(",", ":"))


def safetensors_seeds():
    """fuzz_safetensors.py's two input forms: 0x00 + header JSON + NUL + data, and 0x01 + the whole file."""
    seeds = {}
    for name, file in safetensors_files().items():
        (n,) = struct.unpack("<Q", file[:8])
        seeds[name] = b"\0" + file[8:8 + n] + b"\0" + file[8 + n:]
        seeds["file_" + name] = b"\1" + file
    return seeds


def safetensors_files():
    w = ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4))
    return {
        "empty": safetensors_file({}),
        "one_float32": safetensors_file({"w": w}),
        "every_dtype": safetensors_file({
            "f64": ("F64", [1], struct.pack("<d", 0.5)), "i64": ("I64", [1], struct.pack("<q", -3)),
            "f32": ("F32", [], struct.pack("<f", 2)), "i32": ("I32", [1], struct.pack("<i", 7)),
            "f16": ("F16", [2], b"\x00\x3c\x00\xc0"), "bf16": ("BF16", [1], b"\x80\x3f"),
            "i16": ("I16", [1], b"\x01\x00"), "i8": ("I8", [2], b"\xff\x01"), "u8": ("U8", [1], b"\xfe"),
            "bool": ("BOOL", [3], b"\x01\x00\x01"), "empty": ("F32", [0, 4], b"")}),
        "metadata": safetensors_file({"w": w}, {"format": "pt"}),
        "checkpoint": safetensors_file({"model.w": w}, {"tandem.structure": structure(
            {"dict": [["model", {"dict": [["w", {"tensor": "model.w"}]]}], ["step", {"value": 3}]]})}),
    }


def checkpoint_seeds():
    def t(key):
        return {"tensor": key}

    def v(value):
        return {"value": value}

    optimizer = {"dict": [
        ["state", {"dict": [[0, {"dict": [["step", t("s")], ["exp_avg", t("w")]]}]]}],
        ["param_groups", {"list": [{"dict": [["lr", v(0.1)], ["betas", {"tuple": [v(0.9), v(0.999)]}],
                                             ["params", {"list": [v(0)]}], ["name", v(None)]]}]}]]}
    return {
        "tensor": structure(t("w")),
        "model": structure({"dict": [["w", t("w")], ["b", t("b")]]}),
        "optimizer": structure(optimizer),
        "nested_lists": structure({"list": [{"tuple": [t("s"), v("x")]}, {"list": []}, v(1.5)]}),
        "shared": structure({"list": [t("w"), t("w")]}),
        "values": structure({"dict": [["nan", v(float("nan"))], ["big", v(2**70)], ["s", v("\u00e9")]]}),
    }


# Inputs that found bugs (docs/reliability.md, "Fuzzing"), kept so every smoke run replays them.
FINDINGS = {
    "fuzz_views": {
        "finding_view_numel_overflow": b"\x01V\x00\xf9\x03\x02\x83\x81\xf0\xff\xff\xff\xff\xff",
        "finding_split_sizes_sum_overflow": b"\xf9\x03\n\x0b\x01l\x04\x03l\x03\x81\xfc\x99ll",
        "finding_iterator_size1_stride": b"\x02\xfd\x81\xdc\x99\x00\x02\x81\xdc\x01\x83",
        "finding_contiguous_strides_overflow": b"\xfe\x03\x02\x0b\x00=\x02\x02\x00\xfa\x02\t\x00\x81\x83",
        "finding_chunk_count_overflow": b"\xfe\x03\x0f\xce\t\xcc\x81\x03",
        "finding_unsqueeze_stride_overflow": b"\x81\x00\x00<\x00\x00/\x81\x00\x00<\x00-\x00\x00\x00\x0f\x01\xa8",
    },
    "fuzz_dlpack": {
        "finding_null_data_offset": b"\xa8\x04\x00\x02\x02\x01\x02\x00\x02\x03\x01\x01\x01\x04\x00\x02\x02\x01"
                                    b"\x02\x00\x02\x01\x00",
        "finding_misaligned_elements": b"\x00\x00\x00\x03\x01\xa1\x02\x02\x03\x01\x01\x03\x01\x00\x01!\x00\x00\x02"
                                       b"\x02\x01\x01\x00",
        # A bool check that read the elements inside check_dltensor, whose DLTensors may point anywhere.
        "finding_bool_scan_of_foreign_memory": b"\x00\x00\x06\x00\x03\x00\x00\x02\x03\x01\x01\x01\x01\x01\x01\x01"
                                               b"\x01\x02\x01\x01\x01\x00",
    },
    "fuzz_checkpoint": {
        "finding_key_order": '{"dict":[["w",{"tensor":"w"}],["b",{"tensor":"b"}]]}',
        "finding_bool_key": '{"dict":[[true,{"value":"\\u00e8"}]]}',
        "finding_long_number": '{"value":' + "1" * 4400 + "}",
    },
    "fuzz_safetensors": {
        "finding_list_dtype": b'\0{"a":{"dtype":[1],"shape":[1],"data_offsets":[0,1]}}\0\0',
        "finding_shape_prefix_overflow": b'\0{"a":{"dtype":"U8","shape":[4611686018427387904,4611686018427387904,0],'
                                         b'"data_offsets":[0,0]}}\0',
        "finding_long_number": b'\0{"a":' + b"1" * 4400 + b"}\0",
    },
}


def main():
    targets = {"fuzz_views": views_seeds(), "fuzz_indexing": indexing_seeds(), "fuzz_dlpack": dlpack_seeds(),
               "fuzz_safetensors": safetensors_seeds(), "fuzz_checkpoint": checkpoint_seeds()}
    for target, seeds in targets.items():
        out = HERE / "corpus" / target
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        seeds = {**seeds, **FINDINGS.get(target, {})}
        for name, data in seeds.items():
            (out / name).write_bytes(data.encode() if isinstance(data, str) else data)
        print(f"{target}: {len(seeds)} seeds in {out.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
