"""Sweep 10 programs, reshaping and identity idioms from Stack Overflow answers and forum threads: view versus
reshape on non-contiguous tensors (with the error users search for), permute and contiguous, sliding windows with
unfold and as_strided, expand versus repeat, flatten/unflatten, chunk/split/tensor_split with uneven sizes, stack
versus cat, and tensor identity (equal, allclose, isclose with NaN, data_ptr sharing after views, clone, detach).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep10.py)."""
import numpy as np

from sweep10_common import error_of as _error


# ---- view versus reshape: strides, contiguity, storage sharing, the messages of a bad view ------------------------
def view_versus_reshape(torch, device):
    x = torch.arange(12.0, device=device).view(3, 4)
    t = x.t()
    found = {"strides": [x.stride(), t.stride(), t.is_contiguous(), x.is_contiguous(), t.contiguous().stride(),
                         x.stride(1), x.stride(-2)],
             "view_of_t": _error(lambda: t.view(12)),
             "view_bad_shape": _error(lambda: x.view(5, 3)),
             "two_minus_ones": _error(lambda: x.view(-1, -1)),
             "reshape_bad": _error(lambda: x.reshape(7, -1)),
             "view_dtype_bad": _error(lambda: t.view(torch.float64))}
    r = t.reshape(12)  # copies: t is not contiguous
    v = x.reshape(2, 6)  # a view: x is
    found["reshape_aliases"] = [r.data_ptr() == x.data_ptr(), v.data_ptr() == x.data_ptr(), v._base is x,
                                r._base is None]
    v[0, 0] = 100.0
    found["write_through_view"] = x[0, 0].item()
    p = torch.arange(24, device=device).view(2, 3, 4).permute(2, 0, 1)
    found["permute"] = [list(p.shape), list(p.stride()), p.is_contiguous(), list(p.contiguous().stride()),
                        list(p.view(4, 6).shape), _error(lambda: p.view(8, 3))]
    found["flatten"] = [list(p.flatten().shape), list(p.flatten(1).shape), list(p.flatten(0, 1).shape),
                        p.flatten(1).data_ptr() == p.data_ptr()]
    found["unflatten"] = [list(torch.zeros(2, 12).unflatten(1, (3, -1)).shape),
                          list(torch.zeros(2, 12).unflatten(-1, (2, 2, 3)).shape),
                          _error(lambda: torch.zeros(2, 12).unflatten(1, (5, -1)))]
    found["nn_unflatten"] = list(torch.nn.Unflatten(1, (2, 6))(torch.zeros(3, 12)).shape)
    q = torch.zeros(1, 3, 1, 2)
    found["squeeze"] = [list(q.squeeze().shape), list(q.squeeze(0).shape), list(q.squeeze(1).shape),
                        list(q.squeeze((0, 2)).shape), list(q.unsqueeze(-1).shape), list(q[:, None].shape)]
    found["movedim"] = [list(torch.zeros(2, 3, 4).movedim(0, -1).shape),
                        list(torch.zeros(2, 3, 4).movedim((0, 1), (2, 0)).shape),
                        list(torch.zeros(2, 3, 4).swapaxes(0, 2).shape), list(torch.zeros(2, 3, 4).mT.shape)]
    found["storage"] = [x[1:, 2:].storage_offset(), x[1:, 2:].is_contiguous(), x[:, :1].is_contiguous(),
                        x[1].is_contiguous(), torch.zeros(3, 1).t().is_contiguous()]
    found["view_as"] = list(torch.arange(6).view_as(torch.zeros(2, 3)).shape)
    found["contiguous_is_self"] = [x.contiguous() is x, t.contiguous() is t]
    return found


# ---- sliding windows: Tensor.unfold, as_strided, F.unfold patches, a moving average three ways ------------------
def sliding_windows(torch, device):
    rng = np.random.default_rng(1011)
    signal = torch.tensor(rng.standard_normal(10).round(3), dtype=torch.float32, device=device)
    windows = signal.unfold(0, 4, 2)
    found = {"unfold": [list(windows.shape), windows.stride(), windows.tolist()]}
    strided = torch.as_strided(signal, size=(7, 4), stride=(1, 1))
    found["as_strided"] = [list(strided.shape), torch.equal(strided, signal.unfold(0, 4, 1)),
                           strided.data_ptr() == signal.data_ptr()]
    found["as_strided_offset"] = signal.as_strided((2, 2), (3, 1), 1).tolist()
    kernel = torch.full((1, 1, 4), 0.25, device=device)
    conv = torch.nn.functional.conv1d(signal.view(1, 1, -1), kernel).flatten()
    csum = torch.cat([torch.zeros(1, device=device), signal.cumsum(0)])
    found["moving_average"] = [signal.unfold(0, 4, 1).mean(-1).tolist(), conv.tolist(),
                               ((csum[4:] - csum[:-4]) / 4).tolist()]
    image = torch.arange(2 * 4 * 6, dtype=torch.float32, device=device).view(1, 2, 4, 6)
    patches = image.unfold(2, 2, 2).unfold(3, 3, 3)
    found["patches_2d"] = [list(patches.shape), patches[0, 1, 1, 0].tolist()]
    cols = torch.nn.functional.unfold(image, kernel_size=(2, 3), stride=(2, 3))
    found["F_unfold"] = [list(cols.shape), cols[0, :, 1].tolist()]
    back = torch.nn.functional.fold(cols, output_size=(4, 6), kernel_size=(2, 3), stride=(2, 3))
    found["fold_roundtrip"] = torch.equal(back, image)
    overlapping = torch.nn.functional.fold(torch.nn.functional.unfold(image, 2, stride=1), (4, 6), 2, stride=1)
    found["fold_overlap_counts"] = (overlapping / image.clamp_min(1))[0, 0].round().tolist()
    # frames of a batch of sequences: unfold on dim 1 keeps the window last
    batch = torch.arange(2 * 7, dtype=torch.float32, device=device).view(2, 7)
    found["batch_frames"] = list(batch.unfold(1, 3, 2).shape)
    found["unfold_too_big"] = _error(lambda: signal.unfold(0, 11, 1))
    found["lagged"] = torch.stack([signal[i:i + 8] for i in range(3)], dim=1)[:2].tolist()
    return found


# ---- expand versus repeat: stride 0, writes into an expanded tensor, tile, broadcast helpers, meshgrid --------
def expand_versus_repeat(torch, device):
    col = torch.tensor([[1.0], [2.0], [3.0]], device=device)
    e = col.expand(3, 4)
    r = col.repeat(1, 4)
    found = {"expand": [e.stride(), e.data_ptr() == col.data_ptr(), e.tolist()],
             "repeat": [r.stride(), r.data_ptr() == col.data_ptr(), torch.equal(e, r)],
             "expand_minus_one": list(col.expand(2, -1, 5).shape),
             "expand_as": list(col.expand_as(torch.zeros(3, 2)).shape),
             "expand_bad": _error(lambda: col.expand(4, 4)),
             "repeat_more_dims": list(torch.zeros(2, 3).repeat(4, 1, 2).shape),
             "repeat_too_few": _error(lambda: torch.zeros(2, 3).repeat(2)),
             "tile": [list(torch.zeros(2, 3).tile((2,)).shape), torch.tensor([1, 2]).tile(2, 2).tolist()],
             "repeat_interleave": [torch.tensor([1, 2]).repeat_interleave(2).tolist(),
                                   torch.tensor([[1, 2], [3, 4]]).repeat_interleave(torch.tensor([1, 2]),
                                                                                    dim=0).tolist(),
                                   torch.repeat_interleave(torch.tensor([2, 0, 1])).tolist()]}
    try:
        e.add_(1)
        found["write_expanded"] = "no error"
    except RuntimeError as exc:
        found["write_expanded"] = str(exc).split("\n")[0]
    e2 = col.expand(3, 4).clone()
    e2[0, 0] = -1
    found["clone_writable"] = [e2[0].tolist(), col[0, 0].item()]
    a, b = torch.broadcast_tensors(torch.zeros(3, 1), torch.zeros(1, 4))
    found["broadcast"] = [list(a.shape), list(b.stride()), list(torch.broadcast_shapes((2, 1), (1, 3), (3,))),
                          list(torch.broadcast_to(torch.tensor([1, 2]), (3, 2)).shape)]
    found["broadcast_bad"] = _error(lambda: torch.broadcast_shapes((2, 3), (4,)))
    gx, gy = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="ij")
    hx, hy = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="xy")
    found["meshgrid"] = [list(gx.shape), list(hx.shape), gy.tolist(), hx.tolist()]
    found["cartesian_prod"] = torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4, 5])).tolist()
    # pairwise differences by broadcasting, the most copied answer there is
    pts = torch.tensor([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]], device=device)
    found["pairwise"] = (pts[:, None, :] - pts[None, :, :]).norm(dim=-1).tolist()
    found["outer"] = [torch.outer(torch.arange(3), torch.arange(2)).tolist(),
                      (torch.arange(3)[:, None] * torch.arange(2)).tolist()]
    return found


# ---- chunk, split and tensor_split with uneven sizes; stack versus cat; unbind; the h/v/d stacks --------------
def chunk_split_stack(torch, device):
    x = torch.arange(10, device=device)
    found = {"chunk_3": [c.tolist() for c in x.chunk(3)], "chunk_4_of_5": [len(c) for c in torch.arange(5).chunk(4)],
             "chunk_6_of_6": [len(c) for c in torch.arange(6).chunk(4)],
             "split_int": [c.tolist() for c in x.split(4)],
             "split_list": [c.tolist() for c in torch.split(x, [1, 2, 7])],
             "split_bad": _error(lambda: x.split([3, 3])),
             "tensor_split_sections": [c.tolist() for c in x.tensor_split(3)],
             "tensor_split_indices": [c.tolist() for c in torch.tensor_split(x, (2, 5))],
             "tensor_split_tensor": [len(c) for c in x.tensor_split(torch.tensor([1, 8]))],
             "unbind": [t.tolist() for t in torch.arange(6).view(2, 3).unbind(1)]}
    m = torch.arange(24).view(2, 3, 4)
    found["hvd_split"] = [_error(lambda: torch.hsplit(m, 2)), [list(t.shape) for t in torch.hsplit(m, 3)],
                          [list(t.shape) for t in torch.vsplit(m, [1])],
                          [list(t.shape) for t in torch.dsplit(m, [1, 3])]]
    a, b = torch.zeros(2, 3, device=device), torch.ones(2, 3, device=device)
    found["stack_cat"] = [list(torch.stack([a, b]).shape), list(torch.stack([a, b], dim=2).shape),
                          list(torch.cat([a, b]).shape), list(torch.cat((a, b), dim=-1).shape),
                          list(torch.stack([a, b], -1).shape)]
    found["stack_bad"] = _error(lambda: torch.stack([a, torch.zeros(2, 4, device=device)]))
    found["cat_bad"] = _error(lambda: torch.cat([a, torch.zeros(3, 2, device=device)], dim=1))
    found["cat_dims"] = _error(lambda: torch.cat([a, torch.zeros(3, device=device)]))
    found["cat_empty_legacy"] = list(torch.cat([torch.tensor([], device=device), a.flatten()]).shape)
    found["cat_promotes"] = str(torch.cat([torch.zeros(2, dtype=torch.int64), torch.zeros(2)]).dtype)
    found["cat_empty_list"] = _error(lambda: torch.cat([]))
    found["stacks"] = [list(torch.hstack([torch.zeros(3), torch.zeros(2)]).shape),
                       list(torch.vstack([torch.zeros(3), torch.zeros(3)]).shape),
                       list(torch.dstack([torch.zeros(2, 3), torch.zeros(2, 3)]).shape),
                       list(torch.column_stack([torch.zeros(3), torch.zeros(3, 2)]).shape),
                       list(torch.row_stack([torch.zeros(3), torch.zeros(3)]).shape)]
    # a list of tensors built in a loop, then stacked (the "list of tensors to tensor" question)
    rows = [torch.full((3,), float(i), device=device) for i in range(4)]
    found["list_to_tensor"] = [torch.stack(rows).sum().item(), _error(lambda: torch.tensor(rows))]
    found["chunks_are_views"] = [c.data_ptr() - x.data_ptr() for c in x.chunk(3)]
    return found


# ---- tensor identity and equality: equal, allclose, isclose with NaN, eq, data_ptr after view/clone/detach ------
def identity_and_equality(torch, device):
    a = torch.tensor([1.0, float("nan"), 3.0, float("inf")], device=device)
    b = a.clone()
    found = {"equal_nan": [torch.equal(a, b), torch.allclose(a, b), torch.allclose(a, b, equal_nan=True),
                           torch.isclose(a, b).tolist(), torch.isclose(a, b, equal_nan=True).tolist(),
                           (a == b).tolist(), torch.equal(a[[0, 2]], b[[0, 2]])]}
    c = torch.tensor([1.0, 2.0, 3.0])
    found["tolerances"] = [torch.allclose(c, c + 1e-6), torch.allclose(c, c + 1e-3),
                           torch.isclose(c, c + 0.01, rtol=0, atol=0.02).tolist(),
                           torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3])).tolist()]
    found["equal_dtypes"] = [torch.equal(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])),
                             torch.equal(torch.zeros(2), torch.zeros(3)),
                             torch.equal(torch.zeros(2, 1), torch.zeros(1, 2)),
                             bool((torch.zeros(2, 1) == torch.zeros(1, 2)).all())]
    found["allclose_dtype_err"] = _error(lambda: torch.allclose(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])))
    found["same_size"] = [torch.zeros(2, 3).is_same_size(torch.ones(2, 3)),
                          torch.zeros(2, 3).is_same_size(torch.ones(3, 2))]
    x = torch.arange(6.0, device=device).requires_grad_()
    views = {"view": x.view(2, 3), "detach": x.detach(), "data": x.data, "clone": x.clone(),
             "slice": x[2:], "contiguous": x.contiguous(), "t": x.view(2, 3).t(), "reshape": x.reshape(3, 2),
             "flip": x.flip(0), "to_same": x.to(device), "float": x.float(), "double": x.double()}
    found["shares_ptr"] = {k: v.data_ptr() == x.data_ptr() for k, v in views.items()}
    found["same_storage"] = {k: v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
                             for k, v in views.items()}
    found["is_same_object"] = [x.float() is x, x.to(device) is x, x.detach() is x, x.data is x]
    d = x.detach()
    d[0] = 42.0  # a detached tensor shares memory: the write shows in x
    found["detach_write"] = [x[0].item(), x.requires_grad, d.requires_grad, x._version]
    found["eq_ops"] = [torch.eq(c, 2).tolist(), c.ne(2).tolist(), (c != 2).sum().item(), c.eq(c).all().item()]
    found["isnan_isinf"] = [a.isnan().tolist(), a.isinf().tolist(), a.isfinite().tolist(),
                            torch.nan_to_num(a, nan=0.0, posinf=9.0).tolist()]
    found["hash_identity"] = [hash(c) == id(c), c in [c], len({c, c.clone()})]
    found["membership_error"] = _error(lambda: torch.tensor(2.0) in [c.clone(), torch.zeros(3)])
    found["scalar_in"] = [2.0 in c, 7 in c]
    return found


PROGRAMS = [view_versus_reshape, sliding_windows, expand_versus_repeat, chunk_split_stack, identity_and_equality]
NEEDS_CPP = {}
