"""torch.save/torch.load of odd objects, beyond serialization.py (which attacks the files): what weights_only=True
(the default) takes and refuses (OrderedDict, namedtuple, set, frozenset, complex, slice, range, bytes, bytearray,
dtypes, devices, Size, Parameters, storages, sparse tensors, tensors of every dtype, stride-0 and offset views,
tensors with Python attributes, modules, functions, enums), the load options (map_location as a meta device, a
dict, a callable returning None or a str, mmap with a buffer, pickle_module with weights_only, encoding), the
save options (pickle_protocol 0-5, the legacy format, a path-like, a file opened for reading), and reading a
buffer left at its end. Results are compared as values, with containers named by their type."""
import collections
import enum
import io
import os
import pathlib
import pickle

from . import R, T

WORKDIR = f"/tmp/hostile_serialization_objects_{os.getpid()}"
Point = collections.namedtuple("Point", "x y")


class Color(enum.Enum):
    RED = 1


def path(name):
    os.makedirs(WORKDIR, exist_ok=True)
    return os.path.join(WORKDIR, name)


def described(x):
    """A loaded object as comparable values: containers as (type name, items), tensors as themselves."""
    if isinstance(x, (set, frozenset)):
        return type(x).__name__, sorted(x, key=repr)
    if isinstance(x, collections.OrderedDict):
        return "OrderedDict", [(k, described(v)) for k, v in x.items()]
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x).__name__, [described(v) for v in x]
    if isinstance(x, dict):
        return {k: described(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [described(v) for v in x]
    if isinstance(x, (slice, range, bytes, bytearray, complex, enum.Enum)):
        return type(x).__name__, repr(x)
    if type(x).__name__ in ("dtype", "device", "Size", "layout", "memory_format"):  # printed as torch's
        return type(x).__name__, str(x).replace("tandem", "torch")
    return x


def round_trip(make, weights_only=True, describe=described, **load_kw):
    def fn(L, d):
        buf = io.BytesIO()
        L.save(make(L, d), buf)
        buf.seek(0)
        return describe(L.load(buf, weights_only=weights_only, **load_kw))
    return fn


def props(t):
    """A loaded tensor's values and the properties save keeps: dtype, requires_grad, class, stride, offset."""
    return t.detach(), str(t.dtype).replace("tandem", "torch"), t.requires_grad, type(t).__name__, t.stride(), \
        t.storage_offset()


def _module(L, d):
    return L.nn.Linear(2, 1)


def _tensor_with_attr(L, d):
    t = R(L, (2,), d)
    t.note = "hello"
    return t


def _loaded_attr(t):
    return props(t), getattr(t, "note", None)


def _shared_views(L, d):
    base = R(L, (6,), d)
    return [base[1:4], base[::2], base]


def _views_still_shared(lst):
    lst[2].add_(100)
    return lst[0], lst[1]


def _storage(L, d):
    return R(L, (3,), d).untyped_storage()


def _sparse(L, d):
    return L.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (4,))


def _sparse_unsorted(L, d):
    return L.sparse_coo_tensor([[2, 0, 2]], [1.0, 2.0, 3.0], (4,))


def _sparse_out_of_bounds(L, d):
    return L.sparse_coo_tensor([[5]], [1.0], (6,)).narrow_copy(0, 0, 6)


def save_with(make, **save_kw):
    def fn(L, d):
        buf = io.BytesIO()
        L.save(make(L, d), buf, **save_kw)
        buf.seek(0)
        return described(L.load(buf))
    return fn


def _save_to_path(kind):
    def fn(L, d):
        p = path(f"{kind}_{L.__name__}.pt")
        target = pathlib.Path(p) if kind == "pathlib" else (p.encode() if kind == "bytes" else p)
        L.save({"a": R(L, (2,), d)}, target)
        return L.load(target)
    return fn


def _save_to_read_only_handle(L, d):
    p = path(f"ro_{L.__name__}.pt")
    open(p, "wb").close()
    with open(p, "rb") as f:
        L.save(R(L, (2,), d), f)


def _load_at_end(L, d):
    buf = io.BytesIO()
    L.save(R(L, (2,), d), buf)
    return L.load(buf)


def _load_twice_same_buffer(L, d):
    buf = io.BytesIO()
    L.save(R(L, (2,), d), buf)
    buf.seek(0)
    a = L.load(buf)
    return a, L.load(buf)


def _two_saves_one_buffer(L, d):
    buf = io.BytesIO()
    L.save(T(L, [1.0], d), buf)
    L.save(T(L, [2.0], d), buf)
    buf.seek(0)
    return L.load(buf)


def _load_with(make_kw):
    def fn(L, d):
        buf = io.BytesIO()
        L.save({"w": R(L, (2, 2), d), "n": 3}, buf)
        buf.seek(0)
        kw = make_kw(L)
        out = L.load(buf, **kw)
        # a tensor's values, or its shape on the meta device where map_location chose meta (the oracle's tensors
        # are on the CPU; a run on the meta device compares the tensor itself, by shape and dtype)
        mapped = "meta" in repr(kw.get("map_location"))
        return {k: (v.device.type == "meta", tuple(v.shape) if v.device.type == "meta" else v)
                if hasattr(v, "device") and mapped else v for k, v in out.items()}
    return fn


def _mmap_bytesio(L, d):
    buf = io.BytesIO()
    L.save(R(L, (2,), d), buf)
    buf.seek(0)
    return L.load(buf, mmap=True)


def _mmap_path(L, d):
    p = path(f"mmap_{L.__name__}.pt")
    L.save({"w": R(L, (3,), d)}, p)
    out = L.load(p, mmap=True)
    return out["w"]


def _mmap_legacy(L, d):
    p = path(f"mmap_legacy_{L.__name__}.pt")
    L.save(R(L, (3,), d), p, _use_new_zipfile_serialization=False)
    return L.load(p, mmap=True)


def _pickle_dumps_tensor(L, d):
    return pickle.loads(pickle.dumps(R(L, (3,), d)))


def _weights_only_pickle_module(L, d):
    buf = io.BytesIO()
    L.save(R(L, (2,), d), buf)
    buf.seek(0)
    return L.load(buf, pickle_module=pickle, weights_only=True)


DTYPES = ["float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32", "int64", "bool", "complex64",
          "complex128", "uint16", "uint32", "uint64"]

CASES = {f"dtype/{name}": round_trip(lambda L, d, name=name: R(L, (3,), d).mul(10).to(getattr(L, name)))
         for name in DTYPES}
CASES.update({
    # weights_only=True: what it takes
    "weights_only/ordered_dict": round_trip(lambda L, d: collections.OrderedDict(b=1, a=R(L, (2,), d))),
    "weights_only/set": round_trip(lambda L, d: {1, 2, 3}),
    "weights_only/frozenset": round_trip(lambda L, d: frozenset({1, 2})),
    "weights_only/complex": round_trip(lambda L, d: 1 + 2j),
    "weights_only/slice": round_trip(lambda L, d: slice(1, 5, 2)),
    "weights_only/range": round_trip(lambda L, d: range(3)),
    "weights_only/bytes": round_trip(lambda L, d: b"abc"),
    "weights_only/bytearray": round_trip(lambda L, d: bytearray(b"ab")),
    "weights_only/dtype": round_trip(lambda L, d: [L.float16, L.int32, L.bool]),
    "weights_only/device": round_trip(lambda L, d: L.device("cpu")),
    "weights_only/size": round_trip(lambda L, d: L.Size([2, 3])),
    "weights_only/layout": round_trip(lambda L, d: L.strided),
    "weights_only/memory_format": round_trip(lambda L, d: L.channels_last),
    "weights_only/big_int": round_trip(lambda L, d: [2**70, -(2**64)]),
    "weights_only/nan_float": round_trip(lambda L, d: [float("nan"), float("-inf")]),
    "weights_only/tensor_keys": round_trip(lambda L, d: {1.5: R(L, (2,), d), None: 2, (1, 2): "t"}),
    "weights_only/parameter": round_trip(lambda L, d: L.nn.Parameter(R(L, (2,), d)), describe=props),
    "weights_only/parameter_no_grad": round_trip(lambda L, d: L.nn.Parameter(R(L, (2,), d), requires_grad=False),
                                                 describe=props),
    "weights_only/requires_grad_tensor": round_trip(lambda L, d: R(L, (2,), d).requires_grad_(), describe=props),
    "weights_only/non_leaf": round_trip(lambda L, d: R(L, (2,), d).requires_grad_() * 2, describe=props),
    "weights_only/stride_zero": round_trip(lambda L, d: R(L, (1, 3), d).expand(4, 3), describe=props),
    "weights_only/offset_view": round_trip(lambda L, d: R(L, (10,), d)[3:7:2], describe=props),
    "weights_only/transposed": round_trip(lambda L, d: R(L, (2, 3), d).t(), describe=props),
    "weights_only/shared_views": round_trip(_shared_views, describe=_views_still_shared),
    "weights_only/storage": round_trip(_storage, describe=lambda s: (type(s).__name__, s.nbytes())),
    "weights_only/sparse_coo": round_trip(_sparse, describe=lambda t: (t.is_sparse, t.to_dense())),
    "weights_only/sparse_coo_unsorted": round_trip(_sparse_unsorted, describe=lambda t: t.to_dense()),
    "weights_only/tensor_with_attr": round_trip(_tensor_with_attr, describe=_loaded_attr),
    "weights_only/nested_empty": round_trip(lambda L, d: [[], {}, (), [[]]]),
    "weights_only/0d_and_empty": round_trip(lambda L, d: [L.tensor(3.5, device=d), L.empty(0, 3, device=d)]),
    # weights_only=True: what it refuses
    "refused/namedtuple": round_trip(lambda L, d: Point(1, 2)),
    "refused/enum": round_trip(lambda L, d: Color.RED),
    "refused/module": round_trip(_module),
    "refused/builtin_function": round_trip(lambda L, d: [len]),
    "refused/dataclass_like": round_trip(lambda L, d: pathlib.PurePosixPath("/a")),
    # weights_only=False: the same objects come back
    "unsafe/namedtuple": round_trip(lambda L, d: Point(1, R(L, (2,), d)), weights_only=False),
    "unsafe/enum": round_trip(lambda L, d: Color.RED, weights_only=False),
    "unsafe/module_repr": round_trip(_module, weights_only=False, describe=repr),
    "unsafe/function": round_trip(lambda L, d: [len], weights_only=False),
    "unsafe/lambda_save": round_trip(lambda L, d: [lambda: 1], weights_only=False),
    # save options
    "save/protocol_0": save_with(lambda L, d: {"a": T(L, [1.0], d)}, pickle_protocol=0),
    "save/protocol_1": save_with(lambda L, d: {"a": T(L, [1.0], d)}, pickle_protocol=1),
    "save/protocol_5": save_with(lambda L, d: {"a": T(L, [1.0], d)}, pickle_protocol=5),
    "save/protocol_6": save_with(lambda L, d: {"a": T(L, [1.0], d)}, pickle_protocol=6),
    "save/protocol_negative": save_with(lambda L, d: {"a": T(L, [1.0], d)}, pickle_protocol=-1),
    "save/legacy_format": save_with(lambda L, d: {"a": R(L, (3,), d), "b": [1, 2]},
                                    _use_new_zipfile_serialization=False),
    "save/legacy_format_views": save_with(_shared_views, _use_new_zipfile_serialization=False),
    "save/pathlib": _save_to_path("pathlib"),
    "save/bytes_path": _save_to_path("bytes"),
    "save/read_only_handle": _save_to_read_only_handle,
    "save/unknown_kwarg": save_with(lambda L, d: 1, compress=True),
    # load options
    "load/buffer_at_end": _load_at_end,
    "load/same_buffer_twice": _load_twice_same_buffer,
    "load/two_saves_one_buffer": _two_saves_one_buffer,
    "load/map_location_meta": _load_with(lambda L: {"map_location": "meta"}),
    "load/map_location_meta_device": _load_with(lambda L: {"map_location": L.device("meta")}),
    "load/map_location_dict": _load_with(lambda L: {"map_location": {"cpu": "meta", "cuda:0": "meta"}}),
    "load/map_location_dict_other": _load_with(lambda L: {"map_location": {"cuda:0": "cpu"}}),
    "load/map_location_callable_none": _load_with(lambda L: {"map_location": lambda s, loc: None}),
    "load/map_location_callable_str": _load_with(lambda L: {"map_location": lambda s, loc: "cpu"}),
    "load/map_location_int": _load_with(lambda L: {"map_location": 0}),
    "load/map_location_bad_device": _load_with(lambda L: {"map_location": "tpu"}),
    "load/map_location_list": _load_with(lambda L: {"map_location": ["cpu"]}),
    "load/mmap_bytesio": _mmap_bytesio,
    "load/mmap_path": _mmap_path,
    "load/mmap_legacy": _mmap_legacy,
    "load/weights_only_pickle_module": _weights_only_pickle_module,
    "load/weights_only_none": _load_with(lambda L: {"weights_only": None}),
    "load/weights_only_str": _load_with(lambda L: {"weights_only": "yes"}),
    "load/encoding": _load_with(lambda L: {"encoding": "latin1"}),
    "load/unknown_kwarg": _load_with(lambda L: {"foo": 1}),
    "pickle/dumps_loads": _pickle_dumps_tensor,
})

_PROTOCOL = ("by design (docs/nn.md, Save/load): tandem.save writes protocols 2 to 5 (its pure-Python pickler writes "
             "torch's names; PyTorch's weights_only reader takes protocol 2 only) and refuses 0 and 1 when saving "
             "with a ValueError; PyTorch writes them and its weights_only load fails ('Unsupported operand')")
_FORMAT = ("tandem names the format it found (its error is the EOFError/UnpicklingError PyTorch raises); PyTorch's "
           "text comes from its unpickler (as serialization.py's KNOWN)")
KNOWN = {
    "save/protocol_0": _PROTOCOL, "save/protocol_1": _PROTOCOL, "save/protocol_negative": _PROTOCOL,
    "save/protocol_5": "tandem's weights_only reader reads protocol 5 (the pickle opcodes it allows do not depend on "
                       "the protocol); PyTorch's stops at opcode 149 ('Unsupported operand')",
    "load/buffer_at_end": _FORMAT, "load/same_buffer_twice": _FORMAT,
    "load/two_saves_one_buffer": "two zip archives written one after the other into one buffer: tandem (Python's "
                                 "zipfile) reads the last one, whose central directory ends the buffer; PyTorch's "
                                 "reader resolves the offsets from the buffer's start and reads the first",
    "load/map_location_callable_str": "tandem names what the map_location callable returned (with a hint); PyTorch's "
                                      "error is TypedStorage's parser listing its overloads",
    "weights_only/offset_view": "by design (docs/nn.md, Save/load): a saved view keeps only the span it reads, so it "
                                "reloads with a smaller storage offset (same values, shape and strides)",
    "weights_only/storage": "by design (docs/nn.md, Save/load): tandem has no typed storages, and a bare storage is "
                            "pickled as tandem's own object, which weights_only refuses; PyTorch writes a "
                            "TypedStorage",
    "weights_only/memory_format": "tandem pickles a memory format by its name (tandem._layouts.channels_last), which "
                                  "weights_only refuses; PyTorch cannot pickle one at all ('cannot pickle 'module' "
                                  "object')",
}
