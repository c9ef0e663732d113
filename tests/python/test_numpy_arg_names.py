"""NumPy's parameter names on every C++-bound function and Tensor method, as PyTorch's argument parser takes them:
`axis=` for `dim=`, `keepdims=` for `keepdim=`, `dim=` for concatenate's `axis=` (python/src/numpy_arg_names.cpp),
with PyTorch's TypeError when a call gives both names."""
import numpy as np
import pytest
import torch

import tandem

X = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
INDEX = np.array([[0, 2, 1, 0]], dtype=np.int64)

# Calls PyTorch 2.15 accepts with NumPy's names; `lib` is torch or tandem, `t` a 3x4 float tensor, `i` an index.
CALLS = [
    "lib.softmax(t, axis=1)",
    "t.softmax(axis=0)",
    "lib.log_softmax(t, axis=0)",
    "t.log_softmax(axis=1, dtype=lib.float64)",
    "lib.sort(t, axis=0)",
    "t.sort(axis=1, descending=True)",
    "lib.argsort(t, axis=0)",
    "lib.gather(t, axis=0, index=i)",
    "t.gather(0, i)",
    "t.gather(axis=1, index=i)",
    "lib.cumsum(t, axis=0)",
    "t.cumprod(axis=1)",
    "lib.cummax(t, axis=0)",
    "lib.unsqueeze(t, axis=0)",
    "t.unsqueeze(axis=-1)",
    "lib.squeeze(t[:1], axis=0)",
    "lib.topk(t, 2, axis=0)",
    "lib.kthvalue(t, 1, axis=0)",
    "lib.kthvalue(t, 2, axis=1, keepdims=True)",
    "lib.index_select(t, axis=0, index=i[0, :2])",
    "lib.narrow(t, axis=0, start=0, length=2)",
    "lib.select(t, axis=1, index=2)",
    "lib.unbind(t, axis=1)",
    "lib.chunk(t, 2, axis=1)",
    "lib.tensor_split(t, 2, axis=0)",
    "lib.diff(t, axis=0)",
    "lib.repeat_interleave(t, 2, axis=0)",
    "lib.argmax(t, axis=1)",
    "t.argmax(axis=0, keepdims=True)",
    "lib.argmin(t, axis=1, keepdims=True)",
    "lib.max(t, axis=0)",
    "t.min(axis=1, keepdims=True)",
    "lib.median(t, axis=0)",
    "lib.mode(t, axis=1, keepdims=True)",
    "lib.logsumexp(t, axis=0)",
    "lib.logsumexp(t, axis=1, keepdims=True)",
    "lib.sum(t, axis=0, keepdims=True)",
    "lib.mean(t, 0, keepdims=True)",
    "lib.std(t, axis=0)",
    "lib.amax(t, axis=0, keepdims=True)",
    "lib.any(t > 0, axis=0)",
    "lib.all(t > 0, axis=1, keepdims=True)",
    "lib.count_nonzero(t, axis=0)",
    "lib.cat([t, t], axis=1)",
    "lib.concat([t, t], axis=0)",
    "lib.stack([t, t], axis=-1)",
    "lib.concatenate([t, t], dim=1)",
    "lib.concatenate([t, t], axis=0)",
    "lib.linalg.norm(t, axis=0)",
    "lib.renorm(t, 2, axis=0, maxnorm=1)",
    "lib.cross(t[:, :3], t[:, 1:], axis=1)",
]


def _run(lib, call, device):
    t = lib.tensor(X) if lib is torch else lib.tensor(X, device=device)
    i = lib.tensor(INDEX) if lib is torch else lib.tensor(INDEX, device=device)
    return eval(call, {"lib": lib, "t": t, "i": i})


def _flatten(result):
    if isinstance(result, (tuple, list)):
        return [r for item in result for r in _flatten(item)]
    return [result]


@pytest.mark.parametrize("call", CALLS)
def test_numpys_names_give_pytorchs_results(call, device):
    want = _flatten(_run(torch, call, "cpu"))
    got = _flatten(_run(tandem, call, device))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.device == tandem.device(device)
        assert str(g.dtype).split(".")[1] == str(w.dtype).split(".")[1]
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-6, atol=1e-6)


BOTH_NAMES = [
    "lib.softmax(t, 0, axis=1)",
    "t.softmax(dim=0, axis=0)",
    "t.softmax(0, axis=0)",
    "lib.gather(t, 0, i, axis=0)",
    "lib.cumsum(t, dim=0, axis=0)",
    "lib.unsqueeze(t, 0, axis=0)",
    "lib.cat([t], 0, axis=1)",
    "lib.stack([t], dim=0, axis=0)",
    "lib.concatenate([t], 0, dim=0)",
    "lib.sum(t, 0, keepdim=True, keepdims=True)",
    "lib.argmax(t, 0, keepdim=True, keepdims=True)",
]


@pytest.mark.parametrize("call", BOTH_NAMES)
def test_both_names_at_once_is_pytorchs_type_error(call, device):
    with pytest.raises(TypeError) as want:
        _run(torch, call, "cpu")
    with pytest.raises(TypeError) as got:
        _run(tandem, call, device)
    assert str(got.value) == str(want.value)


def test_a_wrong_argument_with_numpys_name_is_still_a_type_error(device):
    t = tandem.ones(2, 3, device=device)
    with pytest.raises(TypeError, match="softmax"):
        tandem.softmax(t, axis="x")
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.softmax(axis=2)
    with pytest.raises(TypeError):
        t.unsqueeze(axis=0, foo=1)


def test_ordinary_calls_keep_their_signatures():
    # The extra overloads come after the real ones and require NumPy's name, so the first listed signature is
    # the function's own.
    first = tandem._C.softmax.__nb_signature__[0][0]
    assert first.startswith("def softmax(input") and "axis" not in first
    assert any("axis" in sig for sig, *_ in tandem._C.softmax.__nb_signature__)
    assert not any("keepdims: object, **kwargs" in sig for sig, *_ in tandem._C.sum.__nb_signature__)


def test_max_with_axis_is_pytorchs_pair_and_numpys_values():
    t = tandem.tensor(X)
    got, want = tandem.max(t, axis=1), torch.max(torch.tensor(X), axis=1)
    assert type(got).__name__ == "max" and got.indices.tolist() == want.indices.tolist()
    assert got.values.tolist() == want.values.tolist()
    lo = t.min(axis=0, keepdims=True)
    assert lo.indices.shape == (1, 4) and lo.indices.tolist() == torch.tensor(X).min(0, keepdim=True).indices.tolist()
    # NumPy's reductions call t.max(axis=..., out=None) and return what it gives: the values, as np.max does
    np.testing.assert_array_equal(np.max(t, axis=1).numpy(), X.max(axis=1))
    np.testing.assert_array_equal(np.min(t, axis=0, keepdims=True).numpy(), X.min(axis=0, keepdims=True))
    assert "out: object | None = None, initial" in tandem._C.max.__doc__.splitlines()[0]  # help() shows None


def test_python_level_functions_take_numpys_names_and_still_pickle():
    import pickle
    t = tandem.tensor(X)
    assert tandem.diff(t, axis=0).shape == (2, 4) and t.diff(axis=1).shape == (3, 3)
    with pytest.raises(TypeError, match=r"^diff\(\) got an unexpected keyword argument 'axis'$"):
        tandem.diff(t, 1, 0, axis=0)
    assert pickle.loads(pickle.dumps(tandem.diff)) is tandem.diff
    assert pickle.loads(pickle.dumps(tandem.linalg.norm)) is tandem.linalg.norm
