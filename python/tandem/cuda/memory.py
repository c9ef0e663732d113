"""tandem.cuda.memory: where device memory went.

``record_allocation_sites(True)`` makes every device allocation remember the user's source line (the first
Python frame outside tandem). ``tandem.cuda.memory_summary()`` and ``tandem.cuda.OutOfMemoryError`` then name
the line next to each of the largest live allocations. Off by default: then an allocation pays one atomic
load for it.
"""
import os

from .. import _C

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def record_allocation_sites(enabled=True):
    """Starts (or, with False, stops and forgets) recording the source line of each device allocation.

    Only allocations made while recording have a site; sites print relative to the current directory.
    """
    _C._record_allocation_sites(bool(enabled), _PACKAGE_DIR, os.getcwd())


def is_recording_allocation_sites():
    """True while allocation sites are being recorded."""
    return _C._recording_allocation_sites()


def largest_allocations(device=None, count=5):
    """The device's ``count`` largest live allocations as ``[(bytes, 'file.py:line' or None)]``."""
    return _C._cuda_largest_allocations(_C._cuda_device_index(device), count)
