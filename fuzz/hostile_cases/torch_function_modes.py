"""TorchFunctionMode misuse and the torch.overrides helpers: modes whose __torch_function__, __enter__ or __exit__
raises, modes entered twice or exited out of order, modes pushed inside DisableTorchFunction(Subclass), a mode
that declines next to a subclass, the base mode used as is; handle_torch_function / has_torch_function(_unary,
_variadic) / wrap_torch_function / get_overridable_functions / get_ignored_functions / get_testing_overrides /
resolve_name / is_tensor_like misused. Each case leaves the mode stack and the dispatch switches as it found
them (what it observed is its result), so a failing case cannot change the cases after it."""
from . import R


def _stack_names(L):
    return [type(m).__name__ for m in L.overrides._get_current_function_mode_stack()]


def _restore(L, depth):
    """Pops the modes a case left entered beyond `depth` (a mode whose __exit__ failed stays on the stack)."""
    while len(L.overrides._get_current_function_mode_stack()) > depth:
        L.overrides._pop_mode()


def isolated(case):
    """case(L, d) with the mode stack and the dispatch switches put back afterwards."""
    def run(L, d):
        depth = len(L.overrides._get_current_function_mode_stack())
        try:
            return case(L, d)
        finally:
            _restore(L, depth)
            _enable_dispatch(L)
    return run


def _enable_dispatch(L):
    """Both switches on again (the cases start with them on): the exit of a DisableTorchFunction that was never
    entered restores PyTorch's initial state."""
    try:
        L._C.DisableTorchFunction().__exit__(None, None, None)
    except AttributeError:
        L._C._set_torch_function_state(True, True)  # tandem before it took an exit without an enter


def mode_class(L, handler=None, name="Mode", base=None, **body):
    """A TorchFunctionMode subclass; `handler(self, func, types, args, kwargs)` as its __torch_function__."""
    if handler is not None:
        body["__torch_function__"] = handler
    return type(name, (base or L.overrides.TorchFunctionMode,), body)


def _runs(self, func, types, args=(), kwargs=None):
    return func(*args, **(kwargs or {}))


def _logs(log):
    def handler(self, func, types, args=(), kwargs=None):
        log.append((type(self).__name__, func.__name__))
        return func(*args, **(kwargs or {}))
    return handler


def _raises(self, func, types, args=(), kwargs=None):
    raise ValueError("mode says no")


def _declines(self, func, types, args=(), kwargs=None):
    return NotImplemented


def _returns_name(self, func, types, args=(), kwargs=None):
    return func.__name__


def _returns_types(self, func, types, args=(), kwargs=None):
    return [t.__name__ for t in types]


def _raising_enter(self):
    raise ValueError("enter says no")


def under(L, d, Mode, op):
    with Mode():
        return op(L, d)


def add(L, d):
    return L.add(R(L, (3,), d), 1)


def raising_exit(L, d, before_super):
    def exit_(self, *exc):
        if before_super:
            raise ValueError("exit says no")
        L.overrides.TorchFunctionMode.__exit__(self, *exc)
        raise ValueError("exit says no")

    Mode = mode_class(L, _runs, __exit__=exit_)
    try:
        with Mode():
            add(L, d)
    except ValueError as e:
        return str(e), _stack_names(L)


def raising_enter(L, d, after_super):
    def enter(self):
        if after_super:
            L.overrides.TorchFunctionMode.__enter__(self)
        raise ValueError("enter says no")

    Mode = mode_class(L, _runs, __enter__=enter)
    try:
        with Mode():
            pass
    except ValueError as e:
        return str(e), _stack_names(L)


def entered_twice(L, d):
    log = []
    m = mode_class(L, _logs(log))()
    with m:
        with m:
            add(L, d)
            inner = _stack_names(L)
        add(L, d)
    return log, inner, _stack_names(L)


def out_of_order(L, d):
    A, B = mode_class(L, _runs, "A")(), mode_class(L, _runs, "B")()
    A.__enter__()
    B.__enter__()
    A.__exit__(None, None, None)
    left = _stack_names(L)
    B.__exit__(None, None, None)
    return left, _stack_names(L)


def exit_without_enter(L, d):
    mode_class(L, _runs)().__exit__(None, None, None)


def nested_log(L, d):
    log = []
    with mode_class(L, _logs(log), "Outer")():
        with mode_class(L, _logs(log), "Inner")():
            add(L, d)
    return log


def in_disabled(L, d, disabler):
    log = []
    with getattr(L._C, disabler)():
        with mode_class(L, _logs(log))():
            add(L, d)
        flags = L._C._is_torch_function_enabled(), L._C._is_torch_function_mode_enabled()
    return log, flags


def disabled_inside_mode(L, d, disabler):
    log = []
    with mode_class(L, _logs(log))():
        with getattr(L._C, disabler)():
            add(L, d)
            flags = L._C._is_torch_function_enabled(), L._C._is_torch_function_mode_enabled()
    return log, flags


def disabled_state_after_error(L, d):
    try:
        with L._C.DisableTorchFunctionSubclass():
            raise KeyError("inside")
    except KeyError:
        pass
    return L._C._is_torch_function_enabled(), L._C._is_torch_function_mode_enabled()


def disabled_reentered(L, d):
    c = L._C.DisableTorchFunctionSubclass()
    with c:
        with c:
            pass
        inner = L._C._is_torch_function_enabled()
    return inner, L._C._is_torch_function_enabled()


def disabled_exit_out_of_order(L, d):
    a, b = L._C.DisableTorchFunction(), L._C.DisableTorchFunctionSubclass()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    middle = L._C._is_torch_function_enabled(), L._C._is_torch_function_mode_enabled()
    b.__exit__(None, None, None)
    after = L._C._is_torch_function_enabled(), L._C._is_torch_function_mode_enabled()
    return middle, after


def mode_and_subclass(L, d, handler):
    Sub = type("Sub", (L.Tensor,), {})
    s = R(L, (3,), d).as_subclass(Sub)
    with mode_class(L, handler)():
        result = L.add(s, 1)
    return type(result).__name__ if not isinstance(result, (str, list)) else result


def mode_handler_raises_then_next_op(L, d):
    Mode = mode_class(L, _raises)
    try:
        with Mode():
            add(L, d)
    except ValueError:
        pass
    return _stack_names(L), add(L, d)


def factory_under_mode(L, d, op):
    log = []
    with mode_class(L, _logs(log))():
        op(L, d)
    return [name for _, name in log]


def stand_in():
    class Stand:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "stand"

    return Stand()


def sub_instance(L, d):
    return R(L, (3,), d).as_subclass(type("Sub", (L.Tensor,), {}))


def handle(L, d, make_relevant, *args, **kwargs):
    def public(*a, **k):
        return "public"
    return L.overrides.handle_torch_function(public, make_relevant(L, d), *args, **kwargs)


def wrapped_by(L, d, dispatcher, arg):
    @L.overrides.wrap_torch_function(dispatcher)
    def f(x):
        return "plain"
    return f(arg(L, d))


def membership(L, names):
    """Which of these are in get_ignored_functions() and in get_overridable_functions()'s torch/Tensor lists."""
    ignored = L.overrides.get_ignored_functions()
    overridable = L.overrides.get_overridable_functions()
    listed = set(overridable[L]) | set(overridable[L.Tensor])
    out = []
    for name in names:
        fn = getattr(L.Tensor, name[7:]) if name.startswith("Tensor.") else getattr(L, name)
        out.append((name, fn in ignored, fn in listed))
    return out


CASES = {
    # ---- modes whose methods raise
    "mode/handler_raises": isolated(lambda L, d: under(L, d, mode_class(L, _raises), add)),
    "mode/handler_raises_then_next_op": isolated(mode_handler_raises_then_next_op),
    "mode/handler_declines": isolated(lambda L, d: under(L, d, mode_class(L, _declines), add)),
    "mode/handler_declines_method": isolated(lambda L, d: under(L, d, mode_class(L, _declines),
                                                                lambda L, d: R(L, (3,), d).sum())),
    "mode/handler_declines_operator": isolated(lambda L, d: under(L, d, mode_class(L, _declines),
                                                                  lambda L, d: R(L, (3,), d) + 1)),
    "mode/handler_returns_name": isolated(lambda L, d: under(L, d, mode_class(L, _returns_name), add)),
    "mode/handler_returns_name_operator": isolated(lambda L, d: under(L, d, mode_class(L, _returns_name),
                                                                      lambda L, d: R(L, (3,), d) * 2)),
    "mode/handler_types_empty": isolated(lambda L, d: under(L, d, mode_class(L, _returns_types), add)),
    "mode/base_class_as_is": isolated(lambda L, d: under(L, d, L.overrides.TorchFunctionMode, add)),
    "mode/base_mode_passes": isolated(lambda L, d: under(L, d, mode_class(L, base=L.overrides.BaseTorchFunctionMode),
                                                         add)),
    "mode/handler_not_callable": isolated(lambda L, d: under(L, d, mode_class(L, None, __torch_function__=5), add)),
    "mode/handler_staticmethod": isolated(lambda L, d: under(L, d, mode_class(
        L, None, __torch_function__=staticmethod(lambda func, types, args=(), kwargs=None: "static")), add)),
    "mode/exit_raises_after_super": isolated(lambda L, d: raising_exit(L, d, False)),
    "mode/exit_raises_before_super": isolated(lambda L, d: raising_exit(L, d, True)),
    "mode/enter_raises_before_super": isolated(lambda L, d: raising_enter(L, d, False)),
    "mode/enter_raises_after_super": isolated(lambda L, d: raising_enter(L, d, True)),
    "mode/entered_twice": isolated(entered_twice),
    "mode/exited_out_of_order": isolated(out_of_order),
    "mode/exit_without_enter": isolated(exit_without_enter),
    "mode/nested_order": isolated(nested_log),
    "mode/push_deprecated": isolated(lambda L, d: type(mode_class(L, _runs).push()).__name__),
    "mode/init_with_args": isolated(lambda L, d: L.overrides.TorchFunctionMode(1)),
    "mode/in_disable_torch_function": isolated(lambda L, d: in_disabled(L, d, "DisableTorchFunction")),
    "mode/in_disable_subclass": isolated(lambda L, d: in_disabled(L, d, "DisableTorchFunctionSubclass")),
    "mode/disable_torch_function_inside": isolated(lambda L, d: disabled_inside_mode(L, d, "DisableTorchFunction")),
    "mode/disable_subclass_inside": isolated(lambda L, d: disabled_inside_mode(L, d, "DisableTorchFunctionSubclass")),
    "mode/declines_with_subclass": isolated(lambda L, d: mode_and_subclass(L, d, _declines)),
    "mode/types_with_subclass": isolated(lambda L, d: mode_and_subclass(L, d, _returns_types)),
    "mode/runs_with_subclass": isolated(lambda L, d: mode_and_subclass(L, d, _runs)),
    "mode/factory_zeros": isolated(lambda L, d: factory_under_mode(L, d, lambda L, d: L.zeros(2, device=d))),
    "mode/factory_tensor": isolated(lambda L, d: factory_under_mode(L, d, lambda L, d: L.tensor([1.0], device=d))),
    "mode/from_numpy_unseen": isolated(lambda L, d: factory_under_mode(
        L, d, lambda L, d: L.from_numpy(__import__("numpy").ones(2)))),
    "mode/manual_seed_unseen": isolated(lambda L, d: factory_under_mode(L, d, lambda L, d: L.manual_seed(0))),
    "mode/functional": isolated(lambda L, d: factory_under_mode(L, d, lambda L, d: L.nn.functional.relu(
        R(L, (3,), d)))),
    "mode/setitem": isolated(lambda L, d: factory_under_mode(L, d, lambda L, d: R(L, (3,), d).__setitem__(0, 1.0))),
    "mode/setitem_returns_none": isolated(lambda L, d: under(L, d, mode_class(L, _returns_name),
                                                             lambda L, d: R(L, (3,), d).__setitem__(0, 1.0))),
    # ---- the disable switches
    "disable/state_after_error": isolated(disabled_state_after_error),
    "disable/exit_out_of_order": isolated(disabled_exit_out_of_order),
    "disable/exit_without_enter": isolated(lambda L, d: (L._C.DisableTorchFunctionSubclass().__exit__(None, None, None),
                                                         L._C._is_torch_function_enabled())),
    "disable/same_object_reentered": isolated(disabled_reentered),
    "disable/with_argument": isolated(lambda L, d: type(L._C.DisableTorchFunction(1, x=2)).__name__),
    "disable/subclass_ops_plain": isolated(lambda L, d: (lambda s: [type(s + 1).__name__ for _ in [0]])(
        sub_instance(L, d)) + [L._C._is_torch_function_enabled()]),
    "disable/subclass_inside": isolated(lambda L, d: (lambda s: (lambda cm: (cm.__enter__(), type(s + 1).__name__,
                                                                             cm.__exit__(None, None, None))[1])(
        L._C.DisableTorchFunctionSubclass()))(sub_instance(L, d))),
    "disable/stand_in_inside": isolated(lambda L, d: (lambda cm: (cm.__enter__(), _try(lambda: L.add(
        R(L, (3,), d), stand_in())), cm.__exit__(None, None, None))[1])(L._C.DisableTorchFunctionSubclass())),
    # ---- handle_torch_function and has_torch_function misuse
    "handle/no_overloaded": lambda L, d: handle(L, d, lambda L, d: [R(L, (3,), d)], 1),
    "handle/empty_relevant": lambda L, d: handle(L, d, lambda L, d: ()),
    "handle/relevant_none": lambda L, d: handle(L, d, lambda L, d: None),
    "handle/relevant_not_iterable": lambda L, d: handle(L, d, lambda L, d: stand_in()),
    "handle/stand_in": lambda L, d: handle(L, d, lambda L, d: (stand_in(),)),
    "handle/subclass": lambda L, d: type(handle(L, d, lambda L, d: (sub_instance(L, d),), 1)).__name__,
    "handle/public_api_not_callable": lambda L, d: L.overrides.handle_torch_function(5, (stand_in(),)),
    "handle/under_mode": isolated(lambda L, d: under(L, d, mode_class(L, _returns_name),
                                                     lambda L, d: handle(L, d, lambda L, d: ()))),
    "has/none": lambda L, d: L.overrides.has_torch_function(None),
    "has/int": lambda L, d: L.overrides.has_torch_function(5),
    "has/empty": lambda L, d: L.overrides.has_torch_function(()),
    "has/tensor": lambda L, d: L.overrides.has_torch_function([R(L, (3,), d)]),
    "has/parameter": lambda L, d: L.overrides.has_torch_function([L.nn.Parameter(R(L, (3,), d))]),
    "has/subclass": lambda L, d: L.overrides.has_torch_function([sub_instance(L, d)]),
    "has/stand_in": lambda L, d: L.overrides.has_torch_function((stand_in(),)),
    "has/nested_not_searched": lambda L, d: L.overrides.has_torch_function([[stand_in()]]),
    "has/generator": lambda L, d: L.overrides.has_torch_function(x for x in [stand_in()]),
    "has/dict": lambda L, d: L.overrides.has_torch_function({"a": stand_in()}),
    "has/string": lambda L, d: L.overrides.has_torch_function("abc"),
    "has/under_mode_empty": isolated(lambda L, d: under(L, d, mode_class(L, _runs),
                                                        lambda L, d: L.overrides.has_torch_function(()))),
    "has/under_mode_tensor": isolated(lambda L, d: under(L, d, mode_class(L, _runs),
                                                         lambda L, d: L.overrides.has_torch_function([1]))),
    "has/in_disabled_subclass": isolated(lambda L, d: (lambda cm: (cm.__enter__(), L.overrides.has_torch_function(
        [sub_instance(L, d)]), cm.__exit__(None, None, None))[1])(L._C.DisableTorchFunctionSubclass())),
    "has_unary/stand_in": lambda L, d: L.overrides.has_torch_function_unary(stand_in()),
    "has_unary/tuple": lambda L, d: L.overrides.has_torch_function_unary((stand_in(),)),
    "has_unary/no_argument": lambda L, d: L.overrides.has_torch_function_unary(),
    "has_variadic/mixed": lambda L, d: L.overrides.has_torch_function_variadic(R(L, (3,), d), 1, stand_in()),
    "has_variadic/none": lambda L, d: L.overrides.has_torch_function_variadic(),
    "has_variadic/keyword": lambda L, d: L.overrides.has_torch_function_variadic(x=stand_in()),
    # ---- wrap_torch_function
    "wrap/dispatches": lambda L, d: wrapped_by(L, d, lambda x: (x,), lambda L, d: stand_in()),
    "wrap/plain": lambda L, d: wrapped_by(L, d, lambda x: (x,), lambda L, d: R(L, (3,), d)),
    "wrap/dispatcher_raises": lambda L, d: wrapped_by(L, d, lambda x: 1 / 0, lambda L, d: stand_in()),
    "wrap/dispatcher_returns_none": lambda L, d: wrapped_by(L, d, lambda x: None, lambda L, d: stand_in()),
    "wrap/dispatcher_wrong_arity": lambda L, d: wrapped_by(L, d, lambda: (), lambda L, d: stand_in()),
    "wrap/not_callable": lambda L, d: L.overrides.wrap_torch_function(5)(lambda x: x)(1),
    # ---- the listings
    "listing/membership": lambda L, d: membership(L, ["add", "zeros", "tensor", "manual_seed", "cat",
                                                      "Tensor.add", "Tensor.__add__", "Tensor.new_zeros",
                                                      "Tensor.__hash__", "Tensor.__setitem__"]),
    "listing/ignored_with_argument": lambda L, d: L.overrides.get_ignored_functions(1),
    "listing/overridable_with_argument": lambda L, d: L.overrides.get_overridable_functions(1),
    "listing/testing_overrides_call": lambda L, d: L.overrides.get_testing_overrides()[L.add](1, 2),
    "listing/testing_overrides_method": lambda L, d: L.overrides.get_testing_overrides()[L.Tensor.add](1),
    "listing/testing_overrides_factory": lambda L, d: [L.zeros in L.overrides.get_testing_overrides(),
                                                       L.add in L.overrides.get_testing_overrides()],
    "resolve_name/function": lambda L, d: L.overrides.resolve_name(L.add),
    "resolve_name/method": lambda L, d: L.overrides.resolve_name(L.Tensor.add),
    "resolve_name/int": lambda L, d: L.overrides.resolve_name(5),
    "resolve_name/lambda": lambda L, d: L.overrides.resolve_name(lambda: 0),
    "is_tensor_like/int": lambda L, d: L.overrides.is_tensor_like(5),
    "is_tensor_like/stand_in": lambda L, d: L.overrides.is_tensor_like(stand_in()),
    "is_tensor_like/stand_in_class": lambda L, d: L.overrides.is_tensor_like(type(stand_in())),
    "is_tensor_like/tensor_class": lambda L, d: L.overrides.is_tensor_like(L.Tensor),
    "is_tensor_like/parameter": lambda L, d: L.overrides.is_tensor_like(L.nn.Parameter(R(L, (2,), d))),
    "is_method/add": lambda L, d: L.overrides.is_tensor_method_or_property(L.Tensor.add),
    "is_method/function": lambda L, d: L.overrides.is_tensor_method_or_property(L.add),
    "is_method/int": lambda L, d: L.overrides.is_tensor_method_or_property(5),
}


def _try(fn):
    try:
        return fn()
    except TypeError as e:
        return f"TypeError: {str(e).splitlines()[0]}"


KNOWN = {
    "disable/stand_in_inside": "needs C++ fix: the binding's argument message for a non-tensor (tandem: \"add(): "
                               "argument 'other' must be Tensor or Number, not <module>.Stand\"; PyTorch names the "
                               "position and the bare class)",
    "has_unary/no_argument": "needs C++ fix: _C._has_torch_function_unary is a nanobind function (its own message "
                             "for a missing argument)",
    "has_variadic/keyword": "needs C++ fix: _C._has_torch_function_variadic is a nanobind function (its own message "
                            "for a keyword argument)",
    "listing/testing_overrides_method": "tandem's dummy overrides take any arguments; PyTorch's carry each "
                                        "function's signature (docs/compat.md)",
}
