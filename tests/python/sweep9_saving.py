"""Sweep 9 programs after the saving-and-loading recipes of pytorch.org: a general checkpoint (model, optimizer,
epoch and loss in one .tar file), several models in one file, warmstarting a different model from a partial
state_dict, saving and loading across devices (map_location forms, to(device) after loading), the
load_state_dict tips (mmap=True, assign=True, building on the meta device), torch.utils.swap_tensors with
set_swap_module_params_on_conversion, and the state_dict recipe's look at the optimizer's state_dict.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep9.py). Files go to a fresh temporary directory."""
import os
import tempfile

from test_programs_sweeputil import init_from_numpy, numpy_input


def _net(torch):
    nn = torch.nn
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 3)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 8, 3)
            self.fc1 = nn.Linear(8 * 1 * 1, 12)
            self.fc2 = nn.Linear(12, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.view(-1, 8 * 1 * 1)
            return self.fc2(F.relu(self.fc1(x)))

    return Net


# ---- a general checkpoint: model, optimizer, epoch and loss in one file, resumed in train and in eval mode -------
def general_checkpoint(torch, device):
    Net = _net(torch)
    net = Net().to(device)
    init_from_numpy(torch, net, 21)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    x = numpy_input(torch, 22, 4, 3, 12, 12, device=device)
    labels = torch.tensor([1, 3, 5, 7], device=device)
    criterion = torch.nn.CrossEntropyLoss()
    for epoch in range(3):
        optimizer.zero_grad()
        loss = criterion(net(x), labels)
        loss.backward()
        optimizer.step()
    with tempfile.TemporaryDirectory() as tmp:
        PATH = os.path.join(tmp, "model.pt")
        torch.save({"epoch": epoch, "model_state_dict": net.state_dict(),
                    "optimizer_state_dict": optimizer.state_dict(), "loss": loss}, PATH)
        size_ok = os.path.getsize(PATH) > 1000
        model = Net().to(device)
        optimizer2 = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.1)
        checkpoint = torch.load(PATH, weights_only=True)
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
    model.eval()
    with torch.no_grad():
        evaluated = model(x)
    model.train()
    losses = []
    for _ in range(2):
        for opt, m in ((optimizer, net), (optimizer2, model)):
            opt.zero_grad()
            step_loss = criterion(m(x), labels)
            step_loss.backward()
            opt.step()
        losses.append([step_loss.item(), torch.equal(net.fc2.weight, model.fc2.weight)])
    return {"epoch": checkpoint["epoch"], "loss": [checkpoint["loss"].item(), checkpoint["loss"].requires_grad,
            checkpoint["loss"].device.type == torch.device(device).type], "size_ok": size_ok,
            "eval": evaluated.argmax(1).tolist(), "resumed": losses, "lr": optimizer2.param_groups[0]["lr"],
            "training": [model.training, model.fc1.training]}


# ---- several models in one file, and warmstarting a different model from another's parameters ----------------
def multiple_models_and_warmstart(torch, device):
    nn = torch.nn

    class NetA(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(6, 8)
            self.fc2 = nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    class NetB(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(6, 8)
            self.fc2 = nn.Linear(8, 3)
            self.fc3 = nn.Linear(3, 2)

        def forward(self, x):
            return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))

    netA, netB = NetA().to(device), NetB().to(device)
    init_from_numpy(torch, netA, 23)
    init_from_numpy(torch, netB, 24)
    optimizerA = torch.optim.Adam(netA.parameters(), lr=0.01)
    optimizerB = torch.optim.Adam(netB.parameters(), lr=0.01)
    x = numpy_input(torch, 25, 5, 6, device=device)
    for net, opt in ((netA, optimizerA), (netB, optimizerB)):
        opt.zero_grad()
        net(x).square().mean().backward()
        opt.step()
    with tempfile.TemporaryDirectory() as tmp:
        PATH = os.path.join(tmp, "models.tar")
        torch.save({"modelA_state_dict": netA.state_dict(), "modelB_state_dict": netB.state_dict(),
                    "optimizerA_state_dict": optimizerA.state_dict(),
                    "optimizerB_state_dict": optimizerB.state_dict()}, PATH)
        ckpt = torch.load(PATH, weights_only=True, map_location=device)
        torch.save(netA.state_dict(), os.path.join(tmp, "netA.pth"))
        warm = NetB().to(device)
        init_from_numpy(torch, warm, 26)
        result = warm.load_state_dict(torch.load(os.path.join(tmp, "netA.pth"), weights_only=True), strict=False)
    modelA, modelB = NetA().to(device), NetB().to(device)
    modelA.load_state_dict(ckpt["modelA_state_dict"])
    modelB.load_state_dict(ckpt["modelB_state_dict"])
    optA = torch.optim.Adam(modelA.parameters())
    optA.load_state_dict(ckpt["optimizerA_state_dict"])
    step = optA.state_dict()["state"][0]["step"]
    # renaming keys to load into a model whose layers have other names
    renamed = {k.replace("fc", "layer"): v for k, v in netA.state_dict().items()}

    class Renamed(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer1 = nn.Linear(6, 8)
            self.layer2 = nn.Linear(8, 3)

    other = Renamed().to(device)
    other.load_state_dict(renamed)
    return {"keys": sorted(ckpt), "missing": result.missing_keys, "unexpected": result.unexpected_keys,
            "warm_same": torch.equal(warm.fc1.weight, netA.fc1.weight), "out_a": modelA(x).sum().item(),
            "out_b": modelB(x).sum().item(), "step": [float(step), step.dtype == torch.float32],
            "lr": optA.param_groups[0]["lr"], "renamed": torch.equal(other.layer2.bias, netA.fc2.bias),
            "exp_avg": ckpt["optimizerB_state_dict"]["state"][5]["exp_avg"].abs().sum().item()}


# ---- across devices: every map_location form, and to(device) after loading ------------------------------------
def across_devices(torch, device):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3)).to(device)
    init_from_numpy(torch, model, 27)
    model(numpy_input(torch, 28, 6, 4, device=device))
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        PATH = os.path.join(tmp, "m.pt")
        torch.save(model.state_dict(), PATH)
        for name, loc in (("str", "cpu"), ("device", torch.device("cpu")), ("dict", {"cuda:0": "cpu", "cpu": "cpu"}),
                          ("callable", lambda storage, loc: storage)):
            sd = torch.load(PATH, map_location=loc, weights_only=True)
            found[name] = sorted({str(v.device) for v in sd.values()})
        plain = torch.load(PATH, weights_only=True)
        cpu_model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
        cpu_model.load_state_dict(torch.load(PATH, map_location=torch.device("cpu"), weights_only=True))
        back = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
        back.load_state_dict(torch.load(PATH, weights_only=True))
        back.to(torch.device(device))
        whole = os.path.join(tmp, "t.pt")
        torch.save([torch.arange(3, device=device), {"w": model[0].weight.detach()}], whole)
        loaded = torch.load(whole, weights_only=True, map_location="cpu")
    return {**found, "plain": sorted({v.device.type for v in plain.values()}) == [torch.device(device).type],
            "cpu_model": [p.device.type for p in cpu_model.parameters()],
            "back": sorted({p.device.type for p in back.parameters()}) == [torch.device(device).type],
            "running": cpu_model[1].running_mean.tolist(), "batches": int(cpu_model[1].num_batches_tracked),
            "loaded": [loaded[0].tolist(), loaded[1]["w"].shape[0], loaded[1]["w"].requires_grad]}


# ---- load_state_dict tips: mmap, assign, a model built on the meta device --------------------------------------
def load_state_dict_tips(torch, device):
    nn = torch.nn

    class SomeModule(nn.Module):
        def __init__(self, size):
            super().__init__()
            self.linears = nn.ModuleList([nn.Linear(size, size) for _ in range(3)])

        def forward(self, x):
            return self.linears[-1](self.linears[0](x))

    m = SomeModule(8)
    init_from_numpy(torch, m, 29)
    with tempfile.TemporaryDirectory() as tmp:
        PATH = os.path.join(tmp, "checkpoint.pth")
        torch.save(m.state_dict(), PATH)
        state_dict = torch.load(PATH, mmap=True, weights_only=True)
        with torch.device("meta"):
            meta_m = SomeModule(8)
        meta = [meta_m.linears[0].weight.is_meta, meta_m.linears[0].weight.device.type]
        meta_m.load_state_dict(state_dict, assign=True)
        same_storage = meta_m.linears[0].weight.data_ptr() == state_dict["linears.0.weight"].data_ptr()
        kinds = [type(meta_m.linears[0].weight).__name__, meta_m.linears[0].weight.requires_grad]
        out = meta_m(numpy_input(torch, 30, 2, 8)).sum().item()
        copied = SomeModule(8)
        # a fresh load: PyTorch keeps assign=True in the state_dict's _metadata, so reusing it would assign again
        copied.load_state_dict(torch.load(PATH, mmap=True, weights_only=True))
        not_shared = copied.linears[0].weight.data_ptr() != state_dict["linears.0.weight"].data_ptr()
        del state_dict
    errors = []
    with torch.device("meta"):
        other = SomeModule(8)
    try:
        other.load_state_dict(m.state_dict())
        errors.append([other.linears[0].weight.is_meta])
    except Exception as exc:
        errors.append(type(exc).__name__)
    empty = SomeModule(4).to_empty(device=device)
    return {"meta": meta, "assigned": same_storage, "kinds": kinds, "out": out, "copied": not_shared,
            "errors": errors, "empty": [empty.linears[0].weight.device.type == torch.device(device).type,
                                        list(empty.linears[0].weight.shape)]}


# ---- swap_tensors: swapping two tensors' contents, and module conversion that keeps references valid ------------
def swap_tensors_recipe(torch, device):
    nn = torch.nn
    t1 = torch.tensor([1.0, 2.0], device=device)
    t2 = torch.tensor([[3.0, 4.0, 5.0]], device=device)
    ids = (id(t1), id(t2))
    torch.utils.swap_tensors(t1, t2)
    swapped = [t1.tolist(), t2.tolist(), (id(t1), id(t2)) == ids]
    mod = nn.Linear(3, 2).to(device)
    init_from_numpy(torch, mod, 31)
    weight_ref = mod.weight
    before = torch.__future__.get_swap_module_params_on_conversion()
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        mod.double()
        kept = [weight_ref is mod.weight, str(weight_ref.dtype), type(weight_ref).__name__]
        opt = torch.optim.SGD(mod.parameters(), lr=0.1)
        mod.float()
        still = [opt.param_groups[0]["params"][0] is mod.weight, str(mod.weight.dtype)]
    finally:
        torch.__future__.set_swap_module_params_on_conversion(before)
    mod2 = nn.Linear(3, 2).to(device)
    ref2 = mod2.weight
    mod2.double()
    errors = []
    a = torch.ones(2, device=device, requires_grad=True)
    b = a + 1  # (a * 2 would do: tandem's node for a product with a number holds `a`, see the focused test)
    try:
        torch.utils.swap_tensors(a, torch.zeros(2, device=device))
    except RuntimeError as exc:
        errors.append(str(exc).split("\n")[0])
    return {"swapped": swapped, "kept": kept, "still": still, "default": before,
            "no_swap": [ref2 is mod2.weight, str(ref2.dtype), str(mod2.weight.dtype)], "errors": errors,
            "b": b.tolist()}


# ---- what is a state_dict: the model's and the optimizer's, printed as the recipe prints them ------------------
def state_dict_anatomy(torch, device):
    Net = _net(torch)
    net = Net().to(device)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    lines = ["Model's state_dict:"]
    for param_tensor in net.state_dict():
        lines.append(f"{param_tensor}\t{net.state_dict()[param_tensor].size()}")
    lines.append("Optimizer's state_dict:")
    for var_name in optimizer.state_dict():
        lines.append(f"{var_name}\t{optimizer.state_dict()[var_name]}")
    sd = net.state_dict(keep_vars=True)
    detached = net.state_dict()
    with_prefix = list(net.state_dict(prefix="net."))[:2]
    od = type(net.state_dict()).__name__
    return {"lines": lines, "keep_vars": [type(sd["fc1.weight"]).__name__, sd["fc1.weight"].requires_grad],
            "detached": [type(detached["fc1.weight"]).__name__, detached["fc1.weight"].requires_grad],
            "prefix": with_prefix, "type": od, "metadata": sorted(net.state_dict()._metadata)[:3]}


PROGRAMS = [general_checkpoint, multiple_models_and_warmstart, across_devices, load_state_dict_tips,
            swap_tensors_recipe, state_dict_anatomy]
NEEDS_CPP = {}
