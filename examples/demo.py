"""The README's example: PyTorch-style tensor code on tandem, autograd, and the NumPy boundary."""
import numpy as np

import tandem as torch  # tandem runs ordinary PyTorch tensor code for the subset it covers

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
w = torch.tensor([[0.5, -1.0], [0.25, 0.5], [-0.5, 1.0]], requires_grad=True)
y = torch.relu(x @ w) + 1                      # matmul, broadcasting, elementwise ops
y.sum().backward()                             # autograd: w.grad = x.T @ (x @ w > 0)
print(y, w.grad, sep="\n")
print(y.sum(dim=0), y.argmax(dim=1), y[:, 1])  # reductions and indexing
a = y.detach().numpy()                         # shares memory with y: no copy
a[0, 0] = 42.0
print(y[0, 0].item(), np.asarray(y.detach()).dtype)  # 42.0 float32
print(torch.from_numpy(np.arange(4.0)) * 2)    # zero-copy from NumPy, float64 kept
