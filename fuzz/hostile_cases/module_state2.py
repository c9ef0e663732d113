"""nn.Module state beyond module_api.py and nn_modules.py: load_state_dict's whole error text (every line of the
missing / unexpected / size-mismatch report, not only the first), strict=False results with non-persistent buffers,
None parameters and buffers, 0-d vs 1-d and dtype conversions, assign=True (Parameter-ness, requires_grad,
buffers, shapes), register_buffer/register_parameter/add_module over existing names of the other kinds and over
methods, persistent=False buffers in state_dict and load_state_dict, get_submodule/get_parameter/get_buffer with odd
paths (leading or doubled dots, non-str), Module.to/half/double/float/type with integer buffers, integer dtypes and
odd arguments, requires_grad_ with integer parameters, nn.Parameter of integer, bool and complex tensors and of
non-tensors, and ModuleList/ModuleDict/ParameterList/ParameterDict/Sequential indexing, slicing, insertion and
deletion errors."""
import collections

from . import R


def nn(L):
    return L.nn


def lin(L, d="cpu", n_in=2, n_out=3):
    m = nn(L).Linear(n_in, n_out)
    with L.no_grad():
        m.weight.copy_(R(L, (n_out, n_in), "cpu", "float32"))
        m.bias.copy_(R(L, (n_out,), "cpu", "float32", scale=0.5))
    return m.to(d)


def net(L, d="cpu"):
    return nn(L).Sequential(lin(L, d, 2, 3), nn(L).ReLU(), nn(L).Sequential(lin(L, d, 3, 1)))


def full_message(fn):
    """The whole text of the error fn raises (names read as torch's), so every line of a multi-line report is
    compared, or the value when it does not raise."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: " + str(e).replace("tandem", "torch")


def sd(L, d="cpu", drop=(), **changes):
    state = {k: v.clone() for k, v in net(L, d).state_dict().items() if k not in drop}
    state.update(changes)
    return state


def load_result(L, m, state, **kw):
    r = m.load_state_dict(state, **kw)
    return sorted(r.missing_keys), sorted(r.unexpected_keys)


def with_buffer(L, d, name="buf", value=None, persistent=True):
    m = lin(L, d)
    m.register_buffer(name, L.ones(2, device=d) if value is None else value, persistent=persistent)
    return m


def assign_check(L, d, value, key="weight", **kw):
    m = lin(L, d)
    state = dict(m.state_dict())
    state[key] = value
    m.load_state_dict(state, assign=True, **kw)
    t = getattr(m, key)
    return (type(t).__name__.replace("tandem", "torch"), t.dtype, tuple(t.shape), t.requires_grad,
            sorted(k for k, _ in m.named_parameters()))


def param_kinds(m):
    return [(k, type(v).__name__.replace("tandem", "torch"), v.dtype, v.requires_grad)
            for k, v in m.named_parameters()]


def trained_sgd(L, d):
    """A Linear on d, an SGD with momentum after one step, and its state dict."""
    m = lin(L, d)
    opt = L.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    m(R(L, (1, 2), d, "float32")).sum().backward()
    opt.step()
    return m, opt.state_dict()


def do(*steps):
    return steps[-1]


CASES = {
    # ---- load_state_dict: the whole report
    "load/full_message_missing": lambda L, d: full_message(lambda: net(L, d).load_state_dict(
        sd(L, d, drop=("0.bias", "2.0.weight")))),
    "load/full_message_unexpected": lambda L, d: full_message(lambda: net(L, d).load_state_dict(
        sd(L, d, **{"extra": L.ones(1), "2.1.weight": L.ones(1)}))),
    "load/full_message_size_mismatch": lambda L, d: full_message(lambda: net(L, d).load_state_dict(
        sd(L, d, **{"0.weight": L.ones(2, 3), "0.bias": L.ones(3, 1)}))),
    "load/full_message_all_three": lambda L, d: full_message(lambda: net(L, d).load_state_dict(
        sd(L, d, drop=("0.bias",), **{"zz": L.ones(1), "2.0.bias": L.ones(4)}))),
    "load/full_message_not_strict_mismatch": lambda L, d: full_message(lambda: net(L, d).load_state_dict(
        sd(L, d, drop=("0.bias",), **{"2.0.bias": L.ones(4)}), strict=False)),
    "load/full_message_0d_into_1d": lambda L, d: full_message(lambda: net(L, d).load_state_dict(
        sd(L, d, **{"2.0.bias": L.tensor(1.0)}))),
    "load/full_message_value_not_tensor": lambda L, d: full_message(lambda: net(L, d).load_state_dict(
        sd(L, d, **{"0.bias": [1.0, 2.0, 3.0]}))),
    "load/full_message_linear_top": lambda L, d: full_message(lambda: lin(L, d).load_state_dict({})),
    "load/int_into_float_param": lambda L, d: do(
        m := lin(L, d), m.load_state_dict(dict(m.state_dict(), bias=L.tensor([1, 2, 3]))), (m.bias.dtype, m.bias)),
    "load/complex_into_float_param": lambda L, d: do(
        m := lin(L, d), m.load_state_dict(dict(m.state_dict(), bias=L.tensor([1j, 2, 3]))), m.bias),
    "load/float_into_num_batches_tracked": lambda L, d: do(
        m := nn(L).BatchNorm1d(2).to(d), m.load_state_dict(dict(m.state_dict(), num_batches_tracked=L.tensor(2.7))),
        m.num_batches_tracked),
    "load/bn_without_num_batches_tracked": lambda L, d: do(
        m := nn(L).BatchNorm1d(2).to(d),
        load_result(L, m, {k: v for k, v in m.state_dict().items() if k != "num_batches_tracked"})),
    "load/non_persistent_buffer_in_state": lambda L, d: load_result(
        L, with_buffer(L, d, persistent=False), dict(lin(L, d).state_dict(), buf=L.ones(2)), strict=False),
    "load/non_persistent_buffer_strict": lambda L, d: full_message(lambda: with_buffer(L, d, persistent=False)
                                                                   .load_state_dict(dict(lin(L, d).state_dict(),
                                                                                         buf=L.ones(2)))),
    "load/non_persistent_not_missing": lambda L, d: load_result(L, with_buffer(L, d, persistent=False),
                                                                lin(L, d).state_dict()),
    "load/none_buffer_key_unexpected": lambda L, d: full_message(lambda: load_result(
        L, do(m := lin(L, d), m.register_buffer("nb", None), m), dict(lin(L, d).state_dict(), nb=L.ones(1)))),
    "load/none_param_missing_ok": lambda L, d: load_result(L, nn(L).Linear(2, 3, bias=False).to(d),
                                                           {"weight": L.ones(3, 2)}),
    "load/bias_for_biasless": lambda L, d: full_message(lambda: nn(L).Linear(2, 3, bias=False).load_state_dict(
        {"weight": L.ones(3, 2), "bias": L.ones(3)})),
    "load/ordered_dict_metadata": lambda L, d: do(
        m := lin(L, d), s := m.state_dict(), load_result(L, m, s) + (hasattr(s, "_metadata"),)),
    "load/key_int": lambda L, d: full_message(lambda: lin(L, d).load_state_dict(
        dict(lin(L, d).state_dict(), **{}) | {1: L.ones(1)})),
    "load/strict_none": lambda L, d: full_message(lambda: load_result(L, lin(L, d), {"weight": L.ones(3, 2)},
                                                                      strict=None)),
    "load/shared_param_twice": lambda L, d: do(
        a := lin(L, d), m := nn(L).Sequential(a, a), sorted(m.state_dict()), load_result(L, m, m.state_dict())),
    "load/parameter_values_copied_not_aliased": lambda L, d: do(
        m := lin(L, d), s := {k: v.clone() for k, v in m.state_dict().items()}, m.load_state_dict(s),
        s["weight"].add_(1), (m.weight - s["weight"]).abs().sum()),
    "load/requires_grad_kept": lambda L, d: do(
        m := lin(L, d), m.load_state_dict({k: v.detach() for k, v in m.state_dict().items()}),
        param_kinds(m)),
    "load/missing_keys_hook_clears": lambda L, d: do(
        m := lin(L, d),
        m.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.clear()),
        load_result(L, m, {"weight": L.ones(3, 2)})),
    # ---- assign=True
    "assign/plain_tensor_becomes_param": lambda L, d: assign_check(L, d, L.ones(3, 2, device=d)),
    "assign/double_tensor": lambda L, d: assign_check(L, d, L.ones(3, 2, dtype=L.float64, device=d)),
    "assign/shape_mismatch": lambda L, d: full_message(lambda: assign_check(L, d, L.ones(5, 5, device=d))),
    "assign/int_tensor_into_param": lambda L, d: full_message(lambda: assign_check(L, d, L.ones(3, 2, dtype=L.int64,
                                                                                                device=d))),
    "assign/parameter_no_grad": lambda L, d: assign_check(L, d, nn(L).Parameter(L.ones(3, 2, device=d),
                                                                                requires_grad=False)),
    "assign/not_strict_missing": lambda L, d: do(
        m := lin(L, d), r := m.load_state_dict({"weight": L.zeros(3, 2, device=d)}, assign=True, strict=False),
        (sorted(r.missing_keys), type(m.weight).__name__.replace("tandem", "torch"), m.weight.sum().item())),
    "assign/buffer": lambda L, d: do(
        m := nn(L).BatchNorm1d(2).to(d),
        m.load_state_dict(dict(m.state_dict(), running_mean=L.tensor([5.0, 6.0], dtype=L.float64)), assign=True),
        (m.running_mean.dtype, type(m.running_mean).__name__.replace("tandem", "torch"), m.running_mean)),
    "assign/aliases_source": lambda L, d: do(
        m := lin(L, d), w := L.zeros(3, 2, device=d), m.load_state_dict(dict(m.state_dict(), weight=w), assign=True),
        w.add_(1), m.weight.sum().item()),
    "assign/non_bool": lambda L, d: full_message(lambda: assign_check(L, d, L.ones(3, 2), assign_extra=1)),
    # ---- registering over existing names
    "register_buffer/over_parameter": lambda L, d: lin(L, d).register_buffer("weight", L.ones(1)),
    "register_buffer/over_submodule": lambda L, d: net(L, d).register_buffer("0", L.ones(1)),
    "register_buffer/over_method": lambda L, d: lin(L, d).register_buffer("forward", L.ones(1)),
    "register_buffer/over_plain_attr": lambda L, d: do(m := lin(L, d), setattr(m, "x", 3),
                                                       m.register_buffer("x", L.ones(1))),
    "register_buffer/twice_replaces": lambda L, d: do(m := lin(L, d), m.register_buffer("b", L.ones(1)),
                                                      m.register_buffer("b", L.zeros(2)), m.b),
    "register_buffer/persistent_then_not": lambda L, d: do(
        m := lin(L, d), m.register_buffer("b", L.ones(1)), m.register_buffer("b", L.ones(1), persistent=False),
        sorted(m.state_dict())),
    "register_buffer/name_newline": lambda L, d: do(m := lin(L, d), m.register_buffer("a\nb", L.ones(1)),
                                                    sorted(m.state_dict())),
    "register_buffer/name_bytes": lambda L, d: lin(L, d).register_buffer(b"b", L.ones(1)),
    "register_buffer/int_tensor_requires_grad_": lambda L, d: do(
        m := lin(L, d), m.register_buffer("b", L.ones(2, dtype=L.int64)), m.requires_grad_(True),
        (m.b.requires_grad, m.b.dtype)),
    "register_parameter/over_buffer": lambda L, d: do(m := with_buffer(L, d),
                                                      m.register_parameter("buf", nn(L).Parameter(L.ones(1)))),
    "register_parameter/over_submodule": lambda L, d: net(L, d).register_parameter("0", nn(L).Parameter(L.ones(1))),
    "register_parameter/over_method": lambda L, d: lin(L, d).register_parameter("forward",
                                                                                  nn(L).Parameter(L.ones(1))),
    "register_parameter/none_then_keys": lambda L, d: do(m := lin(L, d), m.register_parameter("extra", None),
                                                         sorted(m.state_dict()), [k for k, _ in m.named_parameters()]),
    "register_parameter/before_init": lambda L, d: type(nn(L).Module).__new__(nn(L).Module).register_parameter(
        "p", None),
    "register_buffer/before_init": lambda L, d: type(nn(L).Module).__new__(nn(L).Module).register_buffer(
        "b", None),
    "add_module/over_parameter": lambda L, d: lin(L, d).add_module("bias", nn(L).ReLU()),
    "add_module/over_buffer": lambda L, d: with_buffer(L, d).add_module("buf", nn(L).ReLU()),
    "add_module/replace_module": lambda L, d: do(m := net(L, d), m.add_module("1", nn(L).Tanh()),
                                                 type(m[1]).__name__),
    "add_module/name_int_str": lambda L, d: do(m := nn(L).Module(), m.add_module("3", nn(L).ReLU()),
                                               [k for k, _ in m.named_children()]),
    "setattr/parameter_over_buffer": lambda L, d: do(m := with_buffer(L, d),
                                                     setattr(m, "buf", nn(L).Parameter(L.ones(1)))),
    "setattr/tensor_over_parameter": lambda L, d: do(m := lin(L, d), setattr(m, "bias", L.ones(3))),
    "setattr/module_over_buffer": lambda L, d: do(m := with_buffer(L, d), setattr(m, "buf", nn(L).ReLU()),
                                                  sorted(m.state_dict())),
    "setattr/none_over_buffer": lambda L, d: do(m := with_buffer(L, d), setattr(m, "buf", None),
                                                sorted(m.state_dict())),
    "setattr/none_over_submodule": lambda L, d: do(m := net(L, d), setattr(m, "0", None),
                                                   sorted(m.state_dict())),
    # ---- paths
    "get_submodule/leading_dot": lambda L, d: net(L, d).get_submodule(".2"),
    "get_submodule/double_dot": lambda L, d: net(L, d).get_submodule("2..0"),
    "get_submodule/non_str": lambda L, d: net(L, d).get_submodule(2),
    "get_submodule/through_parameter": lambda L, d: net(L, d).get_submodule("0.weight.x"),
    "get_parameter/empty": lambda L, d: net(L, d).get_parameter(""),
    "get_parameter/module_path": lambda L, d: net(L, d).get_parameter("2.0"),
    "get_parameter/none_param": lambda L, d: nn(L).Linear(2, 3, bias=False).get_parameter("bias"),
    "get_parameter/plain_attr": lambda L, d: do(m := lin(L, d), setattr(m, "z", 3), m.get_parameter("z")),
    "get_buffer/non_persistent": lambda L, d: tuple(with_buffer(L, d, persistent=False).get_buffer("buf").shape),
    "get_buffer/empty": lambda L, d: lin(L, d).get_buffer(""),
    "get_buffer/plain_tensor_attr": lambda L, d: do(m := lin(L, d), object.__setattr__(m, "t", L.ones(1)),
                                                    m.get_buffer("t")),
    "get_extra_state/missing": lambda L, d: lin(L, d).get_extra_state(),
    # ---- to / half / double / float / type
    "to/int_dtype": lambda L, d: lin(L, d).to(L.int64),
    "to/complex_dtype": lambda L, d: param_kinds(lin(L, d).to(L.complex64)),
    "to/int_buffer_kept": lambda L, d: do(m := with_buffer(L, d, value=L.ones(2, dtype=L.int64, device=d)),
                                          m.double(), (m.buf.dtype, m.weight.dtype)),
    "half/int_buffer_kept": lambda L, d: do(m := nn(L).BatchNorm1d(2).to(d), m.half(),
                                            (m.num_batches_tracked.dtype, m.running_mean.dtype)),
    "float/complex_params_kept": lambda L, d: do(m := lin(L, d).to(L.complex64), m.float(), m.weight.dtype),
    "double/argument": lambda L, d: lin(L, d).double(True),
    "to/dtype_string": lambda L, d: lin(L, d).to(dtype="float64"),
    "to/device_int": lambda L, d: lin(L, d).to(-1),
    "to/memory_format_linear": lambda L, d: lin(L, d).to(memory_format=L.channels_last).weight.is_contiguous(),
    "to/memory_format_conv": lambda L, d: nn(L).Conv2d(2, 2, 1).to(d).to(memory_format=L.channels_last).weight
    .is_contiguous(memory_format=L.channels_last),
    "to/shared_params_stay_shared": lambda L, d: do(
        a := lin(L, "cpu"), m := nn(L).Sequential(a, a).to(d).double(), m[0].weight is m[1].weight),
    "to/param_identity_kept": lambda L, d: do(m := lin(L, "cpu"), w := m.weight, m.double(), m.weight is w),
    "type/str": lambda L, d: param_kinds(lin(L, d).type(L.DoubleTensor)),
    "type/int_dtype": lambda L, d: param_kinds(lin(L, d).type(L.int32)),
    "bfloat16/then_grad": lambda L, d: param_kinds(lin(L, d).bfloat16()),
    # ---- requires_grad_ and nn.Parameter dtypes
    "requires_grad_/int_param": lambda L, d: do(m := nn(L).Module(),
                                                m.register_parameter("p", nn(L).Parameter(L.ones(2, dtype=L.int64),
                                                                                          requires_grad=False)),
                                                m.requires_grad_(True)),
    "requires_grad_/int_param_false": lambda L, d: do(m := nn(L).Module(),
                                                      m.register_parameter(
                                                          "p", nn(L).Parameter(L.ones(2, dtype=L.int64),
                                                                               requires_grad=False)),
                                                      param_kinds(m.requires_grad_(False))),
    "Parameter/int": lambda L, d: nn(L).Parameter(L.ones(2, dtype=L.int64, device=d)),
    "Parameter/bool": lambda L, d: nn(L).Parameter(L.ones(2, dtype=L.bool, device=d)),
    "Parameter/int_no_grad": lambda L, d: do(p := nn(L).Parameter(L.ones(2, dtype=L.int32, device=d),
                                                                  requires_grad=False),
                                             (p.dtype, p.requires_grad, type(p).__name__.replace("tandem", "torch"))),
    "Parameter/complex": lambda L, d: do(p := nn(L).Parameter(L.ones(2, dtype=L.complex64, device=d)),
                                         (p.dtype, p.requires_grad)),
    "Parameter/none": lambda L, d: do(p := nn(L).Parameter(None), (tuple(p.shape), p.dtype, p.requires_grad)),
    "Parameter/list": lambda L, d: nn(L).Parameter([1.0, 2.0]),
    "Parameter/number": lambda L, d: nn(L).Parameter(1.0),
    "Parameter/of_parameter": lambda L, d: do(p := nn(L).Parameter(nn(L).Parameter(L.ones(2))),
                                              (type(p).__name__.replace("tandem", "torch"), p.requires_grad)),
    "Parameter/requires_grad_str": lambda L, d: do(p := nn(L).Parameter(L.ones(2), requires_grad="no"),
                                                   p.requires_grad),
    "Parameter/non_leaf": lambda L, d: do(x := L.ones(2, requires_grad=True), p := nn(L).Parameter(x * 2),
                                          (p.is_leaf, p.requires_grad, p.grad_fn is None)),
    "Parameter/int_requires_grad_": lambda L, d: nn(L).Parameter(L.ones(2, dtype=L.int64),
                                                                 requires_grad=False).requires_grad_(),
    # ---- optimizer state dicts (trained_sgd: the module and the state dict)
    "optim/load_other_group_count": lambda L, d: do(
        t := trained_sgd(L, d),
        L.optim.SGD([{"params": [t[0].weight]}, {"params": [t[0].bias]}], lr=0.1).load_state_dict(t[1])),
    "optim/load_other_param_count": lambda L, d: do(
        t := trained_sgd(L, d), L.optim.SGD([t[0].weight], lr=0.1).load_state_dict(t[1])),
    "optim/load_without_state": lambda L, d: do(
        t := trained_sgd(L, d),
        L.optim.SGD(t[0].parameters(), lr=0.1).load_state_dict({"param_groups": t[1]["param_groups"]})),
    "optim/load_list": lambda L, d: L.optim.SGD(lin(L, d).parameters(), lr=0.1).load_state_dict([1]),
    "optim/state_and_group_keys": lambda L, d: do(
        t := trained_sgd(L, d), (sorted(t[1]["state"][0]), sorted(t[1]["param_groups"][0]))),
    "optim/load_then_step_values": lambda L, d: do(
        t := trained_sgd(L, d), opt := L.optim.SGD(t[0].parameters(), lr=0.5, momentum=0.1),
        opt.load_state_dict(t[1]), t[0](R(L, (1, 2), d, "float32")).sum().backward(), opt.step(),
        (t[0].weight, opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"])),
    "optim/add_group_duplicate": lambda L, d: do(
        m := lin(L, d), L.optim.SGD([m.weight], lr=0.1).add_param_group({"params": [m.weight]})),
    "optim/params_set": lambda L, d: len(L.optim.SGD({lin(L, d).weight}, lr=0.1).param_groups[0]["params"]),
    # ---- containers
    "ModuleList/index_past": lambda L, d: nn(L).ModuleList([nn(L).ReLU()])[1],
    "ModuleList/index_negative_past": lambda L, d: nn(L).ModuleList([nn(L).ReLU()])[-2],
    "ModuleList/slice_type": lambda L, d: type(nn(L).ModuleList([nn(L).ReLU(), nn(L).Tanh()])[::-1]).__name__,
    "ModuleList/slice_names": lambda L, d: [type(m).__name__ for m in
                                            nn(L).ModuleList([nn(L).ReLU(), nn(L).Tanh(), nn(L).ELU()])[1:]],
    "ModuleList/index_float": lambda L, d: nn(L).ModuleList([nn(L).ReLU()])[0.0],
    "ModuleList/setitem_not_module": lambda L, d: do(m := nn(L).ModuleList([nn(L).ReLU()]), m.__setitem__(0, 3)),
    "ModuleList/setitem_past": lambda L, d: do(m := nn(L).ModuleList([nn(L).ReLU()]),
                                               m.__setitem__(3, nn(L).Tanh())),
    "ModuleList/delitem_slice_renumbers": lambda L, d: do(
        m := nn(L).ModuleList([nn(L).ReLU(), nn(L).Tanh(), nn(L).ELU()]), m.__delitem__(slice(0, 1)),
        [k for k, _ in m.named_children()]),
    "ModuleList/insert_negative": lambda L, d: do(m := nn(L).ModuleList([nn(L).ReLU(), nn(L).Tanh()]),
                                                  m.insert(-1, nn(L).ELU()), [type(x).__name__ for x in m]),
    "ModuleList/extend_not_iterable": lambda L, d: nn(L).ModuleList().extend(nn(L).ReLU()),
    "ModuleList/iadd_list": lambda L, d: do(m := nn(L).ModuleList([nn(L).ReLU()]), m.__iadd__([nn(L).Tanh()]),
                                            len(m)),
    "ModuleList/add_list": lambda L, d: [type(m).__name__ for m in nn(L).ModuleList([nn(L).ReLU()]) + [nn(L).Tanh()]],
    "ModuleList/pop_past": lambda L, d: nn(L).ModuleList([nn(L).ReLU()]).pop(3),
    "ModuleList/call": lambda L, d: nn(L).ModuleList([nn(L).ReLU()])(L.ones(1)),
    "ModuleDict/missing_key": lambda L, d: nn(L).ModuleDict({"a": nn(L).ReLU()})["b"],
    "ModuleDict/key_int": lambda L, d: nn(L).ModuleDict({1: nn(L).ReLU()}),
    "ModuleDict/update_bad_pair": lambda L, d: nn(L).ModuleDict().update([("a", nn(L).ReLU(), 3)]),
    "ModuleDict/update_not_iterable": lambda L, d: nn(L).ModuleDict().update(3),
    "ModuleDict/pop_missing": lambda L, d: nn(L).ModuleDict().pop("a"),
    "ModuleDict/index_int": lambda L, d: nn(L).ModuleDict({"a": nn(L).ReLU()})[0],
    "ModuleDict/setitem_none": lambda L, d: do(m := nn(L).ModuleDict(), m.__setitem__("a", None), list(m.keys())),
    "ModuleDict/key_empty": lambda L, d: nn(L).ModuleDict({"": nn(L).ReLU()}),
    "ParameterList/slice": lambda L, d: type(nn(L).ParameterList([nn(L).Parameter(L.ones(1))] * 2)[0:1]).__name__,
    "ParameterList/append_tensor_becomes_param": lambda L, d: do(
        p := nn(L).ParameterList(), p.append(L.ones(2)), (type(p[0]).__name__.replace("tandem", "torch"),
                                                           p[0].requires_grad)),
    "ParameterList/append_number": lambda L, d: do(p := nn(L).ParameterList(), p.append(3), p[0]),
    "ParameterList/setitem_past": lambda L, d: do(p := nn(L).ParameterList([L.ones(1)]),
                                                  p.__setitem__(2, L.ones(1))),
    "ParameterList/index_str": lambda L, d: nn(L).ParameterList([L.ones(1)])["0"],
    "ParameterList/extend_tensor": lambda L, d: nn(L).ParameterList().extend(L.ones(2)),
    "ParameterList/int_tensor": lambda L, d: nn(L).ParameterList([L.ones(2, dtype=L.int64)]),
    "ParameterDict/missing": lambda L, d: nn(L).ParameterDict({"a": L.ones(1)})["b"],
    "ParameterDict/key_int": lambda L, d: nn(L).ParameterDict({1: L.ones(1)}),
    "ParameterDict/setdefault": lambda L, d: do(p := nn(L).ParameterDict(), p.setdefault("a", L.ones(1)),
                                                sorted(p.keys())),
    "ParameterDict/get_default": lambda L, d: nn(L).ParameterDict().get("a", 5),
    "ParameterDict/pop_missing": lambda L, d: nn(L).ParameterDict().pop("a"),
    "Sequential/index_negative_past": lambda L, d: nn(L).Sequential(nn(L).ReLU())[-2],
    "Sequential/index_str": lambda L, d: nn(L).Sequential(nn(L).ReLU())["0"],
    "Sequential/insert_past": lambda L, d: do(s := nn(L).Sequential(nn(L).ReLU()), s.insert(5, nn(L).Tanh()),
                                              [type(m).__name__ for m in s]),
    "Sequential/insert_not_module": lambda L, d: nn(L).Sequential(nn(L).ReLU()).insert(0, 3),
    "Sequential/pop_past": lambda L, d: nn(L).Sequential(nn(L).ReLU()).pop(4),
    "Sequential/ordered_dict_dotted": lambda L, d: nn(L).Sequential(collections.OrderedDict([("a.b", nn(L).ReLU())])),
    "Sequential/setitem_slice": lambda L, d: do(s := nn(L).Sequential(nn(L).ReLU(), nn(L).Tanh()),
                                                s.__setitem__(slice(0, 1), nn(L).ELU())),
    "Sequential/mul": lambda L, d: [type(m).__name__ for m in nn(L).Sequential(nn(L).ReLU()) * 2],
    "Sequential/mul_zero": lambda L, d: nn(L).Sequential(nn(L).ReLU()) * 0,
    "Sequential/add_non_sequential": lambda L, d: nn(L).Sequential(nn(L).ReLU()) + nn(L).ReLU(),
}

KNOWN = {
    "ModuleList/insert_negative": "PyTorch's own fault: ModuleList.insert(-1, m) shifts keys from str(len) down to "
                                  "the index and fails with KeyError: '-1'; tandem inserts as list.insert does",
}
