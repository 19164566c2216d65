"""Forward-mode AD (autograd.forward_ad) against torch's: the API and its errors, the tangent of
every case of the op database (opinfo.py), in-place ops and views, and forward
JVPs against reverse-mode VJPs."""
import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw

import glassgrad as gg
import glassgrad.autograd.forward_ad as gfw
from differential import Raised, catch, same
from opinfo import case_id, cases
from optable import as_tuple, assert_same, grad_flags, make_inputs, npy, outcome

FW = {torch: tfw, gg: gfw}


def _rows(known=False):
    """Every case (and in-place variant) of the op database, by case id; conv's excluded.
    known: the cases whose tangent differs from torch's by decision (the entry's tangent_xfail)
    marked as strict xfails."""
    rows = []
    for e, c in cases():
        if not e.forward_ad:
            continue
        reason = e.tangent_xfail.get(c.name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if known and reason else []
        for fn, suffix in ((c.fn, ""), (c.inplace, "-inplace")):
            if fn:
                rows.append(pytest.param(fn, c.shapes, c.kw, id=case_id(e, c) + suffix,
                                         marks=marks))
    return rows


ROWS = _rows()


def run_dual(lib, fn, arrays, tangents, flags, requires_grad):
    """fn on dual inputs (those flagged): (outputs' values, outputs' tangents) or the error."""
    fw = FW[lib]
    with fw.dual_level():
        ins = []
        for a, t, f in zip(arrays, tangents, flags):
            x = lib.tensor(a, requires_grad=requires_grad and f)
            ins.append(fw.make_dual(x, lib.tensor(t)) if f else x)
        outs, err = outcome(lambda: as_tuple(fn(lib, *ins)))
        if err:
            return None, err
        return [(o, fw.unpack_dual(o).tangent) for o in outs], None


def fd_jvp(fn, arrays, tangents, flags, eps=1e-6):
    """Central differences of fn along the tangents (in glassgrad, float64)."""
    def at(s):
        with gg.no_grad():
            ins = [gg.tensor(a + s * t if f else a) for a, t, f in zip(arrays, tangents, flags)]
            return [npy(o) for o in as_tuple(fn(gg, *ins))]
    return [(p - m) / (2 * eps) for p, m in zip(at(eps), at(-eps))]


def _inputs(shapes, kw):
    rng = np.random.default_rng(1)
    arrays = make_inputs(shapes, kw, "float64", rng)
    flags = grad_flags(shapes, kw)
    tangents = [rng.standard_normal(np.shape(a)) for a in arrays]
    return arrays, tangents, flags


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("fn,shapes,kw", _rows(known=True))
def test_row_tangent(fn, shapes, kw, requires_grad):
    """The tangent of every output equals torch's; where torch has no forward AD for the op
    (it raises), it equals central finite differences along the tangent."""
    arrays, tangents, flags = _inputs(shapes, kw)
    if not any(flags):
        pytest.skip("no differentiable input")
    ref, ref_err = run_dual(torch, fn, arrays, tangents, flags, requires_grad)
    got, got_err = run_dual(gg, fn, arrays, tangents, flags, requires_grad)
    torch_lacks = ref_err and (ref_err.type == "NotImplementedError" or
                               "forward" in ref_err.first_line or
                               "undefined Tensor" in ref_err.first_line) \
        or not ref_err and not got_err and any(
            rt is None and gt is not None for (_, rt), (_, gt) in zip(ref, got))
    if torch_lacks:
        # torch has no forward derivative for the op (it raises, or gives no tangent): ours
        # must match finite differences
        assert got_err is None, got_err
        if not kw.get("fd", True):
            return
        for k, ((o, t), num) in enumerate(zip(got, fd_jvp(fn, arrays, tangents, flags))):
            if o.dtype.is_floating_point:
                got_t = np.zeros(o.shape) if t is None else npy(t)
                np.testing.assert_allclose(got_t, num, rtol=1e-5, atol=1e-6,
                                           err_msg=f"output {k}: tangent vs differences")
        return
    assert got_err == ref_err
    if ref_err:
        return
    smooth = kw.get("fd", True)
    differ = []
    for k, ((ro, rt), (go, gt)) in enumerate(zip(ref, got)):
        assert_same(ro, go, f"output {k}")
        if smooth or rt is None or gt is None:
            assert_same(rt, gt, f"output {k}: tangent")
        else:
            differ += [outcome(lambda: assert_same(rt, gt))[1]]
    if any(differ):
        # at a kink torch's forward formulas may take another subgradient than its backward
        # ones: ours is the transpose of the backward formulas' (torch's) Jacobian
        check_transpose(fn, arrays, tangents, flags, got)


def check_transpose(fn, arrays, tangents, flags, got):
    """<J t, u> == <t, Jᵀ u> with J·t the forward tangents ``got``, Jᵀ·u by backward."""
    rng = np.random.default_rng(2)
    ins = [gg.tensor(a, requires_grad=f) for a, f in zip(arrays, flags)]
    outs = [o for o in as_tuple(fn(gg, *ins))]
    pairs = [(o, t, gg.tensor(rng.standard_normal(tuple(o.shape))))
             for o, (_, t) in zip(outs, got) if o.requires_grad and t is not None]
    if not pairs:
        return
    diff = [(x, t) for x, t, f in zip(ins, tangents, flags) if f]
    grads = gg.autograd.grad([o for o, _, _ in pairs], [x for x, _ in diff],
                             [u for _, _, u in pairs], allow_unused=True)
    lhs = sum(float((npy(t) * npy(u)).sum()) for _, t, u in pairs)
    rhs = sum(float((t * npy(g)).sum()) for (_, t), g in zip(diff, grads) if g is not None)
    assert lhs == pytest.approx(rhs, rel=1e-6, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("fn,shapes,kw", ROWS)
def test_explicit_rules_agree_with_generic(fn, shapes, kw, monkeypatch):
    """Every explicit (linear, pointwise, bilinear) rule gives what the generic rule derived
    from the row's backward formulas gives: the rows are classified right."""
    arrays, tangents, flags = _inputs(shapes, kw)
    if not any(flags):
        pytest.skip("no differentiable input")
    got, err = run_dual(gg, fn, arrays, tangents, flags, False)
    monkeypatch.setattr(gfw, "_rule", lambda op: gfw.generic)
    ref, ref_err = run_dual(gg, fn, arrays, tangents, flags, False)
    if ref_err and "derivative for" in ref_err.first_line and not err:
        pytest.skip("the generic rule needs differentiable backward formulas; this row's "
                    "(as torch's) are not")
    assert err == ref_err
    for k, ((_, rt), (_, gt)) in enumerate(zip(ref or (), got or ())):
        assert (rt is None) == (gt is None), f"output {k}"
        if rt is not None:      # at singular points one may say inf where the other says nan
            finite = np.isfinite(npy(rt)) & np.isfinite(npy(gt))
            np.testing.assert_allclose(npy(gt)[finite], npy(rt)[finite], rtol=1e-6, atol=1e-6,
                                       err_msg=f"output {k}")     # (float32 steps)


# -- the API and its errors ------------------------------------------------------------------
def _api_errors():
    def outside(lib):
        return FW[lib].make_dual(lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64))

    def in_level(body):
        def program(lib):
            with FW[lib].dual_level():
                return body(lib, FW[lib])
        return program

    x = lambda lib, *s: lib.ones(*(s or (3,)), dtype=lib.float64)  # noqa: E731
    return {
        "make_dual outside a level": outside,
        "exit without a level": lambda lib: FW[lib].exit_dual_level(),
        "nested dual_level": in_level(lambda lib, fw: fw.dual_level().__enter__()),
        "nested enter": in_level(lambda lib, fw: fw.enter_dual_level()),
        "exit another level": in_level(lambda lib, fw: fw.exit_dual_level(level=3)),
        "tangent size": in_level(lambda lib, fw: fw.make_dual(x(lib), x(lib, 2))),
        "integer primal": in_level(lambda lib, fw: fw.make_dual(x(lib).long(), x(lib))),
        "integer tangent": in_level(lambda lib, fw: fw.make_dual(x(lib), x(lib).long())),
        "dual of a dual": in_level(lambda lib, fw: fw.make_dual(fw.make_dual(x(lib), x(lib)),
                                                                  x(lib))),
        "make_dual at another level": in_level(lambda lib, fw: fw.make_dual(x(lib), x(lib),
                                                                             level=5)),
        "unpack_dual at another level": in_level(lambda lib, fw: fw.unpack_dual(
            fw.make_dual(x(lib), x(lib)), level=5)),
        "unpack_dual of a number": in_level(lambda lib, fw: fw.unpack_dual(3)),
    }


@pytest.mark.parametrize("program", _api_errors().values(), ids=_api_errors().keys())
def test_api_errors(program):
    ref, got = catch(lambda: program(torch)), catch(lambda: program(gg))
    assert isinstance(ref, Raised)
    assert got == ref


def test_levels_and_unpack():
    def program(lib):
        fw = FW[lib]
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        t = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)
        before = fw.unpack_dual(x)
        with fw.dual_level() as level:
            dual = fw.make_dual(x, t)
            primal, tangent = fw.unpack_dual(dual)
            plain = fw.unpack_dual(x)
            y = dual * dual
            inside = (level, dual._base is x, tangent is t, primal._base is x,
                      fw.unpack_dual(primal).tangent, plain.tangent, type(dual.grad_fn).__name__,
                      repr(dual), repr(y), fw.unpack_dual(y).tangent, fw.unpack_dual(
                          dual.detach()).tangent, fw.unpack_dual(dual > 1).tangent)
        after = fw.unpack_dual(y)
        again = fw.enter_dual_level()
        fw.exit_dual_level(level=again)
        return (before.primal is x, before.tangent, inside, after.tangent, repr(y), again,
                fw._current_level, type(before).__name__, type(before)._fields)
    same(program)


def test_independent_of_grad_mode():
    def program(lib):
        fw = FW[lib]
        with fw.dual_level():
            x = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 0.5]))
            with lib.no_grad():
                a = fw.unpack_dual(x.exp()).tangent
            with lib.inference_mode():
                b = fw.unpack_dual(x.sin()).tangent
            return a, b
    same(program)


# -- in-place and views ----------------------------------------------------------------------
def _dual(lib, shape=(2, 3), seed=0):
    g = np.random.default_rng(seed)
    return FW[lib].make_dual(lib.tensor(g.standard_normal(shape)),
                             lib.tensor(g.standard_normal(shape)))


def _views_program(body):
    def program(lib):
        fw = FW[lib]
        with fw.dual_level():
            out = body(lib, fw)
            return tuple(fw.unpack_dual(o).tangent if isinstance(o, lib.Tensor) and
                         o.is_floating_point() else o for o in out)
    return program


VIEWS = {
    # the tangent of a view is the same view of the tangent: writing through it shows up
    "view of a dual, written in place": lambda lib, fw: (
        lambda d: (lambda v: (v.mul_(2), d, v, fw.unpack_dual(v).tangent._base is
                              fw.unpack_dual(d).tangent))(d[0]))(_dual(lib)),
    "in-place updates the tangent object": lambda lib, fw: (
        lambda d: (lambda t: (d.mul_(lib.full((2, 3), 3.0, dtype=lib.float64)), t,
                              fw.unpack_dual(d).tangent is t))(fw.unpack_dual(d).tangent))(
        _dual(lib)),
    "non-dual written with a dual: its base gets a tangent": lambda lib, fw: (
        lambda b: (b[1].add_(_dual(lib, (3,))), b, b[1], b[0]))(lib.zeros(2, 3,
                                                                          dtype=lib.float64)),
    "setitem of a dual into a plain tensor": lambda lib, fw: (
        lambda b: (b.__setitem__((slice(None), 1), _dual(lib, (2,))), b))(
        lib.zeros(2, 3, dtype=lib.float64)),
    "chain of views and in-place": lambda lib, fw: (
        lambda d: (d.t()[1:].sin_(), d.view(6).exp_(), d))(_dual(lib) * 1),
    "t_ and unsqueeze_": lambda lib, fw: (lambda d: (d.t_(), d.unsqueeze_(0), d * 2))(
        _dual(lib) * 1),
    "expand, transpose, reshape": lambda lib, fw: (
        lambda d: (d.expand(4, 2, 3), d.transpose(0, 1).reshape(6), d.unbind(1)[2],
                   d.split(1, 0)[1]))(_dual(lib)),
    "copy_ of a dual": lambda lib, fw: (lambda b: (b.copy_(_dual(lib)), b))(
        lib.ones(2, 3, dtype=lib.float64)),
    "zero_ and fill_": lambda lib, fw: (lambda d: (d.zero_(), d, d.fill_(2.0)))(_dual(lib) * 1),
}


@pytest.mark.parametrize("body", VIEWS.values(), ids=VIEWS.keys())
def test_views_and_inplace(body):
    same(_views_program(body))


def test_inplace_with_itself():
    """x.mul_(x) has the tangent of x * x (torch 2.13 gives t·(x² + x) there: its mul_ formula
    reads the already-updated self; we do not copy that)."""
    with gfw.dual_level():
        x = _dual(gg) * 1
        expected = gfw.unpack_dual(x * x).tangent
        x.mul_(x)
        np.testing.assert_allclose(npy(gfw.unpack_dual(x).tangent), npy(expected), rtol=1e-12)


# -- composition with reverse mode -------------------------------------------------------------
def test_backward_through_dual_computation():
    def program(lib):
        fw = FW[lib]
        x = lib.tensor([[0.3, -1.2], [2.0, 0.7]], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([[1.0, 0.5], [-0.5, 2.0]], dtype=lib.float64, requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(x, lib.ones(2, 2, dtype=lib.float64))
            y = (d @ w).tanh().sum()
            y.backward()
            tangent = fw.unpack_dual(y).tangent
        return y, tangent, x.grad, w.grad
    same(program)


@pytest.mark.parametrize("f", ["exp", "tanh", "matmul", "cumprod", "norm"])
def test_grad_of_tangent(f):
    """Backward through a tangent reaches both the primal and the tangent."""
    def program(lib):
        fw = FW[lib]
        g = np.random.default_rng(3)
        x = lib.tensor(g.uniform(0.5, 1.5, (3, 3)), requires_grad=True)
        t = lib.tensor(g.standard_normal((3, 3)), requires_grad=True)
        w = lib.tensor(g.standard_normal((3, 3)))
        fns = {"exp": lambda a: a.exp(), "tanh": lambda a: a.tanh(),
               "matmul": lambda a: a @ a, "cumprod": lambda a: a.cumprod(1),
               "norm": lambda a: a.norm(dim=1)}
        with fw.dual_level():
            out = fw.unpack_dual(fns[f](fw.make_dual(x, t))).tangent
        return lib.autograd.grad((out * w[:out.shape[0]] if out.dim() == 2 else out).sum(),
                                 [x, t])
    same(program)


COMPOSITES = {
    "mlp": lambda t, x, w, b: (x @ w + b).tanh().sum(1).softmax(0),
    "norms": lambda t, x, w, b: (x.norm(dim=1) * w.sum(0)[:3] + b.logsumexp(0)).cumprod(0),
    "indexing": lambda t, x, w, b: x[[0, 2]].max(1)[0] * w.t()[1:3, 0] + b[:2].sort()[0],
    "shapes": lambda t, x, w, b: t.cat([x.flatten(), w.t().reshape(-1), b.expand(2, 3).sum(0)
                                        ]).roll(2).view(3, -1).prod(1),
    "linalg": lambda t, x, w, b: t.linalg.solve(x[:, :3] @ x[:, :3].t() + t.eye(3), b) +
    t.linalg.det(w[:3].t() @ w[:3] + t.eye(3)),
    "in-place": lambda t, x, w, b: (x * 1).mul_(x).sub_(w.t()).clamp_(-0.5, 0.5).sum(0),
}


@pytest.mark.parametrize("f", COMPOSITES.values(), ids=COMPOSITES.keys())
def test_jvp_matches_vjp(f):
    """<J t, u> == <t, Jᵀ u>: forward mode against reverse mode, in glassgrad."""
    g = np.random.default_rng(5)
    shapes = ((3, 4), (4, 3), (3,))
    primals = [gg.tensor(g.standard_normal(s), requires_grad=True) for s in shapes]
    tangents = [gg.tensor(g.standard_normal(s)) for s in shapes]
    with gfw.dual_level():
        out = f(gg, *[gfw.make_dual(p, t) for p, t in zip(primals, tangents)])
        y, jt = gfw.unpack_dual(out)
    u = gg.tensor(g.standard_normal(tuple(y.shape)))
    grads = gg.autograd.grad(f(gg, *primals), primals, u, allow_unused=True)
    lhs = float((jt * u).sum())
    rhs = sum(float((t * gr).sum()) for t, gr in zip(tangents, grads) if gr is not None)
    assert lhs == pytest.approx(rhs, rel=1e-9, abs=1e-12)


def test_no_tangent_without_dual_inputs():
    """Inside a level, ops on tensors without tangents produce none (and cost no rule)."""
    def program(lib):
        fw = FW[lib]
        with fw.dual_level():
            x = lib.ones(3, dtype=lib.float64, requires_grad=True)
            y = (x * 2).sin()
            return fw.unpack_dual(y).tangent, y
    same(program)



# -- cdist: its own rule (its backward formulas, as torch's, are not differentiable) -----------
_CDIST_P = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")]


def _cdist_points():
    """Batched, broadcast inputs with a zero distance, coordinates that agree (x1_i - x2_j has
    zeros) and ties of the largest coordinate: the points where cdist's subgradient matters."""
    a = np.array([[1., 2., 0.], [0., 0., 0.], [3., -1., 2.]])
    b = np.array([[1., 2., 0.], [1., 0., 5.], [2., -2., 1.]])
    return np.stack([a, a[::-1] * 0.5])[:, None], np.stack([b, b + 0.25])


@pytest.mark.parametrize("which", ["both", "x1", "x2"])
@pytest.mark.parametrize("p", _CDIST_P)
def test_cdist_tangent_is_torch_jacobian(p, which):
    """cdist's tangent is J·t with J the Jacobian of torch's backward (torch 2.13 has no forward
    AD for cdist): the same conventions at zero distances, agreeing coordinates and ties."""
    arrays = _cdist_points()
    g = np.random.default_rng(7)
    flags = {"both": (True, True), "x1": (True, False), "x2": (False, True)}[which]
    tangents = [g.standard_normal(a.shape) for a in arrays]
    jac = torch.autograd.functional.jacobian(lambda a, b: torch.cdist(a, b, p),
                                             tuple(torch.tensor(a) for a in arrays))
    expected = sum(np.tensordot(j.numpy(), t, t.ndim)
                   for j, t, f in zip(jac, tangents, flags) if f)
    got, err = run_dual(gg, lambda lib, a, b: lib.cdist(a, b, p), arrays, tangents, flags, True)
    assert err is None, err
    (out, tangent), = got
    assert tangent.dtype == out.dtype and tangent.shape == out.shape
    np.testing.assert_allclose(npy(tangent), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("p", _CDIST_P)
def test_cdist_grad_of_tangent(p):
    """Backward through cdist's tangent: to the tangent it is torch's vjp of cdist; to the
    primal it is cdist's double backward, which torch refuses (and so do we, with its error)."""
    arrays = _cdist_points()
    g = np.random.default_rng(8)
    t, w = g.standard_normal(arrays[0].shape), g.standard_normal((2, 2, 3, 3))
    x = gg.tensor(arrays[0], requires_grad=True)
    tt = gg.tensor(t, requires_grad=True)
    with gfw.dual_level():
        tangent = gfw.unpack_dual(gg.cdist(gfw.make_dual(x, tt), gg.tensor(arrays[1]), p)).tangent
    loss = (tangent * gg.tensor(w)).sum()
    got, = gg.autograd.grad(loss, tt, retain_graph=True)
    tx = torch.tensor(arrays[0], requires_grad=True)
    out = torch.cdist(tx, torch.tensor(arrays[1]), p)
    ref, = torch.autograd.grad(out, tx, torch.tensor(w), create_graph=True)
    np.testing.assert_allclose(npy(got), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    refused = catch(lambda: torch.autograd.grad(ref.sum(), tx))
    assert isinstance(refused, Raised)
    assert catch(lambda: gg.autograd.grad(loss, x)) == refused
