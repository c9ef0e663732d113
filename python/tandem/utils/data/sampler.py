"""Samplers: the order in which a DataLoader visits a dataset, and how indices group into batches."""
import tandem


class Sampler:
    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def order(self):
        """The whole visiting order as an int64 tensor."""
        return tandem.arange(len(self.data_source))

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A fresh permutation per epoch, drawn from ``generator`` (the default generator when None)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if replacement or num_samples is not None:
            raise NotImplementedError("RandomSampler: replacement/num_samples are not supported\nhint: shuffle=True draws a permutation")
        self.data_source = data_source
        self.generator = generator

    def order(self):
        return tandem.randperm(len(self.data_source), generator=self.generator)

    def __iter__(self):
        return iter(self.order().tolist())

    def __len__(self):
        return len(self.data_source)


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in tandem.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups the sampler's indices into lists of ``batch_size``; the short last batch is dropped when
    ``drop_last``."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
