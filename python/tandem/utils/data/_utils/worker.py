"""PyTorch's module path for the worker helpers (torch.utils.data._utils.worker.get_worker_info, WorkerInfo), which
programs import from there; they are defined in tandem/utils/data/_worker.py."""
from .._worker import ExceptionWrapper, WorkerInfo, get_worker_info  # noqa: F401

__all__ = ["ExceptionWrapper", "WorkerInfo", "get_worker_info"]
