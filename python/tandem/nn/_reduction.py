"""PyTorch's torch.nn._reduction: the reduction names as ATen's enum, and the deprecated size_average/reduce
pair read as a reduction name. Custom losses written against PyTorch import it (torchbnn's BKLLoss)."""
import warnings


def get_enum(reduction):
    """'none' -> 0, 'mean' -> 1, 'sum' -> 2 (ATen's Reduction enum); 'elementwise_mean' is 'mean' with a warning."""
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.", stacklevel=2)
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy_warning(reduction):
    return f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead."


def legacy_get_string(size_average, reduce, emit_warning=True):
    """The reduction that the deprecated size_average/reduce pair means (None counts as True)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(_legacy_warning(reduction), stacklevel=2)
    return reduction


def legacy_get_enum(size_average, reduce, emit_warning=True):
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
