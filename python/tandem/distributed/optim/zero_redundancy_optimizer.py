"""ZeroRedundancyOptimizer: PyTorch's ZeRO stage 1 (optimizer-state sharding) over tandem.distributed.

Every rank holds the whole model, but each parameter is *owned* by one rank: only the owner keeps its optimizer
state (Adam's moments, ...) and updates it; after the local step, each owner broadcasts its parameters so every
replica is equal again. The state memory per rank drops to about 1/world of a plain optimizer's, for the price of
one broadcast of the parameters per step (DDP has already averaged the gradients).

Ownership is PyTorch's sorted-greedy partition: per parameter group, the parameters by size, largest first, each
to the rank with the fewest elements so far (ties to the lowest rank); the same partition on every rank, so every
rank knows each parameter's owner without communicating. Not supported: overlap_with_ddp=True (it needs DDP
communication hooks), and the Join context manager (tandem has no torch.distributed.algorithms.join).
"""
import logging

import tandem
import tandem.distributed as dist
from tandem.optim.optimizer import Optimizer

__all__ = ["ZeroRedundancyOptimizer"]

logger = logging.getLogger(__name__)


def _to_device(value, device):
    """`value` with every tensor in it (nested lists, tuples, dicts) copied to `device`."""
    if isinstance(value, tandem.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_device(v, device) for v in value)
    if isinstance(value, dict):
        return {k: _to_device(v, device) for k, v in value.items()}
    return value


def _copy_hyperparameters(source_groups, target_groups):
    """Every setting of each source group except its parameters, into the matching target group (lr changed by a
    scheduler on the wrapper reaches the local optimizer, and back)."""
    if len(source_groups) != len(target_groups):
        raise AssertionError("Mismatch between number of source and destination parameter groups")
    for source, target in zip(source_groups, target_groups):
        for key, value in source.items():
            if key != "params":
                target[key] = value


class ZeroRedundancyOptimizer(Optimizer):
    """Wraps `optimizer_class` so that each rank keeps the state of, and updates, only its share of `params`."""

    def __init__(self, params, optimizer_class, process_group=None, parameters_as_bucket_view=False,
                 overlap_with_ddp=False, **defaults):
        if overlap_with_ddp:
            raise NotImplementedError(
                "ZeroRedundancyOptimizer(overlap_with_ddp=True) is not supported by tandem (it needs DDP "
                "communication hooks)\nhint: use overlap_with_ddp=False and call step() after backward()")
        params = self._checked_params(params)
        first = tandem.typename(self._all_params[0])
        if self._all_params[0].is_sparse:
            raise ValueError("ZeroRedundancyOptimizer only supports using the same dense type for all parameters "
                             f"but got {first}")
        for p in self._all_params[1:]:
            if tandem.typename(p) != first:
                raise ValueError("ZeroRedundancyOptimizer only supports using the same dense type for all "
                                 f"parameters but got both {first} and {tandem.typename(p)}")
        self._initialized = False  # add_param_group re-partitions only once the local optimizer exists
        self._partition = None
        Optimizer.__init__(self, params, defaults)
        self.process_group = process_group if process_group is not None else dist.group.WORLD
        self.world_size = dist.get_world_size(self.process_group)
        self.rank = dist.get_rank(self.process_group)
        self.global_rank = dist.get_global_rank(self.process_group, self.rank)
        self._default_device = self._all_params[0].device
        self._optim_defaults = defaults
        self._optim_constructor = optimizer_class
        self._is_trainable_mask = self._trainable_mask()
        self.optim = optimizer_class(self._partition_parameters()[self.rank], **defaults)
        _copy_hyperparameters(self.optim.param_groups, self.param_groups)  # the local optimizer's own defaults
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._buckets = []
        self._build_param_buckets()
        self._all_state_dicts = []  # filled on the target rank by consolidate_state_dict()
        self._initialized = True

    def _checked_params(self, params):
        """`params` as a list (tensors or group dicts, not a mix), with every parameter in self._all_params."""
        if isinstance(params, tandem.Tensor):
            raise TypeError(f"`params` argument should be an iterable of Tensors, but got {tandem.typename(params)}")
        try:
            items = list(params)
        except TypeError as e:
            raise TypeError("`params` argument should be an iterable of Tensors or dicts, but got "
                            f"{tandem.typename(params)}") from e
        if not items:
            raise ValueError("ZeroRedundancyOptimizer got an empty parameter list")
        if all(isinstance(p, tandem.Tensor) for p in items):
            self._all_params = items
        elif all(isinstance(g, dict) for g in items):
            if any("params" not in g for g in items):
                raise ValueError("Each parameter group passed-in via `params` must have a 'params' key mapping to "
                                 "the parameters in the group")
            self._all_params = [p for g in items for p in g["params"]]
        else:
            raise TypeError("`params` argument should be an iterable of Tensors or dicts")
        return items

    def _trainable_mask(self):
        return [p.requires_grad for p in self._all_params]

    def _partition_parameters(self):
        """For each rank, its param groups: copies of self.param_groups holding only the parameters it owns."""
        if self._partition is None:
            per_rank = [[] for _ in range(self.world_size)]
            sizes = [0] * self.world_size
            for group in self.param_groups:
                owned = [[] for _ in range(self.world_size)]
                for p in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                    rank = sizes.index(min(sizes))
                    owned[rank].append(p)
                    sizes[rank] += p.numel()
                for rank, params in enumerate(owned):
                    per_rank[rank].append(dict(group, params=params))
            self._partition = per_rank
        return self._partition

    def _owners(self):
        """id(parameter) -> the rank that owns it."""
        return {id(p): rank for rank, groups in enumerate(self._partition_parameters()) for g in groups
                for p in g["params"]}

    def _index_to_param(self):
        return [p for g in self.param_groups for p in g["params"]]

    def add_param_group(self, param_group):
        """Adds a group on every rank (call it on all ranks): its parameters are shared out as at construction;
        the earlier groups keep their owners, so the local optimizers only gain this rank's part."""
        Optimizer.add_param_group(self, param_group)
        if not self._initialized:
            return
        self._partition = None
        mine = self._partition_parameters()[self.rank]
        if len(mine) == len(self.optim.param_groups) + 1:
            self.optim.add_param_group(mine[-1])
        self._build_param_buckets()

    def _build_param_buckets(self):
        """With parameters_as_bucket_view, each rank's trainable parameters (per device) become views into one flat
        tensor, so each owner sends one broadcast per device instead of one per parameter."""
        if not self.parameters_as_bucket_view:
            return
        per_device = {}
        for rank, groups in enumerate(self._partition_parameters()):
            for group in groups:
                for p in group["params"]:
                    per_device.setdefault(p.device, [[] for _ in range(self.world_size)])[rank].append(p)
        self._buckets = []
        for device, per_rank in per_device.items():
            buckets = []
            for params in per_rank:
                trainable = [p for p in params if p.requires_grad]
                for p in params:
                    if not p.requires_grad:  # out of the bucket: its own storage again
                        p.data = p.data.detach().clone()
                size = sum(p.numel() for p in trainable)
                if size == 0:
                    buckets.append(tandem.zeros(1, device=device))
                    continue
                bucket = tandem.empty(size, dtype=trainable[0].dtype, device=device)
                offset = 0
                for p in trainable:
                    view = bucket[offset:offset + p.numel()]
                    view.copy_(p.data.flatten())
                    p.data = view.view_as(p.data)
                    offset += p.numel()
                buckets.append(bucket)
            self._buckets.append(buckets)

    def _sync_params(self):
        """Each owner's parameters to every rank (async broadcasts, then waited for)."""
        works = []
        for rank in range(self.world_size):
            source = dist.get_global_rank(self.process_group, rank)
            if self.parameters_as_bucket_view:
                tensors = [buckets[rank] for buckets in self._buckets]
            else:
                tensors = [p.data for g in self._partition_parameters()[rank] for p in g["params"]]
            works += [dist.broadcast(t, src=source, group=self.process_group, async_op=True) for t in tensors]
        for work in works:
            work.wait()

    def step(self, closure=None, **kwargs):
        """One step of the local optimizer over this rank's parameters, then every rank's parameters broadcast
        from their owners; returns the closure's loss (or the local optimizer's result)."""
        mask = self._trainable_mask()
        if mask != self._is_trainable_mask:
            logger.warning("ZeroRedundancyOptimizer detected that the trainable parameters changed; rebuilding "
                           "the parameter buckets if enabled")
            self._build_param_buckets()
            self._is_trainable_mask = mask
        _copy_hyperparameters(self.param_groups, self.optim.param_groups)
        loss = self.optim.step(**kwargs) if closure is None else self.optim.step(closure=closure, **kwargs)
        _copy_hyperparameters(self.optim.param_groups, self.param_groups)
        self._sync_params()
        return loss

    def consolidate_state_dict(self, to=0):
        """Gathers every rank's local optimizer state on rank `to` (on the CPU), for state_dict() there. Call it
        on all ranks."""
        _copy_hyperparameters(self.param_groups, self.optim.param_groups)
        self._all_state_dicts = []
        for rank in range(self.world_size):
            payload = [_to_device(self.optim.state_dict(), "cpu") if rank == self.rank else None]
            dist.broadcast_object_list(payload, src=dist.get_global_rank(self.process_group, rank),
                                       group=self.process_group)
            if self.rank == to:
                self._all_state_dicts.append(payload[0])

    def state_dict(self):
        """The whole optimizer's state with PyTorch's global parameter numbering, as of the last
        consolidate_state_dict() to this rank."""
        if not self._all_state_dicts:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please call "
                               f"`consolidate_state_dict(to={self.rank})` on all ranks beforehand if you meant to "
                               "save the global state.")
        state_dict = Optimizer.state_dict(self)
        index = {id(p): i for i, p in enumerate(self._index_to_param())}
        for local, groups in zip(self._all_state_dicts, self._partition_parameters()):
            for local_group, group in zip(local["param_groups"], groups):
                for local_index, param in zip(local_group["params"], group["params"]):
                    if local_index in local["state"]:
                        state_dict["state"][index[id(param)]] = local["state"][local_index]
        state_dict["state"] = dict(sorted(state_dict["state"].items()))
        return state_dict

    def load_state_dict(self, state_dict):
        """Loads a state_dict() (of this or a plain optimizer over the same parameters): each rank keeps the state
        of the parameters it owns, on their devices; the groups' settings go to every rank."""
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group")
        params, owners = self._index_to_param(), self._owners()
        for index, value in state_dict["state"].items():
            param = params[int(index)]
            if owners[id(param)] != self.rank:
                continue
            local = _to_device(value, param.device)
            for name, v in local.items():  # 0-d tensors (Adam's step) stay on the CPU, as PyTorch keeps them
                if isinstance(v, tandem.Tensor) and v.dim() == 0:
                    local[name] = v.cpu()
            self.optim.state[param] = local
        _copy_hyperparameters(saved_groups, self.param_groups)
        _copy_hyperparameters(self.param_groups, self.optim.param_groups)
