"""Sweep 14 programs, scientific computing with complex numbers: a state-vector quantum circuit simulator (gates by
kron and einsum, measurement probabilities, partial traces, entanglement entropy by eigvalsh), a split-step Fourier
Schroedinger solver, unitary evolution by matrix_exp of a complex Hermitian Hamiltonian, complex parameters fitted
by autograd and Adam, a pseudo-spectral Burgers / KdV solver with 2/3 dealiasing and a spectral Poisson solver, and
FFT-based convolution and correlation with every norm.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep14.py). Data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np


def _c(z):
    """A complex number or tensor element as [real, imag] (the harness compares floats, not complex)."""
    z = complex(z)
    return [z.real, z.imag]


def _cl(t):
    """A complex tensor as a flat list of [real, imag] pairs."""
    return [_c(v) for v in t.detach().cpu().flatten().tolist()]


# ---- a state-vector quantum circuit simulator ---------------------------------------------------------------------
def quantum_circuit_statevector(torch, device):
    cdt = torch.complex128
    s2 = 1 / math.sqrt(2)
    H = torch.tensor([[s2, s2], [s2, -s2]], dtype=cdt, device=device)
    X = torch.tensor([[0, 1], [1, 0]], dtype=cdt, device=device)
    Z = torch.tensor([[1, 0], [0, -1]], dtype=cdt, device=device)
    I2 = torch.eye(2, dtype=cdt, device=device)

    def rz(theta):
        phase = torch.exp(-0.5j * torch.tensor(theta, dtype=torch.float64, device=device))
        return torch.diag(torch.stack([phase, phase.conj()]))

    def ry(theta):
        c, s = math.cos(theta / 2), math.sin(theta / 2)
        return torch.tensor([[c, -s], [s, c]], dtype=cdt, device=device)

    n = 3

    def apply_1q(state, gate, q):
        psi = state.reshape([2] * n)
        psi = torch.movedim(torch.tensordot(gate, psi, dims=([1], [q])), 0, q)
        return psi.reshape(-1)

    def cnot(control, target):
        P0 = torch.tensor([[1, 0], [0, 0]], dtype=cdt, device=device)
        P1 = torch.tensor([[0, 0], [0, 1]], dtype=cdt, device=device)
        ops0 = [P0 if q == control else I2 for q in range(n)]
        ops1 = [P1 if q == control else (X if q == target else I2) for q in range(n)]
        m0, m1 = ops0[0], ops1[0]
        for a, b in zip(ops0[1:], ops1[1:]):
            m0, m1 = torch.kron(m0, a), torch.kron(m1, b)
        return m0 + m1

    state = torch.zeros(2 ** n, dtype=cdt, device=device)
    state[0] = 1
    state = apply_1q(state, H, 0)
    state = cnot(0, 1) @ state
    state = cnot(1, 2) @ state  # GHZ
    ghz_probs = (state.abs() ** 2).tolist()
    state = apply_1q(state, rz(0.7), 1)
    state = apply_1q(state, ry(0.4), 2)
    probs = state.abs().pow(2)
    z0 = torch.kron(torch.kron(Z, I2), I2)
    expect_z0 = torch.vdot(state, z0 @ state)
    rho = torch.outer(state, state.conj())
    rho_t = rho.reshape(2, 4, 2, 4)
    rho_a = torch.einsum("ijkj->ik", rho_t)  # trace out qubits 1 and 2
    evals = torch.linalg.eigvalsh(rho_a)
    entropy = -(evals.clamp_min(1e-12) * evals.clamp_min(1e-12).log()).sum()
    purity = torch.trace(rho_a @ rho_a).real
    bits = torch.arange(2 ** n, device=device)
    marg_q2 = torch.zeros(2, dtype=torch.float64, device=device).index_add_(0, bits % 2, probs)
    fidelity = torch.vdot(state, state).abs()
    herm = torch.allclose(rho_a, rho_a.mH)
    return {"ghz": ghz_probs, "probs": probs.tolist(), "z0": _c(expect_z0.item()), "rho_a": _cl(rho_a),
            "evals": evals.tolist(), "entropy": entropy.item(), "purity": purity.item(), "marg": marg_q2.tolist(),
            "fidelity": fidelity.item(), "herm": herm, "dtypes": [str(probs.dtype), str(evals.dtype),
                                                                   str(expect_z0.dtype), str(purity.dtype)]}


# ---- split-step Fourier solution of the 1-D Schroedinger equation -------------------------------------------------
def schrodinger_split_step(torch, device):
    n, L = 128, 40.0
    x = torch.linspace(-L / 2, L / 2, n + 1, dtype=torch.float64, device=device)[:-1]
    dx = x[1] - x[0]
    k = 2 * math.pi * torch.fft.fftfreq(n, d=dx.item(), dtype=torch.float64, device=device)
    V = 0.5 * x ** 2
    psi = torch.exp(-((x - 2.0) ** 2) / 2).to(torch.complex128) * torch.exp(1j * 0.5 * x)
    psi = psi / torch.sqrt((psi.abs() ** 2).sum() * dx)
    dt, steps = 0.01, 60
    half_v = torch.exp(-0.5j * V * dt)
    kinetic = torch.exp(-0.5j * k ** 2 * dt)
    norms, positions = [], []
    for step in range(steps):
        psi = half_v * psi
        psi = torch.fft.ifft(kinetic * torch.fft.fft(psi))
        psi = half_v * psi
        if step % 20 == 19:
            dens = psi.abs() ** 2
            norms.append((dens.sum() * dx).item())
            positions.append((x * dens).sum().item() * dx.item())
    psi_k = torch.fft.fft(psi)
    kin = (0.5 * (k ** 2) * psi_k.abs() ** 2).sum() / (psi_k.abs() ** 2).sum()
    pot = ((V * psi.abs() ** 2).sum() * dx)
    shifted = torch.fft.fftshift(k)
    return {"norms": norms, "positions": positions, "energy": (kin + pot).item(),
            "k_sorted": bool((shifted[1:] > shifted[:-1]).all()), "kmax": shifted[-1].item(),
            "dtype": str(psi.dtype), "phase0": torch.angle(psi[n // 2]).item()}


# ---- unitary evolution by matrix_exp of a Heisenberg chain Hamiltonian --------------------------------------------
def unitary_evolution_matrix_exp(torch, device):
    cdt = torch.complex128
    sx = torch.tensor([[0, 1], [1, 0]], dtype=cdt, device=device)
    sy = torch.tensor([[0, -1j], [1j, 0]], dtype=cdt, device=device)
    sz = torch.tensor([[1, 0], [0, -1]], dtype=cdt, device=device)
    eye = torch.eye(2, dtype=cdt, device=device)
    n = 3

    def site(op, i):
        out = op if i == 0 else eye
        for j in range(1, n):
            out = torch.kron(out, op if j == i else eye)
        return out

    H = torch.zeros(2 ** n, 2 ** n, dtype=cdt, device=device)
    for i in range(n - 1):
        for s in (sx, sy, sz):
            H = H + site(s, i) @ site(s, i + 1)
    H = H + 0.3 * site(sz, 0)
    evals, evecs = torch.linalg.eigh(H)
    U = torch.linalg.matrix_exp(-1j * 0.5 * H)
    unitary_err = (U @ U.mH - torch.eye(2 ** n, dtype=cdt, device=device)).abs().max().item()
    U_eig = evecs @ torch.diag_embed(torch.exp(-0.5j * evals).to(cdt)) @ evecs.mH
    psi0 = torch.zeros(2 ** n, dtype=cdt, device=device)
    psi0[0b100] = 1
    mags = []
    psi = psi0
    for _ in range(4):
        psi = U @ psi
        mags.append([torch.vdot(psi, site(sz, i) @ psi).real.item() for i in range(n)])
    gen = torch.linalg.eigvals(H + 0.1j * site(sx, 1))  # non-Hermitian: complex eigenvalues
    gen_sorted = sorted(_c(v) for v in gen.tolist())
    det = torch.linalg.det(U)
    return {"evals": evals.tolist(), "unitary_err_small": unitary_err < 1e-10,
            "same_U": torch.allclose(U, U_eig, atol=1e-10), "mags": mags,
            "gen": [[round(a, 6), round(b, 6)] for a, b in gen_sorted], "det_abs": det.abs().item(),
            "trace": _c(torch.trace(H).item()), "dtypes": [str(evals.dtype), str(evecs.dtype), str(gen.dtype)],
            "is_herm": torch.allclose(H, H.mH), "adjoint": torch.equal(H.adjoint(), H.conj().transpose(0, 1))}


# ---- complex parameters fitted with autograd (a complex FIR filter) ---------------------------------------------
def complex_parameter_fit(torch, device):
    rng = np.random.default_rng(1401)
    sig = (rng.standard_normal(64) + 1j * rng.standard_normal(64)).astype(np.complex64)
    true_h = np.array([0.5 - 0.2j, 0.3 + 0.4j, -0.1 + 0.05j], dtype=np.complex64)
    target = np.convolve(sig, true_h)[:64].astype(np.complex64)
    x = torch.tensor(sig, device=device)
    y = torch.tensor(target, device=device)
    h = torch.zeros(3, dtype=torch.complex64, device=device, requires_grad=True)
    opt = torch.optim.Adam([h], lr=0.05)
    losses = []

    def filt(h):
        cols = torch.stack([torch.roll(x, s) * (torch.arange(64, device=device) >= s) for s in range(3)], dim=1)
        return cols @ h

    for step in range(40):
        opt.zero_grad()
        loss = (filt(h) - y).abs().pow(2).mean()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            losses.append(loss.item())
    g = torch.zeros(2, dtype=torch.complex64, device=device, requires_grad=True)
    z = torch.tensor([1 + 2j, -0.5 + 0.25j], device=device)
    ((g - z).abs() ** 2).sum().backward()  # the conjugate Wirtinger gradient: 2 (g - z)
    w = torch.tensor([1.0 + 1.0j, 2.0 - 1.0j], device=device, requires_grad=True)
    f = (w * w.conj()).real.sum() + torch.angle(w).sum()
    f.backward()
    polar = torch.polar(torch.tensor([2.0, 1.0], device=device), torch.tensor([0.5, -1.0], device=device))
    vr = torch.view_as_real(polar)
    back = torch.view_as_complex(vr.contiguous())
    return {"losses": losses, "h": _cl(h), "grad_g": _cl(g.grad), "grad_w": _cl(w.grad), "polar": vr.tolist(),
            "back": _cl(back), "dtypes": [str(h.grad.dtype), str(vr.dtype), str(torch.angle(w).dtype)],
            "sgn": _cl(torch.sgn(z)), "abs_dtype": str(z.abs().dtype)}


# ---- a pseudo-spectral Burgers / KdV solver and a spectral Poisson solver ----------------------------------------
def spectral_pde_solvers(torch, device):
    n = 64
    x = torch.arange(n, dtype=torch.float64, device=device) * (2 * math.pi / n)
    k = torch.fft.rfftfreq(n, d=1.0 / n, dtype=torch.float64, device=device)
    dealias = (k < (2.0 / 3.0) * k.max()).to(torch.float64)
    nu = 0.05

    def rhs(u_hat):
        u = torch.fft.irfft(u_hat, n=n)
        ux = torch.fft.irfft(1j * k * u_hat, n=n)
        nonlinear = torch.fft.rfft(u * ux) * dealias
        return -nonlinear - nu * k ** 2 * u_hat

    u_hat = torch.fft.rfft(torch.sin(x))
    dt = 0.01
    energies = []
    for step in range(100):
        k1 = rhs(u_hat)
        k2 = rhs(u_hat + 0.5 * dt * k1)
        k3 = rhs(u_hat + 0.5 * dt * k2)
        k4 = rhs(u_hat + dt * k3)
        u_hat = u_hat + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        if step % 25 == 24:
            energies.append(0.5 * (torch.fft.irfft(u_hat, n=n) ** 2).mean().item())
    u = torch.fft.irfft(u_hat, n=n)
    # spectral derivative accuracy
    f = torch.exp(torch.sin(x))
    df = torch.fft.irfft(1j * k * torch.fft.rfft(f), n=n)
    deriv_err = (df - torch.cos(x) * f).abs().max().item()
    # 2-D Poisson: lap(phi) = rho with periodic boundaries
    m = 32
    xs = torch.arange(m, dtype=torch.float64, device=device) * (2 * math.pi / m)
    X, Y = torch.meshgrid(xs, xs, indexing="ij")
    rho = torch.sin(2 * X) * torch.cos(3 * Y)
    kx = torch.fft.fftfreq(m, d=1.0 / m, dtype=torch.float64, device=device)
    KX, KY = torch.meshgrid(kx, kx, indexing="ij")
    k2 = KX ** 2 + KY ** 2
    k2[0, 0] = 1.0
    phi_hat = -torch.fft.fft2(rho) / k2
    phi_hat[0, 0] = 0
    phi = torch.fft.ifft2(phi_hat).real
    exact = -rho / 13.0
    return {"energies": energies, "u_max": u.max().item(), "u_argmax": int(u.argmax()),
            "deriv_err_small": deriv_err < 1e-10, "poisson_err_small": (phi - exact).abs().max().item() < 1e-10,
            "dealias_kept": int(dealias.sum()), "k_dtype": str(k.dtype), "u_hat_dtype": str(u_hat.dtype),
            "shapes": [list(u_hat.shape), list(phi_hat.shape)]}


# ---- FFT-based convolution and correlation, norms, hfft / ihfft, rfftn ----------------------------------------------
def fft_convolution_correlation(torch, device):
    rng = np.random.default_rng(1402)
    a = torch.tensor(rng.standard_normal(50), device=device)
    b = torch.tensor(rng.standard_normal(9), device=device)
    n = a.numel() + b.numel() - 1
    fast = torch.fft.irfft(torch.fft.rfft(a, n=n) * torch.fft.rfft(b, n=n), n=n)
    direct = torch.nn.functional.conv1d(a.view(1, 1, -1), b.flip(0).view(1, 1, -1), padding=b.numel() - 1).view(-1)
    corr = torch.fft.irfft(torch.fft.rfft(a, n=n) * torch.fft.rfft(b, n=n).conj(), n=n)
    lag = int(corr.argmax())
    norms = {}
    for norm in ("backward", "ortho", "forward"):
        F = torch.fft.fft(a.to(torch.complex128), norm=norm)
        norms[norm] = [F.abs().sum().item(), torch.fft.ifft(F, norm=norm).real.sub(a).abs().max().item() < 1e-12]
    herm = torch.fft.ihfft(a)
    back = torch.fft.hfft(herm, n=50)
    img = torch.tensor(rng.standard_normal((2, 8, 6)), dtype=torch.float32, device=device)
    spec = torch.fft.rfftn(img, dim=(-2, -1))
    img_back = torch.fft.irfftn(spec, s=img.shape[-2:], dim=(-2, -1))
    blurred = torch.fft.irfft2(torch.fft.rfft2(img) * torch.exp(-0.1 * torch.arange(4, device=device)), s=(8, 6))
    centered = torch.fft.ifftshift(torch.fft.fftshift(spec, dim=-2), dim=-2)
    return {"conv_same": torch.allclose(fast, direct, atol=1e-10), "conv": fast[:5].tolist(), "lag": lag,
            "norms": norms, "hfft_roundtrip": torch.allclose(back, a, atol=1e-10), "herm_len": herm.numel(),
            "rfftn": [list(spec.shape), str(spec.dtype), torch.allclose(img_back, img, atol=1e-5)],
            "blurred": blurred[0, 0].tolist(), "shift_roundtrip": torch.equal(centered, spec),
            "dtypes": [str(herm.dtype), str(back.dtype), str(blurred.dtype)]}


# ---- a complex-valued CNN (MRI / radar style): complex Conv1d/Conv2d layers, CReLU and modReLU, trained by Adam ---
def complex_valued_cnn(torch, device):
    nn = torch.nn
    rng = np.random.default_rng(1403)

    class ModReLU(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.bias = nn.Parameter(torch.full((channels, 1), -0.1))

        def forward(self, z):
            mag = z.abs()
            return torch.relu(mag + self.bias) * z / (mag + 1e-6)

    class ComplexNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv1d(2, 4, 5, padding=2, dtype=torch.complex64)
            self.act = ModReLU(4)
            self.conv2 = nn.Conv1d(4, 2, 3, padding=1, dilation=1, dtype=torch.complex64)
            self.up = nn.ConvTranspose1d(2, 2, 4, stride=2, padding=1, dtype=torch.complex64)

        def forward(self, z):
            h = self.act(self.conv1(z))
            h = torch.complex(torch.relu(h.real), torch.relu(h.imag))  # CReLU
            return self.up(self.conv2(h))

    net = ComplexNet().to(device)
    with torch.no_grad():
        for _, p in net.named_parameters():
            values = rng.uniform(-0.3, 0.3, tuple(p.shape)) + 1j * rng.uniform(-0.3, 0.3, tuple(p.shape))
            p.copy_(torch.tensor(values.astype(np.complex64) if p.is_complex() else values.real.astype(np.float32)))
    sig = rng.standard_normal((3, 2, 16)) + 1j * rng.standard_normal((3, 2, 16))
    x = torch.tensor(sig.astype(np.complex64), device=device)
    target = torch.tensor(np.repeat(sig, 2, axis=-1).astype(np.complex64) * 0.5, device=device)
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    losses = []
    for step in range(15):
        opt.zero_grad()
        out = net(x)
        loss = (out - target).abs().pow(2).mean()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            losses.append(loss.item())
    img = torch.tensor((rng.standard_normal((1, 1, 6, 6)) + 1j * rng.standard_normal((1, 1, 6, 6))).astype(
        np.complex64), device=device)
    kernel = torch.tensor(np.array([[[[1, 1j], [-1j, 1]]]], dtype=np.complex64), device=device)
    conv2 = torch.nn.functional.conv2d(img, kernel, stride=2)
    return {"losses": losses, "out_shape": list(out.shape), "out_dtype": str(out.dtype),
            "grad_dtype": str(net.conv1.weight.grad.dtype), "conv2d": _cl(conv2),
            "bias_grad": _cl(net.conv2.bias.grad)}


# ---- a variational quantum eigensolver: gate angles trained by Adam through a simulated circuit ------------------
def variational_quantum_eigensolver(torch, device):
    n = 3
    cdt = torch.complex128
    sz = torch.tensor([[1, 0], [0, -1]], dtype=cdt, device=device)
    sx = torch.tensor([[0, 1], [1, 0]], dtype=cdt, device=device)
    eye = torch.eye(2, dtype=cdt, device=device)

    def op_on(op, q):
        out = op if q == 0 else eye
        for j in range(1, n):
            out = torch.kron(out, op if j == q else eye)
        return out

    H = sum(op_on(sz, q) @ op_on(sz, q + 1) for q in range(n - 1)) + 0.7 * sum(op_on(sx, q) for q in range(n))

    def ry(theta):
        c, s = torch.cos(theta / 2), torch.sin(theta / 2)
        return torch.complex(torch.stack([torch.stack([c, -s]), torch.stack([s, c])]), torch.zeros(2, 2,
                             dtype=torch.float64, device=device))

    def apply_1q(state, gate, q):
        psi = state.reshape([2] * n)
        psi = torch.movedim(torch.tensordot(gate, psi, dims=([1], [q])), 0, q)
        return psi.reshape(-1)  # movedim leaves it strided: a copying reshape

    cz = torch.diag(torch.tensor([1, 1, 1, -1], dtype=cdt, device=device))
    cz_01, cz_12 = torch.kron(cz, eye), torch.kron(eye, cz)

    def energy(angles):
        state = torch.zeros(2 ** n, dtype=cdt, device=device)
        state[0] = 1
        for layer in range(2):
            for q in range(n):
                state = apply_1q(state, ry(angles[layer, q]), q)
            state = cz_12 @ (cz_01 @ state)
        return torch.vdot(state, H @ state).real

    angles = torch.tensor(np.random.default_rng(1404).uniform(-0.5, 0.5, (2, n)), device=device, requires_grad=True)
    opt = torch.optim.Adam([angles], lr=0.1)
    history = []
    for step in range(30):
        opt.zero_grad()
        e = energy(angles)
        e.backward()
        opt.step()
        if step % 10 == 0:
            history.append(e.item())
    exact = torch.linalg.eigvalsh(H)[0]
    return {"history": history, "final": energy(angles).item(), "exact": exact.item(),
            "above_ground": energy(angles).item() >= exact.item() - 1e-9, "grad": angles.grad.flatten().tolist()}


PROGRAMS = [quantum_circuit_statevector, schrodinger_split_step, unitary_evolution_matrix_exp, complex_parameter_fit,
            spectral_pde_solvers, fft_convolution_correlation, complex_valued_cnn, variational_quantum_eigensolver]
NEEDS_CPP = {}
