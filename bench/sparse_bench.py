"""Sparse COO products: tandem.sparse.mm (index_select of the dense rows the entries name, scaled, index_add into
the output rows) against torch.sparse.mm, forward and forward+backward (gradients w.r.t. the values and the dense
operand, as a GCN/GAT layer needs them), plus coalesce.

Usage: PYTHONPATH=python python bench/sparse_bench.py [--threads N] [--n 10000] [--nnz 100000] [--cols 64]
"""
import argparse
import os
import sys

import wait_policy  # noqa: F401  (first: OpenMP's idle policy, before any runtime loads)

import torch

import tandem

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import best_ms as best, describe  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--nnz", type=int, default=100000)
    parser.add_argument("--cols", type=int, default=64)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    tandem.set_num_threads(args.threads)
    print(describe())
    g = torch.Generator().manual_seed(0)
    indices = torch.randint(0, args.n, (2, args.nnz), generator=g)
    values = torch.randn(args.nnz, generator=g)
    dense = torch.randn(args.n, args.cols, generator=g)
    p = torch.sparse_coo_tensor(indices, values, (args.n, args.n)).coalesce()
    t = tandem.sparse_coo_tensor(tandem.from_numpy(indices.numpy()), tandem.from_numpy(values.numpy()),
                                 (args.n, args.n)).coalesce()
    d = tandem.from_numpy(dense.numpy())
    torch.testing.assert_close(torch.from_numpy(tandem.sparse.mm(t, d).numpy()), torch.sparse.mm(p, dense),
                               rtol=1e-4, atol=1e-4)
    shape = f"{args.n}x{args.n} with {args.nnz} nnz @ {args.n}x{args.cols}"
    print(f"sparse.mm {shape}: tandem {best(lambda: tandem.sparse.mm(t, d)):.2f} ms, "
          f"PyTorch {best(lambda: torch.sparse.mm(p, dense)):.2f} ms")

    pv, pd = p.values().clone().requires_grad_(), dense.clone().requires_grad_()
    tv, td = t.values().clone().requires_grad_(), d.clone().requires_grad_()
    p_indices, t_indices = p.indices(), t.indices()

    def torch_step():
        torch.sparse.mm(torch.sparse_coo_tensor(p_indices, pv, p.shape), pd).sum().backward()

    def tandem_step():
        tandem.sparse.mm(tandem.sparse_coo_tensor(t_indices, tv, t.shape), td).sum().backward()

    print(f"sparse.mm forward+backward (values and dense grads) {shape}: tandem {best(tandem_step):.2f} ms, "
          f"PyTorch {best(torch_step):.2f} ms")
    pu = torch.sparse_coo_tensor(indices, values, (args.n, args.n))
    tu = tandem.sparse_coo_tensor(tandem.from_numpy(indices.numpy()), tandem.from_numpy(values.numpy()),
                                  (args.n, args.n))
    print(f"coalesce, {args.nnz} entries: tandem {best(lambda: tu.coalesce()):.2f} ms, "
          f"PyTorch {best(lambda: pu.coalesce()):.2f} ms")


if __name__ == "__main__":
    main()
