"""default_collate / default_convert at PyTorch's module path (tandem.utils.data._utils.collate), compared with
PyTorch's: container types kept (OrderedDict, defaultdict with its factory, list subclasses; tuples become lists),
dtypes of numbers and NumPy scalars, the errors, collate_fn_map extension, and batch_size=None converting."""
import collections

import numpy as np
import pytest

import tandem

torch = pytest.importorskip("torch")


class Point:
    def __init__(self, v):
        self.v = v


class Items(list):
    pass


Pair = collections.namedtuple("Pair", "x y")


def normalised(value):
    """Comparable across libraries: tensors as (values, dtype name), containers as (type name, contents)."""
    if hasattr(value, "tolist") and hasattr(value, "dtype") and not isinstance(value, np.ndarray):
        return ("tensor", value.tolist(), str(value.dtype).split(".")[1])
    if isinstance(value, dict):
        return (type(value).__name__, {k: normalised(v) for k, v in value.items()},
                getattr(value, "default_factory", None))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [normalised(v) for v in value])
    return value


BATCHES = [
    [collections.OrderedDict(a=1), collections.OrderedDict(a=2)],
    [collections.defaultdict(list, a=1.5), collections.defaultdict(list, a=2.5)],
    [[1, 2], [3, 4]],
    [(1, 2), (3, 4)],
    [Items([1]), Items([2])],
    [np.float32(1), np.float32(2)],
    [np.int16(1)],
    [True, False],
    [np.bool_(True)],
    [np.array([1.0]), np.array([2.0])],
    [np.array(1.5), np.array(2.5)],
    [1, 2.5],
    [1.0],
    [b"x", b"y"],
    ["a", "b"],
    [Pair(1, 2.0), Pair(3, 4.0)],
    [{"x": np.zeros(2, np.float32), "label": 3}, {"x": np.ones(2, np.float32), "label": 4}],
]


@pytest.mark.parametrize("index", range(len(BATCHES)))
def test_default_collate_matches_pytorch(index):
    batch = BATCHES[index]
    assert normalised(tandem.utils.data.default_collate(batch)) == \
        normalised(torch.utils.data.default_collate(batch))


def test_default_collate_errors_match_pytorch():
    for batch, error in [([np.array(["a"]), np.array(["b"])], TypeError), ([object()], TypeError),
                         ([[1, 2], [3]], RuntimeError)]:
        messages = []
        for lib in (tandem, torch):
            with pytest.raises(error) as info:
                lib.utils.data.default_collate(batch)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


def test_default_convert_matches_pytorch():
    for data in ({"a": np.array([1]), "b": (np.array([2]), 3)}, collections.OrderedDict(a=np.array([1])),
                 (np.array([1]),), np.array([1.5]), [np.int32(2)], "text", Pair(np.array([1]), 2)):
        assert normalised(tandem.utils.data.default_convert(data)) == \
            normalised(torch.utils.data.default_convert(data))
    strings = np.array(["a"])
    assert tandem.utils.data.default_convert(strings) is strings


def test_collate_fn_map_extends_collate():
    from tandem.utils.data._utils.collate import collate, default_collate_fn_map

    mapping = dict(default_collate_fn_map)
    mapping[Point] = lambda batch, *, collate_fn_map=None: sum(p.v for p in batch)
    batch = collate([{"p": Point(1), "x": 1}, {"p": Point(2), "x": 2}], collate_fn_map=mapping)
    assert batch["p"] == 3 and batch["x"].tolist() == [1, 2]
    with pytest.raises(TypeError, match="found <class 'test_data_collate.Point'>"):
        tandem.utils.data.default_collate([Point(1)])


def test_batch_size_none_converts_each_sample():
    class Arrays(tandem.utils.data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return np.array([i, i])

    loader = tandem.utils.data.DataLoader(Arrays(), batch_size=None)
    assert loader.collate_fn is tandem.utils.data.default_convert
    batches = list(loader)
    assert [b.tolist() for b in batches] == [[0, 0], [1, 1]] and all(b.dtype == tandem.int64 for b in batches)


def test_module_paths_programs_import():
    """Module paths PyTorch programs and libraries import that name nothing new."""
    import tandem._dynamo.config as dynamo_config
    from tandem._tensor import Tensor
    from tandem.nn import common_types
    from tandem.utils.data._utils.collate import default_collate

    assert dynamo_config is tandem._dynamo.config and dynamo_config.suppress_errors is False
    assert Tensor is tandem.Tensor
    assert default_collate is tandem.utils.data.default_collate
    import torch.nn.common_types as reference

    names = {n for n in dir(reference) if n.startswith("_") and n.endswith("_t")}
    assert names <= set(dir(common_types))
    assert repr(common_types._size_2_t) == "typing.Union[int, tuple[int, int]]" == repr(reference._size_2_t)
