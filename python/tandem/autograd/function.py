"""tandem.autograd.Function: custom differentiable operations written as a forward and a backward in Python
(over tandem ops). The node itself is C++ (python/src/autograd.cpp: PyFunctionNode)."""
import functools
import inspect
import warnings

from .. import _C
from .. import _func_transforms
from .._layouts import is_sparse_tensor
from ._function_node_attrs import remember_ctx
from .grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The `ctx` passed to forward and backward."""

    def save_for_backward(self, *tensors):
        """Tensors backward needs, version-checked and released after use (read back as ctx.saved_tensors).
        Checked after forward, and only when a node is recorded, as PyTorch's (_check_saved)."""
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        """Tensors a forward-mode `jvp` would read (as ctx.saved_for_forward). Functions that support both modes
        call it in forward even when only backward runs, so it has to exist; tandem has no forward-mode AD."""
        for tensor in tensors:
            if not (isinstance(tensor, _C.Tensor) or tensor is None):
                raise AssertionError("save_for_forward expects all arguments to be tensors; you should save "
                                     "non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors):
        """Inputs forward modified in place: returned as outputs, they take this Function's node as history."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class Function:
    """Subclass with @staticmethod forward(ctx, *args) and backward(ctx, *grad_outputs); call cls.apply(*args)."""

    # For torch.func.vmap: PyTorch batches the forward itself when True, else calls the vmap staticmethod.
    # tandem's vmap is a loop over the batch that runs the forward per element either way; the flag and the
    # override decide only whether the Function may be vmapped (python/tandem/_func_transforms.py).
    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself. Instantiating an autograd function will raise "
                      "an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        # Pre-1.3 code instantiated a Function with a non-static forward and called the instance (pytorch-wavenet's
        # ConstantPad1d(...)(input)); PyTorch refuses that with this message, pointing at the static form.
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    # A Function may define vjp instead of backward (PyTorch's alias; defining both is refused at backward).
    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward mode's rule (tandem has no dual tensors: under torch.func.jvp/jacfwd/linearize a Function
        still needs one, as in PyTorch, but tandem differentiates it through backward)."""
        raise NotImplementedError(_func_transforms.JVP_MESSAGE)

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError(_func_transforms.VMAP_MESSAGE)

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Override to use the split form: forward(*args) without ctx, then setup_context saves what backward
        needs from the inputs and the output."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def _uses_setup_context(cls):
        return getattr(cls.setup_context, "__func__", cls.setup_context) is not _BASE_SETUP_CONTEXT

    @classmethod
    def apply(cls, *args, **kwargs):
        _func_transforms.check_before_forward(cls, cls._uses_setup_context(), Function)
        ctx = FunctionCtx()
        ctx._to_save = ()
        ctx.materialize_grads = True
        if cls._uses_setup_context():
            # setup_context sees every argument forward takes, defaults filled in (PyTorch binds them the same way).
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
            inputs = args
        else:
            if kwargs:
                _check_keywords(cls.forward, kwargs)
            inputs = args + tuple(kwargs.values())  # keyword arguments are inputs too, after the positional ones
        # A sparse input (a Tensor over a placeholder, tandem/sparse/_base.py) gets no gradient from the node.
        ctx.needs_input_grad = tuple(isinstance(a, _C.Tensor) and a.requires_grad and not is_sparse_tensor(a)
                                     for a in inputs)
        with no_grad():
            if cls._uses_setup_context():
                result = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, result)
            else:
                result = cls.forward(ctx, *args, **kwargs)
        _func_transforms.check_after_forward(cls, Function, inputs, _C.Tensor)
        non_diff = getattr(ctx, "_non_differentiable", ())
        dirty = getattr(ctx, "_dirty", ())
        if non_diff or dirty:
            _check_marked(dirty, non_diff)
        if not (_C.is_grad_enabled() and any(ctx.needs_input_grad)):
            return result
        _check_saved(ctx._to_save)
        outputs = result if isinstance(result, tuple) else (result,)
        if not all(any(d is o for o in outputs) for d in dirty):
            raise RuntimeError("Some elements marked as dirty during the forward method were not returned as "
                               "output. The inputs that are modified inplace must all be outputs of the Function.")
        for d in dirty:
            if d.is_leaf and d.requires_grad and any(d is a for a in inputs):
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        # Outputs that are inputs returned as is get a fresh object, so the input keeps its own history; an
        # input modified in place (mark_dirty) is the output itself, its history now this Function's node.
        # (None, a number or another non-tensor returned beside the tensors is an output as it is, even when an
        # input is that same object.)
        outputs = tuple(o.detach() if isinstance(o, _C.Tensor) and any(o is a for a in inputs)
                        and not any(o is d for d in dirty) else o for o in outputs)
        is_diff = [isinstance(o, _C.Tensor) and not is_sparse_tensor(o) and not any(o is n for n in non_diff)
                   for o in outputs]
        diff = tuple(o for o, d in zip(outputs, is_diff) if d)
        to_save, ctx._to_save = tuple(ctx._to_save), ()  # the node keeps them; ctx holding them could be a cycle
        name = cls.__name__ + "Backward"
        backward = _checked_gradients(_user_backward(cls), name, inputs)
        if not all(t is None or type(t) is _C.Tensor for t in to_save):
            from ..sparse import _saved  # noqa: PLC0415  (sparse tensors are saved as their parts)

            to_save, backward = _saved.flatten(to_save, backward)
        # The engine fills a gradient that did not arrive with zeros before the node runs; the node's pre-hook
        # still sees it missing, so with set_materialize_grads(False) it notes which ones backward gets as None.
        arrived = None if ctx.materialize_grads else []
        if not all(is_diff) or arrived is not None:
            backward = _one_grad_per_output(backward, outputs, is_diff, ctx.materialize_grads, arrived)
        _C._record_function(name, backward, ctx, inputs, diff, to_save)
        node = next((o.grad_fn for o in diff if o.grad_fn is not None), None)  # integer outputs have none
        if node is not None:
            remember_ctx(node, ctx)
        if arrived is not None and node is not None:
            node.register_prehook(lambda grads: arrived.__setitem__(slice(None), [g is not None for g in grads]))
        return outputs if isinstance(result, tuple) else outputs[0]


def _check_saved(tensors):
    """PyTorch's check of what forward saved, made when the node is recorded (without one, nothing is saved)."""
    from .._dim_args import _tp_name  # noqa: PLC0415
    for i, t in enumerate(tensors):
        if t is not None and not isinstance(t, _C.Tensor) and not is_sparse_tensor(t):  # sparse: saved as parts
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type {_tp_name(t)}")


def _check_marked(dirty, non_differentiable):
    """PyTorch's checks of what forward marked, made after every forward (a node recorded or not)."""
    from .._dim_args import _tp_name  # noqa: PLC0415
    for i, t in enumerate(dirty):
        if not isinstance(t, _C.Tensor):
            raise RuntimeError(f"mark_dirty can only accept variables, but argument {i} is of type {_tp_name(t)}")
    for t in non_differentiable:
        if not isinstance(t, _C.Tensor):
            raise RuntimeError(f"mark_non_differentiable only accepts variable arguments, but got {_tp_name(t)}")


def _check_keywords(forward, kwargs):
    """PyTorch passes keyword arguments to forward by its named parameters only: anything else (a name forward
    lacks, or one only its **kwargs would take) is refused."""
    params = inspect.signature(forward).parameters
    for key in kwargs:
        param = params.get(key)
        if param is None or param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            raise TypeError(f"forward() got an unexpected keyword argument '{key}'")


_BASE_SETUP_CONTEXT = Function.setup_context
_BASE_BACKWARD = Function.backward


def _user_backward(cls):
    """The Function's backward rule: its vjp or its backward, chosen when backward runs, as PyTorch does."""
    def call(ctx, *grads):
        backward_fn, vjp_fn = cls.backward, cls.vjp
        if backward_fn is not _BASE_BACKWARD and vjp_fn is not _BASE_BACKWARD:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You "
                               "should only implement one of them.")
        return (vjp_fn if vjp_fn is not _BASE_BACKWARD else backward_fn)(ctx, *grads)
    return call


def _checked_gradients(backward, name, inputs):
    """backward with PyTorch's checks of what it returns: gradients past the last input are dropped when they
    are all None, a gradient for an input that is not a tensor is refused (the node would ignore it), and so is a
    complex gradient for a real input (the engine would cast it to the input's dtype, dropping the imaginary
    part)."""
    real_inputs = [isinstance(a, _C.Tensor) and not a.is_complex() for a in inputs]

    def checked(ctx, *grads):
        result = backward(ctx, *grads)
        items = result if isinstance(result, tuple) else (result,)
        if len(items) > len(inputs) and all(g is None for g in items[len(inputs):]):
            items = result = items[:len(inputs)]
        for i, (g, a) in enumerate(zip(items, inputs)):
            if g is not None and not isinstance(a, _C.Tensor):
                raise RuntimeError(f"function {name} returned a gradient different than None at position {i + 1}, "
                                   "but the corresponding forward input was not a Variable")
            if real_inputs[i] and isinstance(g, _C.Tensor) and g.is_complex():
                raise RuntimeError("Expected isFloatingType(grad.scalar_type()) || (input_is_complex == "
                                   f"grad_is_complex) to be true, but got false.\nhint: {name} returned a complex "
                                   f"gradient for the real input {i}; return its real part (grad.real)")
        if any(is_sparse_tensor(g) for g in items):
            # The engine carries strided gradients only (a sparse one would be read through its placeholder): a
            # dense input gets the dense form, a sparse input (which gets no gradient from the node) None.
            items = tuple(None if is_sparse_tensor(a) else g.to_dense() if is_sparse_tensor(g) else g
                          for g, a in zip(items, inputs))
            result = items if isinstance(result, tuple) else items[0]
        return result

    return checked


def _one_grad_per_output(backward, outputs, is_diff, materialize, arrived):
    """backward as PyTorch calls it, with one gradient per forward output: the node gets gradients only for the
    differentiable tensor outputs, so this puts the others back in place (zeros of a non-differentiable tensor
    output's shape when grads are materialized, else None; None for a non-tensor output), and None for a
    gradient that did not arrive when ctx.set_materialize_grads(False) was called."""
    # Only the shape, dtype and device of the other outputs are kept, not the tensors (no reference cycle).
    others = [None if d or not isinstance(o, _C.Tensor) else (tuple(o.shape), o.dtype, o.device)
              for o, d in zip(outputs, is_diff)]

    def with_every_output(ctx, *diff_grads):
        if arrived:
            diff_grads = tuple(g if came else None for g, came in zip(diff_grads, arrived))
        given = iter(diff_grads)
        grads = []
        for d, meta in zip(is_diff, others):
            if d:
                grads.append(next(given))
            elif meta is not None and materialize:
                grads.append(_C.zeros(meta[0], dtype=meta[1], device=meta[2]))
            else:
                grads.append(None)
        return backward(ctx, *grads)

    return with_every_output


class _DifferentiatedTwice(Function):
    """Passes tensors through unchanged; its backward is the refusal once_differentiable promises."""

    @staticmethod
    def forward(ctx, *tensors):
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


def once_differentiable(backward):
    """Decorates a Function's backward that is written with non-differentiable steps: it runs under no_grad, and
    when a graph is being built (create_graph=True with grads that require grad), its results are tied to a node
    that raises on a second differentiation, instead of silently giving a wrong higher-order gradient."""

    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        with no_grad():
            results = backward(ctx, *grad_outputs)
        if not (_C.is_grad_enabled() and any(isinstance(g, _C.Tensor) and g.requires_grad for g in grad_outputs)):
            return results
        single = not isinstance(results, tuple)
        items = (results,) if single else results
        # Only tensors can carry the refusing node; None (no gradient for that input) stays None.
        tensors = [r.detach().requires_grad_() for r in items if isinstance(r, _C.Tensor)]
        tied = iter(_DifferentiatedTwice.apply(*tensors)) if tensors else iter(())
        items = tuple(next(tied) if isinstance(r, _C.Tensor) else r for r in items)
        return items[0] if single else items

    return wrapper
