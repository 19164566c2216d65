"""Random straight-line autograd programs as data, and one interpreter for torch and glassgrad.

A program is a list of step tuples. Every step but the last makes one tensor (index = its
position in the list) and may name earlier tensors by index:

    ("leaf", shape, requires_grad, seed)            a float64 leaf with fixed values
    (op, no_grad, *args)                             op run under no_grad when no_grad is True
    ("loss", ("last",) | ("combo", (i, j, ...)))     weighted sum(s) -> scalar, then backward()

In-place steps (add_, mul_, sub_, div_, zero_, clamp_, copy_, exp_, ...) record the tensor they
return (self), so a later step may name either index; "detach" and "data" steps alias a
tensor's storage; "unbind" and "split" steps keep one output of a multi-output view op.
``run(program, lib)`` returns plain data: the state of each tensor right after its step, the
state of every tensor at the end (value, requires_grad, is_leaf, _version, grad_fn's class and
name()), every leaf's .grad, and where lib raised, the failing step with the exception type
and first line (the program stops there).

``programs()`` is the hypothesis strategy; it tracks shapes so that most programs are
well-formed and the errors left are autograd's own (in-place on leaves and on views of them,
on expanded tensors, overlapping in-place sources, version-counter checks at backward,
backward through no grad). It runs each step in torch as it draws it (a shadow run) to know
where every tensor lies in memory, so that an in-place source overlapping its target in a way
torch does not detect is left out (see ``_defined_source``), and which tensors require grad,
so that most in-place ops that torch would refuse on a leaf run under no_grad instead, and
most losses are of tensors that require grad (each refusal is still drawn, less often).
"""
import contextlib
import math

import numpy as np
import torch
from hypothesis import strategies as st

from differential import Raised, norm

LEAF_SHAPES = [(3, 4), (4,), (2, 3, 4), (1, 4), (3, 1)]
UNARY = ["exp", "tanh", "sin", "sigmoid", "relu", "pow2", "neg", "abs", "cos", "clone",
         "contiguous"]
BINARY = ["add", "mul", "sub", "div", "maximum", "atan2"]
SCALAR = ["adds", "muls", "subs", "rsubs"]
SOURCED = ["add_", "mul_", "copy_", "sub_", "div_"]      # in-place ops with a tensor source
INPLACE = SOURCED + ["zero_", "clamp_", "adds_", "muls_", "exp_", "sigmoid_", "relu_"]


# -- interpreter ------------------------------------------------------------------------------
def _leaf_values(shape, seed, nudge=0.0):
    n = math.prod(shape)
    vals = np.linspace(-1.3, 1.7, n) * (1 + 0.25 * seed) + 0.1 * seed
    return (vals * (1 + nudge)).reshape(shape).tolist()


def _weights(lib, t):
    n = t.numel()
    return (lib.arange(n, dtype=lib.float64) / max(n, 1) + 0.5).reshape(tuple(t.shape))


def _apply(step, ts, lib, nudge=0.0):
    op = step[0]
    if op == "leaf":
        _, shape, rg, seed = step
        return lib.tensor(_leaf_values(shape, seed, nudge), dtype=lib.float64, requires_grad=rg)
    _, ng, *a = step
    ctx = lib.no_grad() if ng else contextlib.nullcontext()
    with ctx:
        x = ts[a[0]]
        if op == "add":
            return x + ts[a[1]]
        if op == "div":
            return x / ts[a[1]]
        if op in ("maximum", "atan2"):
            return getattr(lib, op)(x, ts[a[1]])
        if op in ("abs", "cos", "clone", "contiguous"):
            return getattr(x, op)()
        if op in ("sub_", "div_"):
            return getattr(x, op)(ts[a[1]])
        if op in ("exp_", "sigmoid_", "relu_"):
            return getattr(x, op)()
        if op == "narrow":
            return x.narrow(*a[1:])
        if op == "unbind":      # one output of a multi-output view op
            return x.unbind(a[1])[a[2]]
        if op == "split":
            return x.split(a[1], a[2])[a[3]]
        if op == "diagonal":
            return x.diagonal()
        if op == "permute":
            return x.permute(*a[1])
        if op == "flatten":
            return x.flatten()
        if op == "mul":
            return x * ts[a[1]]
        if op == "sub":
            return x - ts[a[1]]
        if op == "adds":
            return x + a[1]
        if op == "muls":
            return x * a[1]
        if op == "subs":
            return x - a[1]
        if op == "rsubs":
            return a[1] - x
        if op == "pow2":
            return x.pow(2)
        if op == "neg":
            return -x
        if op == "relu":
            return lib.relu(x)
        if op in ("exp", "tanh", "sin", "sigmoid"):
            return getattr(x, op)()
        if op == "sum":
            return x.sum() if a[1] is None else x.sum(a[1], keepdim=a[2])
        if op == "mean":
            return x.mean() if a[1] is None else x.mean(a[1], keepdim=a[2])
        if op == "slice":
            dim, start, stop, stepsz = a[1:]
            idx = (slice(None),) * dim + (slice(start, stop, stepsz),)
            return x[idx]
        if op == "select":
            return x.select(a[1], a[2])
        if op == "index":  # x[i] / x[:, i] through __getitem__
            return x[(slice(None),) * a[1] + (a[2],)]
        if op == "transpose":
            return x.transpose(a[1], a[2])
        if op == "t":
            return x.t()
        if op == "view":
            return x.view(*a[1])
        if op == "reshape":
            return x.reshape(*a[1])
        if op == "unsqueeze":
            return x.unsqueeze(a[1])
        if op == "squeeze":
            return x.squeeze(a[1])
        if op == "expand":
            return x.expand(*a[1])
        if op == "detach":
            return x.detach()
        if op == "data":
            return x.data
        if op == "add_":
            return x.add_(ts[a[1]])
        if op == "mul_":
            return x.mul_(ts[a[1]])
        if op == "copy_":
            return x.copy_(ts[a[1]])
        if op == "adds_":
            return x.add_(a[1])
        if op == "muls_":
            return x.mul_(a[1])
        if op == "zero_":
            return x.zero_()
        if op == "clamp_":
            return x.clamp_(a[1], a[2])
    raise ValueError(f"unknown step {step!r}")


def _loss(step, ts, lib):
    kind = step[1]
    idxs = [len(ts) - 1] if kind[0] == "last" else list(kind[1])
    loss = None
    for i in idxs:
        term = (ts[i] * _weights(lib, ts[i])).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    return loss


def state(t):
    fn = t.grad_fn
    return (norm(t), t.requires_grad, t.is_leaf, t._version,
            None if fn is None else (type(fn).__name__, fn.name()))


def run(program, lib, nudge=0.0):
    """Interpret ``program`` with lib (torch or glassgrad); plain data out (see module doc).
    nudge: the leaves' values scaled by 1 + nudge (to tell an ill-conditioned program)."""
    ts, after, error, loss = [], [], None, None
    for k, step in enumerate(program):
        try:
            if step[0] == "loss":
                loss = norm(_loss(step, ts, lib))
                break
            t = _apply(step, ts, lib, nudge)
            ts.append(t)
            after.append(state(t))
        except Exception as e:  # noqa: BLE001 - errors are part of the behaviour compared
            error = (k, Raised(e))
            break
    final, grads = [], []
    for k, t in enumerate(ts):
        try:
            final.append(state(t))
        except Exception as e:  # noqa: BLE001 - e.g. a view's grad_fn refused
            final.append(Raised(e))
    for step, t in zip(program, ts):
        if step[0] == "leaf":
            # a leaf without grad that an in-place op gave history is no longer a leaf
            grads.append("non-leaf" if not t.is_leaf else
                         None if t.grad is None else norm(t.grad))
    # norm again: lists/tuples become the tagged form differential.assert_same walks
    return norm({"after": after, "final": final, "grads": grads, "loss": loss, "error": error})


# -- generator --------------------------------------------------------------------------------
def _bcast(a, b):
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


def _reshapes(shape):
    n = math.prod(shape)
    out = {(n,), (1, n), (n, 1)}
    for d in range(2, n):
        if n % d == 0:
            out.add((d, n // d))
            for e in range(2, n // d):
                if (n // d) % e == 0:
                    out.add((d, e, n // d // e))
    if shape:
        out.add(shape[:-1] + (-1,))
    out.discard(tuple(shape))
    return sorted(out, key=repr) or [(n,)]


def _elements(t):
    """Where a torch tensor's elements lie in its storage (offsets)."""
    offsets = np.full((), t.storage_offset())
    for n, stride in zip(t.shape, t.stride()):
        offsets = np.add.outer(offsets, np.arange(n) * stride)
    return set(offsets.ravel().tolist())


def _dense(t):
    """torch's is_non_overlapping_and_dense (not exposed in Python)."""
    expected = 1
    for n, stride in sorted(zip(t.shape, t.stride()), key=lambda p: p[1]):
        if n != 1:
            if stride != expected:
                return False
            expected *= n
    return True


def _defined_source(t, s):
    """Is ``t.add_(s)`` defined in torch? A source in another storage, the same elements, or
    elements apart are; so is an overlap of two dense tensors (torch refuses it). Any other
    overlap torch does not detect, and its result depends on the order its kernels write
    (their SIMD width): undefined behaviour, left out."""
    if t.untyped_storage().data_ptr() != s.untyped_storage().data_ptr():
        return True
    if (t.storage_offset(), t.shape, t.stride()) == (s.storage_offset(), s.shape, s.stride()):
        return True
    return (_dense(t) and _dense(s)) or not (_elements(t) & _elements(s))


@st.composite
def programs(draw, max_steps=10):
    n_leaves = draw(st.integers(2, 3))
    prog, shapes, shadow = [], [], []    # shadow: each tensor, run in torch
    for k in range(n_leaves):
        shape = draw(st.sampled_from(LEAF_SHAPES))
        rg = True if k == 0 else draw(st.booleans())
        prog.append(("leaf", shape, rg, k))
        shapes.append(shape)
        shadow.append(_apply(prog[-1], shadow, torch))
    scalars = st.sampled_from([-1.5, 0.5, 2.0, 3.0])
    for _ in range(draw(st.integers(1, max_steps))):
        i = draw(st.integers(0, len(shapes) - 1))
        s = shapes[i]
        nd = len(s)
        ng = draw(st.sampled_from([False, False, False, True]))
        kinds = ["unary", "binary", "scalar", "reduce", "inplace", "inplace", "alias"]
        if nd:
            kinds += ["view", "view", "view"]
        kind = draw(st.sampled_from(kinds))
        if kind == "unary":
            step, out = (draw(st.sampled_from(UNARY)), ng, i), s
        elif kind == "scalar":
            step, out = (draw(st.sampled_from(SCALAR)), ng, i, draw(scalars)), s
        elif kind == "binary":
            ok = [j for j, sj in enumerate(shapes) if _bcast(s, sj) is not None]
            if draw(st.integers(0, 9)) == 0:    # now and then any operand: broadcast errors
                ok = list(range(len(shapes)))
            j = draw(st.sampled_from(ok))
            step = (draw(st.sampled_from(BINARY)), ng, i, j)
            out = _bcast(s, shapes[j]) or s    # a mismatch raises there; the program stops
        elif kind == "reduce":
            op = draw(st.sampled_from(["sum", "mean"]))
            if nd and draw(st.booleans()):
                d = draw(st.integers(-nd, nd - 1))
                keep = draw(st.booleans())
                out = tuple(1 if q == d % nd else v for q, v in enumerate(s)) if keep else \
                    tuple(v for q, v in enumerate(s) if q != d % nd)
                step = (op, ng, i, d, keep)
            else:
                step, out = (op, ng, i, None, False), ()
        elif kind == "alias":
            step, out = (draw(st.sampled_from(["detach", "detach", "data"])), ng, i), s
        elif kind == "inplace":
            op = draw(st.sampled_from(INPLACE))
            # torch refuses it on a leaf that requires grad or a view of one: mostly run it
            # under no_grad (grad_fn is read of bases only: a view's read regenerates it)
            leaf = shadow[i] if shadow[i]._base is None else shadow[i]._base
            if not ng and leaf.requires_grad and leaf.grad_fn is None and draw(st.integers(0, 3)):
                ng = True
            if op in SOURCED:
                ok = [j for j, sj in enumerate(shapes) if _bcast(s, sj) == tuple(s)
                      and _defined_source(shadow[i], shadow[j])]
                if not ok:
                    op = "zero_"
                step = (op, ng, i, draw(st.sampled_from(ok))) if ok else (op, ng, i)
            elif op in ("adds_", "muls_"):
                step = (op, ng, i, draw(scalars))
            elif op == "clamp_":
                lo = draw(st.sampled_from([-1.0, -0.5, 0.0]))
                step = (op, ng, i, lo, lo + draw(st.sampled_from([0.5, 1.0, 2.0])))
            else:
                step = (op, ng, i)
            out = s
        else:  # views
            ops = ["slice", "select", "index", "view", "reshape", "unsqueeze", "expand",
                   "narrow", "unbind", "split", "flatten"]
            if nd >= 2:
                ops += ["transpose", "diagonal", "permute"]
            if nd <= 2:
                ops += ["t"]
            if 1 in s:
                ops += ["squeeze"]
            op = draw(st.sampled_from(ops))
            d = draw(st.integers(0, nd - 1))
            if op == "slice":
                start = draw(st.integers(0, s[d] - 1))
                stop = draw(st.integers(start + 1, s[d]))
                sz = draw(st.sampled_from([1, 1, 2, 3]))
                step = (op, ng, i, d, start, stop, sz)
                out = s[:d] + (len(range(start, stop, sz)),) + s[d + 1:]
            elif op in ("select", "index"):
                step = (op, ng, i, d, draw(st.integers(-s[d], s[d] - 1)))
                out = s[:d] + s[d + 1:]
            elif op == "narrow":
                start = draw(st.integers(0, s[d] - 1))
                length = draw(st.integers(1, s[d] - start))   # (no empty dims)
                step = (op, ng, i, d, start, length)
                out = s[:d] + (length,) + s[d + 1:]
            elif op == "unbind":
                step, out = (op, ng, i, d, draw(st.integers(0, s[d] - 1))), s[:d] + s[d + 1:]
            elif op == "split":
                size = draw(st.integers(1, s[d]))
                k = draw(st.integers(0, -(-s[d] // size) - 1))
                step = (op, ng, i, size, d, k)
                out = s[:d] + (min(size, s[d] - k * size),) + s[d + 1:]
            elif op == "diagonal":
                step, out = (op, ng, i), s[2:] + (min(s[0], s[1]),)
            elif op == "permute":
                perm = tuple(draw(st.permutations(range(nd))))
                step, out = (op, ng, i, perm), tuple(s[q] for q in perm)
            elif op == "flatten":
                step, out = (op, ng, i), (math.prod(s),)
            elif op == "transpose":
                e = draw(st.integers(0, nd - 1))
                step, out = (op, ng, i, d, e), list(s)
                out[d], out[e] = out[e], out[d]
                out = tuple(out)
            elif op == "t":
                step, out = (op, ng, i), tuple(reversed(s))
            elif op in ("view", "reshape"):
                new = draw(st.sampled_from(_reshapes(s)))
                step = (op, ng, i, new)
                n = math.prod(s)
                out = tuple(n // -math.prod(new) if v == -1 else v for v in new)
            elif op == "unsqueeze":
                e = draw(st.integers(-nd - 1, nd))
                step = (op, ng, i, e)
                out = list(s)
                out.insert(e % (nd + 1), 1)
                out = tuple(out)
            elif op == "squeeze":
                e = draw(st.sampled_from([q for q, v in enumerate(s) if v == 1]))
                step, out = (op, ng, i, e), s[:e] + s[e + 1:]
            else:  # expand: grow size-1 dims, maybe add a leading one
                lead = (draw(st.sampled_from([2, 3])),) if draw(st.booleans()) else ()
                new = tuple(draw(st.sampled_from([1, 2, 3])) if v == 1 else
                            draw(st.sampled_from([v, -1])) for v in s)
                step = (op, ng, i, lead + new)
                out = lead + tuple(v if n == -1 else n for v, n in zip(s, new))
        prog.append(step)
        shapes.append(tuple(out))
        try:
            shadow.append(_apply(step, shadow, torch))
        except Exception:  # noqa: BLE001 - the program stops at this step: no more to draw
            break
    grad = [k for k, t in enumerate(shadow) if t.requires_grad]
    if draw(st.booleans()) and (shadow[-1].requires_grad or not draw(st.integers(0, 3))):
        prog.append(("loss", ("last",)))
    else:   # mostly tensors that require grad (a loss of none is refused)
        pool = grad if grad and draw(st.integers(0, 7)) else range(len(shadow))
        idxs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True))
        prog.append(("loss", ("combo", tuple(idxs))))
    return prog
