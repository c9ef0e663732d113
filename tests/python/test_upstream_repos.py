"""What running real repositories' model and training code unchanged on tandem found (docs/compat.md, "Upstream
repositories"): each test is our own smallest form of one failure, checked against PyTorch."""
import numpy as np
import pytest
import torch

import tandem


def _pair(shapes, dtypes, device, requires_grad=False):
    """The same operands for tandem (on device) and for PyTorch (cpu)."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = [tandem.tensor(a.tolist(), dtype=getattr(tandem, d), device=device) for a, d in zip(arrays, dtypes)]
    theirs = [torch.tensor(a.tolist(), dtype=getattr(torch, d)) for a, d in zip(arrays, dtypes)]
    for t in ours + theirs:
        if requires_grad and t.is_floating_point():
            t.requires_grad_(True)
    return ours, theirs


def _close(ours, theirs, tol=1e-5):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(np.array(ours.detach().cpu().tolist(), dtype=np.float64),
                               np.array(theirs.detach().tolist(), dtype=np.float64), rtol=tol, atol=tol)


# johnma2006/mamba-minimal's selective scan: einsum(delta, A, 'b l d_in, d_in n -> b l d_in n') with delta in the
# input's dtype and A from `self.A_log.float()`. An einsum pair that sums nothing is an elementwise product in
# PyTorch and promotes (float64 x float32 -> float64); tandem ran every pair as a bmm, which refuses mixed dtypes.
PRODUCT_EQUATIONS = [
    ("bld,dn->bldn", [(2, 3, 4), (4, 5)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,k->ik", [(2, 3), (4,)]),           # j summed within the first operand, then an outer product
    ("ij,jk->ik", [(2, 1), (1, 4)]),        # the summed label has size 1: nothing to add up
    ("i,j,k->ijk", [(2,), (3,), (4,)]),
    ("bi,bj->bij", [(2, 3), (2, 4)]),
    ("...i,...i->...i", [(2, 3), (2, 3)]),
    ("i,j", [(2,), (3,)]),
]


@pytest.mark.parametrize("equation,shapes", PRODUCT_EQUATIONS)
@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"), ("int64", "float32"),
                                    ("float32", "float16")])
def test_einsum_without_a_sum_promotes_like_a_product(device, equation, shapes, dtypes):
    dts = [dtypes[k % 2] for k in range(len(shapes))]
    ours, theirs = _pair(shapes, dts, device)
    _close(tandem.einsum(equation, *ours), torch.einsum(equation, *theirs), tol=1e-3)


@pytest.mark.parametrize("equation,shapes", PRODUCT_EQUATIONS[:3])
def test_einsum_product_path_gradients(device, equation, shapes):
    ours, theirs = _pair(shapes, ["float64", "float32"], device, requires_grad=True)
    (tandem.einsum(equation, *ours) ** 2).sum().backward()
    (torch.einsum(equation, *theirs) ** 2).sum().backward()
    for a, b in zip(ours, theirs):
        _close(a.grad, b.grad, tol=1e-4)


@pytest.mark.parametrize("equation,shapes", [("ij,jk->ik", [(2, 3), (3, 4)]), ("i,i->", [(3,), (3,)]),
                                             ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]), ("ij,j->i", [(2, 3), (3,)])])
def test_einsum_with_a_sum_still_refuses_mixed_dtypes(device, equation, shapes):
    ours, theirs = _pair(shapes, ["float64", "float32"], device)
    with pytest.raises(RuntimeError) as expected:
        torch.einsum(equation, *theirs)
    with pytest.raises(RuntimeError) as got:
        tandem.einsum(equation, *ours)
    assert str(got.value).splitlines()[0] == str(expected.value).splitlines()[0]


def test_einsum_same_dtype_results_unchanged(device):
    # the products that now skip the bmm give the same values as before for one dtype, on every device
    for equation, shapes in PRODUCT_EQUATIONS:
        ours, theirs = _pair(shapes, ["float32"] * len(shapes), device)
        _close(tandem.einsum(equation, *ours), torch.einsum(equation, *theirs))


# eriklindernoren/PyTorch-GAN's softmax_gan.py ends on an exception right after queuing work on the (emulated)
# CUDA device. The emulated queues' worker threads were still running kernels while the C exit handlers
# unloaded oneDNN/OpenMP, and the process died with SIGSEGV (every time in this reproduction, also after a
# normal end). tandem.cuda now drains emulated queues when Python exits.
_BUSY_AT_EXIT = """
import sys
import tandem
if not tandem.cuda.is_available() or not tandem.cuda.get_device_properties(0).is_emulated:
    sys.exit(77)
x = tandem.randn(256, 1, 28, 28, device="cuda:{index}")
w = tandem.randn(64, 1, 4, 4, device="cuda:{index}")
with tandem.cuda.stream(tandem.cuda.Stream(device="cuda:{index}")):
    for _ in range(20):
        y = tandem.nn.functional.conv2d(x, w, stride=2, padding=1)
        z = x.flatten(1) @ x.flatten(1).t()
{ending}
"""


@pytest.mark.parametrize("ending,code", [("", 0), ("raise SystemExit(3)", 3),
                                         ("raise RuntimeError('the program fails')", 1)])
def test_exit_with_emulated_device_work_still_queued(ending, code):
    import os
    import subprocess
    import sys
    env = dict(os.environ, TANDEM_EMULATE_CUDA="2",
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(tandem.__file__))))
    for index in (0, 1):
        script = _BUSY_AT_EXIT.format(index=index, ending=ending)
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=120)
        if done.returncode == 77:
            pytest.skip("no emulated CUDA device")
        assert done.returncode == code, done.stderr.decode()[-2000:]
