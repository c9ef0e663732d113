"""Gradients for registered operators: register_autograd's (setup_context, backward) pair run as a
tandem.autograd.Function around the op's kernel. Tensor-list arguments and outputs are spread into the Function's
flat inputs and outputs and regrouped for the user's functions."""
from .. import _C
from ..autograd.function import Function
from . import schema as _schema

_FUNCTIONS = {}  # op name -> its generated Function class (named as PyTorch names it, for grad_fn's repr)


class _Call:
    """What the Function's forward and backward need to know about one call (the last Function argument)."""

    def __init__(self, op, args, kwargs):
        self.op, self.kwargs = op, kwargs
        self.lengths = [len(a) if isinstance(a, (list, tuple)) and any(isinstance(t, _C.Tensor) for t in a) else None
                        for a in args]
        self.flat_args = [v for a, n in zip(args, self.lengths) for v in (a if n is not None else (a,))]
        self.output_lengths = self.output_is_tuple = self.flat_outputs = None

    def regroup_outputs(self, tensors, other):
        """The op's outputs (lists regrouped) with `tensors` in the tensor outputs' places and other(v) in the
        others'."""
        it = iter(tensors)
        flat = [next(it) if isinstance(v, _C.Tensor) else other(v) for v in self.flat_outputs]
        out, i = [], 0
        for n in self.output_lengths:
            out.append(list(flat[i:i + n]) if n is not None else flat[i])
            i += 1 if n is None else n
        return out

    def regroup_inputs(self, flat):
        out, i = [], 0
        for n in self.lengths:
            out.append(list(flat[i:i + n]) if n is not None else flat[i])
            i += 1 if n is None else n
        return out


def _forward(ctx, *flat):
    call = flat[-1]
    args = call.regroup_inputs(flat[:-1])
    op = call.op
    result = op._call_kernel(tuple(args), call.kwargs)
    if op._setup_context is not None:
        inputs = _schema.fill_defaults(op._schema, args)
        if any(a.kwarg_only for a in op._schema.arguments):
            kwonly = {a.name: call.kwargs[a.name] if a.name in call.kwargs else _schema.default_value(a)
                      for a in op._schema.arguments if a.kwarg_only}
            op._setup_context(ctx=ctx, inputs=inputs, keyword_only_inputs=kwonly, output=result)
        else:
            op._setup_context(ctx=ctx, inputs=inputs, output=result)
    outputs = result if isinstance(result, tuple) else (result,)
    call.output_is_tuple = isinstance(result, tuple)
    call.output_lengths = [len(o) if isinstance(o, list) else None for o in outputs]
    # Only tensors go through the Function (it would treat an int output like a tensor); the rest wait in
    # call.flat_outputs, where the Function's tensor outputs take their places again.
    call.flat_outputs = [v for o in outputs for v in (o if isinstance(o, list) else (o,))]
    ctx._call = call
    return tuple(v for v in call.flat_outputs if isinstance(v, _C.Tensor))


def _backward(ctx, *grads):
    call, op = ctx._call, ctx._call.op
    if op._backward is None:
        raise RuntimeError(f"Trying to backward through {op} but no autograd formula was registered. Please use "
                           "register_autograd to add one.")
    # The Function passes one grad per tensor output; non-tensor outputs get None, lists are regrouped.
    per_output = call.regroup_outputs(grads, lambda v: None)
    flat_needs = ctx.needs_input_grad
    ctx.needs_input_grad = tuple(call.regroup_inputs(flat_needs[:-1]))
    try:
        result = op._backward(ctx, *per_output)
    finally:
        ctx.needs_input_grad = flat_needs
    return (*_check_gradients(op, call, result), None)


def _check_gradients(op, call, result):
    """PyTorch's checks of the count and structure of backward's gradients; the flat per-input gradients."""
    actual_inputs = len(call.lengths)
    positional = sum(not a.kwarg_only for a in op._schema.arguments)
    got = len(result) if isinstance(result, tuple) else 1
    if got not in (actual_inputs, positional):
        expected = str(actual_inputs) if actual_inputs == positional else f"{actual_inputs} or {positional}"
        raise RuntimeError(f"The backward formula for {op} returned an incorrect number of gradients (expected "
                           f"{expected}, got {got}). Expected one gradient for each forward input, or for each "
                           "positional input to the operator. Use None for inputs that do not require a gradient.")
    result = result if isinstance(result, tuple) else (result,)
    if any(g is not None for g in result[actual_inputs:]):
        raise RuntimeError(f"The backward formula for {op} returned a non-None gradient for an input that was not "
                           "passed to the operator. Defaulted inputs that were not passed through autograd must "
                           "return None.")
    flat = []
    for g, n in zip(result, call.lengths):
        if n is None:
            flat.append(g)
        elif isinstance(g, (list, tuple)) and len(g) == n:
            flat.extend(g)
        else:
            raise RuntimeError("Expected the return from backward to be of the same structure as the inputs. Got: "
                               f"{type(g).__name__} (return from backward) for a list of {n} tensors (inputs)")
    return flat


def _function_class(op):
    name = f"GeneratedBackwardFor_{op._namespace}_{op._opname}_{op._overloadname}"
    cls = _FUNCTIONS.get(name)
    if cls is None:
        cls = _FUNCTIONS[name] = type(name, (Function,), {"forward": staticmethod(_forward),
                                                          "backward": staticmethod(_backward)})
    return cls


def call_with_autograd(op, args, kwargs):
    """Runs the op: through its generated Function when grad mode is on and a tensor input requires grad, else
    straight to the kernel."""
    call = _Call(op, args, kwargs)
    if not (_C.is_grad_enabled() and any(isinstance(t, _C.Tensor) and t.requires_grad for t in call.flat_args)):
        return op._call_kernel(args, kwargs)
    outputs = call.regroup_outputs(_function_class(op).apply(*call.flat_args, call), lambda v: v)
    return tuple(outputs) if call.output_is_tuple else outputs[0]
