"""Sweep 19 programs, PyTorch-1.x-era code that still runs today: Variable and `.data` training loops, the legacy
typed constructors (torch.FloatTensor(3, 4).uniform_(), torch.LongTensor([...])), `tensor.type(...)` casts by name
and by class, resize_/new_tensor/new_* and storage-level calls, grad-mode switches and autograd.grad's old options,
and the old loss arguments (size_average/reduce), deprecated functional aliases and removed functions.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep19.py)."""
import numpy as np

from sweep15_common import cases, plain


# ---- Variable-era training: Variable(x, requires_grad=True), .data updates, loss.data[0] ------------------------------
def variable_training(torch, device):
    from_autograd = torch.autograd.Variable
    rng = np.random.default_rng(1900)
    x = from_autograd(torch.tensor(rng.standard_normal((16, 3)), dtype=torch.float32, device=device))
    w_true = torch.tensor([[1.5], [-2.0], [0.5]], device=device)
    y = from_autograd(x.data.mm(w_true) + 0.3, requires_grad=False)
    w = from_autograd(torch.zeros(3, 1, device=device), requires_grad=True)
    b = from_autograd(torch.zeros(1, device=device), requires_grad=True)
    losses = []
    for _ in range(20):
        y_pred = x.mm(w).add(b.expand(16, 1))
        loss = (y_pred - y).pow(2).sum() / 16
        losses.append(loss.data.item())
        loss.backward()
        w.data -= 0.1 * w.grad.data
        b.data.sub_(0.1 * b.grad.data)
        w.grad.data.zero_()
        b.grad.data.zero_()
    out = cases(torch, {
        "is_tensor": lambda: [isinstance(w, torch.Tensor), type(x).__name__, w.is_leaf, x.requires_grad],
        "data_is_detached": lambda: [w.data.requires_grad, w.data.grad_fn is None, w.data.is_leaf],
        "loss_data_index": lambda: loss.data[0],
        "loss_index": lambda: loss[0],
        "variable_of_variable": lambda: from_autograd(w).requires_grad,
        "variable_requires_int": lambda: from_autograd(torch.ones(2, dtype=torch.long), requires_grad=True),
        "volatile": lambda: from_autograd(torch.ones(2), volatile=True).requires_grad,
        "volatile_attr": lambda: [w.volatile, x.volatile],
        "set_volatile": lambda: _set_volatile(torch),
        "variable_empty": lambda: [from_autograd().dtype, list(from_autograd(None).shape)],
        "variable_of_list": lambda: from_autograd([1.0, 2.0]),
        "requires_grad_none": lambda: from_autograd(torch.ones(2), requires_grad=None),
        "requires_grad_float": lambda: from_autograd(torch.ones(2), requires_grad=0.5),
        "requires_grad_int": lambda: from_autograd(torch.ones(2), requires_grad=2).requires_grad,
        "requires_grad_big": lambda: from_autograd(torch.ones(2), requires_grad=256),
        "requires_grad_negative": lambda: from_autograd(torch.ones(2), requires_grad=-1),
        "grad_fn_positional": lambda: from_autograd(torch.ones(2), True, False, "fn"),
        "data_shares": lambda: [w.data.data_ptr() == w.data_ptr(), plain(torch, w.data.view(-1))],
        "grad_of_data": lambda: w.data.grad,
        "set_data": lambda: _set_data(torch, device),
    })
    out["losses"] = losses[::4]
    out["w"] = plain(torch, w.detach().view(-1))
    return out


def _set_volatile(torch):
    t = torch.ones(2)
    t.volatile = True
    return [t.volatile, t.requires_grad]


def _set_data(torch, device):
    p = torch.nn.Parameter(torch.ones(2, 3, device=device))
    p.data = torch.arange(4.0, device=device)  # .data assignment may change the shape
    q = torch.ones(2, device=device, requires_grad=True)
    errors = []
    try:
        q.data = torch.ones(2, dtype=torch.long, device=device)
    except Exception as exc:
        errors.append([type(exc).__name__, str(exc).split("\n")[0]])
    return [list(p.shape), p.requires_grad, str(q.dtype), errors]


# ---- the typed constructors and type() by name or class ----------------------------------------------------------------
def legacy_constructors(torch, device):
    cuda = device.startswith("cuda")
    T = torch.cuda if cuda else torch  # how 1.x code picked its tensor types
    return cases(torch, {
        "float_sizes": lambda: [str(T.FloatTensor(3, 4).uniform_().dtype), list(T.FloatTensor(3, 4).shape)],
        "float_uniform_range": lambda: bool(((lambda t: (t >= -1).all() & (t < 1).all())(
            T.FloatTensor(5, 5).uniform_(-1, 1))).item()),
        "float_list": lambda: T.FloatTensor([1, 2.5, 3]),
        "long_list": lambda: T.LongTensor([[1, 2], [3, 4]]),
        "byte_list": lambda: T.ByteTensor([0, 1, 255]),
        "bool_list": lambda: T.BoolTensor([True, False]),
        "double_size": lambda: T.DoubleTensor(torch.Size([2, 3])).zero_(),
        "int_empty": lambda: T.IntTensor().shape,
        "tensor_ctor": lambda: torch.Tensor([[1, 2], [3, 4]]),
        "tensor_ctor_size": lambda: torch.Tensor(2, 3).fill_(7),
        "tensor_ctor_scalar": lambda: torch.Tensor(3).shape,
        "tensor_from_numpy": lambda: torch.Tensor(np.array([1.5, 2.5])),
        "float_from_numpy_int": lambda: torch.FloatTensor(np.arange(3)),
        "long_from_float_list": lambda: torch.LongTensor([1.7, -2.2]),
        "bad_arg": lambda: torch.FloatTensor("abc"),
        "device_kwarg": lambda: torch.FloatTensor(2, device="cpu").shape,
        "type_name": lambda: [torch.ones(2).type(), torch.ones(2, dtype=torch.long).type(),
                              torch.ones(2, dtype=torch.bool).type(), torch.ones(2, dtype=torch.float16).type()],
        "type_by_string": lambda: torch.arange(3).type("torch.DoubleTensor"),
        "type_by_class": lambda: torch.arange(3).type(torch.FloatTensor),
        "type_by_dtype": lambda: torch.arange(3).type(torch.int32),
        "type_bad": lambda: torch.arange(3).type("torch.NoSuchTensor"),
        "isinstance": lambda: [isinstance(torch.ones(2), torch.FloatTensor), isinstance(torch.ones(2), torch.LongTensor),
                               isinstance(torch.ones(2, dtype=torch.long), torch.LongTensor)],
        "device_type": lambda: [torch.ones(2, device=device).type(torch.FloatTensor).device.type,
                                torch.ones(2, device=device).type(torch.DoubleTensor).type()],
        "on_device": lambda: [torch.ones(2, device=device).type(T.DoubleTensor).is_cuda == cuda,
                              torch.ones(2, device=device).type(T.DoubleTensor).dtype],
        "cast_methods": lambda: [str(torch.tensor([1.7, -1.2], device=device).long().dtype),
                                 torch.tensor([1.7, -1.2], device=device).int().tolist(),
                                 torch.tensor([1.7, 0.0], device=device).byte().tolist(),
                                 torch.tensor([3, 0], device=device).bool().tolist(),
                                 torch.tensor([1.7], device=device).half().double().tolist(),
                                 str(torch.tensor([1], device=device).char().dtype),
                                 str(torch.tensor([1], device=device).short().dtype),
                                 str(torch.tensor([1.0], device=device).bfloat16().dtype)],
        "is_cuda": lambda: [torch.ones(1, device=device).is_cuda == cuda, torch.ones(1).is_cuda],
        "tensor_type_attr": lambda: [torch.FloatTensor.dtype, torch.LongTensor.dtype, torch.FloatTensor.is_cuda,
                                     T.FloatTensor.is_cuda == cuda, str(T.LongTensor.layout), T.IntTensor.is_sparse],
        # how the legacy constructors read their arguments: sizes, data, keywords
        "np_int_size": lambda: list(torch.Tensor(np.int64(3)).shape),
        "np_int_sizes": lambda: list(T.FloatTensor(np.int64(2), np.int32(3)).shape),
        "np_0d_array_size": lambda: list(torch.Tensor(np.array(2)).shape),
        "size_kwarg": lambda: list(T.DoubleTensor(size=(2, 3)).shape),
        "size_kwarg_int": lambda: list(torch.Tensor(size=[4]).shape),
        "data_kwarg": lambda: T.LongTensor(data=[1, 2]),
        "range_data": lambda: torch.Tensor(range(3)),
        "tuple_data": lambda: torch.Tensor((1, 2)),
        "size_object": lambda: list(torch.Tensor(torch.Size([2])).shape),
        "empty_list": lambda: list(torch.Tensor([]).shape),
        "zero_d_tensor": lambda: torch.Tensor(torch.tensor(3.0)),
        "float_arg": lambda: torch.Tensor(2.5),
        "np_float_arg": lambda: T.FloatTensor(np.float64(2.0)),
        "bool_arg": lambda: torch.Tensor(True),
        "dict_arg": lambda: torch.Tensor({1: 2}),
        "set_arg": lambda: torch.LongTensor({1, 2}),
        "float_in_sizes": lambda: torch.Tensor(2, 3.0),
        "list_in_sizes": lambda: T.FloatTensor(2, [1]),
        "negative_size": lambda: torch.Tensor(-1),
    })


# ---- resize_, new_tensor/new_*, storage-level calls --------------------------------------------------------------------
def resize_and_new(torch, device):
    base = torch.arange(6.0, device=device)
    return cases(torch, {
        "resize_shrink": lambda: base.clone().resize_(2, 2),
        "resize_grow_shape": lambda: list(base.clone().resize_(3, 4).shape),
        "resize_keeps_prefix": lambda: base.clone().resize_(3, 4).view(-1)[:6],
        "resize_as": lambda: base.clone().resize_as_(torch.zeros(3, 2)),
        "resize_view_error": lambda: [list(base.clone().view(2, 3).t().resize_(7).shape), base.view(2, 3).t().resize_(6)],
        "resize_requires_grad": lambda: torch.ones(3, requires_grad=True).resize_(2),
        "resize_size_arg": lambda: list(base.clone().resize_(torch.Size([1, 6])).shape),
        "new_tensor": lambda: base.new_tensor([[1, 2], [3, 4]]),
        "new_tensor_dtype": lambda: base.new_tensor([1, 2], dtype=torch.int64),
        "new_tensor_of_tensor": lambda: base.new_tensor(torch.tensor([5, 6])),
        "new_zeros": lambda: base.new_zeros(2, 3),
        "new_zeros_tuple": lambda: base.new_zeros((2,)),
        "new_ones_dtype": lambda: base.new_ones(2, dtype=torch.int16),
        "new_full": lambda: base.new_full((2, 2), 3),
        "new_empty": lambda: [list(base.new_empty(4, 1).shape), str(base.new_empty(2).dtype)],
        "new_requires_grad": lambda: base.new_zeros(2, requires_grad=True).requires_grad,
        "new_on_device": lambda: base.new_ones(2).device == base.device,
        "legacy_new": lambda: [list(base.new(2, 3).shape), str(base.new(2).dtype)],
        "legacy_new_list": lambda: base.new([1, 2]),
        "storage": lambda: [base.storage().size(), base.untyped_storage().nbytes(), base[2:].storage_offset(),
                            base.view(2, 3)[1].untyped_storage().nbytes()],
        "set_": lambda: torch.zeros(0, device=device).set_(base.untyped_storage(), 2, (2, 2), (2, 1)),
        "set_to_tensor": lambda: torch.zeros(0, device=device).set_(base).is_set_to(base),
        "is_set_to": lambda: [base.view(6).is_set_to(base), base.view(2, 3).is_set_to(base)],
        "copy_broadcast": lambda: torch.zeros(2, 3, device=device).copy_(torch.tensor([1.0, 2.0, 3.0])),
        "fill_tensor": lambda: torch.zeros(2, device=device).fill_(torch.tensor(4.0)),
        "fill_bad": lambda: torch.zeros(2, device=device).fill_(torch.tensor([1.0, 2.0])),
        "zero_": lambda: base.clone().zero_(),
        "t_": lambda: base.clone().view(2, 3).t_().shape,
        "squeeze_": lambda: base.clone().view(1, 6, 1).squeeze_().shape,
        "unsqueeze_": lambda: base.clone().unsqueeze_(0).shape,
        "transpose_": lambda: base.clone().view(1, 2, 3).transpose_(0, 2).shape,
        "as_strided_": lambda: base.clone().as_strided_((2, 2), (1, 2)),
    })


# ---- set_grad_enabled, no_grad/enable_grad, autograd.grad's old options -------------------------------------------------
def grad_modes_and_grad(torch, device):
    x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    z = torch.tensor([4.0], device=device, requires_grad=True)
    out = {}
    torch.set_grad_enabled(False)
    try:
        out["off_fn"] = [(x * 2).requires_grad, torch.is_grad_enabled()]
    finally:
        torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        y = x * 2
        with torch.enable_grad():
            y2 = x * 3
    out["ctx"] = [y.requires_grad, y2.requires_grad, torch.is_grad_enabled()]

    @torch.no_grad()
    def infer(v):
        return v * 2

    @torch.enable_grad()
    def train(v):
        return v * 2

    with torch.no_grad():
        inside = train(x)
    out["decorators"] = [infer(x).requires_grad, inside.requires_grad]
    with torch.set_grad_enabled(True):
        with torch.set_grad_enabled(mode=False):
            out["mode_kw"] = (x * 1).requires_grad

    loss = (x ** 2).sum()
    out["grads"] = cases(torch, {
        "unused_error": lambda: torch.autograd.grad((x ** 2).sum(), [x, z]),
        "allow_unused": lambda: [plain(torch, g) if g is not None else None
                                 for g in torch.autograd.grad((x ** 2).sum(), [x, z], allow_unused=True)],
        "materialize": lambda: torch.autograd.grad((x ** 2).sum(), [x, z], allow_unused=True,
                                                   materialize_grads=True),
        "materialize_needs_unused": lambda: torch.autograd.grad((x ** 2).sum(), [x, z], allow_unused=False,
                                                                materialize_grads=True),
        "retain": lambda: [torch.autograd.grad(loss, x, retain_graph=True)[0],
                           torch.autograd.grad(loss, x)[0]],
        "freed": lambda: torch.autograd.grad(loss, x),
        "non_scalar": lambda: torch.autograd.grad(x * 2, x),
        "grad_outputs": lambda: torch.autograd.grad(x * 2, x, grad_outputs=torch.ones(3, device=device))[0],
        "backward_gradient": lambda: _backward_gradient(torch, device),
        "only_inputs": lambda: torch.autograd.grad((x * 3).sum(), x, only_inputs=True)[0],
        "no_grad_output": lambda: torch.autograd.grad(x.detach().sum(), x),
        "retain_grad": lambda: _retain_grad(torch, device),
    })
    return out


def _backward_gradient(torch, device):
    a = torch.tensor([1.0, -1.0], device=device, requires_grad=True)
    (a * a).backward(torch.tensor([0.5, 2.0], device=device))
    (a * 3).backward(gradient=torch.ones(2, device=device))
    return a.grad


def _retain_grad(torch, device):
    a = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
    h = a * 2
    h.retain_grad()
    seen = []
    h.register_hook(lambda g: seen.append(g.tolist()))
    (h ** 2).sum().backward()
    return [h.grad.tolist(), seen, a.grad.tolist(), h.retains_grad, a.retains_grad]


# ---- old loss arguments, deprecated aliases, removed functions -----------------------------------------------------------
def old_losses_and_aliases(torch, device):
    F = torch.nn.functional
    nn = torch.nn
    logits = torch.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 0.3], [2.0, 0.0, -2.0], [0.5, 0.5, 0.5]], device=device)
    target = torch.tensor([1, 2, 0, 1], device=device)
    pred = torch.tensor([0.5, 1.5, -1.0, 2.0], device=device)
    truth = torch.tensor([0.0, 1.0, -2.0, 2.5], device=device)
    return cases(torch, {
        "nll_size_average_false": lambda: F.nll_loss(F.log_softmax(logits, 1), target, size_average=False),
        "ce_reduce_false": lambda: F.cross_entropy(logits, target, reduce=False),
        "ce_both": lambda: F.cross_entropy(logits, target, size_average=True, reduce=True),
        "mse_module_reduce": lambda: nn.MSELoss(reduce=False)(pred, truth),
        "mse_module_size_average": lambda: nn.MSELoss(size_average=False)(pred, truth),
        "l1_old": lambda: F.l1_loss(pred, truth, size_average=False, reduce=True),
        "smooth_l1_old": lambda: nn.SmoothL1Loss(size_average=False)(pred, truth),
        "bce_old": lambda: F.binary_cross_entropy(torch.sigmoid(pred), (truth > 0).float(), size_average=False),
        "bce_logits_old": lambda: nn.BCEWithLogitsLoss(reduce=False)(pred, (truth > 0).float()),
        "kl_old": lambda: F.kl_div(F.log_softmax(logits, 1), F.softmax(logits.flip(0), 1), size_average=False),
        "kl_batchmean": lambda: F.kl_div(F.log_softmax(logits, 1), F.softmax(logits.flip(0), 1),
                                         reduction="batchmean"),
        "module_reduction_attr": lambda: [nn.MSELoss(size_average=False).reduction,
                                          nn.CrossEntropyLoss(reduce=False).reduction,
                                          nn.NLLLoss(size_average=True, reduce=True).reduction],
        "both_args": lambda: F.mse_loss(pred, truth, size_average=False, reduction="none"),
        "legacy_string": lambda: [F._Reduction.legacy_get_string(None, False),
                                  F._Reduction.legacy_get_string(False, True),
                                  F._Reduction.legacy_get_string(True, None)],
        "sigmoid_alias": lambda: F.sigmoid(pred),
        "tanh_alias": lambda: F.tanh(pred),
        "upsample": lambda: F.upsample(torch.arange(4.0, device=device).view(1, 1, 2, 2), scale_factor=2),
        "upsample_bilinear": lambda: F.upsample_bilinear(torch.arange(4.0, device=device).view(1, 1, 2, 2),
                                                         scale_factor=2),
        "upsample_nearest": lambda: F.upsample_nearest(torch.arange(4.0, device=device).view(1, 1, 2, 2), size=3),
        "norm_fro": lambda: torch.norm(logits, p="fro"),
        "norm_dim": lambda: torch.norm(logits, dim=1),
        "norm_nuc": lambda: torch.norm(logits[:3], p="nuc"),
        "chain_matmul": lambda: torch.chain_matmul(logits[:3], logits[:3].t(), logits[:3]),
        "symeig_gone": lambda: torch.symeig(logits[:3]),
        "solve_gone": lambda: torch.solve(logits[:3], logits[:3]),
        "lstsq_gone": lambda: torch.lstsq(logits[:3], logits[:3]),
        "matrix_rank_gone": lambda: torch.matrix_rank(logits),
        "eig_gone": lambda: torch.eig(logits[:3]),
        "clamp_min_only": lambda: torch.clamp(pred, min=0),
        "addmm_positional_beta": lambda: torch.addmm(logits[:3, :2], logits[:3], logits[:, :2][:3]),
        # the deprecated scalar-first overloads of the 0.x optimizers and RNN tutorials
        "addmm_beta_alpha": lambda: torch.addmm(0.5, logits[:3, :2], 2.0, logits[:3], logits[:, :2][:3]),
        "addmm_beta": lambda: torch.addmm(0.0, logits[:3, :2], logits[:3], logits[:, :2][:3]),
        "addmm_method": lambda: logits[:3, :2].addmm(0.5, 2.0, logits[:3], logits[:, :2][:3]),
        "addmm_inplace": lambda: logits[:3, :2].clone().addmm_(0.5, logits[:3], logits[:, :2][:3]),
        "addmv_old": lambda: torch.addmv(1.0, pred[:3], -1.0, logits[:3], logits[0]),
        "addr_old": lambda: pred[:2, None].expand(2, 3).clone().addr_(0.5, 2, pred[:2], truth[:3]),
        "baddbmm_old": lambda: torch.baddbmm(0.5, logits[None, :2, :2], 1.5, logits[None, :2], logits[None, :, :2][:, :3]),
        "addbmm_old": lambda: logits[:2, :2].addbmm(2.0, logits[None, :2], logits[None, :3, :2]),
        "addmm_wrong_order": lambda: torch.addmm(logits[:3, :2], 0.5, logits[:3], logits[:, :2][:3]),
        "addmm_method_wrong_order": lambda: logits[:3, :2].addmm(logits[:3], 0.5, logits[:, :2][:3]),
        "add_old": lambda: pred.clone().add_(-0.1, truth),
        "addcdiv_old": lambda: pred.clone().addcdiv_(-0.5, truth, truth.abs() + 1),
        "softmax_no_dim": lambda: F.softmax(logits),
        "log_softmax_no_dim": lambda: F.log_softmax(logits.view(-1)),
    })


# ---- the default dtype and the legacy types (set_default_tensor_type itself is left out: PyTorch warns about it
# once a process, so calling it here would take the warning from test_storage.py's test of it) --------------------------
def default_tensor_type(torch, device):
    out = {}
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        out["after_double"] = [str(torch.get_default_dtype()), str(torch.ones(2).dtype), torch.tensor([1.5]).type(),
                               str(torch.FloatTensor(2).dtype), str(torch.Tensor(2).dtype), torch.Tensor([1]).type(),
                               str(torch.arange(3.0).dtype), str(torch.tensor(1).dtype),
                               str(torch.tensor([1.0 + 2j]).dtype),
                               str((torch.ones(1, dtype=torch.float32) * 2.5).dtype),
                               isinstance(torch.Tensor(1), torch.DoubleTensor),
                               str(torch.nn.Linear(2, 2).weight.dtype), str(torch.linspace(0, 1, 3).dtype)]
        torch.set_default_dtype(torch.float16)
        out["half"] = [torch.Tensor(1).type(), str(torch.tensor([0.5]).dtype)]  # (no complex32 in tandem)
    finally:
        torch.set_default_dtype(before)
    out["errors"] = cases(torch, {
        "bad_dtype": lambda: torch.set_default_dtype(torch.int64),
        "complex_dtype": lambda: torch.set_default_dtype(torch.complex64),
        "bf16": lambda: [torch.set_default_dtype(torch.bfloat16), str(torch.tensor([1.0]).dtype),
                         torch.Tensor(1).type()],
    })
    torch.set_default_dtype(before)
    out["restored"] = str(torch.get_default_dtype())
    return out


PROGRAMS = [variable_training, legacy_constructors, resize_and_new, grad_modes_and_grad, old_losses_and_aliases,
            default_tensor_type]
NEEDS_CPP = {}
