"""tandem.utils.data: datasets, samplers and the DataLoader, with PyTorch's API."""
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,  # noqa: F401
                      Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,  # noqa: F401
                      WeightedRandomSampler)
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info  # noqa: F401
from .distributed import DistributedSampler  # noqa: F401
