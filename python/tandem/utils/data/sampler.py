"""Samplers: the order in which a DataLoader visits a dataset, and how indices group into batches. Random
samplers draw from tandem's generators (the default one unless given), so tandem.manual_seed makes them
reproducible; the draws follow PyTorch's distributions, not its exact numbers."""
import itertools
from typing import Generic, TypeVar

import tandem

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "WeightedRandomSampler"]

_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
    """Base class: subclasses define __iter__ (and usually __len__). Subscriptable, as Sampler[int]."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    def __init__(self, data_source):
        self.data_source = data_source

    def order(self):
        """The whole visiting order as an int64 tensor."""
        return tandem.arange(len(self.data_source))

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A fresh permutation per epoch (several, cut to num_samples, when num_samples > len), or num_samples
    uniform draws with replacement; from ``generator`` (the default generator when None)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def _epoch_generator(self):
        """The generator of one epoch's draws: the given one, else (as PyTorch) a fresh one seeded from one int64
        draw of the default generator, so that after tandem.manual_seed(s) the order is PyTorch's."""
        if self.generator is not None:
            return self.generator
        generator = tandem.Generator()
        generator.manual_seed(int(tandem.empty((), dtype=tandem.int64).random_().item()))
        return generator

    def order(self):
        """The epoch's whole order as an int64 tensor (what __iter__ yields, from the same draws)."""
        n, count, generator = len(self.data_source), self.num_samples, self._epoch_generator()
        if self.replacement:
            return tandem.cat([tandem.randint(0, n, (size,), dtype=tandem.int64, generator=generator)
                               for size in [32] * (count // 32) + [count % 32]])
        perms = [tandem.randperm(n, generator=generator) for _ in range(count // n + 1)]
        return (tandem.cat(perms) if len(perms) > 1 else perms[0])[:count]

    def __iter__(self):
        n, generator = len(self.data_source), self._epoch_generator()
        if self.replacement:  # in chunks of 32 draws, as PyTorch, so a partly consumed epoch draws little
            for _ in range(self.num_samples // 32):
                yield from tandem.randint(0, n, (32,), dtype=tandem.int64, generator=generator).tolist()
            yield from tandem.randint(0, n, (self.num_samples % 32,), dtype=tandem.int64,
                                      generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from tandem.randperm(n, generator=generator).tolist()
            # (PyTorch draws this last permutation even when it keeps none of it)
            yield from tandem.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (a fresh permutation per epoch)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in tandem.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """num_samples indices drawn with probability proportional to ``weights`` (one multinomial draw per epoch)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        if isinstance(weights, tandem.Tensor):  # (tandem.as_tensor cannot change a tensor's dtype yet)
            weights_tensor = weights.to(dtype=tandem.float64)
        else:
            weights_tensor = tandem.as_tensor(weights, dtype=tandem.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        drawn = tandem.multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        yield from iter(drawn.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups the sampler's indices into lists of ``batch_size``; the short last batch is dropped when
    ``drop_last``."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        sampler_iter = iter(self.sampler)
        if self.drop_last:
            yield from (list(batch) for batch in zip(*[sampler_iter] * self.batch_size))
            return
        batch = list(itertools.islice(sampler_iter, self.batch_size))
        while batch:
            yield batch
            batch = list(itertools.islice(sampler_iter, self.batch_size))

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
