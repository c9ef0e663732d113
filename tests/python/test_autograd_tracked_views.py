"""Writes of values that require grad into plain tensors that have indexing views (x[...] taken in grad mode):
the base and every such view get their history, as PyTorch's views do (CopySlices on the base, the views a
region of it), whichever of them is written and however deep the views of views go."""
import threading

import pytest
import torch

import tandem

F64 = tandem.float64


def both(fn):
    """fn(L) for L in (torch, tandem): its results, which must be equal."""
    got = [fn(L) for L in (torch, tandem)]
    assert got[1] == got[0]
    return got[1]


def test_view_of_a_view_of_a_temporary_takes_the_write():
    # kornia: out = zeros_like(q)[..., :3]; out[..., 0] += a
    def run(L):
        a = L.arange(1.0, 5.0, dtype=L.float64, requires_grad=True)
        out = L.zeros(4, 4, dtype=L.float64)[..., :3]
        out[..., 0] += a
        out[..., 2] = a * a
        (out * L.arange(12.0, dtype=L.float64).reshape(4, 3)).sum().backward()
        return out.requires_grad, out.grad_fn.name(), out.tolist(), a.grad.tolist()

    requires_grad, name, _, _ = both(run)
    assert requires_grad and name == "AsStridedBackward0"


def test_sibling_views_see_the_history_of_a_write_through_another():
    def run(L):
        v = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
        z = L.zeros(3, 2, dtype=L.float64)
        row0, row1 = z[0], z[1]
        z[2] = v * 3
        # (grad_fn before requires_grad: PyTorch 2.15 takes row1 for a leaf in `row1 += v` when only its
        # requires_grad was read after the write through z)
        before = (row0.grad_fn.name(), row1.grad_fn.name(), row0.requires_grad, row1.requires_grad)
        row1 += v
        (row0.sum() + 2 * row1.sum() + 5 * z[2].sum()).backward()
        return before, row0.requires_grad, row1.grad_fn.name(), z.grad_fn.name(), v.grad.tolist()

    before, row0_requires_grad, _, base_fn, _ = both(run)
    assert before == ("AsStridedBackward0", "AsStridedBackward0", True, True)
    assert row0_requires_grad and base_fn == "torch::autograd::CopySlices"


def test_writing_the_base_in_place_gives_its_views_history():
    def run(L):
        v = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        z = L.ones(3, dtype=L.float64)
        tail = z[1:]
        z.mul_(v)
        (tail * L.tensor([10.0, 100.0], dtype=L.float64)).sum().backward()
        return tail.requires_grad, tail.tolist(), v.grad.tolist()

    assert both(run)[2] == [0.0, 10.0, 100.0]


def test_views_of_views_three_deep():
    def run(L):
        a = L.tensor([2.0, 3.0], dtype=L.float64, requires_grad=True)
        z = L.zeros(4, 5, dtype=L.float64)
        inner = z[1:][0][1:3]
        inner.add_(a * a)
        z.sum().backward()
        return z.tolist(), a.grad.tolist()

    assert both(run)[1] == [4.0, 6.0]


def test_dead_views_leave_no_trace():
    def run(L):
        z = L.zeros(100, 2, dtype=L.float64)
        rows = [z[i] for i in range(100)]
        del rows[::2]
        keep = rows[-1]
        del rows
        v = L.tensor([1.0, 1.0], dtype=L.float64, requires_grad=True)
        z[0] = v * 4
        keep.sum().backward(retain_graph=True)
        z.sum().backward()
        return keep.requires_grad, v.grad.tolist()

    assert both(run) == (True, [4.0, 4.0])


def test_memory_shared_with_an_untracked_tensor_is_still_refused():
    z = tandem.zeros(3, 2, dtype=F64)
    with tandem.no_grad():
        flat = z.view(6)  # noqa: F841 (taken without grad mode: not tracked, it would miss the history)
    v = tandem.tensor([1.0, 2.0], dtype=F64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="shares memory with others"):
        z[1] = v * 2
    with pytest.raises(NotImplementedError, match="shares memory with others"):
        z[1].add_(v)


def test_threads_indexing_one_plain_tensor():
    z = tandem.arange(1000.0)
    sums = []

    def work():
        total = 0.0
        for i in range(2000):
            total += z[i % 1000].item()
        sums.append(total)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sums == [sum(float(i % 1000) for i in range(2000))] * 4
    v = tandem.tensor(2.0, requires_grad=True)
    z[3] = v * 5  # no views left alive: the write is taken
    z.sum().backward()
    assert v.grad.item() == 5.0


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_tracked_views_on_every_device(device):
    if device == "cuda" and not tandem.cuda.is_available():
        pytest.skip("no CUDA device (real or emulated)")
    a = tandem.tensor([1.0, 2.0], device=device, requires_grad=True)
    out = tandem.zeros(2, 3, device=device)[:, 1:]
    out[:, 0] += a
    out.sum().backward()
    assert out.device.type == device and a.grad.device.type == device
    assert a.grad.tolist() == [1.0, 1.0]


def test_a_write_with_history_through_data_keeps_the_parameter_a_leaf():
    # vector-quantize's EMA codebook update, gpytorch's variational initialisation
    def run(L):
        p = L.nn.Parameter(L.zeros(3, dtype=L.float64))
        v = L.ones(3, dtype=L.float64, requires_grad=True)
        alias = p.data
        alias.copy_(v * 2)
        (alias * L.tensor([1.0, 2.0, 3.0], dtype=L.float64)).sum().backward()
        return p.tolist(), p.is_leaf, p.grad_fn is None, alias.requires_grad, v.grad.tolist()

    assert both(run) == ([2.0, 2.0, 2.0], True, True, True, [2.0, 4.0, 6.0])


VIEW_KINDS = {
    "view": lambda L, x: x.view(6),
    "reshape": lambda L, x: x.reshape(2, 3),
    "view_as": lambda L, x: x.view_as(L.ones(6)),
    "flatten": lambda L, x: x.flatten(),
    "unsqueeze": lambda L, x: x.unsqueeze(0),
    "squeeze": lambda L, x: x.unsqueeze(1).squeeze(1),
    "transpose": lambda L, x: x.transpose(0, 1),
    "permute": lambda L, x: x.permute(1, 0),
    "ellipsis": lambda L, x: x[...],
    "as_subclass": lambda L, x: x.as_subclass(type("Sub", (L.Tensor,), {})),
    "function_form": lambda L, x: L.reshape(x, (6,)),
}


@pytest.mark.parametrize("kind", VIEW_KINDS)
def test_a_write_with_history_into_a_base_with_a_view_method_view(kind):
    """pyro's TraceGraph_ELBO: `elbo -= log_prob_sum` into a sum that an as_subclass view shares."""
    def run(L):
        x = L.zeros(3, 2, dtype=L.float64)
        v = VIEW_KINDS[kind](L, x)
        y = L.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=L.float64, requires_grad=True)
        x.sub_(y * 2)
        (x.sum() + (v * v).sum()).backward()
        return v.requires_grad, v.tolist(), y.grad.tolist()

    both(run)


@pytest.mark.parametrize("kind", ["view", "as_subclass"])
def test_a_write_through_a_view_method_view_gives_the_base_history(kind):
    def run(L):
        x = L.zeros(3, 2, dtype=L.float64)
        v = VIEW_KINDS[kind](L, x)
        y = L.ones(6 if kind == "view" else (3, 2), dtype=L.float64, requires_grad=True)
        v.add_(y * 3)
        (x * x).sum().backward()
        return x.requires_grad, x.tolist(), y.grad.tolist()

    both(run)
