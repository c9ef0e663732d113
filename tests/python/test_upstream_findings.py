"""What running pytorch/examples programs unchanged on tandem found (docs/compat.md, "Upstream programs"): each
test is the smallest form of one failure, checked against PyTorch where PyTorch can run here."""
import json
import os
import sys
import textwrap

import pytest

import tandem
import tandem.distributed as dist
import tandem.multiprocessing as tmp
from process_helpers import run_process_tree
from tandem.utils.data import DataLoader, TensorDataset

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(tandem.__file__)))


# mnist_hogwild --cuda: the model and dataset go to spawned training processes, and each of them starts a
# DataLoader with a spawned worker. The dataset's tensors, received from the parent, were passed on again as a
# process argument, and the reduction called itself until RecursionError (a received block keeps no descriptor,
# so share_memory_() had nothing to do and the tensor never became sendable).
def _sum_batches_in_spawned_worker(dataset, q):
    loader = DataLoader(dataset, batch_size=4, num_workers=1, multiprocessing_context="spawn")
    q.put([float(x.sum()) + float(y.sum()) for x, y in loader])


def test_received_tensor_passed_on_to_a_spawned_worker():
    ctx = tmp.get_context("spawn")
    dataset = TensorDataset(tandem.arange(24.0).reshape(8, 3), tandem.arange(8))
    expected = [float(dataset.tensors[0][i:i + 4].sum()) + float(dataset.tensors[1][i:i + 4].sum())
                for i in (0, 4)]
    q = ctx.Queue()
    p = ctx.Process(target=_sum_batches_in_spawned_worker, args=(dataset, q))
    p.start()
    got = q.get(timeout=120)
    p.join(60)
    assert p.exitcode == 0
    assert got == expected


# distributed/ddp/example.py: DDP(model.to(rank), device_ids=[rank]) is called with a CPU batch
# (ddp_model(torch.randn(20, 10))); PyTorch's DDP moves the forward's arguments to device_ids[0], tandem's did
# not and addmm refused the mix of devices. Also PyTorch's checks of device_ids and output_device.
_DDP_CHECKS = """
    import json, os, sys
    import {lib} as torch
    import {lib}.distributed as dist
    from collections import namedtuple
    if "{lib}" == "torch":
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:{port}", rank=0, world_size=1)
    else:
        dist.init_process_group()
    DDP = torch.nn.parallel.DistributedDataParallel
    out = {{}}

    def message(make):
        try:
            make()
        except Exception as e:
            return type(e).__name__ + ": " + str(e).split("\\nhint:")[0]

    out["two_ids"] = message(lambda: DDP(torch.nn.Linear(2, 2), device_ids=[0, 1]))
    out["cpu_ids"] = message(lambda: DDP(torch.nn.Linear(2, 2), device_ids=[0]))
    out["cpu_output_device"] = message(lambda: DDP(torch.nn.Linear(2, 2), output_device=0))
    cpu = DDP(torch.nn.Linear(2, 2), device_ids=[])
    out["cpu_attrs"] = [cpu.device_ids, cpu.output_device, cpu.device_type]
    if "{lib}" == "tandem":  # PyTorch needs a real GPU for the rest
        Pair = namedtuple("Pair", "a b")

        class Uses(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(3, 2)

            def forward(self, x, pair, extra=None, scale=1.0):
                return self.lin(x) + pair.a.sum() + pair.b[0].sum() + extra["k"].sum() * scale

        ddp = DDP(Uses().to("cuda:0"), device_ids=[torch.device("cuda:0")])
        out["cuda_attrs"] = [ddp.device_ids, ddp.output_device, ddp.device_type]
        x = torch.ones(4, 3, requires_grad=True)
        y = ddp(x, Pair(torch.ones(2), [torch.ones(1)]), extra={{"k": torch.ones(1)}}, scale=2.0)
        y.sum().backward()
        out["output_device"] = str(y.device)
        expected = ddp.module.lin.weight.detach().sum(0).cpu().expand(4, 3)
        out["input_grad"] = [str(x.grad.device), bool(torch.allclose(x.grad, expected))]
        # to_kwargs keeps tensors already there (same objects) and non-tensors by reference
        on = torch.ones(1, device="cuda:0")
        (args,), (kw,) = ddp.to_kwargs((on, 5), {{"t": on}}, 0)
        out["to_kwargs_same"] = [args[0] is on, args[1], kw["t"] is on]
        out["to_kwargs_empty"] = list(map(list, ddp.to_kwargs((), {{}}, 0)))
    print(json.dumps(out))
"""


def _ddp_report(lib, env):
    script = textwrap.dedent(_DDP_CHECKS.format(lib=lib, port=29731))
    run = run_process_tree([sys.executable, "-c", script], env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not dist.is_available(), reason="built without MPI")
def test_ddp_moves_inputs_to_its_device_and_checks_device_ids():
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_"))}
    ours = _ddp_report("tandem", dict(base, PYTHONPATH=PACKAGE_ROOT, TANDEM_EMULATE_CUDA="1"))
    theirs = _ddp_report("torch", dict(base, CUDA_VISIBLE_DEVICES=""))
    for key in ("two_ids", "cpu_ids", "cpu_output_device", "cpu_attrs"):
        assert ours[key] == theirs[key], key
    assert ours["cuda_attrs"] == [[0], 0, "cuda"]
    assert ours["output_device"] == "cuda:0"
    assert ours["input_grad"] == ["cpu", True]
    assert ours["to_kwargs_same"] == [True, 5, True]
    assert ours["to_kwargs_empty"] == [[], []]
