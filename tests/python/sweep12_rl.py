"""Sweep 12 programs, reinforcement learning as people write it: PPO with GAE and the clipped surrogate (Categorical
policies, value clipping, minibatches by permutation, clip_grad_norm_), A2C with a diagonal Gaussian policy
(Independent Normal, entropy, kl_divergence between old and new policies), SAC with a tanh-squashed Normal
(TransformedDistribution over TanhTransform, twin critics, a tensor replay buffer, Polyak averaging through
torch._foreach_mul_/_foreach_add_, a learned temperature), REINFORCE with a learned baseline over discounted
returns, TD3 with target policy smoothing and lerp_ soft updates, C51 distributional targets projected with
index_add_, prioritized replay sampled with cumsum/searchsorted, and a dueling DQN on n-step returns built by
unfold.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep12.py). Parameters, data and noise come from NumPy so both libraries see the same numbers."""
import math

import numpy as np

from test_programs_sweeputil import init_from_numpy


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


def _mlp(nn, sizes, act):
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(act())
    return nn.Sequential(*layers)


# ---- PPO: GAE(lambda), clipped surrogate, clipped value loss, entropy bonus -----------------------------------
def ppo_gae_clipped(torch, device):
    nn = torch.nn
    Categorical = torch.distributions.Categorical

    rng = np.random.default_rng(1201)
    n_steps, n_envs, obs_dim, n_actions = 16, 4, 6, 3
    obs = torch.tensor(rng.standard_normal((n_steps, n_envs, obs_dim)), dtype=torch.float32, device=device)
    rewards = torch.tensor(rng.standard_normal((n_steps, n_envs)), dtype=torch.float32, device=device)
    dones = torch.tensor(rng.random((n_steps, n_envs)) < 0.1, device=device).float()
    actions = torch.tensor(rng.integers(0, n_actions, (n_steps, n_envs)), device=device)

    class ActorCritic(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh())
            self.pi = nn.Linear(32, n_actions)
            self.v = nn.Linear(32, 1)

        def forward(self, x):
            h = self.body(x)
            return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)

    agent = ActorCritic().to(device)
    init_from_numpy(torch, agent, 1202)
    opt = torch.optim.Adam(agent.parameters(), lr=3e-3, eps=1e-5)
    gamma, lam, clip = 0.99, 0.95, 0.2

    with torch.no_grad():
        dist, values = agent(obs)
        old_logp = dist.log_prob(actions)
        next_value = agent(obs[-1])[1]
        advantages = torch.zeros_like(rewards)
        last_gae = torch.zeros(n_envs, device=device)
        for t in reversed(range(n_steps)):
            nv = next_value if t == n_steps - 1 else values[t + 1]
            nonterminal = 1.0 - dones[t]
            delta = rewards[t] + gamma * nv * nonterminal - values[t]
            last_gae = delta + gamma * lam * nonterminal * last_gae
            advantages[t] = last_gae
        returns = advantages + values

    b_obs, b_act = obs.reshape(-1, obs_dim), actions.reshape(-1)
    b_logp, b_adv = old_logp.reshape(-1), advantages.reshape(-1)
    b_ret, b_val = returns.reshape(-1), values.reshape(-1)
    history = []
    for epoch in range(3):
        perm = torch.from_numpy(np.random.default_rng(epoch).permutation(b_obs.shape[0])).to(device)
        for mb in perm.split(16):
            dist, new_v = agent(b_obs[mb])
            logp = dist.log_prob(b_act[mb])
            ratio = (logp - b_logp[mb]).exp()
            adv = b_adv[mb]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
            v_clipped = b_val[mb] + (new_v - b_val[mb]).clamp(-clip, clip)
            v_loss = 0.5 * torch.max((new_v - b_ret[mb]) ** 2, (v_clipped - b_ret[mb]) ** 2).mean()
            entropy = dist.entropy().mean()
            loss = pg_loss - 0.01 * entropy + 0.5 * v_loss
            opt.zero_grad()
            loss.backward()
            norm = nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            opt.step()
            with torch.no_grad():
                log_ratio = logp - b_logp[mb]
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfrac = ((ratio - 1.0).abs() > clip).float().mean()
        history.append([loss.item(), approx_kl.item(), clipfrac.item(), norm.item()])
    return {"adv": _rounded(advantages[:, 0]), "returns_mean": round(returns.mean().item(), 5),
            "history": [_rounded(h, 4) for h in history], "norm_dtype": str(norm.dtype)}


# ---- A2C with a diagonal Gaussian policy (Independent Normal) and a KL early stop ----------------------------
def a2c_gaussian_policy(torch, device):
    nn = torch.nn
    D = torch.distributions

    rng = np.random.default_rng(1211)
    obs = torch.tensor(rng.standard_normal((32, 5)), dtype=torch.float32, device=device)
    acts = torch.tensor(rng.standard_normal((32, 2)), dtype=torch.float32, device=device)
    rets = torch.tensor(rng.standard_normal(32), dtype=torch.float32, device=device)

    class Policy(nn.Module):
        def __init__(self):
            super().__init__()
            self.mu = _mlp(nn, [5, 16, 2], nn.ReLU)
            self.log_std = nn.Parameter(torch.full((2,), -0.5))
            self.critic = _mlp(nn, [5, 16, 1], nn.ReLU)

        def dist(self, x):
            return D.Independent(D.Normal(self.mu(x), self.log_std.exp()), 1)

    pol = Policy().to(device)
    init_from_numpy(torch, pol.mu, 1212)
    init_from_numpy(torch, pol.critic, 1213)
    opt = torch.optim.RMSprop(pol.parameters(), lr=7e-4, alpha=0.99, eps=1e-5)
    with torch.no_grad():
        old = pol.dist(obs)
        old = D.Independent(D.Normal(old.base_dist.loc.clone(), old.base_dist.scale.clone()), 1)
    out = []
    for step in range(6):
        d = pol.dist(obs)
        logp = d.log_prob(acts)
        values = pol.critic(obs).squeeze(-1)
        adv = (rets - values).detach()
        loss = -(logp * adv).mean() + 0.5 * nn.functional.mse_loss(values, rets) - 0.001 * d.entropy().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(pol.parameters(), max_norm=0.5, norm_type=2.0)
        opt.step()
        kl = D.kl_divergence(old, pol.dist(obs)).mean()
        out.append([round(loss.item(), 5), round(kl.item(), 7)])
    d = pol.dist(obs[:3])
    return {"steps": out, "event_shape": list(d.event_shape), "batch_shape": list(d.batch_shape),
            "logp_shape": list(d.log_prob(acts[:3]).shape), "entropy": _rounded(d.entropy()),
            "mean": _rounded(d.mean.flatten()), "stddev": _rounded(d.stddev.flatten()),
            "rsample_shape": list(d.rsample((4,)).shape), "has_rsample": d.has_rsample}


# ---- SAC: tanh-squashed Normal, twin critics, replay buffer tensors, Polyak averaging with _foreach ---------
def sac_tanh_squashed(torch, device):
    nn, F = torch.nn, torch.nn.functional
    D = torch.distributions
    Normal, TransformedDistribution, TanhTransform = D.Normal, D.TransformedDistribution, D.transforms.TanhTransform

    obs_dim, act_dim, capacity = 4, 2, 64
    rng = np.random.default_rng(1221)

    class ReplayBuffer:
        def __init__(self):
            self.obs = torch.zeros(capacity, obs_dim, device=device)
            self.act = torch.zeros(capacity, act_dim, device=device)
            self.rew = torch.zeros(capacity, device=device)
            self.next_obs = torch.zeros(capacity, obs_dim, device=device)
            self.done = torch.zeros(capacity, dtype=torch.bool, device=device)
            self.ptr, self.size = 0, 0

        def add(self, o, a, r, o2, d):
            n = o.shape[0]
            idx = (torch.arange(n) + self.ptr) % capacity
            self.obs[idx], self.act[idx], self.rew[idx], self.next_obs[idx], self.done[idx] = o, a, r, o2, d
            self.ptr = (self.ptr + n) % capacity
            self.size = min(self.size + n, capacity)

        def sample(self, idx):
            idx = torch.as_tensor(idx, device=device)
            return self.obs[idx], self.act[idx], self.rew[idx], self.next_obs[idx], self.done[idx]

    class Actor(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = _mlp(nn, [obs_dim, 32, 2 * act_dim], nn.ReLU)

        def forward(self, o, eps):
            mu, log_std = self.net(o).chunk(2, dim=-1)
            log_std = torch.clamp(log_std, -5, 2)
            dist = TransformedDistribution(Normal(mu, log_std.exp()), [TanhTransform(cache_size=1)])
            pre = mu + log_std.exp() * eps  # rsample with NumPy's noise, so both libraries agree
            a = torch.tanh(pre)
            return a, dist.log_prob(a).sum(-1), dist

    def critic():
        return _mlp(nn, [obs_dim + act_dim, 32, 1], nn.ReLU).to(device)

    actor = Actor().to(device)
    q1, q2 = critic(), critic()
    for i, m in enumerate([actor, q1, q2]):
        init_from_numpy(torch, m, 1222 + i)
    q1_t, q2_t = critic(), critic()
    q1_t.load_state_dict(q1.state_dict())
    q2_t.load_state_dict(q2.state_dict())
    for p in list(q1_t.parameters()) + list(q2_t.parameters()):
        p.requires_grad_(False)
    log_alpha = torch.zeros(1, requires_grad=True, device=device)
    target_entropy = -float(act_dim)
    pi_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
    q_opt = torch.optim.Adam(list(q1.parameters()) + list(q2.parameters()), lr=1e-3)
    a_opt = torch.optim.Adam([log_alpha], lr=1e-3)

    buf = ReplayBuffer()
    for _ in range(3):
        f = lambda *s: torch.tensor(rng.standard_normal(s), dtype=torch.float32, device=device)
        buf.add(f(30, obs_dim), f(30, act_dim).tanh(), f(30), f(30, obs_dim),
                torch.tensor(rng.random(30) < 0.1, device=device))
    gamma, tau = 0.99, 0.05
    hist = []
    for step in range(4):
        o, a, r, o2, d = buf.sample(rng.integers(0, buf.size, 16))
        eps2 = torch.tensor(rng.standard_normal((16, act_dim)), dtype=torch.float32, device=device)
        eps = torch.tensor(rng.standard_normal((16, act_dim)), dtype=torch.float32, device=device)
        alpha = log_alpha.exp().detach()
        with torch.no_grad():
            a2, logp2, _ = actor(o2, eps2)
            x2 = torch.cat([o2, a2], -1)
            q_next = torch.min(q1_t(x2), q2_t(x2)).squeeze(-1) - alpha * logp2
            target = r + gamma * (~d).float() * q_next
        x = torch.cat([o, a], -1)
        q_loss = F.mse_loss(q1(x).squeeze(-1), target) + F.mse_loss(q2(x).squeeze(-1), target)
        q_opt.zero_grad()
        q_loss.backward()
        q_opt.step()

        new_a, logp, dist = actor(o, eps)
        xa = torch.cat([o, new_a], -1)
        pi_loss = (alpha * logp - torch.min(q1(xa), q2(xa)).squeeze(-1)).mean()
        pi_opt.zero_grad()
        pi_loss.backward()
        pi_opt.step()
        alpha_loss = -(log_alpha * (logp.detach() + target_entropy)).mean()
        a_opt.zero_grad()
        alpha_loss.backward()
        a_opt.step()

        with torch.no_grad():
            for online, tgt in ((q1, q1_t), (q2, q2_t)):
                tp, op = list(tgt.parameters()), list(online.parameters())
                torch._foreach_mul_(tp, 1.0 - tau)
                torch._foreach_add_(tp, op, alpha=tau)
        hist.append(_rounded([q_loss.item(), pi_loss.item(), alpha_loss.item(), log_alpha.item()], 4))
    drift = sum((a - b).abs().sum().item() for a, b in zip(q1.parameters(), q1_t.parameters()))
    return {"hist": hist, "drift": round(drift, 4), "size": buf.size, "ptr": buf.ptr,
            "support": [str(dist.support).split("(")[0].replace("torch.", "")],
            "sample_shape": list(dist.rsample().shape), "sample_in_range": bool(dist.sample().abs().max() <= 1)}


# ---- REINFORCE with a learned state-value baseline -------------------------------------------------------------
def reinforce_with_baseline(torch, device):
    nn = torch.nn
    Categorical = torch.distributions.Categorical

    rng = np.random.default_rng(1231)
    T = 20
    states = torch.tensor(rng.standard_normal((T, 4)), dtype=torch.float32, device=device)
    actions = torch.tensor(rng.integers(0, 2, T), device=device)
    rewards = rng.random(T).tolist()
    gamma = 0.98

    def discounted(rs):
        out, g = [], 0.0
        for r in reversed(rs):
            g = r + gamma * g
            out.insert(0, g)
        return torch.tensor(out, device=device)

    # the same returns by a reversed cumulative product trick
    r = torch.tensor(rewards, device=device, dtype=torch.float64)
    powers = gamma ** torch.arange(T, device=device, dtype=torch.float64)
    vectorised = torch.flip(torch.cumsum(torch.flip(r * powers, [0]), 0), [0]) / powers

    policy = _mlp(nn, [4, 16, 2], nn.ReLU).to(device)
    baseline = _mlp(nn, [4, 16, 1], nn.ReLU).to(device)
    init_from_numpy(torch, policy, 1232)
    init_from_numpy(torch, baseline, 1233)
    opt = torch.optim.Adam([{"params": policy.parameters(), "lr": 1e-2},
                            {"params": baseline.parameters(), "lr": 5e-3}])
    returns = discounted(rewards)
    normalised = (returns - returns.mean()) / (returns.std() + 1e-9)
    losses = []
    for episode in range(5):
        dist = Categorical(logits=policy(states))
        logp = dist.log_prob(actions)
        v = baseline(states).squeeze(1)
        advantage = normalised - v.detach()
        loss = -(logp * advantage).sum() + nn.functional.smooth_l1_loss(v, normalised)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    probs = Categorical(logits=policy(states[:3])).probs
    return {"returns": _rounded(returns[:5], 4), "vectorised_close": bool(torch.allclose(returns.double(),
                                                                                         vectorised)),
            "losses": _rounded(losses, 4), "probs": _rounded(probs.flatten(), 4),
            "perplexity": round(Categorical(probs=probs).perplexity().mean().item(), 4)}


# ---- TD3: target policy smoothing, clipped double-Q, delayed actor, lerp_ soft updates ------------------------
def td3_target_smoothing(torch, device):
    nn, F = torch.nn, torch.nn.functional
    import copy

    rng = np.random.default_rng(1241)
    obs_dim, act_dim, max_action = 3, 1, 2.0
    actor = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU(), nn.Linear(16, act_dim), nn.Tanh()).to(device)

    class Critic(nn.Module):
        def __init__(self):
            super().__init__()
            self.q1 = _mlp(nn, [obs_dim + act_dim, 16, 1], nn.ReLU)
            self.q2 = _mlp(nn, [obs_dim + act_dim, 16, 1], nn.ReLU)

        def forward(self, s, a):
            sa = torch.cat([s, a], 1)
            return self.q1(sa), self.q2(sa)

    critic = Critic().to(device)
    init_from_numpy(torch, actor, 1242)
    init_from_numpy(torch, critic, 1243)
    actor_t, critic_t = copy.deepcopy(actor), copy.deepcopy(critic)
    a_opt = torch.optim.Adam(actor.parameters(), lr=3e-4)
    c_opt = torch.optim.Adam(critic.parameters(), lr=3e-4)
    tau, gamma, hist = 0.005, 0.99, []
    for it in range(6):
        s = torch.tensor(rng.standard_normal((8, obs_dim)), dtype=torch.float32, device=device)
        a = torch.tensor(rng.uniform(-2, 2, (8, act_dim)), dtype=torch.float32, device=device)
        r = torch.tensor(rng.standard_normal((8, 1)), dtype=torch.float32, device=device)
        s2 = torch.tensor(rng.standard_normal((8, obs_dim)), dtype=torch.float32, device=device)
        not_done = torch.tensor(rng.random((8, 1)) > 0.1, dtype=torch.float32, device=device)
        noise = torch.tensor(rng.standard_normal((8, act_dim)), dtype=torch.float32, device=device)
        with torch.no_grad():
            noise = (noise * 0.2).clamp(-0.5, 0.5)
            a2 = (actor_t(s2) * max_action + noise).clamp(-max_action, max_action)
            tq1, tq2 = critic_t(s2, a2)
            target = r + not_done * gamma * torch.min(tq1, tq2)
        cq1, cq2 = critic(s, a)
        c_loss = F.mse_loss(cq1, target) + F.mse_loss(cq2, target)
        c_opt.zero_grad()
        c_loss.backward()
        c_opt.step()
        entry = [c_loss.item()]
        if it % 2 == 0:
            a_loss = -critic(s, actor(s) * max_action)[0].mean()
            a_opt.zero_grad()
            a_loss.backward()
            a_opt.step()
            with torch.no_grad():
                for p, tp in zip(critic.parameters(), critic_t.parameters()):
                    tp.lerp_(p, tau)
                for p, tp in zip(actor.parameters(), actor_t.parameters()):
                    tp.data.mul_(1 - tau).add_(tau * p.data)
            entry.append(a_loss.item())
        hist.append(_rounded(entry, 4))
    gap = torch.stack([(p - tp).norm() for p, tp in zip(critic.parameters(), critic_t.parameters())])
    return {"hist": hist, "gap": _rounded(gap, 6), "target_requires_grad": critic_t.q1[0].weight.requires_grad}


# ---- C51: categorical distributional targets projected onto a fixed support ---------------------------------
def c51_distributional(torch, device):
    nn, F = torch.nn, torch.nn.functional
    n_atoms, v_min, v_max, n_actions, batch = 11, -5.0, 5.0, 3, 6
    support = torch.linspace(v_min, v_max, n_atoms, device=device)
    delta_z = (v_max - v_min) / (n_atoms - 1)
    rng = np.random.default_rng(1251)
    net = _mlp(nn, [4, 24, n_actions * n_atoms], nn.ReLU).to(device)
    init_from_numpy(torch, net, 1252)
    target_net = _mlp(nn, [4, 24, n_actions * n_atoms], nn.ReLU).to(device)
    target_net.load_state_dict(net.state_dict())
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    losses = []
    for step in range(4):
        s = torch.tensor(rng.standard_normal((batch, 4)), dtype=torch.float32, device=device)
        s2 = torch.tensor(rng.standard_normal((batch, 4)), dtype=torch.float32, device=device)
        a = torch.tensor(rng.integers(0, n_actions, batch), dtype=torch.long, device=device)
        r = torch.tensor(rng.uniform(-1, 1, batch), dtype=torch.float32, device=device)
        done = torch.tensor(rng.random(batch) < 0.2, device=device)
        with torch.no_grad():
            next_probs = F.softmax(target_net(s2).view(batch, n_actions, n_atoms), dim=2)
            q_next = (next_probs * support).sum(2)
            best = q_next.argmax(1)
            p_best = next_probs[torch.arange(batch), best]
            tz = r.unsqueeze(1) + 0.99 * (~done).unsqueeze(1).float() * support.unsqueeze(0)
            tz = tz.clamp(v_min, v_max)
            b = (tz - v_min) / delta_z
            lower, upper = b.floor().long(), b.ceil().long()
            lower[(upper > 0) & (lower == upper)] -= 1
            upper[(lower < (n_atoms - 1)) & (lower == upper)] += 1
            m = torch.zeros(batch * n_atoms, device=device)
            offset = (torch.arange(batch, device=device) * n_atoms).unsqueeze(1).expand(batch, n_atoms)
            m.index_add_(0, (lower + offset).view(-1), (p_best * (upper.float() - b)).view(-1))
            m.index_add_(0, (upper + offset).view(-1), (p_best * (b - lower.float())).view(-1))
            m = m.view(batch, n_atoms)
        log_p = F.log_softmax(net(s).view(batch, n_actions, n_atoms), dim=2)
        log_p_a = log_p.gather(1, a.view(-1, 1, 1).expand(-1, 1, n_atoms)).squeeze(1)
        loss = -(m * log_p_a).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": _rounded(losses, 4), "mass": _rounded(m.sum(1), 5), "m0": _rounded(m[0], 4),
            "best": best.tolist()}


# ---- prioritized experience replay: proportional sampling by cumsum + searchsorted ---------------------------
def prioritized_replay(torch, device):
    nn = torch.nn
    rng = np.random.default_rng(1261)
    capacity, alpha, beta, eps = 32, 0.6, 0.4, 1e-6
    states = torch.tensor(rng.standard_normal((capacity, 3)), dtype=torch.float32, device=device)
    targets = torch.tensor(rng.standard_normal(capacity), dtype=torch.float32, device=device)
    priorities = torch.ones(capacity, device=device)
    q = nn.Linear(3, 1).to(device)
    init_from_numpy(torch, q, 1262)
    opt = torch.optim.SGD(q.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    picks, weights_seen = [], []
    for step in range(5):
        scaled = priorities.pow(alpha)
        probs = scaled / scaled.sum()
        cdf = torch.cumsum(probs, 0)
        u = torch.tensor(rng.random(8), dtype=torch.float32, device=device) * cdf[-1]
        idx = torch.searchsorted(cdf, u, right=True).clamp_(max=capacity - 1)
        w = (capacity * probs[idx]).pow(-beta)
        w = w / w.max()
        td = q(states[idx]).squeeze(-1) - targets[idx]
        loss = (w * nn.functional.huber_loss(td, torch.zeros_like(td), reduction="none", delta=1.0)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        priorities.index_put_((idx,), td.detach().abs() + eps)
        beta = min(1.0, beta + 0.1)
        picks.append(idx.tolist())
        weights_seen.append(round(w.min().item(), 4))
    top = torch.topk(priorities, 3)
    return {"picks": picks, "weights": weights_seen, "top": _rounded(top.values, 4),
            "top_idx": top.indices.tolist(), "loss": round(loss.item(), 5)}


# ---- dueling DQN on n-step returns built with unfold ---------------------------------------------------------
def dueling_nstep_dqn(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class Dueling(nn.Module):
        def __init__(self, obs_dim, n_actions):
            super().__init__()
            self.feature = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU())
            self.value = nn.Linear(32, 1)
            self.advantage = nn.Linear(32, n_actions)

        def forward(self, x):
            h = self.feature(x)
            adv = self.advantage(h)
            return self.value(h) + adv - adv.mean(dim=1, keepdim=True)

    rng = np.random.default_rng(1271)
    T, n, gamma = 24, 3, 0.9
    obs = torch.tensor(rng.standard_normal((T + 1, 5)), dtype=torch.float32, device=device)
    actions = torch.tensor(rng.integers(0, 4, T), device=device)
    rewards = torch.tensor(rng.random(T), dtype=torch.float32, device=device)
    discounts = gamma ** torch.arange(n, dtype=torch.float32, device=device)
    windows = rewards.unfold(0, n, 1)  # (T - n + 1, n)
    n_step_returns = windows @ discounts
    online, target = Dueling(5, 4).to(device), Dueling(5, 4).to(device)
    init_from_numpy(torch, online, 1272)
    target.load_state_dict(online.state_dict())
    target.eval()
    opt = torch.optim.AdamW(online.parameters(), lr=1e-3, weight_decay=1e-4, amsgrad=True)
    m = T - n + 1
    losses = []
    for step in range(5):
        q = online(obs[:m]).gather(1, actions[:m].unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            next_a = online(obs[n:n + m]).argmax(dim=1, keepdim=True)  # double DQN
            boot = target(obs[n:n + m]).gather(1, next_a).squeeze(1)
            y = n_step_returns + gamma ** n * boot
        loss = F.smooth_l1_loss(q, y, beta=0.5)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step == 2:
            target.load_state_dict(online.state_dict())
    eps = [max(0.05, 1.0 - i / 10) for i in range(0, 20, 5)]
    greedy = online(obs[:4]).max(1)
    return {"nstep": _rounded(n_step_returns[:5]), "windows_shape": list(windows.shape),
            "losses": _rounded(losses, 4), "greedy": greedy.indices.tolist(), "eps": eps,
            "qmax": _rounded(greedy.values, 4)}


# ---- evolution strategies: antithetic perturbations of a flat parameter vector, rank-shaped fitness ----------
def evolution_strategies(torch, device):
    nn = torch.nn
    from_vec, to_vec = nn.utils.vector_to_parameters, nn.utils.parameters_to_vector
    rng = np.random.default_rng(1281)
    policy = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1)).to(device)
    init_from_numpy(torch, policy, 1282)
    states = torch.tensor(rng.standard_normal((20, 3)), dtype=torch.float32, device=device)
    target = torch.sin(states.sum(1, keepdim=True))

    @torch.no_grad()
    def fitness(vec):
        from_vec(vec, policy.parameters())
        return -(policy(states) - target).pow(2).mean()

    theta = to_vec(policy.parameters()).detach().clone()
    n_params, pop, sigma, lr = theta.numel(), 6, 0.05, 0.1
    history = []
    for gen in range(5):
        eps = torch.tensor(rng.standard_normal((pop, n_params)), dtype=torch.float32, device=device)
        eps = torch.cat([eps, -eps])  # antithetic pairs
        scores = torch.stack([fitness(theta + sigma * e) for e in eps])
        ranks = scores.argsort().argsort().float()  # centred ranks in [-0.5, 0.5]
        shaped = ranks / (2 * pop - 1) - 0.5
        theta += lr / (2 * pop * sigma) * (shaped @ eps)
        history.append(round(fitness(theta).item(), 5))
    from_vec(theta, policy.parameters())
    return {"n_params": n_params, "history": history, "ranks": ranks.tolist(),
            "vec_roundtrip": bool(torch.equal(to_vec(policy.parameters()), theta)),
            "weight_version": policy[0].weight.is_leaf}


# ---- a policy-distribution zoo: Beta for bounded actions, mixtures, low-rank Gaussians, KL penalties ---------
def policy_distribution_zoo(torch, device):
    nn = torch.nn
    D = torch.distributions
    rng = np.random.default_rng(1291)
    obs = torch.tensor(rng.standard_normal((16, 4)), dtype=torch.float32, device=device)
    actions01 = torch.tensor(rng.uniform(0.05, 0.95, (16, 2)), dtype=torch.float32, device=device)
    head = nn.Linear(4, 4 + 3 + 3 * 2 * 2).to(device)
    init_from_numpy(torch, head, 1292)
    opt = torch.optim.Adam(head.parameters(), lr=1e-2)
    out = []
    for step in range(4):
        h = head(obs)
        ab = nn.functional.softplus(h[:, :4]) + 1.0
        beta = D.Independent(D.Beta(ab[:, :2], ab[:, 2:]), 1)
        mix_logits = h[:, 4:7]
        means = h[:, 7:13].view(16, 3, 2)
        log_scales = h[:, 13:19].view(16, 3, 2).clamp(-2, 1)
        gmm = D.MixtureSameFamily(D.Categorical(logits=mix_logits),
                                  D.Independent(D.Normal(means, log_scales.exp()), 1))
        loss = -(beta.log_prob(actions01).mean() + gmm.log_prob(actions01 * 2 - 1).mean())
        loss = loss - 0.01 * beta.entropy().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(round(loss.item(), 4))
    prior = D.Independent(D.Beta(torch.ones(16, 2, device=device), torch.ones(16, 2, device=device)), 1)
    lowrank = D.LowRankMultivariateNormal(torch.zeros(3, device=device),
                                          torch.tensor([[0.5], [0.2], [-0.4]], device=device),
                                          torch.tensor([1.0, 0.5, 0.8], device=device))
    full = D.MultivariateNormal(torch.zeros(3, device=device), covariance_matrix=lowrank.covariance_matrix)
    probe = torch.tensor([[0.3, -0.2, 0.5]], device=device)
    cat_old = D.Categorical(logits=mix_logits.detach())
    cat_new = D.Categorical(logits=mix_logits.detach() + 0.1 * torch.arange(3.0, device=device))
    return {"losses": out, "kl_beta_prior": round(D.kl_divergence(beta, prior).mean().item(), 4),
            "beta_mean": _rounded(beta.mean[0], 4), "gmm_mean": _rounded(gmm.mean[0], 4),
            "gmm_var": _rounded(gmm.variance[0], 4),
            "lowrank_vs_full": [round(lowrank.log_prob(probe).item(), 5), round(full.log_prob(probe).item(), 5),
                                round(lowrank.entropy().item(), 5), round(D.kl_divergence(lowrank, full).item(), 6)],
            "kl_cat": round(D.kl_divergence(cat_old, cat_new).mean().item(), 6),
            "shapes": [list(beta.batch_shape), list(beta.event_shape), list(gmm.batch_shape),
                       list(gmm.event_shape), list(gmm.sample((5,)).shape)]}


# ---- GRPO-style policy update on token sequences: group-normalised rewards, per-token ratios, k3 KL -------
def grpo_token_update(torch, device):
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(1301)
    V, T, G, P = 12, 6, 4, 2  # vocab, completion length, group size, prompts
    tokens = torch.tensor(rng.integers(0, V, (P * G, T)), device=device)
    lengths = torch.tensor(rng.integers(3, T + 1, P * G), device=device)
    mask = (torch.arange(T, device=device)[None] < lengths[:, None]).float()
    rewards = torch.tensor(rng.random(P * G), dtype=torch.float32, device=device)
    grouped = rewards.view(P, G)
    adv = ((grouped - grouped.mean(1, keepdim=True)) / (grouped.std(1, keepdim=True) + 1e-4)).view(-1)

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, 16)
            self.gru = nn.GRU(16, 16, batch_first=True)
            self.out = nn.Linear(16, V)

        def forward(self, x):
            return self.out(self.gru(self.emb(x))[0])

    policy, ref = TinyLM().to(device), TinyLM().to(device)
    init_from_numpy(torch, policy, 1302)
    ref.load_state_dict(policy.state_dict())
    ref.requires_grad_(False)
    inputs = F.pad(tokens[:, :-1], (1, 0), value=0)

    def token_logps(model):
        logits = model(inputs)
        return torch.gather(logits.log_softmax(-1), 2, tokens.unsqueeze(-1)).squeeze(-1)

    with torch.inference_mode():
        old = token_logps(policy)
        ref_logp = token_logps(ref)
    opt = torch.optim.AdamW(policy.parameters(), lr=5e-3)
    hist = []
    for step in range(4):
        logp = token_logps(policy)
        ratio = torch.exp(logp - old)
        clipped = torch.clamp(ratio, 0.8, 1.2)
        per_token = -torch.min(ratio * adv[:, None], clipped * adv[:, None])
        delta = ref_logp - logp
        kl = torch.exp(delta) - delta - 1
        per_token = per_token + 0.04 * kl
        loss = ((per_token * mask).sum(-1) / mask.sum(-1)).mean()
        opt.zero_grad()
        loss.backward()
        gnorm = nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        opt.step()
        hist.append(_rounded([loss.item(), (kl * mask).sum().item() / mask.sum().item(), gnorm.item()], 5))
    return {"adv": _rounded(adv, 4), "hist": hist, "inference": [old.requires_grad, ref_logp.shape[1]],
            "mask_tokens": int(mask.sum().item())}


PROGRAMS = [ppo_gae_clipped, a2c_gaussian_policy, sac_tanh_squashed, reinforce_with_baseline, td3_target_smoothing,
            c51_distributional, prioritized_replay, dueling_nstep_dqn, evolution_strategies, policy_distribution_zoo,
            grpo_token_update]
NEEDS_CPP = {}
