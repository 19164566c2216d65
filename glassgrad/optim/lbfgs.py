"""L-BFGS with an optional strong-Wolfe line search (torch.optim.LBFGS).

The arithmetic follows PyTorch's: inner products stay 0-d tensors (so ``ro``, ``al``,
``H_diag`` and often ``t`` are tensors, as in PyTorch's saved state), and the line search
mixes them with Python floats the same way.
"""
from .._autograd.grad_mode import enable_grad, no_grad
from .._creation import zeros
from ..ops.pointwise import mul
from ..ops.shape import cat
from .optimizer import Optimizer, _check_lr, _to_scalar

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through two points with their slopes, kept in bounds
    (the bracket when bounds is None); the bounds' midpoint when the cubic has none."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, lo), hi)
    return (lo + hi) / 2.0


class _Bracket:
    """The line search's bracket: steps, losses, gradients and slopes at its two ends."""

    def __init__(self, ts, fs, gs, gtds):
        self.t, self.f, self.g, self.gtd = ts, fs, gs, gtds

    def order(self):
        return (0, 1) if self.f[0] <= self.f[-1] else (1, 0)

    def put(self, pos, t, f, g, gtd):
        self.t[pos], self.f[pos], self.g[pos], self.gtd[pos] = t, f, g, gtd


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    bracket = None
    # first find a bracket holding a point that satisfies the conditions
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()],
                               [gtd_prev, gtd_new])
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket = _Bracket([t], [f_new], [g_new], None)
            done = True
            break
        if gtd_new >= 0:
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()],
                               [gtd_prev, gtd_new])
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        previous = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = previous, f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = _Bracket([0, t], [f, f_new], [g, g_new], None)
    # then zoom into the bracket
    insuf_progress = False
    low, high = bracket.order()
    while not done and ls_iter < max_ls:
        ts = bracket.t
        if abs(ts[1] - ts[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(ts[0], bracket.f[0], bracket.gtd[0],
                               ts[1], bracket.f[1], bracket.gtd[1])
        t, insuf_progress = _keep_off_the_ends(t, ts, insuf_progress)
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket.f[low]:
            bracket.put(high, t, f_new, g_new.clone(), gtd_new)
            low, high = (0, 1) if bracket.f[0] <= bracket.f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (ts[high] - ts[low]) >= 0:
                bracket.put(high, ts[low], bracket.f[low], bracket.g[low], bracket.gtd[low])
            bracket.put(low, t, f_new, g_new.clone(), gtd_new)
    return bracket.f[low], bracket.g[low], bracket.t[low], evals


def _keep_off_the_ends(t, ts, insuf_progress):
    """Move a trial step that lands within 10% of the bracket's ends (twice in a row, or
    outside it) to 10% inside."""
    eps = 0.1 * (max(ts) - min(ts))
    if min(max(ts) - t, t - min(ts)) < eps:
        if insuf_progress or t >= max(ts) or t <= min(ts):
            t = max(ts) - eps if abs(t - max(ts)) < abs(t - min(ts)) else min(ts) + eps
            return t, False
        return t, True
    return t, False


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        return cat([zeros(p.numel(), dtype=p.dtype) if p.grad is None else p.grad.view(-1)
                    for p in self._params], 0)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset:offset + numel].view_as(p), alpha=_item(step_size))
            offset += numel

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat_grad

    def _direction(self, state, flat_grad, d, t, prev_flat_grad, history):
        """The two-loop recursion: -H grad from the curvature pairs kept so far."""
        old_dirs, old_stps, ro = history["old_dirs"], history["old_stps"], history["ro"]
        y = flat_grad.sub(prev_flat_grad)
        s = d.mul(t)
        ys = y.dot(s)
        if ys > 1e-10:
            if len(old_dirs) == state["history_size"]:
                old_dirs.pop(0)
                old_stps.pop(0)
                ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            history["H_diag"] = ys / y.dot(y)
        if "al" not in state["state"]:
            state["state"]["al"] = [None] * state["history_size"]
        al = state["state"]["al"]
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-_item(al[i]))
        r = mul(q, history["H_diag"])
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=_item(al[i] - be_i))
        return r

    def _advance(self, group, evaluate, d, t, loss, flat_grad, gtd, evals_left, last):
        """Move along d: by the strong-Wolfe step, or by t (then re-evaluate unless this is
        the last iteration). Returns loss, flat_grad, t, evaluations made, converged."""
        tolerance_grad = group["tolerance_grad"]
        if group["line_search_fn"] is not None:
            if group["line_search_fn"] != "strong_wolfe":
                raise RuntimeError("only 'strong_wolfe' is supported")
            x_init = [p.clone() for p in self._params]

            def obj_func(x, t, d):
                return self._directional_evaluate(evaluate, x, t, d)

            loss, flat_grad, t, evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad,
                                                      gtd, max_ls=evals_left)
            self._add_grad(t, d)
            return loss, flat_grad, t, evals, flat_grad.abs().max() <= tolerance_grad
        self._add_grad(t, d)
        if last:
            return loss, flat_grad, t, 0, False
        loss = float(evaluate())
        flat_grad = self._gather_flat_grad()
        return loss, flat_grad, t, 1, flat_grad.abs().max() <= tolerance_grad

    def step(self, closure):
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        lr = _to_scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        def evaluate():
            with enable_grad():
                return closure()

        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        history = {"old_dirs": state.get("old_dirs"), "old_stps": state.get("old_stps"),
                   "ro": state.get("ro"), "H_diag": state.get("H_diag")}
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                history = {"old_dirs": [], "old_stps": [], "ro": [], "H_diag": 1}
            else:
                d = self._direction({"state": state, "history_size": group["history_size"]},
                                    flat_grad, d, t, prev_flat_grad, history)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break
            loss, flat_grad, t, ls_func_evals, opt_cond = self._advance(
                group, evaluate, d, t, loss, flat_grad, gtd, max_eval - current_evals,
                last=n_iter == max_iter)
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if (n_iter == max_iter or current_evals >= max_eval or opt_cond
                    or d.mul(t).abs().max() <= tolerance_change
                    or abs(loss - prev_loss) < tolerance_change):
                break
        state["d"], state["t"] = d, t
        state.update(history)
        state["prev_flat_grad"], state["prev_loss"] = prev_flat_grad, prev_loss
        return orig_loss


def _item(x):
    return x.item() if hasattr(x, "item") and hasattr(x, "dim") else x
