"""autograd.graph against PyTorch: GradientEdge / get_gradient_edge (the node and output number a tensor's
gradient is computed at, for leaves and non-leaves), tandem.autograd.grad/backward's refusal of edges (the engine
takes tensors), and allow_mutation_on_saved_tensors (in-place writes to saved tensors inside it, the usual
version-counter error outside it, nesting and backward-outside errors)."""
import gc
import warnings

import numpy as np
import pytest
import torch

import tandem

LIBS = [torch, tandem]


def _np(t):
    return t.detach().cpu().numpy()


def _dev(m, device):
    return device if m is tandem else "cpu"  # PyTorch here runs on the CPU only


# ---- GradientEdge / get_gradient_edge ----

def test_gradient_edge_is_a_namedtuple_with_pytorchs_fields():
    for m in LIBS:
        edge_type = m.autograd.graph.GradientEdge
        assert issubclass(edge_type, tuple)
        assert edge_type._fields == ("node", "output_nr", "ownership_token")
        assert edge_type(None, 1) == (None, 1, None)
        assert "GradientEdge" in m.autograd.graph.__all__ and "get_gradient_edge" in m.autograd.graph.__all__


def test_gradient_edge_of_a_leaf_is_its_accumulator(device):
    for m in LIBS:
        x = m.ones(3, device=_dev(m, device), requires_grad=True)
        edge = m.autograd.graph.get_gradient_edge(x)
        assert isinstance(edge, m.autograd.graph.GradientEdge)
        assert type(edge.node).__name__ == "AccumulateGrad" or edge.node.name() == "torch::autograd::AccumulateGrad"
        assert edge.output_nr == 0 and edge.ownership_token is None
        y = x * 2
        # The accumulator is the node the graph's edges lead to.
        assert y.grad_fn.next_functions[0][0] is edge.node
        assert m.autograd.graph.get_gradient_edge(x).node is edge.node


def test_gradient_edge_of_a_non_leaf_is_its_grad_fn_and_output_number(device):
    class TwoOutputs(tandem.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    for m in LIBS:
        x = m.tensor([1.0, 2.0], device=_dev(m, device), requires_grad=True)
        y = x.exp()
        edge = m.autograd.graph.get_gradient_edge(y)
        assert edge.node is y.grad_fn and edge.node.name() == "ExpBackward0" and edge.output_nr == 0
    x = tandem.tensor([1.0, 2.0], device=device, requires_grad=True)
    first, second = TwoOutputs.apply(x)
    e1, e2 = (tandem.autograd.graph.get_gradient_edge(t) for t in (first, second))
    assert e1.node is e2.node is first.grad_fn
    assert (e1.output_nr, e2.output_nr) == (0, 1)
    # A hook on the edge's node sees the gradient arriving at that output.
    seen = []
    e2.node.register_prehook(lambda grads: seen.append([None if g is None else g.tolist() for g in grads]))
    (first.sum() + (second * 5).sum()).backward()
    assert seen == [[[1.0, 1.0], [5.0, 5.0]]]
    assert x.grad.tolist() == [17.0, 17.0]


def test_gradient_edge_of_a_tensor_without_grad_raises_pytorchs_error(device):
    for m in LIBS:
        with pytest.raises(RuntimeError) as err:
            m.autograd.graph.get_gradient_edge(m.ones(2, device=_dev(m, device)))
        assert str(err.value) == ("It is not possible to get the gradient edge for a Tensor that does not "
                                  "require gradients")


def test_multi_grad_hook_over_an_edge_fails_as_pytorchs():
    for m in LIBS:
        c = m.ones(2, requires_grad=True) * 2
        edge = m.autograd.graph.get_gradient_edge(c)
        with pytest.raises(AttributeError) as err:
            m.autograd.graph.register_multi_grad_hook((c, edge), print)
        assert str(err.value) == "'GradientEdge' object has no attribute 'register_hook'"


def test_grad_and_backward_take_gradient_edges_of_live_tensors(device):
    """PyTorch's autograd.grad/backward accept edges as outputs and inputs; tandem's engine takes tensors, so an
    edge stands for the tensor get_gradient_edge took it from while that tensor lives (the upstream sweep 10,
    torchjd); once it is gone the edge is refused with a NotImplementedError that names the fix."""
    got = []
    for m, dev in ((tandem, device), (torch, "cpu")):
        x = m.ones(3, device=dev, requires_grad=True)
        y = x * 2
        z = (y * y).sum()
        edge = m.autograd.graph.get_gradient_edge(y)
        out = [m.autograd.grad(z, [edge], retain_graph=True)[0], m.autograd.grad(z, edge, retain_graph=True)[0],
               m.autograd.grad([edge], [x], [m.ones(3, device=dev)], retain_graph=True)[0]]
        m.autograd.backward(z, inputs=[x, edge], retain_graph=True)  # the non-leaf edge fills no .grad
        out.append(x.grad)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert y.grad is None
        got.append([_np(g) if m is tandem else g.numpy() for g in out])
    for a, b in zip(*got):
        np.testing.assert_array_equal(a, b)
    x = tandem.ones(3, device=device, requires_grad=True)
    y = x * 2
    z = (y * y).sum()
    edge = tandem.autograd.graph.get_gradient_edge(y)
    del y
    gc.collect()
    hint = ("a GradientEdge is supported only while the tensor get_gradient_edge took it from is alive (the backward "
            "engine takes tensors)\nhint: pass the tensor the edge was taken from (get_gradient_edge(t) -> t)")
    calls = [(lambda: tandem.autograd.grad(z, [edge], retain_graph=True), "grad"),
             (lambda: tandem.autograd.grad(z, edge, retain_graph=True), "grad"),
             (lambda: tandem.autograd.grad([edge], [x], [tandem.ones(3, device=device)]), "grad"),
             (lambda: tandem.autograd.backward(z, inputs=[x, edge], retain_graph=True), "backward")]
    for call, name in calls:
        with pytest.raises(NotImplementedError) as err:
            call()
        assert str(err.value) == f"tandem.autograd.{name}: {hint}"
    assert x.grad is None


# ---- allow_mutation_on_saved_tensors ----

def _mutate_saved(m, device, mutate):
    """b = a.clone() is saved by b**2 and by b.exp() (which saves its output e); `mutate` writes in place."""
    a = m.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=m.float64, device=_dev(m, device),
                 requires_grad=True)
    b = a.clone()
    e = b.exp()
    out = (b ** 2).sum() + (e * b).sum()
    mutate(b, e)
    return a, out


@pytest.mark.parametrize("mutate", [lambda b, e: b.sin_(), lambda b, e: b[0].mul_(3.0),
                                    lambda b, e: e.zero_(), lambda b, e: (b.add_(1.0), e.mul_(2.0))],
                         ids=["whole", "view", "saved-output", "both"])
def test_mutation_on_saved_tensors_keeps_the_saved_values(device, mutate):
    grads, values = [], []
    for m in LIBS:
        with m.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a, out = _mutate_saved(m, device, mutate)
            values.append(out.item())
            out.backward()
        assert type(ctx).__name__ == "_AllowMutationOnSavedContext"
        assert len(ctx.original) == 0 and len(ctx.cloned) == 0  # cleared on exit
        grads.append(_np(a.grad))
    assert values[0] == pytest.approx(values[1], rel=1e-12)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)
    # The gradient is the one of the unmutated graph.
    a = tandem.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=tandem.float64, requires_grad=True)
    ((a ** 2).sum() + (a.exp() * a).sum()).backward()
    np.testing.assert_allclose(grads[1], _np(a.grad), rtol=1e-12)


def test_unmutated_saved_tensors_come_back_as_they_are(device):
    with tandem.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = tandem.tensor([1.0, 2.0], device=device, requires_grad=True)
        out = (a * a).sum()
        assert len(ctx.original) == 1  # a, saved twice, is kept (and copied) once
        out.backward()
    assert a.grad.tolist() == [2.0, 4.0] and a.grad.device == tandem.device(device)


def test_mutation_outside_the_block_is_the_version_counter_error(device):
    for m in LIBS:
        with pytest.raises(RuntimeError) as err:
            a, out = _mutate_saved(m, device, lambda b, e: b.sin_())
            out.backward()
        first_line = str(err.value).splitlines()[0]
        assert first_line.startswith("one of the variables needed for gradient computation has been modified by "
                                     "an inplace operation: [")
        assert "is at version 1; expected version 0 instead." in first_line


def test_allow_mutation_errors_match_pytorch(device):
    for m in LIBS:
        graph = m.autograd.graph
        with graph.allow_mutation_on_saved_tensors():
            with pytest.raises(RuntimeError) as err:
                with graph.allow_mutation_on_saved_tensors():
                    pass
        assert str(err.value) == "allow_mutation_on_saved_tensors contexts cannot be nested"
        with graph.allow_mutation_on_saved_tensors():
            a, out = _mutate_saved(m, device, lambda b, e: None)
        with pytest.raises(AssertionError) as err:
            out.backward()
        assert str(err.value) == ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                                  "in which the graph was originally recorded.")
        with graph.allow_mutation_on_saved_tensors():
            with pytest.raises(RuntimeError, match="^no hooks here$"):
                with graph.disable_saved_tensors_hooks("no hooks here"):
                    pass
        # The block is usable again after each of these.
        with graph.allow_mutation_on_saved_tensors():
            a, out = _mutate_saved(m, device, lambda b, e: b.sin_())
            out.backward()
        assert a.grad is not None
