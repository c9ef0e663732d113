"""L-BFGS with an optional strong-Wolfe line search, as torch.optim.LBFGS: the same iterates and the same state.

Scalars (dot products, step lengths, curvature ratios) stay 0-dim tensors of the parameters' dtype, as in PyTorch,
so float32 runs round as PyTorch's do; the line search's control flow reads them back as Python booleans."""
from collections import namedtuple

import tandem

from ..nn.parameter import untracked
from .optimizer import Optimizer, _cast_state

# A trial step length t along the search direction: the loss there, its flat gradient, and the directional
# derivative gtd = g·d.
_Trial = namedtuple("_Trial", "t f g gtd")


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to ``bounds``
    (default: the interval between x1 and x2); the bounds' midpoint when the cubic has no real minimiser."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if not d2_square >= 0:
        return (lo + hi) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        t = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        t = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(t, lo), hi)


def _wolfe_step(evaluate, d, start, t, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step length along ``d`` from ``start`` (a _Trial at t=0) meeting the strong Wolfe conditions: first widen
    the step until an interval must hold one, then shrink that interval by cubic interpolation (Nocedal & Wright,
    algorithms 3.5 and 3.6, as ported by Torch7's lswolfe). ``evaluate(t)`` returns (loss, flat grad) at x + t*d.
    Returns the accepted _Trial and the number of evaluations."""
    f, gtd = start.f, start.gtd

    def trial(t):
        loss, grad = evaluate(t)
        return _Trial(t, loss, grad, grad.dot(d))

    def above_armijo_line(point):  # too little decrease for a step that long
        return point.f > f + c1 * point.t * gtd

    def curvature_ok(point):
        return abs(point.gtd) <= -c2 * gtd

    d_norm = d.abs().max()
    new = trial(t)
    evals, ls_iter = 1, 0
    prev = start
    bracket, done = None, False
    while ls_iter < max_ls:
        if above_armijo_line(new) or (ls_iter > 1 and new.f >= prev.f):
            bracket = [prev, new]
            break
        if curvature_ok(new):
            bracket, done = [new], True
            break
        if new.gtd >= 0:
            bracket = [prev, new]
            break
        # Still descending: extrapolate to a longer step.
        t = _cubic_minimum(prev.t, prev.f, prev.gtd, new.t, new.f, new.gtd,
                           bounds=(new.t + 0.01 * (new.t - prev.t), new.t * 10))
        prev, new = new, trial(t)
        evals += 1
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = [start, new]

    # Zoom: shrink the bracket [low, high] (low has the smaller loss) around an acceptable point.
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    insufficient_progress = False
    while not done and ls_iter < max_ls:
        if abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change:
            break
        a, b = bracket
        t = _cubic_minimum(a.t, a.f, a.gtd, b.t, b.f, b.gtd)
        # A trial too close to an end of the bracket makes little progress: after two in a row (or one at an end)
        # step a tenth of the bracket in from the nearer end instead.
        lo_t, hi_t = min(a.t, b.t), max(a.t, b.t)
        margin = 0.1 * (hi_t - lo_t)
        if min(hi_t - t, t - lo_t) < margin:
            if insufficient_progress or t >= hi_t or t <= lo_t:
                t = hi_t - margin if abs(t - hi_t) < abs(t - lo_t) else lo_t + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        new = trial(t)
        evals += 1
        ls_iter += 1
        if above_armijo_line(new) or new.f >= bracket[low].f:
            bracket[high] = new
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if curvature_ok(new):
                done = True
            elif new.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = new
    return bracket[low], evals


# PyTorch's private names for the two, which libraries import (pytorch-minimize's line_search.py).
_cubic_interpolate = _cubic_minimum


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """PyTorch's signature for the line search: ``obj_func(x, t, d)`` returns (loss, flat grad) at x + t*d, and
    f, g, gtd describe x itself. Returns (loss, flat grad, t, evaluations) at the accepted step."""
    accepted, evals = _wolfe_step(lambda step: obj_func(x, step, d), d, _Trial(0, f, g, gtd), t, c1, c2,
                                  tolerance_change, max_ls)
    grad = accepted.g.clone() if accepted.g is g else accepted.g  # PyTorch never hands back the caller's g
    return accepted.f, grad, accepted.t, evals


def _lbfgs_direction(grad, old_dirs, old_stps, ro, h_diag, al):
    """-H·grad, with H the inverse-Hessian estimate from the stored curvature pairs (the two-loop recursion);
    ``al`` receives the first loop's coefficients (kept in the state, as PyTorch does)."""
    q = grad.neg()
    for i in range(len(old_dirs) - 1, -1, -1):
        al[i] = old_stps[i].dot(q) * ro[i]
        tandem.add(q, old_dirs[i], alpha=float(-al[i]), out=q)
    r = tandem.mul(q, h_diag)
    for i in range(len(old_dirs)):
        be_i = old_dirs[i].dot(r) * ro[i]
        tandem.add(r, old_stps[i], alpha=float(al[i] - be_i), out=r)
    return r


def _dense_grad(p):
    grad = p.grad
    if grad is None:
        return p.new_zeros(p.shape)
    return grad.to_dense() if grad.is_sparse else grad


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None, *, maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn,
                        maximize=maximize)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        # The curvature history lives in lists, which the base class passes through as they are: copy them so
        # this optimizer never appends to (or pops from) the lists of the one that saved them.
        for param, state in self.state.items():
            for key, value in state.items():
                if isinstance(value, list):
                    state[key] = [_cast_state(param, key, v) for v in value]

    def _signed(self, loss):
        return -float(loss) if self.param_groups[0]["maximize"] else float(loss)

    def _gather_flat_grad(self):
        # A complex parameter counts as its pairs of reals (PyTorch's LBFGS works in that real space); a sparse
        # gradient (nn.Embedding(sparse=True)) counts as its dense equivalent, as in PyTorch.
        views = [self._real(_dense_grad(p)).reshape(-1) for p in self._params]
        flat = tandem.cat(views, 0)
        if self.param_groups[0]["maximize"]:
            flat.neg_()
        return flat

    def _add_grad(self, step_size, update):
        """params += step_size * update, ``update`` being flat (in the order of the params)."""
        offset = 0
        for p in self._params:
            view = self._real(p)
            n = view.numel()
            tandem.add(view, update[offset:offset + n].view_as(view), alpha=float(step_size), out=view)
            offset += n

    def _directional_evaluate(self, closure, x, t, d):
        """(loss, flat grad) at x + t*d; the params are back at x afterwards."""
        self._add_grad(t, d)
        loss = self._signed(closure())
        flat_grad = self._gather_flat_grad()
        for p, saved in zip(self._params, x):
            untracked(p).copy_(saved)
        return loss, flat_grad

    @tandem.no_grad()
    def step(self, closure):
        closure = tandem.enable_grad()(closure)
        if not self._params:  # nothing to optimize (a single empty group): still hand back the loss
            return closure()
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size, line_search_fn = group["history_size"], group["line_search_fn"]

        # The state is global, kept under the first param (so load_state_dict casts it to that param's device).
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure()
        loss = self._signed(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        opt_cond = flat_grad.abs().max() <= tolerance_grad
        if opt_cond:
            return orig_loss

        d, t, old_dirs, old_stps, ro, h_diag, prev_flat_grad, prev_loss = (
            state.get(k) for k in ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss"))
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # The descent direction: steepest descent at first, then L-BFGS's.
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro, h_diag = [], [], [], 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                # Keep the pair only when it has positive curvature (the estimate stays positive definite).
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        del old_dirs[0], old_stps[0], ro[0]
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                if "al" not in state:
                    state["al"] = [None] * history_size
                d = _lbfgs_direction(flat_grad, old_dirs, old_stps, ro, h_diag, state["al"])
            # flat_grad is never written in place, so holding the tensor is as good as PyTorch's copy of it.
            prev_flat_grad, prev_loss = flat_grad, loss

            # The step length: the first step is scaled so that it moves at most lr in the L1 sense.
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break  # no descent left along d

            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [untracked(p).clone() for p in self._params]
                accepted, ls_func_evals = _wolfe_step(
                    lambda step: self._directional_evaluate(closure, x_init, step, d), d,
                    _Trial(0, loss, flat_grad, gtd), t, max_ls=max_eval - current_evals)
                loss, flat_grad, t = accepted.f, accepted.g, accepted.t
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                ls_func_evals = 0
                # The last iteration skips the re-evaluation: the caller's next step does it anyway.
                if n_iter != max_iter:
                    loss = self._signed(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break  # no progress

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss
