"""arange / linspace / eye against PyTorch: values, dtypes, shapes and error messages."""
import math

import pytest
import torch

import tandem

ALL = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def check(t, ref, exact=False):
    assert str(t.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert tuple(t.shape) == tuple(ref.shape)
    got = torch.tensor(t.tolist(), dtype=ref.dtype)
    if exact:
        assert got.tolist() == ref.tolist()
    else:
        torch.testing.assert_close(got, ref)


@pytest.mark.parametrize(
    "args",
    [(5,), (0,), (5.0,), (1, 4), (-3, 7, 2), (10, 0, -3), (0, 1, 0.3), (-5, 5, 0.5), (2.5, -1.0, -0.25),
     (5, 5), (0, 1, 0.1), (1, 1000003, 7)],
)
def test_arange_matches_torch(args, device):
    check(tandem.arange(*args, device=device), torch.arange(*args))


@pytest.mark.parametrize("dtype", ALL)
def test_arange_dtypes(dtype, device):
    check(tandem.arange(0, 20, 3, dtype=getattr(tandem, dtype), device=device),
          torch.arange(0, 20, 3, dtype=getattr(torch, dtype)))
    check(tandem.arange(0.5, 5, dtype=getattr(tandem, dtype), device=device),
          torch.arange(0.5, 5, dtype=getattr(torch, dtype)))


def test_arange_keywords_and_inference():
    assert tandem.arange(end=4).tolist() == [0, 1, 2, 3]
    assert tandem.arange(start=1, end=4).tolist() == [1, 2, 3]
    assert tandem.arange(1, 4, step=2).tolist() == [1, 3]
    assert tandem.arange(5).dtype is tandem.int64
    assert tandem.arange(5.0).dtype is tandem.float32
    assert tandem.arange(0, 5, 1.0).dtype is tandem.float32
    assert tandem.arange(tandem.tensor(3)).tolist() == [0, 1, 2]
    t = tandem.arange(3.0, requires_grad=True)
    assert t.requires_grad


@pytest.mark.parametrize(
    "args,kwargs,exc,msg",
    [((0, 5, 0), {}, RuntimeError, "step must be nonzero"),
     ((5, 0, 1), {}, RuntimeError, "upper bound and lower bound inconsistent with step sign"),
     ((0, 5, -1), {}, RuntimeError, "upper bound and lower bound inconsistent with step sign"),
     ((0, math.inf), {}, RuntimeError, "unsupported range: 0 -> inf"),
     ((3,), {"dtype": "bool"}, NotImplementedError, "\"arange_cpu\" not implemented for 'Bool'"),
     ((3,), {"requires_grad": True}, RuntimeError,
      "Only Tensors of floating point and complex dtype can require gradients")],
)
def test_arange_errors(args, kwargs, exc, msg):
    tk = {k: (getattr(tandem, v) if k == "dtype" else v) for k, v in kwargs.items()}
    pk = {k: (getattr(torch, v) if k == "dtype" else v) for k, v in kwargs.items()}
    with pytest.raises(exc) as ours:
        tandem.arange(*args, **tk)
    with pytest.raises(exc) as theirs:
        torch.arange(*args, **pk)
    assert str(ours.value).splitlines()[0] == msg == str(theirs.value).splitlines()[0]
    assert "hint:" in str(ours.value)


@pytest.mark.parametrize("args", [(0, 10, 5), (0, 10, 0), (3, 3, 1), (-1.5, 2.5, 7), (10, 0, 4), (0, 1, 1000)])
def test_linspace_matches_torch(args, device):
    check(tandem.linspace(*args, device=device), torch.linspace(*args))


@pytest.mark.parametrize("dtype", ALL)
def test_linspace_dtypes(dtype, device):
    ref = torch.linspace(0, 100, 9, dtype=getattr(torch, dtype))
    check(tandem.linspace(0, 100, 9, dtype=getattr(tandem, dtype), device=device), ref,
          exact=not ref.is_floating_point())


def test_linspace_errors():
    with pytest.raises(RuntimeError, match="^number of steps must be non-negative"):
        tandem.linspace(0, 1, -1)
    with pytest.raises(NotImplementedError, match="\"linspace_cpu\" not implemented for 'Bool'"):
        tandem.linspace(0, 1, 3, dtype=tandem.bool)


@pytest.mark.parametrize("n,m", [(3, None), (0, None), (3, 2), (2, 5), (1, 1), (4, 0)])
@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float16"])
def test_eye_matches_torch(n, m, dtype, device):
    ours = tandem.eye(n, m, dtype=getattr(tandem, dtype), device=device)
    ref = torch.eye(n, m, dtype=getattr(torch, dtype)) if m is not None else torch.eye(n, dtype=getattr(torch, dtype))
    check(ours, ref, exact=True)


def test_eye_defaults_and_errors():
    assert tandem.eye(2).dtype is tandem.float32
    assert tandem.eye(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="^n must be greater or equal to 0, got -1"):
        tandem.eye(-1)
    with pytest.raises(RuntimeError, match="^m must be greater or equal to 0, got -1"):
        tandem.eye(2, -1)


# tensor() of the Python data ordinary programs pass (pytorch/examples reinforce.py, minimalRL ppo-continuous).
def _tensor_cases():
    import collections

    import numpy as np

    return {
        "deque": lambda lib: lib.tensor(collections.deque([1.0, 2.5])),
        "deque_of_deques": lambda lib: lib.tensor([collections.deque([1, 2]), collections.deque([3, 4])]),
        "userlist": lambda lib: lib.tensor(collections.UserList([True, False])),
        "nested_arrays": lambda lib: lib.tensor([[np.array([1.0, 2.0], dtype=np.float32)],
                                                 [np.array([3.0, 4.0], dtype=np.float32)]]),
        "nested_arrays_dtype": lambda lib: lib.tensor([[np.array([1.0, 2.0])], [np.array([3.0, 4.0])]],
                                                      dtype=lib.float16),
        "tuple_list_int_array": lambda lib: lib.tensor(([np.array([1, 2])],)),
        "numbers_then_array": lambda lib: lib.tensor([[1.0, 2.0], np.array([3.0, 4.0])]),
        "one_element_tensors": lambda lib: lib.tensor([lib.tensor([1.5]), lib.tensor([[2.0]])]),
        "zero_dim_int_tensors": lambda lib: lib.tensor([[lib.tensor(1), lib.tensor(2)]]),
    }


@pytest.mark.parametrize("case", list(_tensor_cases()))
def test_tensor_from_python_sequences_and_nests(case, device):
    make = _tensor_cases()[case]
    ref = make(torch)
    got = make(tandem)
    check(got, ref, exact=True)
    moved = tandem.tensor(got.tolist(), dtype=got.dtype, device=device)
    assert moved.device.type == device.split(":")[0]


def test_tensor_from_nests_keeps_pytorchs_errors():
    import numpy as np

    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        tandem.tensor([tandem.tensor([1.0, 2.0]), tandem.tensor([2.0, 3.0])])
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1"):
        tandem.tensor([[1.0, 2.0], np.array([3.0, 4.0, 5.0])])
    with pytest.raises(RuntimeError, match="^Could not infer dtype of dict_values\n"):  # PyTorch's type and words
        tandem.tensor({1: 2}.values())


class _PositionalSequence:  # a user's sequence class: __len__ and __getitem__ only (PySequence_Check)
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


# pandas columns straight into tensor() (program sweep 'sweepgen': torch.tensor(df["label"]) in a tabular
# pipeline). PyTorch reads any PySequence_Check object by position, so a float64 Series keeps float64.
def _sequence_object_cases():
    pd = pytest.importorskip("pandas")
    import numpy as np
    frame = pd.DataFrame({"age": [31, 45, 27], "income": [5.5, 7.25, 3.0], "owner": [True, False, True]})
    return {
        "series_int64": lambda lib: lib.tensor(frame["age"]),
        "series_float64": lambda lib: lib.tensor(frame["income"]),
        "series_bool": lambda lib: lib.tensor(frame["owner"]),
        "series_float32": lambda lib: lib.tensor(frame["income"].astype(np.float32)),
        "series_with_dtype": lambda lib: lib.tensor(frame["age"], dtype=lib.float32),
        "series_reindexed": lambda lib: lib.tensor(frame[frame.age > 30]["income"].reset_index(drop=True)),
        "series_of_lists": lambda lib: lib.tensor(pd.Series([[1, 2], [3, 4]])),
        "index": lambda lib: lib.tensor(frame.index),
        "list_of_series": lambda lib: lib.tensor([frame["age"], frame["age"] * 2]),
        "empty_series": lambda lib: lib.tensor(pd.Series([], dtype=np.float64)),
        "user_sequence": lambda lib: lib.tensor(_PositionalSequence([1.5, 2.0])),
        "user_sequences_nested": lambda lib: lib.tensor((_PositionalSequence([1, 2]), _PositionalSequence([3, 4]))),
        "as_tensor_series": lambda lib: lib.as_tensor(frame["income"], dtype=lib.float32),
    }


@pytest.mark.parametrize("case", ["series_int64", "series_float64", "series_bool", "series_float32",
                                  "series_with_dtype", "series_reindexed", "series_of_lists", "index",
                                  "list_of_series", "empty_series", "user_sequence", "user_sequences_nested",
                                  "as_tensor_series"])
def test_tensor_from_objects_passing_the_sequence_check(case, device):
    make = _sequence_object_cases()[case]
    check(make(tandem), make(torch), exact=True)
    on_device = tandem.tensor(_PositionalSequence([1.0, 2.0]), device=device, requires_grad=True)
    assert on_device.device.type == device.split(":")[0] and on_device.requires_grad


def test_tensor_from_sequences_without_position_zero_raises_as_pytorch():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"age": [31, 45, 27], "income": [5.5, 7.25, 3.0]})
    for data in (frame[frame.age > 40]["income"], frame, _PositionalSequence({"a": 1})):  # label 1; columns
        messages = []
        for lib in (torch, tandem):
            with pytest.raises(ValueError) as info:
                lib.tensor(data)
            messages.append(str(info.value))
        assert messages[0] == messages[1]
    # labels 0 and 2: position 1 is missing (PyTorch's KeyError); a dict is no sequence; strings stay refused
    for data in (frame[frame.age < 40]["income"], {1: 2}, pd.Series(["x"])):
        kinds = []
        for lib in (torch, tandem):
            with pytest.raises(Exception) as info:
                lib.tensor(data)
            kinds.append((type(info.value), str(info.value).splitlines()[0]))
        assert kinds[0] == kinds[1]


def test_tensor_from_nests_with_arrays_infers_pytorchs_dtype():
    """PyTorch promotes the arrays' dtypes with the Python numbers' (float: the default dtype), not NumPy's way."""
    import warnings

    import numpy as np

    cases = [
        lambda: [[1.0, 2.0], np.array([3.0, 4.0], dtype=np.float32)],
        lambda: [[1.0], np.array([2.0], np.float16)],
        lambda: [[1], np.array([2], np.int32)],
        lambda: [[True], np.array([2], np.int8)],
        lambda: [np.array([1, 2], np.int32), np.array([3.0, 4.0], np.float16)],
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for make in cases:
            check(tandem.tensor(make()), torch.tensor(make()), exact=True)
