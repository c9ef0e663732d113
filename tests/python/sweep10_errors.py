"""Sweep 10 programs, the common user errors that fill the forums, each caught with try/except and its message
compared: shape mismatches in matmul/mm/bmm/cat/view/broadcasting/Linear/conv, index and dimension out of range,
the autograd errors (in-place on a leaf, backward twice, grad of a non-scalar, no grad_fn, a tensor modified in
place, requires_grad on an integer tensor) and the loss-function errors (target dtype, shape and class range).

Each program takes the library as `torch` and a device and returns, per idiom, the builtin class users catch and
the message's first line (tandem may add a `hint:` line and raise a subclass)."""
import warnings

import numpy as np

from sweep10_common import error_of as _error


# ---- shape errors: matmul/mm/bmm, cat, view, broadcasting, Linear and Conv2d inputs, einsum, index_select ------
def shape_errors(torch, device):
    a = torch.ones(4, 3, device=device)
    b = torch.ones(4, 5, device=device)
    found = {"matmul": _error(lambda: a @ b), "mm": _error(lambda: torch.mm(a, b)),
             "matmul_1d": _error(lambda: torch.ones(3, device=device) @ torch.ones(4, device=device)),
             "matmul_batched": _error(lambda: torch.ones(2, 3, 4, device=device) @ torch.ones(2, 5, 6, device=device)),
             "bmm": _error(lambda: torch.bmm(torch.ones(2, 3, 4, device=device), torch.ones(2, 5, 6, device=device))),
             "bmm_2d": _error(lambda: torch.bmm(a, b)),
             "mv": _error(lambda: torch.mv(a, torch.ones(4, device=device))),
             "dot": _error(lambda: torch.dot(torch.ones(3, device=device), torch.ones(4, device=device))),
             "dot_2d": _error(lambda: torch.dot(a, a)),
             "cat": _error(lambda: torch.cat([a, b], dim=0)),
             "view": _error(lambda: a.view(5, -1)),
             "broadcast": _error(lambda: a + torch.ones(4, device=device)),
             "broadcast_inplace": _error(lambda: torch.ones(3, device=device).add_(a)),
             "linear": _error(lambda: torch.nn.Linear(5, 2).to(device)(a)),
             "conv_channels": _error(lambda: torch.nn.Conv2d(3, 4, 3).to(device)(torch.ones(1, 2, 8, 8,
                                                                                         device=device))),
             "conv_dims": _error(lambda: torch.nn.Conv2d(3, 4, 3).to(device)(torch.ones(3, 8, device=device))),
             "conv_small": _error(lambda: torch.nn.Conv2d(3, 4, 5).to(device)(torch.ones(1, 3, 3, 3, device=device))),
             "einsum": _error(lambda: torch.einsum("ij,jk->ik", a, a)),
             "reshape_numel": _error(lambda: a.reshape(5, 5)),
             "stack": _error(lambda: torch.stack([a, a.t()])),
             "expand": _error(lambda: a.expand(4, 6)),
             "lstm_input": _error(lambda: torch.nn.LSTM(3, 2, batch_first=True).to(device)(torch.ones(2, 5, 4,
                                                                                                     device=device))),
             "batchnorm": _error(lambda: torch.nn.BatchNorm1d(5).to(device)(a)),
             "layernorm": _error(lambda: torch.nn.LayerNorm(5).to(device)(a)),
             "embedding_float": _error(lambda: torch.nn.Embedding(10, 3).to(device)(torch.ones(2, device=device))),
             "maxpool_small": _error(lambda: torch.nn.MaxPool2d(4)(torch.ones(1, 1, 2, 2, device=device))),
             "flatten_linear": _error(lambda: torch.nn.Sequential(torch.nn.Flatten(),
                                                                  torch.nn.Linear(10, 2)).to(device)(
                 torch.ones(2, 3, 4, device=device)))}
    return found


# ---- index errors: out of range (get and set), dim out of range, too many indices, an empty tensor's max -------
def index_errors(torch, device):
    x = torch.arange(6, device=device).view(2, 3)
    found = {"get": _error(lambda: x[5]), "get_neg": _error(lambda: x[-3]), "get_col": _error(lambda: x[:, 3]),
             "too_many": _error(lambda: x[0, 0, 0]),
             "dim_sum": _error(lambda: x.sum(2)), "dim_neg": _error(lambda: x.softmax(dim=-3)),
             "dim_transpose": _error(lambda: x.transpose(0, 2)),
             "dim_0d": _error(lambda: torch.tensor(1.0).sum(1)),
             "empty_max": _error(lambda: torch.tensor([]).max()),
             "empty_argmax": _error(lambda: torch.zeros(0, 3).argmax(0)),
             "item_many": _error(lambda: x.item()),
             "float_index": _error(lambda: x[1.5]),
             "bool_mask_shape": _error(lambda: x[torch.tensor([True, False, True], device=device)]),
             "narrow": _error(lambda: x.narrow(1, 2, 2)),
             "select": _error(lambda: x.select(1, 3)),
             "topk": _error(lambda: x.float().topk(4)),
             "chunk_zero": _error(lambda: x.chunk(0)),
             "split_zero": _error(lambda: x.split(0)),
             "unsqueeze": _error(lambda: x.unsqueeze(3)),
             "permute_dims": _error(lambda: x.permute(0)),
             "permute_repeat": _error(lambda: x.permute(0, 0)),
             "tensor_index_cpu": _error(lambda: torch.arange(3)[torch.tensor([3])]),
             "gather_index_dtype": _error(lambda: x.gather(1, torch.tensor([[0], [1]], dtype=torch.int32,
                                                                           device=device))),
             "index_select_dtype": _error(lambda: x.index_select(0, torch.tensor([0.0], device=device))),
             "empty_index_list": x[[]].shape[0]}
    try:
        x[7, 0] = 1
    except IndexError as exc:
        found["set"] = str(exc)
    found["list_index"] = _error(lambda: [1, 2, 3][torch.tensor([1, 2])])
    found["gather_cpu_oob"] = _error(lambda: torch.arange(3).gather(0, torch.tensor([3])))
    found["scatter_cpu_oob"] = _error(lambda: torch.zeros(3).scatter_(0, torch.tensor([5]), 1.0))
    found["embedding_oob"] = _error(lambda: torch.nn.Embedding(4, 2)(torch.tensor([4])))
    found["one_hot_oob"] = _error(lambda: torch.nn.functional.one_hot(torch.tensor([0, 5]), 3))
    found["one_hot_negative"] = _error(lambda: torch.nn.functional.one_hot(torch.tensor([-1])))
    found["one_hot_float"] = _error(lambda: torch.nn.functional.one_hot(torch.tensor([1.0])))
    return found


# ---- autograd errors: in-place on a leaf, backward twice, non-scalar grad, no grad_fn, modified saved tensors ----
def autograd_errors(torch, device):
    found = {}
    w = torch.ones(3, device=device, requires_grad=True)
    found["inplace_leaf"] = _error(lambda: w.add_(1))
    found["inplace_leaf_setitem"] = _error(lambda: w.__setitem__(0, 5.0))
    with torch.no_grad():
        w.add_(1)  # the fix: update under no_grad
    found["no_grad_update"] = [w.tolist(), w.requires_grad, w.is_leaf]
    y = (w * w).sum()
    y.backward()
    found["backward_twice"] = _error(lambda: y.backward())
    z = w.exp().sum()
    z.backward(retain_graph=True)
    z.backward()
    found["retain_graph"] = w.grad.tolist()
    found["non_scalar"] = _error(lambda: (w * 2).backward())
    found["non_scalar_fixed"] = [(w * 2).backward(torch.ones(3, device=device)), w.grad.tolist()][1]
    found["no_grad_fn"] = _error(lambda: torch.ones(2, device=device).sum().backward())
    with torch.no_grad():
        inside = (w * 2).sum()
    found["made_under_no_grad"] = _error(lambda: inside.backward())
    found["detached"] = _error(lambda: (w.detach() * 2).sum().backward())
    a = torch.ones(3, device=device, requires_grad=True)
    b = a.exp()
    c = b * 2
    b.add_(1)  # exp saved its output for backward
    found["modified_inplace"] = _error(lambda: c.sum().backward())
    d = a.sigmoid()
    e = d ** 2
    d.mul_(2)
    found["modified_sigmoid"] = _error(lambda: e.sum().backward())
    found["int_requires_grad"] = _error(lambda: torch.tensor([1, 2], device=device, requires_grad=True))
    found["int_requires_grad_"] = _error(lambda: torch.tensor([1, 2], device=device).requires_grad_())
    found["nonleaf_requires_grad"] = _error(lambda: setattr(a * 2, "requires_grad", False))
    found["unused_input"] = _error(lambda: torch.autograd.grad((a * 2).sum(), [a, torch.ones(1, requires_grad=True)]))
    found["grad_no_requires"] = _error(lambda: torch.autograd.grad(torch.ones(1, requires_grad=True).sum() * 1,
                                                                    torch.ones(1)))
    found["grad_twice"] = _error(lambda: [torch.autograd.grad(g, a) for g in [(a ** 2).sum()] * 2])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nonleaf = a * 2
        nonleaf.sum().backward()
        grad = nonleaf.grad
    found["nonleaf_grad"] = [grad, [str(w.message).split(".")[0] for w in caught if w.category is UserWarning][:1]]
    found["view_inplace"] = _error(lambda: a[:2].mul_(2))
    leaf_view_base = torch.ones(4, device=device, requires_grad=True).clone()
    view = leaf_view_base[:2]
    view.mul_(2)
    found["view_ok"] = leaf_view_base.grad_fn.name()
    return found


# ---- loss-function errors: target dtypes, shapes, class range; the size-mismatch warning of mse_loss -----------
def loss_function_errors(torch, device):
    F = torch.nn.functional
    logits = torch.zeros(4, 3, device=device)
    found = {"ce_float_target_shape": _error(lambda: F.cross_entropy(logits, torch.zeros(4, device=device))),
             "ce_int32_target": _error(lambda: F.cross_entropy(logits, torch.zeros(4, dtype=torch.int32,
                                                                                   device=device))),
             "ce_batch": _error(lambda: F.cross_entropy(logits, torch.zeros(3, dtype=torch.long, device=device))),
             "ce_2d_target": _error(lambda: F.cross_entropy(logits, torch.zeros(4, 1, dtype=torch.long,
                                                                                device=device))),
             "ce_out_of_range_cpu": _error(lambda: F.cross_entropy(logits.cpu(), torch.tensor([0, 1, 2, 3]))),
             "nll_out_of_range_cpu": _error(lambda: F.nll_loss(logits.cpu(), torch.tensor([0, 1, 2, 5]))),
             "nll_1d_input": _error(lambda: F.nll_loss(torch.zeros(3, device=device),
                                                       torch.tensor(1, device=device))),
             "bce_long_target": _error(lambda: F.binary_cross_entropy(torch.full((4,), 0.5, device=device),
                                                                       torch.ones(4, dtype=torch.long, device=device))),
             "bce_logits_shape": _error(lambda: F.binary_cross_entropy_with_logits(torch.zeros(4, 1, device=device),
                                                                                    torch.zeros(4, device=device))),
             "bce_shape": _error(lambda: F.binary_cross_entropy(torch.full((4, 1), 0.5, device=device),
                                                                torch.zeros(4, device=device))),
             "bce_out_of_range": _error(lambda: F.binary_cross_entropy(torch.full((2,), 1.5).cpu(), torch.ones(2))),
             "mse_long": _error(lambda: F.mse_loss(torch.zeros(2, device=device),
                                                   torch.zeros(2, dtype=torch.long, device=device))),
             "l1_broadcast_bad": _error(lambda: F.l1_loss(torch.zeros(2, 3, device=device),
                                                          torch.zeros(4, 3, device=device))),
             "kl_shape": _error(lambda: F.kl_div(torch.zeros(2, 3, device=device), torch.zeros(3, 2, device=device),
                                                 reduction="batchmean")),
             "reduction": _error(lambda: F.mse_loss(torch.zeros(2), torch.zeros(2), reduction="avg"))}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss = F.mse_loss(torch.zeros(4, 1, device=device), torch.ones(4, device=device))
    found["mse_broadcast_warning"] = [loss.item(), [str(w.message) for w in caught]]
    found["ce_probabilities"] = round(F.cross_entropy(logits, torch.full((4, 3), 1 / 3, device=device)).item(), 6)
    found["ce_smoothing"] = round(F.cross_entropy(logits, torch.tensor([0, 1, 2, 0], device=device),
                                                  label_smoothing=0.1).item(), 6)
    found["ce_ignore_all"] = str(F.cross_entropy(logits, torch.full((4,), -100, device=device)).item())
    found["bce_double_target"] = _error(lambda: F.binary_cross_entropy(torch.full((2,), 0.5, device=device),
                                                                        torch.ones(2, dtype=torch.float64,
                                                                                   device=device)))
    found["crossentropy_module_weight"] = _error(lambda: torch.nn.CrossEntropyLoss(weight=torch.ones(2))(
        logits.cpu(), torch.tensor([0, 1, 2, 0])))
    return found


# ---- module, .data and autograd.grad mistakes: a 1-D input of the wrong width, an adaptive pool on a flat input --
def module_and_grad_mistakes(torch, device):
    nn = torch.nn
    F = torch.nn.functional
    found = {"linear_1d": _error(lambda: nn.Linear(5, 2).to(device)(torch.ones(4, device=device))),
             "linear_1d_no_bias": _error(lambda: nn.Linear(5, 2, bias=False).to(device)(torch.ones(4, device=device))),
             "linear_1d_bias_width": _error(lambda: F.linear(torch.ones(5, device=device),
                                                             torch.ones(2, 5, device=device),
                                                             torch.ones(3, device=device)))}
    lin = nn.Linear(3, 2).to(device)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]))
        lin.bias.copy_(torch.tensor([0.1, -0.2]))
    single = lin(torch.tensor([1.0, 2.0, 3.0], device=device))
    found["linear_1d_ok"] = [list(single.shape), single.tolist(),
                             torch.equal(single, lin(torch.tensor([[1.0, 2.0, 3.0]], device=device))[0])]
    flat = torch.ones(6, device=device)
    found["adaptive"] = [_error(lambda: nn.AdaptiveAvgPool2d((2, 2))(flat)),
                         _error(lambda: F.adaptive_avg_pool2d(flat.view(2, 3), (1, 1))),
                         _error(lambda: F.adaptive_avg_pool2d(flat, 1)),
                         _error(lambda: F.adaptive_max_pool2d(flat.view(2, 3), (None, 2))),
                         _error(lambda: nn.AdaptiveAvgPool3d((1, 1, 1))(flat.view(1, 2, 3))),
                         list(F.adaptive_avg_pool2d(flat.view(1, 2, 3), (None, 1)).shape)]
    w = torch.ones(2, device=device, requires_grad=True)
    found["grad_of_constant"] = [_error(lambda: torch.autograd.grad(torch.ones(1, device=device), torch.ones(1))),
                                 _error(lambda: torch.autograd.grad([w.sum(), torch.ones(1, device=device).sum()], w)),
                                 _error(lambda: torch.autograd.grad(w.detach().sum(), w, allow_unused=True))]
    p = torch.ones(2, device=device, requires_grad=True)
    found["data_assignment"] = [_error(lambda: setattr(p, "data", [1.0, 2.0])),
                                _error(lambda: setattr(p, "data", None)),
                                _error(lambda: setattr(p, "data", torch.ones(2, dtype=torch.int64, device=device)))]
    p.data = torch.full((3,), 2.0, device=device)  # another shape is allowed: the old "resize a parameter" trick
    found["data_swapped"] = [p.tolist(), p.requires_grad, p.is_leaf, str(p.dtype)]
    plain = torch.ones(2, device=device)
    plain.data = torch.arange(3, device=device)
    found["data_plain"] = [plain.tolist(), str(plain.dtype)]
    return found


# ---- errors the core raises differently: a later dimension out of range, index_add_ out of range, no_grad views -
def errors_raised_in_the_core(torch, device):
    x = torch.arange(6, device=device).view(2, 3)
    found = {"later_dim": [_error(lambda: x[0, 7]), _error(lambda: x[1, -4])],
             "index_add_oob": _error(lambda: torch.zeros(3).index_add_(0, torch.tensor([4]), torch.ones(1)))}
    base = torch.ones(4, device=device, requires_grad=True).clone()
    with torch.no_grad():
        view = base[2:]
    found["view_made_in_no_grad"] = _error(lambda: view.mul_(2))
    return found


PROGRAMS = [shape_errors, index_errors, autograd_errors, loss_function_errors, module_and_grad_mistakes,
            errors_raised_in_the_core]
NEEDS_CPP = {}
