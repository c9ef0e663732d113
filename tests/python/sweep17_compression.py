"""Sweep 17 programs, model compression and sparse embeddings: torch.nn.utils.prune (unstructured, structured,
global, custom masks, removal), weight_norm/spectral_norm parametrizations, knowledge distillation with kl_div,
fake quantisation by straight-through estimators and torch.fake_quantize_*, low-rank factorisation, EmbeddingBag in
every mode, sparse embeddings stepped by SparseAdam/SGD/Adagrad, and sparse COO matrices in a training loop."""
import importlib

import numpy as np

from sweep15_common import cases, plain
from test_programs_sweeputil import uniform_fill as _fill, seeded_randn as _randn


# ---- pruning: l1/ln structured and unstructured, random counts, global pruning, custom masks, remove ------------
def pruning_program(torch, device):
    nn = torch.nn
    prune = importlib.import_module(torch.__name__ + ".nn.utils.prune")  # `import torch.nn.utils.prune as prune`
    model = _fill(torch, nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 6),
                                       nn.ReLU(), nn.Linear(6, 3)), 2200).to(device)
    conv, fc1, fc2 = model[0], model[3], model[5]
    prune.l1_unstructured(conv, "weight", amount=0.3)
    prune.ln_structured(fc1, "weight", amount=2, n=2, dim=0)
    prune.ln_structured(fc2, "weight", amount=0.34, n=float("inf"), dim=1)
    prune.l1_unstructured(conv, "weight", amount=5)  # a second round prunes among the survivors
    prune.l1_unstructured(conv, "bias", amount=0.5)
    # random pruning draws its mask from the device's generator: only the counts are compared
    rnd = _fill(torch, nn.Linear(6, 5), 2204).to(device)
    prune.random_structured(rnd, "weight", amount=0.4, dim=0)
    prune.random_unstructured(rnd, "bias", amount=3)
    random_counts = [int((rnd.weight_mask.sum(1) == 0).sum()), int((rnd.bias == 0).sum())]
    x = _randn(torch, 2201, 2, 2, 6, 6, device=device)
    out = model(x)
    out.sum().backward()
    state = {
        "names": sorted(n for n, _ in model.named_parameters()), "buffers": sorted(n for n, _ in model.named_buffers()),
        "conv_zeros": int((conv.weight == 0).sum()), "fc1_rows": (fc1.weight_mask.sum(1) > 0).tolist(),
        "fc2_cols_kept": int((fc2.weight_mask.sum(0) > 0).sum()), "bias_zeros": int((conv.bias == 0).sum()),
        "is_pruned": prune.is_pruned(model), "hooks": len(conv._forward_pre_hooks),
        "orig_grad_masked": bool(((conv.weight_orig.grad != 0) & (conv.weight_mask == 0)).any()),
        "container": type(conv._forward_pre_hooks[next(iter(conv._forward_pre_hooks))]).__name__,
    }
    if fc2.weight_mask.sum(0).min() == 0:
        state["fc2_pruned_cols"] = int((fc2.weight_mask.sum(0) == 0).sum())
    prune.remove(conv, "weight")
    state["after_remove"] = [sorted(n for n, _ in conv.named_parameters()), int((conv.weight == 0).sum()),
                             hasattr(conv, "weight_mask")]
    # global pruning across layers, custom masks, the identity pruner
    net = _fill(torch, nn.Sequential(nn.Linear(5, 8), nn.Linear(8, 4)), 2202).to(device)
    params = [(net[0], "weight"), (net[1], "weight")]
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.5)
    per_layer = [int((m.weight == 0).sum()) for m, _ in params]
    threshold_ok = bool(torch.cat([m.weight_orig[m.weight_mask == 0].abs() for m, _ in params]).max() <=
                        torch.cat([m.weight_orig[m.weight_mask == 1].abs() for m, _ in params]).min())
    mask = torch.ones(4, device=device)
    mask[1] = 0
    prune.custom_from_mask(net[1], "bias", mask)
    prune.identity(net[0], "bias")
    sd = sorted(net.state_dict())

    class EveryOther(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            m = default_mask.clone()
            m.view(-1)[::2] = 0
            return m

    extra = _fill(torch, nn.Linear(3, 2), 2203).to(device)
    EveryOther.apply(extra, "weight")
    return {"state": state, "out": out.flatten().tolist(), "random": random_counts, "global": per_layer,
            "threshold_ok": threshold_ok,
            "bias": net[1].bias.tolist(), "sd": sd, "every_other": extra.weight.flatten().tolist(),
            "errors": cases(torch, {
                "amount_too_big": lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=10),
                "bad_amount": lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5),
                "remove_unpruned": lambda: prune.remove(nn.Linear(2, 2), "weight"),
            })}


# ---- weight_norm and spectral_norm as parametrizations (and the legacy hooks), removal with leave_parametrized -----
def norm_parametrizations(torch, device):
    nn = torch.nn
    P = nn.utils.parametrize
    lin = _fill(torch, nn.Linear(4, 3), 2210).to(device)
    ref_w = lin.weight.detach().clone()
    wn = nn.utils.parametrizations.weight_norm(lin, name="weight", dim=0)
    names = sorted(n for n, _ in wn.named_parameters())
    g = wn.parametrizations.weight.original0
    v = wn.parametrizations.weight.original1
    same = bool(torch.allclose(wn.weight, ref_w, atol=1e-6))
    x = _randn(torch, 2211, 5, 4, device=device)
    wn(x).pow(2).sum().backward()
    grads = [g.grad.flatten().tolist(), v.grad.abs().sum().item()]
    with torch.no_grad():
        g.mul_(2.0)
    doubled = bool(torch.allclose(wn.weight, 2 * ref_w, atol=1e-6))
    P.remove_parametrizations(wn, "weight", leave_parametrized=True)
    after = [sorted(n for n, _ in wn.named_parameters()), bool(torch.allclose(wn.weight, 2 * ref_w, atol=1e-6))]
    conv = _fill(torch, nn.Conv1d(2, 3, 3), 2212).to(device)
    conv = nn.utils.parametrizations.weight_norm(conv, dim=None)
    g_shape = list(conv.parametrizations.weight.original0.shape)
    # spectral norm: after enough power iterations the largest singular value is 1
    sn_lin = _fill(torch, nn.Linear(6, 5), 2213).to(device)
    sn = nn.utils.parametrizations.spectral_norm(sn_lin, n_power_iterations=30)
    sn.train()
    for _ in range(3):
        sn(x.new_ones(1, 6))
    sigma = torch.linalg.matrix_norm(sn.weight.detach(), ord=2).item()
    sn.eval()
    eval_w = sn.weight.detach().clone()
    with P.cached():
        cached_same = sn.weight is sn.weight
    legacy = nn.utils.weight_norm(_fill(torch, nn.Linear(4, 3), 2214).to(device))
    legacy_names = sorted(n for n, _ in legacy.named_parameters())
    nn.utils.remove_weight_norm(legacy)
    return {"names": names, "same": same, "grads": grads, "doubled": doubled, "after": after, "g_shape": g_shape,
            "g": g.detach().flatten().tolist(), "sigma": round(sigma, 3), "eval_sigma": round(
                torch.linalg.matrix_norm(eval_w, ord=2).item(), 3),
            "cached": cached_same, "is_param": P.is_parametrized(sn), "legacy": legacy_names,
            "legacy_after": sorted(n for n, _ in legacy.named_parameters()),
            "buffers": sorted(n for n, _ in sn.named_buffers()),
            "errors": cases(torch, {"remove_twice": lambda: P.remove_parametrizations(wn, "weight")})}


# ---- knowledge distillation: temperature-softened KL (log_target both ways) plus hard-label cross entropy -------
def distillation(torch, device):
    nn = torch.nn
    F = nn.functional
    teacher = _fill(torch, nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4)), 2220, 0.8).to(device).eval()
    student = _fill(torch, nn.Sequential(nn.Linear(6, 4)), 2221).to(device)
    x = _randn(torch, 2222, 32, 6, device=device)
    y = torch.tensor(np.random.default_rng(2223).integers(0, 4, 32), device=device)
    opt = torch.optim.SGD(student.parameters(), lr=0.5)
    T, alpha = 3.0, 0.7
    log = []
    for _ in range(6):
        with torch.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)
        soft = F.kl_div(F.log_softmax(s_logits / T, -1), F.softmax(t_logits / T, -1), reduction="batchmean") * T * T
        soft_lt = F.kl_div(F.log_softmax(s_logits / T, -1), F.log_softmax(t_logits / T, -1), reduction="batchmean",
                           log_target=True) * T * T
        hard = F.cross_entropy(s_logits, y)
        loss = alpha * soft + (1 - alpha) * hard
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([loss.item(), abs(soft.item() - soft_lt.item()) < 1e-5])
    with torch.no_grad():
        agree = (student(x).argmax(-1) == teacher(x).argmax(-1)).float().mean().item()
    p = F.log_softmax(s_logits.detach(), -1)
    q = F.softmax(t_logits, -1)
    reductions = {r: plain(torch, F.kl_div(p, q, reduction=r)) for r in ("none", "sum", "mean", "batchmean")}
    module = nn.KLDivLoss(reduction="batchmean", log_target=True)
    zeros = F.kl_div(p[:2], torch.tensor([[0.0, 1.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]], device=device),
                     reduction="sum")
    return {"log": log, "agree": agree, "reductions": {k: v[:2] + [v[2][:6] if isinstance(v[2], list) else v[2]]
                                                       for k, v in reductions.items()},
            "module": module(p, q.log()).item(), "zeros": zeros.item(),
            "mse_feature": F.mse_loss(student[0](x), teacher[2](teacher[1](teacher[0](x)))).item()}


# ---- fake quantisation: round/clamp with a straight-through estimator, per-channel scales, torch.fake_quantize_* ---
def fake_quantisation(torch, device):
    nn = torch.nn
    w = _randn(torch, 2230, 4, 6, device=device).requires_grad_()
    x = _randn(torch, 2231, 5, 6, device=device)
    # symmetric int8 per-tensor with an STE
    scale = w.detach().abs().max() / 127
    q = torch.clamp(torch.round(w / scale), -128, 127) * scale
    w_q = w + (q - w).detach()
    (x @ w_q.T).sum().backward()
    ste_grad = w.grad.clone()
    # asymmetric uint8 per-channel
    lo, hi = w.detach().amin(1, keepdim=True), w.detach().amax(1, keepdim=True)
    s = (hi - lo) / 255
    zp = torch.round(-lo / s).clamp(0, 255)
    qc = (torch.clamp(torch.round(w.detach() / s) + zp, 0, 255) - zp) * s
    # PyTorch's fake-quantize ops against the hand formulas
    fq = torch.fake_quantize_per_tensor_affine(w.detach(), scale.item(), 0, -128, 127)
    fq_t = torch.fake_quantize_per_tensor_affine(w.detach(), scale.reshape(()), torch.tensor(0, dtype=torch.int32,
                                                                                             device=device), -128, 127)
    fqc = torch.fake_quantize_per_channel_affine(w.detach(), s.flatten(), zp.flatten().int(), 0, 0, 255)
    wg = w.detach().clone().requires_grad_()
    out = torch.fake_quantize_per_tensor_affine(wg * 3, scale.item(), 0, -128, 127)
    out.sum().backward()
    # a learned-step-size quantiser (LSQ): the gradient reaches the step through round's STE
    step = torch.tensor(0.05, device=device, requires_grad=True)
    v = w.detach() / step
    vq = (v.round() - v).detach() + v
    lsq = (vq.clamp(-8, 7) * step)
    lsq.pow(2).sum().backward()
    # bit packing of 4-bit codes into bytes and back
    codes = torch.clamp(torch.round(w.detach() / (w.detach().abs().max() / 7)), -8, 7).to(torch.int8)
    u = (codes.flatten() + 8).to(torch.uint8)
    packed = (u[0::2] << 4) | u[1::2]
    unpacked = torch.stack([packed >> 4, packed & 15], 1).flatten().to(torch.int8) - 8
    quant_lin = _fill(torch, nn.Linear(6, 4), 2232).to(device)
    with torch.no_grad():
        s_l = quant_lin.weight.abs().max() / 127
        int_w = torch.round(quant_lin.weight / s_l).to(torch.int8)
        deq = int_w.float() * s_l
    return {"q_err": (q - w.detach()).abs().max().item() <= scale.item() / 2 + 1e-7,
            "ste": ste_grad.flatten()[:6].tolist(),
            "qc": qc.flatten()[:8].tolist(), "fq_same": bool(torch.allclose(fq, q.detach(), atol=1e-6)),
            "fq_t": bool(torch.equal(fq, fq_t)), "fqc_same": bool(torch.allclose(fqc, qc, atol=1e-5)),
            "fq_grad": wg.grad.flatten().tolist(), "lsq_step_grad": step.grad.item(),
            "roundtrip": bool(torch.equal(unpacked, codes.flatten())), "packed": packed.tolist()[:6],
            "int_w": int_w.flatten().tolist()[:8], "deq_err": (deq - quant_lin.weight).abs().max().item() < 0.01,
            "dtype": str(packed.dtype),
            "errors": cases(torch, {
                "bad_range": lambda: torch.fake_quantize_per_tensor_affine(w.detach(), 0.1, 0, 5, 2),
                "bad_zp": lambda: torch.fake_quantize_per_tensor_affine(w.detach(), 0.1, 300, 0, 255),
            })}


# ---- low-rank factorisation of a trained layer (truncated SVD into two Linear layers) and magnitude statistics ---
def low_rank_factorisation(torch, device):
    nn = torch.nn
    big = _fill(torch, nn.Linear(12, 10), 2240).to(device)
    with torch.no_grad():  # make it nearly rank 3
        a = _randn(torch, 2241, 10, 3, device=device)
        b = _randn(torch, 2242, 3, 12, device=device)
        big.weight.copy_(a @ b / 4 + 0.01 * big.weight)
    U, S, Vh = torch.linalg.svd(big.weight.detach(), full_matrices=False)
    energy = (S ** 2).cumsum(0) / (S ** 2).sum()
    r = int((energy < 0.999).sum()) + 1
    first = nn.Linear(12, r, bias=False).to(device)
    second = nn.Linear(r, 10).to(device)
    with torch.no_grad():
        first.weight.copy_(torch.diag(S[:r].sqrt()) @ Vh[:r])
        second.weight.copy_(U[:, :r] @ torch.diag(S[:r].sqrt()))
        second.bias.copy_(big.bias)
    x = _randn(torch, 2243, 7, 12, device=device)
    err = (second(first(x)) - big(x)).abs().max().item()
    n_before = sum(p.numel() for p in big.parameters())
    n_after = sum(p.numel() for p in first.parameters()) + sum(p.numel() for p in second.parameters())
    stats = torch.quantile(big.weight.detach().abs().flatten(), torch.tensor([0.1, 0.5, 0.9], device=device))
    kth = torch.kthvalue(big.weight.detach().abs().flatten(), 30).values
    return {"rank": r, "S": S.tolist(), "small_err": err < 0.05, "params": [n_before, n_after],
            "energy": energy[:4].tolist(), "stats": stats.tolist(), "kth": kth.item(),
            "lowrank_matrix": torch.linalg.matrix_rank(big.weight.detach(), atol=0.1).item()}


# ---- EmbeddingBag: sum/mean/max with offsets, include_last_offset, per_sample_weights, padding_idx, 2-D input ------
def embedding_bags(torch, device):
    nn = torch.nn
    F = nn.functional
    weight = _randn(torch, 2250, 10, 3, device=device)
    ids = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 0], device=device)
    offsets = torch.tensor([0, 3, 3, 7], device=device)  # one empty bag
    out = {}
    for mode in ("sum", "mean", "max"):
        bag = nn.EmbeddingBag.from_pretrained(weight, mode=mode, freeze=False)
        r = bag(ids, offsets)
        out[mode] = r.flatten().tolist()
        r.sum().backward()
        out[mode + "_grad"] = bag.weight.grad.sum(1).tolist()
    psw = torch.linspace(0.1, 1.0, 10, device=device)
    out["psw"] = F.embedding_bag(ids, weight, offsets, mode="sum", per_sample_weights=psw).flatten().tolist()
    out["last"] = F.embedding_bag(ids, weight, torch.tensor([0, 3, 7, 10], device=device), mode="mean",
                                  include_last_offset=True).flatten().tolist()
    out["pad"] = F.embedding_bag(ids, weight, offsets, mode="mean", padding_idx=0).flatten().tolist()
    out["pad_max"] = F.embedding_bag(ids, weight, offsets, mode="max", padding_idx=2).flatten().tolist()
    out["2d"] = F.embedding_bag(ids.view(2, 5), weight, mode="mean").flatten().tolist()
    bag = _fill(torch, nn.EmbeddingBag(10, 3, mode="sum", padding_idx=4, max_norm=1.0), 2251).to(device)
    r = bag(ids, offsets)
    out["max_norm"] = [r.flatten().tolist(), bag.weight.norm(dim=1).tolist()]
    emb = _fill(torch, nn.Embedding(10, 3, padding_idx=0, scale_grad_by_freq=True), 2252).to(device)
    e = emb(ids.view(2, 5))
    e.sum().backward()
    out["freq_grad"] = emb.weight.grad.sum(1).tolist()
    out["errors"] = cases(torch, {
        "psw_mean": lambda: F.embedding_bag(ids, weight, offsets, mode="mean", per_sample_weights=psw),
        "offsets_2d": lambda: F.embedding_bag(ids.view(2, 5), weight, offsets),
        # PyTorch checks offsets on the CPU only
        "bad_first": lambda: F.embedding_bag(ids.cpu(), weight.cpu(), torch.tensor([1, 3])),
        "bad_mode": lambda: F.embedding_bag(ids, weight, offsets, mode="median"),
        "float_ids": lambda: F.embedding_bag(ids.float().cpu(), weight.cpu(), offsets.cpu()),
    })
    return out


# ---- sparse embeddings: sparse gradients, coalesce, SparseAdam, SGD with sparse grads, Adagrad ---------------------
def sparse_embeddings(torch, device):
    nn = torch.nn
    results = {}
    for name in ("SparseAdam", "SGD", "Adagrad"):
        emb = _fill(torch, nn.Embedding(12, 4, sparse=True), 2260).to(device)
        head = _fill(torch, nn.Linear(4, 1), 2261).to(device)
        if name == "SparseAdam":
            opt = torch.optim.SparseAdam(list(emb.parameters()), lr=0.05)
        elif name == "SGD":
            opt = torch.optim.SGD(emb.parameters(), lr=0.2)
        else:
            opt = torch.optim.Adagrad(emb.parameters(), lr=0.2)
        dense_opt = torch.optim.Adam(head.parameters(), lr=0.05)
        ids = torch.tensor([[1, 3, 3], [5, 1, 7]], device=device)
        y = torch.tensor([1.0, -1.0], device=device)
        before = emb.weight.detach().clone()
        for _ in range(3):
            opt.zero_grad()
            dense_opt.zero_grad()
            loss = (head(emb(ids).mean(1)).squeeze(1) - y).pow(2).mean()
            loss.backward()
            grad = emb.weight.grad
            info = [grad.is_sparse, grad._nnz(), grad.coalesce()._nnz(), sorted(set(grad.coalesce().indices()[0]
                                                                                     .tolist()))]
            opt.step()
            dense_opt.step()
        changed = (emb.weight.detach() != before).any(1).nonzero().flatten().tolist()
        results[name] = {"loss": loss.item(), "grad": info, "changed": changed,
                         "w": emb.weight.detach()[1].tolist(), "state": sorted(opt.state[emb.weight].keys())}
    emb = nn.Embedding(4, 2, sparse=True).to(device)
    emb(torch.tensor([0, 0, 2], device=device)).sum().backward()
    g = emb.weight.grad
    results["dense_grad"] = g.to_dense().tolist()
    results["errors"] = cases(torch, {
        "adam_sparse": lambda: _step(torch, torch.optim.Adam, emb),
        "sparseadam_dense": lambda: _sparse_adam_dense(torch, device),
    })
    return results


def _step(torch, opt_cls, emb):
    opt = opt_cls(emb.parameters(), lr=0.1)
    opt.step()


def _sparse_adam_dense(torch, device):
    lin = torch.nn.Linear(2, 1).to(device)
    opt = torch.optim.SparseAdam(lin.parameters(), lr=0.1)
    lin(torch.ones(1, 2, device=device)).sum().backward()
    opt.step()


# ---- sparse COO matrices in training: a GCN with torch.sparse.mm, coalesce, sparse sums and softmax -------------
def sparse_training(torch, device):
    nn = torch.nn
    edges = torch.tensor([[0, 1, 1, 2, 3, 4, 4, 0, 2, 2], [1, 0, 2, 1, 4, 3, 0, 4, 2, 2]], device=device)
    vals = torch.ones(edges.shape[1], device=device)
    A = torch.sparse_coo_tensor(edges, vals, (5, 5))
    coalesced = A.coalesce()
    deg = torch.sparse.sum(coalesced, 1).to_dense()
    dinv = deg.pow(-0.5)
    norm_vals = dinv[coalesced.indices()[0]] * coalesced.values() * dinv[coalesced.indices()[1]]
    A_hat = torch.sparse_coo_tensor(coalesced.indices(), norm_vals, (5, 5)).coalesce()
    X = _randn(torch, 2270, 5, 3, device=device)
    W1 = nn.Parameter(_randn(torch, 2271, 3, 4, device=device) * 0.5)
    W2 = nn.Parameter(_randn(torch, 2272, 4, 2, device=device) * 0.5)
    y = torch.tensor([0, 1, 0, 1, 1], device=device)
    opt = torch.optim.Adam([W1, W2], lr=0.05)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        h = torch.relu(torch.sparse.mm(A_hat, X @ W1))
        logits = torch.sparse.mm(A_hat, h @ W2)
        loss = nn.functional.cross_entropy(logits, y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    # gradients to the sparse values themselves
    v = norm_vals.clone().requires_grad_()
    S = torch.sparse_coo_tensor(coalesced.indices(), v, (5, 5))
    torch.sparse.mm(S, X).sum().backward()
    soft = torch.sparse.softmax(A_hat, 1).to_dense()
    hybrid = torch.sparse_coo_tensor(torch.tensor([[0, 2]], device=device), torch.ones(2, 3, device=device), (4, 3))
    csr = A_hat.to_dense().to_sparse_csr()
    return {"nnz": [A._nnz(), coalesced._nnz()], "coalesced": [A.is_coalesced(), coalesced.is_coalesced()],
            "dup_value": coalesced.to_dense()[2, 2].item(), "deg": deg.tolist(),
            "A_hat": A_hat.to_dense().flatten().tolist(),
            "losses": losses, "v_grad": v.grad.tolist(), "softmax_rows": soft.sum(1).tolist(),
            "softmax": soft[0].tolist(),
            "hybrid": [hybrid.sparse_dim(), hybrid.dense_dim(), hybrid.to_dense().tolist()],
            "csr": [csr.crow_indices().tolist(), csr.col_indices().tolist(), (csr @ X).sum().item()],
            "transpose": A_hat.t().coalesce().indices().tolist(), "mul": (A_hat * 2).to_dense().sum().item(),
            "add": (A_hat + A_hat).coalesce().values().tolist(), "sum_all": torch.sparse.sum(A_hat).item(),
            "errors": cases(torch, {
                "bad_shape": lambda: torch.sparse.mm(A_hat, torch.ones(4, 2, device=device)),
                "out_of_range": lambda: torch.sparse_coo_tensor(torch.tensor([[0, 7]]), torch.ones(2), (5,),
                                                                check_invariants=True),
            })}


# ---- learned step-size quantisation (LSQ): learnable per-tensor activation and per-channel weight quantisers -----
def learned_step_quantisation(torch, device):
    nn = torch.nn
    F = nn.functional

    class QLinear(nn.Module):
        def __init__(self, fan_in, fan_out, bits=4):
            super().__init__()
            self.lin = nn.Linear(fan_in, fan_out)
            self.qmin, self.qmax = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
            self.w_scale = nn.Parameter(torch.full((fan_out,), 0.05))
            self.w_zero = nn.Parameter(torch.zeros(fan_out))
            self.a_scale = nn.Parameter(torch.tensor([0.1]))
            self.a_zero = nn.Parameter(torch.tensor([0.0]))

        def forward(self, x):
            g_w = 1.0 / (self.lin.weight.numel() * self.qmax) ** 0.5
            w = torch._fake_quantize_learnable_per_channel_affine(self.lin.weight, self.w_scale, self.w_zero, 0,
                                                                 self.qmin, self.qmax, g_w)
            xq = torch._fake_quantize_learnable_per_tensor_affine(x, self.a_scale, self.a_zero, 0, 15,
                                                                 1.0 / (x.numel() * 15) ** 0.5)
            return F.linear(xq, w, self.lin.bias)

    model = nn.Sequential(QLinear(6, 8), nn.ReLU(), QLinear(8, 3))
    _fill(torch, model, 2280, 0.4)
    with torch.no_grad():
        for m in model:
            if isinstance(m, QLinear):
                m.w_scale.copy_(m.lin.weight.abs().amax(1) / m.qmax)
                m.w_zero.zero_()
                m.a_scale.fill_(0.2)
                m.a_zero.fill_(1.0)
    model = model.to(device)
    x = _randn(torch, 2281, 16, 6, device=device)
    y = torch.tensor(np.random.default_rng(2282).integers(0, 3, 16), device=device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    log = []
    for _ in range(4):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        log.append([loss.item(), model[0].a_scale.grad.item(), model[0].a_zero.grad.item(),
                    model[2].w_scale.grad.tolist()])
        opt.step()
    w = model[0].lin.weight.detach()
    codes = torch.round(w / model[0].w_scale.detach()[:, None]).clamp(-8, 7)
    static = torch.fake_quantize_per_channel_affine(w, model[0].w_scale.detach(),
                                                    torch.zeros(8, dtype=torch.int32, device=device), 0, -8, 7)
    return {"log": log, "scales": model[0].w_scale.detach().tolist(), "a": [model[0].a_scale.item(),
                                                                            model[0].a_zero.item()],
            "codes": codes[0].tolist(), "static": static[0].tolist(),
            "errors": cases(torch, {
                "negative_axis": lambda: torch.fake_quantize_per_channel_affine(
                    w, model[0].w_scale.detach(), torch.zeros(8, dtype=torch.int32, device=device), -2, -8, 7),
                "zero_dim_scale": lambda: torch._fake_quantize_learnable_per_tensor_affine(
                    x, torch.tensor(0.1, device=device), torch.tensor([0.0], device=device), 0, 15),
                "range_without_zero": lambda: torch._fake_quantize_learnable_per_tensor_affine(
                    x.clone().requires_grad_(), torch.tensor([0.1], device=device),
                    torch.tensor([3.0], device=device), 2, 15).sum().backward(),
            })}


# ---- sparse adjacency bookkeeping: rows by select/index_select, blocks by narrow_copy, CSR sums, dense += sparse ---
def sparse_graph_batches(torch, device):
    rng = np.random.default_rng(2290)
    n = 8
    src = rng.integers(0, n, 20)
    dst = rng.integers(0, n, 20)
    A = torch.sparse_coo_tensor(torch.tensor(np.stack([src, dst]), device=device), torch.ones(20, device=device),
                                (n, n))  # uncoalesced: repeated edges add up
    C = A.coalesce()

    def parts(t):
        if t.layout == torch.strided:
            return plain(torch, t)
        return [str(t.layout).split(".")[-1], t.is_coalesced(), plain(torch, t._indices()),
                plain(torch, t._values()), plain(torch, t.to_dense())]

    rows = {f"row{r}": parts(A.select(0, r)) for r in (0, 3, -1)}
    cols = parts(C.select(1, 2))
    block = parts(C.narrow_copy(0, 2, 4))
    block_cols = parts(A.narrow_copy(1, 0, 3))
    hybrid = torch.sparse_coo_tensor(torch.tensor([src[:6]], device=device),
                                     torch.tensor(rng.standard_normal((6, 3)), dtype=torch.float32, device=device),
                                     (n, 3))
    features = [parts(hybrid.select(0, int(src[0]))), parts(hybrid.select(1, 2)), parts(hybrid.narrow_copy(1, 1, 2))]
    # a symmetric normalised adjacency with self loops, kept in CSR
    A_csr = C.to_sparse_csr()
    eye = torch.eye(n, device=device).to_sparse_csr()
    loops = A_csr + eye
    both = A_csr.add(A_csr, alpha=0.5)
    x = torch.tensor(rng.standard_normal((n, n)), dtype=torch.float32, device=device)
    dense_sum = x.add(A_csr, alpha=2.0)
    acc = torch.zeros(n, n, device=device)
    acc.add_(C, alpha=0.25)
    acc.sub_(A)
    acc = acc.add(A, alpha=3)
    deg = loops.to_dense().sum(1)
    masked = A_csr * x  # the dense scores at the edges only
    on_loops = loops * A_csr  # edges that are also self loops
    return {"rows": rows, "cols": cols, "block": block, "block_cols": block_cols, "features": features,
            "loops": [plain(torch, loops.crow_indices()), plain(torch, loops.col_indices()),
                      plain(torch, loops.values())], "both": plain(torch, both.to_dense()),
            "dense_sum": plain(torch, dense_sum), "acc": plain(torch, acc), "deg": plain(torch, deg),
            "masked": [plain(torch, masked.values()), plain(torch, masked.col_indices())],
            "on_loops": [plain(torch, on_loops.crow_indices()), plain(torch, on_loops.values())],
            "errors": cases(torch, {
                "row_out_of_range": lambda: C.select(0, n),
                "narrow_too_far": lambda: C.narrow_copy(1, 6, 3),
                "csr_minus": lambda: A_csr - eye,
                "csr_shape": lambda: A_csr + torch.eye(3, device=device).to_sparse_csr(),
                "csr_dtype": lambda: A_csr + eye.double(),
                "dense_row_plus_csr": lambda: A_csr + x[0],
                "int_acc": lambda: torch.zeros(n, n, dtype=torch.long, device=device).add_(C),
            })}


# ---- quantisation-aware training with torch.ao.quantization's FakeQuantize modules and observers -----------------
def qat_fake_quant_modules(torch, device):
    nn = torch.nn
    aq = torch.ao.quantization

    class QATNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(6, 8)
            self.fc2 = nn.Linear(8, 3)
            self.act_fq = aq.default_fake_quant()
            self.w1_fq = aq.default_per_channel_weight_fake_quant()
            self.w2_fq = aq.default_weight_fake_quant()

        def forward(self, x):
            h = torch.relu(nn.functional.linear(self.act_fq(x), self.w1_fq(self.fc1.weight), self.fc1.bias))
            return nn.functional.linear(self.act_fq(h), self.w2_fq(self.fc2.weight), self.fc2.bias)

    net = _fill(torch, QATNet(), 2300, 0.4).to(device)
    x = _randn(torch, 2301, 16, 6, device=device)
    y = torch.tensor(np.random.default_rng(2302).integers(0, 3, 16), device=device)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    log = []
    for step in range(6):
        if step == 4:
            net.apply(aq.disable_observer)  # freeze the qparams for the last steps
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        log.append(loss.item())
    frozen = [net.act_fq.scale.item(), net.act_fq.zero_point.item()]
    sd = net.state_dict()
    clone = QATNet().to(device)
    clone.load_state_dict(sd)
    net.apply(aq.disable_fake_quant)
    float_out = net(x)
    observers = {}
    for name, cls, kwargs in (("minmax", aq.MinMaxObserver, {}),
                              ("symmetric", aq.MinMaxObserver, dict(dtype=torch.qint8,
                                                                    qscheme=torch.per_tensor_symmetric)),
                              ("moving", aq.MovingAverageMinMaxObserver, dict(averaging_constant=0.1)),
                              ("per_channel", aq.PerChannelMinMaxObserver, dict(ch_axis=1)),
                              ("moving_pc", aq.MovingAveragePerChannelMinMaxObserver,
                               dict(ch_axis=0, dtype=torch.qint8, qscheme=torch.per_channel_symmetric)),
                              ("custom", aq.MinMaxObserver, dict(quant_min=0, quant_max=15, reduce_range=True))):
        obs = cls(**kwargs).to(device)
        obs(x)
        obs(x * 0.5 + 0.25)
        scale, zero_point = obs.calculate_qparams()
        observers[name] = [plain(torch, scale), plain(torch, zero_point), obs.quant_min, obs.quant_max]
    return {"log": log, "frozen": frozen, "w1": [plain(torch, net.w1_fq.scale), plain(torch, net.w1_fq.zero_point)],
            "keys": list(sd), "clone_scale": plain(torch, clone.w1_fq.scale), "float_out": plain(torch, float_out[:3]),
            "observers": observers, "repr": repr(net.w2_fq.cpu()).replace("tandem", "torch").split("\n")[1],
            "errors": cases(torch, {
                "out_of_dtype": lambda: aq.FakeQuantize(quant_min=0, quant_max=300),
                "per_channel_scheme": lambda: aq.MinMaxObserver(qscheme=torch.per_channel_affine),
                "range_without_zero": lambda: aq.MinMaxObserver(quant_min=1, quant_max=10),
            })}


PROGRAMS = [pruning_program, norm_parametrizations, distillation, fake_quantisation, low_rank_factorisation,
            embedding_bags, sparse_training, learned_step_quantisation, sparse_graph_batches, qat_fake_quant_modules,
            sparse_embeddings]
NEEDS_CPP = {}
