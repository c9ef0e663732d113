"""Modules the FX tests trace, written once against a library passed in as `torch` (tandem or PyTorch), with
parameters filled from NumPy so both libraries hold the same numbers."""
import math

import numpy as np


def init_from_numpy(torch, module, seed=0):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for _, p in module.named_parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, size=tuple(p.shape))))
    return module


def numpy_input(torch, shape, seed=1, device="cpu"):
    values = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(values, dtype=torch.float32, device=device)


def build(torch, name):
    """(module, example inputs as shapes) for model `name`."""
    nn = torch.nn
    F = torch.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.act = nn.ReLU()
            self.fc2 = nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                                          nn.MaxPool2d(2))
            self.head = nn.Linear(4 * 2 * 2, 5)

        def forward(self, x):
            x = self.features(x)
            x = torch.flatten(x, 1)
            return F.log_softmax(self.head(x), dim=1)

    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 3, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(3)
            self.conv2 = nn.Conv2d(3, 3, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(3)

        def forward(self, x):
            out = torch.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return torch.relu(out + x)

    class WithMethods(nn.Module):
        """forward calls its own helper methods and reads its parameters directly."""

        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(4, 4))
            self.bias = nn.Parameter(torch.zeros(4))
            self.proj = nn.Linear(4, 4)

        def scale(self, x):
            return x * 0.5 + 1

        def forward(self, x):
            h = torch.matmul(x, self.weight.t()) + self.bias
            h = self.scale(h)
            return self.proj(h).sum(dim=-1) / math.sqrt(4)

    class KwargsAndTuple(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x, y, scale=2.0, *, shift=None):
            a = self.lin(x) * scale
            b = torch.cat([a, y], dim=0)
            first, second = b.chunk(2)
            return first.tanh(), {"sum": second.sum(), "shape": b.shape[0]}

    class TensorMethods(nn.Module):
        def forward(self, x):
            n = x.size(0)
            y = x.view(n, -1).permute(1, 0).contiguous()
            z = y[1:, :2] - y.mean()
            return torch.where(z > 0, z, -z).pow(2).clamp(max=4.0), x.shape, -x, abs(x), 1 - x, 2 ** x

    class Constants(nn.Module):
        def __init__(self):
            super().__init__()
            self.offset = torch.arange(4.0)  # a plain tensor attribute (get_attr offset)
            self.register_buffer("scale", torch.full((4,), 2.0))

        def forward(self, x):
            return (x + self.offset) * self.scale + self.scale.new_ones(4)  # a tensor made while tracing

    class Attention(nn.Module):
        """A GPT block: split/view/transpose, a causal mask buffer, softmax, positions from x.size(1)."""

        def __init__(self, d=8, heads=2):
            super().__init__()
            self.heads = heads
            self.ln = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.wpe = nn.Embedding(6, d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
            self.register_buffer("mask", torch.tril(torch.ones(6, 6)).view(1, 1, 6, 6))

        def forward(self, x):
            B, T, C = x.size()
            x = x + self.wpe(torch.arange(0, x.size(1), dtype=torch.long, device=x.device))
            q, k, v = self.qkv(self.ln(x)).split(C, dim=2)
            q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = F.softmax(att.masked_fill(self.mask == 0, float("-inf")), dim=-1)
            x = x + self.proj((att @ v).transpose(1, 2).contiguous().view(B, T, C))
            return x + self.mlp(x)

    return {"mlp": (MLP, [(2, 4)]), "attention": (Attention, [(2, 6, 8)]), "cnn": (CNN, [(2, 3, 4, 4)]), "residual": (Residual, [(1, 3, 4, 4)]),
            "methods": (WithMethods, [(2, 4)]), "kwargs_tuple": (KwargsAndTuple, [(2, 3), (2, 3)]),
            "tensor_methods": (TensorMethods, [(2, 3, 2)]), "constants": (Constants, [(2, 4)])}[name]


MODEL_NAMES = ["mlp", "attention", "cnn", "residual", "methods", "kwargs_tuple", "tensor_methods", "constants"]


def make(torch, name, device="cpu"):
    cls, shapes = build(torch, name)
    module = init_from_numpy(torch, cls()).to(device)
    if hasattr(module, "offset"):
        module.offset = module.offset.to(device)  # a plain tensor attribute: .to() does not move it
    inputs = [numpy_input(torch, shape, seed=i + 1, device=device) for i, shape in enumerate(shapes)]
    return module, inputs
