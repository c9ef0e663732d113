"""The README's example: PyTorch-style tensor code on tandem, and the NumPy boundary."""
import numpy as np

import tandem as torch  # tandem runs ordinary PyTorch tensor code for the subset it covers

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
w = torch.randn(3, 2, generator=torch.Generator().manual_seed(0))
y = torch.relu(x @ w) + 1                      # matmul, broadcasting, elementwise ops
print(y)
print(y.sum(dim=0), y.argmax(dim=1), y[:, 0])  # reductions and indexing
a = y.numpy()                                  # shares memory with y: no copy
a[0, 0] = 42.0
print(y[0, 0].item(), np.asarray(y).dtype)     # 42.0 float32
print(torch.from_numpy(np.arange(4.0)) * 2)    # zero-copy from NumPy, float64 kept
