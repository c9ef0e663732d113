"""Sweep 9 programs after the beginner tutorials of pytorch.org: the tensors tour (creation, attributes, indexing,
joining, the NumPy bridge), "Learning PyTorch with examples" (a polynomial fit by hand, with autograd, with a
custom Function, with nn and with optim, a dynamic network), "What is torch.nn really?" (logistic regression from
scratch refactored into nn.Module, TensorDataset, DataLoader and a CNN) and the autograd tour (grad_fn, vector-Jacobian
products, retain_grad, no_grad and detach).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep9.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import math
import random

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


# ---- the tensors tour: creation, attributes, indexing, joining, arithmetic, the NumPy bridge -------------------
def tensors_tour(torch, device):
    data = [[1, 2], [3, 4]]
    x_data = torch.tensor(data)
    np_array = np.array(data)
    x_np = torch.from_numpy(np_array)
    x_ones = torch.ones_like(x_data)
    x_rand = torch.rand_like(x_data, dtype=torch.float)
    shape = (2, 3,)
    ones, zeros = torch.ones(shape), torch.zeros(shape)
    tensor = torch.tensor(np.arange(12.0).reshape(3, 4), dtype=torch.float32)
    attrs = [str(tensor.shape), str(tensor.dtype), str(tensor.device), str(x_rand.dtype), x_np.dtype == torch.int64]
    if torch.cuda.is_available() and device != "cpu":
        tensor = tensor.to(device)
    found = {"first_row": tensor[0].tolist(), "first_col": tensor[:, 0].tolist(),
             "last_col": tensor[..., -1].tolist()}
    tensor[:, 1] = 0
    t1 = torch.cat([tensor, tensor, tensor], dim=1)
    y1 = tensor @ tensor.T
    y2 = tensor.matmul(tensor.T)
    y3 = torch.rand_like(y1)
    torch.matmul(tensor, tensor.T, out=y3)
    z1 = tensor * tensor
    z2 = tensor.mul(tensor)
    z3 = torch.rand_like(tensor)
    torch.mul(tensor, tensor, out=z3)
    agg = tensor.sum()
    agg_item = agg.item()
    tensor.add_(5)
    t = torch.ones(5)
    n = t.numpy()
    t.add_(1)
    n2 = np.ones(5)
    t2 = torch.from_numpy(n2)
    np.add(n2, 1, out=n2)
    stacked = torch.stack([x_data, x_ones], dim=0)
    return {"attrs": attrs, "ones": ones.sum().item(), "zeros": zeros.sum().item(), **found,
            "after_assign": tensor.tolist(), "cat": list(t1.shape), "same_mm": torch.equal(y1, y2) and
            torch.equal(y1, y3), "same_mul": torch.equal(z1, z2) and torch.equal(z2, z3),
            "agg": [agg_item, type(agg_item).__name__], "numpy_shared": n.tolist(), "from_numpy_shared": t2.tolist(),
            "stacked": stacked.tolist(), "x_np": x_np.tolist(), "rand_range": bool((x_rand < 1).all())}


# ---- Learning PyTorch with examples: a third-order polynomial fit of sin, four ways -----------------------------
def polynomial_fit_four_ways(torch, device):
    dtype = torch.float
    x = torch.linspace(-math.pi, math.pi, 200, device=device, dtype=dtype)
    y = torch.sin(x)
    start = np.random.default_rng(5).standard_normal(4) * 0.1
    # by hand
    a, b, c, d = (torch.tensor(v, device=device, dtype=dtype) for v in start)
    learning_rate = 1e-6
    for t in range(300):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum().item()
        grad_y_pred = 2.0 * (y_pred - y)
        a -= learning_rate * grad_y_pred.sum()
        b -= learning_rate * (grad_y_pred * x).sum()
        c -= learning_rate * (grad_y_pred * x ** 2).sum()
        d -= learning_rate * (grad_y_pred * x ** 3).sum()
    by_hand = [loss, f"Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3"]

    # a custom autograd Function for the Legendre polynomial P3
    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    a, b, c, d = (torch.full((), float(v), device=device, dtype=dtype, requires_grad=True) for v in start)
    for t in range(200):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= 5e-6 * p.grad
                p.grad = None
    legendre = [loss.item(), d.item()]

    # nn with a Flatten(0, 1) and the module's weight read back
    p = torch.tensor([1, 2, 3], device=device)
    xx = x.unsqueeze(-1).pow(p)
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)).to(device)
    init_from_numpy(torch, model, 6)
    loss_fn = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    for t in range(100):
        loss = loss_fn(model(xx), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    linear_layer = model[0]
    with_optim = [loss.item(), _rounded(linear_layer.weight[:, 0]), linear_layer.bias.item(), xx.dtype == dtype]

    # a dynamic network: reuses a weight a data-dependent number of times (the tutorial draws it from random)
    class DynamicNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.c, self.d, self.e = (torch.nn.Parameter(torch.tensor(float(v)))
                                                      for v in np.linspace(-0.1, 0.1, 5))

        def forward(self, x):
            y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
            for exp in range(4, random.randint(4, 6)):
                y = y + self.e * x ** exp
            return y

        def string(self):
            return f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3 + " \
                   f"{self.e.item()} x^4 ? + {self.e.item()} x^5 ?"

    random.seed(0)
    net = DynamicNet().to(device)
    opt = torch.optim.SGD(net.parameters(), lr=1e-8, momentum=0.9)
    for t in range(30):
        loss = torch.nn.functional.mse_loss(net(x), y, reduction="sum")
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"by_hand": by_hand, "legendre": legendre, "with_optim": with_optim, "dynamic": loss.item(),
            "dynamic_params": len(list(net.parameters())), "string": net.string().count("x^")}


# ---- What is torch.nn really? From scratch to nn.Module, TensorDataset, DataLoader and a CNN ---------------------
def nn_really(torch, device):
    rng = np.random.default_rng(7)
    x_train_np = rng.random((96, 64)).astype(np.float32)
    y_train_np = (x_train_np[:, :8].sum(1) * 10 / 8).astype(np.int64) % 10
    x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train_np[:64], y_train_np[:64], x_train_np[64:],
                                                            y_train_np[64:]))
    n, c = x_train.shape
    summary = [n, c, int(y_train.min()), int(y_train.max())]
    weights = torch.tensor(rng.standard_normal((64, 10)).astype(np.float32)) / math.sqrt(64)
    weights.requires_grad_()
    bias = torch.zeros(10, requires_grad=True)

    def log_softmax(x):
        return x - x.exp().sum(-1).log().unsqueeze(-1)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    def nll(input, target):
        return -input[range(target.shape[0]), target].mean()

    def accuracy(out, yb):
        preds = torch.argmax(out, dim=1)
        return (preds == yb).float().mean()

    bs, lr = 16, 0.5
    for epoch in range(2):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            xb, yb = x_train[start_i:start_i + bs], y_train[start_i:start_i + bs]
            loss = nll(model(xb), yb)
            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()
    scratch = [loss.item(), accuracy(model(x_train), y_train).item()]
    F = torch.nn.functional
    nn = torch.nn
    TensorDataset, DataLoader = torch.utils.data.TensorDataset, torch.utils.data.DataLoader

    class Lambda(nn.Module):
        def __init__(self, func):
            super().__init__()
            self.func = func

        def forward(self, x):
            return self.func(x)

    def preprocess(x, y):
        return x.view(-1, 1, 8, 8).to(device), y.to(device)

    class WrappedDataLoader:
        def __init__(self, dl, func):
            self.dl, self.func = dl, func

        def __len__(self):
            return len(self.dl)

        def __iter__(self):
            for b in self.dl:
                yield self.func(*b)

    train_dl = WrappedDataLoader(DataLoader(TensorDataset(x_train, y_train), batch_size=bs), preprocess)
    valid_dl = WrappedDataLoader(DataLoader(TensorDataset(x_valid, y_valid), batch_size=bs * 2), preprocess)
    cnn = nn.Sequential(nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1), nn.ReLU(),
                        nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
                        nn.AdaptiveAvgPool2d(1), Lambda(lambda x: x.view(x.size(0), -1))).to(device)
    init_from_numpy(torch, cnn, 8)
    opt = torch.optim.SGD(cnn.parameters(), lr=0.1, momentum=0.9)

    def loss_batch(model, loss_func, xb, yb, opt=None):
        loss = loss_func(model(xb), yb)
        if opt is not None:
            loss.backward()
            opt.step()
            opt.zero_grad()
        return loss.item(), len(xb)

    history = []
    for epoch in range(3):
        cnn.train()
        for xb, yb in train_dl:
            loss_batch(cnn, F.cross_entropy, xb, yb, opt)
        cnn.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(cnn, F.cross_entropy, xb, yb) for xb, yb in valid_dl])
        history.append(np.sum(np.multiply(losses, nums)) / np.sum(nums))
    return {"summary": summary, "scratch": scratch, "history": [float(h) for h in history],
            "batches": [len(train_dl), len(valid_dl)]}


# ---- the autograd tour: grad_fn, vector-Jacobian products, retain_grad, no_grad, detach, requires_grad_ ---------
def autograd_tour(torch, device):
    x = torch.ones(5, device=device)
    y = torch.zeros(3, device=device)
    w = torch.tensor(np.linspace(-1, 1, 15).reshape(5, 3), dtype=torch.float32, device=device, requires_grad=True)
    b = torch.tensor([0.1, -0.2, 0.3], device=device, requires_grad=True)
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    names = [z.grad_fn.name(), loss.grad_fn is not None]  # a fused loss's node name is tandem's composition's
    loss.backward()
    grads = [_rounded(w.grad), _rounded(b.grad)]
    z = torch.matmul(x, w) + b
    flags = [z.requires_grad]
    with torch.no_grad():
        z = torch.matmul(x, w) + b
    flags.append(z.requires_grad)
    z_det = (torch.matmul(x, w) + b).detach()
    flags += [z_det.requires_grad, w.is_leaf, z_det.is_leaf, (x * 2).is_leaf]
    inp = torch.eye(4, 5, device=device, requires_grad=True)
    out = (inp + 1).pow(2).t()
    out.backward(torch.ones_like(out), retain_graph=True)
    first = inp.grad.clone()
    out.backward(torch.ones_like(out), retain_graph=True)
    second = inp.grad.clone()
    inp.grad.zero_()
    out.backward(torch.ones_like(out))
    h = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    mid = h * h
    mid.retain_grad()
    (mid.sum() * 3).backward()
    frozen = torch.nn.Linear(3, 2).to(device)
    frozen.requires_grad_(False)
    errors = []
    try:
        frozen(h.detach()).sum().backward()
    except RuntimeError as exc:
        errors.append(str(exc))
    try:
        torch.autograd.grad(h.sum(), [h, torch.ones(1, device=device)])
    except RuntimeError as exc:
        errors.append(str(exc))
    return {"names": names, "grads": grads, "flags": flags, "accumulated": [first.sum().item(), second.sum().item(),
            inp.grad.sum().item()], "retain": mid.grad.tolist(), "leaf_grad": h.grad.tolist(), "errors": errors,
            "frozen": [p.requires_grad for p in frozen.parameters()]}


# ---- the zeroing-gradients recipe: accumulation, zero_grad(set_to_none), the model's and the optimiser's -------
def zeroing_gradients(torch, device):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 3, 3)
            self.pool = nn.MaxPool2d(2, 2)
            self.fc1 = nn.Linear(3 * 3 * 3, 5)
            self.fc2 = nn.Linear(5, 2)

        def forward(self, x):
            x = self.pool(nn.functional.relu(self.conv1(x)))
            x = x.view(-1, 3 * 3 * 3)
            return self.fc2(nn.functional.relu(self.fc1(x)))

    net = Net().to(device)
    init_from_numpy(torch, net, 9)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    inputs = numpy_input(torch, 10, 4, 1, 8, 8, device=device)
    labels = torch.tensor([0, 1, 1, 0], device=device)
    seen = []
    for epoch in range(3):
        optimizer.zero_grad()
        loss = criterion(net(inputs), labels)
        loss.backward()
        seen.append([loss.item(), net.conv1.bias.grad.abs().sum().item()])
        optimizer.step()
    after_zero = [p.grad is None for p in net.parameters()]
    optimizer.zero_grad()
    after_none = [p.grad is None for p in net.parameters()]
    criterion(net(inputs), labels).backward()
    net.zero_grad(set_to_none=False)
    zeros = [p.grad is not None and p.grad.abs().sum().item() == 0 for p in net.parameters()]
    # accumulation over micro-batches equals the full-batch gradient (mean losses divided by the count)
    net.zero_grad()
    for i in range(2):
        (criterion(net(inputs[2 * i:2 * i + 2]), labels[2 * i:2 * i + 2]) / 2).backward()
    accumulated = net.fc2.weight.grad.clone()
    net.zero_grad()
    criterion(net(inputs), labels).backward()
    return {"seen": seen, "after_step": after_zero, "after_none": after_none, "zeros": zeros,
            "accumulated": bool(torch.allclose(accumulated, net.fc2.weight.grad, atol=1e-6)),
            "state": sorted(optimizer.state_dict()["state"][0])}


# ---- the 60-minute blitz: a LeNet, its loss's graph walked back through next_functions ------------------------
def blitz_graph_walk(torch, device):
    nn = torch.nn
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, input):
            c1 = F.relu(self.conv1(input))
            s2 = F.max_pool2d(c1, (2, 2))
            c3 = F.relu(self.conv2(s2))
            s4 = F.max_pool2d(c3, 2)
            s4 = torch.flatten(s4, 1)
            f5 = F.relu(self.fc1(s4))
            f6 = F.relu(self.fc2(f5))
            return self.fc3(f6)

    net = Net().to(device)
    init_from_numpy(torch, net, 11)
    params = list(net.parameters())
    input = numpy_input(torch, 12, 1, 1, 32, 32, device=device)
    out = net(input)
    target = numpy_input(torch, 13, 10, device=device).view(1, -1)
    criterion = nn.MSELoss()
    loss = criterion(out, target)
    walk = [loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name(),
            loss.grad_fn.next_functions[0][0].next_functions[0][0].name()]
    net.zero_grad()
    before = net.conv1.bias.grad
    loss.backward()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
    optimizer.step()
    return {"n_params": len(params), "conv1": list(params[0].size()), "loss": loss.item(), "walk": walk,
            "before": before, "after": _rounded(net.conv1.bias.grad), "out": _rounded(net(input))}


PROGRAMS = [tensors_tour, polynomial_fit_four_ways, nn_really, autograd_tour, zeroing_gradients]
NEEDS_CPP = {
    blitz_graph_walk: "needs C++: the graph of a fused PyTorch op is tandem's composition of smaller ops, so "
                      "walking next_functions from an MSE loss gives MeanBackward0 -> MulBackward0 -> SubBackward0 "
                      "where PyTorch has MseLossBackward0 -> AddmmBackward0 -> AccumulateGrad (linear is one "
                      "addmm node there)",
}
