"""Starting and watching worker processes (PyTorch's torch.distributed.elastic.multiprocessing): ``Std`` (which
streams go to log files) and ``SignalException``; ``errors`` has ``record`` and ``ChildFailedError``."""
from tandem.distributed.elastic.multiprocessing.worker_streams import SignalException, Std, to_map

__all__ = ["SignalException", "Std", "to_map"]
