"""__torch_function__ dispatch from tandem's own functions and Tensor methods (python/src/torch_function.cpp,
tandem/overrides.py), against PyTorch: Tensor subclasses keep their type through ops, objects that stand in for
tensors (linear_operator's LinearOperator) receive the call, modes see every call, and the errors match."""
import copy
import pickle
import re
import threading

import numpy as np

import pytest
import torch

import tandem

LIBS = [torch, tandem]


def subclass_of(lib):
    class Sub(lib.Tensor):
        pass

    return Sub


def kind(x):
    """The type of a result as the same words for both libraries."""
    if isinstance(x, tuple):
        return tuple(kind(v) for v in x)
    return type(x).__name__.replace("TensorBase", "Tensor")


SUBCLASS_OPS = {
    "add_scalar": lambda lib, s: s + 1,
    "radd": lambda lib, s: 1 + s,
    "mul_self": lambda lib, s: s * s,
    "matmul": lambda lib, s: s @ s,
    "function": lambda lib, s: lib.add(s, 1),
    "method": lambda lib, s: s.sum(),
    "index": lambda lib, s: s[0],
    "max_dim": lambda lib, s: tuple(s.max(0)),
    "cat": lambda lib, s: lib.cat([s, s]),
    "transpose": lambda lib, s: s.t(),
    "linalg": lambda lib, s: lib.linalg.inv(s),
    "detach": lambda lib, s: s.detach(),
    "clone": lambda lib, s: s.clone(),
    "to_double": lambda lib, s: s.double(),
    "comparison": lambda lib, s: s > 2,
    "plain_and_sub": lambda lib, s: lib.mul(lib.ones(2, 2), s),
    "item": lambda lib, s: s[0, 0].item(),
    "tolist": lambda lib, s: s.tolist(),
    "functional": lambda lib, s: lib.nn.functional.linear(s, lib.ones(3, 2)),
    "functional_norm": lambda lib, s: lib.nn.functional.layer_norm(s, (2,)),
    "functional_relu": lambda lib, s: lib.nn.functional.relu(s - 2),
}


@pytest.mark.parametrize("op", SUBCLASS_OPS)
def test_a_tensor_subclass_keeps_its_type_through_ops(op):
    results = []
    for lib in LIBS:
        Sub = subclass_of(lib)
        s = lib.tensor([[1.0, 2.0], [3.0, 4.0]]).as_subclass(Sub)
        r = SUBCLASS_OPS[op](lib, s)
        values = r if isinstance(r, (float, list)) else [v.tolist() for v in (r if isinstance(r, tuple) else (r,))]
        results.append((kind(r), values))
    assert results[0] == results[1]


def test_in_place_ops_return_the_subclass_object_itself():
    for lib in LIBS:
        s = lib.ones(2).as_subclass(subclass_of(lib))
        assert s.add_(1) is s and s.mul_(2) is s
        s += 1
        assert type(s).__name__ == "Sub" and s.tolist() == [5.0, 5.0]


def test_parameters_opt_out_and_ops_on_them_return_plain_tensors():
    for lib in LIBS:
        p = lib.nn.Parameter(lib.ones(2))
        assert type(p + 1) is lib.Tensor and type(lib.mul(p, 2)) is lib.Tensor and type(p.sum()) is lib.Tensor
        assert lib.nn.Parameter.__torch_function__ is lib._C._disabled_torch_function_impl


def test_disable_torch_function_subclass_gives_plain_tensors():
    for lib in LIBS:
        s = lib.ones(2).as_subclass(subclass_of(lib))
        assert lib._C._is_torch_function_enabled()
        with lib._C.DisableTorchFunctionSubclass():
            assert not lib._C._is_torch_function_enabled()
            assert type(s + 1) is lib.Tensor and type(lib.add(s, 1)) is lib.Tensor
        assert lib._C._is_torch_function_enabled() and type(s + 1).__name__ == "Sub"


def test_gradients_flow_through_a_subclass():
    grads = []
    for lib in LIBS:
        base = lib.tensor([1.0, 2.0], requires_grad=True)
        s = base.as_subclass(subclass_of(lib))
        out = (s * s).sum()
        assert type(out).__name__ == "Sub" and out.requires_grad
        out.backward()
        grads.append(base.grad.tolist())
    assert grads[0] == grads[1] == [2.0, 4.0]


def tagging_subclass(lib):
    class Tagged(lib.Tensor):
        """A subclass whose __torch_function__ (calling super's) marks every tensor it returns."""
        seen = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.seen.append(func.__name__)
            result = super().__torch_function__(func, types, args, kwargs)
            if isinstance(result, cls):
                result.tag = "tagged"
            return result

    return Tagged


def test_an_overriding_subclass_sees_each_call_once_and_super_converts():
    seen = []
    for lib in LIBS:
        Tagged = tagging_subclass(lib)
        t = lib.ones(3).as_subclass(Tagged)
        r = lib.exp(t.mul(2) + 1)
        assert type(r) is Tagged and r.tag == "tagged"
        seen.append(Tagged.seen)
    assert seen[0] == seen[1] == ["mul", "add", "exp"]  # `+` arrives as Tensor.add


class Recorder:
    """Stands in for a tensor (as linear_operator's LinearOperator does): records what it receives."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("handled", func, [t.__name__ for t in types], len(args), sorted(kwargs or {}))


STAND_IN_CALLS = {
    "function": (lambda lib, r, x: lib.matmul(r, x), lambda lib: lib.matmul, 2, []),
    "keyword": (lambda lib, r, x: lib.add(x, other=r), lambda lib: lib.add, 1, ["other"]),
    "linalg": (lambda lib, r, x: lib.linalg.eigh(r), lambda lib: lib.linalg.eigh, 1, []),
    "in_a_list": (lambda lib, r, x: lib.cat([x, r]), lambda lib: lib.cat, 1, []),
    "method_argument": (lambda lib, r, x: x.add(r), lambda lib: lib.Tensor.add, 2, []),
    "operator": (lambda lib, r, x: x @ r, lambda lib: lib.Tensor.matmul, 2, []),
    "index": (lambda lib, r, x: x[r], lambda lib: lib.Tensor.__getitem__, 2, []),
    # (PyTorch's Python-level functional passes its defaults as keywords too: only the arguments given compare)
    "functional": (lambda lib, r, x: lib.nn.functional.softmax(r, dim=0), lambda lib: lib.nn.functional.softmax,
                   1, None),
}


@pytest.mark.parametrize("call", STAND_IN_CALLS)
def test_an_object_with_torch_function_receives_the_call(call):
    run, func, nargs, kwargs = STAND_IN_CALLS[call]
    for lib in LIBS:
        got = run(lib, Recorder(), lib.ones(2, 2))
        assert got[0] == "handled" and got[1] is func(lib), (lib.__name__, got)
        assert got[2:4] == (["Recorder"], nargs) and kwargs in (None, got[4]), (lib.__name__, got)


class Declines:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented

    def __radd__(self, other):
        return "reflected"


def test_an_operator_that_no_handler_takes_falls_back_to_the_reflected_one():
    for lib in LIBS:
        assert lib.ones(2) + Declines() == "reflected"


def without_addresses(message):
    return re.sub(r" at 0x[0-9a-f]+", "", message).replace("torch", "LIB").replace("tandem", "LIB")


@pytest.mark.parametrize("call", ["function", "method", "list", "linalg_function"])
def test_the_error_when_every_handler_declines_matches_pytorch(call):
    class Other(Declines):
        pass

    calls = {"function": lambda lib: lib.add(Declines(), Other()), "method": lambda lib: lib.ones(1).add(Declines()),
             "list": lambda lib: lib.cat([lib.ones(1), Declines()]), "linalg_function": lambda lib: lib.mm(Other(), lib.ones(1, 1))}
    messages = []
    for lib in LIBS:
        with pytest.raises(TypeError) as caught:
            calls[call](lib)
        messages.append(without_addresses(str(caught.value)))
    assert messages[0] == messages[1]


def logging_mode(lib, log):
    class Log(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(func.__name__)
            return func(*args, **(kwargs or {}))

    return Log


def test_a_mode_sees_every_call_and_not_the_ones_its_handler_makes():
    logs = []
    for lib in LIBS:
        log = []
        with logging_mode(lib, log)():
            x = lib.ones(2)
            y = lib.mul(x + 1, 2).sum()
            x.add_(1)
            z = lib.cat([x, x])[0]
            lib.zeros(3)
        assert y.item() == 8.0 and z.item() == 2.0
        logs.append(log)
    assert logs[0] == logs[1] == ["ones", "add", "mul", "sum", "add_", "cat", "__getitem__", "zeros"]


def test_modes_nest_and_the_inner_one_reaches_the_outer():
    for lib in LIBS:
        outer, inner = [], []
        with logging_mode(lib, outer)():
            with logging_mode(lib, inner)():
                lib.ones(2).neg()
        assert inner == ["ones", "neg"] and outer == ["ones", "neg"]


def test_a_mode_entered_in_one_thread_does_not_see_another_threads_calls():
    for lib in LIBS:
        log, other = [], []
        with logging_mode(lib, log)():
            worker = threading.Thread(target=lambda: other.append(lib.ones(2).sum().item()))
            worker.start()
            worker.join()
        assert log == [] and other == [2.0]


def test_disable_torch_function_turns_modes_off_too():
    for lib in LIBS:
        log = []
        with logging_mode(lib, log)():
            with lib._C.DisableTorchFunctionSubclass():
                lib.ones(1)
            with lib._C.DisableTorchFunction():
                lib.zeros(1)
        assert log == ["ones"]


def test_the_wrappers_behave_as_builtins_and_method_descriptors():
    x = tandem.ones(2)
    assert repr(tandem.Tensor.add) == "<method 'add' of 'tandem.Tensor' objects>"
    assert tandem.Tensor.add.__name__ == "add" and tandem.Tensor.add.__qualname__ == "Tensor.add"
    assert tandem.Tensor.add.__objclass__ is tandem.Tensor
    assert tandem.Tensor.add(x, 1).tolist() == [2.0, 2.0] and x.add(1).tolist() == [2.0, 2.0]
    assert tandem.Tensor.add.__get__(None, tandem.Tensor) is tandem.Tensor.add
    bound = x.add
    assert bound.__self__ is x and bound(2).tolist() == [3.0, 3.0]
    for f in (tandem.add, tandem.Tensor.add, tandem.linalg.eigh):
        assert pickle.loads(pickle.dumps(f)) is f and copy.deepcopy(f) is f
    assert repr(tandem.add) == "<built-in function add>"


def test_has_torch_function_follows_pytorch():
    for lib in LIBS:
        O, s = lib.overrides, lib.ones(1).as_subclass(subclass_of(lib))
        assert O.has_torch_function((s,)) and O.has_torch_function_unary(s)
        assert O.has_torch_function_variadic(1, Recorder()) and not O.has_torch_function_variadic(1, lib.ones(1))
        assert not O.has_torch_function(([s],))  # not looked for inside a sequence argument
        assert not O.has_torch_function([lib.ones(1), lib.nn.Parameter(lib.ones(1))])
        with lib._C.DisableTorchFunctionSubclass():
            assert not O.has_torch_function((s,))


def test_dispatch_switched_off_in_one_thread_stays_on_in_the_others():
    s = tandem.ones(2).as_subclass(subclass_of(tandem))
    inside, release, seen = threading.Event(), threading.Event(), []

    def hold_disabled():
        with tandem._C.DisableTorchFunctionSubclass():
            seen.append(type(s + 1).__name__)
            inside.set()
            release.wait(10)

    worker = threading.Thread(target=hold_disabled)
    worker.start()
    assert inside.wait(10)
    seen.append(type(s + 1).__name__)  # this thread is unaffected while the other is inside
    release.set()
    worker.join()
    assert seen == ["Tensor", "Sub"] and type(s + 1).__name__ == "Sub"


class Pickled(tandem.Tensor):
    """A module-level subclass (pickle finds classes by name)."""


class PickledTorch(torch.Tensor):
    pass


def test_a_subclass_pickles_and_copies_with_its_attributes():
    for lib, cls in ((torch, PickledTorch), (tandem, Pickled)):
        s = lib.tensor([1.0, 2.0]).as_subclass(cls)
        s.extra = 5
        for copied in (pickle.loads(pickle.dumps(s)), copy.copy(s)):
            assert type(copied) is cls and copied.extra == 5 and copied.tolist() == [1.0, 2.0]
        p = lib.nn.Parameter(lib.ones(2))
        assert type(copy.copy(p)) is lib.nn.Parameter and copy.copy(p).requires_grad


class PlainMethodHandler:
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return "handled"


def test_a_plain_method_handler_still_runs_with_pytorchs_deprecation_warning():
    for lib in LIBS:
        with pytest.warns(UserWarning, match="^Defining your `__torch_function__` as a plain method is deprecated"):
            assert lib.add(PlainMethodHandler(), 1) == "handled"


def test_a_mode_sees_data_conversions_but_not_settings_and_tensor_copies_are_plain():
    import warnings

    logs = []
    for lib in LIBS:
        log = []
        with logging_mode(lib, log)():
            lib.tensor([1.0])
            lib.as_tensor([1.0])
            lib.asarray([1.0])
            lib.from_numpy(np.ones(2))
            lib.is_tensor(1)
            lib.manual_seed(0)
            lib.get_default_dtype()
            lib.scalar_tensor(1.0)
        logs.append(log)
        s = lib.ones(2, requires_grad=True).as_subclass(subclass_of(lib))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "To copy construct from a tensor ..."
            copied = lib.tensor(s)
        assert type(copied) is lib.Tensor and not copied.requires_grad
        assert lib.as_tensor(s) is s
    assert logs[0] == logs[1] == ["tensor", "as_tensor", "asarray", "scalar_tensor"]


def test_the_wrapper_factories_refuse_what_is_not_callable():
    with pytest.raises(TypeError, match="^_tensor_method: the function is not callable$"):
        tandem._C._tensor_method(5, "x", False)
    with pytest.raises(TypeError, match="^_builtin_function: the function is not callable$"):
        tandem._C._builtin_function(5, "x", "tandem", dispatches=True)


def test_view_properties_dispatch_on_subclasses_as_pytorchs():
    seen = {}
    for lib in LIBS:
        class Sub(lib.Tensor):
            pass

        class Deeper(Sub):
            pass

        x = lib.ones(2, 3).as_subclass(Deeper)
        c = lib.ones(2, dtype=lib.complex64).as_subclass(Sub)
        kinds = [kind(v) for v in (x.T, x.mT, x.H, x.mH, c.real, c.imag, lib.ones(2, 2).T,
                                   lib.nn.Parameter(lib.ones(2, 2)).T)]
        calls = []

        class Logged(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                calls.append(func == lib.Tensor.mT.__get__)
                return super().__torch_function__(func, types, args, kwargs or {})

        lib.ones(2, 2).as_subclass(Logged).mT  # noqa: B018
        c.real = lib.zeros(2)  # the setter still writes

        class Own(lib.Tensor):
            @property
            def T(self):
                return "own"

        seen[lib.__name__] = (kinds, calls, c.tolist(), lib.ones(2).as_subclass(Own).T)
    assert seen["tandem"] == seen["torch"]
    assert seen["tandem"][0] == ["Deeper"] * 4 + ["Sub"] * 2 + ["Tensor"] * 2 and seen["tandem"][1] == [True]
