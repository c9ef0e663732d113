"""tandem.ops.aten: PyTorch's ATen operators as objects (torch.ops.aten.add.Tensor, torch.ops.aten.clone.default).

Programs use them as callables and as dictionary keys (tables of handlers, e.g. PyTorch Geometric's). Each one
runs tandem's own implementation of the op: the public function of the same name (tandem.X, tandem.linalg.X for
linalg_X, ...), else the Tensor method (in-place ops, view, expand, ...), else an entry of _ATEN_ONLY for the
ops that have no public Python name or whose public function takes its arguments differently. An overload
checks the call against its schema first (PyTorch's messages for a missing, extra, unknown or mistyped argument;
a number may stand for a Tensor, as ATen's operators convert it).

The schemas are PyTorch's, kept in aten_schemas.txt for the ops tandem implements (scripts/gen_aten_schemas.py
writes it from the pinned PyTorch). These objects sit above autograd like every tandem function (tandem has no
__torch_dispatch__ layer below it)."""
import inspect
import os

from .._dim_args import _wrap_dim
from . import schema as _schema
from .registry import _NOT_DISPATCHED, OpOverload, OpOverloadPacket, dispatch_torch_function

_SCHEMA_FILE = os.path.join(os.path.dirname(__file__), "aten_schemas.txt")
_REDUCTIONS = ("none", "mean", "sum")  # ATen's losses take the reduction as this index
_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
_PACKETS = {}  # name -> AtenOpOverloadPacket, made on first use
_schema_texts = None  # name -> [schema text], read on first use


def _tandem():
    import tandem  # noqa: PLC0415 (tandem imports this package while it initialises)

    return tandem


def _slice(self, dim=0, start=None, end=None, step=1):
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return self[(slice(None),) * _wrap_dim(dim, self.dim()) + (slice(start, end, step),)]


def _index(self, indices):
    # ATen's None in an index list means "this dimension whole", not a new axis as in Python indexing.
    return self[tuple(slice(None) if i is None else i for i in indices)]


def _to_copy(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    t = _tandem()
    out = self.to(device=self.device if device is None else device, dtype=self.dtype if dtype is None else dtype,
                  non_blocking=non_blocking, copy=True, memory_format=memory_format or t.preserve_format)
    return out.pin_memory() if pin_memory else out


def _softmax_forms(name):
    def run(self, dim, half_to_float):
        t = _tandem()
        return getattr(t, name)(self, dim, dtype=t.float32 if half_to_float else None)
    return run


def _size_query(method):
    def run(self, dim=None):
        return getattr(self, method)() if dim is None else getattr(self, method)(dim)
    return run


def _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return _tandem().nn.functional.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                                             scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def _loss(name, *between):
    """An ATen loss (reduction as an int after `between`, the arguments nn.functional takes by keyword)."""
    def run(self, target, *args):
        kwargs = dict(zip(between, args))
        rest = args[len(between):]
        if rest:
            if rest[0] not in range(len(_REDUCTIONS)):
                raise RuntimeError(f"{name}: reduction must be 0 (none), 1 (mean) or 2 (sum), but was: {rest[0]}")
            kwargs["reduction"] = _REDUCTIONS[rest[0]]
            kwargs.update(zip(_LOSS_TAILS.get(name, ()), rest[1:]))
        return getattr(_tandem().nn.functional, name)(self, target, **kwargs)
    return run


_LOSS_TAILS = {"nll_loss": ("ignore_index",), "cross_entropy": ("ignore_index", "label_smoothing"),
               "smooth_l1_loss": ("beta",), "huber_loss": ("delta",)}


def _cdist(x1, x2, p=2.0, compute_mode=None):
    if compute_mode is not None and compute_mode not in range(len(_CDIST_MODES)):
        raise RuntimeError(f"possible modes: 0, 1, 2, but was: {compute_mode}")
    mode = _CDIST_MODES[compute_mode] if compute_mode is not None else _CDIST_MODES[0]
    return _tandem().cdist(x1, x2, p, mode)


def _unpacked(name):
    """A function torch takes as f(*tensors) whose ATen op takes one list."""
    def run(tensors):
        return getattr(_tandem(), name)(*tensors)
    return run


def _functional(name):
    def run(*args, **kwargs):
        return getattr(_tandem().nn.functional, name)(*args, **kwargs)
    return run


_ATEN_ONLY = {
    "_to_copy": _to_copy,
    "_pin_memory": lambda self, device=None: self.pin_memory(),
    "alias": lambda self: self.view(self.shape),
    "slice": _slice,
    "index": _index,
    "_softmax": _softmax_forms("softmax"),
    "_log_softmax": _softmax_forms("log_softmax"),
    "_unsafe_view": lambda self, size: self.reshape(size),
    "split_with_sizes": lambda self, split_sizes, dim=0: _tandem().split(self, list(split_sizes), dim),
    "expand": lambda self, size, *, implicit=False: self.expand(size),
    "sym_size": _size_query("size"),
    "sym_stride": _size_query("stride"),
    "sym_numel": lambda self: self.numel(),
    "sym_storage_offset": lambda self: self.storage_offset(),
    "lift_fresh": lambda self: self,
    "lift_fresh_copy": lambda self: self.clone(),
    "_sparse_addmm": lambda self, mat1, mat2, *, beta=1, alpha=1: _tandem().sparse.addmm(self, mat1, mat2, beta=beta,
                                                                                          alpha=alpha),
    "_sparse_mm": lambda sparse, dense, reduce=None: _tandem().sparse.mm(sparse, dense, reduce),
    "embedding": _embedding,
    "tensordot": lambda self, other, dims_self, dims_other: _tandem().tensordot(self, other,
                                                                                dims=(dims_self, dims_other)),
    "cdist": _cdist,
    "broadcast_tensors": _unpacked("broadcast_tensors"),
    "block_diag": _unpacked("block_diag"),
    "cartesian_prod": _unpacked("cartesian_prod"),
    "chain_matmul": _unpacked("chain_matmul"),
    "mse_loss": _loss("mse_loss"),
    "l1_loss": _loss("l1_loss"),
    "smooth_l1_loss": _loss("smooth_l1_loss"),
    "huber_loss": _loss("huber_loss"),
    "binary_cross_entropy": _loss("binary_cross_entropy", "weight"),
    "nll_loss": _loss("nll_loss", "weight"),
    "cross_entropy_loss": _loss("cross_entropy", "weight"),
    "log_sigmoid": _functional("logsigmoid"),
}
# nn.functional forms whose positional arguments are ATen's (F.elu, F.mse_loss, ... are not: not listed).
_FUNCTIONAL_SAME = ("gelu", "silu", "mish", "softplus", "leaky_relu", "hardtanh", "hardsigmoid", "hardswish", "glu",
                    "softshrink", "one_hot", "pad", "linear", "scaled_dot_product_attention", "relu6",
                    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
                    "adaptive_max_pool2d", "adaptive_max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
                    "max_pool1d", "max_pool2d", "max_pool3d", "pixel_shuffle", "pixel_unshuffle")
# Public functions whose ATen op of the same name takes different arguments (torch.stft adds `center`).
_DIFFERENT = frozenset({"stft"})
_SUBMODULE_PREFIXES = ("linalg_", "special_", "fft_")


def _usable(f):
    return f is not None and callable(f) and not inspect.isclass(f) and not inspect.ismodule(f)


def implementation(name):
    """The callable an ATen op `name` runs in tandem, or None when tandem has none."""
    if name in _ATEN_ONLY:
        return _ATEN_ONLY[name]
    if name in _DIFFERENT:
        return None
    t = _tandem()
    for prefix in _SUBMODULE_PREFIXES:
        if name.startswith(prefix):
            f = getattr(getattr(t, prefix[:-1]), name[len(prefix):], None)
            return f if _usable(f) else None
    if name in _FUNCTIONAL_SAME:
        return getattr(t.nn.functional, name)
    if name.startswith("_") and not name.startswith("__"):
        return None  # tandem's private names are not ATen's
    f = getattr(t, name, None) if not name.startswith("__") else None
    if _usable(f):
        return f
    method = getattr(t.Tensor, name, None)
    return method if _usable(method) and not isinstance(method, property) else None


def schema_texts():
    """{op name: [schema text]} of aten_schemas.txt."""
    global _schema_texts
    if _schema_texts is None:
        texts = {}
        with open(_SCHEMA_FILE, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    texts.setdefault(line[:line.index("(")].split(".")[0], []).append(line)
        _schema_texts = texts
    return _schema_texts


class AtenOpOverload(OpOverload):
    """One overload of an ATen op: its schema checks the call, tandem's implementation runs it."""

    def __init__(self, packet, schema):
        super().__init__(packet, schema)
        self.__name__ = f"{packet._opname}.{self._overloadname}"
        self.__qualname__ = self.__name__

    @property
    def overloadpacket(self):
        return self._packet

    @property
    def op(self):
        return self

    def __call__(self, *args, **kwargs):
        dispatched = dispatch_torch_function(self, args, kwargs)
        if dispatched is not _NOT_DISPATCHED:
            return dispatched
        args, kwargs = _schema.bind(self._schema, args, kwargs, numbers_for_tensors=True)
        return self._packet._implementation(*args, **kwargs)


class AtenOpOverloadPacket(OpOverloadPacket):
    """An ATen op name: calling it lets tandem's implementation pick the overload from the arguments."""

    def __init__(self, name, texts, implementation):
        super().__init__("aten", name)
        self.__name__ = self.__qualname__ = name
        self._implementation = implementation
        for text in texts:
            parsed = _schema.parse_schema(text)
            parsed.name = f"aten::{name}"
            self._overloads[parsed.overload or "default"] = AtenOpOverload(self, parsed)

    @property
    def op(self):
        return self._implementation

    def __call__(self, *args, **kwargs):
        dispatched = dispatch_torch_function(self, args, kwargs)
        if dispatched is not _NOT_DISPATCHED:
            return dispatched
        return self._implementation(*args, **kwargs)


def packet(name):
    """tandem.ops.aten.<name>, or None when tandem does not implement that ATen op."""
    found = _PACKETS.get(name)
    if found is None:
        texts = schema_texts().get(name)
        impl = texts and implementation(name)
        if not impl:
            return None
        found = _PACKETS[name] = AtenOpOverloadPacket(name, texts, impl)
    return found
