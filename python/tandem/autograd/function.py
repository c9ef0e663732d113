"""tandem.autograd.Function: custom differentiable operations written as a forward and a backward in Python
(over tandem ops). The node itself is C++ (python/src/autograd.cpp: PyFunctionNode)."""
import warnings

from .. import _C
from .grad_mode import no_grad

__all__ = ["Function", "FunctionCtx"]


class FunctionCtx:
    """The `ctx` passed to forward and backward."""

    def save_for_backward(self, *tensors):
        """Tensors backward needs, version-checked and released after use (read back as ctx.saved_tensors)."""
        for i, t in enumerate(tensors):
            sparse = getattr(t, "is_sparse", False) or getattr(t, "is_sparse_csr", False)  # saved as their parts
            if t is not None and not isinstance(t, _C.Tensor) and not sparse:
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        self._to_save = tensors

    def mark_dirty(self, *tensors):
        """Inputs forward modified in place: returned as outputs, they take this Function's node as history."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class Function:
    """Subclass with @staticmethod forward(ctx, *args) and backward(ctx, *grad_outputs); call cls.apply(*args)."""

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

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        ctx._to_save = ()
        ctx.needs_input_grad = tuple(isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        with no_grad():
            result = cls.forward(ctx, *args)
        if not (_C.is_grad_enabled() and any(ctx.needs_input_grad)):
            return result
        outputs = result if isinstance(result, tuple) else (result,)
        non_diff = getattr(ctx, "_non_differentiable", ())
        dirty = getattr(ctx, "_dirty", ())
        if not all(any(d is o for o in outputs) for d in dirty):
            raise RuntimeError("Some elements marked as dirty during the forward method were not returned as "
                               "output. The inputs that are modified inplace must all be outputs of the Function.")
        for d in dirty:
            if d.is_leaf and d.requires_grad and any(d is a for a in args):
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        # Outputs that are inputs returned as is get a fresh object, so the input keeps its own history; an
        # input modified in place (mark_dirty) is the output itself, its history now this Function's node.
        outputs = tuple(o.detach() if any(o is a for a in args) and not any(o is d for d in dirty) else o
                        for o in outputs)
        diff = tuple(o for o in outputs if isinstance(o, _C.Tensor) and not any(o is n for n in non_diff))
        to_save, ctx._to_save = tuple(ctx._to_save), ()  # the node keeps them; ctx holding them could be a cycle
        backward = cls.backward
        if not all(t is None or isinstance(t, _C.Tensor) for t in to_save):
            from ..sparse import _saved  # noqa: PLC0415  (sparse tensors are saved as their parts)

            to_save, backward = _saved.flatten(to_save, backward)
        _C._record_function(cls.__name__ + "Backward", backward, ctx, tuple(args), diff, to_save)
        return outputs if isinstance(result, tuple) else outputs[0]
