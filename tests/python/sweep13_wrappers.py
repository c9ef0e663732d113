"""Sweep 13 programs, tensor-wrapper idioms from libraries that sit on top of torch: an einops-style rearrange / reduce /
repeat with a tiny pattern parser over reshape / permute / expand, torch.Tensor subclasses carrying metadata
(MONAI's MetaTensor-like with __torch_function__ and as_subclass; a units-carrying tensor; a logging subclass),
a tensordict-like dict of tensors with .to() / apply / stack / indexing, torch.utils._pytree's tree_map / tree_flatten
/ tree_unflatten over nested model outputs with a registered node, and dataclasses and namedtuples of tensors
through default_collate / default_convert in a DataLoader.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep13.py). Data come from NumPy so both libraries start from the same numbers."""
import dataclasses
import functools
import re
from collections import OrderedDict, namedtuple

import numpy as np


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


# ---- einops-style rearrange / reduce / repeat with a small pattern parser ------------------------------------------
def einops_style_rearrange(torch, device):
    def parse_side(side):
        groups = []
        for token in re.findall(r"\([^)]*\)|\S+", side):
            groups.append(token[1:-1].split() if token.startswith("(") else [token])
        return groups

    def rearrange(x, pattern, **sizes):
        left, right = (parse_side(s) for s in pattern.split("->"))
        known = dict(sizes)
        for group, dim in zip(left, x.shape):
            unknown = [a for a in group if a not in known]
            prod = 1
            for a in group:
                if a in known:
                    prod *= known[a]
            if len(unknown) == 1:
                known[unknown[0]] = dim // prod
            elif not unknown and prod != dim:
                raise ValueError(f"shape mismatch for {group}: {prod} != {dim}")
        flat = [a for g in left for a in g]
        x = x.reshape([known[a] for a in flat])
        order = [a for g in right for a in g if a != "1"]
        x = x.permute([flat.index(a) for a in order])
        out_shape = []
        for g in right:
            size = 1
            for a in g:
                size *= 1 if a == "1" else known[a]
            out_shape.append(size)
        return x.reshape(out_shape)

    def reduce(x, pattern, reduction, **sizes):
        left, right = (s.split() for s in pattern.split("->"))
        keep = [a for a in left if a in right]
        dims = tuple(i for i, a in enumerate(left) if a not in right)
        out = getattr(x, reduction)(dim=dims) if reduction != "max" else x.amax(dim=dims)
        return out.permute([keep.index(a) for a in right])

    def repeat(x, pattern, **sizes):
        left, right = (s.split() for s in pattern.split("->"))
        for i, a in enumerate(right):
            if a not in left:
                x = x.unsqueeze(i)
        return x.expand([sizes.get(a, -1) for a in right])

    rng = np.random.default_rng(1330)
    imgs = torch.tensor(rng.standard_normal((2, 3, 8, 12)), dtype=torch.float32, device=device)
    patches = rearrange(imgs, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=4, p2=4)
    back = rearrange(patches, "b (h w) (p1 p2 c) -> b c (h p1) (w p2)", h=2, p1=4, p2=4, c=3)
    heads = rearrange(torch.arange(24, device=device).view(2, 3, 4), "b n (h d) -> b h n d", h=2)
    pooled = reduce(imgs, "b c h w -> b c", "mean")
    maxed = reduce(imgs, "b c h w -> c b", "max")
    tiled = repeat(torch.arange(3, device=device), "c -> b c", b=2)
    try:
        rearrange(imgs, "b c (h p1) w -> b h p1 c w", p1=5, h=2)
        err = None
    except Exception as exc:
        err = f"{type(exc).__name__}: {exc}"
    # the same with einsum / unflatten / movedim, as people do without einops
    alt = imgs.unflatten(2, (2, 4)).unflatten(4, (3, 4)).permute(0, 2, 4, 3, 5, 1).flatten(3).flatten(1, 2)
    return {"patches": [list(patches.shape), round(patches[1, 3, :4].sum().item(), 5)],
            "roundtrip": bool(torch.equal(back, imgs)), "heads": heads[1, 1].tolist(),
            "pooled": _rounded(pooled.flatten()), "maxed": list(maxed.shape), "tiled": tiled.tolist(),
            "tiled_stride": list(tiled.stride()), "err": err, "alt": bool(torch.equal(alt, patches)),
            "movedim": list(torch.movedim(imgs, 1, -1).shape), "contig": patches.is_contiguous()}


# ---- a MONAI-style MetaTensor: metadata that follows operations through __torch_function__ -----------------------
def metatensor_subclass(torch, device):
    class MetaTensor(torch.Tensor):
        @staticmethod
        def __new__(cls, x, affine=None, meta=None, *args, **kwargs):
            return torch.as_tensor(x, *args, **kwargs).as_subclass(cls)

        def __init__(self, x, affine=None, meta=None, *args, **kwargs):
            self.affine = affine if affine is not None else torch.eye(4, dtype=torch.float64)
            self.meta = dict(meta or {})
            self.applied_operations = []

        @staticmethod
        def _first_meta(args):
            for a in args:
                if isinstance(a, MetaTensor):
                    return a
                if isinstance(a, (list, tuple)):
                    found = MetaTensor._first_meta(a)
                    if found is not None:
                        return found
            return None

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            ret = super().__torch_function__(func, types, args, kwargs)
            source = cls._first_meta(list(args) + list(kwargs.values()))

            def carry(r):
                if isinstance(r, MetaTensor) and source is not None and r is not source:
                    r.__dict__.update({k: v for k, v in source.__dict__.items() if k != "applied_operations"})
                    r.applied_operations = source.__dict__.get("applied_operations", []) + [func.__name__]
                return r

            if isinstance(ret, (list, tuple)):
                return type(ret)(carry(r) for r in ret) if not hasattr(ret, "_fields") else ret
            return carry(ret)

        def as_tensor(self):
            return self.as_subclass(torch.Tensor)

        @property
        def pixdim(self):
            return self.affine[:3, :3].norm(dim=0)

    rng = np.random.default_rng(1331)
    affine = torch.diag(torch.tensor([2.0, 1.5, 3.0, 1.0], dtype=torch.float64))
    img = MetaTensor(rng.standard_normal((1, 4, 4, 4)).astype(np.float32), affine=affine,
                     meta={"filename": "ct.nii", "spacing": [2.0, 1.5, 3.0]}, device=device)
    flipped = torch.flip(img, dims=[1])
    scaled = (flipped * 2 + 1).clamp(min=-1)
    pooled = torch.nn.functional.avg_pool3d(scaled.unsqueeze(0), 2)
    parts = torch.split(scaled, 2, dim=1)
    summed = scaled.sum()
    plain = scaled.as_tensor()
    conv = torch.nn.Conv3d(1, 2, 3, padding=1).to(device)
    with torch.no_grad():
        conv_out = conv(pooled)
    detached = scaled.detach().clone()
    slices = [type(s).__name__ for s in scaled[0]]  # iterating a batch, as a per-slice transform does
    raw = scaled.data
    return {"types": [type(t).__name__ for t in (flipped, scaled, pooled, parts[0], summed, plain, conv_out,
                                                  detached)],
            "meta": scaled.meta["filename"], "ops": scaled.applied_operations,
            "pooled_ops": pooled.applied_operations, "pixdim": _rounded(scaled.pixdim),
            "value": round(scaled.sum().item(), 4), "isinstance": isinstance(scaled, torch.Tensor),
            "device": scaled.device.type == torch.device(device).type, "dtype": str(scaled.dtype),
            "repr_start": repr(plain).split("(")[0], "slices": slices,
            "raw": [type(raw).__name__, raw.meta["filename"], raw.requires_grad]}


# ---- a units-carrying tensor and a logging subclass (the __torch_function__ tutorial idioms) ------------------------
def units_and_logging_subclasses(torch, device):
    HANDLED = {}

    def implements(torch_function):
        def decorator(func):
            functools.update_wrapper(func, torch_function)
            HANDLED[torch_function] = func
            return func
        return decorator

    class Quantity:  # not a tensor subclass: a duck type that torch functions dispatch to
        def __init__(self, value, unit):
            self.value, self.unit = value, unit

        def __repr__(self):
            return f"Quantity({self.value.tolist()}, {self.unit!r})"

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func not in HANDLED or not all(issubclass(t, (torch.Tensor, Quantity)) for t in types):
                return NotImplemented
            return HANDLED[func](*args, **kwargs)

    @implements(torch.mean)
    def q_mean(q, dim=None):
        return Quantity(torch.mean(q.value) if dim is None else torch.mean(q.value, dim), q.unit)

    @implements(torch.add)
    def q_add(a, b):
        if a.unit != b.unit:
            raise ValueError(f"cannot add {a.unit} and {b.unit}")
        return Quantity(a.value + b.value, a.unit)

    calls = []

    class LoggingTensor(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(getattr(func, "__name__", str(func)))
            return super().__torch_function__(func, types, args, kwargs or {})

    rng = np.random.default_rng(1332)
    v = torch.tensor(rng.standard_normal((3, 2)), dtype=torch.float32, device=device)
    q = Quantity(v, "m")
    m = torch.mean(q)
    md = torch.mean(q, 0)
    s = torch.add(q, Quantity(torch.ones_like(v), "m"))
    try:
        torch.add(q, Quantity(v, "s"))
        err = None
    except ValueError as exc:
        err = str(exc)
    try:
        torch.sum(q)
        unhandled = None
    except TypeError as exc:
        unhandled = str(exc).split(":")[0]
    lt = v.as_subclass(LoggingTensor)
    lin = torch.nn.Linear(2, 2).to(device)
    out = torch.nn.functional.relu(lt @ lt.T) + lin(lt).sum()
    return {"mean": [round(m.value.item(), 5), m.unit], "mean_dim": [_rounded(md.value), md.unit],
            "add": round(s.value.sum().item(), 5), "err": err, "unhandled": unhandled,
            "wrapped": q_mean.__name__, "out_type": type(out).__name__,
            "calls": [c for c in calls if c in ("relu", "matmul", "linear", "sum", "add", "__add__", "__matmul__")],
            "overridable": [torch.overrides.is_tensor_like(q), torch.overrides.is_tensor_like(v)],
            "has_tf": [torch.overrides.has_torch_function((q,)), torch.overrides.has_torch_function((v,))]}


# ---- a tensordict-like container: .to(), apply, stack, indexing, flatten_keys ------------------------------------------
def tensordict_like(torch, device):
    class TensorDict(dict):
        def __init__(self, source, batch_size):
            super().__init__(source)
            self.batch_size = torch.Size(batch_size)

        def apply(self, fn):
            return TensorDict({k: v.apply(fn) if isinstance(v, TensorDict) else fn(v) for k, v in self.items()},
                              self.batch_size)

        def to(self, *args, **kwargs):
            return self.apply(lambda t: t.to(*args, **kwargs))

        def __getitem__(self, key):
            if isinstance(key, str):
                return super().__getitem__(key)
            out = self.apply(lambda t: t[key])
            first = next(iter(out.values()))
            while isinstance(first, TensorDict):
                first = next(iter(first.values()))
            out.batch_size = first.shape[:len(self.batch_size) - (0 if isinstance(key, (slice, torch.Tensor))
                                                                   and getattr(key, "ndim", 1) == 1 else 1)]
            return out

        @staticmethod
        def stack(tds, dim=0):
            keys = tds[0].keys()
            return TensorDict({k: TensorDict.stack([td[k] for td in tds], dim) if isinstance(tds[0][k], TensorDict)
                               else torch.stack([td[k] for td in tds], dim) for k in keys},
                              (len(tds),) + tuple(tds[0].batch_size))

        def flatten_keys(self, sep="."):
            flat = {}
            for k, v in self.items():
                if isinstance(v, TensorDict):
                    for k2, v2 in v.flatten_keys(sep).items():
                        flat[k + sep + k2] = v2
                else:
                    flat[k] = v
            return flat

    rng = np.random.default_rng(1333)

    def step(i):
        return TensorDict({"obs": torch.tensor(rng.standard_normal((3,)), dtype=torch.float32),
                           "action": torch.tensor(i % 2),
                           "next": TensorDict({"reward": torch.tensor([float(i)]), "done": torch.tensor([i == 3])},
                                              ())}, ())

    traj = TensorDict.stack([step(i) for i in range(4)])
    traj = traj.to(device)
    half = traj.apply(lambda t: t.half() if t.is_floating_point() else t)
    sub = traj[1:3]
    picked = traj[torch.tensor([0, 3], device=device)]
    flat = traj.flatten_keys()
    returns = traj["next"]["reward"].flip(0).cumsum(0).flip(0)
    pinned = traj.apply(lambda t: t.cpu().clone())
    return {"batch": list(traj.batch_size), "keys": sorted(flat), "shapes": {k: list(v.shape) for k, v in flat.items()},
            "dtypes": {k: str(v.dtype) for k, v in half.flatten_keys().items()},
            "devices": sorted({v.device.type == torch.device(device).type for v in flat.values()}), "sub": list(sub.batch_size),
            "picked": picked["action"].tolist(), "returns": returns.flatten().tolist(),
            "done": traj["next"]["done"].flatten().tolist(), "pinned": sorted({v.device.type for v in
                                                                               pinned.flatten_keys().values()}),
            "size_type": type(traj.batch_size).__name__}


# ---- torch.utils._pytree over nested model outputs, with a registered node type ----------------------------------
def pytree_nested_outputs(torch, device):
    pytree = torch.utils._pytree

    @dataclasses.dataclass
    class Detections:
        boxes: object
        scores: object
        label: str = "det"

    pytree.register_pytree_node(
        Detections,
        lambda d: ([d.boxes, d.scores], d.label),
        lambda children, ctx: Detections(children[0], children[1], ctx),
        serialized_type_name="sweep13.Detections",
        flatten_with_keys_fn=lambda d: ([(pytree.GetAttrKey("boxes"), d.boxes), (pytree.GetAttrKey("scores"), d.scores)],
                                        d.label))

    rng = np.random.default_rng(1334)

    def t(*shape):
        return torch.tensor(rng.standard_normal(shape), dtype=torch.float32, device=device)

    outputs = {"logits": t(2, 3), "aux": [t(2), (t(1, 2), None, 3.5)],
               "dets": Detections(t(2, 4), t(2)), "meta": OrderedDict(step=4, name="x")}
    leaves, spec = pytree.tree_flatten(outputs)
    doubled = pytree.tree_map(lambda x: x * 2 if isinstance(x, torch.Tensor) else x, outputs)
    only_tensors = pytree.tree_map_only(torch.Tensor, lambda x: x.sum().item(), outputs)
    rebuilt = pytree.tree_unflatten(leaves, spec)
    detached = pytree.tree_map_only(torch.Tensor, lambda x: x.detach().cpu(), outputs)
    flat_tensors = [x for x in pytree.tree_leaves(outputs) if isinstance(x, torch.Tensor)]
    # naming each logged value after its place in the output, as metric loggers do
    named = {pytree.keystr(path): round(float(v.sum()), 4) if isinstance(v, torch.Tensor) else v
             for path, v in pytree.tree_flatten_with_path(outputs)[0]}
    norms = pytree.tree_map_with_path(lambda path, v: (len(path), v.norm().item()) if isinstance(v, torch.Tensor)
                                      else None, {"w": outputs["logits"], "b": [outputs["aux"][0]]})

    @dataclasses.dataclass
    class Stats:
        mean: object
        std: object
        count: int = 0

    pytree.register_dataclass(Stats, field_names=["mean", "std"], drop_field_names=["count"])
    stats = Stats(outputs["logits"].mean(0), None, 3)
    stats_leaves, stats_spec = pytree.tree_flatten(stats)
    rebuilt_stats = pytree.tree_unflatten([stats_leaves[0] * 0], stats_spec)
    stat_paths = [pytree.keystr(p) for p, _ in pytree.tree_leaves_with_path(stats)]
    structure_eq = pytree.tree_structure(doubled) == spec
    any_big = pytree.tree_any(lambda x: isinstance(x, float) and x > 3, outputs)
    all_tensor = pytree.tree_all_only(torch.Tensor, lambda x: x.dim() >= 1, outputs)
    return {"n_leaves": len(leaves), "leaf_types": [type(x).__name__ for x in leaves],
            "num_leaves": spec.num_leaves, "doubled": round(doubled["dets"].boxes.sum().item(), 5),
            "only": _rounded(pytree.tree_leaves(only_tensors)[:3]),
            "rebuilt": [type(rebuilt["dets"]).__name__, rebuilt["dets"].label, type(rebuilt["meta"]).__name__,
                        rebuilt["aux"][1][1] is None, type(rebuilt["aux"][1]).__name__],
            "detached_devices": sorted({x.device.type for x in pytree.tree_leaves(detached)
                                        if isinstance(x, torch.Tensor)}),
            "n_tensors": len(flat_tensors), "structure_eq": structure_eq, "any": any_big, "all": all_tensor,
            "named": named, "norms": {k: [v[0], round(v[1], 5)] if k == "w" else [[v[0][0], round(v[0][1], 5)]]
                                      for k, v in norms.items()},
            "stats": [len(stats_leaves), rebuilt_stats.std, rebuilt_stats.count, stat_paths,
                      rebuilt_stats.mean.abs().sum().item()]}


# ---- dataclasses and namedtuples of tensors through default_collate / default_convert -----------------------------
def dataclass_default_collate(torch, device):
    data = torch.utils.data
    Sample = namedtuple("Sample", ["image", "label", "meta"])

    @dataclasses.dataclass
    class Batch:
        images: object
        labels: object

        def to(self, dev):
            return dataclasses.replace(self, images=self.images.to(dev), labels=self.labels.to(dev))

        def pin_memory(self):
            return self

    class Images(data.Dataset):
        def __init__(self, n):
            rng = np.random.default_rng(1335)
            self.x = rng.standard_normal((n, 2, 3)).astype(np.float32)
            self.y = rng.integers(0, 5, n)

        def __len__(self):
            return len(self.y)

        def __getitem__(self, i):
            return Sample(torch.from_numpy(self.x[i]), int(self.y[i]), {"id": i, "scale": np.float32(0.5),
                                                                        "tags": ["a", str(i)]})

    collate = data.default_collate
    loader = data.DataLoader(Images(5), batch_size=2)
    first = next(iter(loader))

    def to_batch(samples):
        s = collate(samples)
        return Batch(s.image, s.label)

    batches = [b.to(device) for b in data.DataLoader(Images(5), batch_size=2, collate_fn=to_batch)]
    numpy_batch = collate([np.arange(3), np.arange(3) * 2])
    converted = data.default_convert({"a": np.ones(2, dtype=np.float64), "b": [np.int64(3)], "c": "s"})
    nested = collate([{"x": (1.5, torch.tensor([1])), "y": True}, {"x": (2.5, torch.tensor([2])), "y": False}])
    try:
        collate([torch.zeros(2), torch.zeros(3)])
        err = None
    except RuntimeError as exc:
        err = str(exc)
    try:
        collate([object(), object()])
        type_err = None
    except TypeError as exc:
        type_err = str(exc).split(";")[0].split("found")[0]
    return {"type": type(first).__name__, "fields": list(first._fields), "image": list(first.image.shape),
            "label": [first.label.tolist(), str(first.label.dtype)],
            "meta": [first.meta["id"].tolist(), str(first.meta["scale"].dtype), first.meta["tags"]],
            "batches": [[type(b).__name__, list(b.images.shape), b.labels.device.type == torch.device(device).type] for b in batches],
            "numpy": [numpy_batch.tolist(), str(numpy_batch.dtype)],
            "converted": [type(converted["a"]).__name__, str(converted["a"].dtype), type(converted["b"][0]).__name__,
                          converted["c"]],
            "nested": [nested["x"][0].tolist(), str(nested["x"][0].dtype), nested["x"][1].tolist(),
                       nested["y"].tolist(), str(nested["y"].dtype)],
            "err": err, "type_err": type_err}


PROGRAMS = [einops_style_rearrange, metatensor_subclass, units_and_logging_subclasses, tensordict_like,
            pytree_nested_outputs, dataclass_default_collate]
NEEDS_CPP = {}
