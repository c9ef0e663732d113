"""Sweep 10 programs, indexing idioms as Stack Overflow answers and forum threads give them: boolean-mask
assignment, index_put_ with accumulate and the `x[idx] += 1` duplicate-index surprise, one-hot and per-row picks
with gather/scatter/scatter_add/take_along_dim, nonzero/where/argwhere, sorting/topk/unique with ties, and segment
sums written with cumsum and scatter.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep10.py). Data come from NumPy so both libraries start from the same numbers."""
import numpy as np


def _tensor(torch, array, device, dtype=None):
    return torch.tensor(np.asarray(array), dtype=dtype, device=device)


# ---- boolean masks and assignment: x[x > 0] = 0, x[mask] = values, index_put_ with accumulate, duplicate indices -
def mask_assignment_tricks(torch, device):
    rng = np.random.default_rng(1001)
    x = _tensor(torch, rng.standard_normal((4, 5)).round(3), device, torch.float32)
    found = {}
    y = x.clone()
    y[y < 0] = 0  # "how do I zero the negatives"
    found["relu_by_mask"] = y.tolist()
    y = x.clone()
    mask = y.abs() > 1.0
    y[mask] = torch.arange(int(mask.sum()), dtype=y.dtype, device=device)  # values in mask order
    found["mask_values"] = y.tolist()
    rows = x.clone()
    rows[x[:, 0] > 0] = -1.0  # a 1-d row mask on a 2-d tensor sets whole rows
    found["row_mask"] = rows.tolist()
    found["masked_select"] = torch.masked_select(x, x > 0.5).tolist()
    found["masked_fill"] = x.masked_fill(x < 0, float("-inf")).softmax(-1).sum(-1).tolist()
    source = torch.arange(20.0, device=device)
    found["masked_scatter"] = torch.zeros(4, 5, device=device).masked_scatter(x > 0, source).tolist()
    # duplicate indices: += gathers once, writes once; index_put_ with accumulate adds every copy
    idx = torch.tensor([0, 2, 2, 2, 4], device=device)
    counts = torch.zeros(5, device=device)
    counts[idx] += 1
    found["plus_equals_duplicates"] = counts.tolist()
    counts = torch.zeros(5, device=device)
    counts.index_put_((idx,), torch.ones(5, device=device), accumulate=True)
    found["index_put_accumulate"] = counts.tolist()
    found["index_add"] = torch.zeros(5, device=device).index_add_(0, idx, torch.ones(5, device=device),
                                                                 alpha=2).tolist()
    grid = torch.zeros(3, 4, device=device, dtype=torch.int64)
    grid.index_put_((torch.tensor([0, 1, 1], device=device), torch.tensor([3, 0, 0], device=device)),
                    torch.tensor(7, device=device), accumulate=True)
    found["index_put_2d"] = grid.tolist()
    put = torch.zeros(2, 3, device=device)
    put.put_(torch.tensor([0, 4, 4], device=device), torch.tensor([1.0, 2.0, 3.0], device=device),
             accumulate=True)
    found["put_accumulate"] = put.tolist()
    # advanced indexes separated by a slice move to the front
    cube = torch.arange(24, device=device).view(2, 3, 4)
    found["adv_shapes"] = [list(cube[[0, 1], :, [0, 1]].shape), list(cube[:, [0, 2], [1, 3]].shape),
                           list(cube[..., [0]].shape), list(cube[None, 1, ..., None].shape),
                           list(cube[[[0], [1]], [[0, 1, 2]]].shape)]
    found["pairs"] = cube[[0, 1], [2, 0], [3, 1]].tolist()
    found["index_fill"] = torch.zeros(3, 3, device=device).index_fill_(1, torch.tensor([0, 2], device=device),
                                                                      -2.5).tolist()
    found["index_copy"] = torch.zeros(4, 2, device=device).index_copy_(
        0, torch.tensor([3, 0], device=device), torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)).tolist()
    found["bool_list_index"] = x[[True, False, True, False]].shape[0]
    return found


# ---- gather/scatter: one-hot, per-row picks, a hand-written cross entropy, histograms, take_along_dim ----------
def gather_scatter_picks(torch, device):
    rng = np.random.default_rng(1002)
    logits = _tensor(torch, rng.standard_normal((6, 4)), device, torch.float32)
    labels = _tensor(torch, rng.integers(0, 4, 6), device, torch.int64)
    one_hot = torch.zeros(6, 4, device=device).scatter_(1, labels.unsqueeze(1), 1.0)
    found = {"one_hot_same": torch.equal(one_hot.long(), torch.nn.functional.one_hot(labels, 4)),
             "one_hot_dtype": str(torch.nn.functional.one_hot(labels).dtype),
             "one_hot_auto_width": list(torch.nn.functional.one_hot(labels).shape)}
    picked = logits.gather(1, labels.view(-1, 1)).squeeze(1)
    found["picked"] = picked.tolist()
    found["picked_by_arange"] = torch.equal(picked, logits[torch.arange(6, device=device), labels])
    log_probs = logits.log_softmax(dim=1)
    manual = -log_probs.gather(1, labels[:, None]).mean()
    found["manual_ce"] = [manual.item(), torch.nn.functional.cross_entropy(logits, labels).item()]
    found["scatter_value_reduce"] = torch.ones(2, 4, device=device).scatter_(
        1, torch.tensor([[0, 1], [2, 2]], device=device), 3.0, reduce="multiply").tolist()
    values = _tensor(torch, rng.integers(0, 5, 12), device, torch.int64)
    hist = torch.zeros(5, dtype=torch.int64, device=device).scatter_add_(0, values, torch.ones_like(values))
    found["hist"] = [hist.tolist(), torch.bincount(values, minlength=5).tolist()]
    weights = _tensor(torch, rng.random(12).round(3), device, torch.float64)
    found["weighted_bincount"] = torch.bincount(values, weights=weights).tolist()
    found["scatter_amax"] = torch.full((5,), -1.0, device=device, dtype=torch.float64).scatter_reduce(
        0, values, weights, reduce="amax").tolist()
    order = logits.argsort(dim=1, descending=True)
    found["take_along_dim"] = torch.take_along_dim(logits, order[:, :2], dim=1).tolist()
    found["take_along_flat"] = torch.take_along_dim(logits, logits.flatten().argmax().view(1)).tolist()
    found["take"] = torch.take(logits, torch.tensor([[0, 23], [5, 6]], device=device)).tolist()
    # the last real token of each padded sequence
    seq = _tensor(torch, rng.standard_normal((3, 5, 2)), device, torch.float32)
    lengths = torch.tensor([5, 2, 3], device=device)
    last = seq.gather(1, (lengths - 1).view(-1, 1, 1).expand(-1, 1, seq.size(2))).squeeze(1)
    found["last_token"] = last.tolist()
    found["index_select"] = seq.index_select(1, torch.tensor([4, 0], device=device)).shape[1]
    mask = torch.zeros_like(logits, dtype=torch.bool).scatter_(1, logits.argmax(1, keepdim=True), True)
    found["argmax_mask"] = mask.sum(0).tolist()
    return found


# ---- nonzero, where, argwhere and friends: counting, first/last match per row, bucketize ----------------------
def where_nonzero_argwhere(torch, device):
    rng = np.random.default_rng(1003)
    x = _tensor(torch, rng.integers(-3, 4, (4, 6)), device, torch.int64)
    found = {"nonzero": x.nonzero().tolist(), "nonzero_tuple": [t.tolist() for t in x.nonzero(as_tuple=True)],
             "argwhere": torch.argwhere(x > 1).tolist(), "where_1arg": [t.tolist() for t in torch.where(x == 0)],
             "count_nonzero": [torch.count_nonzero(x).item(), torch.count_nonzero(x, dim=1).tolist()]}
    f = x.float()
    found["where_scalar"] = [torch.where(x > 0, f, 0.0).tolist(), str(torch.where(x > 0, x, 0.5).dtype),
                             str(torch.where(x > 0, 1, 0).dtype), str(torch.where(x > 0, 1.0, 0).dtype)]
    found["tensor_where"] = x.where(x < 2, torch.tensor(-9, device=device)).tolist()
    hit = x > 1
    any_hit = hit.any(dim=1)
    first = torch.where(any_hit, hit.int().argmax(dim=1), torch.tensor(-1, device=device))
    last = x.size(1) - 1 - hit.flip(1).int().argmax(dim=1)
    found["first_last"] = [first.tolist(), last.masked_fill(~any_hit, -1).tolist()]
    found["any_all"] = [hit.any().item(), hit.all(dim=0).tolist(), torch.all(x.abs() < 4).item()]
    found["isin"] = torch.isin(x, torch.tensor([0, 3], device=device)).sum().item()
    boundaries = torch.tensor([-2, 0, 2], device=device)
    found["bucketize"] = [torch.bucketize(x[0], boundaries).tolist(),
                          torch.bucketize(x[0], boundaries, right=True).tolist()]
    found["searchsorted"] = torch.searchsorted(torch.tensor([1.0, 2.0, 2.0, 3.0], device=device),
                                               torch.tensor([2.0, 2.5, 0.0], device=device), side="right").tolist()
    empty = torch.nonzero(torch.zeros(3, device=device))
    found["empty"] = [list(empty.shape), str(empty.dtype), len(torch.nonzero(torch.zeros(3), as_tuple=True))]
    found["flatnonzero"] = torch.flatten(x).nonzero().squeeze(1)[:5].tolist()
    found["nonzero_static"] = torch.nonzero_static(x[0], size=6, fill_value=-1).tolist()
    found["masked_rows"] = x[(x > 0).all(dim=1) | (x.sum(1) > 0)].shape[0]
    return found


# ---- sorting with ties and stability, topk, unique with inverse and counts, kthvalue/median/mode ---------------
def sort_topk_unique(torch, device):
    scores = _tensor(torch, [3.0, 1.0, 2.0, 3.0, 1.0, float("nan"), 2.0, 3.0], device, torch.float32)
    found = {}
    values, order = torch.sort(scores, stable=True)
    found["stable_sort"] = [values[:-1].tolist(), order.tolist()]
    values, order = scores.sort(descending=True, stable=True)
    found["stable_desc"] = order.tolist()
    found["argsort_stable"] = torch.argsort(scores[:5], stable=True).tolist()
    top = torch.topk(scores[:5], 2)
    found["topk"] = [top.values.tolist(), top[0].tolist(), type(top).__name__]
    found["topk_smallest"] = torch.topk(scores[:5], 3, largest=False, sorted=True).values.tolist()
    ints = _tensor(torch, [4, 1, 4, 2, 1, 4, 7], device, torch.int64)
    uniq, inverse, counts = torch.unique(ints, return_inverse=True, return_counts=True)
    found["unique"] = [uniq.tolist(), inverse.tolist(), counts.tolist()]
    found["unique_consecutive"] = [t.tolist() for t in
                                   torch.unique_consecutive(ints.sort().values, return_counts=True)]
    rows = _tensor(torch, [[1, 2], [0, 5], [1, 2], [0, 5], [3, 3]], device, torch.int64)
    u, inv = rows.unique(dim=0, return_inverse=True)
    found["unique_rows"] = [u.tolist(), inv.tolist()]
    # first index of every unique value (the forum recipe with scatter_reduce amin)
    first_index = torch.full((uniq.numel(),), ints.numel(), device=device).scatter_reduce(
        0, inverse, torch.arange(ints.numel(), device=device), reduce="amin")
    found["first_index"] = first_index.tolist()
    kth = ints.float().kthvalue(3)
    found["kthvalue"] = [kth.values.item(), kth.indices.item()]
    found["median_lower"] = [ints.float().median().item(), ints.median().item()]
    mode = torch.mode(ints)
    found["mode"] = [mode.values.item(), mode.indices.item()]
    found["msort"] = torch.msort(rows).tolist()
    found["nanmedian"] = scores.nanmedian().item()
    found["max_with_nan"] = [scores.max().item() != scores.max().item(), scores.argmax().item()]
    cm = torch.cummax(ints, dim=0)
    found["cummax"] = [cm.values.tolist(), cm.indices.tolist()]
    found["sort_rows_by_col"] = rows[rows[:, 1].argsort(stable=True)].tolist()
    # rank of each value (argsort of argsort)
    found["rank"] = scores[:5].argsort(stable=True).argsort().tolist()
    return found


# ---- segment sums/means/maxes with cumsum, scatter and repeat_interleave; ragged to padded ---------------------
def segment_ops(torch, device):
    rng = np.random.default_rng(1005)
    lengths = _tensor(torch, [3, 1, 4, 2], device, torch.int64)
    data = _tensor(torch, rng.standard_normal(10).round(4), device, torch.float64)
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64, device=device), lengths.cumsum(0)])
    csum = torch.cat([torch.zeros(1, dtype=data.dtype, device=device), data.cumsum(0)])
    found = {"offsets": offsets.tolist(), "cumsum_segments": (csum[offsets[1:]] - csum[offsets[:-1]]).tolist()}
    segment_ids = torch.repeat_interleave(torch.arange(4, device=device), lengths)
    found["segment_ids"] = segment_ids.tolist()
    sums = torch.zeros(4, dtype=data.dtype, device=device).scatter_add_(0, segment_ids, data)
    found["scatter_sums"] = sums.tolist()
    found["means"] = (sums / lengths).tolist()
    found["segment_max"] = torch.zeros(4, dtype=data.dtype, device=device).scatter_reduce(
        0, segment_ids, data, reduce="amax", include_self=False).tolist()
    found["segment_mean_reduce"] = torch.zeros(4, dtype=data.dtype, device=device).index_reduce_(
        0, segment_ids, data, "mean", include_self=False).tolist()
    found["segment_reduce"] = torch.segment_reduce(data, "sum", lengths=lengths).tolist()
    # position within its segment: arange minus the segment's start
    found["within"] = (torch.arange(10, device=device) - offsets[segment_ids]).tolist()
    padded = torch.zeros(4, int(lengths.max()), dtype=data.dtype, device=device)
    padded[segment_ids, torch.arange(10, device=device) - offsets[segment_ids]] = data
    found["padded"] = padded.tolist()
    mask = torch.arange(int(lengths.max()), device=device)[None, :] < lengths[:, None]
    found["padded_roundtrip"] = torch.equal(padded[mask], data)
    found["split"] = [t.sum().item() for t in data.split(lengths.tolist())]
    flags = data > 0
    found["bool_cumsum"] = [flags.cumsum(0).tolist(), str(flags.cumsum(0).dtype)]
    found["cumprod"] = (1 + data[:4]).cumprod(0).tolist()
    found["logcumsumexp"] = data[:4].logcumsumexp(0).tolist()
    # run-length encoding
    runs = _tensor(torch, [5, 5, 5, 2, 2, 9, 5, 5], device, torch.int64)
    values, counts = torch.unique_consecutive(runs, return_counts=True)
    found["rle"] = [values.tolist(), counts.tolist(), torch.repeat_interleave(values, counts).tolist()]
    # reset-on-flag cumulative sum (a classic forum puzzle)
    x = _tensor(torch, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], device, torch.float32)
    reset = _tensor(torch, [False, False, True, False, True, False], device)
    group = reset.long().cumsum(0)
    totals = x.cumsum(0)
    starts = torch.zeros(int(group.max()) + 1, device=device).scatter_reduce(
        0, group, totals - x, reduce="amin", include_self=False)
    found["reset_cumsum"] = (totals - starts[group]).tolist()
    found["diff"] = [torch.diff(offsets).tolist(), torch.diff(x, prepend=x[:1]).tolist()]
    return found


PROGRAMS = [mask_assignment_tricks, gather_scatter_picks, where_nonzero_argwhere, sort_topk_unique, segment_ops]
NEEDS_CPP = {}
