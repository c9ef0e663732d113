"""__torch_function__ on hostile subclasses and stand-ins: a handler that raises, returns NotImplemented, None or
an odd object, recurses into the op it was handed, is a plain method, a staticmethod, None, a number or a property
that raises; plain objects with __torch_function__ on either side of the operators (+, +=, /, @, ==, <,
__rtruediv__), inside cat/stack lists, as out= or an index; the types and func a handler receives; subclass
results through tuples and named tuples (max(dim), sort, topk, split); as_subclass, Tensor._make_subclass and
nn.Parameter with odd classes. Each class is made per library (L.Tensor's subclass), with the same name."""
from . import R


def _names(value):
    """A result as type names (tuples and lists kept): the subclass a result has is what these cases compare."""
    if isinstance(value, (tuple, list)):
        return [type(value).__name__] + [_names(v) for v in value]
    return type(value).__name__.replace("TensorBase", "Tensor")


def sub(L, handler=None, name="Sub", **body):
    """A subclass of L.Tensor; `handler` (a function of cls, func, types, args, kwargs) as its classmethod
    __torch_function__ when given."""
    if handler is not None:
        body["__torch_function__"] = classmethod(handler)
    return type(name, (L.Tensor,), body)


def stand_in(handler, name="Stand", **body):
    """A plain object (not a tensor) whose type has a __torch_function__ classmethod."""
    body["__torch_function__"] = classmethod(handler)
    return type(name, (), body)()


def s_of(L, d, cls, shape=(3,)):
    return R(L, shape, d).as_subclass(cls)


# ---- handlers
def _raises(cls, func, types, args=(), kwargs=None):
    raise ValueError("handler says no")


def _declines(cls, func, types, args=(), kwargs=None):
    return NotImplemented


def _returns_none(cls, func, types, args=(), kwargs=None):
    return None


def _returns_42(cls, func, types, args=(), kwargs=None):
    return 42


def _returns_func_name(cls, func, types, args=(), kwargs=None):
    return func.__name__


def _returns_type_names(cls, func, types, args=(), kwargs=None):
    return [t.__name__ for t in types]


def _returns_arg_count(cls, func, types, args=(), kwargs=None):
    return len(args), sorted(kwargs or {})


def _recurses(cls, func, types, args=(), kwargs=None):
    return func(*args, **(kwargs or {}))  # dispatch is still on: the same handler again, without end


def _super_then_wrap(cls, func, types, args=(), kwargs=None):
    return ("wrapped", _names(super(cls, cls).__torch_function__(func, types, args, kwargs)))


def _plain_method(self, func, types, args=(), kwargs=None):
    return "plain method"


def _raising_property(self):
    raise AttributeError("no torch function here")


def _call_order(log):
    """A handler that notes its class's name and declines, so each overloaded argument gets its turn."""
    def handler(cls, func, types, args=(), kwargs=None):
        log.append(cls.__name__)
        return NotImplemented
    return handler


def call_order(L, d, make_args):
    log = []
    A = sub(L, _call_order(log), "A")
    B = type("B", (A,), {})
    Stand = type("Stand", (), {"__torch_function__": classmethod(_call_order(log))})
    try:
        make_args(L, d, A, B, Stand)
    except TypeError:
        pass
    return log


def ok_subclass(L, d):
    return s_of(L, d, sub(L))


def handler_case(L, d, handler, op):
    return op(L, s_of(L, d, sub(L, handler)))


def stand_case(L, d, handler, op):
    return op(L, R(L, (3,), d), stand_in(handler))


def _is_subclass(values):
    return _names(values)


def inplace_with_stand(L, d, handler):
    x = R(L, (3,), d)
    x += stand_in(handler)
    return x


def subclass_with_torch_function_attr(L, d, value):
    return L.add(s_of(L, d, type("Sub", (L.Tensor,), {"__torch_function__": value})), 1)


def instance_attribute(L, d):
    s = s_of(L, d, sub(L))
    s.__torch_function__ = lambda *a, **k: "instance"
    return _names(L.add(s, 1))


def make_subclass(L, d, cls_fn, data_fn, *args):
    return _names(L.Tensor._make_subclass(cls_fn(L), data_fn(L, d), *args))


def parameter_of(L, d, data_fn, *args):
    p = L.nn.Parameter(data_fn(L, d), *args)
    return _names(p), isinstance(p, L.nn.Parameter), p.requires_grad


class _InitNeedsArgs:
    """A mixin whose __init__ needs an argument: as_subclass makes no call to it."""

    def __init__(self, needed):
        self.needed = needed


def as_subclass_odd(L, d, cls_fn):
    return _names(R(L, (3,), d).as_subclass(cls_fn(L)))


def param_subclass_ops(L, d):
    MyParam = type("MyParam", (L.nn.Parameter,), {})
    p = MyParam(R(L, (3,), d))
    return _names(p), _names(p * 2), _names(p.sum()), p.requires_grad, isinstance(p, L.nn.Parameter)


def param_of_subclass_in_module(L, d):
    m = L.nn.Module()
    m.w = L.nn.Parameter(s_of(L, d, sub(L)))
    return sorted(n for n, _ in m.named_parameters()), _names(m.w), _names(m.state_dict()["w"])


def tuple_results(L, d, op, shape=(2, 3)):
    return _names(op(L, s_of(L, d, sub(L), shape)))


CASES = {
    # ---- a subclass whose handler raises, declines, or returns something odd
    "raises/function": lambda L, d: handler_case(L, d, _raises, lambda L, s: L.add(s, 1)),
    "raises/operator": lambda L, d: handler_case(L, d, _raises, lambda L, s: s + 1),
    "raises/method": lambda L, d: handler_case(L, d, _raises, lambda L, s: s.sum()),
    "raises/cat": lambda L, d: handler_case(L, d, _raises, lambda L, s: L.cat([s, s])),
    "raises/index": lambda L, d: handler_case(L, d, _raises, lambda L, s: s[0]),
    "raises/setitem": lambda L, d: handler_case(L, d, _raises, lambda L, s: s.__setitem__(0, 1.0)),
    "raises/len": lambda L, d: handler_case(L, d, _raises, lambda L, s: len(s)),
    "raises/shape_property": lambda L, d: handler_case(L, d, _raises, lambda L, s: tuple(s.shape)),
    "raises/functional": lambda L, d: handler_case(L, d, _raises, lambda L, s: L.nn.functional.relu(s)),
    "declines/function": lambda L, d: handler_case(L, d, _declines, lambda L, s: L.add(s, 1)),
    "declines/operator": lambda L, d: handler_case(L, d, _declines, lambda L, s: s + 1),
    "declines/reflected_operator": lambda L, d: handler_case(L, d, _declines, lambda L, s: 1 - s),
    "declines/inplace_operator": lambda L, d: handler_case(L, d, _declines, lambda L, s: s.__iadd__(1)),
    "declines/comparison_eq": lambda L, d: handler_case(L, d, _declines, lambda L, s: s == 1),
    "declines/comparison_lt": lambda L, d: handler_case(L, d, _declines, lambda L, s: s < 1),
    "declines/method": lambda L, d: handler_case(L, d, _declines, lambda L, s: s.sum()),
    "declines/cat": lambda L, d: handler_case(L, d, _declines, lambda L, s: L.cat([s, s])),
    "declines/linalg": lambda L, d: handler_case(L, d, _declines, lambda L, s: L.linalg.norm(s)),
    "returns_none/function": lambda L, d: handler_case(L, d, _returns_none, lambda L, s: L.add(s, 1)),
    "returns_none/operator": lambda L, d: handler_case(L, d, _returns_none, lambda L, s: s + 1),
    "returns_42/method": lambda L, d: handler_case(L, d, _returns_42, lambda L, s: s.mul(2)),
    "returns_42/operator_truediv": lambda L, d: handler_case(L, d, _returns_42, lambda L, s: s / 2),
    "returns_42/bool": lambda L, d: handler_case(L, d, _returns_42, lambda L, s: bool(s[0])),
    "returns_func_name/operator_add": lambda L, d: handler_case(L, d, _returns_func_name, lambda L, s: s + 1),
    "returns_func_name/operator_iadd": lambda L, d: handler_case(L, d, _returns_func_name, lambda L, s: s.__iadd__(1)),
    "returns_func_name/operator_rsub": lambda L, d: handler_case(L, d, _returns_func_name, lambda L, s: 1 - s),
    "returns_func_name/operator_rtruediv": lambda L, d: handler_case(L, d, _returns_func_name, lambda L, s: 1 / s),
    "returns_func_name/operator_matmul": lambda L, d: handler_case(L, d, _returns_func_name, lambda L, s: s @ s),
    "returns_func_name/operator_neg": lambda L, d: handler_case(L, d, _returns_func_name, lambda L, s: -s),
    "returns_func_name/getitem": lambda L, d: handler_case(L, d, _returns_func_name, lambda L, s: s[1:]),
    "returns_func_name/functional": lambda L, d: handler_case(L, d, _returns_func_name,
                                                              lambda L, s: L.nn.functional.gelu(s)),
    "returns_arg_count/kwargs": lambda L, d: handler_case(L, d, _returns_arg_count,
                                                          lambda L, s: L.add(s, 1, alpha=2)),
    "returns_type_names/function": lambda L, d: handler_case(L, d, _returns_type_names,
                                                             lambda L, s: L.add(s, R(L, (3,), d))),
    "recurses/function": lambda L, d: handler_case(L, d, _recurses, lambda L, s: L.add(s, 1)),
    "recurses/method": lambda L, d: handler_case(L, d, _recurses, lambda L, s: s.sum()),
    "super_then_wrap/function": lambda L, d: handler_case(L, d, _super_then_wrap, lambda L, s: L.add(s, 1)),
    "super_then_wrap/max_dim": lambda L, d: handler_case(L, d, _super_then_wrap, lambda L, s: s.max(0)),
    # ---- __torch_function__ that is not a classmethod
    "not_classmethod/plain_method": lambda L, d: L.add(s_of(L, d, sub(L, None, __torch_function__=_plain_method)), 1),
    "not_classmethod/staticmethod": lambda L, d: L.add(s_of(L, d, sub(
        L, None, __torch_function__=staticmethod(lambda func, types, args=(), kwargs=None: "static"))), 1),
    "not_classmethod/none": lambda L, d: _names(subclass_with_torch_function_attr(L, d, None)),
    "not_classmethod/number": lambda L, d: subclass_with_torch_function_attr(L, d, 5),
    "not_classmethod/raising_property": lambda L, d: subclass_with_torch_function_attr(L, d,
                                                                                      property(_raising_property)),
    "not_classmethod/instance_attribute_ignored": instance_attribute,
    # ---- stand-ins (plain objects with __torch_function__) on either side of the operators
    "stand/function": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: L.add(x, o)),
    "stand/function_keyword": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: L.add(x, other=o)),
    "stand/add_right": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: x + o),
    "stand/add_left": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: o + x),
    "stand/iadd": lambda L, d: inplace_with_stand(L, d, _returns_func_name),
    "stand/truediv_right": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: x / o),
    "stand/truediv_left": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: o / x),
    "stand/rtruediv_direct": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: x.__rtruediv__(o)),
    "stand/floordiv_left": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: o // x),
    "stand/matmul_right": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: x @ o),
    "stand/matmul_left": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: o @ x),
    "stand/pow_left": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: o ** x),
    "stand/eq_right": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: x == o),
    "stand/eq_left": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: o == x),
    "stand/lt_right": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: x < o),
    "stand/lt_left": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: o < x),
    "stand/index": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: x[o]),
    "stand/setitem_value": lambda L, d: stand_case(L, d, _returns_func_name,
                                                   lambda L, x, o: x.__setitem__(0, o)),
    "stand/out": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: L.add(x, x, out=o)),
    "stand/cat_list": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: L.cat([x, o])),
    "stand/stack_first": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: L.stack([o, x])),
    "stand/cat_tuple": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: L.cat((x, o))),
    "stand/cat_nested_list": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: L.cat([[x, o]])),
    "stand/stack_nested_tuple": lambda L, d: stand_case(L, d, _returns_func_name,
                                                        lambda L, x, o: L.stack(((x,), (o,)))),
    "stand/broadcast_tensors": lambda L, d: stand_case(L, d, _returns_func_name,
                                                       lambda L, x, o: L.broadcast_tensors(x, o)),
    "stand/where_condition": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: L.where(o, x, x)),
    "stand/linalg": lambda L, d: stand_case(L, d, _returns_func_name, lambda L, x, o: L.linalg.solve(o, x)),
    "stand/functional": lambda L, d: stand_case(L, d, _returns_func_name,
                                                lambda L, x, o: L.nn.functional.linear(x, o)),
    "stand/types_received": lambda L, d: stand_case(L, d, _returns_type_names, lambda L, x, o: L.mul(x, o)),
    "stand/arg_count": lambda L, d: stand_case(L, d, _returns_arg_count, lambda L, x, o: L.add(x, o, alpha=3)),
    "stand/raises_add": lambda L, d: stand_case(L, d, _raises, lambda L, x, o: x + o),
    "stand/raises_function": lambda L, d: stand_case(L, d, _raises, lambda L, x, o: L.mul(x, o)),
    "stand/declines_function": lambda L, d: stand_case(L, d, _declines, lambda L, x, o: L.add(x, o)),
    "stand/declines_add": lambda L, d: stand_case(L, d, _declines, lambda L, x, o: x + o),
    "stand/declines_radd": lambda L, d: stand_case(L, d, _declines, lambda L, x, o: o + x),
    "stand/declines_iadd": lambda L, d: inplace_with_stand(L, d, _declines),
    "stand/declines_eq": lambda L, d: stand_case(L, d, _declines, lambda L, x, o: x == o),
    "stand/declines_lt": lambda L, d: stand_case(L, d, _declines, lambda L, x, o: x < o),
    "stand/declines_matmul": lambda L, d: stand_case(L, d, _declines, lambda L, x, o: x @ o),
    "stand/declines_cat": lambda L, d: stand_case(L, d, _declines, lambda L, x, o: L.cat([x, o])),
    "stand/declines_index": lambda L, d: stand_case(L, d, _declines, lambda L, x, o: x[o]),
    "stand/returns_none_add": lambda L, d: stand_case(L, d, _returns_none, lambda L, x, o: x + o),
    "stand/recurses": lambda L, d: stand_case(L, d, _recurses, lambda L, x, o: L.add(x, o)),
    "stand/class_not_instance": lambda L, d: L.add(R(L, (3,), d), type(stand_in(_returns_42))),
    # ---- the order handlers are tried in: subclasses before their bases, then left to right
    "order/base_then_subclass": lambda L, d: call_order(L, d, lambda L, d, A, B, S: L.add(
        s_of(L, d, A), s_of(L, d, B))),
    "order/stand_then_subclass": lambda L, d: call_order(L, d, lambda L, d, A, B, S: L.add(S(), s_of(L, d, A))),
    "order/subclass_then_stand": lambda L, d: call_order(L, d, lambda L, d, A, B, S: L.add(s_of(L, d, A), S())),
    "order/same_type_twice": lambda L, d: call_order(L, d, lambda L, d, A, B, S: L.add(
        s_of(L, d, A), s_of(L, d, A))),
    "order/in_cat_list": lambda L, d: call_order(L, d, lambda L, d, A, B, S: L.cat(
        [s_of(L, d, A), S(), s_of(L, d, B)])),
    "order/keyword": lambda L, d: call_order(L, d, lambda L, d, A, B, S: L.add(s_of(L, d, A), other=S())),
    # ---- subclass results through tuples and named tuples
    "results/max_dim": lambda L, d: tuple_results(L, d, lambda L, s: s.max(0)),
    "results/max_dim_fields": lambda L, d: tuple_results(L, d, lambda L, s: (s.max(1).values, s.max(1).indices)),
    "results/sort": lambda L, d: tuple_results(L, d, lambda L, s: L.sort(s)),
    "results/topk": lambda L, d: tuple_results(L, d, lambda L, s: s.topk(2)),
    "results/split": lambda L, d: tuple_results(L, d, lambda L, s: L.split(s, 1)),
    "results/unbind": lambda L, d: tuple_results(L, d, lambda L, s: s.unbind()),
    "results/chunk": lambda L, d: tuple_results(L, d, lambda L, s: s.chunk(2, 1)),
    "results/broadcast_tensors": lambda L, d: tuple_results(L, d, lambda L, s: L.broadcast_tensors(
        s, L.ones(1, 3, dtype=L.float64, device=s.device))),
    "results/linalg_slogdet": lambda L, d: tuple_results(L, d, lambda L, s: L.linalg.slogdet(s), (3, 3)),
    "results/aminmax": lambda L, d: tuple_results(L, d, lambda L, s: L.aminmax(s)),
    "results/tolist": lambda L, d: tuple_results(L, d, lambda L, s: s.tolist()),
    "results/item": lambda L, d: tuple_results(L, d, lambda L, s: s[0, 0].item()),
    "results/size": lambda L, d: tuple_results(L, d, lambda L, s: s.size()),
    "results/nonzero_as_tuple": lambda L, d: tuple_results(L, d, lambda L, s: L.nonzero(s, as_tuple=True)),
    "results/values_ok": lambda L, d: L.sort(s_of(L, d, sub(L), (2, 3))),
    # ---- as_subclass, _make_subclass, Parameter with odd classes
    "as_subclass/int": lambda L, d: as_subclass_odd(L, d, lambda L: int),
    "as_subclass/object": lambda L, d: as_subclass_odd(L, d, lambda L: object),
    "as_subclass/not_a_class": lambda L, d: as_subclass_odd(L, d, lambda L: 3),
    "as_subclass/stand_in_class": lambda L, d: as_subclass_odd(L, d, lambda L: type(stand_in(_returns_42))),
    "as_subclass/parameter": lambda L, d: as_subclass_odd(L, d, lambda L: L.nn.Parameter),
    "as_subclass/tensor_itself": lambda L, d: _names(s_of(L, d, sub(L)).as_subclass(L.Tensor)),
    "as_subclass/init_needs_args": lambda L, d: as_subclass_odd(
        L, d, lambda L: type("Needy", (_InitNeedsArgs, L.Tensor), {})),
    "as_subclass/keeps_grad_graph": lambda L, d: (lambda x: (lambda s: (s.requires_grad, s.is_leaf, _names(s)))(
        (x * 2).as_subclass(sub(L))))(R(L, (3,), d).requires_grad_()),
    "make_subclass/ok": lambda L, d: make_subclass(L, d, sub, lambda L, d: R(L, (3,), d)),
    "make_subclass/requires_grad": lambda L, d: L.Tensor._make_subclass(sub(L), R(L, (3,), d), True).requires_grad,
    "make_subclass/int_requires_grad": lambda L, d: make_subclass(L, d, sub, lambda L, d: L.ones(3, dtype=L.int64,
                                                                                                  device=d), True),
    "make_subclass/not_a_subclass": lambda L, d: make_subclass(L, d, lambda L: int, lambda L, d: R(L, (3,), d)),
    "make_subclass/data_not_tensor": lambda L, d: make_subclass(L, d, sub, lambda L, d: [1.0, 2.0]),
    "make_subclass/non_leaf_data": lambda L, d: (lambda s: (s.requires_grad, s.is_leaf, s.grad_fn is None))(
        L.Tensor._make_subclass(sub(L), R(L, (3,), d).requires_grad_() * 2)),
    "parameter/of_subclass": lambda L, d: parameter_of(L, d, lambda L, d: s_of(L, d, sub(L))),
    "parameter/of_subclass_no_grad": lambda L, d: parameter_of(L, d, lambda L, d: s_of(L, d, sub(L)), False),
    "parameter/of_int_tensor": lambda L, d: parameter_of(L, d, lambda L, d: L.ones(3, dtype=L.int64, device=d)),
    "parameter/of_list": lambda L, d: parameter_of(L, d, lambda L, d: [1.0, 2.0]),
    "parameter/of_none": lambda L, d: parameter_of(L, d, lambda L, d: None),
    "parameter/of_parameter": lambda L, d: parameter_of(L, d, lambda L, d: L.nn.Parameter(R(L, (3,), d))),
    "parameter/requires_grad_int": lambda L, d: parameter_of(L, d, lambda L, d: R(L, (3,), d), 1),
    "parameter/subclass_ops": param_subclass_ops,
    "parameter/of_subclass_in_module": param_of_subclass_in_module,
}


KNOWN = {
    "declines/linalg": "needs C++ fix: linalg/fft/special functions are named by their public names (norm); "
                       "PyTorch's carry their C names (linalg_norm), which builtin_function.cpp also pickles by",
    "stand/linalg": "needs C++ fix: func.__name__ of tandem.linalg.solve is 'solve', PyTorch's 'linalg_solve' "
                    "(the builtin_function's one name is also its pickling reference)",
    "parameter/of_subclass": "needs C++ fix: PyTorch's Parameter(subclass instance) is the subclass marked "
                             "_is_param, which isinstance(p, Parameter) accepts through Parameter's metaclass; "
                             "tandem.Tensor takes no Python metaclass, so tandem makes a Parameter",
    "parameter/of_subclass_no_grad": "needs C++ fix: as parameter/of_subclass (no metaclass on tandem.Tensor)",
    "parameter/of_subclass_in_module": "needs C++ fix: as parameter/of_subclass (no metaclass on tandem.Tensor)",
    "raises/shape_property": "properties (x.shape, x.grad) do not dispatch to __torch_function__ (docs/compat.md); "
                             "PyTorch hands their __get__",
    "stand/class_not_instance": "needs C++ fix: torch_function.cpp looks __torch_function__ up on an argument's "
                                "type; PyTorch reads it through the object, so a class with a __torch_function__ "
                                "classmethod passed as an argument is dispatched to",
}
