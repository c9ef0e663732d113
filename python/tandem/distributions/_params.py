"""Constructor and expand bodies shared by the families whose parameters all broadcast to the batch shape
(Normal, Laplace, Cauchy, Gamma: loc/scale or concentration/rate)."""
from numbers import Number

import tandem

from .utils import broadcast_all


def set_broadcast_params(dist, **params):
    """Sets the parameters, broadcast to one shape, as attributes of ``dist``; returns the batch shape (empty
    when every parameter was a Python number)."""
    values = broadcast_all(*params.values())
    for name, value in zip(params, values):
        setattr(dist, name, value)
    if all(isinstance(v, Number) for v in params.values()):
        return tandem.Size()
    return values[0].size()


def expand_params(cls, dist, names, batch_shape, _instance=None):
    """``cls.expand``: a ``cls`` instance whose named parameters are ``dist``'s expanded to batch_shape."""
    new = dist._get_checked_instance(cls, _instance)
    batch_shape = tandem.Size(batch_shape)
    for name in names:
        setattr(new, name, getattr(dist, name).expand(batch_shape))
    super(cls, new).__init__(batch_shape, validate_args=False)
    new._validate_args = dist._validate_args
    return new
