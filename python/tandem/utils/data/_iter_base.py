"""_BaseDataLoaderIter: what the DataLoader's iterators share, under PyTorch's name (libraries subclass it or
check isinstance, e.g. PyTorch Geometric's loaders wrap the iterator that DataLoader._get_iterator returns)."""


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._loader = loader

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def _reset(self, loader, first_iter=False):
        raise NotImplementedError(f"{type(self).__name__} does not implement _reset")
