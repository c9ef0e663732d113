"""Module-surgery forms found missing by the utility program sweep (test_programs_sweeputil.py): Sequential's `+`,
`+=`, `*`, `*=` and `int * Sequential`, ModuleList's `+`, Module.call_super_init (arguments passed on to a mixin),
and PyTorch's messages for a bad module name and for arguments Module.__init__ does not take. Each case runs under
PyTorch and tandem and the results are compared (tandem's classes print with its own module name, on purpose)."""
import collections

import pytest
import torch as real_torch

import tandem


def outcome(case, lib):
    try:
        return ("ok", case(lib.nn))
    except (TypeError, ValueError, KeyError) as exc:
        return (type(exc).__name__, str(exc).replace("tandem.", "torch."))


def both(case):
    assert outcome(case, tandem) == outcome(case, real_torch)


def layout(seq):
    """Keys and module types, and which entries are the very same objects as entry 0."""
    values = list(seq)
    return [list(seq._modules), [type(m).__name__ for m in values], [m is values[0] for m in values]]


def pair(nn):
    return nn.Sequential(nn.ReLU(), nn.Tanh()), nn.Sequential(nn.GELU())


@pytest.mark.parametrize("name", ["add", "mul", "rmul", "mul_true", "named_add"])
def test_sequential_join_and_repeat(name):
    def case(nn):
        a, b = pair(nn)
        named = nn.Sequential(collections.OrderedDict(first=nn.ReLU()))
        result = {"add": lambda: a + b, "mul": lambda: a * 3, "rmul": lambda: 2 * a, "mul_true": lambda: a * True,
                  "named_add": lambda: named + named}[name]()
        return [type(result).__name__, layout(result), len(a), len(b)]
    both(case)


@pytest.mark.parametrize("name", ["iadd", "imul", "named_iadd"])
def test_sequential_in_place_join_and_repeat(name):
    def case(nn):
        a, b = pair(nn)
        named = nn.Sequential(collections.OrderedDict(first=nn.ReLU()))
        target = named if name == "named_iadd" else a
        before = target
        if name == "imul":
            target *= 2
        else:
            target += b
        return [target is before, layout(target)]
    both(case)


@pytest.mark.parametrize("name", ["add_module", "add_list", "add_modulelist", "mul_zero", "mul_float", "rmul_float",
                                  "imul_negative", "iadd_list"])
def test_sequential_operator_errors(name):
    def case(nn):
        a, _ = pair(nn)
        if name == "add_module":
            return a + nn.ReLU()
        if name == "add_list":
            return a + [nn.ReLU()]
        if name == "add_modulelist":
            return a + nn.ModuleList([nn.ReLU()])
        if name == "mul_zero":
            return a * 0
        if name == "mul_float":
            return a * 1.5
        if name == "rmul_float":
            return 1.5 * a
        if name == "imul_negative":
            a *= -1
        else:
            a += [nn.ReLU()]
        return None
    both(case)


def test_modulelist_add():
    def case(nn):
        first = nn.ModuleList([nn.ReLU()])
        joined = first + nn.ModuleList([nn.Tanh()])
        with_list = first + [nn.GELU(), nn.ReLU()]
        return [type(joined).__name__, layout(joined), layout(with_list), len(first)]
    both(case)


def test_modulelist_has_no_mul():
    def case(nn):
        return nn.ModuleList([nn.ReLU()]) * 2
    both(case)


def test_call_super_init_passes_arguments_to_a_mixin():
    def case(nn):
        class Tagged:
            def __init__(self, tag=None):
                self.tag = tag

        class Passing(nn.Module, Tagged):
            call_super_init = True

            def __init__(self):
                super().__init__(tag="passed")

        class Plain(nn.Module, Tagged):
            def __init__(self):
                super().__init__()

        return [nn.Module.call_super_init, Passing().tag, hasattr(Plain(), "tag")]
    both(case)


@pytest.mark.parametrize("args, kwargs", [((1,), {}), ((), {"z": 2}), ((1, 2), {"z": 3})])
def test_module_init_refuses_arguments_with_pytorchs_messages(args, kwargs):
    def case(nn):
        class Net(nn.Module):
            def __init__(self):
                super().__init__(*args, **kwargs)

        return Net()
    both(case)


@pytest.mark.parametrize("kind", ["add_module", "register_buffer", "register_parameter"])
def test_dotted_names_are_refused(kind):
    def case(nn):
        return getattr(nn.Module(), kind)("a.b", None)
    both(case)
