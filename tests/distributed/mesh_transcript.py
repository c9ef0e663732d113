"""The DeviceMesh / split_group / new_group script of a job of 8 ranks, written once for both libraries: tandem runs
it under `mpirun -np 8` (tests/distributed/mesh.py), PyTorch (the oracle) runs it for each rank in turn on its fake
backend (tests/distributed/mesh_oracle.py). Each rank's transcript of results and errors (type and first line)
must match. Every step runs on every rank in the same order, as the group-making calls are collective."""
import warnings

WORLD = 8


def normalise(v, d, dm):
    """Results in a form both libraries share and JSON keeps: tensors as (dtype name, values), groups as their
    ranks, rank, size, name and description, meshes as their repr."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, d.ProcessGroup):
        return ["group", d.get_process_group_ranks(v), v.rank(), v.size(), v.group_name, v.group_desc]
    if isinstance(v, dm.DeviceMesh):
        return ["mesh", repr(v)]
    if hasattr(v, "tolist") and hasattr(v, "dtype"):
        return ["tensor", str(v.dtype).split(".")[-1], v.tolist()]
    if isinstance(v, (list, tuple)):
        return [normalise(x, d, dm) for x in v]
    return ["object", type(v).__name__]


def transcript(d, dm, lib):
    """``d``: torch.distributed or tandem.distributed (initialised, 8 ranks); ``dm``: its device_mesh module;
    ``lib``: torch or tandem."""
    steps = []

    def rec(label, fn):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = ["ok", normalise(fn(), d, dm)]
        except Exception as e:  # noqa: BLE001 - the transcript records which error
            result = [type(e).__name__, str(e).split("\n")[0]]
        steps.append([label, *result])

    def describe(prefix, make):
        """``make`` gives the mesh (called inside rec, so that a failure or a warning is the transcript's)."""
        rec(f"{prefix} repr", make)
        rec(f"{prefix} mesh", lambda: make().mesh)
        rec(f"{prefix} coordinate", lambda: make().get_coordinate())
        rec(f"{prefix} shape", lambda: [make().ndim, make().shape, make().size(), make().mesh_dim_names,
                                        make().device_type])

    # a 2-D mesh: its groups, sub-meshes and the errors of asking it wrongly
    m = dm.init_device_mesh("cpu", (2, 4), mesh_dim_names=("dp", "tp"))
    describe("2d", lambda: m)
    rec("2d sizes", lambda: [m.size(0), m.size(1), m.get_rank()])
    rec("2d local ranks", lambda: [m.get_local_rank("dp"), m.get_local_rank(1), m.get_local_rank(mesh_dim=0)])
    rec("2d groups", lambda: [m.get_group("dp"), m.get_group(1), m.get_group(mesh_dim="tp")])
    rec("2d all groups", m.get_all_groups)
    rec("2d slice is self", lambda: m["dp", "tp"] is m)
    describe("2d tp", lambda: m["tp"])
    describe("2d dp", lambda: m["dp"])
    rec("2d tp group", lambda: [m["tp"].get_group(), m["tp"].get_local_rank(), m["dp"].get_group(0)])
    rec("2d no dim", m.get_group)
    rec("2d no dim local", m.get_local_rank)
    rec("2d unknown slice", lambda: m["x"])
    rec("2d reversed slice", lambda: m["tp", "dp"])
    rec("2d unknown dim", lambda: m.get_group("x"))
    rec("2d dim out of range", lambda: m.get_group(5))
    rec("2d slice of slice", lambda: m["tp"]["dp"])
    rec("2d equal", lambda: [m["tp"] == m["tp"], hash(m["tp"]) == hash(m["tp"]), m["tp"] == m["dp"], m == 3])

    # flattening
    flat = m._flatten("dpt")
    describe("flat", lambda: flat)
    rec("flat group is world", lambda: flat.get_group() is d.group.WORLD)
    rec("flat slice", lambda: m["dpt"] is flat)
    rec("flat again", lambda: m._flatten("dpt") is flat)
    rec("flat other layout", lambda: m["tp"]._flatten("dpt"))
    rec("flat root name", lambda: m._flatten("dp"))
    rec("flat 1d own name", lambda: m["dp"]._flatten() is not None)
    rec("flat from sub", lambda: m["tp"].get_group("dpt"))
    rec("flat default name", lambda: m._flatten())

    # three dimensions: slicing several, flattening non-adjacent ones
    m3 = dm.init_device_mesh("cpu", (2, 2, 2), mesh_dim_names=("dp", "cp", "tp"))
    describe("3d", lambda: m3)
    describe("3d dp,tp", lambda: m3["dp", "tp"])
    rec("3d dp,tp groups", lambda: [m3["dp", "tp"].get_group("dp"), m3["dp", "tp"].get_group(1)])
    rec("3d order", lambda: m3["cp", "dp"])
    dpcp = m3["dp", "cp"]._flatten()
    describe("3d dp_cp", lambda: dpcp)
    rec("3d dp_cp group", dpcp.get_group)
    describe("3d dp_cp,tp", lambda: m3["dp_cp", "tp"])
    rec("3d overlap", lambda: m3["dp", "dp_cp"])
    rec("3d flat order", lambda: m3["tp", "dp_cp"])
    dptp = m3["dp", "tp"]._flatten()
    describe("3d dp_tp", lambda: dptp)
    rec("3d dp_tp group", dptp.get_group)
    rec("3d name taken", lambda: m3["dp", "tp"]._flatten("dp_cp"))
    rec("3d root name", lambda: m3._flatten("cp"))
    rec("3d same flatten", lambda: m3["dp", "cp"]._flatten() is dpcp)
    rec("3d flat from sub", lambda: m3["tp"].get_group("dp_cp"))
    rec("3d slice of flat", lambda: dpcp["dp"])
    rec("3d sub of sub", lambda: [m3["dp", "cp"]["cp"], m3["dp", "cp"]["cp"].mesh])
    rec("3d flat not from sub", lambda: m3["dp", "cp"]["dp_cp"])

    # one dimension over the whole job reuses the default group; names are optional
    m1 = dm.init_device_mesh("cpu", (WORLD,))
    describe("1d", lambda: m1)
    rec("1d group is world", lambda: m1.get_group() is d.group.WORLD)
    rec("1d local", m1.get_local_rank)
    rec("1d cannot slice", lambda: m1["x"])
    rec("1d cannot flatten", lambda: m1._flatten())

    # a mesh smaller than the job: ranks 6 and 7 are not in it
    part = dm.init_device_mesh("cpu", (2, 3), mesh_dim_names=("a", "b"))
    describe("part", lambda: part)
    rec("part group", lambda: part.get_group("b"))
    rec("part local", lambda: part.get_local_rank("a"))
    rec("part sub", lambda: [part["b"].get_coordinate(), part["b"].mesh])

    # meshes of any rank order
    odd = dm.DeviceMesh("cpu", [[0, 2, 4, 6], [1, 3, 5, 7]], mesh_dim_names=("x", "y"))
    describe("odd", lambda: odd)
    rec("odd groups", odd.get_all_groups)
    small = dm.DeviceMesh("cpu", lib.tensor([[7, 6], [5, 4]]))
    describe("small", lambda: small)
    rec("small groups", lambda: [small.get_group(0), small.get_group(1)])
    backwards = list(range(WORLD - 1, -1, -1))
    rec("reversed not kept", lambda: dm.DeviceMesh("cpu", backwards).get_group() is d.group.WORLD)
    rec("reversed kept", lambda: dm.DeviceMesh("cpu", backwards, preserve_rank_order=True).get_group())
    rec("kept 2d", lambda: dm.DeviceMesh("cpu", [[3, 1], [2, 0]], preserve_rank_order=True).get_all_groups())

    # bad meshes
    rec("too big", lambda: dm.init_device_mesh("cpu", (3, 3)))
    rec("repeated names", lambda: dm.init_device_mesh("cpu", (2, 4), mesh_dim_names=("a", "a")))
    rec("names length", lambda: dm.init_device_mesh("cpu", (2, 4), mesh_dim_names=("a",)))
    rec("device index", lambda: dm.init_device_mesh("cuda:0", (8,)))
    rec("duplicate ranks", lambda: dm.DeviceMesh("cpu", [0, 0]))
    rec("rank out of range", lambda: dm.DeviceMesh("cpu", [0, 9]))
    rec("no mesh", lambda: dm.DeviceMesh("cpu"))
    rec("few names", lambda: dm.DeviceMesh("cpu", [[0, 1], [2, 3]], mesh_dim_names=("a",)))
    rec("override redundant", lambda: dm.init_device_mesh("cpu", (2, 4), mesh_dim_names=("a", "b"),
                                                          backend_override={"a": "gloo", 0: "gloo"}))
    rec("override invalid", lambda: dm.init_device_mesh("cpu", (2, 4), mesh_dim_names=("a", "b"),
                                                        backend_override={"z": "gloo"}))
    rec("override length", lambda: dm.DeviceMesh("cpu", [[0, 1], [2, 3]], backend_override=((None, None),)))
    rec("unnamed slice", lambda: dm.DeviceMesh("cpu", [[0, 1], [2, 3]])["a"])

    # meshes over groups that exist
    tp = m.get_group("tp")
    rec("from group", lambda: [dm.DeviceMesh.from_group(tp, "cpu"), dm.DeviceMesh.from_group(tp, "cpu").mesh,
                               dm.DeviceMesh.from_group(tp, "cpu").get_group(),
                               dm.DeviceMesh.from_group(tp, "cpu").get_coordinate()])
    rec("from group bad mesh", lambda: dm.DeviceMesh.from_group(tp, "cpu", mesh=[99]))
    from_2d = dm.DeviceMesh.from_group([m.get_group("dp"), tp], "cpu", mesh=m.mesh, mesh_dim_names=("p", "q"))
    describe("from 2d", lambda: from_2d)
    rec("from 2d groups", from_2d.get_all_groups)
    rec("from none", lambda: dm.DeviceMesh.from_group([], "cpu"))
    rec("from no mesh", lambda: dm.DeviceMesh.from_group([tp, tp], "cpu"))
    rec("from no names", lambda: dm.DeviceMesh.from_group([tp, tp], "cpu", mesh=[[0]]))
    rec("from ndim", lambda: dm.DeviceMesh.from_group([tp, tp], "cpu", mesh=[0, 1], mesh_dim_names=("a", "b")))

    # the same arguments give an equal mesh; `with mesh:` makes it the current one
    rec("equal meshes", lambda: dm.init_device_mesh("cpu", (2, 4), mesh_dim_names=("dp", "tp")) == m)
    with m:
        rec("current mesh", lambda: dm._mesh_resources.get_current_mesh() is m)
    rec("no current mesh", dm._mesh_resources.get_current_mesh)

    # split_group and new_group: ranks, order, names and descriptions
    halves = d.split_group(split_ranks=[[0, 1, 2, 3], [7, 6, 5, 4]])
    rec("split halves", lambda: halves)
    rec("split child", lambda: d.split_group(parent_pg=halves, split_ranks=[[2, 0], [1]]))
    rec("split one", lambda: d.split_group(split_ranks=[[5]]))
    rec("split overlap", lambda: d.split_group(split_ranks=[[0, 1], [1, 2]]))
    rec("split empty", lambda: d.split_group(split_ranks=[]))
    rec("split none", lambda: d.split_group())
    rec("split empty group", lambda: d.split_group(split_ranks=[[]]))
    rec("split duplicate", lambda: d.split_group(split_ranks=[[0, 0]]))
    rec("split too big", lambda: d.split_group(split_ranks=[list(range(WORLD + 1))]))
    rec("split bad parent", lambda: d.split_group(parent_pg=5, split_ranks=[[0]]))
    rec("new group order", lambda: d.new_group([5, 2], sort_ranks=False))
    rec("new group sorted", lambda: d.new_group([5, 2], group_desc="mine"))
    rec("new group duplicate", lambda: d.new_group([1, 1]))
    rec("new group range", lambda: d.new_group([0, 9]))
    rec("new group type", lambda: d.new_group(["a"]))
    rec("world", lambda: d.group.WORLD)
    rec("pg count", d.get_pg_count)
    return steps
