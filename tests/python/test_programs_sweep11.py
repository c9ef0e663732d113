"""The eleventh program sweep: recommenders, graphs, time series and tabular models written from scratch with the
less-used parts of torch.nn, each program written once against a module called `torch`, run with PyTorch and with
tandem standing in for it, and their results compared. The programs live in sweep11_recommenders.py
(factorization machine, two-tower retrieval, BPR, DeepFM over hashed features, NCF with MarginRankingLoss),
sweep11_graphs.py (GCN on a sparse adjacency, GraphSAGE, GAT edge softmax, segment pooling, random walks, batched
sparse graphs, SDDMM attention, Chebyshev convolution with PageRank), sweep11_timeseries.py (TCN with weight_norm,
LSTM with proj_size over samplers, seasonal decomposition, quantile and Gaussian forecasting under OneCycleLR and
CyclicLR, N-BEATS under SequentialLR, a RevIN/Time2Vec Transformer) and sweep11_tabular.py (entity embeddings
with Bilinear, siamese matching, multi-label Rprop, Poisson regression under ReduceLROnPlateau, autoencoder
anomaly scores, an optimizer zoo, a TabNet-style model). The focused tests below cover what they found
(docs/compat.md, "Program sweep 11"): sparse COO cat/stack/unsqueeze/zeros_like/bmm, Tensor.sparse_mask,
torch.smm/hspmm, torch.sparse.sampled_addmm, Optimizer.load_state_dict keeping the saved tensors, nn.Bilinear's
checks, ModuleDict.update's checks, and the autocast dtypes of the products PyTorch lists (and of bilinear,
tensordot, cross, grid_sample and embedding_bag)."""
import io
import warnings

import numpy as np
import pytest

import sweep11_graphs
import sweep11_recommenders
import sweep11_tabular
import sweep11_timeseries
import tandem
from test_programs_sweeputil import program_test

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep11_recommenders, sweep11_graphs, sweep11_timeseries, sweep11_tabular)

test_program_matches_pytorch = program_test(_MODULES, DEVICES)


def _outcome(call):
    """A call's result, or its error type and message (without tandem's hint line)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's sparse beta and invariant-check warnings
        try:
            return "ok", call()
        except Exception as exc:  # the error type and message are what is compared
            # without tandem's hint line, and without PyTorch's list of dispatch keys after "Could not run"
            return type(exc).__name__, str(exc).split("\nhint:")[0].split(" This could be because")[0]


def _plain(result):
    """A sparse or dense result as comparable Python values: layout, shape, coalesced flag, indices, values."""
    if isinstance(result, (list, tuple)):
        return [_plain(r) for r in result]
    if not hasattr(result, "layout"):
        return result
    layout = str(result.layout).split(".")[-1]
    if layout == "sparse_coo":
        return [layout, list(result.shape), result.is_coalesced(), result._indices().tolist(),
                result._values().detach().cpu().tolist()]
    if layout == "sparse_csr":
        return [layout, list(result.shape), result.crow_indices().tolist(), result.col_indices().tolist(),
                result.values().detach().cpu().tolist()]
    return [layout, list(result.shape), str(result.dtype).split(".")[-1], result.detach().cpu().tolist()]


def _same(make, device):
    """make(lib, device) gives the same outcome with tandem on `device` as with PyTorch on the CPU."""
    got, want = _outcome(lambda: _plain(make(tandem, device))), _outcome(lambda: _plain(make(torch, "cpu")))
    if got[0] != "ok":  # PyTorch runs on the CPU: its refusals name the CPU backends
        got = (got[0], got[1].replace("'SparseCUDA'", "'SparseCPU'").replace("'CUDA'", "'CPU'"))
    assert got == want


def _coo(lib, device, dense):
    return lib.tensor(dense, device=device).to_sparse()


_A = [[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]]
_B = [[4.0, 0.0, 0.0], [0.0, 0.0, 5.0]]


# ---- sparse COO cat / stack / unsqueeze (graph mini-batches) ------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", [
    lambda t, d: t.cat([_coo(t, d, _A), _coo(t, d, _B)]),
    lambda t, d: t.cat([_coo(t, d, _A), _coo(t, d, _B)], dim=1),
    lambda t, d: t.cat([_coo(t, d, _A), _coo(t, d, _B)], dim=-1),
    lambda t, d: t.concat([_coo(t, d, _A), _coo(t, d, _B).double()]),
    lambda t, d: t.concatenate([_coo(t, d, _A)], 0),
    lambda t, d: t.stack([_coo(t, d, _A), _coo(t, d, _B)]),
    lambda t, d: t.stack([_coo(t, d, _A), _coo(t, d, _B)], 2),
    lambda t, d: t.stack([_coo(t, d, _A), _coo(t, d, _B)], dim=-2),
    lambda t, d: _coo(t, d, _A).unsqueeze(0),
    lambda t, d: _coo(t, d, _A).unsqueeze(-1),
    # hybrid tensors (a dense dim in the values): cat along the dense dim pads each operand's values
    lambda t, d: t.cat([t.sparse_coo_tensor(t.tensor([[0, 2]]), t.ones(2, 2), (3, 2), device=d)] * 2, 1),
    lambda t, d: t.cat([t.sparse_coo_tensor(t.tensor([[0, 2]]), t.ones(2, 2), (3, 2), device=d)] * 2, 0),
    lambda t, d: t.sparse_coo_tensor(t.tensor([[0, 2]]), t.ones(2, 2), (3, 2), device=d).unsqueeze(2),
    # refusals, with PyTorch's types and messages
    lambda t, d: t.cat([_coo(t, d, _A), t.ones(2, 3, device=d)]),
    lambda t, d: t.cat([_coo(t, d, _A), _coo(t, d, [[1.0, 0.0]])]),
    lambda t, d: t.cat([_coo(t, d, _A), t.sparse_coo_tensor(t.tensor([[0, 1]]), t.ones(2, 3), (2, 3),
                                                             device=d)]),
    lambda t, d: t.cat([_coo(t, d, _A)] * 2, 2),
    lambda t, d: t.stack([_coo(t, d, _A)] * 2, 3),
    lambda t, d: t.stack([_coo(t, d, _A), _coo(t, d, [[1.0, 0.0]])]),
    lambda t, d: _coo(t, d, _A).unsqueeze(3),
    lambda t, d: t.cat([]),
])
def test_sparse_cat_stack_unsqueeze_match_pytorch(case, device):
    _same(case, device)


@pytest.mark.parametrize("device", DEVICES)
def test_sparse_cat_carries_gradients_to_each_operands_values(device):
    """PyTorch's sparse cat has no backward (as_strided of a sparse gradient); tandem's is cat of the values."""
    values = [tandem.tensor([1.0, 2.0], device=device, requires_grad=True),
              tandem.tensor([3.0], device=device, requires_grad=True)]
    parts = [tandem.sparse_coo_tensor(tandem.tensor([[0, 1], [1, 0]]), values[0], (2, 2), device=device),
             tandem.sparse_coo_tensor(tandem.tensor([[1], [1]]), values[1], (2, 2), device=device)]
    joined = tandem.cat(parts, 1)  # entries (0, 1) = v0, (1, 0) = v1, (1, 3) = v2
    (tandem.sparse.mm(joined, tandem.arange(4.0, device=device).view(4, 1)) ** 2).sum().backward()
    # rows: v0 * 1 and v1 * 0 + v2 * 3, so the gradients are 2 * v0, 0 and 2 * (3 * v2) * 3
    assert [v.grad.tolist() for v in values] == [[2.0, 0.0], [54.0]]


def test_cat_of_csr_tensors_is_refused():
    csr = tandem.tensor(_A).to_sparse_csr()
    with pytest.raises(NotImplementedError, match="Could not run 'aten::cat' with arguments from the 'SparseCsrCPU'"):
        tandem.cat([csr, csr])


# ---- zeros_like / empty_like of a sparse tensor ---------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", [
    lambda t, d: t.zeros_like(_coo(t, d, _A)),
    lambda t, d: t.zeros_like(_coo(t, d, _A), dtype=t.float64),
    lambda t, d: t.zeros_like(_coo(t, d, _A), layout=t.strided),
    lambda t, d: t.empty_like(_coo(t, d, _A)),
    lambda t, d: t.zeros_like(t.sparse_coo_tensor(t.tensor([[0, 2]]), t.ones(2, 2), (3, 2), device=d)),
    lambda t, d: t.zeros_like(_coo(t, d, _A), requires_grad=True).requires_grad,
])
def test_sparse_zeros_like_matches_pytorch(case, device):
    _same(case, device)


# ---- Tensor.sparse_mask ----------------------------------------------------------------------------------------
_UNCOALESCED = ([[0, 0, 1], [1, 1, 0]], [1.0, 2.0, 3.0])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", [
    lambda t, d: t.arange(6.0, device=d).view(2, 3).sparse_mask(_coo(t, d, _A)),
    lambda t, d: t.arange(6.0, device=d).view(2, 3).sparse_mask(
        t.sparse_coo_tensor(t.tensor(_UNCOALESCED[0]), t.tensor(_UNCOALESCED[1]), (2, 3), device=d)),
    lambda t, d: t.arange(6.0, device=d).view(2, 3).sparse_mask(
        t.sparse_coo_tensor(t.tensor([[0, 1]]), t.ones(2, 3), (2, 3), device=d)),
    lambda t, d: t.arange(6.0, device=d).view(2, 3).sparse_mask(_coo(t, d, _A).to_sparse_csr()),
    lambda t, d: t.arange(6, device=d).view(2, 3).sparse_mask(_coo(t, d, _A)),
    lambda t, d: t.ones(3, 3, device=d).sparse_mask(_coo(t, d, _A)),
])
def test_sparse_mask_matches_pytorch(case, device):
    _same(case, device)


def test_sparse_mask_of_a_dense_mask_is_refused():
    kind, message = _outcome(lambda: tandem.ones(2, 2).sparse_mask(tandem.ones(2, 2)))
    assert kind == "NotImplementedError"
    assert message.startswith("Could not run 'aten::sparse_mask' with arguments from the 'CPU' backend.")


@pytest.mark.parametrize("device", DEVICES)
def test_sparse_mask_gradient_reaches_the_masked_elements(device):
    def grad(lib, d):
        w = lib.arange(6.0, device=d, requires_grad=True)
        mask = _coo(lib, d, _A)
        lib.sparse.sum(w.view(2, 3).sparse_mask(mask) ** 2).backward()
        return w.grad.tolist()

    assert grad(tandem, device) == grad(torch, "cpu")


# ---- torch.smm and torch.hspmm -------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", [
    lambda t, d: t.smm(_coo(t, d, _A), t.arange(6.0, device=d).view(3, 2)),
    lambda t, d: t.hspmm(_coo(t, d, _A), t.arange(6.0, device=d).view(3, 2)),
    lambda t, d: _coo(t, d, _A).smm(t.ones(3, 4, device=d)),
    lambda t, d: t.hspmm(_coo(t, d, _A), t.ones(3, 1, device=d)),
    lambda t, d: t.hspmm(t.sparse_coo_tensor(t.tensor([[1, 1, 0], [2, 0, 0]]), t.ones(3), (3, 3), device=d),
                         t.ones(3, 2, device=d)),
    lambda t, d: t.smm(_coo(t, d, _A), t.ones(2, 2, device=d)),
    lambda t, d: t.hspmm(_coo(t, d, _A), t.ones(2, 2, device=d)),
    lambda t, d: t.smm(t.ones(2, 3, device=d), t.ones(3, 2, device=d)),
])
def test_smm_and_hspmm_match_pytorch(case, device):
    _same(case, device)


# ---- torch.sparse.sampled_addmm ------------------------------------------------------------------------------
def _csr(lib, device):
    return lib.tensor(_A, device=device).to_sparse_csr()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", [
    lambda t, d: t.sparse.sampled_addmm(_csr(t, d), t.ones(2, 4, device=d), t.arange(12.0, device=d).view(4, 3)),
    lambda t, d: t.sparse.sampled_addmm(_csr(t, d), t.ones(2, 4, device=d), t.arange(12.0, device=d).view(4, 3),
                                        beta=0.5, alpha=2.0),
    lambda t, d: t.sparse.sampled_addmm(_csr(t, d), t.ones(2, 4, device=d), t.arange(12.0, device=d).view(4, 3),
                                        beta=0.0),
    lambda t, d: t.sparse.sampled_addmm(_csr(t, d), t.ones(3, 3, device=d), t.ones(3, 3, device=d)),
    lambda t, d: t.sparse.sampled_addmm(_csr(t, d), t.ones(2, 3, device=d), t.ones(3, 2, device=d)),
    lambda t, d: t.sparse.sampled_addmm(_csr(t, d), t.ones(2, 3, device=d), t.ones(2, 2, device=d)),
    lambda t, d: t.sparse.sampled_addmm(_csr(t, d), t.ones(2, 4, dtype=t.float64, device=d),
                                        t.ones(4, 3, device=d)),
    lambda t, d: t.sparse.sampled_addmm(_coo(t, d, _A), t.ones(2, 4, device=d), t.ones(4, 3, device=d)),
])
def test_sampled_addmm_matches_pytorch(case, device):
    _same(case, device)


@pytest.mark.parametrize("device", DEVICES)
def test_sampled_addmm_gradients_match_pytorch(device):
    def grads(lib, d):
        rng = np.random.default_rng(3)
        m1 = lib.tensor(rng.standard_normal((2, 4)), dtype=lib.float32, device=d, requires_grad=True)
        m2 = lib.tensor(rng.standard_normal((4, 3)), dtype=lib.float32, device=d, requires_grad=True)
        out = lib.sparse.sampled_addmm(_csr(lib, d), m1, m2, alpha=0.5)
        (out.values() ** 2).sum().backward()
        return m1.grad.flatten().tolist() + m2.grad.flatten().tolist()

    assert grads(tandem, device) == pytest.approx(grads(torch, "cpu"), rel=1e-5, abs=1e-6)


# ---- Optimizer.load_state_dict keeps the saved tensors that already fit ------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["Adam", "SGD", "Adagrad", "RMSprop", "NAdam", "ASGD"])
def test_loaded_optimizer_state_is_the_saved_tensors(name, device):
    """PyTorch keeps a loaded state tensor that has the parameter's dtype and device (and `step` always) rather
    than copying it, so the optimizer goes on updating the checkpoint's tensors in place."""
    if name == "NAdam" and device != "cpu":
        pytest.skip("NAdam's mu_product lives on the CPU and moves to a CUDA parameter's device when loaded, in "
                    "PyTorch too; the CPU oracle cannot show that")
    def run(lib, d):
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0, 3.0], device=d))
        kwargs = {"momentum": 0.9} if name in ("SGD", "RMSprop") else {}
        opt = getattr(lib.optim, name)([p], lr=0.1, **kwargs)
        p.grad = lib.tensor([0.5, -1.0, 2.0], device=d)
        opt.step()
        saved = opt.state_dict()
        p2 = lib.nn.Parameter(p.detach().clone())
        opt2 = getattr(lib.optim, name)([p2], lr=0.1, **kwargs)
        opt2.load_state_dict(saved)
        p2.grad = lib.tensor([0.5, -1.0, 2.0], device=d)
        opt2.step()
        return {key: [value is opt2.state[p2][key], np.round(value.cpu().numpy(), 5).tolist()]
                for key, value in saved["state"][0].items() if isinstance(value, lib.Tensor)}

    assert run(tandem, device) == run(torch, "cpu")


@pytest.mark.parametrize("device", DEVICES)
def test_loaded_optimizer_state_of_another_dtype_is_converted(device):
    p = tandem.nn.Parameter(tandem.ones(2, device=device))
    opt = tandem.optim.Adam([p])
    p.grad = tandem.ones(2, device=device)
    opt.step()
    saved = opt.state_dict()
    buf = io.BytesIO()
    tandem.save(saved, buf)
    buf.seek(0)
    loaded = tandem.load(buf)
    loaded["state"][0]["exp_avg"] = loaded["state"][0]["exp_avg"].double()
    q = tandem.nn.Parameter(tandem.ones(2, device=device))
    opt2 = tandem.optim.Adam([q])
    opt2.load_state_dict(loaded)
    assert opt2.state[q]["exp_avg"].dtype == tandem.float32
    assert opt2.state[q]["exp_avg"] is not loaded["state"][0]["exp_avg"]
    assert opt2.state[q]["step"] is loaded["state"][0]["step"]


# ---- nn.Bilinear's batch-dimension message ---------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [((5, 2), (4, 3)), ((2, 5, 2), (2, 4, 3)), ((3, 5, 2), (2, 5, 3)),
                                    ((5, 2), (2, 5, 3))])
def test_bilinear_names_the_first_mismatched_batch_dim(shapes):
    def call(lib):
        layer = lib.nn.Bilinear(2, 3, 4)
        return lambda: layer(lib.ones(*shapes[0]), lib.ones(*shapes[1]))

    assert _outcome(call(tandem)) == _outcome(call(torch))


@pytest.mark.parametrize("sizes", [(0, 2, 3), (2, 0, 3), (2, 3, 0), (-1, 2, 3)])
def test_bilinear_refuses_no_first_input_features_as_pytorch(sizes):
    def shapes(lib):
        return lambda: [list(p.shape) for p in lib.nn.Bilinear(*sizes).parameters()]

    assert _outcome(shapes(tandem)) == _outcome(shapes(torch))


# ---- torch.bmm of a batch of sparse COO matrices -----------------------------------------------------------------
def _batch(lib, device):
    return lib.tensor([[[0.0, 1.0], [2.0, 0.0]], [[3.0, 0.0], [0.0, 4.0]]], device=device).to_sparse()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", [
    lambda t, d: t.bmm(_batch(t, d), t.arange(8.0, device=d).view(2, 2, 2)),
    lambda t, d: _batch(t, d).bmm(t.arange(12.0, device=d).view(2, 2, 3)),
    lambda t, d: t.bmm(t.sparse_coo_tensor(t.tensor([[0, 0, 1], [1, 1, 0], [0, 0, 1]]), t.ones(3), (2, 2, 2),
                                           device=d), t.ones(2, 2, 1, device=d)),  # uncoalesced: duplicates add
    lambda t, d: t.bmm(_batch(t, d), t.ones(3, 2, 2, device=d)),
    lambda t, d: t.bmm(_batch(t, d), t.ones(2, 3, 2, device=d)),
    lambda t, d: t.bmm(_batch(t, d), t.ones(2, 2, device=d)),
    lambda t, d: t.bmm(_batch(t, d), t.ones(2, 2, 2, dtype=t.float64, device=d)),
    lambda t, d: t.bmm(_batch(t, d), _batch(t, d)),
    lambda t, d: t.bmm(_batch(t, d).to_dense().to_sparse(2), t.ones(2, 2, 2, device=d)),
    lambda t, d: t.bmm(t.ones(2, 2, device=d).to_sparse(), t.ones(2, 2, 2, device=d)),
])
def test_sparse_bmm_matches_pytorch(case, device):
    _same(case, device)


@pytest.mark.parametrize("device", DEVICES)
def test_sparse_bmm_gradients_match_pytorch(device):
    def grads(lib, d):
        values = lib.tensor([1.0, 2.0, 3.0, 4.0], device=d, requires_grad=True)
        indices = lib.tensor([[0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]], device=d)
        x = lib.arange(8.0, device=d).view(2, 2, 2).requires_grad_()
        lib.bmm(lib.sparse_coo_tensor(indices, values, (2, 2, 2)), x).pow(2).sum().backward()
        return values.grad.tolist(), x.grad.flatten().tolist()

    assert grads(tandem, device) == grads(torch, "cpu")


# ---- ModuleDict.update's argument checks ---------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda nn: 5,
    lambda nn: [("x",)],
    lambda nn: [5],
    lambda nn: "ab",
    lambda nn: [["a", nn.ReLU()], ("b", nn.Tanh())],
    lambda nn: nn.ModuleDict({"z": nn.ReLU(), "a": nn.Tanh()}),
])
def test_module_dict_update_matches_pytorch(make):
    def update(lib):
        def call():
            modules = lib.nn.ModuleDict({"q": lib.nn.GELU()})
            modules.update(make(lib.nn))
            return [(key, type(value).__name__) for key, value in modules.items()]
        return call

    assert _outcome(update(tandem)) == _outcome(update(torch))


# ---- autocast: the products PyTorch lists, and bilinear which it does not lower --------------------------------
_AUTOCAST_CASES = {
    "addbmm": lambda t: t.addbmm(t.ones(2, 2), t.ones(1, 2, 3), t.ones(1, 3, 2), beta=0.5, alpha=2.0),
    "baddbmm": lambda t: t.baddbmm(t.ones(1, 2, 2), t.ones(1, 2, 3), t.ones(1, 3, 2), alpha=0.5),
    "addmv": lambda t: t.addmv(t.ones(2), t.ones(2, 3), t.ones(3)),
    "addr": lambda t: t.addr(t.ones(2, 3), t.ones(2), t.ones(3)),
    "vecdot": lambda t: t.linalg.vecdot(t.ones(2, 3), t.ones(2, 3)),
    "bilinear": lambda t: t.nn.functional.bilinear(t.ones(2, 3), t.ones(2, 4), t.ones(5, 3, 4), t.ones(5)),
    "sparse.mm": lambda t: t.sparse.mm(t.eye(3).to_sparse(), t.ones(3, 2)),
    "mm(sparse)": lambda t: t.mm(t.eye(3).to_sparse(), t.ones(3, 2)),
    "sparse @ dense": lambda t: t.eye(3).to_sparse() @ t.ones(3, 2),
    "dense @ sparse": lambda t: t.ones(2, 3) @ t.eye(3).to_sparse(),
    "sparse.addmm": lambda t: t.sparse.addmm(t.ones(3, 2), t.eye(3).to_sparse(), t.ones(3, 2)),
    "mv(sparse)": lambda t: t.mv(t.eye(3).to_sparse(), t.ones(3)),
    "csr @ dense": lambda t: t.eye(3).to_sparse_csr() @ t.ones(3, 2),
    "sparse float64": lambda t: t.sparse.mm(t.eye(3, dtype=t.float64).to_sparse(), t.ones(3, 2, dtype=t.float64)),
    "sparse mixed": lambda t: t.sparse.mm(t.eye(3).to_sparse(), t.ones(3, 2, dtype=t.bfloat16)),
    "tensordot": lambda t: t.tensordot(t.ones(2, 3), t.ones(3, 2), 1),
    "embedding_bag bfloat16": lambda t: t.nn.functional.embedding_bag(t.tensor([[0, 1]]),
                                                                      t.ones(3, 2, dtype=t.bfloat16)),
}


@pytest.mark.parametrize("name", [n for n in _AUTOCAST_CASES if n != "csr @ dense"])  # PyTorch: no bfloat16 CSR
def test_cpu_autocast_dtypes_match_pytorch(name):
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the sparse CSR beta warning
            with lib.autocast("cpu", dtype=lib.bfloat16):
                out = _AUTOCAST_CASES[name](lib)
        return str(out.dtype).split(".")[-1], out.float().sum().item()

    assert run(tandem) == run(torch)


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a CUDA device (real or emulated)")
def test_cuda_autocast_dtypes_follow_pytorchs_cuda_lists():
    """PyTorch's CUDA lists (no CUDA here for the oracle): addmv, addr, addbmm, baddbmm, linalg_vecdot and the
    products lower precision; bilinear, tensordot, cross and grid_sampler promote (float32 inputs stay float32,
    mixed ones meet at float32)."""
    low = tandem.float16
    cases = dict(_AUTOCAST_CASES, **{
        "tensordot mixed": lambda t: t.tensordot(t.ones(2, 3, dtype=low), t.ones(3, 2), 1),
        "cross mixed": lambda t: t.cross(t.ones(3), t.ones(3, dtype=low), dim=0),
        "embedding_bag float16": lambda t: t.nn.functional.embedding_bag(t.tensor([[0, 1]]), t.ones(3, 2, dtype=low),
                                                                        mode="mean"),
        "grid_sample mixed": lambda t: t.nn.functional.grid_sample(t.ones(1, 1, 2, 2), t.zeros(1, 1, 1, 2, dtype=low),
                                                                   align_corners=False)})
    expected = {"tensordot": "float32", "tensordot mixed": "float32", "cross mixed": "float32",
                "grid_sample mixed": "float32", "embedding_bag float16": "float16", "addbmm": "float16",
                "baddbmm": "float16", "addmv": "float16", "addr": "float16", "vecdot": "float16", "bilinear": "float32",
                "sparse.mm": "float16", "sparse.addmm": "float16", "mv(sparse)": "float16", "csr @ dense": "float16",
                "sparse float64": "float64"}
    got = {}
    with tandem.device("cuda"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tandem.autocast("cuda"):
            for name in expected:
                got[name] = str(cases[name](tandem).dtype).split(".")[-1]
    assert got == expected
