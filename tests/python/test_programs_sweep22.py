"""The twenty-second program sweep: vision transformers and image-text models (ViT patch embeddings and positional
interpolation, MAE masking, Swin windows, SigLIP, CLIP zero-shot, a Perceiver, ToMe merging), diffusion samplers and
normalizing flows (DDPM with a cosine schedule, DDIM with eta and classifier-free guidance, DPM-Solver++(2M), DDIM
inversion, RealNVP with ActNorm, rational-quadratic splines, planar flows), compression by hand (int8 integer
matmuls, fake quantisation with straight-through estimators, LoRA injection and merging, GPTQ, k-means weight
sharing, binary/ternary networks, NF4 packing), numerical methods (GP hyperparameters, a sparse GP, stochastic Lanczos
quadrature, randomized SVD and Householder QR, GMRES and PCG, Sinkhorn and sliced Wasserstein, differentiable
sorting), sequences (PatchTST, DLinear, sliding windows, contrastive search with a KV cache, min-p/typical sampling,
diverse beam search, CTC alignment, FT-Transformer) and training infrastructure (activation checkpointing, an exact
resume with accumulation/clipping/EMA, state_dict prefix surgery, model and optimizer printing, custom samplers,
IterableDataset pipelines, parameter-vector utilities), each program written once against a module called `torch`,
run with PyTorch and with tandem standing in for it, and their results compared. The focused tests below cover what
they found (docs/compat.md, "Program sweep 22")."""
import numpy as np
import pytest

import sweep22_compression
import sweep22_generative
import sweep22_infra
import sweep22_numerics
import sweep22_sequences
import sweep22_vision
import tandem
from test_programs_sweeputil import program_test, same_outcome

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep22_vision, sweep22_generative, sweep22_compression, sweep22_numerics, sweep22_sequences,
            sweep22_infra)


test_program_matches_pytorch = program_test(_MODULES, DEVICES)


# ---- to_sparse(layout=sparse_csc) and CSC.to_sparse(...) --------------------------------------------------------------
def _source(L, kind, d):
    dense = L.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], device=d)
    return {"dense": dense, "coo": dense.to_sparse_coo(), "csr": dense.to_sparse_csr(),
            "csc": dense.to_sparse_csc()}[kind]


_TO_SPARSE_ARGS = {
    "default": {}, "csc": {"layout": "sparse_csc"}, "csr": {"layout": "sparse_csr"}, "coo": {"layout": "sparse_coo"},
    "strided": {"layout": "strided"}, "sparse_dim_2": {"sparse_dim": 2}, "sparse_dim_1": {"sparse_dim": 1},
    "dense_dim": {"dense_dim": 0}, "blocksize": {"blocksize": (1, 1)},
    "csc_dense_dim": {"layout": "sparse_csc", "dense_dim": 0}, "csc_blocksize": {"layout": "sparse_csc", "blocksize": (1, 1)},
    "csr_blocksize": {"layout": "sparse_csr", "blocksize": (1, 1)}, "strided_dense_dim": {"layout": "strided", "dense_dim": 0},
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("args", list(_TO_SPARSE_ARGS))
@pytest.mark.parametrize("kind", ["dense", "coo", "csr", "csc"])
def test_to_sparse_reaches_every_layout(kind, args, device):
    """Tensor.to_sparse(layout=sparse_csc) converts a dense, COO or CSR matrix to CSC (it was refused as "no CSC"
    after the CSC layout arrived), and a CSC tensor's to_sparse takes PyTorch's arguments with PyTorch's checks
    (its blocksize/dense_dim/sparse_dim errors named COO, or were ignored)."""
    def run(L, d):
        kw = {k: getattr(L, v) if k == "layout" else v for k, v in _TO_SPARSE_ARGS[args].items()}
        source = _source(L, kind, d)
        out = source.to_sparse(**kw)
        return [str(out.layout), out.device == source.device, out.to_dense()]
    same_outcome(run, device)


@pytest.mark.parametrize("device", DEVICES)
def test_to_sparse_csc_parts_and_gradient(device):
    """The CSC result has PyTorch's compressed parts; gradients reach the dense source's stored entries (tandem's
    sparse autograd runs through the values: docs/compat.md, "Program sweep 22")."""
    x = tandem.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], device=device, requires_grad=True)
    s = x.to_sparse(layout=tandem.sparse_csc)
    assert s.ccol_indices().tolist() == [0, 1, 2, 3] and s.row_indices().tolist() == [1, 0, 1]
    assert s.values().tolist() == [2.0, 1.0, 3.0] and s.device == x.device
    (s @ tandem.ones(3, 2, device=device)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 0.0], [2.0, 0.0, 2.0]]
    with pytest.raises(NotImplementedError, match=r"layout=tandem.sparse_bsr is not supported\nhint: tandem has "
                                                  r"the strided, sparse_coo, sparse_csr and sparse_csc layouts"):
        x.to_sparse(layout=tandem.layout("sparse_bsr"))


# ---- torch.masked: reductions and normalisations with mask= ---------------------------------------------------------
def _masked_data(L, d, dtype):
    rng = np.random.default_rng(0)
    values = rng.standard_normal((3, 4)) if dtype.startswith("float") else rng.integers(-5, 5, (3, 4))
    mask = L.tensor([[True, False, True, True], [False, False, False, False], [True, True, False, True]], device=d)
    return L.tensor(values, dtype=getattr(L, dtype), device=d), mask


_MASKED_CALLS = {
    "sum": lambda M, x, m: M.sum(x, 1, mask=m), "sum_all": lambda M, x, m: M.sum(x, mask=m),
    "sum_keepdim": lambda M, x, m: M.sum(x, (0, 1), keepdim=True, mask=m), "sum_no_mask": lambda M, x, m: M.sum(x, 0),
    "sum_dtype": lambda M, x, m: M.sum(x, 1, dtype=x.new_zeros(()).double().dtype, mask=m),
    "prod": lambda M, x, m: M.prod(x, 1, mask=m), "prod_all": lambda M, x, m: M.prod(x, mask=m),
    "cumsum": lambda M, x, m: M.cumsum(x, 1, mask=m), "cumprod": lambda M, x, m: M.cumprod(x, 0, mask=m),
    "amax": lambda M, x, m: M.amax(x, 1, mask=m), "amin": lambda M, x, m: M.amin(x, 0, keepdim=True, mask=m),
    "argmax": lambda M, x, m: M.argmax(x, 1, mask=m), "argmin": lambda M, x, m: M.argmin(x, 0, mask=m),
    "mean": lambda M, x, m: M.mean(x, 1, mask=m), "mean_all": lambda M, x, m: M.mean(x, mask=m),
    "mean_no_mask": lambda M, x, m: M.mean(x, -1, keepdim=True), "median": lambda M, x, m: M.median(x, 1, mask=m),
    "logsumexp": lambda M, x, m: M.logsumexp(x, 1, mask=m),
    "norm": lambda M, x, m: M.norm(x, 2.0, 1, mask=m), "norm_neg_inf": lambda M, x, m: M.norm(x, float("-inf"), 1, mask=m),
    "norm_1": lambda M, x, m: M.norm(x, 1, (0, 1), mask=m), "var": lambda M, x, m: M.var(x, 1, mask=m),
    "var_biased": lambda M, x, m: M.var(x, 1, False, mask=m),
    "std": lambda M, x, m: M.std(x, 0, correction=0, keepdim=True, mask=m), "std_all": lambda M, x, m: M.std(x, mask=m),
    "softmax": lambda M, x, m: M.softmax(x, 1, mask=m), "log_softmax": lambda M, x, m: M.log_softmax(x, -1, mask=m),
    "softmin": lambda M, x, m: M.softmin(x, 0, mask=m), "normalize": lambda M, x, m: M.normalize(x, 2.0, 1, mask=m),
    "broadcast_mask": lambda M, x, m: M.sum(x, 1, mask=m[0]), "broadcast_mean": lambda M, x, m: M.mean(x, 0, mask=m[:, :1]),
    "int_mask": lambda M, x, m: M.amax(x, 1, mask=m.int()),
    "mask_with_more_dims": lambda M, x, m: M.sum(x, 1, mask=m[None]),
    "repeated_dim": lambda M, x, m: M.sum(x, (1, 1), mask=m), "dim_out_of_range": lambda M, x, m: M.sum(x, 2, mask=m),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("call", list(_MASKED_CALLS))
def test_masked_reductions_match_pytorch(call, dtype, device):
    """tandem.masked (absent before) reads only the masked-in elements as torch.masked does: the identity of each
    op fills the others (fully masked-out slices: 0 for sum, -inf for amax, nan for mean/var/std/median, a zero
    softmax), small integers sum in int64, mean refuses integer input, and the masks broadcast with PyTorch's
    errors."""
    same_outcome(lambda L, d: _MASKED_CALLS[call](L.masked, *_masked_data(L, d, dtype)), device)


_MASKED_EDGES = {
    "mean_of_ints": lambda L, d: L.masked.mean(L.tensor([1, 2], device=d), mask=L.tensor([True, False], device=d)),
    "mean_of_ints_as_float": lambda L, d: L.masked.mean(L.tensor([1, 2], device=d), dtype=L.float32,
                                                        mask=L.tensor([True, False], device=d)),
    "sum_of_bools": lambda L, d: L.masked.sum(L.tensor([True, True, False], device=d),
                                              mask=L.tensor([True, False, True], device=d)),
    "median_of_ints_fully_masked": lambda L, d: L.masked.median(
        L.tensor([[1, 2], [3, 4]], device=d), 1, mask=L.tensor([[True, False], [False, False]], device=d)),
    "zero_dim": lambda L, d: [L.masked.sum(L.tensor(3.0, device=d), mask=L.tensor(False, device=d)),
                              L.masked.mean(L.tensor(3.0, device=d), mask=L.tensor(True, device=d))],
    "var_unbiased_and_correction": lambda L, d: L.masked.var(L.ones(3, device=d), 0, True, correction=1),
    "is_masked_tensor": lambda L, d: L.masked.is_masked_tensor(L.ones(2, device=d)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_MASKED_EDGES))
def test_masked_edge_cases_match_pytorch(case, device):
    same_outcome(_MASKED_EDGES[case], device)


@pytest.mark.parametrize("device", DEVICES)
def test_masked_gradients_reach_masked_in_elements(device):
    """The masked ops are compositions of differentiable ops: gradients reach the masked-in elements only."""
    def run(L, d):
        x, m = _masked_data(L, d, "float64")
        x.requires_grad_()
        M = L.masked
        loss = (M.mean(x, 1, mask=m).nan_to_num().sum() + M.softmax(x, 1, mask=m).nan_to_num()[:, 0].sum()
                + M.amax(x, 0, mask=m).sum() + M.std(x, 1, mask=m).nan_to_num().sum())
        loss.backward()
        return x.grad
    same_outcome(run, device)


def test_masked_tensor_is_refused_with_a_hint():
    """MaskedTensor (a __torch_dispatch__ subclass in PyTorch) is not there: its constructors say so and name the
    mask= functions; a sparse input is refused with a hint to densify."""
    with pytest.raises(NotImplementedError, match="tandem.masked has the masked reductions and normalisations "
                                                  r"\(mask=\) but no MaskedTensor\nhint: keep the data and the mask"):
        tandem.masked.masked_tensor(tandem.ones(2), tandem.ones(2, dtype=tandem.bool))
    with pytest.raises(NotImplementedError, match="as_masked_tensor|MaskedTensor"):
        tandem.masked.as_masked_tensor(tandem.ones(2), tandem.ones(2, dtype=tandem.bool))
    with pytest.raises(NotImplementedError, match=r"masked sum: tandem.masked takes strided \(dense\) tensors, got "
                                                  r"tandem.sparse_coo\nhint: call .to_dense\(\)"):
        tandem.masked.sum(tandem.ones(2, 2).to_sparse(), mask=tandem.ones(2, 2, dtype=tandem.bool))


# ---- names PyTorch has and tandem lacked: view_as_real_copy, view_as_complex_copy, sparse_compressed_tensor -----------
def _complex(L, d):
    return L.tensor([1 + 2j, 3j], device=d)


_NEW_NAMES = {
    "view_as_real_copy": lambda L, d: [L.view_as_real_copy(_complex(L, d)),
                                       L.view_as_real_copy(_complex(L, d)).is_contiguous()],
    "view_as_real_copy_is_a_copy": lambda L, d: (lambda z: (L.view_as_real_copy(z).mul_(0), z)[1])(_complex(L, d)),
    "view_as_real_copy_of_real": lambda L, d: L.view_as_real_copy(L.ones(2, device=d)),
    "view_as_real_copy_out": lambda L, d: (lambda o: (L.view_as_real_copy(_complex(L, d), out=o), o)[1])(
        L.empty(2, 2, device=d)),
    "view_as_complex_copy": lambda L, d: L.view_as_complex_copy(L.ones(2, 2, device=d)),
    "view_as_real_copy_grad": lambda L, d: (lambda x: (L.view_as_real_copy(L.view_as_complex(x)).sum().backward(),
                                                      x.grad)[1])(L.ones(2, 2, device=d, requires_grad=True)),
}


def _compressed(L, d, layout, size=True, **kwargs):
    parts = (L.tensor([0, 1, 3], device=d), L.tensor([1, 0, 2], device=d), L.tensor([1.0, 2.0, 3.0], device=d))
    if layout is not None:
        kwargs["layout"] = getattr(L, layout)
    shape = ((3, 2) if layout == "sparse_csc" else (2, 3),) if size else ()
    s = L.sparse_compressed_tensor(*parts, *shape, **kwargs)
    return [str(s.layout), s.dtype == L.float64, s.requires_grad, s.to_dense()]


for _layout in ("sparse_csr", "sparse_csc", None, "sparse_coo", "strided"):
    _NEW_NAMES[f"sparse_compressed_tensor_{_layout}"] = lambda L, d, lay=_layout: _compressed(L, d, lay)
_NEW_NAMES["sparse_compressed_tensor_inferred_size"] = lambda L, d: _compressed(
    L, d, "sparse_csc", size=False, dtype=L.float64, requires_grad=True)
_NEW_NAMES["sparse_compressed_tensor_invariants"] = lambda L, d: L.sparse_compressed_tensor(
    L.tensor([0, 1, 5]), L.tensor([1, 0, 2]), L.tensor([1.0, 2.0, 3.0]), (2, 3), layout=L.sparse_csr,
    check_invariants=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_NEW_NAMES))
def test_names_added_match_pytorch(case, device):
    """torch.view_as_real_copy/view_as_complex_copy (a contiguous copy, differentiable, with out=) and
    torch.sparse_compressed_tensor (sparse_csr_tensor or sparse_csc_tensor by layout; PyTorch's error for any other
    layout) were missing."""
    same_outcome(_NEW_NAMES[case], device)


# ---- PyTorch's layer hooks: _check_input_dim, _get_no_batch_dim, the RNN checks, _fill_padding_idx_with_zero ----------
def _any_rank_bn(L):
    class AnyRankBatchNorm(L.nn.modules.batchnorm._BatchNorm):
        def _check_input_dim(self, input):
            if input.dim() < 2:
                raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
    return AnyRankBatchNorm(3)


_NORM_HOOKS = {
    "bn_subclass_ranks": lambda L, d: [_any_rank_bn(L).to(d)(L.arange(3.0 * n, device=d).view(n // 3 or 1, 3, -1)
                                                             if n > 3 else L.ones(2, 3, device=d)).shape
                                       for n in (3, 6, 12)],
    "bn_subclass_refuses": lambda L, d: _any_rank_bn(L).to(d)(L.ones(3, device=d)),
    "bn_base_needs_the_hook": lambda L, d: L.nn.modules.batchnorm._BatchNorm(3).to(d)(L.ones(2, 3, device=d)),
    "bn2d_message": lambda L, d: L.nn.BatchNorm2d(3).to(d)(L.ones(2, 3, device=d)),
    "bn2d_hook_direct": lambda L, d: L.nn.BatchNorm1d(3)._check_input_dim(L.ones(2, 3, 4, 5)),
    "sync_bn_message": lambda L, d: L.nn.SyncBatchNorm(3).to(d)(L.ones(3, device=d)),
    "sync_bn_any_rank": lambda L, d: L.nn.SyncBatchNorm(3).to(d)(L.arange(12.0, device=d).view(2, 3, 2)),
    "instance_base_needs_the_hook": lambda L, d: L.nn.modules.instancenorm._InstanceNorm(3)(L.ones(2, 3, 4)),
    "instance_hooks": lambda L, d: [L.nn.InstanceNorm2d(3)._get_no_batch_dim(),
                                    L.nn.InstanceNorm1d(3)._check_input_dim(L.ones(3, 4)),
                                    L.nn.InstanceNorm3d(2)(L.arange(16.0, device=d).view(2, 2, 2, 2))],
    "instance_message": lambda L, d: L.nn.InstanceNorm1d(3)(L.ones(3, device=d)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_NORM_HOOKS))
def test_norm_layers_go_through_pytorchs_hooks(case, device):
    """_BatchNorm.forward calls self._check_input_dim and _InstanceNorm.forward calls _check_input_dim/
    _get_no_batch_dim/_handle_no_batch_input/_apply_instance_norm, as in PyTorch, so a research-code subclass that
    overrides them runs (tandem read a class attribute: a _BatchNorm subclass failed with "expected  input (got 4D
    input)"); a subclass that defines no check is PyTorch's bare NotImplementedError."""
    same_outcome(_NORM_HOOKS[case], device)


def _rnn(L, kind="LSTM", **kwargs):
    module = getattr(L.nn, kind)(3, 4, **kwargs)
    with L.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(L.linspace(-0.5, 0.5, p.numel()).view(p.shape) * (1 + i % 3) / 3)
    return module


def _seq(L, d, *shape):
    return L.linspace(-1, 1, int(np.prod(shape)), device=d).view(*shape)


_RNN_HOOKS = {
    "expected_sizes": lambda L, d: [_rnn(L, batch_first=True).get_expected_hidden_size(_seq(L, d, 2, 5, 3), None),
                                    _rnn(L, proj_size=2, num_layers=2).get_expected_hidden_size(_seq(L, d, 5, 2, 3), None),
                                    _rnn(L, proj_size=2, bidirectional=True).get_expected_cell_size(
                                        _seq(L, d, 5, 2, 3), L.tensor([3, 2])),
                                    _rnn(L, "GRU").get_expected_hidden_size(_seq(L, d, 5, 2, 3), None)],
    "check_input_dims": lambda L, d: _rnn(L).check_input(_seq(L, d, 5, 3), None),
    "check_input_size": lambda L, d: _rnn(L, "GRU").check_input(_seq(L, d, 5, 2, 2), None),
    "check_input_dtype": lambda L, d: _rnn(L, "RNN").check_input(_seq(L, d, 5, 2, 3).double(), None),
    "check_hidden_size": lambda L, d: _rnn(L, "GRU").check_hidden_size(L.ones(1, 2, 5), (1, 2, 4)),
    "check_forward_args_lstm": lambda L, d: _rnn(L).check_forward_args(
        _seq(L, d, 5, 2, 3), (L.zeros(1, 2, 4, device=d), L.zeros(1, 3, 4, device=d)), None),
    "check_forward_args_gru": lambda L, d: _rnn(L, "GRU").check_forward_args(
        _seq(L, d, 5, 2, 3), L.zeros(2, 2, 4, device=d), None),
    "permute_hidden": lambda L, d: [_rnn(L).permute_hidden((_seq(L, d, 1, 3, 4), -_seq(L, d, 1, 3, 4)),
                                                           L.tensor([2, 0, 1], device=d)),
                                    _rnn(L, "RNN").permute_hidden(_seq(L, d, 1, 3, 4), None)],
    "forward_batch_first_state": lambda L, d: _rnn(L, "GRU", batch_first=True).to(d)(
        _seq(L, d, 2, 5, 3), L.zeros(1, 5, 4, device=d)),
    "forward_lstm_state_sizes": lambda L, d: _rnn(L, proj_size=2).to(d)(
        _seq(L, d, 5, 2, 3), (L.zeros(1, 2, 4, device=d), L.zeros(1, 2, 4, device=d))),
    "forward_three_states": lambda L, d: _rnn(L).to(d)(
        _seq(L, d, 5, 2, 3), (L.zeros(1, 2, 4, device=d), L.zeros(1, 2, 4, device=d), L.zeros(1, 2, 4, device=d))),
    "forward_packed_unsorted": lambda L, d: (lambda out: [out[0].data, out[1]])(_rnn(L).to(d)(
        L.nn.utils.rnn.pack_padded_sequence(_seq(L, d, 4, 3, 3), L.tensor([2, 4, 3]), enforce_sorted=False),
        (_seq(L, d, 1, 3, 4), -_seq(L, d, 1, 3, 4)))),
    "forward_unbatched_batch_first": lambda L, d: _rnn(L, "RNN", batch_first=True).to(d)(
        _seq(L, d, 5, 3), _seq(L, d, 1, 4)),
    "forward_packed_state_size": lambda L, d: _rnn(L, "GRU").to(d)(
        L.nn.utils.rnn.pack_padded_sequence(_seq(L, d, 4, 3, 3), L.tensor([4, 3, 2])), L.zeros(1, 2, 4, device=d)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_RNN_HOOKS))
def test_rnn_checks_are_pytorchs_methods(case, device):
    """RNN/LSTM/GRU have PyTorch's check_input, get_expected_hidden_size (LSTM: get_expected_cell_size),
    check_hidden_size, check_forward_args and permute_hidden, and forward goes through them (subclasses call or
    override them); forward's results and messages are unchanged (batch_first, proj_size, packed and unsorted,
    unbatched, a third LSTM state)."""
    same_outcome(_RNN_HOOKS[case], device)


@pytest.mark.parametrize("device", DEVICES)
def test_rnn_subclass_overrides_reach_forward(device):
    """A subclass's check_forward_args and permute_hidden are what forward calls, with the input in the module's
    layout and the states permuted first, as in PyTorch."""
    def run(L, d):
        seen = []

        class Logged(L.nn.LSTM):
            def check_forward_args(self, input, hidden, batch_sizes):
                seen.append([list(input.shape), [list(h.shape) for h in hidden], batch_sizes is None])
                super().check_forward_args(input, hidden, batch_sizes)

            def permute_hidden(self, hx, permutation):
                seen.append(None if permutation is None else permutation.tolist())
                return super().permute_hidden(hx, permutation)

        m = Logged(3, 4, batch_first=True).to(d)
        m(_seq(L, d, 2, 5, 3))
        m(_seq(L, d, 5, 3))
        packed = L.nn.utils.rnn.pack_padded_sequence(_seq(L, d, 3, 4, 3), L.tensor([2, 4, 3]), batch_first=True,
                                                     enforce_sorted=False)
        m(packed, (L.zeros(1, 3, 4, device=d), L.zeros(1, 3, 4, device=d)))
        return seen
    same_outcome(run, device)


@pytest.mark.parametrize("device", DEVICES)
def test_embedding_fill_padding_idx_with_zero(device):
    """Embedding and EmbeddingBag have PyTorch's _fill_padding_idx_with_zero, which their reset_parameters calls
    (a subclass re-initialising the table calls it too)."""
    def run(L, d):
        class Eye(L.nn.Embedding):
            def reset_parameters(self):
                L.nn.init.eye_(self.weight)
                self._fill_padding_idx_with_zero()

        bag = L.nn.EmbeddingBag(4, 4, padding_idx=1).to(d)
        L.nn.init.ones_(bag.weight)
        bag._fill_padding_idx_with_zero()
        plain = L.nn.Embedding(3, 2)
        plain._fill_padding_idx_with_zero()  # no padding_idx: nothing to fill
        return [Eye(4, 4, padding_idx=-1).to(d).weight, bag.weight, bag.weight.requires_grad]
    same_outcome(run, device)


# ---- arguments PyTorch has and tandem lacked: the lazy norms' bias=, autograd.backward's grad_variables= ------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", ["LazyBatchNorm1d", "LazyInstanceNorm1d"])
@pytest.mark.parametrize("kwargs", [{}, {"bias": False}, {"affine": False}, {"affine": False, "bias": True}],
                         ids=["default", "no_bias", "no_affine", "no_affine_bias"])
def test_lazy_norms_take_bias(kind, kwargs, device):
    """LazyBatchNorm*/LazyInstanceNorm* take PyTorch's keyword-only bias= (TypeError before): without it the module
    it becomes has no bias parameter and prints bias=False."""
    def run(L, d):
        m = getattr(L.nn, kind)(**kwargs).to(d)
        before = repr(m)
        y = m(L.arange(12.0, device=d).view(2, 3, 2))
        return [before, repr(m), type(m).__name__, m.bias is None, m.weight is None, y, sorted(m.state_dict())]
    same_outcome(run, device)


@pytest.mark.parametrize("device", DEVICES)
def test_autograd_backward_takes_grad_variables(device):
    """torch.autograd.backward's deprecated grad_variables= (pre-0.4 code) is grad_tensors with a FutureWarning; both
    together are PyTorch's RuntimeError. (Keyword-only here: PyTorch's takes it fifth, before inputs.)"""
    def run(L, d):
        x = L.ones(2, requires_grad=True, device=d)
        L.autograd.backward(x * 2, grad_variables=L.tensor([1.0, 3.0], device=d))
        L.autograd.backward([x * 1], None, None, False, grad_variables=[L.ones(2, device=d)], inputs=[x])
        return x.grad
    same_outcome(run, device)
    x = tandem.ones(2, requires_grad=True, device=device)
    with pytest.warns(FutureWarning, match="`grad_variables` is deprecated. Use `grad_tensors` instead."):
        tandem.autograd.backward(x.sum(), grad_variables=tandem.tensor(1.0, device=device))
    with pytest.warns(FutureWarning), pytest.raises(
            RuntimeError, match="`grad_tensors` and `grad_variables` \\(deprecated\\) arguments both passed to "
                                "`backward\\(\\)`. Please only use `grad_tensors`."):
        tandem.autograd.backward(x.sum(), grad_tensors=tandem.tensor(1.0), grad_variables=tandem.tensor(1.0))


def test_module_modules_remove_duplicate_and_sequential_extend_keyword():
    """Module.modules(remove_duplicate=False) lists a shared module each time it is reached (PyTorch 2.x's argument;
    a TypeError before), and Sequential.extend's parameter is PyTorch's `sequential`."""
    def run(L, d):
        shared = L.nn.Linear(1, 1)
        net = L.nn.Sequential(shared, shared, L.nn.Sequential(shared))
        grown = L.nn.Sequential(L.nn.ReLU()).extend(sequential=[L.nn.Tanh()])
        return [len(list(net.modules())), [type(m).__name__ for m in net.modules(remove_duplicate=False)],
                [type(m).__name__ for m in net.modules(False)], repr(grown)]
    same_outcome(run, "cpu")


# ---- PyTorch's private helpers and module paths that layers forked from its source use --------------------------------
def _transposed_subclass(L):
    class Up(L.nn.modules.conv._ConvTransposeNd):
        def __init__(self):
            pair = L.nn.modules.utils._pair
            super().__init__(2, 3, pair(3), pair(2), pair(1), pair(1), True, pair(1), 1, False, "zeros")
    return Up()


_FORKED = {
    "canonical_mask_bool": lambda L, d: L.nn.functional._canonical_mask(
        L.tensor([[True, False]], device=d), "key_padding_mask", None, "", L.float32),
    "canonical_mask_float": lambda L, d: L.nn.functional._canonical_mask(
        L.tensor([[0.0, -1.0]], device=d), "attn_mask", L.bool, "key_padding_mask", L.float64, check_other=False),
    "canonical_mask_int": lambda L, d: L.nn.functional._canonical_mask(L.tensor([1], device=d), "m", None, "", L.float32),
    "none_or_dtype": lambda L, d: [L.nn.functional._none_or_dtype(None),
                                   str(L.nn.functional._none_or_dtype(L.ones(1, dtype=L.float16)))],
    "none_or_dtype_number": lambda L, d: L.nn.functional._none_or_dtype(1.0),
    "in_projection_packed": lambda L, d: L.nn.functional._in_projection_packed(
        _seq(L, d, 2, 4), _seq(L, d, 2, 4), _seq(L, d, 2, 4), _seq(L, d, 12, 4), _seq(L, d, 12)),
    "in_projection_packed_cross": lambda L, d: L.nn.functional._in_projection_packed(
        _seq(L, d, 2, 4), _seq(L, d, 3, 4), _seq(L, d, 3, 4), _seq(L, d, 12, 4)),
    "in_projection": lambda L, d: L.nn.functional._in_projection(
        _seq(L, d, 2, 4), _seq(L, d, 3, 4), _seq(L, d, 3, 4), _seq(L, d, 4, 4), -_seq(L, d, 4, 4), _seq(L, d, 4, 4)),
    "verify_batch_size": lambda L, d: L.nn.functional._verify_batch_size([1, 3, 1]),
    "verify_batch_size_ok": lambda L, d: L.nn.functional._verify_batch_size([2, 3]),
    "verify_spatial_size": lambda L, d: L.nn.functional._verify_spatial_size([4, 3, 1, 1]),
    "instance_norm_spatial_message": lambda L, d: L.nn.functional.instance_norm(L.ones(2, 3, 1, device=d)),
    "get_softmax_dim": lambda L, d: [L.nn.functional._get_softmax_dim("softmax", n, 1) for n in range(5)],
    "pair_single_triple": lambda L, d: [L.nn.functional._pair(2), L.nn.functional._single([3]),
                                        L.nn.functional._triple((1, 2, 3))],
    "reverse_repeat_tuple": lambda L, d: [L.nn.modules.utils._reverse_repeat_tuple((1, 2, 3), 2),
                                          L.nn.modules.utils._reverse_repeat_tuple([4], 3)],
    "conv_transpose_subclass": lambda L, d: (lambda m: [repr(m), list(m.weight.shape),
                                                        m._output_padding(L.ones(1, 2, 4, 4), [9, 9], m.stride,
                                                                          m.padding, m.kernel_size, 2, m.dilation)])(
        _transposed_subclass(L)),
    "conv_transpose_subclass_padding_mode": lambda L, d: L.nn.modules.conv._ConvTransposeNd(
        1, 1, (1,), (1,), (0,), (1,), True, (0,), 1, True, "reflect"),
    "conv_transpose_public": lambda L, d: repr(L.nn.ConvTranspose2d(2, 4, 3, stride=2, output_padding=1, dilation=2,
                                                                    bias=False)),
    "unflatten_path": lambda L, d: repr(L.nn.modules.flatten.Unflatten(1, (2, 2))),
    "variable_path": lambda L, d: [L.autograd.variable.Variable is L.autograd.Variable,
                                   L.autograd.variable.Variable(L.ones(2), requires_grad=True).requires_grad],
    "worker_path": lambda L, d: [L.utils.data._utils.worker.get_worker_info is L.utils.data.get_worker_info,
                                 L.utils.data._utils.worker.get_worker_info()],
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_FORKED))
def test_pytorch_private_helpers_at_their_paths(case, device):
    """Code copied from PyTorch's layers reaches its private helpers: F._canonical_mask, _none_or_dtype,
    _in_projection(_packed), _verify_batch_size, _verify_spatial_size, _get_softmax_dim, _pair/_single/_triple,
    nn.modules.utils._reverse_repeat_tuple, nn.modules.conv._ConvTransposeNd with PyTorch's (_ConvNd's) constructor,
    nn.modules.flatten.Unflatten, torch.autograd.variable and torch.utils.data._utils.worker (all missing before,
    or _ConvTransposeNd only under conv_more with the public ConvTranspose signature)."""
    same_outcome(_FORKED[case], device)


def test_named_members_takes_pytorchs_members_function():
    """Module._named_members(get_members_fn, prefix="", recurse=True, remove_duplicate=True) is PyTorch's: a
    subclass passes a function of the module (tandem's took the name of a dict and required prefix and recurse)."""
    def run(L, d):
        shared = L.nn.Linear(1, 1)
        net = L.nn.Sequential(shared, L.nn.BatchNorm1d(2), shared)
        params = lambda m: m._parameters.items()  # noqa: E731
        return [[n for n, _ in net._named_members(params)],
                [n for n, _ in net._named_members(params, prefix="net", remove_duplicate=False)],
                [n for n, _ in net._named_members(lambda m: m._buffers.items(), recurse=False)],
                [n for n, _ in net[1]._named_members(lambda m: m._buffers.items(), "bn")]]
    same_outcome(run, "cpu")


def _seed_numpy_in_worker(worker_id):
    np.random.seed(500 + worker_id)


class _NumpyDraws:
    """A map-style dataset whose items are NumPy draws in the worker (the random state the workers keep)."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return int(np.random.randint(1000))


def test_persistent_workers_keep_their_random_state():
    """Persistent workers go on from the random state they have (what worker_init_fn seeded) at each new epoch, and
    the main process draws no new base seed for a resumed epoch, as in PyTorch: tandem re-seeded the workers with a
    new base seed each epoch, undoing worker_init_fn's seeding."""
    def run(L, d):
        def epochs(n, persistent):
            L.manual_seed(0)
            loader = L.utils.data.DataLoader(_NumpyDraws(), batch_size=2, num_workers=2, persistent_workers=persistent,
                                             worker_init_fn=_seed_numpy_in_worker)
            draws = [[b.tolist() for b in loader] for _ in range(n)]
            return draws, L.rand(1).item()
        two, after_two = epochs(2, True)
        one, after_one = epochs(1, True)
        fresh, _ = epochs(2, False)
        return [two, after_two == after_one, fresh[0] == fresh[1]]
    same_outcome(run, "cpu")


class _Repeat:
    def __init__(self, sampler):
        self.sampler = sampler

    def __iter__(self):
        while True:
            yield from iter(self.sampler)


@pytest.mark.parametrize("swap", ["batch_sampler", "sampler_unbatched"])
def test_dataloader_batches_follow_a_swapped_sampler(swap):
    """A batch sampler (or sampler) swapped after construction through the name-mangled _DataLoader__initialized
    flag (timm's MultiEpochsDataLoader) is what the batches come from: tandem's one-index_select-per-tensor path
    for a TensorDataset kept reading the sampler it was built with, so the repeating sampler ended after one
    epoch ("generator raised StopIteration")."""
    def run(L, d):
        ds = L.utils.data.TensorDataset(L.arange(5.0))
        loader = L.utils.data.DataLoader(ds, batch_size=2 if swap == "batch_sampler" else None)
        loader._DataLoader__initialized = False
        if swap == "batch_sampler":
            loader.batch_sampler = _Repeat(loader.batch_sampler)
        else:
            loader.sampler = _Repeat(loader.sampler)
        loader._DataLoader__initialized = True
        it = iter(loader)
        return [[t.tolist() for t in next(it)] for _ in range(7)]
    same_outcome(run, "cpu")


def test_nn_init_private_cores():
    """torch.nn.init's _no_grad_uniform_/_normal_/_trunc_normal_/_fill_/_zero_ (imported by code written against
    PyTorch's source) fill in place without recording a graph."""
    def run(L, d):
        init, w = L.nn.init, L.nn.Parameter(L.empty(3, 4))
        out = [init._no_grad_fill_(w, 2.0) is w, w.sum().item(), init._no_grad_zero_(w).sum().item()]
        init._no_grad_trunc_normal_(w, 0.0, 1.0, -0.5, 0.5)
        out.append(bool((w.abs() <= 0.5).all()))
        init._no_grad_uniform_(w, 1.0, 2.0)
        out.append(bool(((w >= 1) & (w < 2)).all()))
        init._no_grad_normal_(w, 5.0, 0.0)
        return out + [w.sum().item(), w.grad_fn is None, w.requires_grad]
    same_outcome(run, "cpu")


def test_module_call_impl_names():
    """Module._call_impl/_wrapped_call_impl run the hooks and forward as __call__ does, and _compiled_call_impl is
    None (PyTorch's names, which libraries call or check directly; they were missing)."""
    def run(L, d):
        m = L.nn.Linear(2, 2)
        with L.no_grad():
            m.weight.fill_(1.0)
            m.bias.zero_()
        log = []
        m.register_forward_hook(lambda mod, args, out: log.append(out.sum().item()))
        outs = [m._call_impl(L.ones(1, 2)), L.nn.Module._call_impl(m, L.ones(1, 2)), m._wrapped_call_impl(L.ones(1, 2))]
        return [outs, log, m._compiled_call_impl]
    same_outcome(run, "cpu")


def test_autograd_backward_grad_variables_fifth_positionally():
    """PyTorch's autograd.backward(tensors, grad_tensors, retain_graph, create_graph, grad_variables, inputs): a
    fifth positional argument is the deprecated grad_variables."""
    def run(L, d):
        x = L.ones(2, requires_grad=True)
        L.autograd.backward(x * 2, None, None, False, L.tensor([1.0, 3.0]))
        return x.grad
    same_outcome(run, "cpu")
