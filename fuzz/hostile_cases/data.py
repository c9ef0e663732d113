"""torch.utils.data: DataLoader options that contradict each other or are out of range (batch_size 0, negative
num_workers and timeout, sampler with shuffle, batch_sampler with batch_size), samplers' own checks, datasets of
mismatched lengths, random_split lengths, and default_collate of batches it cannot stack."""
from . import Case


def D(L):
    return L.utils.data


def ds(L, n=6):
    return D(L).TensorDataset(L.arange(float(n)).reshape(n, 1), L.arange(n))


def batches(loader):
    return [b for b in loader]


def loader(L, data=None, **kw):
    return D(L).DataLoader(ds(L) if data is None else data, **kw)


class _Items:
    """A map-style dataset over a fixed list (whatever the list holds: ragged tensors, None, dicts)."""

    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class _Stream:
    """An iterable-style dataset without a length."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


def stream(L, n=5):
    return type("Stream", (_Stream, D(L).IterableDataset), {})(n)


def collate(L, items, **kw):
    return batches(D(L).DataLoader(_Items(items), batch_size=len(items), **kw))


CASES = {
    # ---- DataLoader options
    "DataLoader/batch_size_zero": lambda L, d: loader(L, batch_size=0),
    "DataLoader/batch_size_negative": lambda L, d: loader(L, batch_size=-1),
    "DataLoader/batch_size_float": lambda L, d: loader(L, batch_size=1.5),
    "DataLoader/batch_size_bool": lambda L, d: loader(L, batch_size=True),
    "DataLoader/num_workers_negative": lambda L, d: loader(L, num_workers=-1),
    "DataLoader/timeout_negative": lambda L, d: loader(L, timeout=-1),
    "DataLoader/sampler_and_shuffle": lambda L, d: loader(L, sampler=D(L).SequentialSampler(range(6)),
                                                          shuffle=True),
    "DataLoader/batch_sampler_and_batch_size": lambda L, d: loader(
        L, batch_sampler=D(L).BatchSampler(range(6), 2, False), batch_size=3),
    "DataLoader/batch_sampler_and_shuffle": lambda L, d: loader(
        L, batch_sampler=D(L).BatchSampler(range(6), 2, False), shuffle=True),
    "DataLoader/batch_sampler_and_drop_last": lambda L, d: loader(
        L, batch_sampler=D(L).BatchSampler(range(6), 2, False), drop_last=True),
    "DataLoader/none_batch_size_drop_last": lambda L, d: loader(L, batch_size=None, drop_last=True),
    "DataLoader/prefetch_without_workers": lambda L, d: loader(L, prefetch_factor=2),
    "DataLoader/persistent_without_workers": lambda L, d: loader(L, persistent_workers=True),
    "DataLoader/iterable_shuffle": lambda L, d: loader(L, stream(L), shuffle=True),
    # (PyTorch's message shows the sampler's repr, an address: the type is compared)
    "DataLoader/iterable_sampler": Case(lambda L, d: loader(L, stream(L), sampler=D(L).SequentialSampler(range(5))),
                                        "any-message"),
    "DataLoader/iterable_batch_sampler": Case(lambda L, d: loader(
        L, stream(L), batch_sampler=D(L).BatchSampler(range(5), 2, False)), "any-message"),
    "DataLoader/iterable_len": lambda L, d: len(loader(L, _Stream(5))),
    "DataLoader/iterable_ok": lambda L, d: batches(loader(L, stream(L), batch_size=2)),
    "DataLoader/ok_drop_last": lambda L, d: batches(loader(L, batch_size=4, drop_last=True)),
    "DataLoader/ok_batch_size_none": lambda L, d: batches(loader(L, batch_size=None))[:2],
    "DataLoader/ok_len": lambda L, d: len(loader(L, batch_size=4)),
    "DataLoader/ok_len_drop_last": lambda L, d: len(loader(L, batch_size=4, drop_last=True)),
    "DataLoader/empty_dataset": lambda L, d: batches(loader(L, ds(L, 0), batch_size=2)),
    "DataLoader/empty_dataset_shuffle": lambda L, d: batches(loader(L, ds(L, 0), batch_size=2, shuffle=True)),
    "DataLoader/not_a_dataset": lambda L, d: batches(loader(L, 5)),
    "DataLoader/sampler_past_end": lambda L, d: batches(loader(L, sampler=[0, 9])),
    "DataLoader/collate_fn_not_callable": lambda L, d: batches(loader(L, batch_size=2, collate_fn=3)),
    "DataLoader/collate_fn_raises": lambda L, d: batches(loader(L, batch_size=2, collate_fn=lambda b: 1 / 0)),
    "DataLoader/bad_multiprocessing_context": lambda L, d: loader(L, num_workers=1, multiprocessing_context="x"),
    "DataLoader/generator_wrong_type": lambda L, d: batches(loader(L, shuffle=True, generator=3)),
    # ---- default_collate
    "collate/ragged_tensors": lambda L, d: collate(L, [L.ones(2), L.ones(3)]),
    "collate/dtypes_differ": lambda L, d: collate(L, [L.ones(2), L.ones(2, dtype=L.int64)]),
    "collate/none": lambda L, d: collate(L, [None, None]),
    "collate/object": lambda L, d: collate(L, [object, object]),
    "collate/dict_keys_differ": lambda L, d: collate(L, [{"a": 1}, {"b": 2}]),
    "collate/tuples_lengths_differ": lambda L, d: collate(L, [(1, 2), (1, 2, 3)]),
    "collate/lists_lengths_differ": lambda L, d: collate(L, [[1, 2], [1]]),
    "collate/tensor_and_number": lambda L, d: collate(L, [L.ones(2), 3]),
    "collate/number_and_tensor": lambda L, d: collate(L, [3, L.ones(2)]),
    "collate/numbers_mixed": lambda L, d: collate(L, [1, 2.5]),
    "collate/bools": lambda L, d: collate(L, [True, False]),
    "collate/strings": lambda L, d: collate(L, ["a", "bc"]),
    "collate/bytes": lambda L, d: collate(L, [b"a", b"bc"]),
    "collate/nested_ok": lambda L, d: collate(L, [{"x": (1, L.ones(2)), "y": "s"}, {"x": (2, L.zeros(2)),
                                                                                    "y": "t"}]),
    "collate/0dim_tensors": lambda L, d: collate(L, [L.tensor(1.0), L.tensor(2.0)]),
    "collate/empty_tensors": lambda L, d: collate(L, [L.ones(0, 2), L.ones(0, 2)]),
    "collate/huge_int": lambda L, d: collate(L, [2**70, 1]),
    "collate/complex": lambda L, d: collate(L, [1j, 2.0]),
    "collate/set": lambda L, d: collate(L, [{1}, {2}]),
    "default_collate/empty_batch": lambda L, d: D(L).default_collate([]),
    "default_convert/ok": lambda L, d: D(L).default_convert([1, (2.0, "a")]),
    # ---- samplers
    "RandomSampler/num_samples_zero": lambda L, d: D(L).RandomSampler(range(5), num_samples=0),
    "RandomSampler/num_samples_negative": lambda L, d: D(L).RandomSampler(range(5), num_samples=-2),
    "RandomSampler/num_samples_float": lambda L, d: D(L).RandomSampler(range(5), num_samples=2.5),
    "RandomSampler/replacement_str": lambda L, d: D(L).RandomSampler(range(5), replacement="yes"),
    "RandomSampler/empty_source": lambda L, d: D(L).RandomSampler([]),
    "RandomSampler/ok_len": lambda L, d: len(D(L).RandomSampler(range(5), replacement=True, num_samples=9)),
    "RandomSampler/ok_is_permutation": lambda L, d: sorted(D(L).RandomSampler(range(7))),
    "SequentialSampler/ok": lambda L, d: list(D(L).SequentialSampler("abc")),
    "BatchSampler/batch_size_zero": lambda L, d: D(L).BatchSampler(range(5), 0, False),
    "BatchSampler/batch_size_bool": lambda L, d: D(L).BatchSampler(range(5), True, False),
    "BatchSampler/drop_last_int": lambda L, d: D(L).BatchSampler(range(5), 2, 1),
    "BatchSampler/ok": lambda L, d: list(D(L).BatchSampler(range(5), 2, False)),
    "BatchSampler/ok_len_drop": lambda L, d: len(D(L).BatchSampler(range(5), 2, True)),
    "WeightedRandomSampler/num_samples_zero": lambda L, d: D(L).WeightedRandomSampler([1.0, 2.0], 0),
    "WeightedRandomSampler/replacement_int": lambda L, d: D(L).WeightedRandomSampler([1.0, 2.0], 2, replacement=1),
    "WeightedRandomSampler/weights_2d": lambda L, d: D(L).WeightedRandomSampler([[1.0, 2.0]], 2),
    "WeightedRandomSampler/weights_negative": lambda L, d: list(D(L).WeightedRandomSampler([1.0, -2.0], 2)),
    "WeightedRandomSampler/weights_zero": lambda L, d: list(D(L).WeightedRandomSampler([0.0, 0.0], 2)),
    "WeightedRandomSampler/too_many_without_replacement": lambda L, d: list(
        D(L).WeightedRandomSampler([1.0, 2.0], 3, replacement=False)),
    "WeightedRandomSampler/ok_single_class": lambda L, d: list(D(L).WeightedRandomSampler([0.0, 1.0], 4)),
    "SubsetRandomSampler/ok": lambda L, d: sorted(D(L).SubsetRandomSampler([4, 1, 3])),
    "DistributedSampler/rank_past": lambda L, d: D(L).DistributedSampler(range(6), num_replicas=2, rank=2),
    "DistributedSampler/rank_negative": lambda L, d: D(L).DistributedSampler(range(6), num_replicas=2, rank=-1),
    "DistributedSampler/ok_padding": lambda L, d: list(D(L).DistributedSampler(range(5), num_replicas=2, rank=1,
                                                                               shuffle=False)),
    "DistributedSampler/ok_drop_last": lambda L, d: list(D(L).DistributedSampler(range(5), num_replicas=2, rank=1,
                                                                                 shuffle=False, drop_last=True)),
    # ---- datasets
    "TensorDataset/lengths_differ": lambda L, d: D(L).TensorDataset(L.ones(3), L.ones(4)),
    "TensorDataset/0dim": lambda L, d: D(L).TensorDataset(L.tensor(1.0)),
    "TensorDataset/index_past": lambda L, d: ds(L)[6],
    "TensorDataset/ok_negative_index": lambda L, d: ds(L)[-1],
    "ConcatDataset/empty": lambda L, d: D(L).ConcatDataset([]),
    "ConcatDataset/index_past": lambda L, d: D(L).ConcatDataset([ds(L, 2), ds(L, 3)])[5],
    "ConcatDataset/index_negative_past": lambda L, d: D(L).ConcatDataset([ds(L, 2), ds(L, 3)])[-6],
    "ConcatDataset/ok_negative": lambda L, d: D(L).ConcatDataset([ds(L, 2), ds(L, 3)])[-4],
    "ConcatDataset/iterable": lambda L, d: D(L).ConcatDataset([stream(L)]),
    "Subset/index_past": lambda L, d: D(L).Subset(ds(L), [0, 9])[1],
    "Subset/ok": lambda L, d: D(L).Subset(ds(L), [5, 0])[0],
    "random_split/lengths_wrong": lambda L, d: D(L).random_split(range(10), [3, 3]),
    "random_split/fractions_wrong": lambda L, d: D(L).random_split(range(10), [0.5, 0.6]),
    "random_split/negative": lambda L, d: [len(s) for s in D(L).random_split(range(10), [12, -2])],
    "random_split/ok_sizes": lambda L, d: [len(s) for s in D(L).random_split(range(10), [0.3, 0.3, 0.4])],
    "random_split/ok_fraction_remainders": lambda L, d: [len(s) for s in D(L).random_split(range(5),
                                                                                          [0.5, 0.5])],
    "StackDataset/lengths_differ": lambda L, d: D(L).StackDataset(ds(L, 2), ds(L, 3)),
    "StackDataset/args_and_kwargs": lambda L, d: D(L).StackDataset(ds(L, 2), b=ds(L, 2)),
    "ChainDataset/ok": lambda L, d: list(D(L).ChainDataset([stream(L, 2), stream(L, 3)])),
    "Dataset/add": lambda L, d: len(ds(L, 2) + ds(L, 3)),
    "Dataset/getitem_abstract": lambda L, d: D(L).Dataset()[0],
    "get_worker_info/main_process": lambda L, d: D(L).get_worker_info(),
}

KNOWN = {
    "DataLoader/generator_wrong_type": "PyTorch's message comes from its internal random_() call; tandem names "
                                       "the generator argument of randperm",
}
