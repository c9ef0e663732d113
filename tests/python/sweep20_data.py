"""Sweep 20 programs, data-loading idioms: a sharded IterableDataset reading get_worker_info (num_workers=0) with
a ChainDataset and a buffered shuffle, a variable-length text pipeline with a custom collate_fn over pad_sequence,
pack_padded_sequence and a length-bucketing BatchSampler, default_collate of dicts, namedtuples, NumPy arrays and
scalars, seeded samplers (WeightedRandomSampler, SubsetRandomSampler, RandomSampler with replacement and
num_samples) reproducible through a Generator, and dataset composition (random_split with fractions,
ConcatDataset, Subset, TensorDataset indexed with tensors and slices) and what DataLoader, samplers and collate
refuse.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep20.py). Programs that draw from a generator return only what does not depend on its stream
(sizes, set relations, reproducibility under one seed)."""
import collections

import numpy as np

from sweep15_common import cases
from test_programs_sweeputil import rounded as _r


# ---- a sharded IterableDataset ---------------------------------------------------------------------------------------
def sharded_iterable_dataset(torch, device):
    data = torch.utils.data

    class Shards(data.IterableDataset):
        def __init__(self, start, end):
            super().__init__()
            self.start, self.end = start, end

        def __iter__(self):
            info = data.get_worker_info()
            if info is None:
                lo, hi = self.start, self.end
            else:  # split the range between workers
                per = -(-(self.end - self.start) // info.num_workers)
                lo = self.start + info.id * per
                hi = min(lo + per, self.end)
            for i in range(lo, hi):
                yield {"x": torch.full((2,), float(i)), "y": i % 3}

    class Shuffled(data.IterableDataset):
        def __init__(self, source, buffer, seed):
            self.source, self.buffer, self.seed = source, buffer, seed

        def __iter__(self):
            rng = np.random.default_rng(self.seed)
            buf = []
            for item in self.source:
                buf.append(item)
                if len(buf) == self.buffer:
                    yield buf.pop(int(rng.integers(len(buf))))
            while buf:
                yield buf.pop(int(rng.integers(len(buf))))

    chained = data.ChainDataset([Shards(0, 5), Shards(10, 13)])
    loader = data.DataLoader(Shuffled(chained, 3, 0), batch_size=3, num_workers=0)
    batches = [[b["x"][:, 0].tolist(), b["y"].tolist()] for b in loader]
    drop = data.DataLoader(Shards(0, 7), batch_size=3, drop_last=True)
    errs = cases(torch, {
        "len": lambda: len(data.DataLoader(Shards(0, 4))),
        "shuffle": lambda: data.DataLoader(Shards(0, 4), shuffle=True),
        "sampler": lambda: data.DataLoader(Shards(0, 4), sampler=[0, 1]),
        "chain_len": lambda: len(chained),
        "worker_info": lambda: data.get_worker_info(),
    })
    moved = [b["x"].to(device).sum().item() for b in data.DataLoader(Shards(0, 4), batch_size=2)]
    return {"batches": batches, "drop": [len(list(drop)), [b["y"].tolist() for b in drop]], "errs": errs,
            "moved": moved, "is_iterable": isinstance(chained, data.IterableDataset)}


# ---- variable-length text batches: collate_fn with pad_sequence and a bucketing sampler ------------------------------
def padded_text_batches(torch, device):
    data = torch.utils.data
    rnn_utils = torch.nn.utils.rnn
    rng = np.random.default_rng(2500)
    seqs = [rng.integers(1, 20, size=int(n)).tolist() for n in rng.integers(2, 9, size=14)]
    labels = [int(v) for v in rng.integers(0, 2, size=14)]

    class Text(data.Dataset):
        def __len__(self):
            return len(seqs)

        def __getitem__(self, i):
            return torch.tensor(seqs[i]), labels[i]

    def collate(batch):
        toks, ys = zip(*batch)
        lengths = torch.tensor([len(t) for t in toks])
        padded = rnn_utils.pad_sequence(toks, batch_first=True, padding_value=0)
        return padded, lengths, torch.tensor(ys)

    class Buckets(data.Sampler):
        def __init__(self, lengths, batch_size):
            self.order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
            self.batch_size = batch_size

        def __iter__(self):
            for k in range(0, len(self.order), self.batch_size):
                yield self.order[k:k + self.batch_size]

        def __len__(self):
            return -(-len(self.order) // self.batch_size)

    loader = data.DataLoader(Text(), batch_sampler=Buckets([len(s) for s in seqs], 4), collate_fn=collate)
    emb = torch.nn.Embedding(20, 3, padding_idx=0).to(device)
    with torch.no_grad():
        emb.weight.copy_(torch.tensor(np.random.default_rng(2501).uniform(-1, 1, (20, 3)), dtype=torch.float32))
        emb.weight[0].zero_()
    gru = torch.nn.GRU(3, 4, batch_first=True).to(device)
    with torch.no_grad():
        for i, p in enumerate(gru.parameters()):
            p.copy_(torch.tensor(np.random.default_rng(2502 + i).uniform(-0.5, 0.5, tuple(p.shape)),
                                 dtype=torch.float32))
    out = []
    for padded, lengths, ys in loader:
        packed = rnn_utils.pack_padded_sequence(emb(padded.to(device)), lengths, batch_first=True,
                                                enforce_sorted=False)
        _, h = gru(packed)
        unpacked, lens = rnn_utils.pad_packed_sequence(gru(packed)[0], batch_first=True, total_length=9)
        out.append([list(padded.shape), lengths.tolist(), ys.tolist(), _r(h.sum(), 4), list(unpacked.shape),
                    lens.tolist()])
    bs = data.BatchSampler(data.SequentialSampler(range(10)), batch_size=4, drop_last=False)
    packed_seq = rnn_utils.pack_sequence([torch.tensor([1, 2, 3]), torch.tensor([4, 5])], enforce_sorted=True)
    return {"batches": out, "n": len(loader), "batch_sampler": list(bs), "bs_len": len(bs),
            "packed": [packed_seq.data.tolist(), packed_seq.batch_sizes.tolist()],
            "unpad": [t.tolist() for t in rnn_utils.unpad_sequence(
                rnn_utils.pad_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])]), torch.tensor([3, 1]))],
            "left_pad": rnn_utils.pad_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])], batch_first=True,
                                               padding_side="left").tolist()}


# ---- default_collate of structured samples ---------------------------------------------------------------------------
def default_collate_structures(torch, device):
    data = torch.utils.data
    collate = data.default_collate
    Point = collections.namedtuple("Point", ["xy", "label"])

    def plainly(v):
        if isinstance(v, torch.Tensor):
            return [str(v.dtype), list(v.shape), v.tolist()]
        if isinstance(v, dict):
            return {k: plainly(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [type(v).__name__, [plainly(x) for x in v]]
        return [type(v).__name__, v]

    table = {
        "dicts": lambda: plainly(collate([{"a": 1, "b": np.array([1.0, 2.0]), "c": "s"},
                                          {"a": 2, "b": np.array([3.0, 4.0]), "c": "t"}])),
        "namedtuple": lambda: plainly(collate([Point(np.float32(1.5), 0), Point(np.float32(2.5), 1)])),
        "nt_type": lambda: type(collate([Point(1, 2), Point(3, 4)])).__name__,
        "numpy_ints": lambda: plainly(collate([np.int32(3), np.int32(4)])),
        "numpy_arrays_int": lambda: plainly(collate([np.arange(3), np.arange(3, 6)])),
        "bools": lambda: plainly(collate([True, False])),
        "floats": lambda: plainly(collate([1.5, 2.5])),
        "nested": lambda: plainly(collate([([1, 2], {"k": np.ones(2, dtype=np.float16)}),
                                           ([3, 4], {"k": np.zeros(2, dtype=np.float16)})])),
        "tensors": lambda: plainly(collate([torch.tensor([1, 2]), torch.tensor([3, 4])])),
        "bad_sizes": lambda: collate([torch.ones(2), torch.ones(3)]),
        "bad_object": lambda: collate([np.array(["a"], dtype=object), np.array(["b"], dtype=object)]),
        "ragged_lists": lambda: collate([[1, 2], [3]]),
        "none": lambda: collate([None, None]),
        "convert": lambda: plainly(data.default_convert({"a": np.arange(2), "b": [np.float64(1.0)]})),
        "loader_dict": lambda: plainly(next(iter(data.DataLoader(
            [{"x": np.arange(2.0), "y": i} for i in range(4)], batch_size=4)))),
    }
    return cases(torch, table)


# ---- seeded samplers -------------------------------------------------------------------------------------------------
def seeded_samplers(torch, device):
    data = torch.utils.data

    def draw(make):
        g = torch.Generator().manual_seed(3)
        a = list(make(g))
        g2 = torch.Generator().manual_seed(3)
        b = list(make(g2))
        return a, b

    w = [0.0, 0.0, 1.0, 3.0, 0.0, 6.0]
    wa, wb = draw(lambda g: data.WeightedRandomSampler(w, 40, replacement=True, generator=g))
    na, nb = draw(lambda g: data.WeightedRandomSampler(w, 3, replacement=False, generator=g))
    sa, sb = draw(lambda g: data.SubsetRandomSampler([5, 7, 9, 11], generator=g))
    ra, rb = draw(lambda g: data.RandomSampler(range(5), replacement=True, num_samples=12, generator=g))
    pa, pb = draw(lambda g: data.RandomSampler(range(7), generator=g))
    la, lb = draw(lambda g: [b.tolist() for b in data.DataLoader(torch.arange(10), batch_size=4, shuffle=True,
                                                                  generator=g)])
    def made(make):
        return lambda: type(make()).__name__

    errs = cases(torch, {
        "neg_weight": made(lambda: data.WeightedRandomSampler([1.0, -1.0], 2)),
        "too_many": lambda: [sorted(v[:2]) for v in [list(data.WeightedRandomSampler([1.0, 0.0, 1.0], 3,
                                                                                    replacement=False))]],
        "bad_num": made(lambda: data.WeightedRandomSampler([1.0], 0)),
        "bad_replacement": made(lambda: data.RandomSampler(range(3), replacement=1)),
        "bad_num_samples": made(lambda: data.RandomSampler(range(3), num_samples=0)),
        "sampler_and_shuffle": made(lambda: data.DataLoader(range(4), sampler=[0, 1], shuffle=True)),
        "batch_sampler_conflict": made(lambda: data.DataLoader(range(4), batch_sampler=[[0, 1]], batch_size=2)),
        "bad_batch_size": made(lambda: data.BatchSampler(range(4), 0, False)),
        "weights_2d": made(lambda: data.WeightedRandomSampler([[1.0, 2.0]], 2)),
    })
    return {"weighted": [wa == wb, sorted(set(wa)) <= [2, 3, 5], len(wa)], "no_repl": [na == nb, sorted(na)],
            "subset": [sa == sb, sorted(sa)], "random": [ra == rb, len(ra), all(0 <= i < 5 for i in ra)],
            "perm": [pa == pb, sorted(pa)], "loader": [la == lb, sorted(sum(la, [])), [len(b) for b in la]],
            "errs": errs}


# ---- dataset composition ---------------------------------------------------------------------------------------------
def dataset_composition(torch, device):
    data = torch.utils.data
    xs = torch.arange(20.0).view(10, 2)
    ys = torch.arange(10) % 3
    ds = data.TensorDataset(xs, ys)
    g = torch.Generator().manual_seed(0)
    parts = data.random_split(ds, [0.7, 0.2, 0.1], generator=g)
    g = torch.Generator().manual_seed(0)
    again = data.random_split(ds, [0.7, 0.2, 0.1], generator=g)
    odd = data.random_split(range(11), [0.5, 0.5], generator=torch.Generator().manual_seed(1))
    concat = data.ConcatDataset([ds, data.Subset(ds, [9, 8]), data.TensorDataset(xs[:3] * 10, ys[:3])])
    idx_t = torch.tensor([1, 3])
    table = {
        "tensor_index": lambda: [t.tolist() for t in ds[idx_t]],
        "slice": lambda: [t.tolist() for t in ds[2:4]],
        "bool_index": lambda: [t.tolist() for t in ds[ys == 1]],
        "concat_len": lambda: [len(concat), concat.cumulative_sizes],
        "concat_items": lambda: [[concat[i][0].tolist(), concat[i][1].item()] for i in (9, 10, 11, 12, -1)],
        "concat_neg_oob": lambda: concat[-16],
        "concat_oob": lambda: concat[15],
        "subset_of_subset": lambda: data.Subset(data.Subset(ds, [5, 6, 7]), [2, 0])[1][0].tolist(),
        "subset_getitems": lambda: [[a.tolist(), b.item()] for a, b in data.Subset(ds, [4, 2]).__getitems__([1, 0])],
        "mismatched": lambda: data.TensorDataset(xs, ys[:5]),
        "bad_fractions": lambda: data.random_split(ds, [0.5, 0.4]),
        "bad_lengths": lambda: data.random_split(ds, [3, 3]),
        "empty_concat": lambda: data.ConcatDataset([]),
        "iterable_concat": lambda: data.ConcatDataset([data.ChainDataset([])]),
        "add": lambda: len(ds + ds),
        "stack": lambda: [len(data.StackDataset(xs, ys)), [v.tolist() for v in data.StackDataset(a=xs, b=ys)[4].values()]],
    }
    out = cases(torch, table)
    out["split_sizes"] = [len(p) for p in parts]
    out["split_repeat"] = [p.indices == q.indices for p, q in zip(parts, again)]
    out["split_cover"] = sorted(i for p in parts for i in p.indices)
    out["odd"] = [len(p) for p in odd]
    dl = data.DataLoader(parts[0], batch_size=3)
    out["loader"] = [[list(a.shape), str(b.dtype)] for a, b in dl]
    return out


PROGRAMS = [sharded_iterable_dataset, padded_text_batches, default_collate_structures, seeded_samplers,
            dataset_composition]
NEEDS_CPP = {}


# ---- what DataLoader, samplers and collate refuse ---------------------------------------------------------------------
def loader_refusals(torch, device):
    data = torch.utils.data
    ds = data.TensorDataset(torch.arange(6.0).view(3, 2), torch.arange(3))

    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(5))

    class NoLen(data.Dataset):
        def __getitem__(self, i):
            return i

    table = {
        "batch_none": lambda: [b[1].tolist() for b in data.DataLoader(ds, batch_size=None)],
        "batch_none_drop_last": lambda: data.DataLoader(ds, batch_size=None, drop_last=True),
        "negative_workers": lambda: data.DataLoader(ds, num_workers=-1),
        "prefetch_no_workers": lambda: data.DataLoader(ds, prefetch_factor=2),
        "persistent_no_workers": lambda: data.DataLoader(ds, persistent_workers=True),
        "timeout_negative": lambda: data.DataLoader(ds, timeout=-1),
        "iterable_sampler": lambda: data.DataLoader(Stream(), sampler=[0, 1]),
        "iterable_batch_sampler": lambda: data.DataLoader(Stream(), batch_sampler=[[0, 1]]),
        "iterable_batches": lambda: [b.tolist() for b in data.DataLoader(Stream(), batch_size=2)],
        "no_len_dataset": lambda: len(NoLen()),
        "no_len_loader": lambda: len(data.DataLoader(NoLen(), batch_size=2)),
        "sampler_len": lambda: len(data.DataLoader(ds, batch_size=2, drop_last=True)),
        "bad_batch_type": lambda: data.DataLoader(ds, batch_size=2.5),
        "bool_batch_size": lambda: data.BatchSampler(range(3), True, False),
        "bad_drop_last": lambda: data.BatchSampler(range(3), 2, "no"),
        "collate_mixed": lambda: data.default_collate([1, "a"]),
        "collate_tensor_and_int": lambda: data.default_collate([torch.ones(1), 2]),
        "collate_dict_keys": lambda: data.default_collate([{"a": 1}, {"b": 2}]),
        "collate_empty": lambda: data.default_collate([]),
        "random_split_sum": lambda: data.random_split(range(5), [2, 2]),
        "random_split_negative": lambda: [sorted(s.indices) for s in data.random_split(
            range(5), [6, -1], generator=torch.Generator().manual_seed(0))],
        "random_split_fraction_round": lambda: [len(s) for s in data.random_split(
            range(7), [0.33, 0.33, 0.34], generator=torch.Generator().manual_seed(0))],
        "subset_oob": lambda: data.Subset(ds, [0, 5])[1],
        "dataset_getitem": lambda: data.Dataset()[0],
        "tensor_dataset_empty": lambda: len(data.TensorDataset()),
        "multiprocessing_context": lambda: data.DataLoader(ds, multiprocessing_context="spawn"),
        "worker_init_fn": lambda: [b[1].tolist() for b in data.DataLoader(ds, worker_init_fn=lambda i: None)],
        "in_order": lambda: [b[1].tolist() for b in data.DataLoader(ds, in_order=False)],
        "generator_loader": lambda: type(data.DataLoader(ds, shuffle=True, generator=torch.Generator()).sampler
                                         ).__name__,
        "loader_attrs": lambda: [data.DataLoader(ds).batch_size, data.DataLoader(ds).drop_last,
                                 type(data.DataLoader(ds).batch_sampler).__name__,
                                 data.DataLoader(ds).num_workers],
    }
    return cases(torch, table)


PROGRAMS.append(loader_refusals)
