"""tandem.save / tandem.load: PyTorch's checkpoint format (torch.save's zip archive, in _torch_format*.py, or its
legacy format, in _torch_legacy_read.py) by default, and safetensors for paths ending in ``.safetensors``. load
tells the formats apart by the file's first bytes, whatever its name, and names what it found when it is none.

safetensors (this file): an 8-byte little-endian header length, a JSON header naming each tensor's dtype,
shape and byte range, then the raw bytes. No pickle: loading never runs code. A flat dict of str -> Tensor is
stored under its own keys, so files are interchangeable with the `safetensors` package. Anything else (a bare
tensor, nested dicts/lists/tuples, numbers and strings inside them, such as an optimizer's state_dict) is
flattened to dotted keys, and its shape is recorded as JSON in the header's ``__metadata__`` under
``tandem.structure``.
"""
import io
import json
import os
import pickle
import struct
import tempfile
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Optional, Union

from . import _C
from ._C import Tensor
from ._torch_format import (ZIP_MAGIC, add_safe_globals, clear_safe_globals, get_safe_globals,  # noqa: F401
                            restore_device, safe_globals)
from ._storage import UntypedStorage
from .types import FileLike  # noqa: F401  (PyTorch's serialization exports it too)

DEFAULT_PROTOCOL = 2  # torch.save's

# The annotations PyTorch exports here (pyro's param store imports MAP_LOCATION): what load's map_location takes.
MAP_LOCATION = Optional[Union[Callable[[UntypedStorage, str], UntypedStorage], _C.device, str, dict[str, str]]]

_DTYPE_CODES = {
    "float16": "F16", "bfloat16": "BF16", "float32": "F32", "float64": "F64", "int8": "I8", "int16": "I16",
    "int32": "I32", "int64": "I64", "uint8": "U8", "bool": "BOOL", "complex64": "C64",
    "uint16": "U16", "uint32": "U32", "uint64": "U64",
}
_CODE_DTYPES = {code: getattr(_C, name) for name, code in _DTYPE_CODES.items()}
_ITEMSIZE = {"F16": 2, "BF16": 2, "F32": 4, "F64": 8, "I8": 1, "I16": 2, "I32": 4, "I64": 8, "U8": 1, "BOOL": 1, "C64": 8,
             "U16": 2, "U32": 4, "U64": 8}
_STRUCTURE_KEY = "tandem.structure"
_MAX_HEADER = 100 * 1024 * 1024  # the reference implementation's limit


# ---- flattening ----------------------------------------------------------------------------------------
def _flatten(obj):
    """(tensors by key, structure or None). The structure is None for a flat dict of str -> Tensor."""
    if isinstance(obj, dict) and all(isinstance(k, str) for k in obj) and all(isinstance(v, Tensor) for v in obj.values()):
        return OrderedDict(obj), None
    tensors = OrderedDict()

    def key_for(path):
        key = ".".join(path) or "tensor"
        base, n = key, 1
        while key in tensors:
            key, n = f"{base}#{n}", n + 1
        return key

    # Iterative walk: each work item fills one slot of an already created container. `inside` holds the ids
    # of the containers above the item: one that contains itself has no finite encoding (the walk would never
    # end), while a container shared by two others is simply written twice.
    root = [None]
    stack = [(obj, (), root, 0, frozenset())]
    while stack:
        value, path, parent, slot, inside = stack.pop()
        if isinstance(value, (dict, list, tuple)):
            if id(value) in inside:
                raise ValueError(f"tandem.save: the object contains itself (at {'.'.join(path) or 'the top'})\n"
                                 "hint: tandem.save writes trees of containers; break the reference cycle first")
            inside = inside | {id(value)}
        if isinstance(value, Tensor):
            key = key_for(path)
            tensors[key] = value
            parent[slot] = {"tensor": key}
        elif isinstance(value, dict):
            items = []
            for k, v in value.items():
                if not isinstance(k, (str, int)) or isinstance(k, bool):
                    raise TypeError(f"tandem.save: dict keys must be str or int, got {type(k).__name__}")
                items.append([k, None])
            parent[slot] = {"dict": items}
            for i, v in enumerate(value.values()):
                stack.append((v, path + (str(items[i][0]),), items[i], 1, inside))
        elif isinstance(value, (list, tuple)):
            children = [None] * len(value)
            parent[slot] = {"tuple" if isinstance(value, tuple) else "list": children}
            for i, v in enumerate(value):
                stack.append((v, path + (str(i),), children, i, inside))
        elif value is None or isinstance(value, (bool, int, float, str)):
            parent[slot] = {"value": value}
        else:
            raise TypeError(
                f"tandem.save: cannot store an object of type {type(value).__name__} in the safetensors format\n"
                "hint: safetensors holds tensors and dicts/lists/tuples of tensors, numbers and strings; other "
                "paths get PyTorch's format, which pickles any object"
            )
    return tensors, root[0]


def _children(kind, payload):
    if kind == "dict":
        # save writes str and int keys only (bool is an int to isinstance, but save refuses it).
        if not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], (str, int)) and not isinstance(p[0], bool)
                   for p in payload):
            raise ValueError("tandem.load: malformed dict entry in the file's metadata")
        return [p[1] for p in payload]
    return payload


def _unflatten(structure, tensors):
    """Rebuilds the saved object: a post-order walk with an explicit stack (hostile nesting cannot overflow)."""
    results = []
    work = [(False, structure)]
    while work:
        built, node = work.pop()
        if not isinstance(node, dict) or len(node) != 1:
            raise ValueError("tandem.load: malformed structure in the file's metadata")
        ((kind, payload),) = node.items()
        if kind == "tensor":
            if not isinstance(payload, str) or payload not in tensors:
                raise ValueError(f"tandem.load: the structure names a tensor {payload!r} that the file does not hold")
            results.append(tensors[payload])
        elif kind == "value":
            results.append(payload)
        elif kind not in ("dict", "list", "tuple") or not isinstance(payload, list):
            raise ValueError(f"tandem.load: unknown structure kind {kind!r} in the file's metadata")
        elif not built:
            work.append((True, node))
            work.extend((False, child) for child in reversed(_children(kind, payload)))
        else:
            values = results[len(results) - len(payload):]
            del results[len(results) - len(payload):]
            if kind == "dict":
                results.append({pair[0]: v for pair, v in zip(payload, values)})
            else:
                results.append(values if kind == "list" else tuple(values))
    return results[0]


# ---- writing -------------------------------------------------------------------------------------------
def _encode(obj, metadata):
    tensors, structure = _flatten(obj)
    meta = dict(metadata or {})
    # The format's metadata maps strings to strings (load refuses anything else), and one key is tandem's own.
    for k, v in meta.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError(f"tandem.save: metadata must map str to str, got {type(k).__name__} -> "
                            f"{type(v).__name__} for {k!r}\nhint: convert the values with str() or json.dumps()")
    if _STRUCTURE_KEY in meta:
        raise ValueError(f"tandem.save: the metadata key {_STRUCTURE_KEY!r} is reserved for tandem's own use")
    if structure is not None:
        meta[_STRUCTURE_KEY] = json.dumps(structure)
    # Widest dtypes first, so every tensor starts at a multiple of its element size. The header keeps the
    # caller's key order: load returns the keys in header order, as torch.load returns a dict's.
    order = sorted(tensors, key=lambda k: -tensors[k].element_size())
    entries, blobs, offset = {}, [], 0
    for key in order:
        t = tensors[key]
        name = str(t.dtype).replace("tandem.", "")
        if name not in _DTYPE_CODES:
            raise TypeError(f"tandem.save: safetensors has no {name} dtype (tensor {key!r})\nhint: save it in "
                            f"PyTorch's format (a path not ending in .safetensors), or as two float64 tensors "
                            f"(x.real, x.imag)")
        data = _C._tensor_bytes(t)
        entries[key] = {"dtype": _DTYPE_CODES[name], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header = {key: entries[key] for key in tensors}
    if meta:
        header = {"__metadata__": meta, **header}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return [struct.pack("<Q", len(text)), text] + blobs


def _write_file(f, write):
    """Runs ``write(binary_file)`` on ``f``. For a path the write is atomic: the data goes to a temporary file in
    the same directory, is flushed to disk, and replaces ``f`` in one rename, so a crash never leaves a damaged
    file."""
    if hasattr(f, "write"):
        write(f)
        return
    path = os.fspath(f)
    directory = os.path.dirname(os.path.abspath(path))
    # PyTorch's errors (a RuntimeError, not the temporary file's OSError)
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {os.path.dirname(path) or directory} does not exist.")
    if os.path.isdir(path):
        raise RuntimeError(f"File {path} cannot be opened for writing: it is a directory")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)  # make the rename itself durable
    finally:
        os.close(dir_fd)


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False, *, metadata=None):
    """Writes ``obj`` to ``f`` (a path or a binary file object) as torch.save does: PyTorch's zip format, which
    holds any picklable object and which ``torch.load(f, weights_only=True)`` reads when ``obj`` is made of
    tensors, containers, numbers and strings. A path ending in ``.safetensors`` gets the safetensors format
    (tensors and dicts/lists/tuples of them, numbers and strings; string ``metadata`` in its header).
    ``_use_new_zipfile_serialization=False`` writes torch.save's legacy (pre-1.6) format instead of the zip."""
    if not (hasattr(f, "write") or isinstance(f, (str, os.PathLike))):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    if isinstance(f, (str, os.PathLike)) and os.fsdecode(f).lower().endswith(".safetensors"):
        chunks = _encode(obj, metadata)

        def write_chunks(out):
            for c in chunks:
                out.write(c)
        _write_file(f, write_chunks)
        return
    if metadata is not None:
        raise ValueError("tandem.save: metadata is stored only in the safetensors format\n"
                         "hint: save to a path ending in .safetensors")
    if pickle_module is not pickle:
        raise NotImplementedError("tandem.save: only the standard pickle module is supported as pickle_module")
    if isinstance(pickle_protocol, int) and pickle_protocol > pickle.HIGHEST_PROTOCOL:  # pickle's own text
        raise ValueError(f"pickle protocol must be <= {pickle.HIGHEST_PROTOCOL}")
    if not (isinstance(pickle_protocol, int) and 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL):
        raise ValueError(f"tandem.save: pickle_protocol must be 2..{pickle.HIGHEST_PROTOCOL}, got {pickle_protocol!r}")
    from ._torch_format_write import Checkpoint
    checkpoint = Checkpoint(obj, pickle_protocol, legacy=not _use_new_zipfile_serialization)
    if not _use_new_zipfile_serialization:
        _write_file(f, checkpoint.write_legacy)
        return
    # The archive's folder is named after the file, as torch.save names it.
    archive = "archive" if hasattr(f, "write") else os.path.splitext(os.path.basename(os.fsdecode(f)))[0] or "archive"
    _write_file(f, lambda out: checkpoint.write(out, archive, not _disable_byteorder_record))


# ---- reading -------------------------------------------------------------------------------------------
def _reject_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"tandem.load: invalid header: duplicate key {k!r}")
        out[k] = v
    return out


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _parse(buf):
    """(header dict, data offset) after checking every field the tensors will be built from."""
    if len(buf) < 8:
        raise ValueError(f"tandem.load: file too small ({len(buf)} bytes) to hold a safetensors header\n"
                         "hint: the file is truncated or not a safetensors file")
    (n,) = struct.unpack("<Q", buf[:8])
    if n > _MAX_HEADER:
        raise ValueError(f"tandem.load: header length {n} exceeds the 100 MB limit\n"
                         "hint: the file is corrupted or not a safetensors file")
    if 8 + n > len(buf):
        raise ValueError(f"tandem.load: header length {n} runs past the end of the file ({len(buf)} bytes)\n"
                         "hint: the file is truncated")
    try:
        header = json.loads(bytes(buf[8:8 + n]).decode("utf-8"), object_pairs_hook=_reject_duplicates)
    # ValueError: also numbers past Python's int digit limit (and UnicodeDecodeError, JSONDecodeError).
    except (ValueError, RecursionError) as e:
        raise ValueError(f"tandem.load: invalid header: not valid UTF-8 JSON ({e})\n"
                         "hint: the file is corrupted or not a safetensors file") from None
    if not isinstance(header, dict):
        raise ValueError("tandem.load: invalid header: expected a JSON object")
    data_len = len(buf) - 8 - n
    spans = []
    for key, info in header.items():
        if key == "__metadata__":
            if not isinstance(info, dict) or not all(isinstance(v, str) for v in info.values()):
                raise ValueError("tandem.load: invalid header: __metadata__ must map strings to strings")
            continue
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            raise ValueError(f"tandem.load: invalid header entry for {key!r}: expected dtype, shape, data_offsets")
        code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if not isinstance(code, str) or code not in _ITEMSIZE:
            raise ValueError(f"tandem.load: tensor {key!r} has unsupported dtype {code!r}")
        if not isinstance(shape, list) or not all(_is_int(s) and 0 <= s < 2**63 for s in shape):
            raise ValueError(f"tandem.load: tensor {key!r} has an invalid shape {shape!r}")
        # tandem's rules for a shape, even one with no elements: no prefix of the sizes multiplies past int64
        # (compute_numel), nor do the sizes after the first one (the contiguous strides, contiguous_strides).
        numel, stride = 1, 1
        for i, s in enumerate(shape):
            numel *= s
            stride *= max(s, 1) if i else 1
            if numel >= 2**63 or stride >= 2**63:
                raise ValueError(f"tandem.load: tensor {key!r} has a shape {shape} whose element count or "
                                 "strides overflow int64\nhint: the file is corrupted")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(_is_int(o) for o in offsets)
                and 0 <= offsets[0] <= offsets[1] <= data_len):
            raise ValueError(f"tandem.load: tensor {key!r} has data_offsets {offsets!r} outside the data "
                             f"({data_len} bytes)\nhint: the file is truncated or corrupted")
        if numel * _ITEMSIZE[code] != offsets[1] - offsets[0]:
            raise ValueError(f"tandem.load: tensor {key!r} of dtype {code} and shape {shape} needs "
                             f"{numel * _ITEMSIZE[code]} bytes but data_offsets span {offsets[1] - offsets[0]}")
        spans.append((offsets[0], offsets[1], key))
    # The byte ranges must tile the data exactly: no overlap (aliasing) and no gap (hidden bytes).
    end = 0
    for begin, stop, key in sorted(spans):
        if begin != end:
            what = "overlaps the previous tensor" if begin < end else "leaves a gap before it"
            raise ValueError(f"tandem.load: tensor {key!r} {what} (data_offsets start at {begin}, expected {end})")
        end = stop
    if end != data_len:
        raise ValueError(f"tandem.load: the tensors cover {end} bytes but the file holds {data_len} data bytes\n"
                         "hint: the file has trailing garbage or is corrupted")
    return header, 8 + n


class UnrecognizedFormatError(ValueError, pickle.UnpicklingError):
    """A file that is neither format. Also the UnpicklingError torch.load raises there (its unpickler reads the
    bytes), so code written for PyTorch catches it."""


class UnrecognizedEmptyFileError(UnrecognizedFormatError, EOFError):
    """An empty file: also the EOFError torch.load raises there."""


def _unknown_format(head):
    """The error for a file that is neither format, naming what it looks like."""
    hint = "tandem.load reads torch.save's checkpoints (zip or legacy format) and safetensors files"
    if not head:
        what = "the file is empty"
    elif head[0] == 0x80:
        what = "the file is a plain pickle stream (pickle.dump), not a torch.save checkpoint"
        hint = "read it with pickle.load, only if you trust it: unpickling runs code named in the file"
    elif head.startswith(b"\x93NUMPY"):
        what, hint = "the file is a NumPy .npy array", "read it with numpy.load"
    elif head.startswith(b"\x1f\x8b"):
        what, hint = "the file is gzip-compressed", "decompress it first (gzip.open)"
    else:
        what = f"the file starts with {head[:8]!r}"
    error = UnrecognizedEmptyFileError if not head else UnrecognizedFormatError
    return error(f"tandem.load: unrecognized file format: {what}; expected PyTorch's zip format (starting "
                 f"with b'PK\\x03\\x04') or safetensors (an 8-byte header length, then '{{')\nhint: {hint}")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Reads what ``save`` or ``torch.save`` wrote, or any safetensors file, from a path or a binary file object.
    Tensors go back to the device they were saved on, or where ``map_location`` says (a device or device
    string, a dict from saved to new locations, or a callable, as in torch.load).

    ``weights_only=True`` (the default, as in PyTorch >= 2.6) reads only tensors, Parameters, containers,
    numbers, strings, NumPy arrays and globals allowed with add_safe_globals, and refuses anything else
    without running it. ``weights_only=False`` unpickles any object, which runs code the file names: only for
    files you trust. ``mmap`` is accepted; the file is read, not mapped (a legacy-format file refuses it, as in
    PyTorch).

    As in PyTorch, an explicit ``pickle_module`` makes the default ``weights_only=False``, and the environment
    variables TORCH_FORCE_WEIGHTS_ONLY_LOAD / TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD (1, y, yes or true) force
    ``weights_only=True`` always / ``weights_only=False`` where the call did not pass it."""
    if pickle_module not in (None, pickle):
        raise NotImplementedError("tandem.load: only the standard pickle module is supported as pickle_module")
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.")
    if mmap and hasattr(f, "read"):
        raise ValueError("f must be a file path in order to use the mmap argument")
    if not hasattr(f, "read"):
        if not isinstance(f, (str, os.PathLike)):  # PyTorch takes anything else for a file object
            raise AttributeError(f"'{type(f).__name__}' object has no attribute 'seek'. You can only torch.load "
                                 "from a file that is seekable. Please pre-load the data into a buffer like "
                                 "io.BytesIO and try to load from it instead.")
        with open(os.fspath(f), "rb") as fh:
            # PyTorch's mmap error names the file only when it was given as a str
            mmap_name = (f"{f}, " if isinstance(f, str) else "") if mmap else None
            return _load_from(fh, os.fsdecode(f), map_location, weights_only, pickle_load_args, mmap_name)
    if not (hasattr(f, "seekable") and f.seekable() and hasattr(f, "readline") and hasattr(f, "readinto")):
        f = io.BytesIO(f.read())  # the readers jump around the file; the legacy one unpickles from it
    return _load_from(f, "", map_location, weights_only, pickle_load_args, None)


def get_unsafe_globals_in_checkpoint(f):
    """The globals a ``save``d checkpoint's pickle names that ``load(..., weights_only=True)`` would refuse
    (``"module.name"`` strings, in no particular order, as PyTorch's set difference): neither allowed by default
    nor with add_safe_globals / safe_globals. Read statically from the pickle's GLOBAL opcodes, as PyTorch does;
    NumPy's arrays and scalars are not listed, tandem's loader allowing them by default (docs/nn.md)."""
    import pickletools
    import zipfile
    from ._torch_format import user_allowed_globals
    from ._torch_format_read import _ALLOWED, _RestrictedUnpickler

    def globals_in(fh):
        head = fh.read(4)
        fh.seek(-len(head), os.SEEK_CUR)
        if head != ZIP_MAGIC:
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        with zipfile.ZipFile(fh) as archive:
            names = [n for n in archive.namelist() if n.endswith("/data.pkl") or n == "data.pkl"]
            if not names:
                raise ValueError("Expected input to be a checkpoint returned by torch.save")
            data = archive.read(min(names, key=len))
        found = set()
        for opcode, arg, _ in pickletools.genops(data):
            if opcode.name == "GLOBAL":  # torch.save pickles with protocol 2: "module name"
                found.add(".".join(_RestrictedUnpickler._py3_name(*arg.split(" ", 1))))  # __builtin__.set
        return found

    if hasattr(f, "read"):
        found = globals_in(f)
    else:
        with open(os.fspath(f), "rb") as fh:
            found = globals_in(fh)
    # the names tandem writes are PyTorch's (torch._utils._rebuild_tensor_v2, torch.FloatStorage, ...)
    safe = set(_ALLOWED) | set(user_allowed_globals())
    return list(found - safe)


def _resolve_weights_only(weights_only, pickle_module):
    """The weights_only a load runs with, by PyTorch's rules: the call's value, else True unless a pickle_module
    was given; then the environment's override (the NO_ variable only where the call left it unset)."""
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    true_values = ("1", "y", "yes", "true")
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if force:
        return True
    if force_no and not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the`weights_only` "
                      "argument was not explicitly passed to `torch.load`, forcing weights_only=False.",
                      UserWarning, stacklevel=3)  # the line that called load
        return False
    return weights_only


def _load_from(fh, name, map_location, weights_only, pickle_load_args, mmap_name):
    """``mmap_name``: None, or how the error for a file that cannot be mapped names it (mmap=True)."""
    start = fh.tell()
    head = fh.read(16)
    fh.seek(start)
    if head.startswith(ZIP_MAGIC):
        from . import _torch_format_read
        return _torch_format_read.load(fh, map_location, weights_only, pickle_load_args)
    from . import _torch_legacy_read
    if _torch_legacy_read.is_legacy(fh):
        if mmap_name is not None:  # a legacy file's storages are not laid out to be mapped (PyTorch's error)
            raise RuntimeError(f"mmap can only be used with files saved with `torch.save({mmap_name}"
                               "_use_new_zipfile_serialization=True), please torch.save your checkpoint with this "
                               "option in order to use mmap.")
        return _torch_legacy_read.load(fh, map_location, weights_only, pickle_load_args)
    if not (name.lower().endswith(".safetensors") or head[8:9] == b"{"):
        raise _unknown_format(head)
    buf = fh.read()
    header, base = _parse(buf)
    tensors = OrderedDict()
    for key, info in header.items():
        if key == "__metadata__":
            continue
        begin, end = base + info["data_offsets"][0], base + info["data_offsets"][1]
        if info["dtype"] == "BOOL" and bytes(buf[begin:end]).translate(None, b"\x00\x01"):
            raise ValueError(f"tandem.load: tensor {key!r} of dtype BOOL holds bytes other than 0 and 1\n"
                             "hint: the file is corrupted, or its writer stored booleans another way")
        t = _C._tensor_from_bytes(buf, begin, _CODE_DTYPES[info["dtype"]], info["shape"])
        device = restore_device(map_location, "cpu")  # safetensors holds no device: its tensors are the CPU's
        tensors[key] = t if device.type == "cpu" else t.to(device)
    meta = header.get("__metadata__", {})
    if _STRUCTURE_KEY not in meta:
        return tensors
    try:
        structure = json.loads(meta[_STRUCTURE_KEY])
    except (ValueError, RecursionError):
        raise ValueError("tandem.load: malformed structure in the file's metadata") from None
    return _unflatten(structure, tensors)
