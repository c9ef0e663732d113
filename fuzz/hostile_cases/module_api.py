"""nn.Module's own API misused, beyond nn_modules.py's bookkeeping cases: register_buffer/register_parameter/
add_module/register_module with bad names and types, get_submodule/set_submodule/get_parameter/get_buffer with bad
paths, load_state_dict's strict messages (missing, unexpected and mismatched keys together, nested prefixes,
assign=), state_dict(prefix=, keep_vars=), train()/eval()/requires_grad_()/zero_grad() arguments, apply() and to()
with bad arguments, named_* with prefixes and duplicates, and attribute deletion."""
from . import R


def nn(L):
    return L.nn


def lin(L, n_in=2, n_out=3):
    m = nn(L).Linear(n_in, n_out)
    with L.no_grad():
        m.weight.copy_(R(L, (n_out, n_in), "cpu", "float32"))
        m.bias.copy_(R(L, (n_out,), "cpu", "float32", scale=0.5))
    return m


def net(L):
    """Sequential(Linear(2, 3), ReLU, Sequential(Linear(3, 1))) with deterministic weights."""
    inner = nn(L).Sequential(lin(L, 3, 1))
    return nn(L).Sequential(lin(L, 2, 3), nn(L).ReLU(), inner)


def keys(module):
    return sorted(module.state_dict())


def register(L, method, name, value):
    m = nn(L).Module()
    getattr(m, method)(name, value)
    return sorted(k for k, _ in m.named_children()) + sorted(k for k, _ in m.named_parameters()) + \
        sorted(k for k, _ in m.named_buffers())


def load(L, state, module=None, **kw):
    m = module if module is not None else net(L)
    result = m.load_state_dict(state, **kw)
    return sorted(result.missing_keys), sorted(result.unexpected_keys)


def state(L, drop=(), add=None, reshape=None):
    sd = {k: v.clone() for k, v in net(L).state_dict().items() if k not in drop}
    if add:
        sd.update(add)
    if reshape:
        sd[reshape] = L.zeros(7)
    return sd


def assign_load(L):
    m = net(L)
    new = state(L)
    new["0.weight"] = L.ones(3, 2, dtype=L.float64)
    m.load_state_dict(new, assign=True)
    return m[0].weight.dtype, type(m[0].weight).__name__.replace("tandem", "torch"), m[0].weight.requires_grad


def delete_attr(L, name):
    m = lin(L)
    delattr(m, name)
    return keys(m)


def set_attr_then_keys(L, name, value):
    m = lin(L)
    setattr(m, name, value)
    return keys(m)


def zero_grad(L, set_to_none):
    m = lin(L)
    m(R(L, (4, 2), "cpu", "float32")).sum().backward()
    m.zero_grad(set_to_none=set_to_none)
    return m.weight.grad


CASES = {
    # ---- names and types
    "register_buffer/name_with_dot": lambda L, d: register(L, "register_buffer", "a.b", L.ones(1)),
    "register_buffer/empty": lambda L, d: register(L, "register_buffer", "", L.ones(1)),
    "register_buffer/int_value": lambda L, d: register(L, "register_buffer", "a", 3),
    "register_buffer/parameter_value": lambda L, d: register(L, "register_buffer", "a",
                                                            nn(L).Parameter(L.ones(1))),
    "register_buffer/non_persistent": lambda L, d: (lambda m: (m.register_buffer("b", L.ones(1), persistent=False),
                                                               keys(m))[1])(lin(L)),
    "register_buffer/persistent_str": lambda L, d: nn(L).Module().register_buffer("a", L.ones(1), persistent="yes"),
    "register_buffer/name_not_str": lambda L, d: register(L, "register_buffer", 1, L.ones(1)),
    "register_parameter/name_with_dot": lambda L, d: register(L, "register_parameter", "a.b",
                                                              nn(L).Parameter(L.ones(1))),
    "register_parameter/empty": lambda L, d: register(L, "register_parameter", "", nn(L).Parameter(L.ones(1))),
    "register_parameter/none": lambda L, d: register(L, "register_parameter", "p", None),
    "register_parameter/name_not_str": lambda L, d: register(L, "register_parameter", 3,
                                                             nn(L).Parameter(L.ones(1))),
    "register_parameter/int": lambda L, d: register(L, "register_parameter", "p", 3),
    "register_parameter/non_leaf_param": lambda L, d: register(L, "register_parameter", "p",
                                                               nn(L).Parameter(L.ones(1)) * 2),
    "add_module/name_with_dot": lambda L, d: register(L, "add_module", "a.b", nn(L).ReLU()),
    "add_module/empty": lambda L, d: register(L, "add_module", "", nn(L).ReLU()),
    "add_module/not_module": lambda L, d: register(L, "add_module", "a", 3),
    "add_module/none": lambda L, d: register(L, "add_module", "a", None),
    "add_module/name_not_str": lambda L, d: register(L, "add_module", 1, nn(L).ReLU()),
    "add_module/existing_attribute": lambda L, d: (lambda m: m.add_module("weight", nn(L).ReLU()))(lin(L)),
    "register_module/name_with_dot": lambda L, d: register(L, "register_module", "x.y", nn(L).ReLU()),
    # ---- paths
    "get_submodule/ok": lambda L, d: type(net(L).get_submodule("2.0")).__name__,
    "get_submodule/empty": lambda L, d: type(net(L).get_submodule("")).__name__,
    "get_submodule/missing": lambda L, d: net(L).get_submodule("5"),
    "get_submodule/missing_nested": lambda L, d: net(L).get_submodule("2.7"),
    "get_submodule/not_a_module": lambda L, d: net(L).get_submodule("0.weight"),
    "get_submodule/trailing_dot": lambda L, d: net(L).get_submodule("2."),
    "get_parameter/ok": lambda L, d: tuple(net(L).get_parameter("2.0.bias").shape),
    "get_parameter/missing": lambda L, d: net(L).get_parameter("0.nothing"),
    "get_parameter/buffer_not_param": lambda L, d: (lambda m: (m.register_buffer("b", L.ones(1)),
                                                               m.get_parameter("b"))[1])(lin(L)),
    "get_parameter/bad_module": lambda L, d: net(L).get_parameter("9.weight"),
    "get_buffer/param_not_buffer": lambda L, d: net(L).get_buffer("0.weight"),
    "get_buffer/missing": lambda L, d: net(L).get_buffer("bn.running_mean"),
    "get_buffer/ok": lambda L, d: tuple(nn(L).BatchNorm1d(3).get_buffer("running_mean").shape),
    "set_submodule/ok": lambda L, d: (lambda m: (m.set_submodule("2.0", nn(L).Tanh()),
                                                 type(m[2][0]).__name__)[1])(net(L)),
    "set_submodule/missing_parent": lambda L, d: net(L).set_submodule("7.0", nn(L).Tanh()),
    "set_submodule/not_module": lambda L, d: net(L).set_submodule("1", 3),
    "set_submodule/empty": lambda L, d: net(L).set_submodule("", nn(L).Tanh()),
    "set_submodule/new_name": lambda L, d: (lambda m: (m.set_submodule("extra", nn(L).Tanh()),
                                                       [k for k, _ in m.named_children()])[1])(net(L)),
    "set_submodule/strict_new_name": lambda L, d: net(L).set_submodule("extra", nn(L).Tanh(), strict=True),
    # ---- load_state_dict
    "load_state_dict/missing_and_unexpected": lambda L, d: load(L, state(L, drop=("0.bias",),
                                                                         add={"0.extra": L.ones(1)})),
    "load_state_dict/missing_unexpected_not_strict": lambda L, d: load(
        L, state(L, drop=("0.bias",), add={"0.extra": L.ones(1)}), strict=False),
    "load_state_dict/size_mismatch": lambda L, d: load(L, state(L, reshape="2.0.weight")),
    "load_state_dict/size_mismatch_not_strict": lambda L, d: load(L, state(L, reshape="2.0.weight"), strict=False),
    "load_state_dict/all_errors": lambda L, d: load(L, state(L, drop=("0.bias",), add={"x": L.ones(1)},
                                                             reshape="0.weight")),
    "load_state_dict/nested_prefix_missing": lambda L, d: load(L, state(L, drop=("2.0.weight",))),
    "load_state_dict/dtype_converts": lambda L, d: (lambda m: (load(L, {k: v.double() for k, v in
                                                                        state(L).items()}, m),
                                                               m[0].weight.dtype)[1])(net(L)),
    "load_state_dict/assign": lambda L, d: assign_load(L),
    "load_state_dict/strict_str": lambda L, d: load(L, state(L), strict="yes"),
    "load_state_dict/none": lambda L, d: load(L, None),
    "load_state_dict/tensor_for_param_shape_0d": lambda L, d: load(L, dict(state(L), **{"0.bias": L.tensor(1.0)})),
    "load_state_dict/empty_not_strict": lambda L, d: load(L, {}, strict=False),
    "state_dict/prefix": lambda L, d: sorted(net(L).state_dict(prefix="model.")),
    "state_dict/keep_vars": lambda L, d: [type(v).__name__.replace("tandem", "torch") for v in
                                          lin(L).state_dict(keep_vars=True).values()],
    "state_dict/positional_destination": lambda L, d: sorted(lin(L).state_dict({}, "p.")),
    "state_dict/positional_keyword_wins": lambda L, d: sorted(lin(L).state_dict(None, "p.", prefix="q.")),
    "state_dict/positional_destination_returned": lambda L, d: (lambda dest: lin(L).state_dict(dest) is dest)({}),
    "state_dict/positional_four": lambda L, d: sorted(lin(L).state_dict(None, "p", False, 4)),
    # ---- modes and gradients
    "train/int": lambda L, d: lin(L).train(1),
    "train/str": lambda L, d: lin(L).train("yes"),
    "train/none": lambda L, d: lin(L).train(None),
    "train/false_ok": lambda L, d: lin(L).train(False).training,
    "eval/argument": lambda L, d: lin(L).eval(True),
    "requires_grad_/int": lambda L, d: [p.requires_grad for p in lin(L).requires_grad_(0).parameters()],
    "requires_grad_/false": lambda L, d: [p.requires_grad for p in lin(L).requires_grad_(False).parameters()],
    "zero_grad/set_to_none": lambda L, d: zero_grad(L, True),
    "zero_grad/zeros": lambda L, d: zero_grad(L, False),
    # ---- apply / to / type conversions
    "apply/not_callable": lambda L, d: net(L).apply(3),
    "apply/wrong_arity": lambda L, d: net(L).apply(lambda: None),
    "apply/returns_self": lambda L, d: type(net(L).apply(lambda m: None)).__name__,
    "to/two_dtypes": lambda L, d: lin(L).to(L.float64, L.float32),
    "to/bool_dtype": lambda L, d: lin(L).to(L.bool),
    "to/non_blocking_only": lambda L, d: lin(L).to(non_blocking=True).weight.dtype,
    "to/bad_kwarg": lambda L, d: lin(L).to(dtyp=L.float64),
    "to/device_then_bool": lambda L, d: lin(L).to("cpu", True),
    "to/dtype_twice": lambda L, d: lin(L).to(L.float64, dtype=L.float64),
    "to/tensor_and_dtype_keywords": lambda L, d: lin(L).to(tensor=L.zeros(1), dtype=L.float64),
    "to/copy_true": lambda L, d: lin(L).to(L.float64, copy=True),
    "to/kwargs_only_unknown": lambda L, d: lin(L).to(device="cpu", foo=1),
    "to/list": lambda L, d: lin(L).to([1]),
    "to/dtype_non_blocking_positional": lambda L, d: lin(L).to(L.float64, True).weight.dtype,
    "to/none": lambda L, d: lin(L).to(None).weight.dtype,
    "to/tensor_arg": lambda L, d: lin(L).to(L.zeros(1, dtype=L.float64)).weight.dtype,
    "to/str_not_device": lambda L, d: lin(L).to("float64"),
    "half_then_forward_dtype": lambda L, d: lin(L).double()(R(L, (1, 2), "cpu")).dtype,
    "type/dtype": lambda L, d: lin(L).type(L.float64).weight.dtype,
    # ---- named_* and attributes
    "named_parameters/prefix": lambda L, d: [k for k, _ in net(L).named_parameters(prefix="p")],
    "named_parameters/no_recurse": lambda L, d: [k for k, _ in net(L).named_parameters(recurse=False)],
    "named_modules/shared_twice": lambda L, d: (lambda r: [k for k, _ in nn(L).Sequential(r, r).named_modules()])(
        nn(L).ReLU()),
    "named_modules/shared_keep_duplicates": lambda L, d: (lambda r: [k for k, _ in nn(L).Sequential(r, r)
                                                                     .named_modules(remove_duplicate=False)])(
        nn(L).ReLU()),
    "parameters/shared_counted_once": lambda L, d: (lambda m: len(list(nn(L).Sequential(m, m).parameters())))(
        lin(L)),
    "delattr/parameter": lambda L, d: delete_attr(L, "bias"),
    "delattr/missing": lambda L, d: delete_attr(L, "nothing"),
    "setattr/parameter_none": lambda L, d: set_attr_then_keys(L, "bias", None),
    "setattr/buffer_number": lambda L, d: (lambda m: (m.register_buffer("b", L.ones(1)), setattr(m, "b", 3)))(
        lin(L)),
    "setattr/module_over_param": lambda L, d: set_attr_then_keys(L, "weight", nn(L).ReLU()),
    "setattr/param_over_module": lambda L, d: (lambda m: setattr(m, "0", nn(L).Parameter(L.ones(1))))(net(L)),
    "getattr/missing_message": lambda L, d: lin(L).nothing_here,
    "extra_repr/linear": lambda L, d: repr(lin(L)),
    "repr/nested": lambda L, d: repr(net(L)),
    "repr/empty_sequential": lambda L, d: repr(nn(L).Sequential()),
    "ModuleList/index_str": lambda L, d: nn(L).ModuleList([nn(L).ReLU()])["0"],
    "ModuleDict/key_with_dot": lambda L, d: nn(L).ModuleDict({"a.b": nn(L).ReLU()}),
    "ParameterDict/value_plain_tensor": lambda L, d: type(nn(L).ParameterDict({"a": L.ones(1)})["a"]).__name__,
    "Sequential/slice": lambda L, d: repr(net(L)[1:]),
    "Sequential/del_index": lambda L, d: (lambda m: (m.__delitem__(0), [k for k, _ in m.named_children()])[1])(
        net(L)),
}

KNOWN = {}
