"""Custom autograd.Function forms found missing by the utility program sweep (test_programs_sweeputil.py): the
@once_differentiable decorator, one gradient per forward output in backward (non-differentiable and non-tensor
outputs included), set_materialize_grads(False), the forward/setup_context split with its argument binding,
keyword arguments to apply, and PyTorch's checks of the gradients backward returns. Each case runs under PyTorch
and tandem and what backward saw, the gradients and the errors are compared."""
import pytest
import torch as real_torch

import tandem

_DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])


def seen(grads):
    """What a backward was given, in plain values: None, or (dtype name, shape, values)."""
    return [None if g is None else (str(g.dtype).split(".")[-1], list(g.shape), g.tolist()) for g in grads]


def both(case, device):
    want = case(real_torch, "cpu")
    got = case(tandem, device)
    assert got == want


# ---- once_differentiable -----------------------------------------------------------------------------------------
def clamp_with_mask(torch):
    once = torch.autograd.function.once_differentiable

    class ClampGrad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, low):
            ctx.save_for_backward(x)
            ctx.low = low
            return x.clamp(min=low)

        @staticmethod
        @once
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * (x > ctx.low).to(g.dtype), None

    return ClampGrad


@pytest.mark.parametrize("device", _DEVICES)
def test_once_differentiable_gives_the_first_gradient(device):
    def case(torch, dev):
        x = torch.tensor([-1.0, 0.5, 2.0], device=dev, requires_grad=True)
        y = clamp_with_mask(torch).apply(x, 0.0)
        (g,) = torch.autograd.grad((y * y).sum(), x)
        return [y.tolist(), g.tolist(), g.requires_grad]
    both(case, device)


@pytest.mark.parametrize("device", _DEVICES)
def test_once_differentiable_refuses_a_second_differentiation(device):
    def case(torch, dev):
        x = torch.tensor([-1.0, 0.5, 2.0], device=dev, requires_grad=True)
        y = clamp_with_mask(torch).apply(x, 0.0)
        (g,) = torch.autograd.grad((y * y).sum(), x, create_graph=True)
        with pytest.raises(RuntimeError) as info:
            g.sum().backward()
        return [g.requires_grad, str(info.value)]
    both(case, device)


def test_once_differentiable_without_a_graph_to_build_returns_plain_tensors():
    # create_graph=True but grads that do not require grad (the loss is linear in y): nothing to refuse later
    def case(torch, dev):
        x = torch.tensor([-1.0, 0.5, 2.0], device=dev, requires_grad=True)
        y = clamp_with_mask(torch).apply(x, 0.0)
        (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
        return [g.tolist(), g.requires_grad]
    both(case, "cpu")


def test_once_differentiable_keeps_the_name_and_docstring():
    def backward(ctx, g):
        """doc"""
        return g
    wrapped = tandem.autograd.function.once_differentiable(backward)
    assert (wrapped.__name__, wrapped.__doc__) == ("backward", "doc")


# ---- one gradient per output -------------------------------------------------------------------------------------
def argmax_function(torch, materialize, log):
    class ValueIndexCount(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            idx = x.argmax()
            ctx.mark_non_differentiable(idx)
            return x * 2, idx, 3, x * 3

        @staticmethod
        def backward(ctx, g_double, g_idx, g_count, g_triple):
            log.append(seen([g_double, g_idx, g_count, g_triple]))
            return None if g_double is None else g_double * 2

    return ValueIndexCount


@pytest.mark.parametrize("device", _DEVICES)
@pytest.mark.parametrize("materialize", [True, False])
def test_backward_gets_one_gradient_per_output(device, materialize):
    def case(torch, dev):
        log = []
        x = torch.tensor([1.0, 3.0, 2.0], device=dev, requires_grad=True)
        double, idx, count, triple = argmax_function(torch, materialize, log).apply(x)
        double.sum().backward()
        return [log, x.grad.tolist(), idx.requires_grad, count, triple.requires_grad]
    both(case, device)


@pytest.mark.parametrize("device", _DEVICES)
def test_unmaterialized_gradients_of_unused_outputs_are_none(device):
    def case(torch, dev):
        log = []

        class Split(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, a, b):
                log.append(seen([a, b]))
                return (0 if a is None else a * 2) + (0 if b is None else b * 3)

        x = torch.ones(2, device=dev, requires_grad=True)
        first, second = Split.apply(x)
        second.sum().backward(retain_graph=True)
        (first.sum() + second.sum()).backward()
        return [log, x.grad.tolist()]
    both(case, device)


def test_full_backward_hook_sees_none_for_an_unused_output():
    # Module hooks run through a Function that does not materialize gradients, as PyTorch's BackwardHook does.
    def case(torch, dev):
        log = []

        class Two(torch.nn.Module):
            def forward(self, x):
                return x * 2, x * 3

        m = Two()
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", seen(go))))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("hook", seen(go), seen(gi))))
        x = torch.ones(2, requires_grad=True)
        a, _ = m(x)
        a.sum().backward()
        return [log, x.grad.tolist()]
    both(case, "cpu")


# ---- forward / setup_context split, keyword arguments ------------------------------------------------------------
def scaled(torch, log):
    class Scaled(torch.autograd.Function):
        @staticmethod
        def forward(x, scale=2.0):
            return x * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            log.append([len(inputs), inputs[1], list(ctx.needs_input_grad)])
            ctx.scale = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.scale, None

    return Scaled


@pytest.mark.parametrize("device", _DEVICES)
@pytest.mark.parametrize("call", ["default", "positional", "keyword"])
def test_setup_context_sees_inputs_with_defaults_bound(device, call):
    def case(torch, dev):
        log = []
        x = torch.ones(2, device=dev, requires_grad=True)
        f = scaled(torch, log)
        y = {"default": lambda: f.apply(x), "positional": lambda: f.apply(x, 3.0),
             "keyword": lambda: f.apply(x, scale=4.0)}[call]()
        y.sum().backward()
        return [log, y.tolist(), x.grad.tolist(), y.grad_fn.name()]
    both(case, device)


@pytest.mark.parametrize("args", [(), ("x", 1.0, 2.0)])
def test_setup_context_binding_errors(args):
    for lib in (real_torch, tandem):
        x = lib.ones(1, requires_grad=True)
        call = [x if a == "x" else a for a in args]
        want = "missing a required argument: 'x'" if not args else "too many positional arguments"
        with pytest.raises(TypeError, match=want):
            scaled(lib, []).apply(*call)


def test_base_setup_context_is_not_implemented():
    for lib in (real_torch, tandem):
        with pytest.raises(NotImplementedError, match="setup_context is not implemented."):
            lib.autograd.Function.setup_context(None, (), None)


def test_keyword_arguments_are_inputs_after_the_positional_ones():
    def case(torch, dev):
        log = []

        class Mul(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, scale=2.0):
                log.append(list(ctx.needs_input_grad))
                ctx.save_for_backward(x, scale)
                return x * scale

            @staticmethod
            def backward(ctx, g):
                x, scale = ctx.saved_tensors
                return g * scale, g * x

        x = torch.tensor([1.0, 2.0], requires_grad=True)
        s = torch.tensor([3.0, 4.0], requires_grad=True)
        Mul.apply(x, scale=s).sum().backward()
        return [log, x.grad.tolist(), s.grad.tolist()]
    both(case, "cpu")


# ---- what backward returns ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("returned", ["extra_nones", "grad_for_number", "too_many", "too_few", "single"])
@pytest.mark.parametrize("call", ["keyword", "positional", "tensor_only"])
def test_backward_gradient_count_checks(returned, call):
    def case(torch, dev):
        make = {"extra_nones": lambda g: (g, None, None), "grad_for_number": lambda g: (g, g),
                "too_many": lambda g: (g, g), "too_few": lambda g: (), "single": lambda g: g}[returned]

        class Scale(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, scale=2.0):
                return x * scale

            @staticmethod
            def backward(ctx, g):
                return make(g)

        x = torch.ones(1, requires_grad=True)
        y = {"keyword": lambda: Scale.apply(x, scale=3.0), "positional": lambda: Scale.apply(x, 3.0),
             "tensor_only": lambda: Scale.apply(x)}[call]()
        try:
            y.sum().backward()
        except RuntimeError as exc:
            return str(exc).split("\n")[0]  # tandem adds a hint line
        return x.grad.tolist()
    both(case, "cpu")
