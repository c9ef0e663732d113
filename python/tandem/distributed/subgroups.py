"""new_subgroups / new_subgroups_by_enumeration (many new_group calls at once) and get_pg_count."""
import tandem
from tandem.distributed import distributed_c10d as c10d

__all__ = ["get_pg_count", "new_subgroups", "new_subgroups_by_enumeration"]


def get_pg_count():
    """The number of process groups made since init_process_group, the default group included (0 before it)."""
    return c10d._State.group_count


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None, pg_options=None,
                                 group_desc=None):
    """One group per list of global ranks (the lists must not overlap); every rank calls it. Returns (the group
    of this rank or None, all the groups: non-members hold GroupMember.NON_GROUP_MEMBER)."""
    if ranks_per_subgroup_list is None or len(ranks_per_subgroup_list) == 0:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    subgroups = []
    cur_subgroup = None
    rank_to_ranks = {}
    # PyTorch's order: each group is made, then its ranks are checked, so every rank raises at the same list.
    for ranks in ranks_per_subgroup_list:
        subgroup = c10d.new_group(ranks=ranks, timeout=timeout, backend=backend, pg_options=pg_options,
                                  group_desc=group_desc)
        subgroups.append(subgroup)
        my_rank = c10d.get_rank()
        for rank in ranks:
            if rank in rank_to_ranks:
                raise ValueError(f"Rank {rank} has appeared in both subgroup {rank_to_ranks[rank]} and {ranks}")
            rank_to_ranks[rank] = ranks
            if my_rank == rank:
                cur_subgroup = subgroup
    return cur_subgroup, subgroups


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None):
    """Splits ``group``'s ranks (the default group's by default) into consecutive subgroups of ``group_size``
    (by default the number of CUDA devices, one subgroup per machine). Returns (this rank's subgroup, all)."""
    if group_size is None:
        if not tandem.cuda.is_available():
            raise ValueError("Default group size only takes effect when CUDA/XPU is available.If your subgroup "
                             "using a backend that does not depend on CUDA/XPU,please pass in 'group_size' "
                             "correctly.")
        group_size = tandem.cuda.device_count()
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    world_size = c10d.get_world_size(group=group)
    if world_size < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size ({world_size})")
    if world_size % group_size != 0:
        raise ValueError(f"The world size ({world_size}) must be divisible by '{group_size=}'")
    ranks = c10d.get_process_group_ranks(group)
    subgroup, subgroups = new_subgroups_by_enumeration(
        [ranks[i:i + group_size] for i in range(0, len(ranks), group_size)], timeout=timeout, backend=backend,
        pg_options=pg_options, group_desc=group_desc)
    if not isinstance(subgroup, c10d.ProcessGroup):
        raise AssertionError("Current rank was not assigned to a subgroup")
    return subgroup, subgroups
