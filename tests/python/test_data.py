"""utils.data: datasets, samplers, DataLoader ordering, shuffling reproducibility, last-batch rules, collate."""
from collections import namedtuple

import pytest
import torch

import tandem
from tandem.utils.data import (BatchSampler, DataLoader, Dataset, RandomSampler, SequentialSampler, Subset,
                               TensorDataset, default_collate, random_split)



class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return {"x": float(i), "y": i * i, "name": f"s{i}"}


def test_tensor_dataset():
    x, y = tandem.arange(10).reshape(5, 2), tandem.arange(5)
    ds = TensorDataset(x, y)
    assert len(ds) == 5
    a, b = ds[3]
    assert a.tolist() == [6, 7] and b.item() == 3
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, tandem.arange(4))


def test_samplers():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    g1, g2 = tandem.Generator().manual_seed(7), tandem.Generator().manual_seed(7)
    a, b = list(RandomSampler(range(20), generator=g1)), list(RandomSampler(range(20), generator=g2))
    assert a == b and sorted(a) == list(range(20)) and a != list(range(20))
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(range(7), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        BatchSampler(range(3), 0, False)


def test_loader_order_and_last_batch_with_python_dataset():
    ds = Squares(7)
    batches = list(DataLoader(ds, batch_size=3))
    assert len(batches) == 3 == len(DataLoader(ds, batch_size=3))
    assert batches[0]["x"].tolist() == [0.0, 1.0, 2.0] and batches[0]["x"].dtype == tandem.float64
    assert batches[0]["y"].tolist() == [0, 1, 4] and batches[0]["y"].dtype == tandem.int64
    assert batches[2]["name"] == ["s6"]
    dropped = list(DataLoader(ds, batch_size=3, drop_last=True))
    assert len(dropped) == 2 == len(DataLoader(ds, batch_size=3, drop_last=True))
    # batch_size=None: samples come one by one, uncollated
    assert list(DataLoader(ds, batch_size=None))[2] == {"x": 2.0, "y": 4, "name": "s2"}


def test_shuffle_reproducible_with_generator():
    ds = Squares(10)

    def order(seed):
        g = tandem.Generator().manual_seed(seed)
        return [v for b in DataLoader(ds, batch_size=4, shuffle=True, generator=g) for v in b["y"].tolist()]

    assert order(1) == order(1)
    assert order(1) != order(2)
    assert sorted(order(3)) == sorted(i * i for i in range(10))
    g = tandem.Generator().manual_seed(5)
    loader = DataLoader(ds, batch_size=10, shuffle=True, generator=g)
    first, second = next(iter(loader))["y"].tolist(), next(iter(loader))["y"].tolist()
    assert first != second  # a new permutation per epoch
    tandem.manual_seed(0)
    a = [b["y"].tolist() for b in DataLoader(ds, batch_size=5, shuffle=True)]
    tandem.manual_seed(0)
    assert a == [b["y"].tolist() for b in DataLoader(ds, batch_size=5, shuffle=True)]


def test_collate_numbers_tuples_namedtuples():
    Point = namedtuple("Point", "a b")
    assert default_collate([1, 2]).dtype == tandem.int64
    assert default_collate([True, False]).tolist() == [True, False]
    out = default_collate([(1, 2.0), (3, 4.0)])
    assert isinstance(out, list) and out[0].tolist() == [1, 3] and out[1].tolist() == [2.0, 4.0]
    out = default_collate([[1, 2], [3, 4]])
    assert isinstance(out, list) and out[1].tolist() == [2, 4]
    p = default_collate([Point(1, 2), Point(3, 4)])
    assert isinstance(p, Point) and p.a.tolist() == [1, 3]
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate"):
        default_collate([object()])


def test_collate_tensors_in_dicts():
    batch = [{"a": tandem.ones(2) * i, "b": (tandem.tensor(i), i)} for i in range(3)]
    out = default_collate(batch)
    assert out["a"].tolist() == [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    assert out["b"][0].tolist() == [0, 1, 2] and out["b"][1].tolist() == [0, 1, 2]


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("drop_last", [False, True])
def test_tensor_dataset_batches(shuffle, drop_last, device):
    x = tandem.arange(22).reshape(11, 2).to(device)
    y = tandem.arange(11).to(device)
    g = tandem.Generator().manual_seed(0)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=shuffle, drop_last=drop_last, generator=g,
                        pin_memory=True)
    batches = list(loader)
    assert all(isinstance(b, list) for b in batches)  # default_collate gives lists for tuple samples
    assert len(batches) == len(loader) == (2 if drop_last else 3)
    assert [len(b[1].tolist()) for b in batches] == ([4, 4] if drop_last else [4, 4, 3])
    seen = [v for _, yb in batches for v in yb.tolist()]
    if not shuffle:
        assert seen == list(range(len(seen)))
    else:
        assert len(set(seen)) == len(seen)
    for xb, yb in batches:
        assert xb.device == x.device
        assert xb.tolist() == [[2 * v, 2 * v + 1] for v in yb.tolist()]
    # the same order as sampling one index at a time through the sampler with the same seed, after the base seed
    # the loader's iterator draws from its generator first (as PyTorch's does)
    g2 = tandem.Generator().manual_seed(0)
    tandem.empty((), dtype=tandem.int64).random_(generator=g2)
    ref = list(RandomSampler(range(11), generator=g2)) if shuffle else list(range(11))
    assert seen == ref[: len(seen)]


def test_subset_and_random_split():
    ds = Squares(10)
    sub = Subset(ds, [9, 0])
    assert len(sub) == 2 and sub[0]["y"] == 81
    a, b = random_split(ds, [7, 3], generator=tandem.Generator().manual_seed(0))
    assert len(a) == 7 and len(b) == 3
    assert sorted(a.indices + b.indices) == list(range(10))
    c, d = random_split(ds, [7, 3], generator=tandem.Generator().manual_seed(0))
    assert c.indices == a.indices
    e, f = random_split(ds, [0.75, 0.25], generator=tandem.Generator().manual_seed(0))
    assert len(e) + len(f) == 10 and len(e) == 8
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(ds, [3, 3])


def test_loader_argument_errors():
    ds = Squares(4)
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_size=2, batch_sampler=BatchSampler(range(4), 2, False))
    assert len(list(DataLoader(ds, batch_sampler=BatchSampler(range(4), 3, False)))) == 2


def test_get_worker_info_is_none_in_the_loading_process():
    # The usual sharding pattern of an IterableDataset: with no worker processes it yields its whole range once.
    class Range(tandem.utils.data.IterableDataset):
        def __iter__(self):
            info = tandem.utils.data.get_worker_info()
            start, step = (0, 1) if info is None else (info.id, info.num_workers)
            return iter(range(start, 10, step))

    assert tandem.utils.data.get_worker_info() is None
    batches = list(tandem.utils.data.DataLoader(Range(), batch_size=4))
    assert [b.tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_single_process_iterator_has_the_loaders_len_as_pytorchs():
    # Programs print len(iter(loader)) or wrap the iterator in tqdm, which asks its len().
    data = list(range(10))
    for kwargs in ({"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}):
        ours, theirs = iter(tandem.utils.data.DataLoader(data, **kwargs)), iter(torch.utils.data.DataLoader(data, **kwargs))
        assert len(ours) == len(theirs)
        assert iter(ours) is ours
        assert type(ours).__name__ == "_SingleProcessDataLoaderIter"
        assert [b.tolist() if hasattr(b, "tolist") else b for b in ours] == \
               [b.tolist() if hasattr(b, "tolist") else b for b in theirs]
        with pytest.raises(StopIteration):
            next(ours)


class _Wrapped:
    """What a library's DataLoader subclass returns from _get_iterator: the base iterator plus a transform."""

    def __init__(self, iterator):
        self.iterator = iterator

    def __iter__(self):
        return self

    def __next__(self):
        return next(self.iterator) * 10

    def _reset(self, loader, first_iter=False):
        self.iterator._reset(loader, first_iter)


@pytest.mark.parametrize("num_workers,persistent", [(0, False), (2, False), (2, True)])
def test_get_iterator_is_what_iteration_returns_as_in_pytorch(num_workers, persistent):
    # PyTorch Geometric's NodeLoader overrides _get_iterator to wrap the iterator; iter(loader) must use it.
    results = []
    for lib in (torch, tandem):
        class Loader(lib.utils.data.DataLoader):
            def _get_iterator(self):
                base = super()._get_iterator()
                assert isinstance(base, lib.utils.data.dataloader._BaseDataLoaderIter)
                return _Wrapped(base)

        loader = Loader(list(range(6)), batch_size=4, num_workers=num_workers, persistent_workers=persistent)
        epochs = [[b.tolist() for b in loader] for _ in range(2)]
        results.append(epochs)
    assert results[1] == results[0] == [[[0, 10, 20, 30], [40, 50]]] * 2


def test_multiprocessing_iterator_has_pytorchs_names():
    from tandem.utils.data.dataloader import _BaseDataLoaderIter, _MultiProcessingDataLoaderIter
    assert issubclass(_MultiProcessingDataLoaderIter, _BaseDataLoaderIter)
    it = iter(tandem.utils.data.DataLoader(list(range(4)), batch_size=2, num_workers=1))
    assert isinstance(it, _MultiProcessingDataLoaderIter) and len(it) == 2
    assert [b.tolist() for b in it] == [[0, 1], [2, 3]]
