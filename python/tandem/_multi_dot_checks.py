"""PyTorch's argument checks for linalg.multi_dot, in its order and with its messages (before, tandem chained `@`,
which broadcast a 3-D middle tensor instead of refusing it and named mm's shapes and dtypes, not multi_dot's)."""

# C++'s names of the dtypes (caffe2::TypeMeta), which PyTorch's dtype messages print.
_TYPEMETA_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                   "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                   "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
                   "complex128": "c10::complex<double>"}


def typemeta_name(dtype):
    name = str(dtype).rsplit(".", 1)[-1]
    return _TYPEMETA_NAMES.get(name, name)


def check_multi_dot(tensors):
    """Refuses what PyTorch's multi_dot refuses: fewer than 2 tensors, ends that are not 1-D or 2-D, middle
    tensors that are not 2-D, mixed dtypes, neighbours whose inner sizes differ."""
    for i, t in enumerate(tensors):  # PyTorch's argument parser reads the list as argument 0, a TensorList
        if not hasattr(t, "dim") or not hasattr(t, "dtype"):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for position, t in (("first", tensors[0]), ("last", tensors[-1])):
        if t.dim() not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {position} tensor must be 1D or 2D but got {t.dim()}D")
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].dim()}D")
    for i in range(1, n):
        if tensors[i].dtype != tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{typemeta_name(tensors[0].dtype)} and tensor {i} {typemeta_name(tensors[i].dtype)}")
    for i in range(n - 1):
        left, right = tensors[i], tensors[i + 1]
        if left.shape[-1] != right.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(left.shape)} and "
                               f"{list(right.shape)} cannot be multiplied")
