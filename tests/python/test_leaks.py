"""Memory stays flat: 100k iterations of each kind of work (ops, autograd, optimizer steps, NumPy and DLPack
round trips, device copies, indexing, error paths) leave the resident set where it was; reference cycles
through autograd state (hooks, Function nodes) are collected; and the interpreter exits without nanobind's
leak report."""
import gc
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import tandem

ITERATIONS = 100_000
# A leak of 32 bytes per iteration shows as 3.2 MB; allocator arenas move by far less once warm.
ALLOWED_GROWTH = 2 << 20
PAGE = os.sysconf("SC_PAGE_SIZE")


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def growth(step, iterations=ITERATIONS):
    for _ in range(iterations // 10):  # warm caches, pools and free lists first
        step()
    gc.collect()
    before = resident_bytes()
    for _ in range(iterations):
        step()
    gc.collect()
    return resident_bytes() - before


def _ops():
    a, b = tandem.ones(16), tandem.arange(16.0)

    def step():
        ((a + b) * 2).exp().sum().item()

    return step


def _autograd():
    w = tandem.ones(8, requires_grad=True)
    x = tandem.arange(8.0)

    def step():
        w.grad = None
        (w * x).tanh().sum().backward()

    return step


def _optimizer():
    model = tandem.nn.Linear(4, 2)
    opt = tandem.optim.Adam(model.parameters(), lr=1e-3)
    x = tandem.ones(3, 4)

    def step():
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()

    return step


def _numpy_round_trip():
    arr = np.arange(32, dtype=np.float32)

    def step():
        t = tandem.from_numpy(arr)
        t.numpy()
        tandem.tensor(arr).numpy()
        np.asarray(t)

    return step


def _dlpack_round_trip():
    t = tandem.arange(32.0)
    arr = np.arange(32.0)

    def step():
        np.from_dlpack(t)
        tandem.from_dlpack(arr)
        tandem.from_dlpack(t.__dlpack__())

    return step


def _indexing():
    t = tandem.arange(64.0).reshape(8, 8)
    idx = tandem.tensor([0, 2, 5])

    def step():
        t[1]
        t[1:5, ::2]
        t[idx]
        t[t > 30]
        t[0, 0] = 1.0
        t[idx] = 2.0

    return step


def _error_paths():
    a, b = tandem.ones(2), tandem.ones(3)

    def step():
        for bad in (lambda: a + b, lambda: a.view(5), lambda: a[7], lambda: tandem.ones(2, dtype="x")):
            try:
                bad()
            except (RuntimeError, IndexError, TypeError):
                pass

    return step


def _device_copies():
    if not tandem.cuda.is_available():
        pytest.skip("needs a (real or emulated) CUDA device")
    host = tandem.arange(256.0)

    def step():
        d = host.to("cuda:0")
        (d + 1).cpu()

    return step


def _autograd_cycles():
    class Twice(tandem.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.keep = a  # a cycle: ctx -> input, and the output -> node -> ctx
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    def step():
        x = tandem.ones(4, requires_grad=True)
        x.register_hook(lambda g: g + x.detach())  # hook closure names its own tensor
        y = Twice.apply(x)
        y.register_hook(lambda g: g * y.detach())

    return step


KINDS = {
    "ops": _ops,
    "autograd": _autograd,
    "optimizer": _optimizer,
    "numpy_round_trip": _numpy_round_trip,
    "dlpack_round_trip": _dlpack_round_trip,
    "indexing": _indexing,
    "error_paths": _error_paths,
    "device_copies": _device_copies,
    "autograd_cycles": _autograd_cycles,
}


# Under `make test-asan` the resident set measures AddressSanitizer's allocator (freed blocks wait in its
# quarantine), not tandem's.
@pytest.mark.skipif(os.environ.get("TANDEM_SANITIZER") == "address", reason="ASan's allocator holds freed memory")
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_resident_memory_is_flat(kind):
    step = KINDS[kind]()
    iterations = ITERATIONS // 10 if kind in ("optimizer", "autograd_cycles") else ITERATIONS
    grew = growth(step, iterations)
    assert grew < ALLOWED_GROWTH, f"{kind}: resident set grew {grew / 2**20:.1f} MiB over {iterations} runs"


# ---- cycles through C++ autograd state ----


def collected(make):
    ref = make()
    gc.collect()
    return ref() is None


def test_cycle_through_a_leaf_hook_is_collected():
    def make():
        x = tandem.ones(3, requires_grad=True)
        x.register_hook(lambda g: g + x.detach())
        return weakref.ref(x)

    assert collected(make)


def test_cycle_through_a_non_leaf_hook_is_collected():
    def make():
        x = tandem.ones(3, requires_grad=True)
        y = x * 3
        y.register_hook(lambda g: g + y.detach())
        return weakref.ref(y)

    assert collected(make)


def test_cycle_through_a_function_context_is_collected():
    class Keep(tandem.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            out = a * 2
            ctx.out = out  # ctx -> output -> node -> ctx
            return out

        @staticmethod
        def backward(ctx, g):
            return g

    def make():
        x = tandem.ones(3, requires_grad=True)
        return weakref.ref(Keep.apply(x))

    assert collected(make)


def test_collecting_leaves_live_tensors_alone():
    # A tensor referenced from outside the cycle survives collection with its hook, grad and graph intact.
    x = tandem.ones(3, requires_grad=True)
    box = {}
    x.register_hook(lambda g: box.setdefault("seen", g.clone()) * 0 + g)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    keep = [y]
    del y
    gc.collect()
    keep[0].sum().backward()
    assert x.grad.tolist() == [20.0, 20.0, 20.0]
    assert box["seen"].tolist() == [20.0, 20.0, 20.0]


SCRIPTS = {
    "hooks": """
        import tandem as torch
        x = torch.ones(3, requires_grad=True)
        y = x * 3
        y.register_hook(lambda g: g + y.detach())  # through the module's globals: a cycle
        y.sum().backward()
        print(x.grad.tolist())
        w = torch.ones(2, requires_grad=True)
        def show(g):
            print(g.tolist(), w.shape)
        w.register_hook(show)  # show's globals hold w: a cycle
        torch.autograd.grad((w * 2).sum(), w)
    """,
    "function_output_in_a_global": """
        import tandem as torch
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2
            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return g * a
        x = torch.ones(3, requires_grad=True)
        z = F.apply(x)
        z.sum().backward(retain_graph=True)
        print(x.grad.tolist())
    """,
    "training": """
        import numpy as np
        import tandem as torch
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(16, 4), torch.randn(16, 1)
        for _ in range(3):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
        dev = "cuda:0" if torch.cuda.is_available() else "cpu"
        print(f"{loss:.3f}", model.to(dev)(x.to(dev)).detach().cpu().numpy().shape)
    """,
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_interpreter_exits_without_a_leak_report(name):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), TANDEM_REPORT_LEAKS="1")
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPTS[name])], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "leaked" not in r.stderr, r.stderr
    assert r.stdout.strip()


# A Function output and a later result of its graph, both kept in the module's globals: the Function's node is
# shared, so the collector cannot see the cycle through backward's globals. A Function that saved tensors lets go
# of its Python objects after backward (no report even with reporting on); one that saved nothing keeps them
# (PyTorch lets it run backward again), and only the developer report (TANDEM_REPORT_LEAKS=1) lists them.
SHARED_NODE = """
    import tandem as torch
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            {save}
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g * 2
    w = torch.ones(2, requires_grad=True)
    out = Double.apply(w * 3)
    loss = out.sum()
    loss.backward()
    print(w.grad.tolist())
"""


@pytest.mark.parametrize("saves,report,expect_report", [
    (True, "1", False), (False, "0", False), (False, "1", True)])
def test_shared_function_node_at_exit(saves, report, expect_report):
    script = textwrap.dedent(SHARED_NODE).replace("{save}", "ctx.save_for_backward(x)" if saves else "pass")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), TANDEM_REPORT_LEAKS=report)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[6.0, 6.0]"
    assert ("leaked" in r.stderr) == expect_report, r.stderr
