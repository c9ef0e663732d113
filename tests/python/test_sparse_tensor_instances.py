"""Sparse COO, CSR and CSC tensors are tandem.Tensor instances, as PyTorch's are torch.Tensors: isinstance, the
__torch_function__ dispatch of public functions and methods (the sparse forms run, the others refuse with PyTorch's
"Could not run" error), Module buffers, state_dict, save/load, deepcopy, DataLoader collation, checked against
PyTorch on every device."""
import copy
import io
import pickle

import numpy as np
import pytest
import torch

import tandem
from sparse_helpers import p2t, raises_like, t2p

INDICES = [[0, 1, 1, 2], [2, 0, 2, 1]]
VALUES = [3.0, 4.0, 5.0, 6.0]


@pytest.fixture(params=["cpu", "cuda:0"])
def device(request):
    return request.param


def layouts(device):
    """(tandem tensor, torch tensor) of each layout over the same 3 x 3 matrix."""
    t = tandem.sparse_coo_tensor(INDICES, VALUES, (3, 3), device=device).coalesce()
    p = torch.sparse_coo_tensor(INDICES, VALUES, (3, 3)).coalesce()
    return [(t, p), (t.to_sparse_csr(), p.to_sparse_csr()), (t.to_sparse_csc(), p.to_sparse_csc())]


def same_dense(actual, expected):
    assert actual.layout is tandem.strided
    np.testing.assert_allclose(t2p(actual).numpy(), expected.to_dense().numpy(), rtol=1e-6)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_isinstance_and_queries(device):
    for t, p in layouts(device):
        assert isinstance(t, tandem.Tensor) and isinstance(p, torch.Tensor)
        assert tandem.is_tensor(t) and tandem.overrides.is_tensor_like(t)
        assert repr(t.layout).split(".")[1] == repr(p.layout).split(".")[1]
        assert (t.is_sparse, t.is_sparse_csr) == (p.is_sparse, p.is_sparse_csr)
        assert t.shape == tuple(p.shape) and t.dtype == tandem.float32 and t.itemsize == p.itemsize == 4
        assert str(t.device) == device and t.element_size() == 4 and len(t) == len(p) == 3
        assert f"{t}" == repr(t) and hash(t) == hash(t)
        assert t.real is t and t.is_leaf and not t.requires_grad and t.grad is None
        raises_like(lambda: p.imag, lambda: t.imag, TypeError)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("op", [
    lambda lib, x: x.exp(), lambda lib, x: lib.exp(x), lambda lib, x: x.view(-1), lambda lib, x: x == x,
    lambda lib, x: x < 1, lambda lib, x: lib.nn.functional.softplus(x), lambda lib, x: x.cumsum(0),
], ids=["exp", "tandem.exp", "view", "eq", "lt", "softplus", "cumsum"])
def test_refusals_match_pytorch(device, op):
    """A function or method without a sparse form raises PyTorch's NotImplementedError (the COO layout, whose
    messages PyTorch gives from its dispatcher), with tandem's hint."""
    t, p = layouts(device)[0]
    raises_like(lambda: op(torch, p), lambda: op(tandem, t), NotImplementedError, device)
    with pytest.raises(NotImplementedError, match="hint: tandem's sparse COO tensors support"):
        op(tandem, t)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_refusals_of_every_layout(device):
    backend = "CUDA" if device != "cpu" else "CPU"
    for (t, p), name in zip(layouts(device), ("Sparse", "SparseCsr", "SparseCsc")):
        for call, op in ((lambda: t.exp(), "exp"), (lambda: tandem.cat([t, t]), "cat"), (lambda: t.data_ptr(),
                         "data_ptr"), (lambda: t.tolist() if name == "SparseCsc" else t.view(9), None),
                         (lambda: tandem.stack([t]), "stack"), (lambda: t.untyped_storage(), "untyped_storage")):
            if name == "Sparse" and op in ("cat", "stack"):
                continue  # COO tensors have cat and stack (test_programs_sweep11.py)
            with pytest.raises((NotImplementedError, RuntimeError)) as info:
                call()
            if op is not None:
                assert str(info.value).startswith(f"Could not run 'aten::{op}' with arguments from the "
                                                  f"'{name}{backend}' backend.")
        raises_like(lambda: p.numpy(), lambda: t.numpy(), TypeError)
        with pytest.raises(TypeError, match="Use Tensor.to_dense\\(\\) first"):
            np.asarray(t)  # the placeholder refuses the buffer protocol, so NumPy asks __array__
        raises_like(lambda: bool(p), lambda: bool(t))
        raises_like(lambda: p.item(), lambda: t.item())


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_functions_with_a_sparse_form(device):
    dense_p = torch.arange(6.0).reshape(3, 2)
    dense = p2t(dense_p, device)
    for t, p in layouts(device):
        same_dense(tandem.mm(t, dense), torch.mm(p, dense_p))
        same_dense(tandem.matmul(t, dense), torch.matmul(p, dense_p))
        same_dense(t @ dense, p @ dense_p)
        same_dense(tandem.sparse.mm(t, dense), torch.sparse.mm(p, dense_p))
        same_dense(tandem.mv(t, dense[:, 1]), torch.mv(p, dense_p[:, 1]))
        same_dense(tandem.ones(3, 3, device=device) + t, torch.ones(3, 3) + p)
        same_dense(tandem.add(tandem.ones(3, 3, device=device), t), torch.add(torch.ones(3, 3), p))
        same_dense(tandem.nn.functional.linear(t, dense.t()), torch.nn.functional.linear(p, dense_p.t()))
        for fn in (lambda lib, x: lib.abs(x), lambda lib, x: lib.nn.functional.relu(-x), lambda lib, x: lib.sqrt(x),
                   lambda lib, x: lib.mul(x, 2)):
            got, want = fn(tandem, t), fn(torch, p)
            assert type(got) is type(t) and got.layout is t.layout
            same_dense(got.to_dense(), want)
        assert float(tandem.sum(t)) == float(torch.sum(p))
        assert tandem.t(t).to_dense().tolist() == torch.t(p).to_dense().tolist()
        assert tandem.numel(t) == 9 and tandem.is_floating_point(t)
        copied = tandem.tensor(t)  # a sparse copy, as PyTorch's
        assert copied.layout is t.layout and copied.values() is not t.values()
        same_dense(copied.to_dense(), p)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_module_buffers_state_dict_and_save(device):
    for t, p in layouts(device)[:2]:
        class Holder(tandem.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("adj", t)
                self.lin = tandem.nn.Linear(3, 2)

        m = Holder().to(device)
        assert [b.layout for b in m.buffers()] == [t.layout]
        state = m.state_dict()
        assert state["adj"].layout is t.layout and not state["adj"].requires_grad
        assert m.double().adj.dtype == tandem.float64 and m.float().adj.dtype == tandem.float32
        buffer = io.BytesIO()
        tandem.save(m.state_dict(), buffer)
        buffer.seek(0)
        loaded = torch.load(buffer, map_location="cpu")  # PyTorch reads tandem's file
        assert loaded["adj"].layout is p.layout
        same_dense(m.adj.to_dense(), loaded["adj"])
        buffer.seek(0)
        fresh = Holder()
        fresh.load_state_dict(tandem.load(buffer))
        same_dense(fresh.adj.to_dense(), p)
        twin = copy.deepcopy(m)
        assert twin.adj is not m.adj and twin.adj.layout is t.layout
        same_dense(twin.adj.to_dense(), p)
        back = pickle.loads(pickle.dumps(t))
        assert type(back) is type(t)
        same_dense(back.to_dense(), p)
        with pytest.raises(RuntimeError, match="size mismatch|copy_\\(\\) between"):
            Holder().load_state_dict({**m.state_dict(), "adj": tandem.ones(3, 3)})


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_parameter_and_collate_refuse(device):
    t, p = layouts(device)[0]
    with pytest.raises(NotImplementedError, match="nn.Parameter of a sparse tensor"):
        tandem.nn.Parameter(t)  # PyTorch has sparse Parameters; a tandem Parameter over the placeholder would be zeros
    raises_like(lambda: torch.utils.data.default_collate([p, p]),
                lambda: tandem.utils.data.default_collate([t, t]))
    assert tandem.nn.Buffer(t).layout is tandem.sparse_coo


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_autograd_through_values(device):
    """Gradients still live on the values: dispatch changes nothing for sparse @ dense."""
    t, p = layouts(device)[0]
    t, p = t.detach().requires_grad_(), p.detach().requires_grad_()
    dense_p = torch.arange(6.0).reshape(3, 2).requires_grad_()
    dense = p2t(dense_p.detach(), device).requires_grad_()
    (tandem.mm(t, dense) ** 2).sum().backward()
    (torch.sparse.mm(p, dense_p) ** 2).sum().backward()
    np.testing.assert_allclose(t2p(t.grad.to_dense()).numpy(), p.grad.to_dense().numpy(), rtol=1e-6)
    np.testing.assert_allclose(t2p(dense.grad).numpy(), dense_p.grad.numpy(), rtol=1e-6)


def test_a_subclass_handler_sees_calls_with_sparse_operands():
    """Another type's __torch_function__ gets calls the sparse layouts do not know (the protocol's order)."""
    class Seen:
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return "handled"

    t = tandem.sparse_coo_tensor(INDICES, VALUES, (3, 3))
    assert tandem.add(t, Seen()) == "handled" and Seen.calls == ["add"]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_autograd_grad_of_a_sparse_input(device):
    """autograd.grad with respect to a sparse leaf: its values' gradient on its pattern, as PyTorch's."""
    t, p = layouts(device)[0]
    t, p = t.detach().requires_grad_(), p.detach().requires_grad_()
    dense_p = torch.arange(6.0).reshape(3, 2)
    (got,) = tandem.autograd.grad((tandem.sparse.mm(t, p2t(dense_p, device)) ** 2).sum(), t)
    (want,) = torch.autograd.grad((torch.sparse.mm(p, dense_p) ** 2).sum(), p)
    assert got.layout is tandem.sparse_coo and want.layout is torch.sparse_coo
    assert t2p(got.coalesce().indices()).tolist() == want.coalesce().indices().tolist()
    np.testing.assert_allclose(t2p(got.coalesce().values()).numpy(), want.coalesce().values().numpy(), rtol=1e-6)
    unused = tandem.sparse_coo_tensor(INDICES, VALUES, (3, 3), device=device).requires_grad_()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        tandem.autograd.grad(t.values().sum() * 0 + tandem.sparse.sum(t), [t, unused])


def test_custom_function_returning_a_sparse_gradient(device):
    """A custom Function whose backward returns a sparse gradient for a dense input: PyTorch accumulates it sparse,
    tandem's engine carries dense gradients, so the input gets its dense form (the same values)."""
    def run(lib, dev):
        class Gather(lib.autograd.Function):
            @staticmethod
            def forward(ctx, weight, index):
                ctx.save_for_backward(index)
                ctx.rows = weight.shape[0]
                return weight[index].sum(0)

            @staticmethod
            def backward(ctx, grad):
                (index,) = ctx.saved_tensors
                values = grad.unsqueeze(0).expand(len(index), grad.shape[0])
                return lib.sparse_coo_tensor(index.unsqueeze(0), values, (ctx.rows, grad.shape[0])), None

        weight = lib.ones(4, 3, device=dev, requires_grad=True)
        Gather.apply(weight, lib.tensor([1, 3, 1], device=dev)).sum().backward()
        return weight.grad

    want = run(torch, "cpu")
    got = run(tandem, device)
    assert got.layout is tandem.strided and want.layout is torch.sparse_coo
    np.testing.assert_allclose(t2p(got).numpy(), want.to_dense().numpy())


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_assert_close_compares_sparse_parts(device):
    """testing.assert_close compares sparse tensors part by part with PyTorch's messages (read through the
    placeholders, any two of one size would pass)."""
    t, p = layouts(device)[0]
    cases = [(lambda x: x, lambda x: x * 2), (lambda x: x, lambda x: x.to_sparse_csr() * 2),
             (lambda x: x.to_sparse_csr(), lambda x: x.to_sparse_csr() * 2),
             (lambda x: x.to_sparse_csc(), lambda x: x.to_sparse_csc() * 2),
             (lambda x: x, lambda x: moved(x)), (lambda x: x.to_sparse_csr(), lambda x: moved(x).to_sparse_csr())]

    def moved(x):  # the same values one column to the left (other indices, coalesced)
        lib = tandem if isinstance(x, tandem.Tensor) else torch
        indices = x.indices().clone()
        indices[1] = (indices[1] + 2) % 3
        return lib.sparse_coo_tensor(indices, x.values(), x.shape).coalesce()

    for make_a, make_b in cases:
        tandem.testing.assert_close(make_a(t), make_a(t))
        with pytest.raises(AssertionError) as want:
            torch.testing.assert_close(make_a(p), make_b(p))
        with pytest.raises(AssertionError) as got:
            tandem.testing.assert_close(make_a(t), make_b(t), check_device=False)
        assert str(got.value).replace("tandem.", "torch.") == str(want.value)
    fewer = tandem.sparse_coo_tensor([[0], [2]], [3.0], (3, 3), device=device)
    raises_like(lambda: torch.testing.assert_close(p, torch.sparse_coo_tensor([[0], [2]], [3.0], (3, 3))),
                lambda: tandem.testing.assert_close(t, fewer), AssertionError)
    tandem.testing.assert_close(t, t.to_dense(), check_layout=False)
