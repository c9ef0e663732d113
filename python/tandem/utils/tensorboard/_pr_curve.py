"""The pr_curves plugin's summary: a 6 x num_thresholds DT_FLOAT tensor of true/false positive/negative counts,
precision and recall per threshold, with PrCurvePluginData{version=1, num_thresholds=2} as metadata content."""
import numpy as np

from . import _protobuf as pb
from ._summaries import _DT_FLOAT, _metadata, _tensor_proto, _value, make_np

_MINIMUM_COUNT = 1e-7  # keeps precision and recall finite where no prediction reaches a threshold
_MAX_THRESHOLDS = 127  # PyTorch caps num_thresholds here


def compute_curve(labels, predictions, num_thresholds, weights=None):
    """tensorboard's algorithm: each prediction falls in bucket floor(p * (n - 1)); reverse cumulative sums of
    the (weighted) positives and negatives per bucket give TP and FP at each threshold i / (n - 1)."""
    weights = 1.0 if weights is None else weights
    buckets = np.int32(np.floor(predictions * (num_thresholds - 1)))
    positives = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_buckets, _ = np.histogram(buckets, bins=num_thresholds, range=span, weights=positives * weights)
    fp_buckets, _ = np.histogram(buckets, bins=num_thresholds, range=span, weights=(1.0 - positives) * weights)
    tp = np.cumsum(tp_buckets[::-1])[::-1]
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(_MINIMUM_COUNT, tp + fp)
    recall = tp / np.maximum(_MINIMUM_COUNT, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


def _pr_curve_value(tag, data, num_thresholds):
    content = pb.varint_field(2, num_thresholds)  # version 0 is the proto3 default, so it is not encoded
    data = np.asarray(data)
    tensor = _tensor_proto(_DT_FLOAT, pb.bytes_field(5, data.astype("<f4").reshape(-1).tobytes()),
                           list(data.shape))
    return _value(tag, _metadata("pr_curves", content), tensor=pb.bytes_field(8, tensor))


def pr_curve_value(tag, labels, predictions, num_thresholds=127, weights=None):
    num_thresholds = min(num_thresholds, _MAX_THRESHOLDS)
    weights = None if weights is None else make_np(weights)
    data = compute_curve(make_np(labels), make_np(predictions), num_thresholds, weights)
    return _pr_curve_value(tag, data, num_thresholds)


def pr_curve_raw_value(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127):
    num_thresholds = min(num_thresholds, _MAX_THRESHOLDS)
    data = np.stack([make_np(x) for x in (tp, fp, tn, fn, precision, recall)])
    return _pr_curve_value(tag, data, num_thresholds)
