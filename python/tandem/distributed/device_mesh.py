"""torch.distributed.device_mesh: ``DeviceMesh``, the job's ranks laid out as an n-dimensional array with one
process group per dimension (for each rank: the ranks that differ from it along that dimension only), and
``init_device_mesh``.

A mesh keeps its root mesh's array of ranks and, per dimension, the root dimensions it spans (one for a plain
dimension, several for a flattened one). A sub-mesh (``mesh["tp"]``) picks some of them and reuses the root's
groups; ``_flatten`` makes groups for merged dimensions. The groups come from new_group, so every rank of the
job must build the same meshes in the same order (PyTorch's rule as well)."""
import math
import os
import warnings

import numpy as np

import tandem
from tandem.distributed import distributed_c10d as c10d

__all__ = ["DeviceMesh", "init_device_mesh"]


class _MeshEnv:
    """The meshes entered with ``with mesh:`` (PyTorch's ``_mesh_resources``)."""

    def __init__(self):
        self.mesh_stack = []

    def get_current_mesh(self):
        if not self.mesh_stack:
            raise RuntimeError("No device mesh is currently active!")
        return self.mesh_stack[-1]

    def get_root_mesh(self, device_mesh):
        return device_mesh._get_root_mesh()


_mesh_resources = _MeshEnv()


def _rows(root, axes):
    """The mesh's ranks once per choice of the root dimensions it does not span: shape (choices, *mesh sizes)."""
    spanned = [d for axis in axes for d in axis]
    rest = [d for d in range(root.ndim) if d not in spanned]
    sizes = [math.prod(root.shape[d] for d in axis) for axis in axes]
    return root.transpose(rest + spanned).reshape(-1, *sizes)


def _axis_stride(root_shape, axis):
    """A dimension's stride in the root mesh as PyTorch prints it: an int, or a tuple when the root dimensions
    it merges are not next to each other."""
    strides = [math.prod(root_shape[d + 1:]) for d in axis]
    kept = [(root_shape[d], s) for d, s in zip(axis, strides) if root_shape[d] != 1] or [(1, strides[-1])]
    merged = [kept[0]]
    for size, stride in kept[1:]:
        outer_size, outer_stride = merged[-1]
        if outer_stride == stride * size:  # contiguous with the previous one: one stride covers both
            merged[-1] = (outer_size * size, stride)
        else:
            merged.append((size, stride))
    return merged[0][1] if len(merged) == 1 else tuple(s for _, s in merged)


def _as_rank_array(mesh):
    if isinstance(mesh, tandem.Tensor):
        mesh = mesh.detach().cpu()
    else:
        mesh = tandem.tensor(mesh, dtype=tandem.int32)
    return np.asarray(mesh.to(tandem.int32).numpy(), dtype=np.int64)


def _select_cuda_device(world_size):
    """PyTorch's choice of the CUDA device when the program chose none before the mesh: LOCAL_RANK, or else the
    rank modulo the devices per machine. tandem counts a device as chosen once tandem.cuda.set_device ran."""
    cuda = tandem.cuda
    if not cuda.is_available() or getattr(cuda, "_device_selected", False):
        return
    if "LOCAL_RANK" in os.environ:
        cuda.set_device(int(os.environ["LOCAL_RANK"]))
        return
    per_host = cuda.device_count()
    warnings.warn("It seems like you did not set/select the default device for the current process before the "
                  "DeviceMesh initialization or use a launcher (i.e. torchrun) which populates `LOCAL_RANK` "
                  "environment variable. It is recommended to set the current device for the process BEFORE the "
                  "DeviceMesh initialization so that the underlying communicator (i.e. NCCL) can be initialized "
                  "properly. Given that the current process has no default device selected, DeviceMesh will use a "
                  "heuristic to set the device_id via `global_rank % num_devices_per_host`, assuming homogeneous "
                  "hardware cluster. ", stacklevel=4)
    if world_size > per_host and world_size % per_host != 0:
        raise RuntimeError(f"DeviceMesh only support homogeneous hardware, but found {world_size} ranks and "
                           f"{per_host} cuda devices!")
    cuda.set_device(c10d.get_rank() % per_host)


class DeviceMesh:
    """An n-dimensional array of global ranks with a process group per dimension.

    ``DeviceMesh(device_type, mesh, *, mesh_dim_names=None, backend_override=None, preserve_rank_order=False)``
    makes the groups at once (new_group, collective over the job; the default group is reused for a dimension
    that spans the whole job in rank order). ``mesh["dp"]``/``mesh["dp", "tp"]`` give sub-meshes that share the
    groups, ``get_group``/``get_local_rank``/``get_coordinate`` answer for this rank."""

    def __init__(self, device_type, mesh=None, *, mesh_dim_names=None, backend_override=None,
                 preserve_rank_order=False, _init_backend=True, _rank=None, _layout=None, _rank_map=None,
                 _root_mesh=None):
        if mesh is None:
            raise TypeError("The mesh argument is required except for PRIVATE USAGE ONLY!")
        if _layout is not None or _rank_map is not None:
            raise TypeError("Cannot provide _layout and/or _rank_map if passing explicit mesh")
        root = _as_rank_array(mesh)
        self._setup(device_type, root, tuple((d,) for d in range(root.ndim)), mesh_dim_names, _root_mesh,
                    preserve_rank_order)
        if backend_override is None:
            backend_override = ((None, None),) * self.ndim
        elif len(backend_override) != self.ndim:
            raise ValueError("backend_override should have the same length as the number of mesh dimensions, but "
                             f"got {len(backend_override)} and {self.ndim}.")
        if _init_backend:
            self._setup_world_group_and_device()
            self._dim_groups = self._init_process_groups(backend_override)
        self._finish_setup(_rank)

    # ---- construction ----

    def _setup(self, device_type, root, axes, names, root_mesh, preserve_rank_order):
        self._device_type = device_type
        self._root_ranks = root  # the root mesh's ranks (numpy), shared by every mesh derived from it
        self._axes = axes
        self._mesh_dim_names = tuple(names) if names else None
        self._root_mesh = root_mesh
        self._preserve_rank_order = preserve_rank_order
        self._flatten_mapping = {}

    def _finish_setup(self, rank):
        self._rank = c10d.get_rank() if rank is None else rank
        self._coordinate_on_dim = self._coordinates_of(self._rank)

    @classmethod
    def _derived(cls, parent, axes, names, groups=None):
        """A mesh over the same root ranks as ``parent`` (a sub-mesh or a flattened mesh of its root)."""
        mesh = cls.__new__(cls)
        root = parent._get_root_mesh()
        mesh._setup(parent._device_type, root._root_ranks, tuple(axes), names, root, root._preserve_rank_order)
        if groups is not None:
            mesh._dim_groups = groups
        mesh._finish_setup(None)
        return mesh

    def _coordinates_of(self, rank):
        hits = np.argwhere(self._local_rows() == rank)
        return None if len(hits) == 0 else tuple(int(i) for i in hits[0][1:])

    def _local_rows(self):
        rows = _rows(self._root_ranks, self._axes)
        if rows.shape[0] == 1:
            return rows
        return rows[np.any(rows.reshape(rows.shape[0], -1) == self._rank, axis=1)]

    def _setup_world_group_and_device(self):
        if not c10d.is_initialized():
            c10d.init_process_group()
        world_size = c10d.get_world_size()
        if self._root_ranks.size > world_size:
            raise RuntimeError(f"Mesh should not be bigger than default world size {world_size}, but found "
                               f"{self._root_ranks.size} ranks!")
        if self._device_type == "cuda":
            _select_cuda_device(world_size)

    def _init_process_groups(self, backend_override):
        """This rank's group for each dimension ([] when the rank is not in the mesh); all ranks make all."""
        names = self._mesh_dim_names
        groups = []
        for i, axis in enumerate(self._axes):
            if names and i >= len(names):  # PyTorch fails here too, after making the earlier dimensions' groups
                raise IndexError(f"tuple index out of range\nhint: mesh_dim_names has {len(names)} name(s) for a "
                                 f"mesh of {self.ndim} dimensions")
            groups.append(self._make_dim_group(axis, names[i] if names else f"dim_{i}", backend_override[i]))
        if any(g is None for g in groups) and not all(g is None for g in groups):
            raise AssertionError
        return [g for g in groups if g is not None]

    def _make_dim_group(self, axis, dim_name, override):
        rows = _rows(self._root_ranks, [axis]).tolist()
        backend, options = override
        timeout = getattr(options, "_timeout", None)
        world_size = c10d.get_world_size()
        if len(rows[0]) == world_size and override == (None, None):
            if not self._preserve_rank_order or rows[0] == list(range(world_size)):
                return c10d._world()  # PyTorch reuses the default group for a dimension spanning the job
        sort_ranks = not self._preserve_rank_order
        for row in rows:  # every row checked before the first group is made: all ranks raise alike, none hangs
            c10d._checked_ranks(row, world_size, sort_ranks)
        me = c10d.get_rank()
        seen = set()
        for row in rows:
            for r in row:
                if r in seen:
                    raise RuntimeError(f"Each device mesh dimension should get only one process group, but got {r} "
                                       f"in {row}!")
                seen.add(r)
        mine = None
        for row in rows:
            group = c10d.new_group(ranks=row, timeout=timeout, backend=backend, pg_options=options,
                                   group_desc=f"mesh_{dim_name}", sort_ranks=sort_ranks)
            if me in row:
                mine = group
        return mine

    # ---- what a mesh is ----

    @property
    def device_type(self):
        return self._device_type

    @property
    def mesh(self):
        """This rank's mesh as an int32 tensor (for a sub-mesh: the one of the sub-meshes that holds this rank)."""
        rows = self._local_rows()
        if len(rows) == 0:
            raise RuntimeError("In order to get the mesh Tensor of a DeviceMesh it needs to either have all its "
                               "original dimensions (e.g., no slicing) or it needs to contain the local rank")
        return tandem.tensor(rows[0], dtype=tandem.int32)

    @property
    def mesh_dim_names(self):
        return self._mesh_dim_names

    @property
    def ndim(self):
        return len(self._axes)

    @property
    def shape(self):
        return tuple(math.prod(self._root_ranks.shape[d] for d in axis) for axis in self._axes)

    def size(self, mesh_dim=None):
        return math.prod(self.shape) if mesh_dim is None else self.shape[mesh_dim]

    def get_rank(self):
        """This process's global rank."""
        return c10d.get_rank()

    def get_coordinate(self):
        """This rank's index along each dimension of the mesh, or None when the mesh does not hold it."""
        return self._coordinate_on_dim

    def _is_current_rank_part_of_mesh(self):
        return self._coordinate_on_dim is not None

    def _get_root_mesh(self):
        return self._root_mesh if self._root_mesh is not None else self

    def __enter__(self):
        _mesh_resources.mesh_stack.append(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _mesh_resources.mesh_stack.pop()

    def __repr__(self):
        sizes = self.shape
        shown = f"({', '.join(f'{k}={v}' for k, v in zip(self._mesh_dim_names, sizes))})" \
            if self._mesh_dim_names else f"{sizes}"
        stride = tuple(_axis_stride(self._root_ranks.shape, axis) for axis in self._axes)
        text = f"DeviceMesh({shown}, '{self._device_type}', stride={stride}"
        if os.environ.get("TORCH_DISTRIBUTED_DEBUG", "") == "DETAIL":
            text += f", Mesh: {self.mesh.tolist()}"
        return text + ")"

    def _hash_key(self):
        return (tuple(self._root_ranks.flatten().tolist()), self._root_ranks.shape, self._axes, self._device_type,
                self._mesh_dim_names, self._preserve_rank_order)

    def __hash__(self):
        return hash(self._hash_key())

    def __eq__(self, other):
        return self is other or isinstance(other, DeviceMesh) and self._hash_key() == other._hash_key()

    # ---- groups ----

    def _get_mesh_dim_by_name(self, mesh_dim_name):
        if not self._mesh_dim_names:
            raise KeyError("No `mesh_dim_names` found.")
        if mesh_dim_name not in self._mesh_dim_names:
            raise KeyError(f"Mesh dimension '{mesh_dim_name}' does not exist.",
                           f"Available mesh dimensions are: mesh_dim_names={self._mesh_dim_names}")
        return self._mesh_dim_names.index(mesh_dim_name)

    def _group_at(self, index):
        try:
            return self._dim_groups[index]
        except IndexError:
            if self._dim_groups:
                raise
            raise IndexError(f"list index out of range\nhint: rank {c10d.get_rank()} is not in this mesh, so it "
                             "has no group in it") from None

    def get_group(self, mesh_dim=None):
        """The group of ``mesh_dim`` (its index or name; may be left out for a 1-D mesh) that holds this rank."""
        if not hasattr(self, "_dim_groups"):
            raise RuntimeError("DeviceMesh process groups not initialized!")
        if self.ndim > 1 and mesh_dim is None:
            raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions",
                               "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1.",
                               "If you want to get the list of all the ProcessGroups in the DeviceMesh,"
                               "please use `get_all_groups()` instead.")
        if mesh_dim is None:
            return self._group_at(0)
        flattened = self._get_root_mesh()._flatten_mapping
        if flattened and mesh_dim in flattened:
            return flattened[mesh_dim]._group_at(0)
        if isinstance(mesh_dim, str):
            mesh_dim = self._get_mesh_dim_by_name(mesh_dim)
        if not isinstance(mesh_dim, int):
            raise AssertionError(f"mesh_dim must be an int, got {type(mesh_dim)}")
        return self._group_at(mesh_dim)

    def get_all_groups(self):
        return [self.get_group(i) for i in range(self.ndim)]

    def get_local_rank(self, mesh_dim=None):
        """This rank's rank in the group of ``mesh_dim``, i.e. its coordinate along that dimension."""
        if self.ndim > 1 and mesh_dim is None:
            raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions",
                               "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1.")
        return c10d.get_rank(self.get_group(0 if mesh_dim is None else mesh_dim))

    # ---- sub-meshes ----

    def __getitem__(self, mesh_dim_names):
        """The sub-mesh of the named dimensions (in the mesh's order), sharing this mesh's groups."""
        if not self._mesh_dim_names:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        names = (mesh_dim_names,) if isinstance(mesh_dim_names, str) else mesh_dim_names
        if names == self._mesh_dim_names:
            return self
        from_root = self._root_mesh is None
        flattened = dict(self._flatten_mapping) if from_root else {}
        valid = [*self._mesh_dim_names, *flattened]
        if not all(name in valid for name in names):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Valid mesh_dim_names are {valid}.")
        axes, groups = [], []
        for name in names:
            if name in self._mesh_dim_names:
                index = self._mesh_dim_names.index(name)
                axes.append(self._axes[index])
                groups.append(self._dim_groups[index] if getattr(self, "_dim_groups", None) else None)
            else:
                warnings.warn("Slicing a flattened dim from root mesh will be deprecated in PT 2.11. Users need to "
                              "bookkeep the flattened mesh directly. ", stacklevel=2)
                axes.append(flattened[name]._axes[0])
                groups.append(flattened[name]._dim_groups[0] if flattened[name]._dim_groups else None)
        spanned = [d for axis in axes for d in axis]
        if spanned != sorted(spanned):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Mesh dim indices should be in ascending "
                           "order.")
        if len(set(spanned)) != len(spanned):
            raise RuntimeError(f"Slicing overlapping dim_names {names} is not allowed.")
        member_groups = [g for g in groups if g is not None]
        return DeviceMesh._derived(self, axes, names, member_groups if hasattr(self, "_dim_groups") else None)

    def _flatten(self, mesh_dim_name=None, backend_override=None):
        """This mesh's dimensions merged into one, with its own groups (made on first use, collectively), kept
        by the root mesh under ``mesh_dim_name`` (default: the names joined with "_")."""
        if not self._mesh_dim_names:
            raise RuntimeError("Cannot flatten a DeviceMesh without mesh_dim_names!")
        if not mesh_dim_name:
            mesh_dim_name = "_".join(self._mesh_dim_names)
        if self.ndim == 1 and mesh_dim_name in self._mesh_dim_names:
            return self
        override = (None, None) if backend_override is None else \
            next(_normalize_backend_override({0: backend_override}, 1))
        root = self._get_root_mesh()
        if mesh_dim_name in root._mesh_dim_names:
            raise ValueError(f"{mesh_dim_name} already exists for submesh of the {root}. ",
                             f"The mesh_dim_names of submesh and flattened mesh are {root._mesh_dim_names}. "
                             "Please specify another valid mesh_dim_name.")
        axis = tuple(d for a in self._axes for d in a)
        existing = root._flatten_mapping.get(mesh_dim_name)
        if existing is not None:
            if existing._axes == (axis,):
                return existing
            raise ValueError(f"Flatten mesh with mesh_dim_name {mesh_dim_name} has been created before, Please "
                             "specify another valid mesh_dim_name.")
        flat = DeviceMesh._derived(root, [axis], (mesh_dim_name,))
        flat._dim_groups = flat._init_process_groups((override,))
        root._flatten_mapping[mesh_dim_name] = flat
        return flat

    @staticmethod
    def from_group(group, device_type, mesh=None, *, mesh_dim_names=None):
        """A mesh over groups that exist already: one group (a 1-D mesh of its ranks), or one group per
        dimension with the ``mesh`` of ranks and the ``mesh_dim_names``."""
        if isinstance(group, c10d.ProcessGroup):
            ranks = c10d.get_process_group_ranks(group)
            given = mesh.tolist() if isinstance(mesh, tandem.Tensor) else mesh
            if mesh is not None and given != ranks:
                raise ValueError(f"Invalid mesh {mesh} for ProcessGroup with ranks {ranks}")
            device_mesh = DeviceMesh(device_type, tandem.tensor(ranks, dtype=tandem.int32),
                                     mesh_dim_names=mesh_dim_names, _init_backend=False)
            device_mesh._dim_groups = [group]
            return device_mesh
        groups = list(group)
        if len(groups) == 0:
            raise ValueError("Expects at least one ProcessGroup to be passed")
        if mesh is None:
            raise ValueError("Must pass mesh if passing multiple ProcessGroups")
        if mesh_dim_names is None:
            raise ValueError("Must pass mesh_dim_names if passing multiple ProcessGroups")
        ranks = _as_rank_array(mesh)
        if ranks.ndim != len(groups):
            raise ValueError("Expects mesh with ndim equal to number of ProcessGroups but got mesh "
                             f"{ranks.tolist()} and {len(groups)} ProcessGroups")
        device_mesh = DeviceMesh(device_type, ranks.tolist(), mesh_dim_names=mesh_dim_names, _init_backend=False)
        device_mesh._dim_groups = groups
        return device_mesh


def _normalize_backend_override(backend_override, ndim, mesh_dim_names=None):
    """init_device_mesh's {dim index or name: backend, options or (backend, options)} as one (backend, options)
    pair per dimension."""
    left = dict(backend_override)
    names = tuple(mesh_dim_names or ())
    for index in range(ndim):
        name = names[index] if index < len(names) else None
        if name is not None and name in left:
            if index in left:
                raise RuntimeError(f"Found redundant dim index {index} and name {name} in backend_override")
            value = left.pop(name)
        elif index in left:
            value = left.pop(index)
        else:
            yield (None, None)
            continue
        if isinstance(value, str):
            yield (value, None)
        elif isinstance(value, tuple):
            yield value
        else:
            yield (None, value)
    if left:
        raise RuntimeError(f"Found invalid keys in backend_override: got {list(left.keys())}, expected integers in "
                           f"range [0, {ndim}) or one of {names}")


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    """A DeviceMesh of the ranks 0..N-1 in ``mesh_shape`` (row-major), initialising the default process group
    first when the program has not. Every rank must call it with the same arguments."""
    if mesh_dim_names is not None:
        if len(set(mesh_dim_names)) != len(mesh_dim_names):
            raise RuntimeError("Each mesh_dim_name must be unique. Found repeated mesh_dim_name in mesh_dim_names "
                               f"{mesh_dim_names}")
        if len(mesh_shape) != len(mesh_dim_names):
            raise RuntimeError("mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                               f"{len(mesh_dim_names)} and len(mesh_shape):{len(mesh_shape)}.")
    overrides = None
    if backend_override is not None:
        overrides = tuple(_normalize_backend_override(backend_override, len(mesh_shape), mesh_dim_names))
    if device_type and not device_type.isalpha():
        raise RuntimeError(f"Device type with index is not supported but got {device_type}. ",
                           "If you maintained a 'torch.device' object, it's recommended to pass in 'device.type'.")
    shape = tuple(mesh_shape)
    ranks = np.arange(math.prod(shape)).reshape(shape)
    return DeviceMesh(device_type, ranks.tolist(), mesh_dim_names=mesh_dim_names, backend_override=overrides)
