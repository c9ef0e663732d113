"""Tensors of two devices in one call, where PyTorch allows it: 0-dim CPU tensors next to device tensors in every
kind of op (binary, in-place, comparison, where, lerp, clamp, fill_, masked_fill, index_fill, pow both ways, with
dtype promotion), CPU indices and masks into device tensors (getitem, setitem, index_put_ with accumulate), copy_
in both directions and between two GPUs (dtype changes, broadcasts, views, non-contiguous sources), torch.tensor/
as_tensor/new_tensor of device tensors with device=, Python numbers out of device tensors, a CPU 0-dim leaf's
gradient through a device computation, Module.to between devices with shared parameters, load_state_dict of a CPU
checkpoint into a device module (assign=False keeps the module's device, assign=True takes the checkpoint's), and
optimizer state dicts made on the CPU loaded for device parameters.

The oracle is PyTorch on the CPU, where these calls mix nothing; on tandem's GPU they mix devices. So each case is
one PyTorch allows on CUDA and computes the same values there, and results say where they live relative to their
inputs (`out.device == x.device`), never by name. The mixing PyTorch refuses (non-0-dim tensors of two devices,
indices on another GPU, values of index_put_ on another device) has no oracle here: tests/python/
test_hostile_inputs12.py checks it against PyTorch's CUDA messages."""
from . import R, T


def other(d):
    """The device to mix with: the second GPU when d is the first, the first for any other GPU; else d itself
    (the oracle's CPU run, tandem's own CPU and meta runs), so that run mixes nothing."""
    if d.startswith("cuda"):
        return "cuda:1" if d == "cuda:0" else "cuda:0"
    return d


def X(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


def s(L, value, dtype=None):
    """A 0-dim CPU tensor."""
    return T(L, value, "cpu", dtype)


def on_same(out, x):
    return out, out.device == x.device


def setitem(t, index, value):
    t[index] = value
    return t


def grad_of_cpu_leaf(L, d):
    a = L.tensor(2.0, requires_grad=True)
    x = X(L, d)
    (x * a).sum().backward()
    return a.grad, a.grad.device == a.device


def load_cpu_checkpoint(L, d, assign):
    src = L.nn.Linear(2, 3)
    with L.no_grad():
        src.weight.copy_(R(L, (3, 2), "cpu", "float32"))
        src.bias.copy_(R(L, (3,), "cpu", "float32", 0.5))
    m = L.nn.Linear(2, 3).to(d)
    m.load_state_dict(src.state_dict(), assign=assign)
    # assign=False copies into the module's tensors (they stay on d); assign=True takes the checkpoint's (CPU)
    return m.weight, m.bias, (m.weight.device.type == "cpu") if assign else (m.weight.device == L.device(d))


def module_to(L, d):
    lin = L.nn.Linear(2, 2)
    with L.no_grad():
        lin.weight.copy_(R(L, (2, 2), "cpu", "float32"))
        lin.bias.fill_(0.5)
    seq = L.nn.Sequential(lin, lin).to(d)
    y = seq(X(L, d, (1, 2)))
    return y, seq[0].weight is seq[1].weight, seq[0].weight.device == y.device


def module_round_trip(L, d):
    lin = L.nn.Linear(2, 2)
    w = lin.weight
    lin.to(d).to(other(d)).to("cpu")
    return lin.weight is w, lin.weight.device.type


def optimizer_state_from_cpu(L, d, cls, **kw):
    """A state dict made by an optimizer over CPU parameters, loaded into one over device parameters: PyTorch moves
    each state tensor to its parameter's device; then one step."""
    def make(device):
        p = L.nn.Parameter(R(L, (3,), device, "float32"))
        opt = getattr(L.optim, cls)([p], **kw)
        return p, opt

    p_cpu, opt_cpu = make("cpu")
    for _ in range(2):
        opt_cpu.zero_grad()
        (p_cpu * p_cpu).sum().backward()
        opt_cpu.step()
    p, opt = make(d)
    with L.no_grad():
        p.copy_(p_cpu)
    opt.load_state_dict(opt_cpu.state_dict())
    opt.zero_grad()
    (p * p).sum().backward()
    opt.step()
    state = opt.state[p]
    return p, sorted(state), all(v.device == p.device for k, v in state.items() if L.is_tensor(v) and v.dim() > 0)


def optimizer_after_module_moves(L, d):
    m = L.nn.Linear(2, 1)
    with L.no_grad():
        m.weight.copy_(R(L, (1, 2), "cpu", "float32"))
        m.bias.zero_()
    m.to(d)
    opt = L.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    for _ in range(2):
        opt.zero_grad()
        m(X(L, d, (4, 2))).pow(2).sum().backward()
        opt.step()
    return m.weight, opt.state[m.weight]["momentum_buffer"].device == m.weight.device


CASES = {
    # ---- 0-dim CPU tensors with device tensors
    "binary/add_0dim_cpu": lambda L, d: on_same(X(L, d) + s(L, 2.5), X(L, d)),
    "binary/radd_0dim_cpu_first": lambda L, d: on_same(s(L, 2.5) + X(L, d), X(L, d)),
    "binary/sub_0dim_cpu_alpha": lambda L, d: L.sub(X(L, d), s(L, 1.5), alpha=2),
    "binary/mul_0dim_int_cpu": lambda L, d: X(L, d) * s(L, 3),
    "binary/div_0dim_cpu_first": lambda L, d: s(L, 1.0) / (X(L, d).abs() + 1),
    "binary/floor_divide_0dim_cpu": lambda L, d: L.floor_divide(T(L, [7, -7], d), s(L, 2)),
    "binary/remainder_0dim_cpu": lambda L, d: T(L, [7, -7], d) % s(L, 3),
    "binary/pow_0dim_cpu_exponent": lambda L, d: X(L, d).abs() ** s(L, 0.5),
    "binary/pow_0dim_cpu_base": lambda L, d: on_same(s(L, 2.0) ** X(L, d), X(L, d)),
    "binary/atan2_0dim_cpu": lambda L, d: L.atan2(X(L, d), s(L, -1.0)),
    "binary/maximum_0dim_cpu": lambda L, d: L.maximum(X(L, d), s(L, 0.0)),
    "binary/fmod_0dim_cpu_int": lambda L, d: L.fmod(T(L, [7, -7], d), s(L, 3)),
    "binary/bitwise_and_0dim_cpu": lambda L, d: T(L, [6, 5], d) & s(L, 3),
    "binary/lshift_0dim_cpu": lambda L, d: T(L, [1, 2], d) << s(L, 3),
    "binary/eq_0dim_cpu": lambda L, d: on_same(T(L, [1.0, 2.0], d) == s(L, 2.0), X(L, d)),
    "binary/lt_0dim_cpu_first": lambda L, d: s(L, 0.0) < X(L, d),
    "binary/logical_and_0dim_cpu": lambda L, d: L.logical_and(X(L, d), s(L, True)),
    "promotion/0dim_cpu_double_with_float": lambda L, d: (X(L, d) + s(L, 1.0, "float64")).dtype,
    "promotion/0dim_cpu_float_with_int": lambda L, d: T(L, [1, 2], d) * s(L, 0.5),
    "promotion/0dim_cpu_int64_with_uint8": lambda L, d: T(L, [250, 3], d, "uint8") + s(L, 10),
    "promotion/0dim_cpu_complex_with_float": lambda L, d: X(L, d) * s(L, 1j),
    "promotion/0dim_cpu_bool_with_int": lambda L, d: T(L, [1, 2], d) + s(L, True),
    "inplace/add_0dim_cpu": lambda L, d: X(L, d).add_(s(L, 1.0)),
    "inplace/mul_0dim_cpu_int_into_float": lambda L, d: X(L, d).mul_(s(L, 2)),
    "inplace/pow_0dim_cpu": lambda L, d: X(L, d).abs().pow_(s(L, 2.0)),
    "inplace/clamp_0dim_cpu_bounds": lambda L, d: X(L, d).clamp_(s(L, -1.0), s(L, 1.0)),
    "inplace/lerp_0dim_cpu_weight": lambda L, d: X(L, d).lerp_(X(L, d) * 2, s(L, 0.25)),
    "inplace/copy_0dim_cpu_broadcast": lambda L, d: X(L, d).copy_(s(L, 7.0)),
    "inplace/fill_0dim_cpu": lambda L, d: X(L, d).fill_(s(L, 3.0)),
    "inplace/fill_0dim_cpu_int_into_float": lambda L, d: X(L, d).fill_(s(L, 3)),
    "where/0dim_cpu_other": lambda L, d: L.where(X(L, d) > 0, X(L, d), s(L, 0.0)),
    "where/0dim_cpu_both": lambda L, d: on_same(L.where(X(L, d) > 0, s(L, 1.0), s(L, -1.0)), X(L, d)),
    "where/0dim_cpu_cond": lambda L, d: L.where(s(L, True), X(L, d), X(L, d) * 2),
    "lerp/0dim_cpu_weight": lambda L, d: L.lerp(X(L, d), X(L, d) * 3, s(L, 0.5)),
    "clamp/0dim_cpu_min": lambda L, d: X(L, d).clamp(min=s(L, 0.0)),
    "masked_fill/0dim_cpu_value": lambda L, d: X(L, d).masked_fill(X(L, d) > 0, s(L, 9.0)),
    "index_fill/0dim_cpu_value": lambda L, d: X(L, d).index_fill(1, T(L, [0, 2], d), s(L, -4.0)),
    "addcmul/0dim_cpu_tensor1": lambda L, d: L.addcmul(X(L, d), s(L, 2.0), X(L, d)),
    "add/out_with_0dim_cpu": lambda L, d: L.add(X(L, d), s(L, 1.0), out=L.empty(2, 3, device=d)),
    # ---- CPU indices and masks into device tensors
    "getitem/cpu_index": lambda L, d: on_same(X(L, d)[T(L, [1, 0, 1])], X(L, d)),
    "getitem/cpu_mask": lambda L, d: X(L, d)[T(L, [True, False])],
    "getitem/cpu_mask_2d": lambda L, d: X(L, d)[X(L, "cpu") > 0],
    "getitem/cpu_index_pair": lambda L, d: X(L, d)[T(L, [0, 1]), T(L, [2, 0])],
    "getitem/cpu_0dim_index": lambda L, d: X(L, d)[T(L, 1)],
    "getitem/cpu_index_and_slice": lambda L, d: X(L, d, (2, 3, 4))[:, T(L, [2, 0]), 1:3],
    "getitem/cpu_int32_index": lambda L, d: X(L, d)[T(L, [1, 0], "cpu", "int32")],
    "setitem/cpu_index_number": lambda L, d: setitem(X(L, d), T(L, [1]), 5.0),
    "setitem/cpu_index_0dim_cpu_value": lambda L, d: setitem(X(L, d), T(L, [0]), s(L, -2.0)),
    "setitem/cpu_mask_number": lambda L, d: setitem(X(L, d), X(L, "cpu") > 0, 0.0),
    "setitem/cpu_index_device_values": lambda L, d: setitem(X(L, d), T(L, [1, 0]), X(L, d, (2, 3)) * 10),
    "setitem/cpu_index_list_value": lambda L, d: setitem(X(L, d, (4,)), T(L, [3, 0]), L.tensor([1.0, 2.0],
                                                                                                device=d)),
    "index_put_/cpu_indices": lambda L, d: X(L, d).index_put_((T(L, [0, 1]), T(L, [2, 2])), T(L, [5.0, 6.0], d)),
    "index_put_/cpu_indices_accumulate": lambda L, d: X(L, d).index_put_((T(L, [0, 0, 1]),),
                                                                         X(L, d, (3, 3)), accumulate=True),
    "index_put/cpu_indices_0dim_cpu_value": lambda L, d: X(L, d).index_put((T(L, [1]),), s(L, 3.0)),
    "masked_select/device_mask": lambda L, d: X(L, d).masked_select(X(L, d) > 0),
    # ---- copy_ across devices
    "copy_/cpu_into_device": lambda L, d: on_same(L.empty(2, 3, device=d).copy_(X(L, "cpu")), X(L, d)),
    "copy_/device_into_cpu": lambda L, d: L.empty(2, 3).copy_(X(L, d)),
    "copy_/other_gpu": lambda L, d: L.empty(2, 3, device=d).copy_(X(L, other(d))),
    "copy_/cpu_into_device_dtype": lambda L, d: L.empty(2, 3, device=d, dtype=L.float64).copy_(X(L, "cpu")),
    "copy_/device_into_cpu_int": lambda L, d: L.empty(2, 3, dtype=L.int32).copy_(X(L, d) * 10),
    "copy_/cpu_broadcast_into_device": lambda L, d: L.empty(2, 3, device=d).copy_(X(L, "cpu", (3,))),
    "copy_/cpu_transposed_into_device": lambda L, d: L.empty(3, 2, device=d).copy_(X(L, "cpu").t()),
    "copy_/cpu_into_device_view": lambda L, d: (lambda t: (t[:, 1].copy_(T(L, [8.0, 9.0])), t)[1])(X(L, d)),
    "copy_/device_into_cpu_view": lambda L, d: (lambda t: (t[1].copy_(X(L, d, (3,))), t)[1])(X(L, "cpu")),
    "copy_/bool_cpu_into_device_float": lambda L, d: L.empty(2, device=d).copy_(T(L, [True, False])),
    "copy_/non_blocking": lambda L, d: L.empty(2, 3, device=d).copy_(X(L, "cpu"), non_blocking=True).sum(),
    # ---- creation from device tensors
    "tensor/of_device_tensor_to_cpu": lambda L, d: L.tensor(X(L, d).detach(), device="cpu"),
    "tensor/of_device_tensor_keeps_device": lambda L, d: on_same(L.tensor(X(L, d).detach()), X(L, d)),
    "as_tensor/same_device_is_identity": lambda L, d: (lambda x: L.as_tensor(x, device=d) is x)(X(L, d)),
    "tensor/list_of_device_0dim": lambda L, d: L.tensor([X(L, d)[0, 0], X(L, d)[1, 2]]),
    "tensor/list_of_device_0dim_int": lambda L, d: L.tensor([T(L, 3, d), T(L, 4, d)]),
    "as_tensor/device_to_other": lambda L, d: L.as_tensor(X(L, d), device=other(d)),
    "as_tensor/device_to_cpu_dtype": lambda L, d: L.as_tensor(X(L, d), dtype=L.float64, device="cpu"),
    "new_tensor/cpu_data_on_device": lambda L, d: on_same(X(L, d).new_tensor(X(L, "cpu").detach()), X(L, d)),
    "zeros_like/device_to_cpu": lambda L, d: L.zeros_like(X(L, d), device="cpu"),
    "to/other_and_back": lambda L, d: X(L, d).to(other(d)).to(d) * 2,
    "to/other_with_dtype": lambda L, d: X(L, d).to(other(d), L.float64),
    "to/other_like_tensor": lambda L, d: X(L, "cpu").to(X(L, d, (1,), "float64")),
    "numbers/item": lambda L, d: X(L, d)[1, 1].item(),
    "numbers/int_of_0dim": lambda L, d: int(T(L, 7, d)),
    "numbers/bool_of_1elem": lambda L, d: bool(T(L, [0.5], d)),
    "numbers/tolist": lambda L, d: X(L, d, (2, 2), "float64").tolist(),
    "numbers/range_of_tensor": lambda L, d: list(range(T(L, 3, d))),
    "numbers/index_list_by_0dim": lambda L, d: [10, 20, 30][T(L, 1, d)],
    # ---- autograd across devices
    "autograd/cpu_0dim_leaf_grad": lambda L, d: grad_of_cpu_leaf(L, d),
    "autograd/device_leaf_with_cpu_scalar": lambda L, d: (lambda x: ((x * s(L, 3.0)).sum().backward(), x.grad)[1])(
        X(L, d).requires_grad_()),
    "autograd/to_cpu_backward": lambda L, d: (lambda x: ((x.to("cpu") ** 2).sum().backward(), x.grad,
                                                         x.grad.device == x.device)[1:])(X(L, d).requires_grad_()),
    "autograd/to_other_gpu_backward": lambda L, d: (lambda x: ((x.to(other(d)) * 2).sum().backward(), x.grad)[1])(
        X(L, d).requires_grad_()),
    "autograd/copy_into_device_grad": lambda L, d: (lambda src: (L.zeros(2, 3, device=d).copy_(src).sum().backward(),
                                                                 src.grad)[1])(X(L, "cpu").requires_grad_()),
    # ---- modules and optimizers
    "module/to_shared_params": lambda L, d: module_to(L, d),
    "module/round_trip_identity": lambda L, d: module_round_trip(L, d),
    "module/load_cpu_checkpoint": lambda L, d: load_cpu_checkpoint(L, d, False),
    "module/load_cpu_checkpoint_assign": lambda L, d: load_cpu_checkpoint(L, d, True),
    "module/buffers_follow": lambda L, d: (lambda m: (m.to(d), m.running_mean.device == m.weight.device,
                                                      m.num_batches_tracked.device == m.weight.device)[1:])(
        L.nn.BatchNorm1d(3)),
    "module/forward_after_to_other": lambda L, d: (lambda m: m.to(other(d))(X(L, other(d), (1, 3))).shape)(
        L.nn.Linear(3, 2)),
    "optim/sgd_state_from_cpu": lambda L, d: optimizer_state_from_cpu(L, d, "SGD", lr=0.1, momentum=0.9),
    "optim/adam_state_from_cpu": lambda L, d: optimizer_state_from_cpu(L, d, "Adam", lr=0.1),
    "optim/adamw_amsgrad_state_from_cpu": lambda L, d: optimizer_state_from_cpu(L, d, "AdamW", lr=0.1, amsgrad=True),
    "optim/rmsprop_state_from_cpu": lambda L, d: optimizer_state_from_cpu(L, d, "RMSprop", lr=0.01, momentum=0.5),
    "optim/adagrad_state_from_cpu": lambda L, d: optimizer_state_from_cpu(L, d, "Adagrad", lr=0.1),
    "optim/after_module_to": lambda L, d: optimizer_after_module_moves(L, d),
    "utils/clip_grad_norm_device": lambda L, d: (lambda p: (L.nn.utils.clip_grad_norm_([p], 1.0), p.grad))(
        _with_grad(L, d)),
    "utils/parameters_to_vector": lambda L, d: L.nn.utils.parameters_to_vector(L.nn.Linear(2, 2).to(d).parameters())
    .shape,
}


def _with_grad(L, d):
    p = L.nn.Parameter(X(L, d))
    p.grad = L.full_like(p, 3.0)
    return p


KNOWN = {}
