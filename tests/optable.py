"""The op-table harness: ``check_op`` runs one case of the op database (tests/opinfo.py) in
torch and glassgrad and compares everything observable.

``check_op(fn, shapes, kw, dtype)`` runs ``fn(lib, *inputs)`` with lib torch or glassgrad on the
same random inputs and compares values, dtype, shape, grad_fn name, requires_grad, _version and
saved tensors of the outputs; .grad of every input after a random upstream backward; what
backward does when an input or an output was modified in place after the forward (the
saved-tensor version check); a float64 central-difference check; double backward (with the
upstream gradient constant and requiring grad), None-vs-tensor included. A case's ``inplace=``
program (the op's in-place variant) gets the whole check too, and must give the out-of-place
program's values. Values and errors are compared the one way differential.py does (its
normaliser, comparator and Raised), with the per-dtype tolerances TOL. torch computes every
expectation.
"""
import numpy as np
import torch

import glassgrad as gg
from differential import Raised, norm
from differential import assert_same as assert_same_normalised

DTYPES = ("float32", "float64")
TOL = {"float16": (1e-3, 1e-3), "float32": (1e-5, 1e-5), "float64": (1e-10, 1e-12)}
SAVED = ("_saved_self", "_saved_other", "_saved_result", "_saved_exponent", "_saved_mat2",
         "_saved_vec", "_saved_tensor")


class Mask:
    """A bool input (where's condition): never requires grad."""

    def __init__(self, shape):
        self.shape = shape


def ip(name, *args, pre=None, **kwargs):
    """An ``inplace=`` program: ``pre(lib, x).name(*other inputs, *args, **kwargs)``, with pre
    making the non-leaf written into (default ``x * 1``)."""
    def program(lib, x, *others):
        target = x * 1 if pre is None else pre(lib, x)
        return getattr(target, name)(*others, *args, **kwargs)
    return program


# -- helpers ---------------------------------------------------------------------------------
def as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def npy(t):
    return t.detach().numpy(force=True)     # force: torch's double backward may give ZeroTensors


def outcome(f):
    """(value, None) or (None, Raised(the exception))."""
    try:
        return f(), None
    except Exception as e:  # noqa: BLE001 - we compare whatever both libraries raise
        return None, Raised(e)


def assert_same(ref, got, what="value"):
    """ref (torch) and got (glassgrad): both None, or equal dtype, shape and values (within the
    dtype's TOL)."""
    if ref is None or got is None:
        assert ref is None and got is None, f"{what}: torch {ref!r}, glassgrad {got!r}"
        return
    assert_same_normalised(norm(ref.detach()), norm(got.detach()), what, TOL)


def compare_values(f):
    """``f(lib)`` gives the same tensor (or tuple of tensors) in both libraries, requires_grad
    included, or raises the same error."""
    ref, ref_err = outcome(lambda: f(torch))
    got, got_err = outcome(lambda: f(gg))
    assert got_err == ref_err
    if ref_err is None:
        for r, g in zip(ref, got) if isinstance(ref, tuple) else [(ref, got)]:
            assert_same(r, g)
            assert g.requires_grad == r.requires_grad


def base_of(out, ins):
    """Which input ``out`` is a view of (None: not a view)."""
    if out._base is None:
        return None
    return next((k for k, t in enumerate(ins) if out._base is t), "another tensor")


def make_inputs(shapes, kw, dtype, rng):
    arrays = []
    for s in shapes:
        if isinstance(s, Mask):
            arrays.append(rng.random(s.shape) < 0.5)
        elif kw.get("ints"):
            arrays.append(rng.integers(-2, 3, s).astype(dtype))
        elif kw.get("nz"):
            arrays.append((rng.choice([-1, 1], s) * rng.uniform(0.5, 1.5, s)).astype(dtype))
        else:
            arrays.append(rng.uniform(kw.get("lo", -1), kw.get("hi", 1), s).astype(dtype))
    return [np.asarray(a) for a in arrays]


def grad_flags(shapes, kw):
    return tuple(not isinstance(s, Mask) and g
                 for s, g in zip(shapes, kw.get("grad", (True,) * len(shapes))))


def build(mod, fn, arrays, flags):
    ins = [mod.tensor(a, requires_grad=f) for a, f in zip(arrays, flags)]
    return ins, as_tuple(fn(mod, *ins))


def check_saved(ref_node, got_node, what):
    """Each saved tensor torch exposes: present here too, same value (or same refusal)."""
    for name in SAVED:
        if ref_node is None or not hasattr(ref_node, name):
            continue
        assert hasattr(got_node, name), f"{what}: {name} missing"
        ref, ref_err = outcome(lambda: getattr(ref_node, name))
        got, got_err = outcome(lambda: getattr(got_node, name))
        assert got_err == ref_err, f"{what}: {name}"
        if isinstance(ref, torch.Tensor) or ref is None:
            assert_same(ref, got, f"{what}: {name}")
        else:
            assert got == ref, f"{what}: {name}"


def fd_vjp(fn, arrays, flags, vs, eps=1e-6):
    """Central differences of sum(out_k * v_k) with respect to each input needing grad."""
    def f(arrs):
        with gg.no_grad():
            outs = build(gg, fn, arrs, [False] * len(arrs))[1]
        return sum(float((npy(o) * v).sum()) for o, v in zip(outs, vs) if v is not None)
    grads = []
    for i, need in enumerate(flags):
        if not need:
            grads.append(None)
            continue
        g = np.zeros_like(arrays[i])
        for j in np.ndindex(arrays[i].shape or ()):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[i][j] += eps
            minus[i][j] -= eps
            g[j] = (f(plus) - f(minus)) / (2 * eps)
        grads.append(g)
    return grads


def mutated_backward(mod, fn, arrays, flags, roots, v_arrays, target):
    """Run ``fn``, bump the version of ``target`` (("input", k) or ("output", k)) in place
    under no_grad, then backward: (refusal of the mutation, outcome of backward, input grads)."""
    ins, outs = build(mod, fn, arrays, flags)
    t = ins[target[1]] if target[0] == "input" else outs[target[1]]
    with mod.no_grad():
        _, err = outcome(lambda: t.mul_(1))
    if err:
        return err, None, None
    _, err = outcome(lambda: mod.autograd.backward([outs[i] for i in roots],
                                                   [mod.tensor(v) for v in v_arrays]))
    return None, err, [i.grad for i in ins]


class VersionCheckMismatch(AssertionError):
    """Backward after an in-place modification behaved unlike torch's (raised after every other
    check of the row passed, so a row marked ``known`` still has those checked)."""


def check_mutations(fn, arrays, flags, n_outs, roots, v_arrays):
    """Modifying a saved tensor after the forward makes backward raise the version error;
    modifying an unsaved one does not: the same in both libraries, input by input, output by
    output (a tensor torch cannot write into, e.g. an expanded view, is skipped). Returns the
    mismatches."""
    targets = [("input", k) for k, f in enumerate(flags) if f] + \
        [("output", k) for k in range(n_outs)]
    mismatches = []
    for target in targets:
        what = f"backward after modifying {target[0]} {target[1]} in place"
        t_mut, t_err, t_grads = mutated_backward(torch, fn, arrays, flags, roots, v_arrays, target)
        if t_mut:
            continue
        g_mut, g_err, g_grads = mutated_backward(gg, fn, arrays, flags, roots, v_arrays, target)
        if g_mut or g_err != t_err:
            mismatches.append(f"{what}: glassgrad {g_mut or g_err}, torch {t_err}")
            continue
        for k, (t, g) in enumerate(zip(t_grads, g_grads) if not t_err else ()):
            assert_same(t, g, f"{what}: grad of input {k}")
    return mismatches


def check_inplace(fn, inplace, shapes, kw, dtype):
    """The in-place variant: checked against torch like any row, and giving the values of
    the out-of-place program in glassgrad. Returns its version-check mismatches."""
    kw = {k: v for k, v in kw.items() if k != "inplace"}
    mismatches = _check(inplace, shapes, kw, dtype)
    arrays = make_inputs(shapes, kw, dtype, np.random.default_rng(0))
    flags = grad_flags(shapes, kw)
    outs, in_outs = build(gg, fn, arrays, flags)[1], build(gg, inplace, arrays, flags)[1]
    assert len(in_outs) == len(outs)
    rtol, atol = TOL[dtype]
    for k, (o, i) in enumerate(zip(outs, in_outs)):
        np.testing.assert_allclose(npy(i).astype(float), npy(o).astype(float), rtol, atol,
                                   err_msg=f"in-place output {k} vs out-of-place")
    return ["in-place variant: " + m for m in mismatches]


def double_backward(mod, fn, arrays, flags, v_arrays, w_arrays, v_requires_grad):
    """autograd.grad twice: g = d<out, v>/d inputs, then d<g, w>/d (inputs [, v])."""
    ins, outs = build(mod, fn, arrays, flags)
    diff = [t for t, f in zip(ins, flags) if f]
    roots = [o for o in outs if o.requires_grad]
    vs = [mod.tensor(v, requires_grad=v_requires_grad) for v in v_arrays]
    g, err = outcome(lambda: mod.autograd.grad(roots, diff, grad_outputs=vs, create_graph=True))
    if err:
        return err, None, None
    total = None
    for gi, w in zip(g, w_arrays):
        term = (gi * mod.tensor(w)).sum()
        total = term if total is None else total + term
    wrt = diff + (vs if v_requires_grad else [])
    gg2 = outcome(lambda: mod.autograd.grad(total, wrt, allow_unused=True))
    return None, g, gg2


# -- the check -------------------------------------------------------------------------------
def check_op(fn, shapes, kw, dtype):
    mismatches = _check(fn, shapes, kw, dtype)
    if kw.get("inplace"):
        mismatches += check_inplace(fn, kw["inplace"], shapes, kw, dtype)
    if mismatches:
        raise VersionCheckMismatch("\n".join(mismatches))


def _check(fn, shapes, kw, dtype):
    """Every check of one program but the version checks, whose mismatches it returns."""
    rng = np.random.default_rng(0)
    arrays = make_inputs(shapes, kw, dtype, rng)
    flags = grad_flags(shapes, kw)
    t_ins, t_outs = build(torch, fn, arrays, flags)
    g_ins, g_outs = build(gg, fn, arrays, flags)

    assert len(g_outs) == len(t_outs)
    for k, (t, g) in enumerate(zip(t_outs, g_outs)):
        assert_same(t, g, f"output {k}")
        assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__, f"output {k}: grad_fn"
        assert g.requires_grad == t.requires_grad, f"output {k}: requires_grad"
        assert g._version == t._version, f"output {k}: _version"
        assert g.stride() == t.stride(), f"output {k}: stride"
        assert base_of(g, g_ins) == base_of(t, t_ins), f"output {k}: _base"
        check_saved(t.grad_fn, g.grad_fn, f"output {k}")
    for k, (t, g) in enumerate(zip(t_ins, g_ins)):
        assert g._version == t._version, f"input {k}: _version"

    roots = [i for i, t in enumerate(t_outs) if t.requires_grad]
    if not roots:
        return []
    v_arrays = [rng.standard_normal(t_outs[i].shape).astype(dtype) for i in roots]
    torch.autograd.backward([t_outs[i] for i in roots], [torch.tensor(v) for v in v_arrays])
    gg.autograd.backward([g_outs[i] for i in roots], [gg.tensor(v) for v in v_arrays])
    for k, (t, g) in enumerate(zip(t_ins, g_ins)):
        assert_same(t.grad, g.grad, f"grad of input {k}")

    if dtype == "float64" and kw.get("fd", True) and \
            all(str(t_outs[i].dtype) == "torch.float64" for i in roots):
        vs = [None] * len(t_outs)
        for i, v in zip(roots, v_arrays):
            vs[i] = v
        for k, (num, g) in enumerate(zip(fd_vjp(fn, arrays, flags, vs), g_ins)):
            if num is not None:     # no gradient (None, as torch gives) counts as zeros
                got = np.zeros_like(num) if g.grad is None else npy(g.grad)
                np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-6,
                                           err_msg=f"finite differences, input {k}")

    w_arrays = [rng.standard_normal(a.shape).astype(dtype) for a, f in zip(arrays, flags) if f]
    for v_rg in (False, True):
        what = f"double backward (v.requires_grad={v_rg})"
        t_err, t_g, t_gg = double_backward(torch, fn, arrays, flags, v_arrays, w_arrays, v_rg)
        g_err, g_g, g_gg = double_backward(gg, fn, arrays, flags, v_arrays, w_arrays, v_rg)
        assert g_err == t_err, what
        if t_err:
            continue
        for k, (t, g) in enumerate(zip(t_g, g_g)):
            assert_same(t, g, f"{what}: first grad {k}")
            assert g.requires_grad == t.requires_grad, f"{what}: first grad {k} requires_grad"
        (t_res, t_e), (g_res, g_e) = t_gg, g_gg
        assert g_e == t_e, what
        for k, (t, g) in enumerate(zip(t_res or (), g_res or ())):
            assert_same(t, g, f"{what}: second grad {k}")
    return check_mutations(fn, arrays, flags, len(t_outs), roots, v_arrays)


def check_error(f):
    """``f(lib)`` raises in torch, and glassgrad raises the same type with the same first line."""
    _, ref_err = outcome(lambda: f(torch))
    _, got_err = outcome(lambda: f(gg))
    assert ref_err is not None, "torch accepted this case"
    assert got_err == ref_err
