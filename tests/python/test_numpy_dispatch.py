"""NumPy functions that hand work to the array's own method (np.mean(t) calls t.mean(axis=..., dtype=...,
out=...)) give the same values as on the equivalent ndarray, and on a device they compute there."""
import numpy as np
import pytest

import tandem


def data():
    return np.array([[1.25, -2.5, 0.125, 7.0], [3.5, 2.5, -0.5, 0.0], [9.0, -1.0, 4.25, 2.0]], dtype=np.float32)


CASES = [
    ("mean", lambda f, a: f.mean(a)), ("mean axis", lambda f, a: f.mean(a, axis=1)),
    ("mean keepdims", lambda f, a: f.mean(a, axis=0, keepdims=True)),
    ("sum", lambda f, a: f.sum(a)), ("sum axis", lambda f, a: f.sum(a, axis=0)),
    ("sum tuple axis", lambda f, a: f.sum(a, axis=(0, 1))),
    ("max", lambda f, a: f.max(a)), ("max axis", lambda f, a: f.max(a, axis=1)),
    ("min", lambda f, a: f.min(a)), ("min axis keepdims", lambda f, a: f.min(a, axis=0, keepdims=True)),
    ("std", lambda f, a: f.std(a)), ("std ddof", lambda f, a: f.std(a, axis=1, ddof=1)),
    ("var", lambda f, a: f.var(a)), ("var axis", lambda f, a: f.var(a, axis=0)),
    ("argmax", lambda f, a: f.argmax(a)), ("argmax axis", lambda f, a: f.argmax(a, axis=1)),
    ("argmin", lambda f, a: f.argmin(a)), ("argmin axis", lambda f, a: f.argmin(a, axis=0)),
    ("round", lambda f, a: f.round(a)), ("round decimals", lambda f, a: f.round(a, 1)),
    ("clip", lambda f, a: f.clip(a, -1, 2)),
    ("transpose", lambda f, a: f.transpose(a)), ("transpose axes", lambda f, a: f.transpose(a, (1, 0))),
    ("reshape", lambda f, a: f.reshape(a, (4, 3))), ("reshape -1", lambda f, a: f.reshape(a, -1)),
]


@pytest.mark.parametrize("name,call", CASES, ids=[c[0] for c in CASES])
def test_numpy_function_on_tensor_matches_ndarray(name, call, device):
    a = data()
    t = tandem.from_numpy(a.copy()).to(device)
    expected = np.asarray(call(np, a))
    got = call(np, t)
    if device == "cpu":
        got_values = np.asarray(got)
    else:
        # on a device the result stays there (no hidden transfer), as with CuPy
        assert isinstance(got, tandem.Tensor) and got.device == device
        got_values = got.cpu().numpy()
    assert got_values.shape == expected.shape
    np.testing.assert_allclose(got_values, expected, rtol=1e-6, atol=1e-6)


def test_out_argument_takes_tensors_and_refuses_arrays():
    t = tandem.ones(3)
    out = tandem.empty(3)
    assert t.clip(0, 0.5, out=out) is out and out.tolist() == [0.5] * 3
    with pytest.raises(TypeError, match=r"^clip\(\): argument 'out' must be Tensor, not ndarray"):
        t.clip(0, 1, out=np.empty(3, np.float32))
    # NumPy itself catches that TypeError and computes on an ndarray, so np.clip(t, ..., out=a) still fills a
    out = np.empty(3, np.float32)
    np.clip(t, 0, 0.5, out=out)
    assert out.tolist() == [0.5, 0.5, 0.5]
