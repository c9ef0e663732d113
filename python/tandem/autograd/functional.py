"""tandem.autograd.functional: jacobian, hessian, vjp, jvp, hvp and vhp of a whole function, as
torch.autograd.functional. Everything is built on the reverse-mode engine (autograd.grad): tandem has no forward
AD and no vmap, so jvp and hvp use the double-backward trick and `vectorize=True` computes the same rows one by
one. Results, tuple structure and error messages follow PyTorch's."""
import tandem

from .. import _C

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ---------------------------------------------------------------- argument bookkeeping (PyTorch's helpers)

def _as_tuple(inp, arg_name, fn_name):
    """(was it a tuple, the tensors as a tuple); TypeError naming the argument for anything but tensors."""
    is_tuple = isinstance(inp, tuple)
    if not is_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, _C.Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the"
                            f" {where} has type {type(el)}.")
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Undoes _as_tuple: to_unpack is one flag, or (outputs flag, inputs flag) for a nested result."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh tensor objects for the inputs, so gradients are taken w.r.t. these and not w.r.t. the same tensors
    captured inside func; with create_graph they stay connected to the caller's graph (a view)."""
    return tuple(inp.view_as(inp) if create_graph and inp.requires_grad else inp.detach().requires_grad_(need_graph)
                 for inp in inputs)


def _grad_postprocess(inputs, create_graph):
    """Drops the history of results unless the caller asked for a differentiable result."""
    if isinstance(inputs[0], _C.Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_REQUIRES_GRAD_ERRORS = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed"
               " in a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided"
                   " function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect to"
                " input {i} is independent of the input. This is not allowed in strict mode. You should ensure that"
                " your function is twice differentiable and that the jacobian depends on the inputs (this would be"
                " violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the input."
               " This is not allowed in strict mode. You should ensure that your function is thrice differentiable"
               " and that the hessian depends on the inputs.",
}


def _check_requires_grad(inputs, input_type, strict):
    """strict mode: every tensor in `inputs` must be connected to the graph."""
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:  # only reachable for grad_inputs
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}."
                               " This is not allowed in strict mode.")
        if not inp.requires_grad:
            raise RuntimeError(_REQUIRES_GRAD_ERRORS[input_type].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad that skips outputs which are None or need no gradient (all None when nothing is left)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return tandem.autograd.grad([o for o, _ in kept], list(inputs), [g for _, g in kept], allow_unused=True,
                                create_graph=create_graph, retain_graph=retain_graph)


_FILL_IN_ZEROS_ERRORS = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict"
            " mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when"
                  " using the double backward trick to compute forward mode gradients. This is not allowed in"
                  " strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in"
                   " strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the"
                         " grad_jacobian. This is not allowed in strict mode as it prevents from using the double"
                         " backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """None gradients become zeros shaped like refs[i] (the mathematical value), or strict-mode errors."""
    res = ()
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise RuntimeError(_FILL_IN_ZEROS_ERRORS[stage].format(i=i))
            grads_i = tandem.zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not"
                               " allowed in strict mode when create_graph=True.")
        res += (grads_i,)
    return res


def _prepare_v(v, refs, is_refs_tuple, create_graph, fn_name, none_message):
    """v as a tuple of detached tensors matching refs; None only when refs is one single-element tensor."""
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, refs, is_refs_tuple)
    elif len(refs) != 1 or refs[0].nelement() != 1:
        raise RuntimeError(none_message)
    return v


def _call(func, inputs, fn_name, strict):
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    return is_outputs_tuple, outputs


def _check_single_element(is_outputs_tuple, outputs, fn_name):
    if is_outputs_tuple or not isinstance(outputs[0], _C.Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


def _construct_standard_basis_for(tensors, tensor_numels):
    """The rows of the identity of size sum(tensor_numels), cut column-wise into one (total, numel) block per
    tensor (each in that tensor's dtype and device): vmapping a vjp over the rows of block i gives the Jacobian's
    columns for tensor i. PyTorch's helper, which pytorch-minimize imports."""
    total = sum(tensor_numels)
    blocks, start = [], 0
    for t, numel in zip(tensors, tensor_numels):
        block = t.new_zeros(total, numel)
        block.diagonal(-start).fill_(1)  # row start + j, column j
        blocks.append(block)
        start += numel
    return tuple(blocks)


_V_NONE_FOR_INPUT = ("The vector v can only be None if the input to the user-provided function is a single Tensor"
                     " with a single element.")


# ---------------------------------------------------------------- public API

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`."""
    with tandem.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, "vjp", strict)
        v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp",
                       "The vector v can only be None if the user-provided function returns a single Tensor with a"
                       " single element.")

    with tandem.set_grad_enabled(True if create_graph else tandem.is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")

    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-backward trick: the vjp is linear in its
    vector u, so differentiating u -> u^T J with respect to u in direction v gives J v."""
    with tandem.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp", _V_NONE_FOR_INPUT)
        is_outputs_tuple, outputs = _call(func, inputs, "jvp", strict)
        # u's value never reaches the result (linearity); zeros merely keep inf/nan out of the graph.
        grad_outputs = tuple(tandem.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)

    with tandem.set_grad_enabled(True if create_graph else tandem.is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")

    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_outputs_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at `inputs`: one tensor of shape out.shape + in.shape per (output, input) pair, nested
    as tuples exactly where func's outputs / the inputs were tuples.

    Each row is one reverse-mode pass. `vectorize=True` is accepted but computes the same rows one by one (tandem
    has no vmap); it keeps PyTorch's refusal of `strict=True`. `strategy="forward-mode"` needs forward AD, which
    tandem lacks: with `vectorize=False` it raises as PyTorch does, with `vectorize=True` the Jacobian (the same
    values) comes from reverse mode."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      '`strategy="forward-mode"` are not supported together (yet). Please either '
                                      'set `create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                               'not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            _as_tuple(inputs, "inputs", "jacobian")
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")

    with tandem.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")

        jacobian = ()
        for i, out in enumerate(outputs):
            rows = tuple([] for _ in inputs)
            flat_out = out.reshape(-1)
            for j in range(out.nelement()):
                vj = _autograd_grad((flat_out[j],), inputs, retain_graph=True, create_graph=create_graph)
                for el_idx, (rows_el, vj_el, inp_el) in enumerate(zip(rows, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            # PyTorch's message names the output index here.
                            raise RuntimeError(f"The jacobian of the user-provided function is independent of input"
                                               f" {i}. This is not allowed in strict mode when create_graph=True.")
                        rows_el.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input"
                                               f" {el_idx}. This is not allowed in strict mode.")
                        rows_el.append(tandem.zeros_like(inp_el))
            jacobian += (tuple(tandem.stack(rows_el, dim=0).view(tuple(out.size()) + tuple(inputs[el_idx].size()))
                               for el_idx, rows_el in enumerate(rows)),)

        jacobian = _grad_postprocess(jacobian, create_graph)
        if strategy == "forward-mode":  # PyTorch's forward-mode path nests lists, not tuples
            jacobian = [list(row) for row in jacobian]
        return _tuple_postprocess(jacobian, (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar func: the jacobian of its jacobian (same options and fallbacks as jacobian)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        _check_single_element(is_out_tuple, t_out, "hessian")
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar func."""
    with tandem.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "vhp", _V_NONE_FOR_INPUT)
        is_outputs_tuple, outputs = _call(func, inputs, "vhp", strict)
        _check_single_element(is_outputs_tuple, outputs, "vhp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)

    with tandem.set_grad_enabled(True if create_graph else tandem.is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")

    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar func, by the double-backward trick applied to the gradient (H is symmetric
    for smooth functions, so this equals vhp there, but it is computed as PyTorch does)."""
    with tandem.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "hvp", _V_NONE_FOR_INPUT)
        is_outputs_tuple, outputs = _call(func, inputs, "hvp", strict)
        _check_single_element(is_outputs_tuple, outputs, "hvp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        grad_jac = tuple(tandem.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)

    with tandem.set_grad_enabled(True if create_graph else tandem.is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")

    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)
