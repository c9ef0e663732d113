"""LKJ distribution over lower Cholesky factors of correlation matrices (Lewandowski, Kurowicka and Joe 2009),
sampled by the onion method: row i is a uniform direction scaled by the square root of a Beta draw."""
import math

import tandem

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = tandem.Size((dim, dim))
        # The onion method's squared norm of row i's off-diagonal part is Beta(i/2, eta + (dim - 2)/2 - (i - 1)/2)
        # (LKJ 2009, Sec. 3.2), one law per row (row 0's is unused). PyTorch 2.x uses i - 1/2 as the first
        # parameter, which only agrees for i = 1: its correlations from row 2 on are too spread (not LKJ's
        # exchangeable marginals 2 Beta(b, b) - 1, b = eta - 1 + dim/2). tandem draws the paper's law.
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = tandem.arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = tandem.cat([offset.new_zeros((1,)), offset])
        beta_conc1 = 0.5 * offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = tandem.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        with tandem.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = tandem.randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
            u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
            # row 0 is all zeros below the diagonal, so its normalisation gave 0/0
            u_hypersphere[..., 0, :].fill_(0.0)
            w = tandem.sqrt(y) * u_hypersphere
            # the diagonal completes each row to unit norm (clamped so rounding never takes a root of < 0)
            eps = tandem.finfo(w.dtype).tiny
            diag_elems = tandem.clamp(1 - tandem.sum(w**2, dim=-1), min=eps).sqrt()
            return w + tandem.diag_embed(diag_elems)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = tandem.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = tandem.sum(order * diag_elems.log(), dim=-1)
        # normaliser of LKJ's paper (p. 1999); mvlgamma's pi term is (D-1)(D-2)/4 log(pi) where the paper's is
        # D(D-1)/4 log(pi), hence the extra (D-1)/2 log(pi)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = tandem.lgamma(alpha) * dm1
        numerator = tandem.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
