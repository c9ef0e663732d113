"""`t.data = src` (and Module.cuda()/.to(), which use it) against PyTorch: the tensor keeps its identity and its
autograd state, views src's memory, and a leaf moved to another device or dtype gets its gradients there, also
while a graph recorded before the move is still alive, and keeps its post-accumulate-grad hooks."""
import pytest
import torch

import tandem

needs_cuda = pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a cuda device (real or emulated)")


def test_data_assignment_keeps_identity_and_shares_memory():
    w = tandem.nn.Parameter(tandem.zeros(3))
    src = tandem.arange(6.0).view(2, 3)
    w.data = src
    assert isinstance(w, tandem.nn.Parameter) and w.requires_grad and w.is_leaf
    assert w.shape == (2, 3) and w.data_ptr() == src.data_ptr()
    src[0, 0] = 7.0
    assert w[0, 0].item() == 7.0


@needs_cuda
@pytest.mark.parametrize("keep_old_graph", [False, True])
def test_module_moved_after_backward_trains_on_cuda(keep_old_graph):
    torch.manual_seed(0)
    ref = torch.nn.Linear(3, 2).double()
    m = tandem.nn.Linear(3, 2).double()
    with tandem.no_grad():
        m.weight.copy_(tandem.tensor(ref.weight.detach().numpy()))
        m.bias.copy_(tandem.tensor(ref.bias.detach().numpy()))
    x = torch.randn(4, 3, dtype=torch.float64)
    xt = tandem.tensor(x.numpy())
    out_ref, out = ref(x).sum(), m(xt).sum()
    out_ref.backward(retain_graph=True)
    out.backward(retain_graph=True)
    if not keep_old_graph:
        del out
    m.cuda()
    assert m.weight.device == tandem.device("cuda:0") and m.weight.grad.device == tandem.device("cuda:0")
    (m(xt.cuda()) * 3).sum().backward()
    (ref(x) * 3).sum().backward()
    for p, q in ((m.weight, ref.weight), (m.bias, ref.bias)):
        assert p.grad.device == tandem.device("cuda:0") and p.grad.dtype == tandem.float64
        assert p.grad.cpu().flatten().tolist() == pytest.approx(q.grad.flatten().tolist(), rel=1e-12)


@needs_cuda
def test_leaf_moved_with_data_gets_gradients_on_its_new_device():
    w = tandem.ones(3, requires_grad=True)
    old = (w * 2).sum()  # records w's accumulator on cpu
    w.data = w.data.cuda()
    (w * 5).sum().backward()
    assert w.grad.device == tandem.device("cuda:0") and w.grad.cpu().tolist() == [5.0, 5.0, 5.0]
    del old


def test_leaf_with_new_dtype_gets_gradients_in_it():
    w = tandem.ones(3, requires_grad=True)
    old = (w * 2).sum()
    w.data = w.data.double()
    (w * 5).sum().backward()
    ref = torch.ones(3, requires_grad=True)
    ref_old = (ref * 2).sum()
    ref.data = ref.data.double()
    (ref * 5).sum().backward()
    assert str(w.grad.dtype) == str(ref.grad.dtype).replace("torch", "tandem") == "tandem.float64"
    assert w.grad.tolist() == ref.grad.tolist()
    del old, ref_old


@needs_cuda
def test_post_accumulate_grad_hook_survives_a_move():
    m = tandem.nn.Linear(3, 2)
    seen = []
    m.weight.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.device))
    m(tandem.ones(1, 3)).sum().backward()
    m.cuda()
    m(tandem.ones(1, 3, device="cuda")).sum().backward()
    assert seen == [tandem.device("cpu"), tandem.device("cuda:0")]
    assert m.weight.grad.device == tandem.device("cuda:0")
