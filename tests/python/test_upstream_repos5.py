"""What the fifth sweep of real repositories run unchanged on tandem found (PyTorch Geometric's tests and a GCN /
GAT / graph-classification training run; docs/compat.md, "Upstream repositories"): each test is our own smallest
form of one failure, checked against PyTorch."""
import warnings

import pytest
import torch

import tandem

LIBS = (tandem, torch)


def _outcome(fn):
    """A call's result as comparable data: values and dtype name, or the exception's type and first line."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e).split("\nhint:")[0].replace("_cuda\"", "_cpu\"")
    return r.tolist(), str(r.dtype).split(".")[-1]


# PyTorch Geometric's index2ptr (every sorted message-passing path, CSR conversions) calls
# torch._convert_indices_from_coo_to_csr, and EdgeIndex the reverse conversion; tandem had neither.
def _coo_to_csr_cases(lib, dev):
    f = lib._convert_indices_from_coo_to_csr
    index = lib.tensor([0, 0, 1, 3, 3], device=dev)
    return [lambda: f(index, 5), lambda: f(index, 5, out_int32=True), lambda: f(index.int(), 5),
            lambda: f(index.to(lib.int16), size=6), lambda: f(input=index.to(lib.uint8), size=5),
            lambda: f(lib.tensor([2, 0, 1], device=dev), 4),  # unsorted: PyTorch's CPU numbers
            lambda: f(lib.tensor([], dtype=lib.long, device=dev), 3), lambda: f(lib.tensor(3, device=dev), 4),
            lambda: f(lib.tensor([0, 0], device=dev), 0),
            lambda: f(index.float(), 5), lambda: f(index.bool(), 5), lambda: f(index.view(1, 5), 5),
            lambda: f(index, -1), lambda: f([0, 1], 3), lambda: f(index, 5.0), lambda: f(index, 5, True)]


def test_convert_indices_from_coo_to_csr_as_pytorch(device):
    got = [[_outcome(case) for case in _coo_to_csr_cases(lib, dev)] for lib, dev in ((tandem, device), (torch, "cpu"))]
    assert got[0] == got[1]
    assert got[1][0] == ([0, 2, 3, 3, 5, 5], "int64")


def test_convert_indices_from_coo_to_csr_out(device):
    out = tandem.empty(6, dtype=tandem.long, device=device)
    index = tandem.tensor([0, 0, 1, 3, 3], device=device)
    assert tandem._convert_indices_from_coo_to_csr(index, 5, out=out) is out
    assert out.tolist() == [0, 2, 3, 3, 5, 5]
    with pytest.raises(RuntimeError) as ours:
        tandem._convert_indices_from_coo_to_csr(index, 5, out=tandem.empty(6, dtype=tandem.int32, device=device))
    with pytest.raises(RuntimeError) as theirs:
        torch._convert_indices_from_coo_to_csr(torch.tensor([0, 1]), 2, out=torch.empty(3, dtype=torch.int32))
    assert str(ours.value).split("\n")[0] == str(theirs.value)

def test_convert_indices_from_csr_to_coo_as_pytorch(device):
    got = []
    for lib, dev in ((tandem, device), (torch, "cpu")):
        g = lib._convert_indices_from_csr_to_coo
        t = lambda v, **kw: lib.tensor(v, device=dev, **kw)  # noqa: E731
        crow, col = t([0, 2, 3, 5]), t([0, 1, 1, 0, 2])
        batched_crow, batched_col = t([[0, 1, 2], [0, 0, 2]]), t([[3, 4], [5, 6]])
        cases = [lambda: g(crow, col), lambda: g(crow, col, out_int32=True), lambda: g(crow, col, transpose=True),
                 lambda: g(crow.int(), col), lambda: g(crow.to(lib.int8), col.to(lib.int16)),
                 lambda: g(t([0]), t([], dtype=lib.long)), lambda: g(batched_crow, batched_col),
                 lambda: g(batched_crow, batched_col, transpose=True),
                 lambda: g(lib.stack([batched_crow] * 2), lib.stack([batched_col] * 2)),
                 lambda: g(crow.float(), col), lambda: g(crow, col.bool()), lambda: g(crow, col.double() + 0.5),
                 lambda: g(t(0), t(1)), lambda: g(crow, [0, 1])]
        got.append([_outcome(case) for case in cases])
    assert got[0] == got[1]


def test_convert_indices_dimension_mismatch_is_refused(device):
    # PyTorch's message prints crow_indices' dim twice; tandem's the two dims it compared (the same first words).
    crow, col = tandem.tensor([0, 1], device=device), tandem.tensor([[0]], device=device)
    with pytest.raises(RuntimeError, match="^crow_indices and col_indices are supposed to have the same "
                                           "dimensionality, but got 1 and 2 dimensional tensors"):
        tandem._convert_indices_from_csr_to_coo(crow, col)
    with pytest.raises(RuntimeError, match="^crow_indices and col_indices are supposed to have the same"):
        torch._convert_indices_from_csr_to_coo(torch.tensor([0, 1]), torch.tensor([[0]]))


# torch._segment_reduce is torch.segment_reduce (PyTorch Geometric's segment() calls it); in tandem the name was
# taken by the module that defines segment_reduce, so the call raised "'module' object is not callable".
def test_private_segment_reduce_is_the_function(device):
    assert callable(tandem._segment_reduce)
    for reduce in ("sum", "mean", "max", "min"):
        got = tandem._segment_reduce(tandem.arange(6.0, device=device), reduce,
                                     offsets=tandem.tensor([0, 2, 2, 6], device=device), initial=0)
        want = torch._segment_reduce(torch.arange(6.0), reduce, offsets=torch.tensor([0, 2, 2, 6]), initial=0)
        assert got.tolist() == want.tolist()


# PyTorch Geometric checks `torch._dynamo.explain(model)(*inputs).graph_break_count == 0` before compiling.
def test_dynamo_explain_runs_the_function_once_and_reports_no_graphs():
    calls = []

    def f(x, scale=1):
        calls.append(scale)
        return x * scale

    report = tandem._dynamo.explain(f)(tandem.ones(2), scale=3)
    assert calls == [3]
    assert (report.graph_count, report.graph_break_count, report.op_count, report.break_reasons) == (0, 0, 0, [])
    assert str(report).startswith("Graph Count: 0\nGraph Break Count: 0\nOp Count: 0\nBreak Reasons:\n")


def test_dynamo_explain_fields_and_old_form_warning_as_pytorch():
    import dataclasses

    from torch._dynamo.backends.debugging import ExplainOutput

    ours = tandem._dynamo.explain(lambda x: x)(tandem.ones(1))
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(ExplainOutput)]
    messages = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib._dynamo.explain(lambda x: x + 1, lib.ones(1))
        messages.append([(w.category, str(w.message)) for w in caught if w.category is FutureWarning])
    assert messages[0] == messages[1] and len(messages[0]) == 1


# PyTorch Geometric's attention blocks call LayerNorm.reset_parameters(); tandem's LayerNorm had none.
@pytest.mark.parametrize("kwargs", [{}, {"bias": False}, {"elementwise_affine": False}])
def test_layer_norm_reset_parameters(kwargs, device):
    got = []
    for lib, dev in ((tandem, device), (torch, "cpu")):
        m = lib.nn.LayerNorm(3, device=dev, **kwargs)
        with lib.no_grad():
            for p in m.parameters():
                p.fill_(7.0)
        m.reset_parameters()
        got.append({k: v.tolist() for k, v in m.state_dict().items()})
    assert got[0] == got[1]


# PyTorch Geometric's collate, inside a DataLoader worker, writes each batch straight into shared memory:
# storage = elem.untyped_storage()._new_shared(nbytes, device=...); out = elem.new(storage).resize_(*shape);
# torch.cat(values, out=out). tandem had no _new_shared and new() refused a storage.
def _collate_into_shared(lib, values):
    elem = values[0]
    numel = sum(v.numel() for v in values)
    storage = elem.untyped_storage()._new_shared(numel * elem.element_size(), device=elem.device)
    out = elem.new(storage).resize_(len(values) * elem.shape[0], *elem.shape[1:])
    return lib.cat(values, out=out), storage


def test_new_shared_storage_and_new_of_a_storage(device):
    got = []
    for lib, dev in ((tandem, device), (torch, "cpu")):
        values = [lib.arange(6.0, device=dev).view(2, 3) + i for i in range(3)]
        out, storage = _collate_into_shared(lib, values)
        got.append((out.tolist(), out.dtype == lib.float32, storage.nbytes(), out.device.type == dev.split(":")[0],
                    storage.is_shared() if device == "cpu" else None, lib.UntypedStorage(4).is_shared(),
                    tuple(lib.ones(1, dtype=lib.long).new(lib.UntypedStorage(20)).shape)))
    assert got[0] == got[1]


def test_new_of_a_storage_of_another_dtype_is_refused_as_pytorch():
    messages = []
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # TypedStorage's deprecation warning
            typed = lib.ones(2).storage()
        with pytest.raises(RuntimeError) as e:
            lib.ones(1, dtype=lib.long).new(typed)
        messages.append(str(e.value))
    assert messages[0] == messages[1]


class _Pairs(tandem.utils.data.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return tandem.full((2, 3), float(i))


def _shared_collate(batch):
    out, _ = _collate_into_shared(tandem, batch)
    return out


def test_collate_into_shared_memory_in_dataloader_workers():
    loader = tandem.utils.data.DataLoader(_Pairs(), batch_size=3, num_workers=2, collate_fn=_shared_collate)
    batches = [b.tolist() for b in loader]
    assert batches == [[[float(i)] * 3 for i in range(j, j + 3) for _ in range(2)] for j in (0, 3)]
