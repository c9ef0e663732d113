"""Sweep 8 programs in the style of timm and the vision-model repositories: DropPath and LayerScale blocks, a
ConvNeXt stage (depthwise 7x7, channels-last LayerNorm, GRN), a ViT with a class token and a resized position
embedding, an MLP-Mixer, and an exponential moving average of the weights (ModelEmaV2/V3 style).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep8.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import copy
import math
from functools import partial
from itertools import repeat

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


def _to_2tuple(x):
    import collections.abc
    if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
        return tuple(x)
    return tuple(repeat(x, 2))


def _layers(torch):
    nn = torch.nn
    F = nn.functional

    def drop_path(x, drop_prob: float = 0.0, training: bool = False, scale_by_keep: bool = True):
        if drop_prob == 0.0 or not training:
            return x
        keep_prob = 1 - drop_prob
        shape = (x.shape[0],) + (1,) * (x.ndim - 1)
        random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
        if keep_prob > 0.0 and scale_by_keep:
            random_tensor.div_(keep_prob)
        return x * random_tensor

    class DropPath(nn.Module):
        def __init__(self, drop_prob=0.0, scale_by_keep=True):
            super().__init__()
            self.drop_prob = drop_prob
            self.scale_by_keep = scale_by_keep

        def forward(self, x):
            return drop_path(x, self.drop_prob, self.training, self.scale_by_keep)

        def extra_repr(self):
            return f"drop_prob={round(self.drop_prob, 3):0.3f}"

    class LayerScale(nn.Module):
        def __init__(self, dim, init_values=1e-5, inplace=False):
            super().__init__()
            self.inplace = inplace
            self.gamma = nn.Parameter(init_values * torch.ones(dim))

        def forward(self, x):
            return x.mul_(self.gamma) if self.inplace else x * self.gamma

    class Mlp(nn.Module):
        def __init__(self, in_features, hidden_features=None, act_layer=nn.GELU, drop=0.0):
            super().__init__()
            hidden_features = hidden_features or in_features
            drop_probs = _to_2tuple(drop)
            self.fc1 = nn.Linear(in_features, hidden_features)
            self.act = act_layer()
            self.drop1 = nn.Dropout(drop_probs[0])
            self.fc2 = nn.Linear(hidden_features, in_features)
            self.drop2 = nn.Dropout(drop_probs[1])

        def forward(self, x):
            return self.drop2(self.fc2(self.drop1(self.act(self.fc1(x)))))

    return drop_path, DropPath, LayerScale, Mlp


# ---- a ViT: patch embedding, class token, pre-norm blocks with LayerScale and DropPath, resized position embedding --
def vit_layerscale_droppath(torch, device):
    nn = torch.nn
    F = nn.functional
    drop_path, DropPath, LayerScale, Mlp = _layers(torch)

    class Attention(nn.Module):
        fused_attn = True

        def __init__(self, dim, num_heads=2, qkv_bias=True, qk_norm=True):
            super().__init__()
            self.num_heads = num_heads
            self.head_dim = dim // num_heads
            self.scale = self.head_dim ** -0.5
            self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
            self.q_norm = nn.LayerNorm(self.head_dim) if qk_norm else nn.Identity()
            self.k_norm = nn.LayerNorm(self.head_dim) if qk_norm else nn.Identity()
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):
            B, N, C = x.shape
            qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.unbind(0)
            q, k = self.q_norm(q), self.k_norm(k)
            if self.fused_attn:
                x = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0)
            else:
                q = q * self.scale
                attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
                x = attn @ v
            return self.proj(x.transpose(1, 2).reshape(B, N, C))

    class Block(nn.Module):
        def __init__(self, dim, drop_path_rate, init_values):
            super().__init__()
            self.norm1 = nn.LayerNorm(dim, eps=1e-6)
            self.attn = Attention(dim)
            self.ls1 = LayerScale(dim, init_values=init_values) if init_values else nn.Identity()
            self.drop_path1 = DropPath(drop_path_rate) if drop_path_rate > 0.0 else nn.Identity()
            self.norm2 = partial(nn.LayerNorm, eps=1e-6)(dim)
            self.mlp = Mlp(dim, int(dim * 4.0), act_layer=nn.GELU)
            self.ls2 = LayerScale(dim, init_values=init_values) if init_values else nn.Identity()
            self.drop_path2 = DropPath(drop_path_rate) if drop_path_rate > 0.0 else nn.Identity()

        def forward(self, x):
            x = x + self.drop_path1(self.ls1(self.attn(self.norm1(x))))
            return x + self.drop_path2(self.ls2(self.mlp(self.norm2(x))))

    class ViT(nn.Module):
        def __init__(self, img_size=16, patch_size=4, dim=16, depth=3, num_classes=5, drop_path_rate=0.2):
            super().__init__()
            self.patch_embed = nn.Conv2d(3, dim, kernel_size=patch_size, stride=patch_size)
            self.grid = img_size // patch_size
            self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
            self.pos_embed = nn.Parameter(torch.randn(1, self.grid ** 2 + 1, dim) * 0.02)
            dpr = [x.item() for x in torch.linspace(0, drop_path_rate, depth)]
            self.blocks = nn.Sequential(*[Block(dim, dpr[i], 0.1) for i in range(depth)])
            self.norm = nn.LayerNorm(dim, eps=1e-6)
            self.head = nn.Linear(dim, num_classes)
            nn.init.trunc_normal_(self.pos_embed, std=0.02)
            nn.init.normal_(self.cls_token, std=1e-6)

        def resample_pos_embed(self, new_grid):
            cls_pos, patch_pos = self.pos_embed[:, :1], self.pos_embed[:, 1:]
            patch_pos = patch_pos.reshape(1, self.grid, self.grid, -1).permute(0, 3, 1, 2)
            patch_pos = F.interpolate(patch_pos, size=(new_grid, new_grid), mode="bicubic", antialias=True,
                                      align_corners=False)
            patch_pos = patch_pos.permute(0, 2, 3, 1).reshape(1, new_grid * new_grid, -1)
            return torch.cat([cls_pos, patch_pos], dim=1)

        def forward(self, x):
            x = self.patch_embed(x).flatten(2).transpose(1, 2)
            grid = int(math.sqrt(x.shape[1]))
            pos = self.pos_embed if grid == self.grid else self.resample_pos_embed(grid)
            x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1) + pos
            x = self.norm(self.blocks(x))
            return self.head(x[:, 0])

    model = ViT().to(device)
    init_from_numpy(torch, model, 900)
    x = numpy_input(torch, 901, 4, 3, 16, 16, device=device)
    y = torch.tensor([0, 3, 1, 4], device=device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    model.eval()
    eval_out = model(x)
    big = model(numpy_input(torch, 902, 2, 3, 24, 24, device=device))
    model.blocks[0].attn.fused_attn = False
    unfused = model(x)
    model.blocks[0].attn.fused_attn = True
    model.train()
    torch.manual_seed(0)
    out = model(x)  # DropPath draws here: only shapes and the scaling rule are compared
    kept = drop_path(torch.ones(64, 3, device=device), 0.25, True)
    kept_values = sorted(set(round(v, 4) for v in kept.flatten().tolist()))
    loss = F.cross_entropy(out, y, label_smoothing=0.1)
    loss.backward()
    opt.step()
    return {"eval": _rounded(eval_out), "big": _rounded(big), "unfused_same": _rounded(unfused) == _rounded(eval_out),
            "train_shape": list(out.shape), "kept_values": kept_values,
            "dpr": [type(b.drop_path1).__name__ for b in model.blocks], "repr": repr(model.blocks[2].drop_path1),
            "finite": bool(torch.isfinite(loss).item()), "gamma_grad": model.blocks[1].ls1.gamma.grad is not None}


# ---- ConvNeXt: depthwise 7x7, LayerNorm over channels-first or channels-last, GRN (V2), stochastic depth ------------
def convnext_blocks(torch, device):
    nn = torch.nn
    F = nn.functional
    drop_path, DropPath, LayerScale, Mlp = _layers(torch)

    class LayerNorm2d(nn.LayerNorm):
        def forward(self, x):
            x = x.permute(0, 2, 3, 1)
            x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
            return x.permute(0, 3, 1, 2)

    class ChannelsFirstLayerNorm(nn.Module):
        def __init__(self, normalized_shape, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(normalized_shape))
            self.bias = nn.Parameter(torch.zeros(normalized_shape))
            self.eps = eps

        def forward(self, x):
            u = x.mean(1, keepdim=True)
            s = (x - u).pow(2).mean(1, keepdim=True)
            x = (x - u) / torch.sqrt(s + self.eps)
            return self.weight[:, None, None] * x + self.bias[:, None, None]

    class GRN(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.gamma = nn.Parameter(torch.zeros(1, 1, 1, dim))
            self.beta = nn.Parameter(torch.zeros(1, 1, 1, dim))

        def forward(self, x):
            Gx = torch.norm(x, p=2, dim=(1, 2), keepdim=True)
            Nx = Gx / (Gx.mean(dim=-1, keepdim=True) + 1e-6)
            return self.gamma * (x * Nx) + self.beta + x

    class Block(nn.Module):
        def __init__(self, dim, drop_path=0.0, v2=False):
            super().__init__()
            self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
            self.norm = nn.LayerNorm(dim, eps=1e-6)
            self.pwconv1 = nn.Linear(dim, 4 * dim)
            self.act = nn.GELU()
            self.grn = GRN(4 * dim) if v2 else nn.Identity()
            self.pwconv2 = nn.Linear(4 * dim, dim)
            self.gamma = None if v2 else nn.Parameter(1e-6 * torch.ones((dim)), requires_grad=True)
            self.drop_path = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()

        def forward(self, x):
            shortcut = x
            x = self.dwconv(x).permute(0, 2, 3, 1)
            x = self.pwconv2(self.grn(self.act(self.pwconv1(self.norm(x)))))
            if self.gamma is not None:
                x = self.gamma * x
            return shortcut + self.drop_path(x.permute(0, 3, 1, 2))

    class ConvNeXt(nn.Module):
        def __init__(self, dims=(8, 16), v2=False):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, dims[0], kernel_size=2, stride=2), ChannelsFirstLayerNorm(dims[0]))
            self.stage1 = nn.Sequential(*[Block(dims[0], 0.1 * i, v2) for i in range(2)])
            self.down = nn.Sequential(LayerNorm2d(dims[0], eps=1e-6), nn.Conv2d(dims[0], dims[1], 2, stride=2))
            self.stage2 = Block(dims[1], 0.0, v2)
            self.norm = nn.LayerNorm(dims[-1], eps=1e-6)
            self.head = nn.Linear(dims[-1], 4)
            self.apply(self._init_weights)
            self.head.weight.data.mul_(0.5)

        def _init_weights(self, m):
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                nn.init.constant_(m.bias, 0)

        def forward(self, x):
            x = self.stage2(self.down(self.stage1(self.stem(x))))
            return self.head(self.norm(x.mean([-2, -1])))

    x = numpy_input(torch, 910, 3, 3, 12, 12, device=device)
    y = torch.tensor([1, 0, 3], device=device)
    results = {}
    for v2 in (False, True):
        model = ConvNeXt(v2=v2).to(device)
        init_from_numpy(torch, model, 911)
        if v2:  # GRN starts as the identity; give it weights to see its path
            with torch.no_grad():
                for blk in model.modules():
                    if isinstance(blk, GRN):
                        blk.gamma.fill_(0.5)
                        blk.beta.fill_(0.1)
        model.eval()
        with torch.no_grad():
            before = model(x)
        model.train()
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
        with torch.no_grad():  # DropPath is random in training: compare with it off
            for m in model.modules():
                if isinstance(m, DropPath):
                    m.drop_prob = 0.0
        losses = []
        for _ in range(3):
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(round(loss.item(), 5))
        results["v2" if v2 else "v1"] = {"before": _rounded(before), "losses": losses,
                                         "n_params": sum(p.numel() for p in model.parameters() if p.requires_grad)}
    ln = LayerNorm2d(8).to(device)
    results["ln_match"] = torch.allclose(ln(x.repeat(1, 3, 1, 1)[:, :8]),
                                         ChannelsFirstLayerNorm(8, eps=1e-5).to(device)(x.repeat(1, 3, 1, 1)[:, :8]),
                                         atol=1e-5)
    return results


# ---- MLP-Mixer with einops-free rearranges, trained on a few images; EMA of the weights as timm's ModelEmaV2/V3 ----
def mixer_with_ema(torch, device):
    nn = torch.nn
    F = nn.functional
    drop_path, DropPath, LayerScale, Mlp = _layers(torch)

    class MixerBlock(nn.Module):
        def __init__(self, dim, seq_len, mlp_ratio=(0.5, 4.0)):
            super().__init__()
            tokens_dim, channels_dim = [int(x * dim) for x in _to_2tuple(mlp_ratio)]
            self.norm1 = nn.LayerNorm(dim, eps=1e-6)
            self.mlp_tokens = Mlp(seq_len, tokens_dim)
            self.norm2 = nn.LayerNorm(dim, eps=1e-6)
            self.mlp_channels = Mlp(dim, channels_dim)

        def forward(self, x):
            x = x + self.mlp_tokens(self.norm1(x).transpose(1, 2)).transpose(1, 2)
            return x + self.mlp_channels(self.norm2(x))

    class Mixer(nn.Module):
        def __init__(self, dim=16, patch=4, img=16, depth=2, classes=3):
            super().__init__()
            self.stem = nn.Conv2d(1, dim, patch, patch)
            self.blocks = nn.Sequential(*[MixerBlock(dim, (img // patch) ** 2) for _ in range(depth)])
            self.norm = nn.LayerNorm(dim, eps=1e-6)
            self.head = nn.Linear(dim, classes)

        def forward(self, x):
            x = self.stem(x).flatten(2).transpose(1, 2)
            return self.head(self.norm(self.blocks(x)).mean(dim=1))

    class ModelEmaV2(nn.Module):
        def __init__(self, model, decay=0.9999, device=None):
            super().__init__()
            self.module = copy.deepcopy(model)
            self.module.eval()
            self.decay = decay
            self.device = device
            if self.device is not None:
                self.module.to(device=device)

        def _update(self, model, update_fn):
            with torch.no_grad():
                for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                    if self.device is not None:
                        model_v = model_v.to(device=self.device)
                    ema_v.copy_(update_fn(ema_v, model_v))

        def update(self, model):
            self._update(model, update_fn=lambda e, m: self.decay * e + (1. - self.decay) * m)

    class ModelEmaV3(nn.Module):
        def __init__(self, model, decay=0.9, warmup=True):
            super().__init__()
            self.module = copy.deepcopy(model).eval()
            self.decay, self.warmup = decay, warmup

        def get_decay(self, step):
            return min(self.decay, (1 + step) / (10 + step)) if self.warmup else self.decay

        @torch.no_grad()
        def update(self, model, step):
            decay = self.get_decay(step)
            ema_lerp_values, model_lerp_values = [], []
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                if ema_v.is_floating_point():
                    ema_lerp_values.append(ema_v)
                    model_lerp_values.append(model_v)
                else:
                    ema_v.copy_(model_v)
            if hasattr(torch, "_foreach_lerp_"):
                torch._foreach_lerp_(ema_lerp_values, model_lerp_values, weight=1. - decay)
            else:
                torch._foreach_mul_(ema_lerp_values, scalar=decay)
                torch._foreach_add_(ema_lerp_values, model_lerp_values, alpha=1. - decay)
            return decay

    model = Mixer().to(device)
    init_from_numpy(torch, model, 920)
    ema2 = ModelEmaV2(model, decay=0.8, device="cpu")
    ema3 = ModelEmaV3(model)
    rng = np.random.default_rng(921)
    x = torch.tensor(rng.standard_normal((6, 1, 16, 16)), dtype=torch.float32, device=device)
    y = torch.tensor(rng.integers(0, 3, 6), device=device)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=6, pct_start=0.3)
    losses, decays, lrs = [], [], []
    for step in range(6):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        ema2.update(model)
        decays.append(round(ema3.update(model, step), 6))
        losses.append(round(loss.item(), 5))
        lrs.append(round(sched.get_last_lr()[0], 7))
    with torch.no_grad():
        out_ema2 = ema2.module(x.cpu())
        out_ema3 = ema3.module(x)
    return {"losses": losses, "decays": decays, "lrs": lrs, "ema2": _rounded(out_ema2, 4),
            "ema3": _rounded(out_ema3, 4), "ema2_device": ema2.module.head.weight.device.type,
            "ema_training": [ema2.module.training, ema3.module.training],
            "ema_requires_grad": next(ema3.module.parameters()).requires_grad}


PROGRAMS = [vit_layerscale_droppath, convnext_blocks, mixer_with_ema]
NEEDS_CPP = {}
