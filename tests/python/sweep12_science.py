"""Sweep 12 programs, scientific computing with tandem standing in for NumPy/SciPy: a batched torch.linalg tour
(solve, lstsq, eigh, eig, svd, qr, cholesky, solve_triangular, matrix_exp, pinv, norms, cond, det, slogdet), spectral
methods with torch.fft (rfft/irfft, fft2 convolution, fftshift, fftfreq, spectral derivatives, stft/istft), special
functions (torch.special) checked against identities, Newton solvers driven by torch.autograd.functional
(jacobian, hessian, jvp, vjp, hvp), MCMC with torch.distributions (random-walk Metropolis and HMC with NumPy
noise), statistics (quantile, histogram, bincount, unique, cov, corrcoef), tensor networks with einsum over three
and more operands and cdist, Gauss-Legendre quadrature by Golub-Welsch with trapezoid/simpson-style rules, and
complex signal processing (an analytic signal by the FFT, complex linear algebra).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep12.py). Data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


def _spd(rng, batch, n):
    a = rng.standard_normal((batch, n, n))
    return a @ a.transpose(0, 2, 1) + n * np.eye(n)


# ---- a batched linear algebra tour -----------------------------------------------------------------------------
def linalg_batched_tour(torch, device):
    LA = torch.linalg
    rng = np.random.default_rng(1401)
    A = torch.tensor(_spd(rng, 3, 4), device=device)  # float64
    B = torch.tensor(rng.standard_normal((3, 4, 2)), device=device)
    M = torch.tensor(rng.standard_normal((3, 5, 3)), device=device)
    y = torch.tensor(rng.standard_normal((3, 5, 1)), device=device)
    out = {}
    X = LA.solve(A, B)
    out["solve_res"] = round((A @ X - B).abs().max().item(), 10)
    out["solve_left"] = round((LA.solve(A.mT, B.mT, left=False) - X.mT).abs().max().item(), 10)
    sol = LA.lstsq(M, y)
    out["lstsq"] = [list(sol.solution.shape), _rounded(sol.solution[0].flatten(), 6)]
    out["lstsq_pinv"] = round((LA.pinv(M) @ y - sol.solution).abs().max().item(), 8)
    w, V = LA.eigh(A)
    out["eigh"] = _rounded(w[0], 6)
    out["eigh_recon"] = round((V @ torch.diag_embed(w) @ V.mT - A).abs().max().item(), 8)
    out["eigvalsh_upper"] = round((LA.eigvalsh(A, UPLO="U") - w).abs().max().item(), 8)
    ev, evec = LA.eig(A[0] + torch.tensor([[0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
                                          dtype=A.dtype, device=device) * 3)
    out["eig_dtype"] = str(ev.dtype)
    out["eig_sorted_real"] = _rounded(torch.sort(ev.real).values, 5)
    out["eig_abs_imag"] = _rounded(torch.sort(ev.imag.abs()).values, 5)
    U, S, Vh = LA.svd(M, full_matrices=False)
    out["svd"] = [list(U.shape), list(S.shape), list(Vh.shape), _rounded(S[1], 6)]
    out["svd_recon"] = round((U @ torch.diag_embed(S) @ Vh - M).abs().max().item(), 8)
    out["svdvals"] = round((LA.svdvals(M) - S).abs().max().item(), 8)
    Q, R = LA.qr(M, mode="reduced")
    out["qr"] = [list(Q.shape), list(R.shape), round((Q.mT @ Q - torch.eye(3, dtype=Q.dtype, device=device)).abs().max().item(), 8)]
    out["qr_complete"] = list(LA.qr(M, mode="complete").Q.shape)
    L = LA.cholesky(A)
    out["chol"] = _rounded(torch.diagonal(L, dim1=-2, dim2=-1)[1], 6)
    Z = LA.solve_triangular(L, B, upper=False)
    Z = LA.solve_triangular(L.mT, Z, upper=True)
    out["chol_solve"] = round((Z - X).abs().max().item(), 8)
    out["cholesky_solve"] = round((torch.cholesky_solve(B, L) - X).abs().max().item(), 8)
    L2, info = LA.cholesky_ex(-A)
    out["cholesky_ex_info"] = info.tolist()
    skew = torch.tensor([[0.0, -1.0], [1.0, 0.0]], device=device) * (math.pi / 2)
    out["expm"] = _rounded(LA.matrix_exp(skew).flatten(), 5)
    out["norms"] = _rounded([LA.matrix_norm(M[0]).item(), LA.matrix_norm(M[0], ord="nuc").item(),
                             LA.matrix_norm(M[0], ord=2).item(), LA.matrix_norm(M[0], ord=-2).item(),
                             LA.matrix_norm(M[0], ord=float("inf")).item(), LA.norm(M[0], ord=1).item(),
                             LA.vector_norm(M, ord=3, dim=(-2, -1))[2].item(),
                             LA.vector_norm(M[0], ord=0).item()], 6)
    out["cond"] = _rounded(LA.cond(A), 5)
    out["cond_fro"] = _rounded(LA.cond(A, p="fro"), 5)
    sign, logabs = LA.slogdet(A)
    out["slogdet"] = [sign.tolist(), _rounded(logabs, 6)]
    out["det"] = round((LA.det(A).log() - logabs).abs().max().item(), 8)
    out["inv_ex"] = LA.inv_ex(A).info.tolist()
    out["matrix_rank"] = LA.matrix_rank(torch.cat([M, M[..., :1]], -1)).tolist()
    out["multi_dot"] = list(LA.multi_dot([M[0], M[0].mT, M[1]]).shape)
    out["vander"] = LA.vander(torch.tensor([1.0, 2.0, 3.0], device=device), N=3).tolist()
    out["cross"] = LA.cross(torch.eye(3, device=device), torch.ones(1, 3, device=device)).tolist()
    return out


# ---- spectral methods with torch.fft --------------------------------------------------------------------------
def fft_spectral_methods(torch, device):
    fft = torch.fft
    n, L = 64, 2 * math.pi
    x = torch.arange(n, dtype=torch.float64, device=device) * (L / n)
    f = torch.sin(3 * x) + 0.5 * torch.cos(5 * x)
    k = fft.rfftfreq(n, d=L / n, device=device) * 2 * math.pi
    df = fft.irfft(1j * k * fft.rfft(f), n=n)
    exact = 3 * torch.cos(3 * x) - 2.5 * torch.sin(5 * x)
    out = {"deriv_err": round((df - exact).abs().max().item(), 8), "k_dtype": str(k.dtype)}
    spectrum = fft.rfft(f, norm="ortho")
    out["parseval"] = round((f.pow(2).sum() - (2 * spectrum.abs().pow(2).sum() - spectrum[0].abs() ** 2
                                                - spectrum[-1].abs() ** 2)).item(), 8)
    out["peaks"] = torch.topk(spectrum.abs(), 2).indices.tolist()
    freqs = fft.fftfreq(8, d=0.5)
    out["fftfreq"] = freqs.tolist()
    out["fftshift"] = fft.fftshift(freqs).tolist()
    out["ifftshift"] = fft.ifftshift(fft.fftshift(freqs)).tolist()
    # circular 2-D convolution by the convolution theorem matches conv2d with circular padding
    rng = np.random.default_rng(1411)
    img = torch.tensor(rng.standard_normal((1, 1, 8, 8)), dtype=torch.float32, device=device)
    ker = torch.tensor(rng.standard_normal((1, 1, 3, 3)), dtype=torch.float32, device=device)
    padded = torch.zeros(8, 8, device=device)
    padded[:3, :3] = ker[0, 0].flip(0, 1)
    padded = torch.roll(padded, shifts=(-1, -1), dims=(0, 1))
    conv_fft = fft.ifft2(fft.fft2(img[0, 0]) * fft.fft2(padded)).real
    conv_direct = torch.nn.functional.conv2d(torch.nn.functional.pad(img, (1, 1, 1, 1), mode="circular"),
                                             ker.flip(2, 3).flip(2, 3))
    out["conv_match"] = bool(torch.allclose(conv_fft.flip(0, 1).flip(0, 1), conv_direct[0, 0], atol=1e-4)) or \
        round((conv_fft - conv_direct[0, 0]).abs().max().item(), 4)
    out["rfft2_shape"] = list(fft.rfft2(img).shape)
    out["irfftn"] = round((fft.irfftn(fft.rfftn(img, dim=(-2, -1)), s=(8, 8)) - img).abs().max().item(), 5)
    out["hfft"] = list(fft.hfft(spectrum, n=n).shape)
    out["fftn_norm"] = round(fft.fftn(img, norm="forward").abs().sum().item(), 4)
    sig = torch.tensor(np.sin(np.linspace(0, 40, 400)) + 0.1 * rng.standard_normal(400), dtype=torch.float32,
                       device=device)
    win = torch.hann_window(64, periodic=True, device=device)
    spec = torch.stft(sig, 64, hop_length=16, window=win, return_complex=True, center=True, pad_mode="reflect",
                      normalized=False, onesided=True)
    back = torch.istft(spec, 64, hop_length=16, window=win, length=400)
    out["stft"] = [list(spec.shape), str(spec.dtype), round((back - sig).abs().max().item(), 4)]
    out["stft_peak_bin"] = int(spec.abs().mean(-1).argmax())
    return out


# ---- torch.special checked against identities and values ------------------------------------------------------
def special_function_identities(torch, device):
    sp = torch.special
    x = torch.linspace(0.1, 4.0, 9, dtype=torch.float64, device=device)
    out = {}
    out["gammaln"] = _rounded(sp.gammaln(x), 6)
    out["digamma_rec"] = round((sp.digamma(x + 1) - sp.digamma(x) - 1 / x).abs().max().item(), 8)
    out["polygamma1"] = _rounded(sp.polygamma(1, x[:3]), 5)
    out["erf_erfinv"] = round((sp.erfinv(sp.erf(x / 4)) - x / 4).abs().max().item(), 8)
    out["erfc_erfcx"] = _rounded(sp.erfcx(x[:4]), 6)
    out["ndtr"] = _rounded(sp.ndtr(x[:4] - 2), 6)
    out["ndtri"] = _rounded(sp.ndtri(torch.tensor([0.025, 0.5, 0.975], dtype=torch.float64, device=device)), 5)
    out["log_ndtr"] = _rounded(sp.log_ndtr(torch.tensor([-10.0, 0.0, 3.0], dtype=torch.float64, device=device)), 5)
    out["bessel"] = _rounded([sp.i0(x[2]).item(), sp.i0e(x[2]).item(), sp.i1(x[2]).item(), sp.i1e(x[2]).item(),
                              sp.bessel_j0(x[2]).item(), sp.bessel_j1(x[2]).item(),
                              sp.modified_bessel_k0(x[2]).item()], 6)
    out["xlogy"] = sp.xlogy(torch.tensor([0.0, 2.0], device=device), torch.tensor([0.0, 3.0], device=device)).tolist()
    out["xlog1py"] = _rounded(sp.xlog1py(torch.tensor([0.0, 2.0], device=device),
                                         torch.tensor([-1.0, 3.0], device=device)), 5)
    out["entr"] = _rounded(sp.entr(torch.tensor([0.0, 0.5, 1.0, -1.0], device=device)), 5)
    p = torch.tensor([0.1, 0.5, 0.9], device=device)
    out["logit_expit"] = _rounded(sp.expit(sp.logit(p)) - p, 6)
    out["logit_eps"] = _rounded(sp.logit(torch.tensor([0.0, 1.0], device=device), eps=1e-6), 3)
    out["sinc"] = _rounded(sp.sinc(torch.tensor([0.0, 0.5, 1.0], device=device)), 6)
    out["zeta"] = _rounded(sp.zeta(torch.tensor([2.0, 4.0], dtype=torch.float64, device=device), 1.0), 8)
    out["multigammaln"] = round(sp.multigammaln(torch.tensor(3.5, dtype=torch.float64, device=device), 3).item(), 6)
    out["gammainc"] = _rounded(sp.gammainc(x[:3], x[3:6]) + sp.gammaincc(x[:3], x[3:6]), 8)
    out["softmax"] = _rounded(sp.log_softmax(x[:3], dim=0).exp() - sp.softmax(x[:3], dim=0), 8)
    out["logsumexp"] = round(sp.logsumexp(x, dim=0).item(), 6)
    out["round"] = sp.round(torch.tensor([1.234, 5.678], device=device), decimals=1).tolist()
    out["exp2_expm1"] = _rounded([sp.exp2(x[0]).item(), sp.expm1(x[0]).item(), sp.log1p(x[0]).item()], 6)
    out["legendre"] = _rounded(sp.legendre_polynomial_p(torch.tensor([0.3], dtype=torch.float64, device=device),
                                                        3), 6)
    out["hermite"] = _rounded(sp.hermite_polynomial_h(torch.tensor([0.5], dtype=torch.float64, device=device),
                                                      torch.tensor([4.0], dtype=torch.float64, device=device)), 6)
    out["chebyshev"] = _rounded(sp.chebyshev_polynomial_t(torch.tensor([0.2, 0.7], dtype=torch.float64,
                                                                       device=device), 5), 6)
    out["airy"] = _rounded(sp.airy_ai(torch.tensor([0.0, 1.0], dtype=torch.float64, device=device)), 6)
    out["spherical_j0"] = _rounded(sp.spherical_bessel_j0(torch.tensor([0.0, 2.0], device=device)), 6)
    out["dtypes"] = [str(sp.erf(torch.tensor([1], device=device)).dtype),
                     str(sp.gammaln(torch.tensor([1.0], dtype=torch.float16, device="cpu")).dtype)]
    return out


# ---- Newton solvers driven by torch.autograd.functional -----------------------------------------------------
def newton_autograd_functional(torch, device):
    AF = torch.autograd.functional

    def system(v):  # intersection of a circle and a cubic
        x, y = v[0], v[1]
        return torch.stack([x ** 2 + y ** 2 - 4.0, y - x ** 3 + x])

    v = torch.tensor([1.0, 1.0], dtype=torch.float64, device=device)
    norms = []
    for _ in range(8):
        J = AF.jacobian(system, v)
        v = v - torch.linalg.solve(J, system(v))
        norms.append(system(v).norm().item())
    out = {"root": _rounded(v, 8), "converged": norms[-1] < 1e-10, "first_norms": _rounded(norms[:3], 6)}

    def rosenbrock(p):
        return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2

    p = torch.tensor([-1.2, 1.0], dtype=torch.float64, device=device)
    path = []
    for _ in range(12):
        g = AF.jacobian(rosenbrock, p)
        H = AF.hessian(rosenbrock, p)
        p = p - torch.linalg.solve(H, g)
        path.append(round(rosenbrock(p).item(), 8))
    out["rosen"] = [_rounded(p, 6), path[:4]]
    x0 = torch.tensor([0.5, -0.3], dtype=torch.float64, device=device)
    u = torch.tensor([1.0, 2.0], dtype=torch.float64, device=device)
    fx, jvp = AF.jvp(system, x0, u)
    _, vjp = AF.vjp(system, x0, u)
    _, hvp = AF.hvp(rosenbrock, x0, u)
    _, vhp = AF.vhp(rosenbrock, x0, u)
    out["jvp"] = _rounded(jvp, 6)
    out["vjp"] = _rounded(vjp, 6)
    out["hvp"] = _rounded(hvp, 6)
    out["vhp_eq_hvp"] = bool(torch.allclose(hvp, vhp))
    J2 = AF.jacobian(lambda a, b: a * b.sum() + b[:2], (x0, torch.ones(3, dtype=torch.float64, device=device)))
    out["tuple_jac"] = [[list(j.shape) for j in J2], J2[1].tolist()]
    Jv = AF.jacobian(system, x0, vectorize=True, strategy="forward-mode")
    out["fwd_jac"] = _rounded(Jv.flatten(), 6)
    Hc = AF.hessian(rosenbrock, x0, create_graph=True)
    out["hess_requires_grad"] = Hc.requires_grad
    return out


# ---- MCMC: random-walk Metropolis and Hamiltonian Monte Carlo with distribution log-densities ---------------
def mcmc_metropolis_hmc(torch, device):
    D = torch.distributions
    rng = np.random.default_rng(1431)
    data = torch.tensor(rng.standard_normal(50) * 1.5 + 2.0, dtype=torch.float64, device=device)
    prior_mu = D.Normal(torch.tensor(0.0, dtype=torch.float64, device=device), 10.0)
    prior_sigma = D.HalfCauchy(torch.tensor(2.0, dtype=torch.float64, device=device))

    def log_post(theta):
        mu, log_sigma = theta[..., 0], theta[..., 1]
        sigma = log_sigma.exp()
        lik = D.Normal(mu.unsqueeze(-1), sigma.unsqueeze(-1)).log_prob(data).sum(-1)
        return lik + prior_mu.log_prob(mu) + prior_sigma.log_prob(sigma) + log_sigma  # Jacobian of exp

    theta = torch.zeros(2, dtype=torch.float64, device=device)
    lp = log_post(theta)
    steps = torch.tensor(rng.standard_normal((300, 2)) * 0.3, dtype=torch.float64, device=device)
    logu = torch.tensor(np.log(rng.random(300)), dtype=torch.float64, device=device)
    accepted, chain = 0, []
    for i in range(300):
        prop = theta + steps[i]
        lp_prop = log_post(prop)
        if logu[i] < lp_prop - lp:
            theta, lp = prop, lp_prop
            accepted += 1
        chain.append(theta)
    chain = torch.stack(chain[100:])
    out = {"accept": accepted, "post_mean": _rounded(chain.mean(0), 4),
           "post_q": _rounded(torch.quantile(chain[:, 0], torch.tensor([0.05, 0.5, 0.95], dtype=torch.float64,
                                                                       device=device)), 4)}

    def hmc_step(q, p0, eps, n_leap):
        q = q.clone().requires_grad_(True)
        grad = torch.autograd.grad(log_post(q), q)[0]
        p = p0 + 0.5 * eps * grad
        for j in range(n_leap):
            q = (q + eps * p).detach().requires_grad_(True)
            grad = torch.autograd.grad(log_post(q), q)[0]
            if j != n_leap - 1:
                p = p + eps * grad
        p = p + 0.5 * eps * grad
        return q.detach(), p

    q = torch.tensor([1.5, 0.3], dtype=torch.float64, device=device)
    momenta = torch.tensor(rng.standard_normal((20, 2)), dtype=torch.float64, device=device)
    logu2 = np.log(rng.random(20))
    hmc_acc = 0
    for i in range(20):
        q_new, p_new = hmc_step(q, momenta[i], 0.05, 10)
        h_old = -log_post(q) + 0.5 * momenta[i].pow(2).sum()
        h_new = -log_post(q_new) + 0.5 * p_new.pow(2).sum()
        if logu2[i] < (h_old - h_new).item():
            q = q_new
            hmc_acc += 1
    out["hmc"] = [hmc_acc, _rounded(q, 4)]
    mvn = D.MultivariateNormal(torch.zeros(2, dtype=torch.float64, device=device),
                               covariance_matrix=torch.tensor([[1.0, 0.6], [0.6, 2.0]], dtype=torch.float64,
                                                              device=device))
    out["mvn"] = [round(mvn.log_prob(q).item(), 6), round(mvn.entropy().item(), 6), _rounded(mvn.scale_tril.flatten(), 6),
                  _rounded(mvn.precision_matrix.flatten(), 6)]
    return out


# ---- descriptive statistics: quantile, histogram, bincount, unique, cov, corrcoef ----------------------------
def descriptive_statistics(torch, device):
    rng = np.random.default_rng(1441)
    x = torch.tensor(rng.gamma(2.0, 1.5, 200), dtype=torch.float32, device=device)
    counts = torch.tensor(rng.poisson(3.0, 200), device=device)
    out = {}
    qs = torch.tensor([0.1, 0.25, 0.5, 0.75, 0.9], device=device)
    out["quantiles"] = {m: _rounded(torch.quantile(x, qs, interpolation=m), 4)
                        for m in ("linear", "lower", "higher", "midpoint", "nearest")}
    out["nanquantile"] = round(torch.nanquantile(torch.cat([x, torch.tensor([float("nan")], device=device)]), 0.5).item(), 4)
    hist, edges = torch.histogram(x.cpu(), bins=8, range=(0.0, 12.0), density=True)
    out["histogram"] = [_rounded(hist, 5), _rounded(edges, 3)]
    h2, e2 = torch.histogram(x.cpu(), bins=torch.tensor([0.0, 1.0, 2.5, 5.0, 20.0]), weight=torch.ones(200) * 0.5)
    out["histogram_edges"] = [_rounded(h2), _rounded(e2)]
    out["histc"] = torch.histc(x, bins=5, min=0, max=10).tolist()
    out["bincount"] = torch.bincount(counts).tolist()
    out["bincount_weights"] = _rounded(torch.bincount(counts, weights=x, minlength=12), 3)
    vals, inv, cnt = torch.unique(counts, sorted=True, return_inverse=True, return_counts=True)
    out["unique"] = [vals.tolist(), cnt.tolist(), bool((vals[inv] == counts).all())]
    u_dim = torch.unique(torch.stack([counts[:10] % 2, counts[:10] % 3], 1), dim=0)
    out["unique_dim"] = u_dim.tolist()
    X = torch.tensor(rng.standard_normal((3, 50)), dtype=torch.float64, device=device)
    X[1] += 0.8 * X[0]
    out["cov"] = _rounded(torch.cov(X).flatten(), 6)
    out["cov_weights"] = _rounded(torch.cov(X, correction=0, fweights=torch.arange(1, 51, device=device),
                                            aweights=torch.linspace(0.5, 1.5, 50, dtype=torch.float64,
                                                                    device=device)).flatten(), 6)
    out["corrcoef"] = _rounded(torch.corrcoef(X)[0], 6)
    std, mean = torch.std_mean(x, unbiased=False)
    var = torch.var(x, correction=2)
    out["moments"] = _rounded([mean.item(), std.item(), var.item(), x.median().item(), x.nanmean().item()], 4)
    out["mode"] = torch.mode(counts).values.item()
    out["cummax"] = torch.cummax(counts[:8], 0).indices.tolist()
    out["logcumsumexp"] = _rounded(torch.logcumsumexp(x[:4], 0), 4)
    out["aminmax"] = _rounded(torch.aminmax(x), 4)
    out["count_nonzero"] = torch.count_nonzero(counts.view(20, 10), dim=1)[:5].tolist()
    return out


# ---- tensor networks: einsum over three and more operands, cdist, tensordot ---------------------------------
def einsum_tensor_networks(torch, device):
    rng = np.random.default_rng(1451)
    f = lambda *s: torch.tensor(rng.standard_normal(s), dtype=torch.float64, device=device)
    # a matrix product state of 4 sites contracted to the full tensor
    A1, A2, A3, A4 = f(2, 3), f(3, 2, 3), f(3, 2, 3), f(3, 2)
    full = torch.einsum("ia,ajb,bkc,cl->ijkl", A1, A2, A3, A4)
    stepwise = torch.tensordot(torch.tensordot(torch.tensordot(A1, A2, dims=([1], [0])), A3, dims=1), A4, dims=1)
    out = {"mps_shape": list(full.shape), "mps_match": bool(torch.allclose(full, stepwise)),
           "norm": round(full.norm().item(), 6)}
    a, b, c = f(4, 5), f(5, 6), f(6, 3)
    out["chain"] = bool(torch.allclose(torch.einsum("ij,jk,kl->il", a, b, c), a @ b @ c))
    out["sublist"] = bool(torch.allclose(torch.einsum(a, [0, 1], b, [1, 2], c, [2, 3], [0, 3]), a @ b @ c))
    batch = f(2, 3, 4, 4)
    out["ellipsis_trace"] = _rounded(torch.einsum("...ii->...", batch).flatten(), 5)
    out["bilinear"] = _rounded(torch.einsum("bn,anm,bm->ba", f(2, 3), f(4, 3, 5), f(2, 5)).flatten(), 5)
    x, y = f(5, 3), f(4, 3)
    for p in (1.0, 2.0, float("inf")):
        d = torch.cdist(x, y, p=p)
        out[f"cdist_{p}"] = _rounded(d[0], 6)
    d_mm = torch.cdist(x.unsqueeze(0), y.unsqueeze(0), compute_mode="use_mm_for_euclid_dist")
    out["cdist_mm"] = bool(torch.allclose(d_mm[0], torch.cdist(x, y), atol=1e-8))
    out["pdist"] = _rounded(torch.nn.functional.pdist(x)[:4], 6)
    out["kron"] = torch.kron(torch.eye(2, device=device), torch.tensor([[1, 2], [3, 4]], device=device)).tolist()
    out["cartesian"] = torch.cartesian_prod(torch.tensor([1, 2], device=device),
                                            torch.tensor([3, 4, 5], device=device)).tolist()
    out["combinations"] = torch.combinations(torch.arange(4, device=device), r=2).tolist()
    out["combinations_repl"] = torch.combinations(torch.arange(3, device=device), r=2, with_replacement=True).tolist()
    idx = torch.tril_indices(4, 4, offset=-1, device=device)
    out["tril_indices"] = idx.tolist()
    sym = torch.zeros(4, 4, dtype=torch.float64, device=device)
    sym[idx[0], idx[1]] = torch.arange(1.0, 7.0, dtype=torch.float64, device=device)
    out["sym"] = (sym + sym.T).sum().item()
    out["outer_einsum_grad"] = None
    w = f(3).requires_grad_()
    torch.einsum("i,j,k->", w, w, w).backward()
    out["outer_einsum_grad"] = _rounded(w.grad, 5)
    out["block_diag"] = torch.block_diag(torch.ones(1, 2, device=device), 2 * torch.ones(2, 1, device=device)).tolist()
    return out


# ---- Gauss-Legendre quadrature by Golub-Welsch, compared with trapezoid rules -------------------------------
def quadrature_golub_welsch(torch, device):
    def gauss_legendre(n):
        k = torch.arange(1, n, dtype=torch.float64, device=device)
        beta = k / torch.sqrt(4 * k ** 2 - 1)
        J = torch.diag(beta, 1) + torch.diag(beta, -1)
        nodes, vecs = torch.linalg.eigh(J)
        weights = 2 * vecs[0] ** 2
        return nodes, weights

    nodes, weights = gauss_legendre(6)
    f = lambda t: torch.exp(t) * torch.cos(t)
    gl = (weights * f(nodes)).sum()
    exact = (math.exp(1) * (math.cos(1) + math.sin(1)) - math.exp(-1) * (math.cos(-1) + math.sin(-1))) / 2
    xs = torch.linspace(-1, 1, 101, dtype=torch.float64, device=device)
    ys = f(xs)
    trap = torch.trapezoid(ys, xs)
    trap_dx = torch.trapezoid(ys, dx=0.02)
    cum = torch.cumulative_trapezoid(ys, xs)
    h = 0.02
    simpson = h / 3 * (ys[0] + ys[-1] + 4 * ys[1:-1:2].sum() + 2 * ys[2:-1:2].sum())
    grads = torch.gradient(ys, spacing=(xs,))
    grads_edge = torch.gradient(ys, spacing=0.02, edge_order=2)[0]
    coeffs = torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64, device=device)  # Horner, highest first
    poly = torch.zeros_like(xs)
    for c in coeffs:
        poly = poly * xs + c
    V = torch.vander(xs, N=4)
    diffs = torch.diff(xs[:5], n=2, prepend=xs[:1], append=xs[4:5])
    return {"nodes": _rounded(nodes, 8), "weights_sum": round(weights.sum().item(), 10),
            "gl_err": round(abs(gl.item() - exact), 12) < 1e-9, "trap": round(trap.item(), 6),
            "trap_dx": round(trap_dx.item(), 6), "cum_last": round(cum[-1].item(), 6), "cum_len": cum.numel(),
            "simpson": round(simpson.item(), 8),
            "grad_err": round((grads[0] - torch.exp(xs) * (torch.cos(xs) - torch.sin(xs))).abs().max().item(), 4),
            "grad_edge": _rounded(grads_edge[:2], 5), "horner_vander": bool(torch.allclose(V @ coeffs, poly)),
            "diff": _rounded(diffs, 6), "diff_len": diffs.numel()}


# ---- complex signal processing: analytic signal by FFT, complex linear algebra ------------------------------
def complex_signal_processing(torch, device):
    n = 128
    t = torch.arange(n, dtype=torch.float64, device=device) / n
    envelope = 1 + 0.5 * torch.cos(2 * math.pi * 2 * t)
    sig = envelope * torch.cos(2 * math.pi * 20 * t)
    spec = torch.fft.fft(sig)
    h = torch.zeros(n, dtype=torch.float64, device=device)
    h[0] = h[n // 2] = 1
    h[1:n // 2] = 2
    analytic = torch.fft.ifft(spec * h)
    out = {"dtype": str(analytic.dtype), "env_err": round((analytic.abs() - envelope).abs().max().item(), 8)}
    phase = torch.angle(analytic)
    dphase = torch.diff(phase)
    unwrapped = torch.cat([phase[:1], phase[:1] + torch.cumsum(dphase - 2 * math.pi * torch.round(dphase / (2 * math.pi)), 0)])
    out["inst_freq"] = round((torch.diff(unwrapped) * n / (2 * math.pi)).mean().item(), 5)
    z = torch.complex(torch.tensor([1.0, 0.0, -2.0], device=device), torch.tensor([1.0, 3.0, 0.0], device=device))
    out["complex"] = [str(z.dtype), _rounded(z.abs()), _rounded(z.angle()),
                      torch.view_as_real(z.conj().resolve_conj()).tolist(), _rounded(torch.sgn(z).real), z.is_complex(), _rounded(torch.real(z * 1j))]
    out["polar_roundtrip"] = bool(torch.allclose(torch.polar(z.abs(), z.angle()), z, atol=1e-6))
    rng = np.random.default_rng(1471)
    Ar = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    A = torch.tensor(Ar, dtype=torch.complex128, device=device)
    H = A @ A.mH + 3 * torch.eye(3, dtype=torch.complex128, device=device)
    w = torch.linalg.eigvalsh(H)
    out["herm_eig"] = [str(w.dtype), _rounded(w, 6)]
    b = torch.tensor(rng.standard_normal(3) + 1j * rng.standard_normal(3), device=device)
    xsol = torch.linalg.solve(A, b)
    out["csolve"] = round((A @ xsol - b).abs().max().item(), 10)
    out["cinv_det"] = round((torch.linalg.det(torch.linalg.inv(A)) * torch.linalg.det(A) - 1).abs().item(), 10)
    out["eigvals_prod"] = round((torch.linalg.eigvals(A).prod() - torch.linalg.det(A)).abs().item(), 8)
    out["csvd"] = _rounded(torch.linalg.svdvals(A), 6)
    out["vdot"] = _rounded(torch.view_as_real(torch.vdot(b, b)), 6)
    out["cmatmul_grad"] = None
    zr = torch.tensor(Ar, dtype=torch.complex128, device=device, requires_grad=True)
    (zr @ zr).abs().sum().backward()
    out["cmatmul_grad"] = _rounded(torch.view_as_real(zr.grad)[0].flatten(), 5)
    return out


# ---- an adaptive Dormand-Prince (RK45) integrator on a batch of Lotka-Volterra systems ----------------------
def adaptive_rk45_batch(torch, device):
    c = torch.tensor([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1], dtype=torch.float64, device=device)
    a = [[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
         [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
         [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
         [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]
    b5 = torch.tensor(a[6] + [0], dtype=torch.float64, device=device)
    b4 = torch.tensor([5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40],
                      dtype=torch.float64, device=device)
    params = torch.tensor([[1.0, 0.5, 0.5, 2.0], [1.5, 1.0, 1.0, 3.0]], dtype=torch.float64, device=device)

    def f(t, y):
        prey, pred = y.unbind(-1)
        al, be, de, ga = params.unbind(-1)
        return torch.stack([al * prey - be * prey * pred, de * prey * pred - ga * pred], -1)

    y = torch.tensor([[2.0, 1.0], [1.0, 1.0]], dtype=torch.float64, device=device)
    t, t_end, h = 0.0, 5.0, 0.1
    accepted = rejected = 0
    traj = [y]
    while t < t_end - 1e-12:
        h = min(h, t_end - t)
        ks = []
        for i in range(7):
            yi = y + h * sum(a[i][j] * ks[j] for j in range(i)) if i else y
            ks.append(f(t + c[i].item() * h, yi))
        K = torch.stack(ks, 0)
        y5 = y + h * torch.einsum("s,sbd->bd", b5, K)
        y4 = y + h * torch.einsum("s,sbd->bd", b4, K)
        scale = 1e-6 + 1e-6 * torch.maximum(y.abs(), y5.abs())
        err = torch.sqrt(torch.mean(((y5 - y4) / scale) ** 2)).item()
        if err <= 1.0:
            t, y = t + h, y5
            accepted += 1
            traj.append(y)
        else:
            rejected += 1
        h = h * min(5.0, max(0.2, 0.9 * err ** -0.2)) if err > 0 else h * 5.0
    traj = torch.stack(traj)
    al, be, de, ga = params.unbind(-1)
    invariant = lambda s: de * s[..., 0] - ga * torch.log(s[..., 0]) + be * s[..., 1] - al * torch.log(s[..., 1])
    drift = (invariant(traj) - invariant(traj[0])).abs().max().item()
    return {"y_end": _rounded(y.flatten(), 5), "accepted": accepted, "rejected": rejected,
            "drift_small": drift < 1e-4, "peak": _rounded(traj[..., 0].amax(0), 4)}


# ---- direct and Krylov solvers: LU factor/solve, conjugate gradients, GMRES with Arnoldi and lstsq ----------
def lu_and_krylov_solvers(torch, device):
    LA = torch.linalg
    n = 12
    main = torch.full((n,), 2.5, dtype=torch.float64, device=device)
    off = torch.full((n - 1,), -1.0, dtype=torch.float64, device=device)
    A = torch.diag(main) + torch.diag(off, 1) + torch.diag(off, -1)  # SPD tridiagonal (1-D Laplacian + shift)
    rng = np.random.default_rng(1501)
    b = torch.tensor(rng.standard_normal(n), dtype=torch.float64, device=device)
    LU, piv = LA.lu_factor(A)
    x_lu = LA.lu_solve(LU, piv, b.unsqueeze(-1)).squeeze(-1)
    P, L, U = torch.lu_unpack(LU, piv)
    out = {"lu_recon": round((P @ L @ U - A).abs().max().item(), 12), "piv": piv[:4].tolist()}

    def cg(matvec, rhs, tol=1e-10, max_iter=50):
        x = torch.zeros_like(rhs)
        r = rhs - matvec(x)
        p = r.clone()
        rs = r @ r
        for it in range(max_iter):
            Ap = matvec(p)
            alpha = rs / (p @ Ap)
            x.add_(alpha * p)
            r.sub_(alpha * Ap)
            rs_new = r @ r
            if rs_new.sqrt() < tol:
                return x, it + 1
            p = r + (rs_new / rs) * p
            rs = rs_new
        return x, max_iter

    x_cg, iters = cg(lambda v: A @ v, b)
    out["cg"] = [iters, round((x_cg - x_lu).abs().max().item(), 8)]
    B = A + torch.diag(torch.linspace(0, 1, n - 1, dtype=torch.float64, device=device), 1)  # nonsymmetric
    m = 8
    Q = torch.zeros(n, m + 1, dtype=torch.float64, device=device)
    H = torch.zeros(m + 1, m, dtype=torch.float64, device=device)
    beta = LA.vector_norm(b)
    Q[:, 0] = b / beta
    for j in range(m):
        w = B @ Q[:, j]
        for i in range(j + 1):
            H[i, j] = Q[:, i] @ w
            w = w - H[i, j] * Q[:, i]
        H[j + 1, j] = LA.vector_norm(w)
        Q[:, j + 1] = w / H[j + 1, j]
    e1 = torch.zeros(m + 1, 1, dtype=torch.float64, device=device)
    e1[0] = beta
    y = LA.lstsq(H, e1).solution.squeeze(-1)
    x_gmres = Q[:, :m] @ y
    out["gmres_res"] = round(LA.vector_norm(B @ x_gmres - b).item(), 6)
    out["arnoldi_orth"] = round((Q.T @ Q - torch.eye(m + 1, dtype=torch.float64, device=device)).abs().max().item(), 10)
    out["solve_ex_info"] = LA.solve_ex(B, b).info.item()
    q, tau = torch.geqrf(B)
    Qh = LA.householder_product(q, tau)
    out["householder"] = round((Qh @ torch.triu(q) - B).abs().max().item(), 10)
    out["tridiag_eigs"] = _rounded(LA.eigvalsh(A)[:3], 8)
    exact = 2.5 - 2 * torch.cos(torch.arange(1, 4, dtype=torch.float64, device=device) * math.pi / (n + 1))
    out["eigs_exact"] = round((LA.eigvalsh(A)[:3] - exact).abs().max().item(), 10)
    return out


# ---- Welch's power spectral density with torch.signal.windows, and a spectrogram ----------------------------
def welch_psd_windows(torch, device):
    W = torch.signal.windows
    fs, n = 200.0, 1024
    rng = np.random.default_rng(1511)
    t = torch.arange(n, dtype=torch.float64, device=device) / fs
    x = torch.sin(2 * math.pi * 25 * t) + 0.5 * torch.sin(2 * math.pi * 60 * t) + \
        torch.tensor(rng.standard_normal(n) * 0.3, device=device)
    seg, hop = 128, 64
    out = {}
    for name, win in [("hann", W.hann(seg, sym=False, dtype=torch.float64, device=device)),
                      ("hamming", W.hamming(seg, sym=False, dtype=torch.float64, device=device)),
                      ("kaiser", W.kaiser(seg, beta=8.0, sym=False, dtype=torch.float64, device=device)),
                      ("gaussian", W.gaussian(seg, std=20.0, dtype=torch.float64, device=device)),
                      ("blackman", torch.blackman_window(seg, periodic=True, dtype=torch.float64, device=device))]:
        frames = x.unfold(0, seg, hop)
        frames = frames - frames.mean(-1, keepdim=True)
        spec = torch.fft.rfft(frames * win, dim=-1)
        psd = (spec.abs() ** 2).mean(0) / (fs * (win ** 2).sum())
        psd[1:-1] *= 2
        freqs = torch.fft.rfftfreq(seg, d=1 / fs, dtype=torch.float64, device=device)
        peaks = freqs[torch.topk(psd, 2).indices].tolist()
        out[name] = [sorted(peaks), round(torch.trapezoid(psd, freqs).item(), 4), round(win.sum().item(), 6)]
    spec = torch.stft(x.float(), n_fft=seg, hop_length=hop, win_length=96,
                      window=torch.hann_window(96, device=device), return_complex=True)
    power_db = 10 * torch.log10(spec.abs().pow(2).clamp_min(1e-10))
    out["stft"] = [list(spec.shape), round(power_db.max().item(), 3), int(power_db.mean(-1).argmax())]
    out["windows_misc"] = [_rounded(W.cosine(5, dtype=torch.float64, device=device), 6),
                           _rounded(W.exponential(5, tau=2.0, dtype=torch.float64, device=device), 6),
                           _rounded(W.nuttall(5, dtype=torch.float64, device=device), 6),
                           _rounded(torch.bartlett_window(5, periodic=False, device=device), 6)]
    return out


# ---- variational inference over constrained parameters: biject_to, LKJ, stick-breaking, analytic KL -------
def variational_constraints(torch, device):
    D = torch.distributions
    C = D.constraints
    rng = np.random.default_rng(1521)
    data = torch.tensor(rng.multivariate_normal([0.5, -0.3, 1.0], [[1.0, 0.4, 0.1], [0.4, 0.8, -0.2],
                                                                  [0.1, -0.2, 1.2]], 80), dtype=torch.float64,
                        device=device)
    to_pos, to_corr, to_simplex = D.biject_to(C.positive), D.biject_to(C.corr_cholesky), D.transform_to(C.simplex)
    raw_scale = torch.zeros(3, dtype=torch.float64, device=device, requires_grad=True)
    raw_corr = torch.zeros(3, dtype=torch.float64, device=device, requires_grad=True)
    q_loc = torch.zeros(3, dtype=torch.float64, device=device, requires_grad=True)
    q_raw_std = torch.full((3,), -1.0, dtype=torch.float64, device=device, requires_grad=True)
    opt = torch.optim.Adam([raw_scale, raw_corr, q_loc, q_raw_std], lr=0.05)
    eps = torch.tensor(rng.standard_normal((200, 3)), dtype=torch.float64, device=device)
    prior = D.Independent(D.Normal(torch.zeros(3, dtype=torch.float64, device=device), 2.0), 1)
    lkj = D.LKJCholesky(3, concentration=torch.tensor(2.0, dtype=torch.float64, device=device))
    elbos = []
    for step in range(40):
        scale = to_pos(raw_scale)
        L_corr = to_corr(raw_corr)
        scale_tril = scale.unsqueeze(-1) * L_corr
        q = D.Independent(D.Normal(q_loc, D.biject_to(C.positive)(q_raw_std)), 1)
        mu = q_loc + q.base_dist.scale * eps[step * 5:(step + 1) * 5]  # rsample with NumPy's noise
        lik = D.MultivariateNormal(mu.unsqueeze(1), scale_tril=scale_tril).log_prob(data).sum(-1).mean()
        log_prior_cov = lkj.log_prob(L_corr) + to_corr.log_abs_det_jacobian(raw_corr, L_corr)
        elbo = lik + log_prior_cov - D.kl_divergence(q, prior)
        opt.zero_grad()
        (-elbo).backward()
        opt.step()
        if step % 10 == 9:
            elbos.append(round(elbo.item(), 3))
    corr = L_corr @ L_corr.T
    w = to_simplex(torch.tensor([0.2, -0.5, 1.0], dtype=torch.float64, device=device))
    sb = D.transforms.StickBreakingTransform()
    return {"elbos": elbos, "loc": _rounded(q_loc, 3), "scale": _rounded(scale, 3),
            "corr01": round(corr[0, 1].item(), 3), "diag_one": bool(torch.allclose(corr.diagonal(),
                                                                                  torch.ones(3, dtype=torch.float64,
                                                                                             device=device))),
            "simplex": _rounded(w, 6), "sb_inv": _rounded(sb.inv(w), 6), "simplex_check": bool(C.simplex.check(w)),
            "pos_check": C.positive.check(torch.tensor([1.0, -1.0], device=device)).tolist(),
            "lkj_sample_shape": list(lkj.sample((2,)).shape)}


PROGRAMS = [linalg_batched_tour, fft_spectral_methods, special_function_identities, newton_autograd_functional,
            mcmc_metropolis_hmc, descriptive_statistics, einsum_tensor_networks, quadrature_golub_welsch,
            complex_signal_processing, adaptive_rk45_batch, lu_and_krylov_solvers, welch_psd_windows,
            variational_constraints]
NEEDS_CPP = {}
