"""What the fourth sweep of real repositories run unchanged on tandem found (gpytorch, pyro, botorch and kornia with
`__torch_function__` dispatch in place; docs/compat.md, "Upstream repositories"): each test is our own smallest
form of one failure, checked against PyTorch."""
import pytest
import torch
import torch.utils._pytree as torch_pytree

import tandem
import tandem.utils._pytree as tandem_pytree

LIBS = ((tandem, tandem_pytree), (torch, torch_pytree))


# pyro's ProvenanceTensor maps every result of its __torch_function__ through tree_map, and wraps what tree_map
# hands back by type (a tuple goes through tree_map again). PyTorch registers torch.Size as a pytree node whose
# leaves are its ints; tandem's Size was a leaf, so x.size() on such a subclass recursed without end.
def test_pytree_takes_size_apart_as_pytorch():
    got = []
    for lib, pytree in LIBS:
        leaves, spec = pytree.tree_flatten(lib.Size([2, 3]))
        rebuilt = spec.unflatten([4, 5])
        nested = pytree.tree_map(lambda v: v * 10, {"shape": lib.Size([1, 2]), "n": 3})
        got.append((leaves, repr(spec), type(rebuilt).__name__, rebuilt, nested,
                    pytree.tree_leaves([lib.Size([7]), (lib.Size([]), 8)])))
    assert got[0] == got[1]
    assert got[0][:4] == ([2, 3], "TreeSpec(Size, None, [*,\n  *])", "tuple", (4, 5))


def test_pytree_size_is_still_a_leaf_when_asked():
    for lib, pytree in LIBS:
        leaves, spec = pytree.tree_flatten(lib.Size([2, 3]), is_leaf=lambda v: isinstance(v, lib.Size))
        assert leaves == [lib.Size([2, 3])] and spec.is_leaf()


def _tagging_subclass(lib, pytree):
    """A subclass that, as pyro's provenance tracking does, runs each call on plain tensors and wraps the result
    back by type: a tensor in the subclass, a tuple or list by mapping over it again."""

    def wrap(value):
        if isinstance(value, lib.Tensor):
            return value.as_subclass(Tagged)
        if isinstance(value, (tuple, list)):
            return pytree.tree_map(wrap, value)
        return value

    def unwrap(value):
        return value.as_subclass(lib.Tensor) if isinstance(value, Tagged) else value

    class Tagged(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            args, kwargs = pytree.tree_map(unwrap, (args, kwargs or {}))
            return wrap(func(*args, **kwargs))

    return Tagged


def test_subclass_that_maps_over_results_reads_sizes():
    got = []
    for lib, pytree in LIBS:
        tagged = lib.arange(6.0).reshape(2, 3).as_subclass(_tagging_subclass(lib, pytree))
        size, dim1, max_result = tagged.size(), tagged.size(1), tagged.max(dim=1)
        got.append((type(size).__name__, size, dim1, type(max_result.values).__name__,
                    max_result.values.as_subclass(lib.Tensor).tolist(), tagged.shape))
    assert got[0][:5] == got[1][:5] == ("tuple", (2, 3), 3, "Tagged", [2.0, 5.0])
    assert tuple(got[0][5]) == tuple(got[1][5]) == (2, 3)  # .shape is a property: it does not dispatch


# gpytorch's test_repr and pyro's error messages print tensor subclasses; PyTorch writes the subclass's name where
# a plain tensor says "tensor(" (a Parameter still prints "tensor(").
def test_subclass_repr_names_the_class():
    def cases(lib):
        class Marked(lib.Tensor):
            pass

        return [lib.ones(2).as_subclass(Marked),
                (lib.arange(60.0).reshape(3, 20) / 7).as_subclass(Marked),  # wrapped lines indent under "Marked("
                lib.ones(2, dtype=lib.int32).as_subclass(Marked),
                lib.tensor(1.5).as_subclass(Marked),
                lib.zeros(0, 2).as_subclass(Marked),
                lib.nn.Parameter(lib.ones(2)),
                lib.ones(2)]

    ours = [repr(t).replace("tandem.", "torch.") for t in cases(tandem)]
    theirs = [repr(t) for t in cases(torch)]
    assert ours == theirs
    assert ours[0] == "Marked([1., 1.])" and ours[-1] == "tensor([1., 1.])"


def test_subclass_repr_keeps_device_and_grad_suffixes(device):
    class Marked(tandem.Tensor):
        pass

    text = repr(tandem.ones(2, device=device, requires_grad=True).as_subclass(Marked))
    assert text.startswith("Marked([1., 1.]")
    if device != "cpu":
        assert f"device='{tandem.device(device)}'" in text
    assert "grad_fn=<" in text


# botorch converts an mll with `.to(dtype=torch.double)`: gpytorch's ExactGP overrides `_apply` to convert its
# train_inputs, which are not parameters or buffers. PyTorch's Module._apply calls each child's `_apply`, so the
# override runs for a model inside another module; tandem's visited every module's tensors itself.
def _holder_classes(lib):
    class HoldsData(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.ones(2))
            self.inputs = (lib.ones(3),)  # kept outside _parameters and _buffers, as ExactGP's train_inputs

        def _apply(self, fn):
            self.inputs = tuple(fn(t) for t in self.inputs)
            return super()._apply(fn)

    return HoldsData


@pytest.mark.parametrize("convert", ["to_double", "double", "to_device"])
def test_module_conversion_reaches_child_apply_overrides(device, convert):
    results = []
    for lib, dev in ((tandem, device), (torch, "cpu")):
        holder = _holder_classes(lib)()
        outer = lib.nn.ModuleList([lib.nn.Sequential(holder)])
        if convert == "to_double":
            outer.to(dtype=lib.float64)
        elif convert == "double":
            outer.double()
        else:
            outer.to(dev)
        results.append((str(holder.inputs[0].dtype).split(".")[-1], holder.inputs[0].device.type,
                        str(holder.weight.dtype).split(".")[-1]))
    expected_device = tandem.device(device).type if convert == "to_device" else "cpu"
    assert results[0] == (results[1][0], expected_device, results[1][2])


def test_module_apply_order_and_recurse_flag():
    def visit(lib, recurse):
        net = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(4))
        net.register_buffer("scale", lib.ones(5))
        net.register_parameter("shift", lib.nn.Parameter(lib.zeros(6)))
        seen = []

        def record(t):
            seen.append(tuple(t.shape))
            return t

        returned = net._apply(record, recurse=recurse)
        return seen, returned is net

    for recurse in (True, False):
        assert visit(tandem, recurse) == visit(torch, recurse)
    assert visit(tandem, False)[0] == [(6,), (5,)]  # the module's own parameters, then its buffers


# kornia's conftest prints torch.version.git_version in its report header.
def test_version_module_names():
    assert set(torch.version.__all__) <= set(tandem.version.__all__)
    for name in ("git_version", "hip", "rocm", "xpu", "debug"):
        ours, theirs = getattr(tandem.version, name), getattr(torch.version, name)
        assert type(ours) is type(theirs) or ours is None
    assert isinstance(tandem.version.git_version, str) and tandem.version.git_version
    assert tandem.version.rocm is None and tandem.version.xpu is None and tandem.version.debug is False
