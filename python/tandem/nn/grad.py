"""torch.nn.grad (also reached as nn.functional.grad): the gradient of a convolution with respect to its input
(conv{1,2,3}d_input) or its weight (conv{1,2,3}d_weight), given the other operand and grad_output.

A convolution is linear in each operand, so each gradient is the vector-Jacobian product of tandem's own conv
at a zero stand-in for the missing operand: no separate kernels, every device, and the result differentiates
with respect to the operands given (as PyTorch's convolution_backward does) when they require grad."""
import tandem

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _require_floating(name, tensor):
    if not (tensor.is_floating_point() or tensor.is_complex()):  # no gradient to take (PyTorch has no kernel)
        raise NotImplementedError(f"\"{name}\" not implemented for '{tensor.dtype._scalar_type_name}'")


def _conv_vjp(name, n, input, weight, grad_output, stride, padding, dilation, groups, wrt):
    from . import functional as F  # noqa: PLC0415  (functional imports this module)

    stand_in = input if wrt == "input" else weight
    with tandem.enable_grad():
        out = getattr(F, f"conv{n}d")(input, weight, None, stride, padding, dilation, groups)
    if tuple(out.shape) != tuple(grad_output.shape):
        size = list(input.shape) if wrt == "input" else list(weight.shape)
        raise RuntimeError(f"{name}: a convolution with {'an' if wrt == 'input' else 'a'} {wrt} of size {size} gives an output of size "
                           f"{list(out.shape)}, but grad_output has size {list(grad_output.shape)}\n"
                           f"hint: pass the {wrt} size of the forward convolution, with its stride, padding and "
                           "dilation")
    given = grad_output.requires_grad or (weight if wrt == "input" else input).requires_grad
    return tandem.autograd.grad(out, stand_in, grad_output, create_graph=given and tandem.is_grad_enabled())[0]


def _input_grad(n):
    name = f"conv{n}d_input"

    def grad_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        _require_floating(name, grad_output)
        stand_in = tandem.zeros(tuple(input_size), dtype=grad_output.dtype, device=grad_output.device,
                                requires_grad=True)
        return _conv_vjp(name, n, stand_in, weight, grad_output, stride, padding, dilation, groups, "input")

    grad_input.__name__ = grad_input.__qualname__ = name
    grad_input.__doc__ = (f"The gradient of conv{n}d with respect to its input (of shape input_size), given weight "
                          "and grad_output.")
    return grad_input


def _weight_grad(n):
    name = f"conv{n}d_weight"

    def grad_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        _require_floating(name, input)
        stand_in = tandem.zeros(tuple(weight_size), dtype=input.dtype, device=input.device, requires_grad=True)
        return _conv_vjp(name, n, input, stand_in, grad_output, stride, padding, dilation, groups, "weight")

    grad_weight.__name__ = grad_weight.__qualname__ = name
    grad_weight.__doc__ = (f"The gradient of conv{n}d with respect to its weight (of shape weight_size), given "
                           "input and grad_output.")
    return grad_weight


conv1d_input, conv2d_input, conv3d_input = _input_grad(1), _input_grad(2), _input_grad(3)
conv1d_weight, conv2d_weight, conv3d_weight = _weight_grad(1), _weight_grad(2), _weight_grad(3)
