"""Sweep 9 programs after the reinforcement-learning, data and deployment tutorials of pytorch.org: the DQN
tutorial's replay memory, policy and target networks, soft target updates through state_dict, Huber loss and
clip_grad_value_; the custom Dataset / transforms tutorial (a landmarks dataset with callable transform classes,
a Compose of them, DataLoader batching dicts); and TorchScript and torch.compile as the tutorials write them
(script with control flow, trace, save/load, a compiled function and module).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep9.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import importlib
import io
import logging
import math
import random
from collections import deque, namedtuple

import numpy as np

from test_programs_sweeputil import init_from_numpy


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


# ---- DQN: replay memory, policy and target networks, a soft target update -------------------------------------
def dqn_cartpole_like(torch, device):
    nn = torch.nn
    F = nn.functional
    Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))

    class ReplayMemory:
        def __init__(self, capacity):
            self.memory = deque([], maxlen=capacity)

        def push(self, *args):
            self.memory.append(Transition(*args))

        def sample(self, batch_size):
            return random.sample(self.memory, batch_size)

        def __len__(self):
            return len(self.memory)

    class DQN(nn.Module):
        def __init__(self, n_observations, n_actions):
            super().__init__()
            self.layer1 = nn.Linear(n_observations, 32)
            self.layer2 = nn.Linear(32, 32)
            self.layer3 = nn.Linear(32, n_actions)

        def forward(self, x):
            x = F.relu(self.layer1(x))
            x = F.relu(self.layer2(x))
            return self.layer3(x)

    BATCH_SIZE, GAMMA, EPS_START, EPS_END, EPS_DECAY, TAU, LR = 8, 0.99, 0.9, 0.05, 100, 0.005, 1e-3
    n_actions, n_observations = 2, 4
    policy_net = DQN(n_observations, n_actions).to(device)
    target_net = DQN(n_observations, n_actions).to(device)
    init_from_numpy(torch, policy_net, 81)
    target_net.load_state_dict(policy_net.state_dict())
    optimizer = torch.optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
    memory = ReplayMemory(100)
    rng = np.random.default_rng(82)
    random.seed(83)
    steps_done = 0

    def select_action(state):
        nonlocal steps_done
        sample = rng.random()
        eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1. * steps_done / EPS_DECAY)
        steps_done += 1
        if sample > eps_threshold:
            with torch.no_grad():
                return policy_net(state).max(1).indices.view(1, 1)
        return torch.tensor([[int(rng.integers(0, n_actions))]], device=device, dtype=torch.long)

    def optimize_model():
        if len(memory) < BATCH_SIZE:
            return None
        transitions = memory.sample(BATCH_SIZE)
        batch = Transition(*zip(*transitions))
        non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), device=device,
                                      dtype=torch.bool)
        non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
        state_batch = torch.cat(batch.state)
        action_batch = torch.cat(batch.action)
        reward_batch = torch.cat(batch.reward)
        state_action_values = policy_net(state_batch).gather(1, action_batch)
        next_state_values = torch.zeros(BATCH_SIZE, device=device)
        with torch.no_grad():
            next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
        expected_state_action_values = (next_state_values * GAMMA) + reward_batch
        criterion = nn.SmoothL1Loss()
        loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
        optimizer.step()
        return loss.item()

    losses, durations = [], []
    for i_episode in range(4):
        state = torch.tensor(rng.standard_normal(4), dtype=torch.float32, device=device).unsqueeze(0)
        for t in range(8):
            action = select_action(state)
            observation = (state.squeeze(0).cpu().numpy() * 0.9 + (action.item() - 0.5) * 0.2).astype(np.float32)
            terminated = bool(abs(observation[0]) > 1.5) or t == 7
            reward = torch.tensor([1.0], device=device)
            next_state = None if terminated else torch.tensor(observation, dtype=torch.float32,
                                                              device=device).unsqueeze(0)
            memory.push(state, action, next_state, reward)
            state = next_state
            loss = optimize_model()
            if loss is not None:
                losses.append(loss)
            target_net_state_dict = target_net.state_dict()
            policy_net_state_dict = policy_net.state_dict()
            for key in policy_net_state_dict:
                target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
            target_net.load_state_dict(target_net_state_dict)
            if terminated:
                durations.append(t + 1)
                break
    durations_t = torch.tensor(durations, dtype=torch.float)
    return {"losses": [round(v, 5) for v in losses], "durations": durations, "memory": len(memory),
            "mean_duration": durations_t.mean().item(), "target": _rounded(target_net.layer3.bias),
            "amsgrad": sorted(optimizer.state_dict()["state"][0])}


# ---- a custom Dataset with transform classes, composed, batched by a DataLoader --------------------------------
def custom_dataset_transforms(torch, device):
    Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader
    rng = np.random.default_rng(84)
    frame = [(f"img_{i}.jpg", rng.integers(0, 40, size=(3, 2)).astype(float)) for i in range(7)]
    images = {name: rng.integers(0, 256, size=(40 + 2 * i, 36, 3)).astype(np.uint8)
              for i, (name, _) in enumerate(frame)}

    class FaceLandmarksDataset(Dataset):
        def __init__(self, frame, transform=None):
            self.landmarks_frame = frame
            self.transform = transform

        def __len__(self):
            return len(self.landmarks_frame)

        def __getitem__(self, idx):
            if torch.is_tensor(idx):
                idx = idx.tolist()
            name, landmarks = self.landmarks_frame[idx]
            sample = {"image": images[name], "landmarks": landmarks.astype("float").reshape(-1, 2)}
            if self.transform:
                sample = self.transform(sample)
            return sample

    class Rescale:
        def __init__(self, output_size):
            assert isinstance(output_size, (int, tuple))
            self.output_size = output_size

        def __call__(self, sample):
            image, landmarks = sample["image"], sample["landmarks"]
            h, w = image.shape[:2]
            new_h, new_w = self.output_size, self.output_size
            rows = (np.arange(new_h) * h // new_h)
            cols = (np.arange(new_w) * w // new_w)
            img = image[rows][:, cols]
            landmarks = landmarks * [new_w / w, new_h / h]
            return {"image": img, "landmarks": landmarks}

    class RandomCrop:
        def __init__(self, output_size, seed):
            self.output_size = (output_size, output_size)
            self.rng = np.random.default_rng(seed)

        def __call__(self, sample):
            image, landmarks = sample["image"], sample["landmarks"]
            h, w = image.shape[:2]
            new_h, new_w = self.output_size
            top = int(self.rng.integers(0, h - new_h + 1))
            left = int(self.rng.integers(0, w - new_w + 1))
            image = image[top:top + new_h, left:left + new_w]
            return {"image": image, "landmarks": landmarks - [left, top]}

    class ToTensor:
        def __call__(self, sample):
            image, landmarks = sample["image"], sample["landmarks"]
            image = image.transpose((2, 0, 1))
            return {"image": torch.from_numpy(image), "landmarks": torch.from_numpy(landmarks)}

    class Compose:
        def __init__(self, transforms):
            self.transforms = transforms

        def __call__(self, sample):
            for t in self.transforms:
                sample = t(sample)
            return sample

    plain = FaceLandmarksDataset(frame)
    shapes = [plain[i]["image"].shape for i in range(3)]
    transformed = FaceLandmarksDataset(frame, transform=Compose([Rescale(24), RandomCrop(16, 85), ToTensor()]))
    first = transformed[0]
    by_tensor = transformed[torch.tensor(1)]
    loader = DataLoader(transformed, batch_size=3, shuffle=False, num_workers=0)
    batches = []
    for i_batch, sample_batched in enumerate(loader):
        images_batch, landmarks_batch = sample_batched["image"], sample_batched["landmarks"]
        moved = images_batch.to(device).float().div(255)
        batches.append([i_batch, list(images_batch.size()), str(images_batch.dtype), list(landmarks_batch.size()),
                        str(landmarks_batch.dtype), round(moved.mean().item(), 5),
                        round(landmarks_batch.sum().item(), 4)])
    subset = torch.utils.data.Subset(transformed, [1, 3])
    concat = torch.utils.data.ConcatDataset([plain, plain])
    split = torch.utils.data.random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(42))
    return {"shapes": [list(s) for s in shapes], "first": [list(first["image"].shape), str(first["image"].dtype),
            first["landmarks"].tolist()], "by_tensor": list(by_tensor["image"].shape), "batches": batches,
            "subset": len(subset), "concat": [len(concat), concat[8]["image"].shape[0]],
            "split": [len(s) for s in split]}


# ---- TorchScript and torch.compile as the tutorials write them -------------------------------------------------
def torchscript_and_compile(torch, device):
    nn = torch.nn

    class MyDecisionGate(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x
            else:
                return -x

    class MyCell(nn.Module):
        def __init__(self, dg):
            super().__init__()
            self.dg = dg
            self.linear = nn.Linear(4, 4)

        def forward(self, x, h):
            new_h = torch.tanh(self.dg(self.linear(x)) + h)
            return new_h, new_h

    rng = np.random.default_rng(86)
    x = torch.tensor(rng.standard_normal((3, 4)), dtype=torch.float32, device=device)
    h = torch.tensor(rng.standard_normal((3, 4)), dtype=torch.float32, device=device)
    my_cell = MyCell(MyDecisionGate()).to(device)
    init_from_numpy(torch, my_cell, 87)
    eager = my_cell(x, h)[0]
    scripted_gate = torch.jit.script(MyDecisionGate())
    scripted_cell = torch.jit.script(MyCell(scripted_gate).to(device))
    scripted_cell.load_state_dict(my_cell.state_dict())
    scripted = scripted_cell(x, h)[0]
    traced_cell = torch.jit.trace(my_cell, (x, h))
    traced = traced_cell(x, h)[0]
    # (the tutorial's scripted_cell.save("model.pt") / torch.jit.load stay out: tandem has no TorchScript archive,
    # docs/compat.md "Runtime modules"; saving the state_dict is the way)
    buffer = io.BytesIO()
    torch.save(scripted_cell.state_dict(), buffer)
    buffer.seek(0)
    loaded = MyCell(MyDecisionGate()).to(device)
    loaded.load_state_dict(torch.load(buffer, map_location=device, weights_only=True))
    reloaded = loaded(x, h)[0]

    def foo(x, y):
        a = torch.sin(x)
        b = torch.cos(y)
        return a + b

    opt_foo1 = torch.compile(foo)
    compiled_fn = opt_foo1(x, h)

    @torch.compile
    def opt_foo2(x, y):
        a = torch.sin(x)
        b = torch.cos(y)
        return a + b

    mod = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
    init_from_numpy(torch, mod, 88)
    opt_mod = torch.compile(mod)
    compiled_mod = opt_mod(x)
    mod.compile()
    in_place = mod(x)
    torch._dynamo.reset()
    torch._logging.set_logs(graph_breaks=True, recompiles=True, dynamo=logging.WARNING)
    recompiled = torch.compile(foo)(x[:2], h[:2])
    torch._logging.set_logs()
    with torch.compiler.set_stance("force_eager"):  # the set_stance recipe: run compiled code eagerly for a while
        eager_again = opt_foo2(x, h)

    @torch.compiler.set_stance("eager_on_recompile")
    def tolerant(a, b):
        return opt_foo2(a, b)

    tolerant(x[:1], h[:1])
    return {"recompiled": list(recompiled.shape), "eager_again": torch.allclose(eager_again, opt_foo2(x, h)), "eager": _rounded(eager), "scripted": torch.allclose(scripted, eager),
            "traced": _rounded(traced), "reloaded": torch.allclose(reloaded, eager),
            "compiled_fn": torch.allclose(compiled_fn, foo(x, h)), "decorated": torch.allclose(opt_foo2(x, h),
            foo(x, h)), "compiled_mod": _rounded(compiled_mod), "in_place": torch.allclose(in_place, compiled_mod),
            "orig": type(opt_mod._orig_mod).__name__, "state": list(opt_mod.state_dict())[:2]}


# ---- torch.export as its tutorial writes it: export, module(), dynamic shapes with Dim, save and load -----------
def export_tutorial(torch, device):
    nn = torch.nn
    export = importlib.import_module(f"{torch.__name__}.export")  # from torch.export import export, Dim

    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(6, 4)
            self.register_buffer("offset", torch.tensor([0.5, -0.5, 1.0, 0.0]))

        def forward(self, x, y):
            return nn.functional.relu(self.lin(x + y)) + self.offset

    mod = MyModule().to(device)
    init_from_numpy(torch, mod, 89)
    rng = np.random.default_rng(90)
    x = torch.tensor(rng.standard_normal((8, 6)), dtype=torch.float32, device=device)
    y = torch.tensor(rng.standard_normal((8, 6)), dtype=torch.float32, device=device)
    exported_mod = export.export(mod, (x, y))
    out = exported_mod.module()(x, y)
    sig = exported_mod.graph_signature
    found = {"out": _rounded(out[:2]), "same": torch.equal(out, mod(x, y)), "type": type(exported_mod).__name__,
             "params": list(sig.parameters), "buffers": list(sig.buffers), "inputs": list(sig.user_inputs),
             "state": sorted(exported_mod.state_dict), "example": len(exported_mod.example_inputs[0]),
             "ranges": len(exported_mod.range_constraints)}
    errors = []
    for bad in (lambda: exported_mod.module()(x[:3], y[:3]), lambda: exported_mod(x, y),
                lambda: exported_mod.module()(x)):
        try:
            bad()
        except (AssertionError, RuntimeError, ValueError) as exc:
            errors.append([type(exc).__name__, str(exc).split("\n")[0]])
    batch = export.Dim("batch", min=2, max=32)
    dynamic = export.export(mod, (x, y), dynamic_shapes={"x": {0: batch}, "y": {0: batch}})
    found["dynamic"] = [list(dynamic.module()(x[:3], y[:3]).shape), [str(r) for r in
                        dynamic.range_constraints.values()], repr(batch)]
    for bad in (lambda: dynamic.module()(x[:1], y[:1]), lambda: dynamic.module()(torch.ones(40, 6, device=device),
                                                                            torch.ones(40, 6, device=device))):
        try:
            bad()
        except AssertionError as exc:
            errors.append([type(exc).__name__, str(exc)])
    buffer = io.BytesIO()
    export.save(dynamic, buffer)
    buffer.seek(0)
    saved_exported_program = export.load(buffer)
    found["loaded"] = torch.allclose(saved_exported_program.module()(x[:5], y[:5]), mod(x[:5], y[:5]))
    found["decomposed"] = torch.equal(exported_mod.run_decompositions().module()(x, y), out)
    try:
        export.export(mod, x)
    except Exception as exc:
        errors.append([type(exc).__name__, str(exc).split("\n")[0]])
    found["errors"] = errors
    return found


PROGRAMS = [dqn_cartpole_like, custom_dataset_transforms, torchscript_and_compile, export_tutorial]
NEEDS_CPP = {}
