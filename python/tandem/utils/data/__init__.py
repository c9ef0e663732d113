"""tandem.utils.data: datasets, samplers and the DataLoader, with PyTorch's API."""
from .dataset import Dataset, TensorDataset, ConcatDataset, Subset, random_split  # noqa: F401
from .sampler import Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, BatchSampler  # noqa: F401
from .dataloader import DataLoader, default_collate  # noqa: F401
