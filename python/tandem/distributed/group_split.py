"""split_group (several disjoint groups made from one parent group in one call) and shrink_group (which no
tandem backend can do: it answers as PyTorch's Gloo does)."""
import datetime
import hashlib
import operator

from tandem.distributed import distributed_c10d as c10d
from tandem.distributed import environment

__all__ = ["shrink_group", "split_group"]

_SHRINK_FLAGS = (0, 1)  # PyTorch's SHRINK_DEFAULT and SHRINK_ABORT


def _hashed_group_name(ranks):
    # PyTorch's name for a split group: the ranks and the group count, hashed; every member computes the same.
    return hashlib.sha1(f"{'_'.join(map(str, ranks))}_{c10d._State.group_count}".encode()).hexdigest()


def _check_splits(split_ranks, parent_size, world_size):
    """The splits as lists of ints, every one checked before any communication, so that all ranks raise the
    same error (PyTorch checks up to the caller's own split, and hangs on a rank outside the parent)."""
    splits = []
    for split in split_ranks:
        try:
            split = [operator.index(r) for r in split]
        except TypeError:
            raise TypeError("ranks must be a sequence of integers") from None
        if len(split) == 0:
            raise ValueError("the split group cannot be empty")
        if len(split) > world_size:
            raise ValueError("the split group's size should be less or equal to the world_size set by "
                             "init_process_group")
        if len(split) != len(set(split)):
            raise ValueError("the split group cannot have duplicate ranks")
        for r in split:
            if not 0 <= r < parent_size:
                raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to {parent_size - 1} (the parent "
                                 f"group's size is {parent_size})\nhint: split_ranks holds ranks of the parent "
                                 "group, not global ranks")
        splits.append(split)
    return splits


def _check_backend(backend, parent):
    """PyTorch lets ``backend`` pick some of the parent's per-device backends; tandem's groups keep all of
    theirs, so only a backend the parent runs is accepted (and changes nothing)."""
    config = environment.get_backend_config(parent)
    parent_backends = dict(pair.split(":", 1) for pair in config.split(","))
    requested = str(backend).lower()
    wanted = (dict(pair.split(":", 1) for pair in requested.split(",")) if ":" in requested
              else {d: b for d, b in parent_backends.items() if b == requested})
    if not wanted:
        raise ValueError(f"Requested backend '{requested}' is not present in the parent process group (parent "
                         f"backends: {parent_backends})")
    for device_type, name in wanted.items():
        if device_type not in parent_backends:
            raise ValueError(f"Requested backend for device '{device_type}' is not present in the parent process "
                             f"group (parent backends: {parent_backends})")
        if parent_backends[device_type] != name:
            raise ValueError(f"Backend mismatch for device '{device_type}': parent has "
                             f"'{parent_backends[device_type]}', requested '{name}'. Backend names must match "
                             "exactly when filtering split_group backends.")


def split_group(parent_pg=None, split_ranks=None, timeout=None, pg_options=None, group_desc=None, backend=None):
    """Splits ``parent_pg`` (the default group by default) into the groups listed in ``split_ranks`` (lists of
    the parent's group ranks; the order in a list is the order of the new group's ranks). Every rank of the
    parent calls it with the same lists; each gets the first group that holds it, or
    GroupMember.NON_GROUP_MEMBER. tandem makes one split of the parent's communicator per list."""
    if split_ranks is None or len(split_ranks) == 0:
        raise ValueError("split_ranks cannot be None or empty")
    world = c10d._world()
    parent = parent_pg if parent_pg else world
    if not isinstance(parent, c10d.ProcessGroup):
        raise ValueError(f"Group {parent_pg} is not registered")
    if backend is not None:
        _check_backend(backend, parent)
    if timeout is not None and not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    splits = _check_splits(split_ranks, parent.size(), world.size())
    me = parent.rank()
    mine = next((s for s in splits if me in s), splits[0])
    if group_desc is None:
        group_desc = f"{parent.group_desc}:split:{parent._split_count}"
    parent._split_count += 1
    name = _hashed_group_name(mine)
    c10d._State.group_count += 1  # one group per call, as PyTorch counts (get_pg_count)
    result = c10d.GroupMember.NON_GROUP_MEMBER
    for split in splits:
        group = c10d._split_world(split, name, group_desc, timeout, parent)
        if split is mine and me in split:
            result = group
    return result


def shrink_group(ranks_to_exclude, group=None, shrink_flags=0, pg_options=None):
    """Would make a smaller group without ``ranks_to_exclude`` (ranks that failed, which cannot take part).
    That needs a communicator that can shrink without its lost members (NCCL 2.27's ncclCommShrink); tandem's
    MPI and NCCL groups are split collectively, so, like PyTorch's Gloo groups, they refuse after checking the
    arguments."""
    if not isinstance(ranks_to_exclude, list):
        raise TypeError(f"ranks_to_exclude must be a list, but got {type(ranks_to_exclude).__name__}. Example: "
                        "[1, 3, 5] to exclude ranks 1, 3, and 5.")
    if not ranks_to_exclude:
        raise ValueError("ranks_to_exclude cannot be empty. To shrink a group, you must specify at least one rank "
                         "to exclude. Example: [failed_rank_id]")
    if not isinstance(shrink_flags, int) or shrink_flags not in _SHRINK_FLAGS:
        raise ValueError(f"Invalid shrink_flags value: {shrink_flags}. Must be one of: SHRINK_DEFAULT (0) or "
                         "SHRINK_ABORT (1). Use SHRINK_ABORT to abort ongoing operations before shrinking.")
    pg, member = c10d._resolve(group)
    if not member:
        raise ValueError("Invalid process group specified")
    if pg.size() <= 1:
        raise ValueError(f"Cannot shrink a process group with size {pg.size()}. Group must have at least 2 ranks "
                         "to support shrinking.")
    raise TypeError(f"Process group backend for '{pg.group_name}' does not support shrinking operations.\nhint: "
                    "make the smaller group with new_group(ranks) (every rank of the job must call it), or restart "
                    "the job without the failed ranks")
