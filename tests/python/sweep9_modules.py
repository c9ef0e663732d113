"""Sweep 9 programs after the nn.Module API recipes and the tooling tutorials of pytorch.org: walking and
changing a model (named_modules, apply, buffers, register_buffer(persistent=False), extra_repr, to_empty,
requires_grad_, train/eval, get_submodule), state_dict and load hooks, the torch.utils.benchmark recipe (Timer,
blocked_autorange, Compare), the profiler recipe (record_function, key_averages, table, export, schedule) and
"reasoning about shapes" on the meta device.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep9.py). Timings differ between runs, so the benchmark and profiler programs return only what
does not depend on them."""
import importlib
import json
import os
import tempfile

from test_programs_sweeputil import init_from_numpy, numpy_input


# ---- the nn.Module API: walking, initialising, buffers, extra_repr, modes, freezing, to_empty -------------------
def module_api_tour(torch, device):
    nn = torch.nn

    class Scale(nn.Module):
        def __init__(self, factor, learnable=False):
            super().__init__()
            self.factor = factor
            self.register_buffer("calls", torch.zeros((), dtype=torch.long))
            self.register_buffer("scratch", torch.zeros(3), persistent=False)
            self.gain = nn.Parameter(torch.ones(1), requires_grad=learnable)

        def forward(self, x):
            self.calls += 1
            return x * self.factor * self.gain

        def extra_repr(self):
            return f"factor={self.factor}"

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.drop = nn.Dropout(0.5)
            self.scale = Scale(2.0)

        def forward(self, x):
            return self.scale(self.drop(self.lin(x)))

    model = nn.Sequential(Block(), nn.ReLU(), Block(), nn.Linear(4, 2)).to(device)
    text = repr(model)
    kinds = [(name, type(m).__name__) for name, m in model.named_modules()]
    children = [name for name, _ in model.named_children()]
    initialised = []

    def init_weights(m):
        if isinstance(m, nn.Linear):
            torch.nn.init.constant_(m.weight, 0.05)
            m.bias.data.fill_(0.01)
            initialised.append(type(m).__name__)

    returned = model.apply(init_weights) is model
    buffers = [name for name, _ in model.named_buffers()]
    state = list(model.state_dict())
    own = [name for name, _ in model[0].named_parameters(recurse=False)]
    x = numpy_input(torch, 41, 3, 4, device=device)
    model.eval()
    modes = [m.training for m in model.modules()]
    out_eval = model(x).sum().item()
    model.train()
    model[0].requires_grad_(False)
    trainable = [name for name, p in model.named_parameters() if p.requires_grad]
    sub = model.get_submodule("2.scale")
    param = model.get_parameter("3.bias")
    buf = model.get_buffer("0.scale.calls")
    errors = []
    for bad in (lambda: model.get_submodule("2.nothing"), lambda: model.get_parameter("2.scale.calls")):
        try:
            bad()
        except AttributeError as exc:
            errors.append(str(exc))
    with torch.device("meta"):
        lazy = nn.Sequential(Block(), nn.Linear(4, 2))
    lazy.to_empty(device=device)
    lazy.apply(init_weights)
    for m in lazy.modules():
        if isinstance(m, Scale):  # to_empty leaves every tensor uninitialised, buffers too
            m.gain.data.fill_(1.0)
            m.calls.zero_()
    empty_out = lazy.eval()(x).sum().item()
    model.half()
    dtypes = sorted({str(t.dtype) for t in model.state_dict().values()})
    model.float()
    zeroed = model.zero_grad() is None and all(p.grad is None for p in model.parameters())
    return {"repr": text, "kinds": kinds, "children": children, "initialised": initialised, "returned": returned,
            "buffers": buffers, "state": state, "own": own, "modes": modes, "out_eval": out_eval,
            "trainable": trainable, "sub": repr(sub), "param": param.tolist(), "calls": int(buf),
            "errors": errors, "empty_out": empty_out, "lazy_calls": int(lazy[0].scale.calls),
            "dtypes": dtypes, "zeroed": zeroed, "n_params": sum(p.numel() for p in model.parameters())}


# ---- state_dict hooks: a pre-hook, a post-hook that renames keys, load pre/post hooks for backward compatibility --
def state_dict_hooks(torch, device):
    nn = torch.nn
    log = []

    class Versioned(nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(3, 3)
            self.register_buffer("step", torch.tensor(0))

        def forward(self, x):
            return self.proj(x)

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                                  unexpected_keys, error_msgs):
            version = local_metadata.get("version", None)
            log.append(("load", prefix, version))
            if version is None or version < 2:
                old = prefix + "linear.weight"
                if old in state_dict:
                    state_dict[prefix + "proj.weight"] = state_dict.pop(old)
                    state_dict[prefix + "proj.bias"] = state_dict.pop(prefix + "linear.bias")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)

    model = nn.Sequential(Versioned(), nn.Tanh(), nn.Linear(3, 1)).to(device)
    init_from_numpy(torch, model, 42)

    def pre_hook(module, prefix, keep_vars):
        log.append(("pre", type(module).__name__, prefix, keep_vars))

    def post_hook(module, state_dict, prefix, local_metadata):
        log.append(("post", prefix, len(state_dict)))
        state_dict[prefix + "note"] = torch.tensor(1.5)

    h1 = model[0].register_state_dict_pre_hook(pre_hook)
    h2 = model[2].register_state_dict_post_hook(post_hook)
    sd = model.state_dict()
    keys = list(sd)
    h1.remove()
    h2.remove()
    metadata = {k: v.get("version") for k, v in sd._metadata.items()}
    old = {k.replace("proj", "linear"): v for k, v in model.state_dict().items()}
    old = type(sd)(old)
    old._metadata = type(sd._metadata)({"": {"version": 1}, "0": {"version": 1}})
    fresh = nn.Sequential(Versioned(), nn.Tanh(), nn.Linear(3, 1)).to(device)

    def load_pre(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        log.append(("load_pre", prefix, sorted(state_dict)[:2]))

    def load_post(module, incompatible_keys):
        log.append(("load_post", list(incompatible_keys.missing_keys), list(incompatible_keys.unexpected_keys)))
        incompatible_keys.unexpected_keys.clear()

    fresh[2]._register_load_state_dict_pre_hook(load_pre, with_module=True)
    fresh.register_load_state_dict_post_hook(load_post)
    old["2.note"] = torch.tensor(2.0)
    result = fresh.load_state_dict(old)
    x = numpy_input(torch, 43, 2, 3, device=device)
    return {"keys": keys, "metadata": metadata, "log": [list(e) for e in log], "result": [result.missing_keys,
            result.unexpected_keys], "same": torch.equal(fresh(x), model(x))}


# ---- the torch.utils.benchmark recipe: Timer, timeit, blocked_autorange, Compare, threads ---------------------
def benchmark_recipe(torch, device):
    benchmark = importlib.import_module(f"{torch.__name__}.utils.benchmark")  # import torch.utils.benchmark

    def batched_dot_mul_sum(a, b):
        return a.mul(b).sum(-1)

    def batched_dot_bmm(a, b):
        a = a.reshape(-1, 1, a.shape[-1])
        b = b.reshape(-1, b.shape[-1], 1)
        return torch.bmm(a, b).flatten(-3)

    x = numpy_input(torch, 44, 64, 16, device=device)
    same = torch.allclose(batched_dot_mul_sum(x, x), batched_dot_bmm(x, x))
    t0 = benchmark.Timer(stmt="batched_dot_mul_sum(x, x)", setup="y = x.clone()",
                         globals={"x": x, "batched_dot_mul_sum": batched_dot_mul_sum})
    m0 = t0.timeit(5)
    results = []
    for b in [1, 16]:
        for num_threads in [1, 2]:
            y = x[:b]
            for label, fn in (("mul/sum", "batched_dot_mul_sum(y, y)"), ("bmm", "batched_dot_bmm(y, y)")):
                results.append(benchmark.Timer(
                    stmt=fn, globals={"y": y, "batched_dot_mul_sum": batched_dot_mul_sum,
                                      "batched_dot_bmm": batched_dot_bmm},
                    num_threads=num_threads, label="Batched dot", sub_label=f"[{b}, 16]",
                    description=label).timeit(3))
    compare = benchmark.Compare(results)
    compare.trim_significant_figures()
    compare.colorize()
    table = str(compare)
    m1 = benchmark.Timer(stmt="x.sum()", globals={"x": x}).blocked_autorange(min_run_time=0.01)
    # the recipe's fuzzed inputs: sizes and layouts drawn from one seed, the same in every library
    fuzzer = benchmark.Fuzzer(
        parameters=[benchmark.FuzzedParameter("k", minval=1, maxval=64, distribution="loguniform"),
                    benchmark.FuzzedParameter("n", minval=2, maxval=16, distribution="uniform")],
        tensors=[benchmark.FuzzedTensor("x", size=("k", "n"), min_elements=4, max_elements=512,
                                        probability_contiguous=0.6)],
        seed=0)
    fuzzed = []
    for tensors, tensor_params, params in fuzzer.take(6):
        layout = "" if tensor_params["x"]["is_contiguous"] else "(discontiguous)"
        sub_label = f"{params['k']:<6} x {params['n']:<4} {layout}"
        fuzzed.append([sub_label, list(tensors["x"].shape), tensors["x"].stride(),
                       [int(i) for i in tensor_params["x"]["order"]]])
        benchmark.Timer(stmt="batched_dot_mul_sum(x, x)", globals={"x": tensors["x"],
                        "batched_dot_mul_sum": batched_dot_mul_sum}, sub_label=sub_label).timeit(2)
    fuzz_shape = [type(m0).__name__, m0.number_per_run, len(m0.times), m0.mean > 0, m0.median > 0,
                  m0.task_spec.stmt, m0.task_spec.num_threads]
    return {"same": same, "m0": fuzz_shape, "labels": [(r.label, r.sub_label, r.description, r.num_threads)
            for r in results], "table_lines": [table.split("\n")[0].strip("[- ]"), "mul/sum" in table, "bmm" in table,
            "[16, 16]" in table, "threads: 2" in table], "fuzzed": fuzzed,
            "rejection": round(fuzzer.rejection_rate, 5), "blocked": [m1.number_per_run >= 1, m1.times[0] > 0,
            len(m1.times) >= 1, m1.iqr >= 0], "repr": repr(m0).split("\n")[1].strip()}


# ---- the profiler recipe: record_function, key_averages grouped by shape, tables, a chrome trace, a schedule ----
def profiler_recipe(torch, device):
    nn = torch.nn
    profiler = torch.profiler
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 5)).to(device)
    init_from_numpy(torch, model, 45)
    inputs = numpy_input(torch, 46, 2, 3, 8, 8, device=device)
    with profiler.profile(activities=[profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        with profiler.record_function("model_inference"):
            out = model(inputs)
    averages = prof.key_averages()
    names = {e.key for e in averages}
    table = averages.table(sort_by="cpu_time_total", row_limit=10)
    by_shape = prof.key_averages(group_by_input_shape=True)
    with profiler.profile(activities=[profiler.ProfilerActivity.CPU], profile_memory=True) as mem_prof:
        model(inputs)
    mem_table = mem_prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=5)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)
    steps = []

    def trace_handler(p):
        steps.append(p.step_num)

    with profiler.profile(activities=[profiler.ProfilerActivity.CPU],
                          schedule=profiler.schedule(wait=1, warmup=1, active=2, repeat=1),
                          on_trace_ready=trace_handler) as sched_prof:
        for idx in range(6):
            model(inputs)
            sched_prof.step()
    return {"out": list(out.shape), "has_region": "model_inference" in names, "table": [
            "model_inference" in table, "Self CPU" in table, "CPU total" in table, "# of Calls" in table],
            "by_shape": any(e.input_shapes for e in by_shape), "mem_table": "CPU Mem" in mem_table,
            "trace": ["traceEvents" in trace, any(e.get("name") == "model_inference"
                                                   for e in trace["traceEvents"])],
            "steps": steps, "count": [e.count for e in averages if e.key == "model_inference"]}


# ---- reasoning about shapes: the meta device shows each layer's output shape without computing -----------------
def shapes_on_meta(torch, device):
    nn = torch.nn
    t = torch.rand(2, 3, 10, 10, device="meta")
    conv = nn.Conv2d(3, 5, 2, device="meta")
    found = {"conv": [list(conv(t).shape), str(conv(t).device)], "meta": t.is_meta}

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(nn.functional.relu(self.conv1(x)))
            x = self.pool(nn.functional.relu(self.conv2(x)))
            x = torch.flatten(x, 1)
            x = nn.functional.relu(self.fc1(x))
            return self.fc3(nn.functional.relu(self.fc2(x)))

    shapes = []

    def fw_hook(module, input, output):
        shapes.append(f"Shape of output to {module} is {output.shape}.")

    with torch.device("meta"):
        net = Net()
        inp = torch.randn((1024, 3, 32, 32))
    for name, layer in net.named_modules():
        layer.register_forward_hook(fw_hook)
    out = net(inp)
    found["shapes"] = shapes
    found["out"] = [list(out.shape), out.device.type, out.numel()]
    errors = []
    try:
        out.sum().item()
    except (RuntimeError, NotImplementedError) as exc:
        errors.append(type(exc).__name__)
    real = nn.Linear(3, 2).to(device)
    moved = real.to("meta")
    found["moved"] = [moved.weight.is_meta, list(moved.weight.shape)]
    found["errors"] = errors
    found["ops"] = [list(torch.cat([t, t], 1).shape), list(t.view(2, -1).shape), list(t.permute(0, 2, 3, 1).shape),
                    str(torch.zeros(2, 3, device="meta").float().dtype),
                    list(torch.matmul(torch.empty(4, 3, 5, device="meta"), torch.empty(5, 2, device="meta")).shape)]
    return found


PROGRAMS = [module_api_tour, state_dict_hooks, benchmark_recipe, profiler_recipe, shapes_on_meta]
NEEDS_CPP = {}
