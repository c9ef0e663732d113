"""torch.utils.benchmark's fuzzer: Fuzzer draws sets of parameters (FuzzedParameter, ParameterAlias) and builds
tensors from them (FuzzedTensor: sizes named by parameters, strided by `steps`, sometimes laid out in a permuted
order), so a benchmark sweeps many shapes and layouts. Every choice comes from one NumPy RandomState seeded by
`seed`, drawn in PyTorch's order, so a seed gives the same parameters, sizes and layouts as PyTorch's fuzzer;
tensor values come from tandem's generator, seeded from that state."""
import functools
import itertools

import numpy as np

from ... import _C
from ..._finfo import finfo, iinfo

__all__ = ["Fuzzer", "FuzzedParameter", "ParameterAlias", "FuzzedTensor"]

_DISTRIBUTIONS = ("loguniform", "uniform")


class FuzzedParameter:
    """One parameter: drawn log-uniformly or uniformly in [minval, maxval] (integers when both bounds are), or
    from a dict of {value: probability}. A `strict` parameter keeps its first draw while the others are redrawn
    to satisfy the constraints."""

    def __init__(self, name, minval=None, maxval=None, distribution=None, strict=False):
        self._name = name
        self._minval = minval
        self._maxval = maxval
        self._distribution = self._check_distribution(distribution)
        self.strict = strict

    @property
    def name(self):
        return self._name

    def _check_distribution(self, distribution):
        if not isinstance(distribution, dict):
            if distribution not in _DISTRIBUTIONS:
                raise AssertionError(f"Unknown distribution: {distribution}")
            return distribution
        if any(p < 0 for p in distribution.values()):
            raise AssertionError("Probabilities cannot be negative")
        # (PyTorch's check is inverted and refuses every normalised dict; this one refuses the others)
        if abs(sum(distribution.values()) - 1) > 1e-5:
            raise AssertionError("Distribution is not normalized")
        if self._minval is not None:
            raise AssertionError("When passing a custom distribution, 'minval' must be None")
        if self._maxval is not None:
            raise AssertionError("When passing a custom distribution, 'maxval' must be None")
        return distribution

    def sample(self, state):
        if self._distribution == "loguniform":
            low = None if self._minval is None else np.log2(self._minval)
            high = None if self._maxval is None else np.log2(self._maxval)
            value = int(2 ** state.uniform(low=low, high=high))
            if self._minval is not None and value < self._minval:
                return self._minval
            if self._maxval is not None and value > self._maxval:
                return self._maxval
            return value
        if self._distribution == "uniform":
            if isinstance(self._minval, int) and isinstance(self._maxval, int):
                return int(state.randint(low=self._minval, high=self._maxval + 1))
            return state.uniform(low=self._minval, high=self._maxval)
        choices = list(self._distribution)
        return choices[state.choice(np.arange(len(choices)), p=tuple(self._distribution.values()))]


class ParameterAlias:
    """A parameter value that stands for another parameter's value (chains allowed, cycles refused)."""

    def __init__(self, alias_to):
        self.alias_to = alias_to

    def __repr__(self):
        return f"ParameterAlias[alias_to: {self.alias_to}]"


def dtype_size(dtype):
    if dtype == _C.bool:
        return 1
    if dtype.is_floating_point or dtype.is_complex:
        return int(finfo(dtype).bits / 8)  # a complex dtype counts one part's bytes, as PyTorch's
    return int(iinfo(dtype).bits / 8)


def prod(values, base=1):
    """A product in Python integers, which cannot overflow as NumPy's int64 can."""
    return functools.reduce(lambda x, y: int(x) * int(y), values, base)


class FuzzedTensor:
    """A tensor whose sizes (and `steps`, a stride multiplier per dim) are ints or parameter names; with
    probability 1 - probability_contiguous it is laid out in a random dimension order; `dim_parameter` cuts or
    pads its rank; min_elements/max_elements/max_allocation_bytes reject parameter sets."""

    def __init__(self, name, size, steps=None, probability_contiguous=0.5, min_elements=None, max_elements=None,
                 max_allocation_bytes=None, dim_parameter=None, roll_parameter=None, dtype=_C.float32, cuda=False,
                 tensor_constructor=None):
        self._name = name
        self._size = size
        self._steps = steps
        self._probability_contiguous = probability_contiguous
        self._min_elements = min_elements
        self._max_elements = max_elements
        self._max_allocation_bytes = max_allocation_bytes
        self._dim_parameter = dim_parameter
        self._dtype = dtype
        self._cuda = cuda
        self._tensor_constructor = tensor_constructor

    @property
    def name(self):
        return self._name

    @staticmethod
    def default_tensor_constructor(size, dtype, **kwargs):
        from ... import rand, randint  # noqa: PLC0415  (the package imports utils)
        if dtype.is_floating_point or dtype.is_complex:
            return rand(size=size, dtype=dtype, device="cpu")
        return randint(1, 127, size=size, dtype=dtype, device="cpu")

    def _get_size_and_steps(self, params):
        dim = params[self._dim_parameter] if self._dim_parameter is not None else len(self._size)

        def resolve(values):
            values = tuple(params.get(v, v) for v in values)[:dim]
            return values + (1,) * (dim - len(values))

        size = resolve(self._size)
        steps = resolve(self._steps or ())
        return size, steps, tuple(s * step for s, step in zip(size, steps))

    def _make_tensor(self, params, state):
        size, steps, allocation_size = self._get_size_and_steps(params)
        constructor = self._tensor_constructor or self.default_tensor_constructor
        raw = constructor(size=allocation_size, dtype=self._dtype, **params)
        if self._cuda:
            raw = raw.cuda()
        dim = len(size)
        order = np.arange(dim)
        if state.rand() > self._probability_contiguous:
            while dim > 1 and np.all(order == np.arange(dim)):
                order = state.permutation(raw.dim())
            raw = raw.permute(tuple(int(i) for i in order)).contiguous()
            raw = raw.permute(tuple(int(i) for i in np.argsort(order)))
        tensor = raw[tuple(slice(0, s * step, step) for s, step in zip(size, steps))]
        properties = {"numel": tensor.numel(), "order": order, "steps": steps,
                      "is_contiguous": tensor.is_contiguous(), "dtype": str(self._dtype)}
        return tensor, properties

    def satisfies_constraints(self, params):
        size, _, allocation_size = self._get_size_and_steps(params)
        numel = prod(size)
        if numel < 0:
            raise AssertionError("Computed number of elements is negative")
        allocation_bytes = prod(allocation_size, base=dtype_size(self._dtype))

        def above(value, bound):
            return value is not None and bound is not None and value > bound

        return not (above(numel, self._max_elements) or above(self._min_elements, numel)
                    or above(allocation_bytes, self._max_allocation_bytes))


class Fuzzer:
    """take(n) yields n (tensors, tensor_properties, params) triples; parameter sets failing a constraint (a
    callable given the dict of params) or a tensor's size limits are redrawn, up to 1000 times."""

    def __init__(self, parameters, tensors, constraints=None, seed=None):
        if seed is None:
            seed = int(np.random.RandomState().randint(0, 2 ** 32 - 1, dtype=np.int64))
        self._seed = seed
        self._parameters = self._flatten(parameters, FuzzedParameter)
        self._tensors = self._flatten(tensors, FuzzedTensor)
        self._constraints = constraints or ()
        overlap = {p.name for p in self._parameters} & {t.name for t in self._tensors}
        if overlap:
            raise ValueError(f"Duplicate names in parameters and tensors: {overlap}")
        self._rejections = 0
        self._total_generated = 0

    @staticmethod
    def _flatten(values, cls):
        return tuple(itertools.chain.from_iterable([v] if isinstance(v, cls) else v for v in values))

    def take(self, n):
        from ... import manual_seed  # noqa: PLC0415
        state = np.random.RandomState(self._seed)
        manual_seed(int(state.randint(low=0, high=2 ** 63, dtype=np.int64)))
        for _ in range(n):
            params = self._generate(state)
            tensors, properties = {}, {}
            for t in self._tensors:
                tensors[t.name], properties[t.name] = t._make_tensor(params, state)
            yield tensors, properties, params

    @property
    def rejection_rate(self):
        return self._rejections / self._total_generated if self._total_generated else 0.0

    def _generate(self, state):
        kept = {}  # strict parameters keep their first draw
        for _ in range(1000):
            params = {}
            for p in self._parameters:
                if p.strict and p.name in kept:
                    params[p.name] = kept[p.name]
                else:
                    params[p.name] = p.sample(state)
                    if p.strict:
                        kept[p.name] = params[p.name]
            params = self._resolve_aliases(params)
            self._total_generated += 1
            if not all(f(params) for f in self._constraints) or \
                    not all(t.satisfies_constraints(params) for t in self._tensors):
                self._rejections += 1
                continue
            return params
        raise ValueError("Failed to generate a set of valid parameters.")

    @staticmethod
    def _resolve_aliases(params):
        params = dict(params)
        pending = sum(isinstance(v, ParameterAlias) for v in params.values())
        while pending:
            for key, value in params.items():
                if isinstance(value, ParameterAlias):
                    params[key] = params[value.alias_to]
            still = sum(isinstance(v, ParameterAlias) for v in params.values())
            if still == pending:
                raise ValueError(f"ParameterAlias cycle detected\n{params}")
            pending = still
        return params
