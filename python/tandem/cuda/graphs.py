"""tandem.cuda.graphs, as torch.cuda.graphs. tandem has no CUDA graph capture: is_current_stream_capturing() is
honestly False and the capture APIs (CUDAGraph, graph, make_graphed_callables) raise NotImplementedError with a
hint rather than run the work eagerly behind the program's back. Without a CUDA device each raises PyTorch's
error for that case first."""
import itertools

from . import init

__all__ = ["is_current_stream_capturing", "graph_pool_handle", "CUDAGraph", "graph", "make_graphed_callables"]

_NO_CAPTURE = ("tandem has no CUDA graph capture ({})\nhint: run the code directly: each call launches its "
               "kernels as usual, which is what capture-then-replay computes")
_pool_ids = itertools.count(1)


def is_current_stream_capturing() -> bool:
    """False: no stream is ever capturing in tandem (PyTorch's error without a CUDA device)."""
    init()
    return False


def graph_pool_handle():
    """A new memory-pool id, (0, n), as PyTorch hands out for sharing a pool between captures (it allocates
    nothing; tandem cannot capture, so it is only ever passed along)."""
    return 0, next(_pool_ids)


class CUDAGraph:
    """A captured CUDA graph (PyTorch's CUDAGraph): not available in tandem."""

    def __init__(self, keep_graph=False):
        init()
        raise NotImplementedError(_NO_CAPTURE.format("CUDAGraph"))


class graph:
    """Context manager that captures the work in its block into a CUDAGraph: not available in tandem."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        init()
        raise NotImplementedError(_NO_CAPTURE.format("torch.cuda.graph"))


def make_graphed_callables(callables, sample_args, num_warmup_iters=3, allow_unused_input=False, pool=None):
    """Graph-captured versions of callables: not available in tandem (use the callables themselves)."""
    init()
    raise NotImplementedError(_NO_CAPTURE.format("make_graphed_callables"))
