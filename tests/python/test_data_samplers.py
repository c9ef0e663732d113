"""utils.data samplers and datasets: deterministic ones against PyTorch, random ones by their properties
(permutations, replacement, weights honoured statistically) and reproducibility under tandem.manual_seed."""
import collections
import warnings

import pytest
import torch
import torch.utils.data as tud

import tandem
from tandem.utils import data as tnd


def error_of(build):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            build()
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return type(e), str(e)
    return None


def same_error(build):
    """Runs build(module) for tandem.utils.data and torch.utils.data; both must raise the same type and text."""
    ours, theirs = error_of(lambda: build(tnd)), error_of(lambda: build(tud))
    assert theirs is not None
    assert ours == theirs


def test_public_names_match_torch():
    names = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
             "BatchSampler", "Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "Subset", "ChainDataset",
             "StackDataset", "random_split", "DataLoader", "default_collate"]
    for name in names:
        assert hasattr(tnd, name) and hasattr(tud, name), name
    for module in (tnd.sampler, tnd.dataset):
        assert all(hasattr(module, n) for n in module.__all__)


# ---- samplers ----------------------------------------------------------------------------------------------

def test_sampler_base_and_generic_subscript():
    class Evens(tnd.Sampler[int]):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(0, self.n, 2))

    assert list(Evens(7)) == [0, 2, 4, 6]
    with pytest.raises(NotImplementedError):
        iter(tnd.Sampler())
    same_error(lambda m: m.Sampler(range(3)))


def test_sequential_sampler():
    s = tnd.SequentialSampler(range(5))
    assert list(s) == list(tud.SequentialSampler(range(5))) == [0, 1, 2, 3, 4] and len(s) == 5
    assert list(tnd.SequentialSampler([])) == []


@pytest.mark.parametrize("sizes", [(10, 3, False), (10, 3, True), (9, 3, True), (2, 5, False), (2, 5, True),
                                   (0, 4, False)])
def test_batch_sampler_matches_torch(sizes):
    n, batch_size, drop_last = sizes
    ours = tnd.BatchSampler(tnd.SequentialSampler(range(n)), batch_size, drop_last)
    theirs = tud.BatchSampler(tud.SequentialSampler(range(n)), batch_size, drop_last)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)
    assert all(type(b) is list for b in ours)


def test_batch_sampler_over_any_iterable():
    assert list(tnd.BatchSampler([5, 3, 1, 4], 3, False)) == [[5, 3, 1], [4]]
    assert list(tnd.BatchSampler(iter([5, 3, 1, 4]), 2, True)) == [[5, 3], [1, 4]]


@pytest.mark.parametrize("args", [(0, False), (-1, False), (2.0, False), (True, False), ("2", False), (2, 1),
                                  (2, None)])
def test_batch_sampler_errors(args):
    same_error(lambda m: m.BatchSampler(range(4), *args))


def test_random_sampler_is_a_fresh_permutation_per_epoch():
    tandem.manual_seed(0)
    s = tnd.RandomSampler(range(50))
    epochs = [list(s) for _ in range(4)]
    assert all(sorted(e) == list(range(50)) for e in epochs)
    assert len({tuple(e) for e in epochs}) == 4 and len(s) == 50
    assert all(type(i) is int for i in epochs[0])


def test_random_sampler_reproducible():
    tandem.manual_seed(123)
    a = [list(tnd.RandomSampler(range(30))) for _ in range(2)]
    tandem.manual_seed(123)
    b = [list(tnd.RandomSampler(range(30))) for _ in range(2)]
    assert a == b and a[0] != a[1]
    g1, g2 = tandem.Generator().manual_seed(5), tandem.Generator().manual_seed(5)
    assert list(tnd.RandomSampler(range(30), True, 70, g1)) == list(tnd.RandomSampler(range(30), True, 70, g2))


def test_random_sampler_num_samples_without_replacement():
    tandem.manual_seed(1)
    s = tnd.RandomSampler(range(7), num_samples=17)
    out = list(s)
    assert len(out) == len(s) == 17 == s.num_samples
    assert sorted(out[:7]) == sorted(out[7:14]) == list(range(7))  # whole permutations first
    assert len(set(out[14:])) == 3  # then part of one more: no repeats inside it
    short = list(tnd.RandomSampler(range(10), num_samples=4))
    assert len(short) == 4 and len(set(short)) == 4


def test_random_sampler_with_replacement_statistics():
    tandem.manual_seed(2)
    s = tnd.RandomSampler(range(5), replacement=True, num_samples=10000)
    out = list(s)
    assert len(out) == 10000 and set(out) == set(range(5)) and s.replacement
    counts = collections.Counter(out)
    assert all(abs(counts[i] - 2000) < 200 for i in range(5)), counts  # ~4.5 sigma
    small = list(tnd.RandomSampler(range(3), replacement=True, num_samples=40))
    assert len(small) == 40 and len(set(small)) <= 3  # 40 > 3: repeats are certain


def test_random_sampler_attributes_match_torch():
    ours, theirs = tnd.RandomSampler(range(6)), tud.RandomSampler(range(6))
    assert (ours.num_samples, ours.replacement, ours.generator) == (theirs.num_samples, theirs.replacement, None)
    assert len(tnd.RandomSampler(range(6), num_samples=9)) == 9


@pytest.mark.parametrize("kwargs", [dict(replacement=1), dict(replacement="yes"), dict(num_samples=0),
                                    dict(num_samples=-3), dict(num_samples=2.5)])
def test_random_sampler_errors(kwargs):
    same_error(lambda m: m.RandomSampler(range(4), **kwargs))


def test_random_sampler_of_empty_dataset():
    same_error(lambda m: m.RandomSampler([]))


def test_subset_random_sampler():
    indices = [3, 17, 42, 8, 99]
    tandem.manual_seed(4)
    s = tnd.SubsetRandomSampler(indices)
    epochs = [list(s) for _ in range(5)]
    assert all(sorted(e) == sorted(indices) for e in epochs) and len(s) == 5
    assert len({tuple(e) for e in epochs}) > 1
    g1, g2 = tandem.Generator().manual_seed(9), tandem.Generator().manual_seed(9)
    assert list(tnd.SubsetRandomSampler(indices, g1)) == list(tnd.SubsetRandomSampler(indices, g2))
    assert list(tnd.SubsetRandomSampler(range(10, 20), generator=g1))  # any sequence of indices


def test_weighted_random_sampler_honours_weights():
    weights = [0.1, 0.0, 0.6, 0.3]
    tandem.manual_seed(7)
    s = tnd.WeightedRandomSampler(weights, 20000)
    out = list(s)
    counts = collections.Counter(out)
    assert len(out) == len(s) == 20000 and counts[1] == 0
    for i, w in enumerate(weights):
        assert abs(counts[i] / 20000 - w) < 0.015, counts
    assert isinstance(s.weights, tandem.Tensor) and s.weights.dtype == tandem.float64 and s.replacement


def test_weighted_random_sampler_without_replacement_and_generator():
    g1, g2 = tandem.Generator().manual_seed(3), tandem.Generator().manual_seed(3)
    a = list(tnd.WeightedRandomSampler(tandem.tensor([1.0, 2.0, 3.0, 4.0, 5.0]), 5, False, generator=g1))
    b = list(tnd.WeightedRandomSampler((1, 2, 3, 4, 5), 5, replacement=False, generator=g2))
    assert a == b and sorted(a) == [0, 1, 2, 3, 4]
    # heavy weights come first more often than light ones
    tandem.manual_seed(0)
    firsts = collections.Counter(next(iter(tnd.WeightedRandomSampler([1.0, 9.0], 1, False))) for _ in range(2000))
    assert 1700 < firsts[1] < 1900, firsts


@pytest.mark.parametrize("args", [([1.0, 2.0], 0), ([1.0, 2.0], -1), ([1.0, 2.0], 2.0), ([1.0, 2.0], True),
                                  ([[1.0, 2.0]], 2), ([1.0, 2.0], 2, 1)])
def test_weighted_random_sampler_errors(args):
    same_error(lambda m: m.WeightedRandomSampler(*args))


def test_weighted_random_sampler_draw_errors_first_line_matches_torch():
    for args in [([1.0, 2.0], 3, False), ([0.0, 0.0], 2)]:
        with pytest.raises(RuntimeError) as theirs:
            list(tud.WeightedRandomSampler(*args))
        with pytest.raises(RuntimeError) as mine:
            list(tnd.WeightedRandomSampler(*args))
        assert str(mine.value).split("\n")[0] == str(theirs.value)


# ---- datasets ----------------------------------------------------------------------------------------------

class Range(tnd.Dataset[int]):
    def __init__(self, start, stop):
        self.items = list(range(start, stop))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class Stream(tnd.IterableDataset):
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)


def test_dataset_base():
    with pytest.raises(NotImplementedError, match="^Subclasses of Dataset should implement __getitem__.$"):
        tnd.Dataset()[0]
    both = Range(0, 3) + Range(10, 12)
    assert isinstance(both, tnd.ConcatDataset) and [both[i] for i in range(5)] == [0, 1, 2, 10, 11]
    chained = Stream([1, 2]) + Stream([3])
    assert isinstance(chained, tnd.ChainDataset) and list(chained) == [1, 2, 3] and len(chained) == 3
    assert issubclass(tnd.IterableDataset, tnd.Dataset)


def test_tensor_dataset_matches_torch():
    x = tandem.arange(12).reshape(4, 3)
    ds = tnd.TensorDataset(x, tandem.arange(4))
    a, b = ds[2]
    assert a.tolist() == [6, 7, 8] and b.item() == 2 and len(ds) == 4
    same_error(lambda m: m.TensorDataset((tandem if m is tnd else torch).zeros(3),
                                         (tandem if m is tnd else torch).zeros(4)))


def test_concat_dataset_matches_torch():
    parts = [Range(0, 3), Range(100, 100), Range(10, 14)]
    ours = tnd.ConcatDataset(parts)
    theirs = tud.ConcatDataset(parts)
    assert len(ours) == len(theirs) == 7 and ours.cumulative_sizes == theirs.cumulative_sizes == [3, 3, 7]
    assert [ours[i] for i in range(-7, 7)] == [theirs[i] for i in range(-7, 7)]
    assert tnd.ConcatDataset.cumsum(parts) == [3, 3, 7]
    with pytest.warns(FutureWarning, match="`cummulative_sizes` attribute is renamed to `cumulative_sizes`"):
        assert ours.cummulative_sizes == [3, 3, 7]
    for i in (7, -8):
        assert error_of(lambda: ours[i]) == error_of(lambda: theirs[i])
    same_error(lambda m: m.ConcatDataset([]))
    same_error(lambda m: m.ConcatDataset([Range(0, 2), (Stream if m is tnd else _TorchStream)([1])]))


class _TorchStream(tud.IterableDataset):
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


def test_chain_dataset():
    ds = tnd.ChainDataset([Stream([1, 2]), Stream([]), Stream([3, 4])])
    assert list(ds) == [1, 2, 3, 4] and len(ds) == 4
    assert list(ds) == [1, 2, 3, 4]  # iterable again
    for bad in (lambda m, s: list(m.ChainDataset([s([1]), Range(0, 2)])),
                lambda m, s: len(m.ChainDataset([Range(0, 2)]))):
        assert error_of(lambda: bad(tnd, Stream)) == error_of(lambda: bad(tud, _TorchStream))


def test_stack_dataset_matches_torch():
    a, b = Range(0, 4), Range(10, 14)
    for m in (tnd, tud):
        assert m.StackDataset(a, b)[2] == (2, 12)
        assert m.StackDataset(x=a, y=b)[3] == {"x": 3, "y": 13}
    ours, theirs = tnd.StackDataset(a, b), tud.StackDataset(a, b)
    assert len(ours) == 4 and ours.__getitems__([0, 3]) == theirs.__getitems__([0, 3])
    ours = tnd.StackDataset(x=a, y=tnd.Subset(b, [3, 2, 1, 0]))
    theirs = tud.StackDataset(x=a, y=tud.Subset(b, [3, 2, 1, 0]))
    assert ours.__getitems__([1, 2]) == theirs.__getitems__([1, 2]) == [{"x": 1, "y": 12}, {"x": 2, "y": 11}]
    same_error(lambda m: m.StackDataset())
    same_error(lambda m: m.StackDataset(a, y=b))
    same_error(lambda m: m.StackDataset(a, Range(0, 3)))
    same_error(lambda m: m.StackDataset(x=a, y=Range(0, 3)))


def test_subset_matches_torch():
    base = Range(0, 10)
    ours, theirs = tnd.Subset(base, [9, 0, 4]), tud.Subset(base, [9, 0, 4])
    assert [ours[i] for i in range(3)] == [theirs[i] for i in range(3)] == [9, 0, 4] and len(ours) == 3
    assert ours.__getitems__([2, 0]) == theirs.__getitems__([2, 0]) == [4, 9]
    nested = tnd.Subset(tnd.Subset(base, [5, 6, 7]), [2, 0])
    assert nested.__getitems__([0, 1]) == [7, 5]

    def build(m):
        class Doubled(m.Subset):
            def __getitem__(self, i):
                return 2 * super().__getitem__(i)

        return Doubled(base, [1])

    same_error(build)


def test_random_split_lengths_and_fractions():
    ds = Range(0, 10)
    tandem.manual_seed(0)
    parts = tnd.random_split(ds, [3, 7])
    assert [len(p) for p in parts] == [3, 7] and all(isinstance(p, tnd.Subset) for p in parts)
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    for fractions in ([0.3, 0.7], [0.25, 0.25, 0.5], [0.33, 0.33, 0.34], [0.1] * 10, [1.0]):
        ours = tnd.random_split(ds, fractions, generator=tandem.Generator().manual_seed(1))
        theirs = tud.random_split(ds, fractions, generator=torch.Generator().manual_seed(1))
        assert [len(p) for p in ours] == [len(p) for p in theirs]
        assert sorted(i for p in ours for i in p.indices) == list(range(10))
    tandem.manual_seed(11)
    a = [p.indices for p in tnd.random_split(ds, [0.5, 0.5])]
    tandem.manual_seed(11)
    assert a == [p.indices for p in tnd.random_split(ds, [0.5, 0.5])]


def test_random_split_warnings_and_errors():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parts = tnd.random_split(Range(0, 2), [0.9, 0.05, 0.05])
    assert [len(p) for p in parts] == [2, 0, 0]
    assert [str(w.message) for w in caught] == [
        f"Length of split at index {i} is 0. This might result in an empty dataset." for i in (1, 2)]
    same_error(lambda m: m.random_split(Range(0, 10), [3, 3]))
    same_error(lambda m: m.random_split(Range(0, 10), [1.5, -0.5]))
    same_error(lambda m: m.random_split(Range(0, 10), [0.5, 0.6]))


# ---- DataLoader with samplers and iterable datasets ---------------------------------------------------------

def test_dataloader_with_sampler_and_batch_sampler():
    ds = tnd.TensorDataset(tandem.arange(10) * 10)
    loader = tnd.DataLoader(ds, batch_size=4, sampler=[9, 8, 7, 6, 5])
    assert [b[0].tolist() for b in loader] == [[90, 80, 70, 60], [50]] and len(loader) == 2
    loader = tnd.DataLoader(ds, batch_sampler=[[1, 2], [0], [9, 9, 9]])
    assert [b[0].tolist() for b in loader] == [[10, 20], [0], [90, 90, 90]]
    tandem.manual_seed(3)
    weighted = tnd.WeightedRandomSampler([0.0] * 5 + [1.0] * 5, 40)
    seen = [i for b in tnd.DataLoader(ds, batch_size=8, sampler=weighted) for i in b[0].tolist()]
    assert len(seen) == 40 and set(seen) <= {50, 60, 70, 80, 90}
    loader = tnd.DataLoader(ds, sampler=tnd.SubsetRandomSampler([0, 1, 2]), batch_size=None)
    assert sorted(x[0].item() for x in loader) == [0, 10, 20]


def test_dataloader_random_sampler_with_replacement():
    ds = tnd.TensorDataset(tandem.arange(5))
    tandem.manual_seed(0)
    loader = tnd.DataLoader(ds, batch_size=4, sampler=tnd.RandomSampler(ds, replacement=True, num_samples=10))
    sizes = [len(b[0]) for b in loader]
    assert sizes == [4, 4, 2] and len(loader) == 3


def test_dataloader_uses_getitems():
    class Batched(Range):
        calls = 0

        def __getitems__(self, indices):
            Batched.calls += 1
            return [self.items[i] for i in indices]

    loader = tnd.DataLoader(Batched(0, 6), batch_size=4)
    assert [b.tolist() for b in loader] == [[0, 1, 2, 3], [4, 5]] and Batched.calls == 2


def test_dataloader_over_iterable_dataset():
    ds = Stream(list(range(7)))
    loader = tnd.DataLoader(ds, batch_size=3)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]] and len(loader) == 3
    loader = tnd.DataLoader(ds, batch_size=3, drop_last=True)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]] and len(loader) == 2
    assert [x for x in tnd.DataLoader(ds, batch_size=None)] == list(range(7))
    chained = tnd.DataLoader(ds + Stream([7, 8]), batch_size=5)
    assert [b.tolist() for b in chained] == [[0, 1, 2, 3, 4], [5, 6, 7, 8]]


@pytest.mark.parametrize("kwargs", [dict(shuffle=True), dict(sampler=[0, 1]), dict(batch_sampler=[[0]])])
def test_dataloader_iterable_dataset_errors(kwargs):
    def build(m):
        cls = Stream if m is tnd else _TorchStream
        return m.DataLoader(cls([1, 2]), **kwargs)

    ours, theirs = error_of(lambda: build(tnd)), error_of(lambda: build(tud))
    assert ours[0] is theirs[0] is ValueError
    # the message names the object given (its repr differs between the two libraries)
    assert ours[1].split(", but got")[0] == theirs[1].split(", but got")[0]


@pytest.mark.parametrize("kwargs", [
    dict(sampler=[0, 1], shuffle=True), dict(batch_sampler=[[0]], batch_size=2),
    dict(batch_sampler=[[0]], shuffle=True),
    dict(batch_sampler=[[0]], sampler=[0]), dict(batch_sampler=[[0]], drop_last=True),
    dict(batch_size=None, drop_last=True), dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2),
    dict(persistent_workers=True)])
def test_dataloader_option_errors_match_torch(kwargs):
    same_error(lambda m: m.DataLoader(Range(0, 4), **kwargs))


def test_num_workers_gives_the_same_batches():
    # Worker processes build the batches (test_dataloader_workers.py tests them in depth); the batches are the same.
    ds = tandem.utils.data.TensorDataset(tandem.arange(6.0))
    loader = tandem.utils.data.DataLoader(ds, batch_size=4, num_workers=2)
    assert [b[0].tolist() for b in loader] == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0]]
