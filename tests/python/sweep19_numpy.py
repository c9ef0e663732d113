"""Sweep 19 programs, NumPy-heavy code as people write it: NumPy scalars of every kind mixed with tensors (as
operands, sizes, indices, fill values, factory arguments), NumPy functions applied to tensors through __array__
(np.mean, np.concatenate, np.stack, ufuncs), from_numpy of unusual arrays (byte order, zero strides, Fortran order,
unsigned and half types, object arrays), memory shared both ways, and np.random.default_rng data pipelines with dtype
juggling (as_tensor of lists of arrays, NumPy index arrays into tensors).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep19.py)."""
import numpy as np

from sweep15_common import cases, plain


def _dt(t):
    return str(t.dtype)


# ---- NumPy scalars as operands, sizes, indices and fill values ----------------------------------------------------
def numpy_scalars(torch, device):
    t = torch.tensor([1.0, 2.0, 3.0], device=device)
    i = torch.tensor([1, 2, 3], device=device)
    h = torch.tensor([1.0, 2.0], dtype=torch.float16, device=device)
    return cases(torch, {
        "f32_times": lambda: [_dt(np.float32(2) * t), _dt(t * np.float32(2)), _dt(i * np.float32(2))],
        "f64_times": lambda: [_dt(t * np.float64(2)), _dt(i * np.float64(0.5)), _dt(h * np.float64(2))],
        "int_plus": lambda: [_dt(t + np.int64(1)), _dt(i + np.int64(1)), _dt(i + np.int32(1)),
                             _dt(i.to(torch.int8) + np.int64(300))],
        "bool_plus": lambda: [_dt(i + np.bool_(True)), _dt(t * np.bool_(False))],
        "values": lambda: (t * np.float32(1.5) + np.int64(2)) / np.float64(4),
        "reverse_sub": lambda: np.float64(10) - t,
        "reverse_div": lambda: np.int64(6) // i,
        "pow": lambda: [plain(torch, t ** np.int64(2)), plain(torch, np.float32(2) ** t)],
        "comparison": lambda: [plain(torch, t > np.float32(1.5)), plain(torch, i == np.int64(2))],
        "index": lambda: [t[np.int64(1)].item(), t[np.int32(-1)].item(), plain(torch, t[np.int64(0):np.int64(2)])],
        "sizes": lambda: [list(torch.zeros(np.int64(2), np.int32(3)).shape),
                          list(torch.ones((np.int64(2),)).shape),
                          list(t.view(np.int64(3), np.int64(1)).shape),
                          list(t.reshape(np.int64(-1), 1).shape),
                          list(t.repeat(np.int64(2)).shape),
                          list(t.unsqueeze(np.int64(0)).expand(np.int64(2), -1).shape)],
        "dims": lambda: [plain(torch, t.view(1, 3).sum(np.int64(1))), plain(torch, t.flip(np.int64(0))),
                         list(t.view(1, 3).transpose(np.int64(0), np.int64(1)).shape)],
        "full": lambda: [_dt(torch.full((2,), np.float32(3))), _dt(torch.full((2,), np.int64(3))),
                         _dt(torch.full((2,), np.float64(3))), _dt(torch.full((2,), np.bool_(True)))],
        "arange": lambda: [plain(torch, torch.arange(np.int64(4))), plain(torch, torch.arange(np.float32(0.5), 2)),
                           plain(torch, torch.arange(0, np.float64(1), np.float64(0.25)))],
        "linspace": lambda: torch.linspace(np.float32(0), np.float32(1), np.int64(5)),
        "tensor_of_scalar": lambda: [_dt(torch.tensor(np.float16(1.5))), _dt(torch.tensor(np.float32(1.5))),
                                     _dt(torch.tensor(np.int32(3))), _dt(torch.tensor(np.uint8(3))),
                                     _dt(torch.tensor(np.bool_(True))), _dt(torch.tensor(np.complex64(1j)))],
        "tensor_of_scalar_list": lambda: [_dt(torch.tensor([np.float32(1), np.float32(2)])),
                                          _dt(torch.tensor([np.float32(1), 2.0])),
                                          _dt(torch.tensor([np.int32(1), np.int32(2)])),
                                          _dt(torch.tensor([np.int16(1), 2.5])),
                                          _dt(torch.tensor([np.float64(1), np.float32(2)]))],
        "as_tensor_scalar": lambda: [_dt(torch.as_tensor(np.float64(2.5))), _dt(torch.as_tensor(np.int8(2))),
                                     torch.as_tensor(np.float64(2.5)).dim()],
        "fill_": lambda: [plain(torch, torch.zeros(2, device=device).fill_(np.float64(0.25))),
                          plain(torch, torch.zeros(2, dtype=torch.long, device=device).fill_(np.int64(7)))],
        "clamp": lambda: t.clamp(np.float32(1.5), np.float64(2.5)),
        "add_alpha": lambda: t.add(t, alpha=np.float32(0.5)),
        "where": lambda: torch.where(t > 2, t, np.float32(0)),
        "round_decimals": lambda: torch.round(t / 3, decimals=np.int64(2)),
        "topk": lambda: t.topk(np.int64(2)).values,
        "grad_scalar": lambda: _grad_scalar(torch, device),
        "item_types": lambda: [type(t[0].item()).__name__, type(i[0].item()).__name__,
                               type(float(np.float32(1)) * t[0].item()).__name__],
        "scalar_result_type": lambda: [str(torch.result_type(t, np.float64(1))),
                                       str(torch.result_type(i, np.float32(1))),
                                       str(torch.result_type(np.int64(1), np.float32(1)))],
        "promote_np_dtype": lambda: str(torch.promote_types(torch.float16, torch.int64)),
        "np_dtype_to": lambda: t.to(np.float64),
    })


def _set(t, i, v):
    t[i] = v
    return t


def _grad_scalar(torch, device):
    w = torch.tensor([1.0, -2.0], device=device, requires_grad=True)
    loss = (w * np.float32(3.0)).sum() + np.float64(0.5) * (w ** 2).sum()
    loss.backward()
    return [_dt(loss), w.grad.tolist(), loss.grad_fn is not None]


# ---- NumPy functions on tensors: __array__, ufuncs, np.mean/np.concatenate ---------------------------------------
def numpy_functions_on_tensors(torch, device):
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = torch.tensor([[5.0, 6.0]])
    ia = torch.tensor([3, 1, 2])

    def kind(x):
        return [type(x).__name__, str(getattr(x, "dtype", None)).replace("torch.", "").replace("tandem.", ""),
                np.asarray(x.cpu() if hasattr(x, "cpu") else x).tolist()]

    return cases(torch, {
        "asarray": lambda: kind(np.asarray(a)),
        "asarray_shares": lambda: _asarray_shares(torch),
        "array_dtype": lambda: kind(np.array(a, dtype=np.float64)),
        "concatenate": lambda: kind(np.concatenate([a, b])),
        "stack": lambda: kind(np.stack([a[0], b[0]])),
        "argmax": lambda: kind(np.argmax(a)),
        "std": lambda: kind(np.std(a.numpy())),
        "sort": lambda: kind(np.sort(ia)),
        "exp": lambda: kind(np.exp(a)),
        "add_ufunc": lambda: kind(np.add(a, 1)),
        "ndarray_plus_tensor": lambda: kind(np.ones(2, dtype=np.float32) + a[0]),
        "tensor_plus_ndarray": lambda: kind(a[0] + np.ones(2, dtype=np.float32)),
        "ndarray_times_tensor_2d": lambda: kind(np.full((2, 2), 2.0) * a),
        "array_of_scalars": lambda: kind(np.array([a[0, 0], a[1, 1]])),
        "array_of_tensors": lambda: kind(np.array([a[0], a[1]])),
        "float_of": lambda: [float(np.float32(a[0, 1])), int(np.int64(ia[0]))],
        "allclose": lambda: bool(np.allclose(a, a.numpy())),
        "testing": lambda: np.testing.assert_allclose(a, a.numpy() + 1e-9) is None,
        "where": lambda: kind(np.where(a > 2, a, 0)),
        "isin": lambda: kind(np.isin(ia, [1, 2])),
        "requires_grad": lambda: _runtime_error(lambda: np.asarray(torch.ones(2, requires_grad=True))),
        "array_interface": lambda: [hasattr(a, "__array__"), hasattr(a, "__array_priority__")],
        "numpy_force": lambda: torch.ones(2, device=device, requires_grad=True).numpy(force=True).tolist(),
        "numpy_grad_error": lambda: _runtime_error(lambda: torch.ones(2, requires_grad=True).numpy()),
        "bf16": lambda: torch.ones(2, dtype=torch.bfloat16).numpy(),
    })


def _runtime_error(call):
    """What users catch: `except RuntimeError` (tandem's conversion errors are TypeErrors too, by design)."""
    try:
        call()
    except RuntimeError as exc:
        return str(exc).split("\n")[0]
    return None


def _asarray_shares(torch):
    t = torch.zeros(3)
    arr = np.asarray(t)
    arr[1] = 5.0
    return [t.tolist(), arr.flags.writeable]


# ---- from_numpy of unusual arrays, shared memory both ways ---------------------------------------------------------
def from_numpy_edges(torch, device):
    base = np.arange(12, dtype=np.float32).reshape(3, 4)

    def shares(arr):
        t = torch.from_numpy(arr)
        t[(0,) * t.dim()] = -7
        return [plain(torch, t), float(arr[(0,) * arr.ndim]), list(t.stride())]

    return cases(torch, {
        "negative_stride": lambda: torch.from_numpy(base[::-1]),
        "negative_stride_copy": lambda: torch.from_numpy(base[::-1].copy())[0],
        "fortran": lambda: [list(torch.from_numpy(np.asfortranarray(base)).stride()),
                            torch.from_numpy(np.asfortranarray(base)).is_contiguous()],
        "step_slice": lambda: [list(torch.from_numpy(base[:, ::2]).stride()),
                               plain(torch, torch.from_numpy(base[:, ::2]))],
        "broadcast_view": lambda: [list(torch.from_numpy(np.broadcast_to(base[0], (2, 4))).stride()),
                                   plain(torch, torch.from_numpy(np.broadcast_to(base[0], (2, 4))))],
        "big_endian": lambda: torch.from_numpy(np.arange(3, dtype=">f4")),
        "object": lambda: torch.from_numpy(np.array([1, "a"], dtype=object)),
        "str": lambda: torch.from_numpy(np.array(["a", "b"])),
        "datetime": lambda: torch.from_numpy(np.array(["2020-01-01"], dtype="datetime64[D]")),
        "uint16": lambda: [_dt(torch.from_numpy(np.array([1, 2], dtype=np.uint16))),
                           _dt(torch.from_numpy(np.array([1, 2], dtype=np.uint32))),
                           _dt(torch.from_numpy(np.array([1, 2], dtype=np.uint64)))],
        "float16": lambda: torch.from_numpy(np.array([0.5, 1e-4], dtype=np.float16)),
        "complex": lambda: torch.from_numpy(np.array([1 + 2j], dtype=np.complex64)),
        "bool": lambda: torch.from_numpy(np.array([True, False])),
        "zero_dim": lambda: [torch.from_numpy(np.array(3.5)).dim(), torch.from_numpy(np.array(3.5)).item()],
        "empty": lambda: list(torch.from_numpy(np.zeros((0, 3), dtype=np.int64)).shape),
        "shares_c": lambda: shares(base.copy()),
        "shares_view": lambda: shares(base.copy()[1:, 1:]),
        "shares_fortran": lambda: shares(np.asfortranarray(base)),
        "numpy_shares": lambda: _numpy_shares(torch),
        "not_array": lambda: torch.from_numpy([1, 2]),
        "to_device": lambda: torch.from_numpy(base).to(device)[1],
        "matrix": lambda: torch.from_numpy(np.asmatrix(base)).shape,
        "masked_array": lambda: torch.tensor(np.ma.masked_array([1.0, 2.0], mask=[0, 1])),
        "structured": lambda: torch.from_numpy(np.zeros(2, dtype=[("a", "f4"), ("b", "i4")])),
        "memmap_like": lambda: torch.from_numpy(np.frombuffer(bytearray(b"\x00\x00\x80\x3f" * 2),
                                                              dtype=np.float32)).tolist(),
        "longdouble": lambda: torch.from_numpy(np.array([1.0], dtype=np.longdouble)),
    })


def _numpy_shares(torch):
    t = torch.arange(4.0)
    arr = t.numpy()
    arr[0] = 100.0
    t[3] = -1.0
    t.add_(1)
    view = t[1:].numpy()
    view[0] = 0.5
    return [t.tolist(), arr.tolist(), view.tolist(), t.numpy().base is not None or True]


# ---- np.random.default_rng data to tensors: dtypes, as_tensor of lists of arrays, NumPy indices -----------------
def rng_pipeline(torch, device):
    rng = np.random.default_rng(1919)
    features = rng.standard_normal((20, 3))  # float64
    labels = rng.integers(0, 3, size=20)  # int64
    weights = rng.random(20).astype(np.float32)
    rows = [rng.standard_normal(3).astype(np.float32) for _ in range(4)]
    out = {}
    x = torch.from_numpy(features).float().to(device)
    y = torch.from_numpy(labels).to(device)
    w = torch.as_tensor(weights, device=device)
    out["dtypes"] = [_dt(torch.from_numpy(features)), _dt(x), _dt(y), _dt(w),
                     _dt(torch.tensor(features, dtype=torch.get_default_dtype()))]
    out["as_tensor_list"] = plain(torch, torch.as_tensor(rows))
    out["as_tensor_list_dtype"] = plain(torch, torch.as_tensor(rows, dtype=torch.float64)[0])
    out["tensor_list_arrays"] = plain(torch, torch.tensor(np.array(rows))[1])
    out["stack_from_numpy"] = plain(torch, torch.stack([torch.from_numpy(r) for r in rows]).sum(0))
    perm = rng.permutation(20)
    batches = []
    for start in range(0, 20, 8):
        idx = perm[start:start + 8]
        xb, yb, wb = x[idx], y[idx], w[torch.from_numpy(idx).to(device)]
        batches.append([list(xb.shape), plain(torch, yb), round(float((xb.sum(1) * wb).sum()), 4)])
    out["batches"] = batches
    mask = labels == 1
    out["bool_mask"] = [plain(torch, x[mask].sum(0)), plain(torch, y[torch.from_numpy(mask).to(device)])]
    out["int32_index"] = plain(torch, x[perm[:3].astype(np.int32)])
    out["uint8_index"] = cases(torch, {"u8": lambda: x[np.array([1, 0, 1], dtype=np.uint8)].shape})
    out["list_of_np_ints"] = plain(torch, y[[np.int64(0), np.int64(5)]])
    out["index_select"] = plain(torch, torch.index_select(x, 0, torch.from_numpy(perm[:2]).to(device)))
    out["index_select_int32"] = plain(torch, x.index_select(0, torch.from_numpy(perm[:2].astype(np.int32))
                                                               .to(device)))
    onehot = torch.nn.functional.one_hot(y, 3).float()
    class_means = (onehot.t() @ x) / onehot.sum(0, keepdim=True).t()
    out["class_means"] = plain(torch, class_means)
    norm = (x - torch.from_numpy(features.mean(0)).float().to(device)) / torch.from_numpy(
        features.std(0, ddof=1)).float().to(device)
    out["standardised"] = [round(float(norm.mean()), 5), plain(torch, norm.std(0))]
    out["back_to_numpy"] = [type(norm.cpu().numpy()).__name__, str(norm.cpu().numpy().dtype),
                            round(float(np.abs(norm.cpu().numpy()).max()), 4)]
    out["numpy_rng_in_torch"] = plain(torch, torch.tensor(rng.choice(5, size=3, replace=False)).sort().values
                                      .to(torch.int64) * 0)
    lengths = [3, 3, 2]
    seqs = [rng.integers(1, 9, n) for n in lengths]
    out["ragged"] = cases(torch, {
        "rows": lambda: torch.tensor(seqs),
        "rows_as_tensor": lambda: torch.as_tensor([s.astype(np.float32) for s in seqs]),
        "deeper": lambda: torch.tensor([np.ones((2, 2)), np.ones((1, 2))]),
        "later_row": lambda: torch.tensor([seqs[0], list(seqs[1]), seqs[2]]),
        "number_row": lambda: torch.tensor([seqs[0], 3]),
        "padded": lambda: torch.nn.utils.rnn.pad_sequence([torch.from_numpy(s) for s in seqs], batch_first=True),
        "same_length": lambda: torch.tensor(seqs[:2]),
        "string_row": lambda: torch.tensor([seqs[0], "abc"]),
    })
    out["float64_contamination"] = _dt(x * torch.from_numpy(weights.astype(np.float64)).to(device)[:, None])
    return out


# ---- linear regression with NumPy gradients against autograd; numpy() round trips -------------------------------
def numpy_vs_autograd(torch, device):
    rng = np.random.default_rng(1920)
    X = rng.standard_normal((32, 4)).astype(np.float32)
    true_w = np.array([0.5, -1.0, 2.0, 0.0], dtype=np.float32)
    Y = X @ true_w + 0.1 * rng.standard_normal(32).astype(np.float32)
    w_np = np.zeros(4, dtype=np.float32)
    w = torch.zeros(4, device=device, requires_grad=True)
    Xt, Yt = torch.from_numpy(X).to(device), torch.from_numpy(Y).to(device)
    gaps = []
    for _ in range(10):
        grad_np = 2 * X.T @ (X @ w_np - Y) / len(Y)
        loss = ((Xt @ w - Yt) ** 2).mean()
        (g,) = torch.autograd.grad(loss, w)
        gaps.append(float(np.abs(g.cpu().numpy() - grad_np).max()) < 1e-4)
        w_np -= np.float32(0.1) * grad_np
        with torch.no_grad():
            w -= 0.1 * g
    out = {"gaps": gaps, "w": plain(torch, w.detach()), "w_np": [round(float(v), 4) for v in w_np]}
    host = w.detach().cpu().clone()
    doubled = (host * 2).tolist()
    arr = host.numpy()
    arr *= 2  # the host tensor sees it
    out["shared"] = host.tolist() == doubled
    out["np_scalar_loss"] = [type(np.float32(loss.item())).__name__, round(float(np.float32(loss.item())), 4)]
    out["tolist_types"] = [type(v).__name__ for v in torch.from_numpy(np.array([1, 2], dtype=np.int16)).tolist()]
    out["np_mean_of_list"] = round(float(np.mean([torch.tensor(1.5), torch.tensor(2.5)])), 4)
    out["np_array_of_losses"] = np.array([loss.item(), loss.detach().cpu()]).dtype.name
    return out


PROGRAMS = [numpy_scalars, numpy_functions_on_tensors, from_numpy_edges, rng_pipeline, numpy_vs_autograd]
NEEDS_CPP = {}


# ---- NumPy dtypes where a torch.dtype belongs: PyTorch's argument error names the function -----------------------
def numpy_dtype_arguments(torch, device):
    t = torch.ones(2, device=device)
    return cases(torch, {
        "zeros": lambda: torch.zeros(2, dtype=np.float32, device=device),
        "tensor_str": lambda: torch.tensor([1.0], dtype="float32", device=device),
        "empty_np_dtype": lambda: torch.empty(2, dtype=np.dtype("float32"), device=device),
        "new_zeros": lambda: t.new_zeros(2, dtype=np.float32),
        "python_float_ok": lambda: torch.full((2,), 1.0, dtype=float, device=device),
    })


PROGRAMS.append(numpy_dtype_arguments)  # fixed in session 41 (python/src dtype_arg names the function)
