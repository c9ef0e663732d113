"""tandem.cuda.jiterator, as torch.cuda.jiterator: PyTorch compiles a CUDA C++ elementwise function at run time.
tandem cannot compile CUDA code at run time: creating the function works as in PyTorch, calling it raises
PyTorch's AssertionError without a CUDA device and NotImplementedError (with a hint) with one."""

__all__ = ["_create_jit_fn", "_create_multi_output_jit_fn"]


class _JittedFunction:
    def __init__(self, code_string, return_by_ref, num_outputs, **kwargs):
        self.code_string = code_string
        self.return_by_ref = return_by_ref
        self.num_outputs = num_outputs
        self.kwargs_dict = kwargs

    def __call__(self, *tensors, **kwargs):
        from . import is_available  # noqa: PLC0415
        if not is_available():
            raise AssertionError("Jiterator is only supported on CUDA and ROCm GPUs, none are available.")
        raise NotImplementedError("tandem cannot compile CUDA C++ at run time (jiterator)\nhint: write the "
                                  "function with tandem ops, which run on every device")


def _create_jit_fn(code_string, **kwargs):
    """A callable for the elementwise CUDA C++ function in ``code_string`` (not callable in tandem)."""
    return _JittedFunction(code_string, return_by_ref=False, num_outputs=1, **kwargs)


def _create_multi_output_jit_fn(code_string, num_outputs, **kwargs):
    """As _create_jit_fn, for a function with ``num_outputs`` outputs."""
    return _JittedFunction(code_string, return_by_ref=True, num_outputs=num_outputs, **kwargs)
