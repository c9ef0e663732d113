"""The scaled_dot_product_attention op (src/ops/attention.cpp) against PyTorch in float64: values and the
gradients of query, key, value and a float mask, for causal rows, masks, GQA, scale, L != S, broadcast batches
and empty sizes, each with several block sizes (every query row alone, odd blocks, the default); plus its single
autograd node, reproducible dropout, double backward, half precision and its memory, linear in L."""
import math

import numpy as np
import pytest
import torch

import tandem
import tandem.nn._functional_attention as attention_impl
import tandem.nn.functional as F


def T(x, device="cpu"):
    return None if x is None else tandem.from_numpy(x.detach().numpy().copy()).to(device)


def randn(*shape, seed=0):
    return torch.randn(*shape, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))


def close(t, x, atol=1e-10):
    assert tuple(t.shape) == tuple(x.shape)
    np.testing.assert_allclose(t.detach().cpu().numpy(), x.detach().numpy(), rtol=1e-9, atol=atol)


def blocked_rows(rows, keys, seed=7):
    mask = randn(rows, keys, seed=seed) > 0
    mask[min(1, rows - 1)] = False  # a row that attends nothing gives zeros
    return mask


# query, key, value shapes and keyword arguments (torch tensors; a mask marked grad=True requires grad)
CASES = {
    "plain": ((2, 3, 9, 4), (2, 3, 11, 4), (2, 3, 11, 5), {}),
    "causal_square": ((2, 2, 9, 4), (2, 2, 9, 4), (2, 2, 9, 3), {"is_causal": True}),
    "causal_l_lt_s": ((2, 7, 4), (2, 12, 4), (2, 12, 5), {"is_causal": True}),
    "causal_l_gt_s": ((1, 2, 13, 4), (1, 2, 5, 4), (1, 2, 5, 6), {"is_causal": True}),
    "scale": ((2, 6, 4), (2, 8, 4), (2, 8, 3), {"scale": 0.37}),
    "bool_mask_rows": ((2, 3, 7, 4), (2, 3, 9, 4), (2, 3, 9, 4), {"attn_mask": blocked_rows(7, 9)}),
    "bool_mask_per_head": ((2, 3, 7, 4), (2, 3, 9, 4), (2, 3, 9, 4), {"attn_mask": randn(3, 7, 9) > 0}),
    "bool_mask_keys_only": ((2, 3, 7, 4), (2, 3, 9, 4), (2, 3, 9, 4), {"attn_mask": randn(2, 1, 1, 9) > -0.5}),
    "float_mask": ((2, 3, 7, 4), (2, 3, 9, 4), (2, 3, 9, 4), {"attn_mask": randn(2, 1, 7, 9)}),
    "float_mask_grad": ((2, 3, 7, 4), (2, 3, 9, 4), (2, 3, 9, 5), {"attn_mask": randn(3, 7, 9), "grad": True}),
    "float_mask_inf_rows": ((1, 7, 4), (1, 9, 4), (1, 9, 4),
                            {"attn_mask": torch.zeros(7, 9, dtype=torch.float64)
                             .masked_fill(~blocked_rows(7, 9), float("-inf"))}),
    "gqa": ((2, 6, 7, 4), (2, 2, 9, 4), (2, 2, 9, 3), {"enable_gqa": True}),
    "gqa_mask_per_head": ((1, 4, 7, 4), (1, 2, 7, 4), (1, 2, 7, 3),
                                 {"enable_gqa": True, "attn_mask": randn(4, 7, 7) > -0.3}),
    "broadcast_batch": ((2, 1, 7, 4), (1, 3, 9, 4), (3, 9, 4), {}),
    "unbatched": ((7, 4), (9, 4), (9, 5), {}),
    "one_key": ((2, 5, 4), (2, 1, 4), (2, 1, 3), {"is_causal": True}),
}
EMPTY_CASES = {
    "no_queries": ((2, 0, 4), (2, 5, 4), (2, 5, 3), {}),
    "no_keys": ((2, 4, 4), (2, 0, 4), (2, 0, 3), {}),
    "no_features": ((2, 4, 0), (2, 5, 0), (2, 5, 3), {}),
    "no_value_features": ((2, 4, 4), (2, 5, 4), (2, 5, 0), {}),
    "no_batch": ((0, 3, 4, 4), (0, 3, 5, 4), (0, 3, 5, 3), {"is_causal": True}),
}
BLOCKS = [1, 10, 0]  # every query row alone; blocks of 10 scores (ragged rows, causal key cuts); the default


def run_both(case, device, cases=CASES):
    qs, ks, vs, kwargs = cases[case]
    kwargs = dict(kwargs)
    mask_grad = kwargs.pop("grad", False)
    torch_in = [randn(*s, seed=i + 1).requires_grad_() for i, s in enumerate((qs, ks, vs))]
    tandem_in = [T(x, device).requires_grad_() for x in torch_in]
    torch_kw, tandem_kw = dict(kwargs), {n: T(a, device) if isinstance(a, torch.Tensor) else a
                                         for n, a in kwargs.items()}
    if mask_grad:
        torch_kw["attn_mask"] = torch_kw["attn_mask"].clone().requires_grad_()
        tandem_kw["attn_mask"].requires_grad_()
    out = torch.nn.functional.scaled_dot_product_attention(*torch_in, **torch_kw)
    tout = F.scaled_dot_product_attention(*tandem_in, **tandem_kw)
    assert tout.device == tandem.device(device) and tout.dtype == tandem.float64
    close(tout, out)
    g = randn(*out.shape, seed=11)
    out.backward(g)
    tout.backward(T(g, device))
    pairs = list(zip(tandem_in, torch_in))
    if mask_grad:
        pairs.append((tandem_kw["attn_mask"], torch_kw["attn_mask"]))
    for t, x in pairs:
        close(t.grad, x.grad if x.grad is not None else torch.zeros_like(x))


@pytest.mark.parametrize("blocks", BLOCKS)
@pytest.mark.parametrize("case", CASES)
def test_values_and_gradients_match_torch(case, blocks, device, monkeypatch):
    monkeypatch.setattr(attention_impl, "_SCORES_PER_BLOCK", blocks)
    run_both(case, device)


@pytest.mark.parametrize("case", EMPTY_CASES)
def test_empty_sizes_match_torch(case, device):
    run_both(case, device, EMPTY_CASES)


def test_strided_inputs_match_torch(device):
    """(batch, length, heads, dim) projections viewed as (batch, heads, length, dim), as attention layers pass them."""
    torch_in = [randn(2, 7, 3, 4, seed=s).requires_grad_() for s in (1, 2, 3)]
    tandem_in = [T(x, device).requires_grad_() for x in torch_in]
    mask = randn(7, 7, seed=4) > -0.5
    out = torch.nn.functional.scaled_dot_product_attention(*(x.transpose(1, 2) for x in torch_in), attn_mask=mask.T)
    tout = F.scaled_dot_product_attention(*(x.transpose(1, 2) for x in tandem_in), attn_mask=T(mask, device).T)
    close(tout, out)
    g = randn(*out.shape, seed=5)
    out.backward(g)
    tout.backward(T(g, device))
    for t, x in zip(tandem_in, torch_in):
        close(t.grad, x.grad)


def test_one_autograd_node_and_finite_differences():
    q, k, v = (T(randn(2, 5, 3, seed=s)).requires_grad_() for s in (1, 2, 3))
    mask = T(randn(5, 6, seed=4)).requires_grad_()
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert out.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    # query, key and value lead straight to their leaves (the fourth edge, attn_mask, is absent)
    assert [f and f.name() for f, _ in out.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad"] * 3 + [
        None]
    k2, v2 = (T(randn(2, 6, 3, seed=s)).requires_grad_() for s in (5, 6))
    assert tandem.autograd.gradcheck(lambda *a: F.scaled_dot_product_attention(*a[:3], attn_mask=a[3]),
                                     (q, k2, v2, mask))
    assert tandem.autograd.gradcheck(lambda *a: F.scaled_dot_product_attention(*a, is_causal=True, scale=0.7),
                                     (q, k2, v2))


def math_attention(q, k, v, attn_mask=None, is_causal=False):
    """PyTorch's math backend written out (its CPU flash kernel has no double backward)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if is_causal:
        scores = scores.masked_fill(torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).triu(1), float("-inf"))
    if attn_mask is not None:
        scores = scores + attn_mask
    return torch.softmax(scores, dim=-1) @ v


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"attn_mask": "float"}])
def test_double_backward_matches_torch(kwargs, device):
    torch_in = [randn(2, 5, 3, seed=s).requires_grad_() for s in (1, 2, 3)]
    tandem_in = [T(x, device).requires_grad_() for x in torch_in]
    kw, tkw = dict(kwargs), dict(kwargs)
    if kwargs.get("attn_mask") == "float":
        kw["attn_mask"] = randn(5, 5, seed=4)
        tkw["attn_mask"] = T(kw["attn_mask"], device)
    g = randn(2, 5, 3, seed=9)
    results = []
    for lib, fn, ins, args, grad in ((torch, math_attention, torch_in, kw, g),
                                     (tandem, F.scaled_dot_product_attention, tandem_in, tkw, T(g, device))):
        out = fn(*ins, **args)
        first = lib.autograd.grad((out * grad).sum(), ins, create_graph=True)
        second = lib.autograd.grad(sum((f * f).sum() for f in first), ins)
        results.append(list(first) + list(second))
    for t, x in zip(results[1], results[0]):
        close(t, x, atol=1e-9)


def test_dropout_is_reproducible_in_the_backward(device):
    """With dropout the output is A @ value for one matrix A (the dropped, rescaled weights): A is read off by
    attending over an identity value, and the backward must use the same A (value's and query's gradients)."""
    q, k = T(randn(2, 6, 4, seed=1), device), T(randn(2, 8, 4, seed=2), device)
    v = T(randn(2, 8, 3, seed=3), device)
    eye = tandem.eye(8, dtype=tandem.float64, device=device).expand(2, 8, 8)
    for blocks in (1, 0):
        attention_impl._SCORES_PER_BLOCK = blocks
        try:
            tandem.manual_seed(5)
            weights = F.scaled_dot_product_attention(q, k, eye, dropout_p=0.4)
            tandem.manual_seed(5)
            qg, kg, vg = (x.clone().requires_grad_() for x in (q, k, v))
            out = F.scaled_dot_product_attention(qg, kg, vg, dropout_p=0.4)
        finally:
            attention_impl._SCORES_PER_BLOCK = 0
        a = torch.from_numpy(weights.cpu().numpy())
        kept = a != 0
        assert 0.3 < kept.double().mean().item() < 0.9  # some weights dropped, most kept
        close(out, a @ torch.from_numpy(v.cpu().numpy()))
        g = randn(2, 6, 3, seed=4)
        out.backward(T(g, device))
        # torch's math on the same kept pattern gives the reference gradients
        tq, tk, tv = (torch.from_numpy(x.detach().cpu().numpy()).requires_grad_() for x in (q, k, v))
        probs = torch.softmax(tq @ tk.transpose(-2, -1) / 2.0, dim=-1)
        ((probs * kept / 0.6) @ tv).backward(g)
        for t, x in ((qg, tq), (kg, tk), (vg, tv)):
            close(t.grad, x.grad)
    # the same seed gives the same draws again (counter-based Philox on every device; on the CPU keyed from its
    # MT19937 stream)
    tandem.manual_seed(5)
    again = F.scaled_dot_product_attention(q, k, eye, dropout_p=0.4)
    close(weights, torch.from_numpy(again.cpu().numpy()))


def test_dropout_double_backward_uses_the_forward_draws():
    q, k, v = (T(randn(1, 5, 3, seed=s)).requires_grad_() for s in (1, 2, 3))
    tandem.manual_seed(3)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    first = tandem.autograd.grad(out.sum(), (q, k, v), create_graph=True)
    tandem.manual_seed(3)
    out2 = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    plain = tandem.autograd.grad(out2.sum(), (q, k, v))
    for a, b in zip(first, plain):
        np.testing.assert_allclose(a.detach().numpy(), b.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", [tandem.float16, tandem.bfloat16])
def test_half_precision_normalised_in_float32(dtype, device):
    q, k, v = randn(2, 7, 8, seed=1), randn(2, 9, 8, seed=2), randn(2, 9, 8, seed=3)
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    tq, tk, tv = (T(x, device).to(dtype).requires_grad_() for x in (q, k, v))
    got = F.scaled_dot_product_attention(tq, tk, tv, is_causal=True)
    assert got.dtype == dtype
    np.testing.assert_allclose(got.detach().float().cpu().numpy(), want.numpy(), atol=3e-2)
    got.float().sum().backward()
    assert tq.grad.dtype == dtype and tk.grad.dtype == dtype and tv.grad.dtype == dtype
    q64 = q.clone().requires_grad_()
    torch.nn.functional.scaled_dot_product_attention(q64, k, v, is_causal=True).sum().backward()
    np.testing.assert_allclose(tq.grad.float().cpu().numpy(), q64.grad.numpy(), atol=5e-2)


@pytest.mark.parametrize("shapes", [((2, 4, 5), (2, 6, 4), (2, 6, 7)), ((2, 4, 5), (3, 6, 5), (3, 6, 7)),
                                    ((2, 4, 5), (2, 6, 5), (2, 5, 7)), ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)),
                                    ((5, 2, 3, 4, 5), (5, 2, 4, 6, 5), (5, 2, 4, 6, 5))])
def test_shape_errors_match_torch(shapes):
    args = [randn(*s) for s in shapes]
    mask = randn(5, 6) if len(shapes[0]) == 4 else None
    with pytest.raises(RuntimeError) as want:
        torch.nn.functional.scaled_dot_product_attention(*args, attn_mask=mask)
    with pytest.raises(RuntimeError) as got:
        F.scaled_dot_product_attention(*(T(a) for a in args), attn_mask=T(mask))
    assert str(got.value).split("\nhint:")[0] == str(want.value)


def test_mask_may_not_enlarge_the_batch():
    q = randn(3, 6, 4)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=randn(2, 3, 6, 6))
    with pytest.raises(RuntimeError, match=r"output with shape \[3, 6, 6\] doesn't match the broadcast shape "
                                           r"\[2, 3, 6, 6\]"):
        F.scaled_dot_product_attention(T(q), T(q), T(q), attn_mask=T(randn(2, 3, 6, 6)))


def test_saved_state_is_linear_in_sequence_length():
    """L = S = 2048: the scores of one head are 16 MiB in float32. What the graph keeps after the forward is the
    output and one logsumexp per row (the composition of ops it replaces kept every block's weights). Measured
    with the (emulated) CUDA device's memory statistics; its work queue keeps each block's buffers until the
    queue reaches them, so the peak is not asserted here."""
    if not (tandem.cuda.is_available() and tandem.cuda.device_count()):
        pytest.skip("needs a (real or emulated) CUDA device for its memory statistics")
    device = "cuda:0"
    length, heads, dim = 2048, 1, 8
    q, k, v = (tandem.randn(1, heads, length, dim, device=device).requires_grad_() for _ in range(3))
    for causal, mask in ((False, None), (True, None), (False, tandem.ones(length, length, dtype=tandem.bool,
                                                                          device=device).tril())):
        tandem.cuda.synchronize(device)
        before = tandem.cuda.memory_allocated(device)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
        tandem.cuda.synchronize(device)
        kept = tandem.cuda.memory_allocated(device) - before
        output_bytes, lse_bytes = out.numel() * 4, heads * length * 4
        assert output_bytes <= kept <= output_bytes + lse_bytes + 4096, kept  # not heads * length**2 * 4
        out.sum().backward()
        assert q.grad.shape == q.shape and float(k.grad.abs().sum()) > 0
        q.grad = k.grad = v.grad = None
        del out
        tandem.cuda.synchronize(device)
        assert tandem.cuda.memory_allocated(device) == before  # the backward released what the node saved


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"dropout_p": 0.3}, {"mask": True}])
def test_tasks_on_two_threads_give_the_one_thread_bits(kwargs):
    # On the CPU with several threads, each (batch item, head group) is a task of its own thread, the ops inside
    # it serial: every block computes exactly as on one thread, dropout draws included. dk/dv accumulate over a
    # task's row blocks (causal: 64 rows each), so a task must own all rows of its heads.
    q, k, v = randn(3, 4, 150, 16, seed=1), randn(3, 4, 130, 16, seed=2), randn(3, 4, 130, 8, seed=3)
    mask = T(blocked_rows(150, 130)) if kwargs.get("mask") else None
    kw = {key: value for key, value in kwargs.items() if key != "mask"}

    def run(threads):
        tandem.set_num_threads(threads)
        tandem.manual_seed(5)
        tq, tk, tv = (T(x).requires_grad_() for x in (q, k, v))
        out = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=mask, **kw)
        (out * T(randn(*out.shape, seed=4))).sum().backward()
        return [x.numpy() for x in (out.detach(), tq.grad, tk.grad, tv.grad)]

    before = tandem.get_num_threads()
    try:
        one, two = run(1), run(2)
    finally:
        tandem.set_num_threads(before)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
