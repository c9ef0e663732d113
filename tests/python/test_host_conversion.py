"""tandem.allow_host_conversion: scoped, per-thread, nestable NumPy conversion of device tensors (and, with
detach=True, of tensors that require grad). Device parts run on real or emulated CUDA (TANDEM_EMULATE_CUDA=2)."""
import threading

import numpy as np
import pytest

import tandem

needs_cuda = pytest.mark.skipif(not tandem.cuda.is_available(), reason="no CUDA device (set TANDEM_EMULATE_CUDA=2)")


def refused(convert, t, error=tandem.HostConversionError):
    try:
        convert(t)
    except error:
        return True
    return False


@needs_cuda
@pytest.mark.parametrize("convert", [np.asarray, np.array, lambda t: t.numpy(), lambda t: np.asarray(t, np.float64)],
                         ids=["asarray", "array", "numpy", "asarray-dtype"])
def test_device_tensors_convert_inside_the_block_only(convert):
    t = tandem.arange(6, dtype=tandem.float32, device="cuda").reshape(2, 3)
    assert refused(convert, t)
    with tandem.allow_host_conversion():
        a = convert(t)
    assert isinstance(a, np.ndarray) and a.shape == (2, 3) and a.tolist() == [[0, 1, 2], [3, 4, 5]]
    a[0, 0] = 100  # a host copy: the device tensor is untouched
    assert t.cpu().tolist()[0][0] == 0
    assert refused(convert, t)


@needs_cuda
def test_non_contiguous_device_tensor_converts_with_its_layout():
    t = tandem.arange(6, dtype=tandem.int64, device="cuda").reshape(2, 3).t()
    with tandem.allow_host_conversion():
        assert np.asarray(t).tolist() == [[0, 3], [1, 4], [2, 5]]


@needs_cuda
def test_each_conversion_is_a_counted_device_to_host_copy():
    t = tandem.ones(256, device="cuda")
    tandem.cuda.reset_transfer_stats()
    with tandem.allow_host_conversion():
        np.asarray(t)
        t.numpy()
    s = tandem.cuda.transfer_stats()
    assert s["device_to_host_copies"] == 2 and s["device_to_host_bytes"] == 2 * 1024


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if tandem.cuda.is_available() else []))
def test_detach_decides_whether_tensors_that_require_grad_convert(device):
    t = tandem.ones(3, device=device, requires_grad=True)
    with tandem.allow_host_conversion(detach=False):
        with pytest.raises(tandem.RequiresGradConversionError) as info:
            np.asarray(t)
        assert "detach=True" in str(info.value)
    with tandem.allow_host_conversion(detach=True):
        assert np.asarray(t).tolist() == [1.0] * 3 and t.numpy().tolist() == [1.0] * 3
    assert t.requires_grad  # converting never changes the tensor
    with pytest.raises(tandem.HostConversionError):  # outside: TypeError on cuda, RuntimeError on cpu
        t.numpy()


def test_cpu_tensor_that_requires_grad_converts_without_a_copy():
    t = tandem.zeros(3, requires_grad=True)
    with tandem.allow_host_conversion():
        a = np.asarray(t)
    assert np.shares_memory(a, np.asarray(t.detach()))


@needs_cuda
def test_blocks_nest_and_restore_also_on_exceptions():
    g = tandem.ones(2, device="cuda", requires_grad=True)
    with tandem.allow_host_conversion(detach=True):
        with tandem.allow_host_conversion(detach=False):
            assert refused(np.asarray, g, tandem.RequiresGradConversionError)
            assert np.asarray(g.detach()).tolist() == [1.0, 1.0]
        assert np.asarray(g).tolist() == [1.0, 1.0]
        with pytest.raises(ValueError):
            with tandem.allow_host_conversion(detach=False):
                raise ValueError("boom")
        assert np.asarray(g).tolist() == [1.0, 1.0]
    assert refused(np.asarray, g)


@needs_cuda
def test_the_setting_is_per_thread():
    t = tandem.ones(2, device="cuda")
    seen = {}

    def other_thread():
        seen["refused"] = refused(np.asarray, t)
        with tandem.allow_host_conversion():
            seen["allowed"] = np.asarray(t).tolist()

    with tandem.allow_host_conversion():
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        assert np.asarray(t).tolist() == [1.0, 1.0]
    assert seen == {"refused": True, "allowed": [1.0, 1.0]}
    assert refused(np.asarray, t)


def test_copy_copy_shares_memory_and_keeps_requires_grad_as_in_pytorch():
    import copy

    t = tandem.ones(3, requires_grad=True) * 2
    c = copy.copy(t)
    assert c is not t and c.requires_grad and c.grad_fn is None
    assert np.shares_memory(np.asarray(c.detach()), np.asarray(t.detach()))


def test_usable_as_a_decorator():
    @tandem.allow_host_conversion()
    def to_array(t):
        return np.asarray(t)

    assert to_array(tandem.ones(2, requires_grad=True)).tolist() == [1.0, 1.0]
    assert refused(np.asarray, tandem.ones(2, requires_grad=True), RuntimeError)


@needs_cuda
def test_pandas_dataframe_of_device_tensors():
    pd = pytest.importorskip("pandas")
    preds = tandem.tensor([[0.25, 0.75], [0.5, 0.5]], device="cuda")
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        pd.DataFrame(preds)
    with tandem.allow_host_conversion():
        df = pd.DataFrame(preds, columns=["a", "b"])
    assert df["b"].tolist() == [0.75, 0.5]


@needs_cuda
def test_matplotlib_plots_device_tensors():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    losses = tandem.tensor([3.0, 2.0, 1.5], device="cuda", requires_grad=True) * 1.0
    fig, ax = plt.subplots()
    try:
        with pytest.raises(TypeError):
            ax.plot(losses)
        with tandem.allow_host_conversion():
            (line,) = ax.plot(losses)
        assert line.get_ydata().tolist() == [3.0, 2.0, 1.5]
    finally:
        plt.close(fig)


@needs_cuda
def test_sklearn_metrics_of_device_tensors():
    metrics = pytest.importorskip("sklearn.metrics")
    y_true = tandem.tensor([0, 1, 1, 0], device="cuda")
    y_pred = tandem.tensor([0, 1, 0, 0], device="cuda")
    with pytest.raises(TypeError):
        metrics.accuracy_score(y_true, y_pred)
    with tandem.allow_host_conversion():
        assert metrics.accuracy_score(y_true, y_pred) == 0.75
        assert metrics.mean_squared_error(y_true.float(), y_pred.float()) == 0.25
