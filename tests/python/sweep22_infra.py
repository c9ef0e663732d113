"""Sweep 22 programs, training infrastructure as trainers write it: activation checkpointing (checkpoint_sequential,
checkpoint with keyword arguments, counting recomputations); gradient accumulation with clip_grad_norm_'s returned
norm, EMA weights by _foreach_lerp_, and a mid-run checkpoint resumed into fresh objects that must finish exactly
like an uninterrupted run; state_dict prefix surgery (DataParallel's "module.", consume_prefix_in_state_dict_if_present,
strict=False reports, assign=True, size-mismatch errors); printing models and optimizers (extra_repr, repeated-block
compression, ParameterList/ParameterDict, an optimizer's repr); custom samplers (a length-bucketing batch sampler,
DistributedSampler with explicit replicas, a collate_fn that pads); IterableDataset pipelines (get_worker_info in the
main process, ChainDataset, StackDataset, batch_size=None, len() refusals); parameter-vector utilities
(parameters_to_vector, vector_to_parameters, get_total_norm, clip_grads_with_norm_, fuse_conv_bn_eval);
subclasses of PyTorch's layers through its hooks (_BatchNorm/_InstanceNorm's _check_input_dim and
_get_no_batch_dim, Embedding._fill_padding_idx_with_zero, LSTM.get_expected_hidden_size/check_forward_args); layers
forked from PyTorch's source (F._canonical_mask, F._in_projection_packed, F._verify_batch_size, _reverse_repeat_tuple,
_ConvTransposeNd._output_padding, torch.autograd.variable, torch.utils.data._utils.worker); module and optimizer
overrides (_save_to_state_dict/_load_from_state_dict, the private state_dict hooks, _apply, _named_members, an
Optimizer subclass with __setstate__).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep22.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import collections
import io

from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


def _error(call):
    try:
        call()
    except Exception as e:  # the type and message are what is compared
        return [type(e).__name__, str(e)]
    return None


# ---- activation checkpointing -------------------------------------------------------------------------------------------
def activation_checkpointing_variants(torch, device):
    nn = torch.nn
    checkpoint, checkpoint_sequential = torch.utils.checkpoint.checkpoint, torch.utils.checkpoint.checkpoint_sequential
    calls = collections.Counter()

    class Block(nn.Module):
        def __init__(self, i):
            super().__init__()
            self.i = i
            self.lin = nn.Linear(6, 6)

        def forward(self, x, scale=1.0):
            calls[self.i] += 1
            return torch.tanh(self.lin(x)) * scale

    seq = _fill(torch, nn.Sequential(*[Block(i) for i in range(4)]), 2800).to(device)
    x = _randn(torch, 2801, 3, 6, device=device).requires_grad_()
    plain = seq(x).sum()
    g_plain = torch.autograd.grad(plain, [x] + list(seq.parameters()))
    calls.clear()
    out = checkpoint_sequential(seq, 2, x, use_reentrant=False).sum()
    forward_calls = dict(calls)
    g_ckpt = torch.autograd.grad(out, [x] + list(seq.parameters()))
    after_backward = dict(calls)
    calls.clear()
    y = checkpoint(seq[0], x, use_reentrant=False, scale=2.0)
    y.sum().backward()
    kw_calls = dict(calls)
    return {"same_value": torch.allclose(plain, out), "same_grads": all(torch.allclose(a, b) for a, b in
                                                                        zip(g_plain, g_ckpt)),
            "forward_calls": sorted(forward_calls.items()), "after_backward": sorted(after_backward.items()),
            "kw_calls": sorted(kw_calls.items()), "x_grad": _r(x.grad[0], 5)}


# ---- accumulation, clipping, EMA and an exact resume ---------------------------------------------------------------------
def accumulate_clip_ema_resume(torch, device):
    nn, F = torch.nn, torch.nn.functional
    x = _randn(torch, 2810, 24, 5, device=device)
    y = _randn(torch, 2811, 24, 2, device=device)

    def build():
        model = _fill(torch, nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 2)), 2812).to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.01)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=8)
        ema = [p.detach().clone() for p in model.parameters()]
        return model, opt, sched, ema

    def train(state, steps, accum=3, log=None):
        model, opt, sched, ema = state
        for step in steps:
            for micro in range(accum):
                sl = slice((step * accum + micro) % 8 * 3, (step * accum + micro) % 8 * 3 + 3)
                loss = F.mse_loss(model(x[sl]), y[sl]) / accum
                loss.backward()
            norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            with torch.no_grad():
                torch._foreach_lerp_(ema, [p.detach() for p in model.parameters()], 0.1)
            if log is not None:
                log.append([round(norm.item(), 5), round(sched.get_last_lr()[0], 6)])

    log = []
    full = build()
    train(full, range(8), log=log)
    part = build()
    train(part, range(4))
    buf = io.BytesIO()
    torch.save({"model": part[0].state_dict(), "opt": part[1].state_dict(), "sched": part[2].state_dict(),
                "ema": part[3], "step": 4}, buf)
    buf.seek(0)
    ck = torch.load(buf, map_location=device, weights_only=True)
    resumed = build()
    resumed[0].load_state_dict(ck["model"])
    resumed[1].load_state_dict(ck["opt"])
    resumed[2].load_state_dict(ck["sched"])
    for e, v in zip(resumed[3], ck["ema"]):
        e.copy_(v)
    train(resumed, range(ck["step"], 8))
    same = all(torch.equal(a, b) for a, b in zip(full[0].parameters(), resumed[0].parameters()))
    same_ema = all(torch.equal(a, b) for a, b in zip(full[3], resumed[3]))
    return {"log": log, "same": same, "same_ema": same_ema, "ema": _r(full[3][-1], 5),
            "opt_keys": sorted(ck["opt"]["state"][0]), "sched_keys": sorted(k for k in ck["sched"] if k != "anneal_func")}


# ---- state_dict prefix surgery ----------------------------------------------------------------------------------------
def state_dict_prefix_surgery(torch, device):
    nn = torch.nn
    consume_prefix_in_state_dict_if_present = torch.nn.modules.utils.consume_prefix_in_state_dict_if_present

    def make():
        return nn.Sequential(collections.OrderedDict(
            [("conv", nn.Conv1d(2, 3, 3)), ("bn", nn.BatchNorm1d(3)), ("fc", nn.Linear(3, 2))]))

    src = _fill(torch, make(), 2820)
    wrapped = {"module." + k: v for k, v in src.state_dict().items()}
    keys_before = list(wrapped)[:3]
    consume_prefix_in_state_dict_if_present(wrapped, "module.")
    dst = make()
    res = dst.load_state_dict(wrapped)
    out = {"keys_before": keys_before, "keys_after": list(wrapped)[:3], "res": repr(res),
           "metadata": sorted(getattr(wrapped, "_metadata", {}))}
    partial = {k: v for k, v in src.state_dict().items() if not k.startswith("fc")}
    partial["head.weight"] = torch.zeros(2, 3)
    res = dst.load_state_dict(partial, strict=False)
    out["missing"], out["unexpected"] = res.missing_keys, res.unexpected_keys
    out["tuple"] = list(res._fields) if hasattr(res, "_fields") else None
    out["strict_error"] = _error(lambda: dst.load_state_dict(partial))
    bad = dict(src.state_dict())
    bad["fc.weight"] = torch.zeros(2, 4)
    out["size_error"] = _error(lambda: dst.load_state_dict(bad, strict=False))
    fresh = make().to("meta")
    fresh.load_state_dict(src.state_dict(), assign=True)
    out["assigned"] = [fresh.fc.weight.device.type, fresh.fc.weight.requires_grad,
                       type(fresh.fc.weight).__name__, torch.equal(fresh.fc.weight, src.fc.weight)]
    out["bn_keys"] = [k for k in src.state_dict() if k.startswith("bn")]
    return out


# ---- printing models and optimizers --------------------------------------------------------------------------------------
def module_and_optimizer_repr(torch, device):
    nn = torch.nn

    class Scale(nn.Module):
        def __init__(self, dim, init=1e-5):
            super().__init__()
            self.gamma = nn.Parameter(init * torch.ones(dim))
            self.dim = dim

        def extra_repr(self):
            return f"dim={self.dim}, init={self.gamma[0].item():.0e}"

        def forward(self, x):
            return x * self.gamma

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(4, 4), nn.GELU(approximate="tanh"), Scale(4))
                                         for _ in range(3)])
            self.heads = nn.ModuleDict({"cls": nn.Linear(4, 2, bias=False), "reg": nn.Identity()})
            self.scalars = nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(1, 3))])
            self.pdict = nn.ParameterDict({"temp": nn.Parameter(torch.tensor(0.07))})
            self.drop = nn.Dropout(p=0.1, inplace=True)
            self.norm = nn.LayerNorm(4, eps=1e-6, elementwise_affine=False)
            self.pool = nn.AdaptiveAvgPool2d((1, None))
            self.loss = nn.CrossEntropyLoss(label_smoothing=0.1)

    net = Net()  # printed as built: a CUDA parameter prints its device
    opt = torch.optim.SGD([{"params": net.blocks.parameters()},
                           {"params": net.heads.parameters(), "lr": 0.01, "nesterov": True, "momentum": 0.9}],
                          lr=0.1, weight_decay=1e-4)
    return {"net": repr(net), "scale": str(Scale(3)), "opt": repr(opt), "conv": repr(nn.Conv2d(3, 8, 3, padding="same",
                                                                                                 bias=False)),
            "transformer": repr(nn.TransformerEncoderLayer(8, 2, 16)).split("\n")[:4],
            "embedding": repr(nn.Embedding(10, 3, padding_idx=0, max_norm=1.0))}


# ---- custom samplers and a padding collate_fn ----------------------------------------------------------------------------
def bucketing_sampler_collate(torch, device):
    data = torch.utils.data  # the library under test's (a `from torch... import` would read sys.modules)
    BatchSampler, DataLoader, Dataset, Sampler = data.BatchSampler, data.DataLoader, data.Dataset, data.Sampler
    DistributedSampler, SequentialSampler = data.DistributedSampler, data.SequentialSampler

    class VarLen(Dataset):
        def __init__(self):
            self.lengths = [5, 2, 7, 3, 3, 6, 1, 4, 2, 5]

        def __len__(self):
            return len(self.lengths)

        def __getitem__(self, i):
            return torch.arange(1, self.lengths[i] + 1) * (i + 1), i % 2

    class BucketBatchSampler(Sampler):
        def __init__(self, lengths, batch_size):
            self.lengths, self.batch_size = lengths, batch_size

        def __iter__(self):
            order = sorted(range(len(self.lengths)), key=lambda i: (self.lengths[i], i))
            batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
            return iter(batches[::-1])

        def __len__(self):
            return (len(self.lengths) + self.batch_size - 1) // self.batch_size

    def collate(batch):
        seqs, labels = zip(*batch)
        lengths = torch.tensor([len(s) for s in seqs])
        padded = torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1)
        return padded, lengths, torch.tensor(labels)

    ds = VarLen()
    loader = DataLoader(ds, batch_sampler=BucketBatchSampler(ds.lengths, 3), collate_fn=collate)
    batches = [[p.tolist(), l.tolist(), y.tolist()] for p, l, y in loader]
    ranks = [list(DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    dropped = [list(DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False, drop_last=True)) for r in range(3)]
    ds_sampler = DistributedSampler(ds, num_replicas=2, rank=1, shuffle=True, seed=7)
    ds_sampler.set_epoch(3)
    epoch_perm = sorted(ds_sampler)
    bs = list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False))
    return {"batches": batches, "n": len(loader), "ranks": ranks, "dropped": dropped, "epoch_len": len(epoch_perm),
            "batch_sampler": bs, "bad_rank": _error(lambda: DistributedSampler(ds, num_replicas=2, rank=2))}


# ---- IterableDataset pipelines -----------------------------------------------------------------------------------------
def iterable_dataset_pipeline(torch, device):
    data = torch.utils.data
    ChainDataset, DataLoader, IterableDataset, StackDataset = (data.ChainDataset, data.DataLoader, data.IterableDataset,
                                                               data.StackDataset)
    TensorDataset, get_worker_info = data.TensorDataset, data.get_worker_info

    class Stream(IterableDataset):
        def __init__(self, start, end):
            super().__init__()
            self.start, self.end = start, end

        def __iter__(self):
            info = get_worker_info()
            if info is None:
                lo, hi = self.start, self.end
            else:
                per = (self.end - self.start + info.num_workers - 1) // info.num_workers
                lo = self.start + info.id * per
                hi = min(lo + per, self.end)
            for i in range(lo, hi):
                yield torch.tensor([float(i), float(i * i)])

    seen = []
    loader = DataLoader(Stream(0, 7), batch_size=3, worker_init_fn=lambda wid: seen.append(wid))
    batches = [b.tolist() for b in loader]
    chained = [b.tolist() for b in DataLoader(ChainDataset([Stream(0, 2), Stream(10, 12)]), batch_size=None)]
    stack = StackDataset(x=TensorDataset(torch.arange(4.0)), y=torch.arange(4) * 10)
    st = [[b["x"][0].tolist(), b["y"].tolist()] for b in DataLoader(stack, batch_size=2)]
    tup = StackDataset(torch.arange(3), torch.arange(3) + 5)
    return {"batches": batches, "worker_init_calls": seen, "chained": chained, "stack": st, "tuple": [int(v) for v in tup[1]],
            "stack_len": len(stack), "len_error": _error(lambda: len(DataLoader(Stream(0, 3)))),
            "chain_len_error": _error(lambda: len(ChainDataset([Stream(0, 2)]))),
            "mismatch": _error(lambda: StackDataset(torch.arange(3), torch.arange(4))),
            "shuffle_error": _error(lambda: DataLoader(Stream(0, 3), shuffle=True))}


# ---- parameter-vector utilities ----------------------------------------------------------------------------------------
def parameter_vector_utilities(torch, device):
    nn = torch.nn
    model = _fill(torch, nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(),
                                       nn.Linear(12, 2)), 2860).to(device)
    vec = nn.utils.parameters_to_vector(model.parameters())
    nn.utils.vector_to_parameters(vec * 2, model.parameters())
    doubled = nn.utils.parameters_to_vector(model.parameters())
    x = _randn(torch, 2861, 4, 2, 4, 4, device=device)
    with torch.no_grad():
        model[1].running_mean.copy_(torch.tensor([0.1, -0.2, 0.3]))
        model[1].running_var.copy_(torch.tensor([1.5, 0.5, 2.0]))
    model.eval()
    fused = nn.utils.fuse_conv_bn_eval(model[0], model[1])
    same = torch.allclose(fused(x), model[1](model[0](x)), atol=1e-5)
    model.train()
    model(x).pow(2).sum().backward()
    grads = [p.grad for p in model.parameters()]
    total = nn.utils.get_total_norm(grads, norm_type=2.0)
    inf_total = nn.utils.get_total_norm(grads, norm_type="inf")
    nn.utils.clip_grads_with_norm_(model.parameters(), max_norm=1.0, total_norm=total)
    clipped = nn.utils.get_total_norm([p.grad for p in model.parameters()])
    nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
    return {"numel": vec.numel(), "doubled": torch.allclose(doubled, vec * 2), "fused_same": same,
            "fused_bias": _r(fused.bias, 5), "total": round(total.item(), 4), "inf": round(inf_total.item(), 4),
            "clipped": round(clipped.item(), 5), "max_grad": round(max(p.grad.abs().max().item()
                                                                       for p in model.parameters()), 5),
            "vec_error": _error(lambda: nn.utils.vector_to_parameters(vec[:-1].tolist(), model.parameters()))}


# ---- research-code subclasses of PyTorch's layers, through PyTorch's hooks ----------------------------------------------
def layer_subclass_hooks(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class AnyRankBatchNorm(nn.modules.batchnorm._BatchNorm):
        """One BN for 2-D to 5-D inputs (the `_check_input_dim` override research code writes)."""

        def _check_input_dim(self, input):
            if input.dim() < 2 or input.dim() > 5:
                raise ValueError(f"expected 2D to 5D input (got {input.dim()}D input)")

    class AdaptiveInstanceNorm(nn.modules.instancenorm._InstanceNorm):
        """Instance norm over (C, L) sequences that also takes an unbatched (C, L) input."""

        def _get_no_batch_dim(self):
            return 2

        def _check_input_dim(self, input):
            if input.dim() not in (2, 3):
                raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")

    class ScaledEmbedding(nn.Embedding):
        def reset_parameters(self):
            nn.init.eye_(self.weight)
            self._fill_padding_idx_with_zero()

    class StatefulLSTM(nn.LSTM):
        def init_hidden(self, x):
            h = torch.zeros(self.get_expected_hidden_size(x, None), device=x.device)
            return h, torch.zeros(self.get_expected_cell_size(x, None), device=x.device)

    bn = _fill(torch, AnyRankBatchNorm(3), 2870).to(device)
    outs = [bn(_randn(torch, 2871 + k, *shape, device=device)).mean().item() for k, shape in
            enumerate([(4, 3), (2, 3, 5), (2, 3, 2, 2), (2, 3, 1, 2, 2)])]
    errors = [_error(lambda: bn(torch.ones(2, 3, 1, 1, 1, 1, device=device))),
              _error(lambda: nn.modules.batchnorm._BatchNorm(3)(torch.ones(2, 3, device=device)))]
    inorm = AdaptiveInstanceNorm(3, affine=True).to(device)
    x = _randn(torch, 2880, 2, 3, 6, device=device)
    same_unbatched = torch.allclose(inorm(x[0]), inorm(x)[0], atol=1e-6)
    emb = ScaledEmbedding(5, 5, padding_idx=2)
    lstm = _fill(torch, StatefulLSTM(3, 4, batch_first=True), 2881).to(device)
    seq = _randn(torch, 2882, 2, 5, 3, device=device)
    state = lstm.init_hidden(seq)
    out, (h, c) = lstm(seq, state)
    errors.append(_error(lambda: lstm.check_forward_args(seq, (state[0][:, :1], state[1]), None)))
    errors.append(_error(lambda: lstm.check_input(seq[..., :2], None)))
    loss = F.mse_loss(out, torch.zeros_like(out)) + inorm(x).pow(2).mean()
    loss.backward()
    return {"bn_means": [round(v, 5) for v in outs], "running_mean": _r(bn.running_mean, 5),
            "tracked": int(bn.num_batches_tracked), "errors": errors, "unbatched": same_unbatched,
            "emb": emb.weight.diagonal().tolist(), "state": [list(t.shape) for t in state],
            "h": _r(h[0, :, :2], 5), "grad": _r(inorm.weight.grad, 5)}


# ---- layers forked from PyTorch's source: its private helpers at its paths ---------------------------------------------
def forked_pytorch_layers(torch, device):
    nn, F = torch.nn, torch.nn.functional
    _pair, _reverse_repeat_tuple = nn.modules.utils._pair, nn.modules.utils._reverse_repeat_tuple

    class ReflectConv2d(nn.Module):
        """A conv written out as PyTorch's Conv2d does it, with reflect padding through F.pad."""

        def __init__(self, cin, cout, k, padding):
            super().__init__()
            self.padding = _pair(padding)
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(self.padding, 2)
            self.weight = nn.Parameter(torch.zeros(cout, cin, *_pair(k)))

        def forward(self, x):
            return F.conv2d(F.pad(x, self._reversed_padding_repeated_twice, mode="reflect"), self.weight)

    class UpsampleConv(nn.modules.conv._ConvTransposeNd):
        """A transposed conv subclass that sizes its output_padding with PyTorch's helper."""

        def __init__(self, cin, cout):
            super().__init__(cin, cout, _pair(3), _pair(2), _pair(1), _pair(1), True, _pair(0), 1, True, "zeros")

        def forward(self, x, output_size=None):
            op = self._output_padding(x, output_size, self.stride, self.padding, self.kernel_size, 2, self.dilation)
            return F.conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                      self.dilation)

    class ForkedEncoderLayer(nn.Module):
        """A TransformerEncoderLayer copied from PyTorch's source and cut down: its mask canonicalisation and the
        packed in-projection."""

        def __init__(self, d, heads):
            super().__init__()
            self.heads = heads
            self.in_proj_weight = nn.Parameter(torch.zeros(3 * d, d))
            self.in_proj_bias = nn.Parameter(torch.zeros(3 * d))
            self.out = nn.Linear(d, d)
            self.norm = nn.BatchNorm1d(d)

        def forward(self, src, src_mask=None, src_key_padding_mask=None):
            src_key_padding_mask = F._canonical_mask(mask=src_key_padding_mask, mask_name="src_key_padding_mask",
                                                     other_type=F._none_or_dtype(src_mask), other_name="src_mask",
                                                     target_type=src.dtype)
            src_mask = F._canonical_mask(mask=src_mask, mask_name="src_mask", other_type=None, other_name="",
                                         target_type=src.dtype, check_other=False)
            q, k, v = F._in_projection_packed(src, src, src, self.in_proj_weight, self.in_proj_bias)
            B, T, D = src.shape
            q, k, v = (t.view(B, T, self.heads, D // self.heads).transpose(1, 2) for t in (q, k, v))
            mask = src_key_padding_mask[:, None, None, :] + (src_mask if src_mask is not None else 0)
            h = F.scaled_dot_product_attention(q, k, v, attn_mask=mask).transpose(1, 2).reshape(B, T, D)
            h = src + self.out(h)
            if self.training:
                F._verify_batch_size([h.size(0) * h.size(1), h.size(2)])
            return self.norm(h.transpose(1, 2)).transpose(1, 2)

    conv = _fill(torch, ReflectConv2d(2, 3, 3, 1), 2890).to(device)
    up = _fill(torch, UpsampleConv(3, 2), 2891).to(device)
    layer = _fill(torch, ForkedEncoderLayer(8, 2), 2892).to(device)
    img = _randn(torch, 2893, 1, 2, 5, 5, device=device)
    feat = conv(img)
    out_default, out_sized = up(feat), up(feat, output_size=[10, 10])
    src = _randn(torch, 2894, 2, 4, 8, device=device)
    pad = torch.tensor([[False, False, True, True], [False, False, False, True]], device=device)
    causal = torch.triu(torch.full((4, 4), float("-inf"), device=device), 1)
    enc = layer(src, causal, pad)
    (enc * torch.linspace(-1, 1, 8, device=device)).pow(2).sum().backward()
    unflat = nn.modules.flatten.Unflatten(1, (2, 4))(src.flatten(1, 2)[:, :8])
    info = torch.utils.data._utils.worker.get_worker_info()
    v = torch.autograd.variable.Variable(torch.ones(2, device=device), requires_grad=True)
    errors = [_error(lambda: F._verify_batch_size([1, 4])), _error(lambda: F._none_or_dtype(1.0)),
              _error(lambda: F._canonical_mask(torch.ones(2, dtype=torch.int64), "m", None, "", torch.float32))]
    return {"feat": list(feat.shape), "pad": list(conv._reversed_padding_repeated_twice),
            "up": [list(out_default.shape), list(out_sized.shape)], "enc": _r(enc[0, :2, :4], 4),
            "grad": round(layer.in_proj_weight.grad.norm().item(), 5), "unflat": list(unflat.shape),
            "worker": info, "variable": [v.requires_grad, isinstance(v, torch.Tensor)], "errors": errors,
            "pairs": [_pair(3), _reverse_repeat_tuple((1, 2), 2), F._pair((4, 5)), F._triple(1)]}


# ---- module and optimizer overrides from long-lived research code -------------------------------------------------------
def module_and_optimizer_overrides(torch, device):
    nn = torch.nn

    class Legacy(nn.Module):
        """Renames an old checkpoint key and keeps a Python list in the state_dict (fairseq/ESPnet style)."""

        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2)
            self.register_buffer("step", torch.tensor(0))
            self.vocab = ["a", "b"]
            self.applied = 0

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "vocab_size"] = torch.tensor(len(self.vocab))

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                  error_msgs):
            state_dict.pop(prefix + "vocab_size", None)
            old = prefix + "old_proj.weight"
            if old in state_dict:
                state_dict[prefix + "lin.weight"] = state_dict.pop(old)
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                          error_msgs)

        def _apply(self, fn, recurse=True):
            self.applied += 1
            return super()._apply(fn, recurse)

        def forward(self, x):
            return self.lin(x)

    class NoFeedForward(nn.TransformerEncoderLayer):
        def _ff_block(self, x):
            return self.dropout2(x * 0.5)

    class SGDW(torch.optim.Optimizer):
        def __init__(self, params, lr=0.1, weight_decay=0.0):
            super().__init__(params, dict(lr=lr, weight_decay=weight_decay))

        def __setstate__(self, state):
            super().__setstate__(state)
            for group in self.param_groups:
                group.setdefault("weight_decay", 0.0)

        @torch.no_grad()
        def step(self, closure=None):
            loss = None
            if closure is not None:
                with torch.enable_grad():
                    loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    state["step"] = state.get("step", 0) + 1
                    p.mul_(1 - group["lr"] * group["weight_decay"]).add_(p.grad, alpha=-group["lr"])
            return loss

    net = _fill(torch, nn.Sequential(Legacy(), nn.Tanh()), 2900)
    keys = list(net.state_dict())
    old_ckpt = {("0.old_proj.weight" if k == "0.lin.weight" else k): v for k, v in net.state_dict().items()}
    fresh = nn.Sequential(Legacy(), nn.Tanh())
    log = []
    fresh._register_state_dict_hook(lambda mod, sd, prefix, meta: log.append(("saved", len(sd))))
    fresh[0]._register_load_state_dict_pre_hook(
        lambda sd, prefix, meta, strict, missing, unexpected, errors: log.append(("loading", prefix)))
    result = fresh.load_state_dict(old_ckpt)
    fresh.state_dict()
    fresh.to(device)
    members = [n for n, _ in fresh._named_members(lambda m: m._buffers.items())]
    x = _randn(torch, 2901, 4, 3, device=device)
    layer = _fill(torch, NoFeedForward(4, 2, 8, dropout=0.0, batch_first=True), 2902).to(device)
    opt = SGDW(list(fresh.parameters()) + list(layer.parameters()), lr=0.05, weight_decay=0.1)

    def closure():
        opt.zero_grad()
        h = fresh(x)
        out = layer(torch.cat([h, h], -1).view(2, 2, 4))  # training mode: the override runs in both libraries
        loss = out.pow(2).mean()
        loss.backward()
        return loss

    losses = [round(opt.step(closure).item(), 5) for _ in range(3)]
    restored = SGDW(fresh.parameters())
    restored.__setstate__({"state": {}, "param_groups": [{"params": [], "lr": 0.1}], "defaults": {}})
    return {"keys": keys, "result": repr(result), "log": log, "applied": fresh[0].applied, "members": members,
            "losses": losses, "steps": [opt.state[p]["step"] for p in fresh.parameters()],
            "name": fresh[0]._get_name(), "setstate": restored.param_groups[0]["weight_decay"]}


def _shard_init(worker_id):
    """worker_init_fn (module level: it goes to the worker processes): shard the dataset copy this worker holds."""
    import numpy
    info = _shard_init.torch.utils.data.get_worker_info()
    dataset = info.dataset
    per = (dataset.end - dataset.start + info.num_workers - 1) // info.num_workers
    dataset.start, dataset.end = dataset.start + worker_id * per, min(dataset.start + (worker_id + 1) * per, dataset.end)
    numpy.random.seed(1000 + worker_id)


# ---- multi-process loading with worker_init_fn sharding ---------------------------------------------------------------
def worker_init_sharding(torch, device):
    data = torch.utils.data
    _shard_init.torch = torch

    class Range(data.IterableDataset):
        def __init__(self, start, end):
            super().__init__()
            self.start, self.end = start, end

        def __iter__(self):
            import numpy
            info = data.get_worker_info()
            wid = -1 if info is None else info.id
            for i in range(self.start, self.end):
                yield {"x": torch.tensor([float(i)]), "worker": wid, "noise": float(numpy.random.randint(100))}

    def collate(batch):
        return {"x": torch.cat([b["x"] for b in batch]), "worker": [b["worker"] for b in batch],
                "noise": [b["noise"] for b in batch]}

    loader = data.DataLoader(Range(0, 10), batch_size=2, num_workers=2, worker_init_fn=_shard_init,
                             collate_fn=collate, persistent_workers=True, prefetch_factor=2)
    epochs = [[(b["x"].tolist(), b["worker"], b["noise"]) for b in loader] for _ in range(2)]
    squares = data.TensorDataset(torch.arange(8.0) ** 2)
    mapped = [b[0].tolist() for b in data.DataLoader(squares, batch_size=3, num_workers=2, drop_last=False)]
    return {"epochs": epochs, "mapped": mapped, "same_epochs": epochs[0] == epochs[1]}


# ---- timm's utilities: MultiEpochsDataLoader, init helpers from torch.nn.init's private cores ------------------------------
def timm_style_utilities(torch, device):
    data, nn = torch.utils.data, torch.nn

    class _RepeatSampler:
        def __init__(self, sampler):
            self.sampler = sampler

        def __iter__(self):
            while True:
                yield from iter(self.sampler)

    class MultiEpochsDataLoader(data.DataLoader):
        """timm's loader: one iterator for all epochs, the batch sampler swapped for a repeating one through the
        name-mangled flag DataLoader uses to refuse changes after construction."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._DataLoader__initialized = False
            if self.batch_sampler is None:
                self.sampler = _RepeatSampler(self.sampler)
            else:
                self.batch_sampler = _RepeatSampler(self.batch_sampler)
            self._DataLoader__initialized = True
            self.iterator = super().__iter__()

        def __len__(self):
            return len(self.sampler) if self.batch_sampler is None else len(self.batch_sampler.sampler)

        def __iter__(self):
            for _ in range(len(self)):
                yield next(self.iterator)

    ds = data.TensorDataset(torch.arange(10.0), torch.arange(10) % 3)
    single = MultiEpochsDataLoader(ds, batch_size=4)
    workers = MultiEpochsDataLoader(ds, batch_size=3, num_workers=2)
    epochs = [[b[0].tolist() for b in loader] for loader in (single, single, workers, workers)]
    refused = _error(lambda: setattr(single, "batch_sampler", None))

    def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
        return nn.init._no_grad_trunc_normal_(tensor, mean, std, a, b)

    head = nn.Linear(16, 4).to(device)
    trunc_normal_(head.weight, std=0.02, a=-0.04, b=0.04)
    nn.init._no_grad_zero_(head.bias)
    pos = nn.Parameter(torch.zeros(1, 5, 16, device=device))
    trunc_normal_(pos, std=0.2)
    nn.init._no_grad_fill_(pos[:, 0], 0.5)
    return {"epochs": epochs, "refused": refused, "lens": [len(single), len(workers)],
            "bounded": bool((head.weight.abs() <= 0.04).all()), "bias": head.bias.abs().sum().item(),
            "cls": pos[0, 0, :3].tolist(), "leaf": [pos.is_leaf, pos.grad_fn is None]}


PROGRAMS = [activation_checkpointing_variants, accumulate_clip_ema_resume, state_dict_prefix_surgery,
            module_and_optimizer_repr, bucketing_sampler_collate, iterable_dataset_pipeline,
            parameter_vector_utilities, layer_subclass_hooks, forked_pytorch_layers, module_and_optimizer_overrides,
            worker_init_sharding, timm_style_utilities]
NEEDS_CPP = {}
