"""PyTorch's dtype check of an in-place clamp on an integer or bool tensor (Tensor.clamp_, clip_).

PyTorch promotes the tensor with its bounds and refuses a result its dtype cannot hold: `int_t.clamp_(0.5)` and
`int_t.clamp_(torch.tensor(0.5))` are RuntimeErrors, as is `bool_t.clamp_(0, 1)`. tandem's core clamps integer
tensors by a floating bound tensor without the check, so it is made here, before the core's clamp_. Floating and
complex tensors skip it (their bounds always fit, or the core raises PyTorch's overflow error), so the common
in-place clamp of weights or probabilities pays one attribute read."""
from . import _C


def _result_dtype(self, bounds):
    promoted = self.dtype
    for bound in bounds:
        promoted = _C.promote_types(promoted, _C.result_type(self, bound))
    return promoted


def _check_bounds_fit(self, min, max):
    bounds = [b for b in (min, max) if b is not None]
    promoted = _result_dtype(self, bounds)
    if _kind(promoted) > _kind(self.dtype):
        # PyTorch names the tensor's type as its C++ type for number bounds ("long int") and as its scalar
        # type for tensor bounds ("Long"): two different code paths, two spellings.
        numbers = any(not isinstance(b, _C.Tensor) for b in bounds)
        name = self.dtype._cpp_type_name if numbers else self.dtype._scalar_type_name
        raise RuntimeError(f"result type {promoted._scalar_type_name} can't be cast to the desired output type "
                           f"{name}")


def _kind(dtype):
    return 3 if dtype.is_complex else 2 if dtype.is_floating_point else 0 if dtype == _C.bool else 1


def _checked(core_method):
    def clamp_(self, min=None, max=None):
        if isinstance(self, _C.Tensor):  # anything else: the core's descriptor error ("doesn't apply to a 'list'")
            dtype = self.dtype
            if not (dtype.is_floating_point or dtype.is_complex) and (min is not None or max is not None):
                _check_bounds_fit(self, min, max)
        return core_method(self, min, max)

    clamp_.__name__ = clamp_.__qualname__ = core_method.__name__
    clamp_.__doc__ = core_method.__doc__
    return clamp_


def install():
    """Wraps the core's clamp_; installed before the aliases are made, so clip_ is this one too."""
    _C.Tensor.clamp_ = _checked(_C.Tensor.clamp_)
