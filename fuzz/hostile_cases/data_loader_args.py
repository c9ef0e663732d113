"""torch.utils.data beyond data.py: the DataLoader's arguments given as NumPy integers, floats, strs and None
(batch_size, num_workers, timeout, drop_last, shuffle, prefetch_factor, worker_init_fn, pin_memory_device, in_order),
samplers given as lists, ranges and generators, batch samplers that yield ints or empty lists; the samplers' own
arguments (BatchSampler, RandomSampler, SequentialSampler, WeightedRandomSampler with NaN/inf/int weights and odd
num_samples, SubsetRandomSampler over tensors); random_split with tensors, zeros, fractions that round, a bad
generator; Subset with tensor and negative indices and __getitems__; TensorDataset/ConcatDataset/StackDataset
with non-tensors; default_collate and default_convert of NumPy arrays (str, object, bool, uint16 dtypes), NumPy
scalars, namedtuples, mixed int/float/bool numbers, nested mappings and sequences of sequences. Batches are
compared as values (tensors, lists, dicts)."""
import collections

import numpy as np

from . import Case
from .data import D, _Items as Items, batches, ds  # the data table's helpers

Point = collections.namedtuple("Point", "x y")


def dl(**kw):
    return lambda L, d: batches(D(L).DataLoader(ds(L), **kw))


def made(**kw):
    """Only construct the loader (the checks PyTorch makes before iterating): its len."""
    return lambda L, d: len(D(L).DataLoader(ds(L), **kw))


def collate(batch):
    return lambda L, d: D(L).default_collate(batch(L) if callable(batch) else batch)


def convert(data):
    return lambda L, d: D(L).default_convert(data(L) if callable(data) else data)


def over(items, **kw):
    return lambda L, d: batches(D(L).DataLoader(Items(items(L) if callable(items) else items), **kw))


CASES = {
    # DataLoader arguments of odd types
    "DataLoader/batch_size_numpy": dl(batch_size=np.int64(4)),
    "DataLoader/batch_size_str": made(batch_size="2"),
    "DataLoader/batch_size_huge": dl(batch_size=2**40),
    "DataLoader/batch_size_float_integral": made(batch_size=2.0),
    "DataLoader/num_workers_float": made(num_workers=1.5),
    "DataLoader/num_workers_str": made(num_workers="1"),
    "DataLoader/num_workers_none": made(num_workers=None),
    "DataLoader/timeout_str": made(timeout="1"),
    "DataLoader/timeout_none": made(timeout=None),
    "DataLoader/drop_last_str": dl(batch_size=4, drop_last="yes"),
    "DataLoader/drop_last_none": dl(batch_size=4, drop_last=None),
    "DataLoader/shuffle_str": Case(dl(shuffle="yes"), "shape"),
    "DataLoader/shuffle_none": dl(shuffle=None),
    "DataLoader/prefetch_zero_workers_zero": made(prefetch_factor=0),
    "DataLoader/prefetch_negative_with_workers": made(num_workers=1, prefetch_factor=-1),
    "DataLoader/prefetch_zero_with_workers": made(num_workers=1, prefetch_factor=0),
    "DataLoader/worker_init_not_callable": made(worker_init_fn=3),
    "DataLoader/pin_memory_device_no_pin": dl(pin_memory_device="cpu", batch_size=3),
    "DataLoader/in_order_false": dl(in_order=False, batch_size=3),
    "DataLoader/unknown_kwarg": made(batchsize=3),
    "DataLoader/dataset_none": lambda L, d: len(D(L).DataLoader(None)),
    "DataLoader/dataset_list": lambda L, d: batches(D(L).DataLoader([1, 2, 3], batch_size=2)),
    "DataLoader/dataset_tensor": lambda L, d: batches(D(L).DataLoader(L.arange(5), batch_size=2)),
    "DataLoader/dataset_range": lambda L, d: batches(D(L).DataLoader(range(5), batch_size=2)),
    "DataLoader/dataset_dict": lambda L, d: batches(D(L).DataLoader({0: 1.0, 1: 2.0}, batch_size=2)),
    "DataLoader/dataset_str": lambda L, d: batches(D(L).DataLoader("abc", batch_size=2)),
    # samplers of odd kinds
    "DataLoader/sampler_list": dl(sampler=[5, 0, 3], batch_size=2),
    "DataLoader/sampler_range": dl(sampler=range(4, -1, -2)),
    "DataLoader/sampler_negative_index": dl(sampler=[-1, 0]),
    "DataLoader/sampler_past_end": dl(sampler=[7]),
    "DataLoader/sampler_float_index": dl(sampler=[1.0]),
    "DataLoader/sampler_int": made(sampler=3),
    "DataLoader/sampler_tensor_indices": dl(sampler=[0, 1], batch_size=None),
    "DataLoader/batch_sampler_list_of_lists": dl(batch_sampler=[[0, 1], [5], [2, 3, 4]]),
    "DataLoader/batch_sampler_yields_ints": dl(batch_sampler=[0, 1]),
    "DataLoader/batch_sampler_empty_batch": dl(batch_sampler=[[], [1]]),
    "DataLoader/batch_sampler_and_sampler": made(batch_sampler=[[0]], sampler=[0]),
    "DataLoader/batch_sampler_len": made(batch_sampler=[[0], [1, 2]]),
    "DataLoader/batch_sampler_generator_len": made(batch_sampler=iter([[0]])),
    "DataLoader/sampler_generator_len": made(sampler=iter([0, 1])),
    "DataLoader/collate_returns_none": dl(batch_size=2, collate_fn=lambda b: None),
    "DataLoader/collate_returns_batch": dl(batch_size=2, collate_fn=lambda b: b),
    "DataLoader/batch_size_none_len": made(batch_size=None),
    "DataLoader/batch_size_none_collate": lambda L, d: batches(D(L).DataLoader([np.float32(1.5), 2], batch_size=None)),
    "DataLoader/len_drop_last_exact": made(batch_size=3, drop_last=True),
    "DataLoader/len_batch_bigger_drop_last": made(batch_size=7, drop_last=True),
    # BatchSampler / RandomSampler / SequentialSampler / WeightedRandomSampler / SubsetRandomSampler
    "BatchSampler/negative": lambda L, d: D(L).BatchSampler(range(4), -1, False),
    "BatchSampler/float": lambda L, d: D(L).BatchSampler(range(4), 2.0, False),
    "BatchSampler/none": lambda L, d: D(L).BatchSampler(range(4), None, False),
    "BatchSampler/drop_last_none": lambda L, d: D(L).BatchSampler(range(4), 2, None),
    "BatchSampler/list_sampler": lambda L, d: list(D(L).BatchSampler([3, 1, 2], 2, False)),
    "BatchSampler/len_no_sampler_len": lambda L, d: len(D(L).BatchSampler(iter([1, 2]), 2, False)),
    "BatchSampler/len_drop": lambda L, d: len(D(L).BatchSampler(range(7), 3, True)),
    "BatchSampler/numpy_batch_size": lambda L, d: list(D(L).BatchSampler(range(5), np.int64(2), False)),
    "RandomSampler/replacement_int": lambda L, d: D(L).RandomSampler(range(3), replacement=1),
    "RandomSampler/num_samples_bool": lambda L, d: len(D(L).RandomSampler(range(3), num_samples=True)),
    "RandomSampler/num_samples_more_no_replacement": Case(
        lambda L, d: sorted(list(D(L).RandomSampler(range(3), num_samples=7))[:6]), "exact"),
    "RandomSampler/generator_int": lambda L, d: list(D(L).RandomSampler(range(3), generator=3)),
    "RandomSampler/len": lambda L, d: len(D(L).RandomSampler(range(5), replacement=True, num_samples=9)),
    "SequentialSampler/len_of_unsized": lambda L, d: len(D(L).SequentialSampler(iter([1]))),
    "SequentialSampler/list": lambda L, d: list(D(L).SequentialSampler([7, 8])),
    "WeightedRandomSampler/weights_list_ok": Case(lambda L, d: len(list(D(L).WeightedRandomSampler([1, 2], 5))),
                                                  "exact"),
    "WeightedRandomSampler/weights_nan": lambda L, d: list(D(L).WeightedRandomSampler([1.0, float("nan")], 3)),
    "WeightedRandomSampler/weights_inf": lambda L, d: list(D(L).WeightedRandomSampler([1.0, float("inf")], 3)),
    "WeightedRandomSampler/weights_all_zero": lambda L, d: list(D(L).WeightedRandomSampler([0.0, 0.0], 3)),
    "WeightedRandomSampler/weights_empty": lambda L, d: list(D(L).WeightedRandomSampler([], 3)),
    "WeightedRandomSampler/weights_str": lambda L, d: D(L).WeightedRandomSampler("ab", 3),
    "WeightedRandomSampler/weights_0d": lambda L, d: list(D(L).WeightedRandomSampler(L.tensor(1.0), 2)),
    "WeightedRandomSampler/num_samples_negative": lambda L, d: D(L).WeightedRandomSampler([1.0], -2),
    "WeightedRandomSampler/num_samples_float": lambda L, d: D(L).WeightedRandomSampler([1.0], 2.0),
    "WeightedRandomSampler/num_samples_bool": lambda L, d: D(L).WeightedRandomSampler([1.0], True),
    "WeightedRandomSampler/len": lambda L, d: len(D(L).WeightedRandomSampler([1.0, 2.0], 7)),
    "WeightedRandomSampler/int_weights_tensor": Case(
        lambda L, d: len(list(D(L).WeightedRandomSampler(L.tensor([1, 3]), 4))), "exact"),
    "SubsetRandomSampler/tensor_indices": Case(lambda L, d: sorted(D(L).SubsetRandomSampler(L.tensor([4, 2]))),
                                               "exact"),
    "SubsetRandomSampler/len": lambda L, d: len(D(L).SubsetRandomSampler([4, 2, 2])),
    # random_split
    "random_split/tensor_lengths": lambda L, d: [len(s) for s in D(L).random_split(range(5), L.tensor([2, 3]))],
    "random_split/zeros": lambda L, d: [len(s) for s in D(L).random_split(range(0), [0, 0])],
    "random_split/fraction_rounding": lambda L, d: [len(s) for s in D(L).random_split(range(10), [0.33, 0.33, 0.34])],
    "random_split/fractions_over_one": lambda L, d: D(L).random_split(range(10), [0.5, 0.6]),
    "random_split/fraction_negative": lambda L, d: D(L).random_split(range(10), [1.5, -0.5]),
    "random_split/mixed_int_float": lambda L, d: D(L).random_split(range(10), [5, 0.5]),
    "random_split/generator_int": lambda L, d: D(L).random_split(range(4), [2, 2], generator=1),
    "random_split/empty_lengths": lambda L, d: D(L).random_split(range(4), []),
    "random_split/one_length": lambda L, d: [len(s) for s in D(L).random_split(range(4), [4])],
    # Subset / TensorDataset / ConcatDataset / StackDataset
    "Subset/tensor_indices": lambda L, d: D(L).Subset(ds(L), L.tensor([2, 0]))[1],
    "Subset/negative_index": lambda L, d: D(L).Subset(ds(L), [0, -1])[1],
    "Subset/getitems": lambda L, d: D(L).Subset(ds(L), [3, 1, 0]).__getitems__([0, 2]),
    "Subset/len": lambda L, d: len(D(L).Subset(ds(L), range(2, 5))),
    "Subset/slice": lambda L, d: D(L).Subset(ds(L), [3, 1, 0])[0:2],
    "TensorDataset/no_tensors": lambda L, d: len(D(L).TensorDataset()),
    "TensorDataset/list_arg": lambda L, d: D(L).TensorDataset([1, 2]),
    "TensorDataset/slice": lambda L, d: ds(L)[1:3],
    "TensorDataset/tensor_index": lambda L, d: ds(L)[L.tensor(2)],
    "ConcatDataset/lists": lambda L, d: D(L).ConcatDataset([[1, 2], [3]])[2],
    "ConcatDataset/len": lambda L, d: len(D(L).ConcatDataset([ds(L, 2), ds(L, 3)])),
    "ConcatDataset/unsized": lambda L, d: D(L).ConcatDataset([iter([1])]),
    "ConcatDataset/cumulative_sizes": lambda L, d: D(L).ConcatDataset([[1], [], [2, 3]]).cumulative_sizes,
    "StackDataset/empty": lambda L, d: D(L).StackDataset(),
    "StackDataset/tuple_item": lambda L, d: D(L).StackDataset(ds(L), [10, 11, 12, 13, 14, 15])[1],
    "StackDataset/dict_item": lambda L, d: D(L).StackDataset(a=[1, 2], b=[3, 4])[0],
    # default_collate / default_convert
    "collate/numpy_str_arrays": collate([np.array(["a"]), np.array(["b"])]),
    "collate/numpy_object_arrays": collate([np.array([1], dtype=object), np.array([2], dtype=object)]),
    "collate/numpy_bool_arrays": collate([np.array([True]), np.array([False])]),
    "collate/numpy_uint16_arrays": collate([np.array([1], dtype=np.uint16), np.array([2], dtype=np.uint16)]),
    "collate/numpy_0d_arrays": collate([np.array(1.5), np.array(2.5)]),
    "collate/numpy_scalars": collate([np.float32(1.5), np.float32(2.5)]),
    "collate/numpy_int_scalars": collate([np.int16(1), np.int16(2)]),
    "collate/numpy_str_scalars": collate([np.str_("a"), np.str_("b")]),
    "collate/numpy_shapes_differ": collate([np.zeros(2), np.zeros(3)]),
    "collate/namedtuple": collate([Point(1, 2.0), Point(3, 4.0)]),
    "collate/namedtuple_of_tensors": collate(lambda L: [Point(L.ones(2), 1), Point(L.zeros(2), 2)]),
    "collate/int_then_float": collate([1, 2.5]),
    "collate/float_then_int": collate([2.5, 1]),
    "collate/bool_then_int": collate([True, 2]),
    "collate/dict_nested": collate([{"a": {"b": 1}}, {"a": {"b": 2}}]),
    "collate/dict_missing_key": collate([{"a": 1, "b": 2}, {"a": 3}]),
    "collate/list_of_lists": collate([[[1, 2]], [[3, 4]]]),
    "collate/tensor_dtypes_differ": collate(lambda L: [L.ones(2), L.ones(2, dtype=L.int64)]),
    "collate/tensor_0d_and_1d": collate(lambda L: [L.tensor(1.0), L.ones(1)]),
    "collate/tensors_requiring_grad": collate(lambda L: [L.ones(2, requires_grad=True), L.ones(2)]),
    "collate/empty_list_items": collate([[], []]),
    "collate/bytes_items": collate([b"a", b"b"]),
    "collate/none_items": collate([None, None]),
    "collate/mixed_types": collate([1, "a"]),
    "collate/complex_numbers": collate([1 + 2j, 3j]),
    "convert/numpy_array": convert(np.arange(3)),
    "convert/numpy_str_array": lambda L, d: D(L).default_convert(np.array(["a", "b"])).tolist(),
    "convert/numpy_scalar": convert(np.float64(2.5)),
    "convert/namedtuple_of_arrays": convert(Point(np.zeros(2), np.ones(1))),
    "convert/dict_of_arrays": convert({"a": np.zeros(2)}),
    "convert/tuple": convert((np.zeros(1), 3)),
    "loader/namedtuple_items": over([Point(1, 2.0), Point(3, 4.0), Point(5, 6.0)], batch_size=2),
    "loader/numpy_items": over([np.zeros(2, dtype=np.float32), np.ones(2, dtype=np.float32)], batch_size=2),
    "loader/string_items": over(["a", "b", "c"], batch_size=2),
    "loader/ragged_numpy": over([np.zeros(2), np.zeros(3)], batch_size=2),
}

# RandomSampler/random_split with generator=int: randperm's listing of its two overloads since session 44
KNOWN = {}
