"""dist.breakpoint(): stop one rank in pdb while the other ranks wait for it in a barrier."""
import datetime
import pdb
import sys
import traceback

from tandem.distributed import distributed_c10d as c10d

__all__ = ["breakpoint"]

_skipped = {}  # call site -> calls seen, for skip=


class _RankPdb(pdb.Pdb):
    """pdb reading the terminal even when the launcher gave the process another stdin (mpirun forwards the
    terminal to rank 0 only through /dev/stdin)."""

    def interaction(self, *args, **kwargs):
        saved = sys.stdin
        try:
            with open("/dev/stdin") as stdin:
                sys.stdin = stdin
                self.stdin = stdin
                super().interaction(*args, **kwargs)
        finally:
            sys.stdin = saved


def breakpoint(rank=0, skip=0, timeout_s=3600):  # noqa: A001 (PyTorch's name)
    """Stops rank ``rank`` in pdb (type 'up' to reach the caller); the others wait in a barrier. The first
    ``skip`` calls from the same place are skipped. ``timeout_s`` (not None) becomes the groups' timeout, so
    the barrier does not expire during the debugging session."""
    if skip > 0:
        site = "".join(traceback.format_stack(limit=3)[:-1])
        _skipped[site] = _skipped.get(site, 0) + 1
        if _skipped[site] <= skip:
            return
    if timeout_s is not None:
        c10d._State.timeout = datetime.timedelta(seconds=timeout_s)
    if c10d.get_rank() == rank:
        debugger = _RankPdb()
        debugger.message(f"\n!!! ATTENTION !!!\n\nType 'up' to get to the frame that called "
                         f"dist.breakpoint(rank={rank})\n")
        debugger.set_trace(sys._getframe(0))
    c10d.barrier()
