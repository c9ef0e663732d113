"""Sweep 10 programs, NumPy interop as Stack Overflow answers give it: from_numpy and numpy() sharing memory (also
through views), np.asarray(tensor), numpy() of a tensor that requires grad (the error and detach().numpy()),
negative strides, read-only arrays, NumPy scalars mixed with tensors (np.float64 * tensor, t[np.int64(i)]) and
Python's conversions of tensors (int(), float(), bool(), len(), iteration).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep10.py)."""
import warnings

import numpy as np

from sweep10_common import dtype_name as _dt, error_of as _error


# ---- the bridge: from_numpy/numpy() share memory, views too; as_tensor, tensor() copies; dtypes both ways -------
def numpy_bridge(torch, device):
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = torch.from_numpy(arr)
    arr[0, 0] = 100.0
    t[1, 2] = -1.0
    found = {"shared": [t[0, 0].item(), float(arr[1, 2])]}
    back = t.numpy()
    back[0, 1] = 55.0
    found["numpy_shares"] = [t[0, 1].item(), np.shares_memory(back, arr)]
    tv = t.t()
    nv = tv.numpy()  # a transposed view keeps its strides
    found["view_strides"] = [list(nv.shape), list(nv.strides), nv.flags["C_CONTIGUOUS"], np.shares_memory(nv, arr)]
    col = t[:, 1].numpy()
    col[0] = 9.0
    found["column_view"] = [t[0, 1].item(), list(col.strides)]
    found["as_tensor"] = [torch.as_tensor(arr).data_ptr() == t.data_ptr(), torch.tensor(arr).data_ptr() == t.data_ptr(),
                          _dt(torch.as_tensor(arr, dtype=torch.float64)), torch.asarray(arr).data_ptr() == t.data_ptr()]
    found["dtypes_in"] = [_dt(torch.from_numpy(np.zeros(2, dtype=d))) for d in
                          (np.float64, np.float16, np.int32, np.int16, np.uint8, np.int8, np.bool_, np.complex64,
                           np.int64)]
    found["dtypes_out"] = [str(torch.zeros(2, dtype=d).numpy().dtype) for d in
                           (torch.float32, torch.float64, torch.int64, torch.bool, torch.uint8, torch.complex128,
                            torch.float16)]
    found["np_asarray"] = [str(np.asarray(t).dtype), np.asarray(t).shape, float(np.asarray(t).sum()),
                           str(np.array(torch.tensor([1, 2])).dtype), np.asarray(torch.tensor(2.5)).shape]
    found["np_funcs"] = [float(np.mean(t.numpy())), type(np.sum(torch.ones(3).numpy())).__name__,
                         np.allclose(torch.ones(2).numpy(), 1)]
    x = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
    try:
        x.cpu().numpy()
    except RuntimeError as exc:  # the forum answer: catch it, call detach() first
        found["requires_grad_numpy"] = str(exc).split("\n")[0]
    found["detach_numpy"] = x.detach().cpu().numpy().tolist()
    found["force"] = x.numpy(force=True).tolist()
    if device != "cpu":
        found["cuda_numpy"] = "checked separately"
    else:
        found["cuda_numpy"] = "checked separately"
    found["negative_strides"] = _error(lambda: torch.from_numpy(np.arange(4.0)[::-1]))
    found["negative_copy"] = torch.from_numpy(np.arange(4.0)[::-1].copy()).tolist()
    readonly = np.arange(3.0)
    readonly.flags.writeable = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ro = torch.from_numpy(readonly)
    # PyTorch warns once per process (TORCH_WARN_ONCE), so whether *it* warns here depends on which test ran first
    # in this process; tandem warns every time (test_numpy_boundary checks that). Compare what is order-free: any
    # warning is a UserWarning, and the values.
    found["readonly_warns"] = [all(w.category is UserWarning for w in caught), ro.tolist()]
    found["from_numpy_list"] = _error(lambda: torch.from_numpy([1, 2]))
    found["from_numpy_object"] = _error(lambda: torch.from_numpy(np.array([1, "a"], dtype=object)))
    found["uint16"] = _dt(torch.from_numpy(np.zeros(2, dtype=np.uint16)))
    strided = np.arange(12.0).reshape(3, 4)[:, ::2]
    found["strided_array"] = [torch.from_numpy(strided).stride(), torch.from_numpy(strided).tolist()]
    moved = torch.from_numpy(np.ones((2, 2), dtype=np.float32)).to(device) * 3
    found["to_device_and_back"] = moved.cpu().numpy().tolist()
    found["tolist_vs_numpy"] = [type(torch.tensor([1.5]).numpy()[0]).__name__,
                                type(torch.tensor([1.5]).tolist()[0]).__name__]
    return found


# ---- NumPy scalars and Python numbers with tensors: results' types and dtypes, indexing with np.int64 ----------
def numpy_scalars_with_tensors(torch, device):
    t = torch.tensor([1.0, 2.0, 3.0], device=device)
    i = torch.tensor([1, 2, 3], device=device)
    found = {}
    products = {"np64_left": np.float64(2.0) * t, "np64_right": t * np.float64(2.0), "np32_right": t * np.float32(2),
                "npint_right": i * np.int64(2), "npint_float_tensor": t + np.int32(1),
                "np_float_int_tensor": i * np.float64(0.5), "np_bool_float": t * np.bool_(True),
                "np64_plus": np.float64(1.0) + t, "np_sub": np.float32(10) - t, "np_div": np.float64(6.0) / t}
    found["types"] = {k: [type(v).__name__, _dt(v), v.cpu().tolist()] for k, v in products.items()}
    found["index_np_int"] = [t[np.int64(1)].item(), t[np.int32(2)].item(), i[np.array([0, 2])].tolist(),
                             t[np.array([True, False, True])].tolist(), i[np.arange(2)].tolist()]
    found["np_array_index_2d"] = torch.arange(12, device=device).view(3, 4)[np.array([0, 2]), 1:3].tolist()
    found["creation_from_np_scalars"] = [_dt(torch.tensor(np.float64(1.5))), _dt(torch.tensor(np.float32(1.5))),
                                         _dt(torch.tensor([np.float32(1), np.float32(2)])),
                                         _dt(torch.tensor(np.int32(3))), _dt(torch.tensor([np.int64(1), 2])),
                                         _dt(torch.full((2,), np.float64(3.0))), _dt(torch.tensor(np.bool_(True))),
                                         _dt(torch.tensor([np.float64(1.0), 2.0]))]
    found["np_sizes"] = [list(torch.zeros(np.int64(2), np.int32(3)).shape),
                         list(torch.ones((np.int64(2),)).shape), list(t.view(np.int64(3), 1).shape),
                         list(torch.arange(np.int64(4)).shape), list(t.repeat(np.int64(2)).shape)]
    found["np_comparisons"] = [(t > np.float64(1.5)).tolist(), bool(t.max() == np.float32(3.0))]
    found["conversions"] = [int(torch.tensor(3.7)), float(torch.tensor([2])), bool(torch.tensor([0.0])),
                            complex(torch.tensor(1.5)), int(torch.tensor([[5]])), torch.tensor(4).__index__(),
                            [10, 20, 30, 40, 50][torch.tensor(2)], operator_index(torch, device)]
    found["conversion_errors"] = [_error(lambda: bool(torch.tensor([1, 2]))), _error(lambda: float(torch.ones(2))),
                                  _error(lambda: len(torch.tensor(3))), _error(lambda: iter(torch.tensor(3))),
                                  _error(lambda: [1, 2, 3][torch.tensor(1.0)]), _error(lambda: int(torch.ones(2))),
                                  _error(lambda: torch.tensor(2.5).__index__())]
    found["iteration"] = [[r.tolist() for r in torch.arange(6).view(3, 2)], len(torch.zeros(4, 2)),
                          [v.item() for v in torch.arange(3)], list(map(int, torch.tensor([3, 4])))]
    found["np_ufunc_on_tensor"] = [type(np.sqrt(torch.tensor([4.0]))).__name__, np.sqrt(torch.tensor([4.0])).tolist()]
    found["math_funcs"] = [round(__import__("math").sqrt(torch.tensor(9.0)), 3), max(torch.tensor([1, 5, 3])).item(),
                           sum(torch.tensor([1.5, 2.5])).item(), sorted(torch.tensor([3, 1, 2]).tolist())]
    return found


def operator_index(torch, device):
    import operator
    return operator.index(torch.tensor(7))


# ---- a whole NumPy-first pipeline: a dataset from arrays, train, predictions back to NumPy and pandas-style stats -
def numpy_first_pipeline(torch, device):
    rng = np.random.default_rng(1030)
    features = rng.standard_normal((64, 3)).astype(np.float32)
    true_w = np.array([1.5, -2.0, 0.5], dtype=np.float32)
    target = features @ true_w + 0.1 + 0.01 * rng.standard_normal(64).astype(np.float32)
    x = torch.from_numpy(features).to(device)
    y = torch.from_numpy(target).unsqueeze(1).to(device)
    model = torch.nn.Linear(3, 1).to(device)
    with torch.no_grad():
        model.weight.copy_(torch.from_numpy(np.zeros((1, 3), dtype=np.float32)))
        model.bias.zero_()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for step in range(60):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        if step % 20 == 0:
            losses.append(loss.item())
    preds = model(x).detach().cpu().numpy().ravel()
    residual = preds - target
    weights = model.weight.detach().cpu().numpy()
    found = {"losses": losses, "weights": weights.round(3).tolist(), "bias": float(model.bias.item()),
             "residual_std": float(np.std(residual)), "preds_dtype": str(preds.dtype),
             "argsort": np.argsort(preds)[:5].tolist()}
    # a normalisation with NumPy statistics applied to a tensor, and back
    mean, std = features.mean(0), features.std(0)
    normed = (x - torch.from_numpy(mean).to(device)) / torch.from_numpy(std).to(device)
    found["normed"] = [round(float(v), 4) for v in normed.mean(0).cpu().numpy()]
    found["np_stack_of_tensors"] = np.stack([torch.ones(2).numpy(), torch.zeros(2).numpy()]).tolist()
    found["tensor_from_list_of_arrays"] = list(torch.tensor(np.array([features[0], features[1]])).shape)
    found["state_dict_numpy"] = {k: v.cpu().numpy().shape for k, v in model.state_dict().items()}
    found["np_where_on_numpy"] = np.where(x.cpu().numpy()[:4, 0] > 0, 1, 0).tolist()
    return found


# ---- NumPy operands PyTorch's argument parser does not take: np.bool_ is a float, an ndarray goes through NumPy --
def numpy_operands_in_arithmetic(torch, device):
    i = torch.tensor([1, 2], device=device).cpu()
    t = torch.tensor([1.0, 2.0], device=device).cpu()
    found = {"np_bool": [_dt(i * np.bool_(True)), _dt(i + np.bool_(False)), _dt(torch.full((2,), np.bool_(True))),
                         _error(lambda: i.clone().mul_(np.bool_(True)))]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # NumPy 2's notice about __array_wrap__'s arguments
        # Tensor.__mul__ refuses an ndarray, so NumPy computes the product (in float64) and wraps it in a tensor
        found["ndarray_operand"] = [_dt(t * np.array(2.0)), _dt(t + np.array(3)), _dt(t.half() * np.array(2.0))]
    found["ndarray_refused"] = [_error(lambda: t.add(np.array(2.0))), _error(lambda: np.array(2.0) * t),
                                _error(lambda: t.clone().mul_(np.array(2.0)))]
    return found


PROGRAMS = [numpy_bridge, numpy_scalars_with_tensors, numpy_first_pipeline, numpy_operands_in_arithmetic]
NEEDS_CPP = {}
