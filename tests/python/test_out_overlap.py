"""out= and in-place writes that share memory with an input (core/memory_overlap.h, ops/out_arg.h): the ops that
compute into a temporary first refuse the overlaps PyTorch refuses, with its message, and accept the rest (the
same tensor, disjoint parts of one storage, strided slices, and every overlap of a reduction's out=)."""
import pytest
import torch

import tandem

MESSAGE = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location. Please clone() the tensor before performing the operation.")


def grid(lib, device):
    return lib.arange(12.0, device=device).reshape(3, 4)


def line(lib, device):
    return lib.arange(10.0, device=device)


CASES = {  # name: fn(lib, device) -> result; each refuses or runs on both libraries alike
    "clamp into a shifted view": lambda lib, d: (lambda x: lib.clamp(x[:8], 0, 5, out=x[2:]))(line(lib, d)),
    "clamp into itself": lambda lib, d: (lambda x: lib.clamp(x, 0, 5, out=x))(line(lib, d)),
    "clamp tensor bound overlapping": lambda lib, d: (
        lambda x: lib.clamp(lib.ones(8, device=d), x[:8], None, out=x[2:]))(line(lib, d)),
    "clamp strided slices": lambda lib, d: (lambda x: lib.clamp(x[::2], 0, 5, out=x[1::2]))(line(lib, d)),
    "clip into a shifted view": lambda lib, d: (lambda x: lib.clip(x[:8], 0, 5, out=x[2:]))(line(lib, d)),
    "cumsum into a shifted view": lambda lib, d: (lambda x: lib.cumsum(x[:8], 0, out=x[2:]))(line(lib, d)),
    "cumsum into itself": lambda lib, d: (lambda x: lib.cumsum(x, 1, out=x))(grid(lib, d)),
    "cumsum into its transpose": lambda lib, d: (
        lambda x: lib.cumsum(x.reshape(2, 5).t(), 0, out=x.reshape(2, 5).t()))(line(lib, d)),
    "cumprod into a shifted view": lambda lib, d: (lambda x: lib.cumprod(x[:8], 0, out=x[2:]))(line(lib, d)),
    "cat into an input's storage": lambda lib, d: (lambda x: lib.cat([x[:4], x[4:]], out=x))(line(lib, d)),
    "cat into its own input": lambda lib, d: (lambda x: lib.cat([x, x], out=x))(grid(lib, d)),
    "cat into a disjoint part": lambda lib, d: (lambda x: lib.cat([x[:2], x[2:4]], out=x[6:]))(line(lib, d)),
    "stack into an overlapping view": lambda lib, d: (lambda x: lib.stack([x[0], x[1]], out=x[1:]))(grid(lib, d)),
    "where into a shifted view": lambda lib, d: (
        lambda x: lib.where(x[:8] > 3, x[:8], lib.zeros(8, device=d), out=x[2:]))(line(lib, d)),
    "where into itself": lambda lib, d: (lambda x: lib.where(x > 3, x, x, out=x))(grid(lib, d)),
    "gather into its input": lambda lib, d: (
        lambda x: lib.gather(x, 1, lib.zeros(3, 4, dtype=lib.long, device=d), out=x))(grid(lib, d)),
    "index_select into an overlapping view": lambda lib, d: (
        lambda x: lib.index_select(x, 0, lib.tensor([0, 1], device=d), out=x[1:]))(grid(lib, d)),
    "index_copy into an overlapping view": lambda lib, d: (
        lambda y: lib.index_copy(y[:3], 0, lib.tensor([0, 1], device=d), lib.ones(2, device=d), out=y[1:4]))(
        lib.arange(5.0, device=d)),
    "index_copy_ from its own view": lambda lib, d: (
        lambda y: y.index_copy_(0, lib.tensor([0, 1], device=d), y[:2]))(lib.arange(5.0, device=d)),
    "index_copy_ indexed by itself": lambda lib, d: (
        lambda y: y.index_copy_(0, y[:2], lib.tensor([7, 8], device=d)))(lib.arange(5, device=d)),
    "index_copy_ from another tensor": lambda lib, d: (
        lambda y: y.index_copy_(0, lib.tensor([0, 1], device=d), lib.ones(2, device=d)))(lib.arange(5.0, device=d)),
    "sort into itself": lambda lib, d: (
        lambda x: lib.sort(x, 1, out=(x, lib.empty(3, 4, dtype=lib.long, device=d)))[0])(grid(lib, d)),
    "abs into itself": lambda lib, d: (lambda x: lib.abs(x, out=x))(grid(lib, d)),
    "mm into a disjoint block": lambda lib, d: (lambda x: lib.mm(x[:2, :2], x[:2, :2], out=x[2:, 2:]))(grid(lib, d)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_overlap_rules_match_pytorch(device, name):
    fn = CASES[name]
    try:
        want = fn(torch, "cpu")
    except RuntimeError as e:
        assert str(e).startswith(MESSAGE)
        with pytest.raises(RuntimeError) as got:
            fn(tandem, device)
        assert str(got.value).startswith(MESSAGE)
        assert "\nhint: " in str(got.value)
        return
    got = fn(tandem, device)
    assert got.cpu().tolist() == want.tolist()
    assert got.dtype == getattr(tandem, str(want.dtype).split(".")[1])


def test_reductions_do_not_check_their_out(device):
    """PyTorch's reductions write into an overlapping out without a check; tandem computes into a temporary, so
    the result is the reduction of the input as it was."""
    x = grid(tandem, device)
    got = tandem.sum(x, 0, out=x[0])
    assert got.cpu().tolist() == [12.0, 15.0, 18.0, 21.0]
    assert x[0].cpu().tolist() == [12.0, 15.0, 18.0, 21.0]
    x = grid(tandem, device)
    assert tandem.amax(x, 1, out=x[0, :3]).cpu().tolist() == [3.0, 7.0, 11.0]


def test_refused_out_is_left_unchanged(device):
    x = line(tandem, device)
    with pytest.raises(RuntimeError, match="unsupported operation"):
        tandem.cat([x[:4], x[4:]], out=x)
    assert x.cpu().tolist() == list(range(10))
