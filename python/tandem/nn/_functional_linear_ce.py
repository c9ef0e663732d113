"""F.linear_cross_entropy (new in PyTorch 2.15): cross entropy of a linear projection, the reference path of
PyTorch's docstring (linear, reshape to (N, C, d_1, ..., d_K), cross_entropy) with its argument checks.

PyTorch's `options` (a LinearCrossEntropyOptions) selects a chunked computation that never builds the whole logits
tensor: the same loss with less memory. tandem accepts the options and always computes the reference path."""
__all__ = ["linear_cross_entropy"]


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(linear(input, W, b) as (N, C, *out_features), target) for linear_weight W of shape (C,
    *out_features, in_features); ignore_index None means -100 for class-index targets and must stay None for
    probability targets."""
    from . import functional as F  # noqa: PLC0415  (functional imports this module)

    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batch, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:  # cross_entropy's test for probabilities
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    logits = F.linear(input, linear_weight.reshape(-1, in_features),
                      None if linear_bias is None else linear_bias.reshape(-1))
    return F.cross_entropy(logits.reshape(logits_shape), target, weight, reduction=reduction,
                           ignore_index=-100 if ignore_index is None else ignore_index,
                           label_smoothing=label_smoothing)
