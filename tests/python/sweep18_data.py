"""Sweep 18 programs, data pipelines: pandas DataFrames turned into tensors (categorical codes, normalisation,
TensorDataset), the samplers of torch.utils.data (WeightedRandomSampler, SubsetRandomSampler, BatchSampler,
RandomSampler with replacement/num_samples/generator, DistributedSampler with explicit ranks), random_split by
fractions, ConcatDataset/ChainDataset/IterableDataset/StackDataset composition, and collation (custom collate_fn
returning dicts and namedtuples, default_collate and default_convert of nested structures, DataLoader options), all
with num_workers=0. Where a sampler draws from the library's generator, only what does not depend on the stream is
returned (lengths, ranges, set relations, reproducibility under one seed)."""
import collections

import numpy as np

from sweep15_common import cases, plain


def _frame():
    import pandas as pd
    rng = np.random.default_rng(1950)
    n = 12
    return pd.DataFrame({
        "age": rng.integers(18, 70, n).astype("int64"),
        "income": rng.normal(50_000, 12_000, n).round(2),
        "city": pd.Categorical(rng.choice(["oslo", "lima", "pune"], n), categories=["lima", "oslo", "pune"]),
        "member": rng.random(n) > 0.5,
        "score": rng.random(n).astype("float32"),
    })


# ---- pandas to tensors: numeric columns, categorical codes, one-hot, standardisation, a TensorDataset loader -------
def pandas_to_tensors(torch, device):
    df = _frame()
    num = torch.tensor(df[["age", "income"]].values, dtype=torch.float32, device=device)
    mean, std = num.mean(0), num.std(0)
    normed = (num - mean) / std
    codes = torch.from_numpy(df["city"].cat.codes.to_numpy().astype("int64")).to(device)
    onehot = torch.nn.functional.one_hot(codes, num_classes=len(df["city"].cat.categories))
    member = torch.as_tensor(df["member"].to_numpy(), device=device)
    score = torch.from_numpy(df["score"].to_numpy())
    ages = torch.tensor(df["age"].to_numpy())
    features = torch.cat([normed, onehot.float(), member.float().unsqueeze(1)], 1)
    ds = torch.utils.data.TensorDataset(features, score.to(device))
    loader = torch.utils.data.DataLoader(ds, batch_size=5, shuffle=False, drop_last=True)
    batches = [[list(x.shape), str(x.dtype), plain(torch, y)] for x, y in loader]
    back = normed.cpu().numpy()
    return {"normed": plain(torch, normed[:4]), "codes": codes.tolist(), "onehot_dtype": str(onehot.dtype),
            "member_dtype": str(member.dtype), "score_dtype": str(score.dtype), "ages_dtype": str(ages.dtype),
            "batches": batches, "len": [len(ds), len(loader)], "numpy_back": [str(back.dtype), list(back.shape)],
            "mismatch": cases(torch, {"size": lambda: torch.utils.data.TensorDataset(features, score[:3])})}


# ---- samplers: weighted, subset, batch, random with replacement and num_samples, sequential, distributed ------------
def samplers(torch, device):
    data = torch.utils.data
    weights = torch.tensor([0.1, 0.0, 0.5, 0.4, 0.0, 1.0])

    def draw(make, seed):
        g = torch.Generator()
        g.manual_seed(seed)
        return list(make(g))

    weighted = draw(lambda g: data.WeightedRandomSampler(weights, 20, replacement=True, generator=g), 0)
    no_repl = draw(lambda g: data.WeightedRandomSampler(weights, 4, replacement=False, generator=g), 1)
    subset = draw(lambda g: data.SubsetRandomSampler([3, 7, 11, 20], generator=g), 2)
    rand_repl = draw(lambda g: data.RandomSampler(range(10), replacement=True, num_samples=25, generator=g), 3)
    rand_more = draw(lambda g: data.RandomSampler(range(4), num_samples=10, generator=g), 4)
    again = draw(lambda g: data.RandomSampler(range(10), replacement=True, num_samples=25, generator=g), 3)
    batches = list(data.BatchSampler(data.SequentialSampler(range(10)), batch_size=4, drop_last=False))
    dropped = list(data.BatchSampler(range(10), batch_size=4, drop_last=True))
    dist = [list(data.distributed.DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=False))
            for r in range(3)]
    dist_drop = [list(data.distributed.DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=False,
                                                          drop_last=True)) for r in range(3)]
    shuffled = data.distributed.DistributedSampler(range(10), num_replicas=2, rank=0, shuffle=True, seed=5)
    shuffled.set_epoch(1)
    epoch1 = list(shuffled)
    loader = data.DataLoader(range(10), batch_sampler=data.BatchSampler(range(10), 3, False))
    return {"weighted": [len(weighted), set(weighted) <= {0, 2, 3, 5}],
            "no_repl": [len(no_repl), len(set(no_repl)), set(no_repl) <= {0, 2, 3, 5}],
            "subset": sorted(subset), "rand_repl": [len(rand_repl), min(rand_repl) >= 0, max(rand_repl) < 10,
                                                     rand_repl == again],
            "rand_more": [len(rand_more), sorted(set(rand_more))],
            "lens": [len(data.WeightedRandomSampler(weights, 7)), len(data.RandomSampler(range(5))),
                     len(data.BatchSampler(range(10), 4, False)), len(data.BatchSampler(range(10), 4, True))],
            "batches": batches, "dropped": dropped, "dist": dist, "dist_drop": dist_drop,
            "epoch1": [len(epoch1), set(epoch1) <= set(range(10))], "loader": [b.tolist() for b in loader],
            "errors": cases(torch, {
                "num_samples": lambda: data.RandomSampler(range(3), num_samples=0),
                "replacement_type": lambda: data.RandomSampler(range(3), replacement=1),
                "weighted_too_many": lambda: list(data.WeightedRandomSampler([0.5, 0.5], 3, replacement=False)),
                "weighted_shape": lambda: data.WeightedRandomSampler(torch.ones(2, 2), 3),
                "batch_size": lambda: data.BatchSampler(range(3), 0, False),
                "drop_last_type": lambda: data.BatchSampler(range(3), 2, "no"),
                "rank": lambda: data.distributed.DistributedSampler(range(3), num_replicas=2, rank=2),
                "batch_and_shuffle": lambda: data.DataLoader(range(4), batch_sampler=[[0, 1]], shuffle=True),
                "sampler_and_shuffle": lambda: data.DataLoader(range(4), sampler=[0, 1], shuffle=True),
            })}


# ---- random_split by fractions with a generator, Subset bookkeeping, nested subsets ----------------------------------
def random_split_fractions(torch, device):
    data = torch.utils.data
    xs = torch.arange(20, device=device).float()
    ds = data.TensorDataset(xs, xs * 2)
    g = torch.Generator().manual_seed(42)
    train, val, test = data.random_split(ds, [0.7, 0.2, 0.1], generator=g)
    odd = data.random_split(range(11), [0.5, 0.5], generator=torch.Generator().manual_seed(0))
    thirds = data.random_split(range(10), [1 / 3, 1 / 3, 1 / 3], generator=torch.Generator().manual_seed(0))
    counts = data.random_split(range(10), [3, 7], generator=torch.Generator().manual_seed(1))
    repeat = data.random_split(range(10), [3, 7], generator=torch.Generator().manual_seed(1))
    all_idx = sorted(train.indices + val.indices + test.indices)
    inner = data.Subset(train, [0, 1, 2])
    x0, y0 = inner[1]
    loader = data.DataLoader(train, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(3))
    seen = sorted(int(v) for xb, _ in loader for v in xb.tolist())
    return {"lens": [len(train), len(val), len(test)], "odd": [len(s) for s in odd],
            "thirds": [len(s) for s in thirds], "all": all_idx == list(range(20)),
            "repeat": list(counts[0]) == list(repeat[0]), "types": [type(train).__name__, type(train.indices).__name__],
            "inner": [float(y0) == 2 * float(x0), float(x0) == float(train.indices[inner.indices[1]]),
                      y0.device == xs.device], "seen": seen == sorted(int(i) for i in train.indices),
            "errors": cases(torch, {
                "bad_sum": lambda: data.random_split(range(10), [3, 3]),
                "bad_fraction": lambda: data.random_split(range(10), [0.5, 0.6]),
                "negative": lambda: data.random_split(range(10), [1.2, -0.2]),
            })}


# ---- dataset composition: ConcatDataset, ChainDataset, IterableDataset in a DataLoader, StackDataset -----------------
def dataset_composition(torch, device):
    data = torch.utils.data

    class Squares(data.Dataset):
        def __init__(self, n, offset):
            self.n, self.offset = n, offset

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            if i >= self.n:
                raise IndexError(i)
            v = self.offset + i
            return torch.tensor([v, v * v], dtype=torch.float32, device=device)

    class Stream(data.IterableDataset):
        def __init__(self, start, stop):
            self.start, self.stop = start, stop

        def __iter__(self):
            info = data.get_worker_info()
            assert info is None
            for i in range(self.start, self.stop):
                yield {"x": torch.full((2,), float(i), device=device), "i": i}

    concat = data.ConcatDataset([Squares(3, 0), Squares(4, 10), Squares(2, 100)])
    items = [concat[i].tolist() for i in (0, 2, 3, 6, 7, -1, -4)]
    chain = data.ChainDataset([Stream(0, 3), Stream(10, 12)])
    streamed = [b["i"].tolist() for b in data.DataLoader(chain, batch_size=2)]
    stacked_x = [b["x"].shape for b in data.DataLoader(chain, batch_size=2, drop_last=True)]
    added = Squares(2, 0) + Squares(1, 5)
    stack = data.StackDataset(Squares(3, 0), torch.arange(3))
    stack_kw = data.StackDataset(a=Squares(3, 0), b=list("xyz"))
    stream_sum = Stream(0, 2) + Stream(5, 6)
    loader = data.DataLoader(concat, batch_size=4, shuffle=False)
    return {"cumulative": concat.cumulative_sizes, "items": items, "len": len(concat), "streamed": streamed,
            "stacked": [list(s) for s in stacked_x], "added": [type(added).__name__, len(added)],
            "stack": [plain(torch, v) for v in stack[1]],
            "stack_kw": {k: plain(torch, v) for k, v in stack_kw[2].items()},
            "stack_len": len(stack), "stream_sum": [type(stream_sum).__name__, [d["i"] for d in stream_sum]],
            "loader": [plain(torch, b) for b in loader],
            "errors": cases(torch, {
                "concat_empty": lambda: data.ConcatDataset([]),
                "concat_iterable": lambda: data.ConcatDataset([Stream(0, 1)]),
                "index_out": lambda: concat[9],
                "neg_out": lambda: concat[-10],
                "chain_len": lambda: len(chain),
                "stack_mismatch": lambda: data.StackDataset(Squares(3, 0), torch.arange(2)),
                "stack_mixed": lambda: data.StackDataset(Squares(3, 0), b=torch.arange(3)),
                "iterable_shuffle": lambda: data.DataLoader(Stream(0, 2), shuffle=True),
            })}


# ---- collation: dict- and namedtuple-returning collate_fns, default_collate/default_convert on nested values -------
def collation(torch, device):
    data = torch.utils.data
    Sample = collections.namedtuple("Sample", ["image", "label", "meta"])

    class Records(data.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return Sample(torch.full((2, 2), float(i)), i % 3, {"name": f"r{i}", "weight": 0.5 * i,
                                                                "flags": (i % 2 == 0, np.int64(i))})

    batch = next(iter(data.DataLoader(Records(), batch_size=3)))

    def pad_collate(items):
        lengths = torch.tensor([len(t) for t, _ in items])
        padded = torch.nn.utils.rnn.pad_sequence([t for t, _ in items], batch_first=True, padding_value=-1)
        return {"tokens": padded, "lengths": lengths, "labels": torch.tensor([y for _, y in items])}

    seqs = [(torch.arange(n) + 1, n % 2) for n in (3, 1, 4, 2, 5)]
    padded = list(data.DataLoader(seqs, batch_size=2, collate_fn=pad_collate))
    Pair = collections.namedtuple("Pair", "a b")
    dc = data.default_collate
    nested = dc([{"a": (1, 2.5), "b": [np.array([1, 2]), torch.tensor(3)]}, {"a": (3, 4.5), "b": [np.array([3, 4]),
                                                                                                  torch.tensor(4)]}])
    conv = data.default_convert({"x": np.arange(3.0), "y": [np.float32(2.0), "s"], "p": Pair(np.ones(2), 1)})
    no_batch = list(data.DataLoader(torch.arange(6).view(3, 2), batch_size=None))
    pinned = next(iter(data.DataLoader(torch.arange(4.0), batch_size=2, pin_memory=False)))
    return {"batch_type": type(batch).__name__, "image": plain(torch, batch.image[:, 0, 0]),
            "label": plain(torch, batch.label), "name": batch.meta["name"],
            "weight": plain(torch, batch.meta["weight"]),
            "flags": [plain(torch, f) for f in batch.meta["flags"]],
            "padded": [{k: plain(torch, v) for k, v in b.items()} for b in padded],
            "nested_a": [plain(torch, v) for v in nested["a"]], "nested_b": [plain(torch, v) for v in nested["b"]],
            "pair": type(dc([Pair(1, 2.0), Pair(3, 4.0)])).__name__,
            "pair_vals": [plain(torch, v) for v in dc([Pair(1, 2.0), Pair(3, 4.0)])],
            "strings": dc(["a", "b"]), "bools": plain(torch, dc([True, False])),
            "conv": [plain(torch, conv["x"]), plain(torch, conv["y"][0]), conv["y"][1], type(conv["p"]).__name__,
                     plain(torch, conv["p"].a)],
            "no_batch": [plain(torch, b) for b in no_batch], "pinned": [plain(torch, pinned), pinned.is_pinned()],
            "errors": cases(torch, {
                "ragged": lambda: dc([torch.zeros(3), torch.zeros(4)]),
                "ragged_np": lambda: dc([np.zeros(3), np.zeros(4)]),
                "object": lambda: dc([object(), object()]),
                "np_str": lambda: dc([np.array(["a"]), np.array(["b"])]),
                "uneven_lists": lambda: dc([[1, 2], [3]]),
            })}


# ---- a DataLoader training pipeline: generator-seeded shuffling, len, epochs, worker_init_fn unused, prefetch ------
def loader_pipeline(torch, device):
    data = torch.utils.data
    rng = np.random.default_rng(1960)
    x = torch.tensor(rng.standard_normal((23, 4)), dtype=torch.float32)
    y = (x.sum(1) > 0).long()
    ds = data.TensorDataset(x, y)
    calls = []
    loader = data.DataLoader(ds, batch_size=5, shuffle=True, drop_last=True,
                             generator=torch.Generator().manual_seed(7), worker_init_fn=lambda i: calls.append(i))
    first = [yb.tolist() for _, yb in loader]
    second = [yb.tolist() for _, yb in loader]
    loader2 = data.DataLoader(ds, batch_size=5, shuffle=True, drop_last=True,
                              generator=torch.Generator().manual_seed(7))
    again = [yb.tolist() for _, yb in loader2]
    model = torch.nn.Linear(4, 2).to(device)
    with torch.no_grad():
        model.weight.copy_(torch.tensor(rng.uniform(-0.5, 0.5, (2, 4))))
        model.bias.zero_()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    seq = data.DataLoader(ds, batch_size=6)
    losses = []
    for _ in range(2):
        for xb, yb in seq:
            xb, yb = xb.to(device, non_blocking=True), yb.to(device)
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    it = iter(seq)
    next(it)
    return {"len": [len(loader), len(seq), len(data.DataLoader(ds, batch_size=6, drop_last=True))],
            "epochs_differ": first != second, "reproducible": first == again,
            "sizes": [len(b) for b in first], "calls": calls, "losses": losses,
            "iter_type": type(it).__name__, "remaining": len(list(it)),
            "attrs": [loader.batch_size, loader.drop_last, loader.num_workers, type(loader.sampler).__name__,
                      type(seq.sampler).__name__, type(loader.batch_sampler).__name__],
            "errors": cases(torch, {
                "neg_workers": lambda: data.DataLoader(ds, num_workers=-1),
                "prefetch_no_workers": lambda: data.DataLoader(ds, prefetch_factor=2),
                "persistent_no_workers": lambda: data.DataLoader(ds, persistent_workers=True),
                "timeout": lambda: data.DataLoader(ds, timeout=-1),
                "batch_size_and_sampler": lambda: data.DataLoader(ds, batch_size=2,
                                                                  batch_sampler=data.BatchSampler(range(3), 2, False)),
            })}


PROGRAMS = [pandas_to_tensors, samplers, random_split_fractions, dataset_composition, collation, loader_pipeline]
NEEDS_CPP = {}


# ---- batched fetching and custom collation: __getitems__, Subset of it, collate with a collate_fn_map, a bucketing
# ---- Sampler subclass, a map-style dict dataset with batch_size=None ----------------------------------------------
def batched_fetch(torch, device):
    data = torch.utils.data
    collate_mod = data._utils.collate
    calls = []

    class Table(data.Dataset):
        def __init__(self, n):
            self.x = torch.arange(n * 2, dtype=torch.float32).view(n, 2)

        def __len__(self):
            return len(self.x)

        def __getitem__(self, i):
            calls.append(("item", i))
            return self.x[i]

        def __getitems__(self, idx):
            calls.append(("items", list(idx)))
            return list(self.x[torch.tensor(idx)])

    table = Table(7)
    batches = [b.tolist() for b in data.DataLoader(table, batch_size=3)]
    sub = data.Subset(table, [6, 0, 2, 4])
    sub_batches = [b.tolist() for b in data.DataLoader(sub, batch_size=3)]
    fetched = sub.__getitems__([0, 1])

    class Point:
        def __init__(self, x, y):
            self.x, self.y = x, y

    def collate_point(batch, *, collate_fn_map=None):
        return torch.tensor([[p.x, p.y] for p in batch])

    fn_map = {**collate_mod.default_collate_fn_map, Point: collate_point}
    collated = collate_mod.collate([{"p": Point(1, 2), "w": 0.5}, {"p": Point(3, 4), "w": 1.5}],
                                   collate_fn_map=fn_map)

    class BucketSampler(data.Sampler):
        """Batches of indices of similar lengths, longest bucket first."""

        def __init__(self, lengths, batch_size):
            self.lengths = torch.as_tensor(lengths)
            self.batch_size = batch_size

        def __iter__(self):
            order = torch.argsort(self.lengths, descending=True, stable=True)
            for chunk in torch.split(order, self.batch_size):
                yield chunk.tolist()

        def __len__(self):
            return (len(self.lengths) + self.batch_size - 1) // self.batch_size

    lengths = [3, 7, 2, 5, 7, 1, 4]
    seqs = [torch.arange(n) for n in lengths]
    bucket_loader = data.DataLoader(seqs, batch_sampler=BucketSampler(lengths, 3),
                                    collate_fn=lambda b: torch.nn.utils.rnn.pad_sequence(b, batch_first=True))
    shapes = [list(b.shape) for b in bucket_loader]

    class Records(data.Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return {"id": i, "feat": np.full(2, i, dtype=np.float32), "tag": f"t{i}"}

    unbatched = list(data.DataLoader(Records(), batch_size=None))
    np_types = data.default_collate([np.int32(3), np.int32(4)])
    np_float = data.default_collate([np.float16(1.5), np.float16(2.5)])
    np_bool = data.default_collate([np.bool_(True), np.bool_(False)])
    np_arr = data.default_collate([np.array([1, 2], dtype=np.uint8), np.array([3, 4], dtype=np.uint8)])
    return {"batches": batches, "calls": [c for c in calls if c[0] == "items"][:3],
            "item_calls": sum(c[0] == "item" for c in calls), "sub": sub_batches, "fetched": plain(torch, fetched),
            "collated": [plain(torch, collated["p"]), plain(torch, collated["w"])], "shapes": shapes,
            "bucket_len": len(bucket_loader),
            "unbatched": [[type(r["id"]).__name__, plain(torch, r["feat"]), r["tag"]] for r in unbatched],
            "np": [plain(torch, np_types), plain(torch, np_float), plain(torch, np_bool), plain(torch, np_arr)],
            "errors": cases(torch, {"no_fn": lambda: collate_mod.collate([Point(1, 2)], collate_fn_map=None),
                                    "no_len": lambda: len(data.DataLoader(_Endless(torch)))})}


def _Endless(torch):
    class Endless(torch.utils.data.IterableDataset):
        def __iter__(self):
            yield 1

    return Endless()


PROGRAMS += [batched_fetch]
