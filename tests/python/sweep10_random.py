"""Sweep 10 programs, random seeding as the reproducibility threads give it: manual_seed, Generator objects passed
to randn/randperm/multinomial/randint and to DataLoader/random_split/samplers, get_rng_state/set_rng_state and
Generator.get_state/set_state to replay draws, fork_rng, and dropout under a seed.

tandem's random streams are not PyTorch's (docs/compat.md), so the programs return only what does not depend on
the stream: that a seed replays the same numbers, shapes, dtypes, ranges and set relations."""
import numpy as np


def _same(a, b):
    return bool((a == b).all())


# ---- global seeding: manual_seed replays, get/set_rng_state rolls back, fork_rng isolates, initial_seed --------
def global_seeding(torch, device):
    found = {}
    torch.manual_seed(1234)
    first = [torch.rand(3), torch.randn(2, 2), torch.randint(0, 10, (5,)), torch.randperm(6)]
    torch.manual_seed(1234)
    again = [torch.rand(3), torch.randn(2, 2), torch.randint(0, 10, (5,)), torch.randperm(6)]
    found["replay"] = [_same(a, b) for a, b in zip(first, again)]
    found["initial_seed"] = torch.initial_seed()
    state = torch.get_rng_state()
    found["state"] = [str(state.dtype), state.dim(), state.device.type]
    a = torch.rand(4)
    torch.set_rng_state(state)
    b = torch.rand(4)
    found["rollback"] = _same(a, b)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        torch.rand(100)
    c = torch.rand(4)
    torch.set_rng_state(state)
    torch.rand(4)
    d = torch.rand(4)
    found["fork_isolates"] = _same(c, d)
    torch.manual_seed(7)
    x = torch.randn(1000)
    found["normal_stats"] = [abs(x.mean().item()) < 0.15, 0.85 < x.std().item() < 1.15, str(x.dtype)]
    r = torch.randint(3, 7, (200,))
    found["randint"] = [str(r.dtype), sorted(torch.unique(r).tolist()), r.min().item() >= 3, r.max().item() < 7]
    found["randint_dtype"] = [str(torch.randint(0, 2, (3,), dtype=torch.float32).dtype),
                              str(torch.randint_like(torch.zeros(2), 5).dtype),
                              str(torch.rand(2, dtype=torch.float64).dtype), str(torch.randperm(4).dtype)]
    found["perm_is_perm"] = sorted(torch.randperm(10).tolist()) == list(range(10))
    found["device_draws"] = [torch.rand(2, device=device).device.type == torch.device(device).type,
                             str(torch.randn(2, device=device, dtype=torch.float64).dtype)]
    torch.manual_seed(3)
    u = torch.empty(500).uniform_(-2, 3)
    found["uniform_"] = [u.min().item() >= -2, u.max().item() < 3]
    bern = torch.empty(2000).bernoulli_(0.3)
    found["bernoulli_"] = [sorted(bern.unique().tolist()), 0.25 < bern.mean().item() < 0.35]
    found["seed_returns"] = [type(torch.seed()).__name__, type(torch.manual_seed(5)).__name__]
    found["rand_like"] = [list(torch.rand_like(torch.zeros(2, 3)).shape),
                          str(torch.randn_like(torch.zeros(2).double()).dtype)]
    return found


# ---- Generator objects: independent streams, passed to randn/randperm/multinomial/randint, state save/restore --
def generator_objects(torch, device):
    g1 = torch.Generator().manual_seed(42)
    g2 = torch.Generator().manual_seed(42)
    found = {"same_seed_same_draws": [_same(torch.randn(5, generator=g1), torch.randn(5, generator=g2)),
                                      _same(torch.randperm(8, generator=g1), torch.randperm(8, generator=g2)),
                                      _same(torch.randint(0, 9, (4,), generator=g1),
                                            torch.randint(0, 9, (4,), generator=g2))]}
    torch.manual_seed(0)
    before = torch.get_rng_state()
    torch.rand(3, generator=g1)
    found["global_untouched"] = _same(before, torch.get_rng_state())
    state = g1.get_state()
    a = torch.rand(4, generator=g1)
    g1.set_state(state)
    b = torch.rand(4, generator=g1)
    found["generator_state"] = [_same(a, b), str(state.dtype), g1.initial_seed(), type(g1.seed()).__name__]
    g3 = torch.Generator()
    found["manual_seed_returns_self"] = g3.manual_seed(1) is g3
    found["device"] = str(torch.Generator().device)
    weights = torch.tensor([0.0, 10.0, 0.0, 5.0, 1.0])
    g = torch.Generator().manual_seed(5)
    picks = torch.multinomial(weights, 3, replacement=False, generator=g)
    found["multinomial_no_replacement"] = [sorted(picks.tolist()), str(picks.dtype)]
    many = torch.multinomial(weights, 1000, replacement=True, generator=g)
    counts = torch.bincount(many, minlength=5)
    found["multinomial_replacement"] = [counts[0].item(), counts[2].item(), counts[1].item() > counts[3].item()]
    batch = torch.multinomial(torch.tensor([[1.0, 0.0], [0.0, 1.0]]), 2, replacement=True, generator=g)
    found["multinomial_rows"] = batch.tolist()
    try:
        torch.multinomial(weights, 4, replacement=False)
        found["too_many"] = None
    except RuntimeError as exc:
        found["too_many"] = str(exc).split("\n")[0]
    try:
        torch.multinomial(torch.tensor([-1.0, 2.0]), 1)
        found["negative"] = None
    except RuntimeError as exc:
        found["negative"] = str(exc).split("\n")[0]
    found["normal_generator"] = _same(torch.normal(0.0, 1.0, (3,), generator=torch.Generator().manual_seed(9)),
                                      torch.normal(0.0, 1.0, (3,), generator=torch.Generator().manual_seed(9)))
    found["bernoulli_generator"] = _same(
        torch.bernoulli(torch.full((20,), 0.5), generator=torch.Generator().manual_seed(2)),
        torch.bernoulli(torch.full((20,), 0.5), generator=torch.Generator().manual_seed(2)))
    found["tensor_fill_generator"] = _same(torch.empty(5).normal_(generator=torch.Generator().manual_seed(4)),
                                           torch.empty(5).normal_(generator=torch.Generator().manual_seed(4)))
    # a copy of a generator continues its stream: pickled to a worker, deep-copied with a sampler, clone_state()
    import copy
    import pickle
    src = torch.Generator().manual_seed(21)
    torch.rand(3, generator=src)
    copies = [pickle.loads(pickle.dumps(src)), copy.deepcopy(src), src.clone_state()]
    expected = torch.rand(4, generator=src.clone_state())
    found["copies_continue"] = [[type(c).__name__, c is src, c.initial_seed(),
                                 _same(torch.rand(4, generator=c), expected)]
                                for c in copies]
    sampler = torch.utils.data.RandomSampler(range(10), generator=torch.Generator().manual_seed(5))
    found["sampler_deepcopy"] = list(copy.deepcopy(sampler)) == list(sampler)
    found["different_seeds_differ"] = not _same(torch.rand(8, generator=torch.Generator().manual_seed(1)),
                                                torch.rand(8, generator=torch.Generator().manual_seed(2)))
    return found


# ---- data pipeline reproducibility: DataLoader(generator=), random_split, samplers, worker_init_fn seeding ------
def data_reproducibility(torch, device):
    DataLoader, RandomSampler, SubsetRandomSampler, TensorDataset, WeightedRandomSampler, random_split = (
        getattr(torch.utils.data, n) for n in ("DataLoader", "RandomSampler", "SubsetRandomSampler", "TensorDataset",
                                               "WeightedRandomSampler", "random_split"))
    data = TensorDataset(torch.arange(20).float().unsqueeze(1), torch.arange(20))

    def epoch_order(seed):
        loader = DataLoader(data, batch_size=6, shuffle=True, generator=torch.Generator().manual_seed(seed))
        return [yb.tolist() for _, yb in loader]

    o1, o2, o3 = epoch_order(10), epoch_order(10), epoch_order(11)
    found = {"loader_replays": o1 == o2, "loader_seed_matters": o1 != o3,
             "loader_covers": sorted(v for batch in o1 for v in batch) == list(range(20)),
             "batch_sizes": [len(b) for b in o1]}
    loader = DataLoader(data, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(3))
    e1 = [yb.tolist() for _, yb in loader]
    e2 = [yb.tolist() for _, yb in loader]
    found["epochs_differ"] = e1 != e2
    train, val = random_split(data, [0.75, 0.25], generator=torch.Generator().manual_seed(42))
    train2, _ = random_split(data, [15, 5], generator=torch.Generator().manual_seed(42))
    found["random_split"] = [len(train), len(val), list(train.indices) == list(train2.indices),
                             sorted(list(train.indices) + list(val.indices)) == list(range(20))]
    try:
        random_split(data, [10, 5])
        found["split_bad"] = None
    except ValueError as exc:
        found["split_bad"] = str(exc)
    sampler = RandomSampler(data, replacement=True, num_samples=50, generator=torch.Generator().manual_seed(1))
    s1 = list(sampler)
    sampler.generator.manual_seed(1)
    found["random_sampler"] = [len(s1), s1 == list(sampler), all(0 <= i < 20 for i in s1)]
    weights = [0.0] * 10 + [1.0] * 10
    wsampler = WeightedRandomSampler(weights, num_samples=30, replacement=True,
                                     generator=torch.Generator().manual_seed(2))
    found["weighted_sampler"] = [len(list(wsampler)), min(wsampler) >= 10]
    subset = SubsetRandomSampler([1, 3, 5, 7], generator=torch.Generator().manual_seed(0))
    found["subset_sampler"] = sorted(subset)
    seen = []

    def worker_init_fn(worker_id):
        seed = torch.initial_seed() % 2 ** 32
        np.random.seed(seed)
        seen.append(worker_id)

    loader = DataLoader(data, batch_size=10, num_workers=0, worker_init_fn=worker_init_fn)
    found["worker_init_main_process"] = [len(list(loader)), seen]
    torch.manual_seed(0)
    drop = torch.nn.Dropout(0.5)
    a = drop(torch.ones(1000))
    torch.manual_seed(0)
    b = drop(torch.ones(1000))
    found["dropout_replays"] = [_same(a, b), sorted(a.unique().tolist()), 0.4 < (a == 0).float().mean().item() < 0.6]
    drop.eval()
    found["dropout_eval"] = _same(drop(torch.ones(5)), torch.ones(5))
    return found


PROGRAMS = [global_seeding, generator_objects, data_reproducibility]
NEEDS_CPP = {}
