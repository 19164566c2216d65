"""Every generic op test, derived from the op database (tests/opinfo.py): the optable harness
over every case and dtype, the dtype sweeps, special values and third derivatives by each op's
facts, a check that every row of the op table (glassgrad.ops.registry.TABLE) has a case, and
that every arrays=True row's formulas give on arrays what they give on tensors. torch computes
every expectation of the harness."""
import itertools
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops.registry import TABLE
from opinfo import OPS, SWEEP_ARGS, case_id, cases, sweep_programs, with_sweep
from optable import (TOL, VersionCheckMismatch, as_tuple, assert_same, check_op, compare_values,
                     grad_flags, make_inputs)


# -- the harness over every case -------------------------------------------------------------
def _op_params():
    out = []
    for e, c in cases():
        marks = [pytest.mark.xfail(strict=True, raises=VersionCheckMismatch, reason=e.xfail[c.name])
                 ] if c.name in e.xfail else []
        out += [pytest.param(c.fn, c.shapes, c.kw, dtype, e.warns,
                             id=f"{dtype}-{case_id(e, c)}", marks=marks) for dtype in e.dtypes]
    return out


@pytest.mark.parametrize("fn,shapes,kw,dtype,warns", _op_params())
def test_op(fn, shapes, kw, dtype, warns):
    with warnings.catch_warnings():
        if warns:
            warnings.simplefilter("ignore")
        check_op(fn, shapes, kw, dtype)


def test_case_names_are_unique():
    ids = [case_id(e, c) for e, c in cases()]
    assert len(ids) == len(set(ids)), {i for i in ids if ids.count(i) > 1}


def test_entries():
    """Each entry's facts name a torch op by the entry's name, and its xfails name its cases."""
    for e in OPS:
        if e.sweeps or e.special or e.third:
            assert hasattr(torch, e.name) or hasattr(torch.nn.functional, e.name), e
        assert e.cases or e.sweeps or e.special or e.third, f"{e}: nothing checked"
        assert set(e.dtypes) <= set(TOL), e


# -- value sweeps: dtypes, scalars, special values -------------------------------------------
def _sweep_params(kind):
    return [pytest.param(name, *args, id="-".join(map(str, (name, *args))))
            for name in with_sweep(kind) for args in SWEEP_ARGS[kind]]


@pytest.mark.parametrize("name,kind", _sweep_params("unary"))
def test_unary_dtypes(name, kind):
    for f in sweep_programs("unary", name, kind):
        compare_values(f)


@pytest.mark.parametrize("name,kind", _sweep_params("activation"))
def test_activation_dtypes(name, kind):
    for f in sweep_programs("activation", name, kind):
        compare_values(f)


@pytest.mark.parametrize("name,a,b", _sweep_params("binary"))
def test_binary_dtypes(name, a, b):
    for f in sweep_programs("binary", name, a, b):
        compare_values(f)


@pytest.mark.parametrize("name,kind,scalar", _sweep_params("scalars"))
def test_binary_scalars(name, kind, scalar):
    for f in sweep_programs("scalars", name, kind, scalar):
        compare_values(f)


@pytest.mark.parametrize("name", [e.name for e in OPS if e.special])
def test_unary_special_values(name):
    for f in sweep_programs("special", name):
        compare_values(f)


# -- third derivatives -----------------------------------------------------------------------
def third_derivative_chain(t, name):
    """[f(x), f'(x), f''(x), f'''(x)] of torch.<name> (create_graph=True at each order), ending
    early where an order's gradient has no graph (a linear op's); float64."""
    x = t.tensor([0.15, 0.35, 0.55, 0.8], dtype=t.float64)
    if name == "acosh":
        x = x + 1.5
    x.requires_grad_()
    chain = [getattr(t, name)(x)]
    while len(chain) < 4 and chain[-1] is not None and chain[-1].requires_grad:
        chain.append(t.autograd.grad(chain[-1].sum(), x, create_graph=True,
                                     allow_unused=True)[0])
    return chain


@pytest.mark.parametrize("name", [e.name for e in OPS if e.third])
def test_third_derivative(name):
    """grad of grad of grad equals torch's; an order whose gradient has no graph stops where
    torch's does."""
    got, ref = third_derivative_chain(gg, name), third_derivative_chain(torch, name)
    assert len(got) == len(ref), name
    for a, b in zip(got, ref):
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.requires_grad == b.requires_grad, name
            assert_same(b.detach(), a.detach())


# -- every row of the op table has a case ----------------------------------------------------
# Rows no database program reaches (by _labels()' label) -> the reason. Keep it short: add a
# case to opinfo.py instead.
_COMPLEX = ("the harness draws real inputs: tests/test_complex.py tests the complex rows against "
            "torch (values, gradients, grad_fn names, errors)")
UNREACHED = {name: _COMPLEX for name in ("AngleBackward0", "PolarBackward0", "ComplexBackward0")}
UNREACHED.update({name: "torch.fft's rows: tests/test_fft.py tests them against torch (values, "
                        "dtypes, gradients to second order, grad_fn names, errors)"
                  for name in ("FftC2CBackward0", "FftR2CBackward0", "FftC2RBackward0")})


def _forward(fn, shapes, kw, seed):
    """The case's forward once in glassgrad, float64: (its outputs that require grad, its
    inputs that do)."""
    arrays = make_inputs(shapes, kw, "float64", np.random.default_rng(seed))
    flags = grad_flags(shapes, kw)
    ins = [gg.tensor(a, requires_grad=f) for a, f in zip(arrays, flags)]
    outs = [o for o in as_tuple(fn(gg, *ins)) if o.requires_grad]
    return outs, [x for x, f in zip(ins, flags) if f]


def _run_case(fn, shapes, kw):
    """The case once in glassgrad, float64: forward, backward with create_graph, and a second
    backward through that (what the harness's double backward reaches)."""
    outs, diff = _forward(fn, shapes, kw, 0)
    if not outs or not diff:
        return
    grads = gg.autograd.grad(outs, diff, [gg.ones_like(o) for o in outs], create_graph=True,
                             allow_unused=True)
    total = sum((g * g).sum() for g in grads if g is not None and g.requires_grad)
    if isinstance(total, gg.Tensor):
        gg.autograd.grad(total, diff, allow_unused=True)


def _programs():
    """Every program of the database, as a thunk running it in glassgrad."""
    for e, c in cases():
        for fn in filter(None, (c.fn, c.inplace)):
            yield lambda fn=fn, c=c: _run_case(fn, c.shapes, c.kw)
    for kind, args in SWEEP_ARGS.items():
        for name, a in itertools.product(with_sweep(kind), args):
            for f in sweep_programs(kind, name, *a):
                yield lambda f=f: f(gg)
    for e in OPS:
        if e.special:
            for f in sweep_programs("special", e.name):
                yield lambda f=f: f(gg)
        if e.third:
            yield lambda name=e.name: third_derivative_chain(gg, name)


def _reached():
    """The TABLE rows (OpDef objects) whose forward runs while every program runs once (a
    row's forward runs through its kernel, bound on first use: the kernels start empty)."""
    reached = set()

    def recording(op, kernel):
        def bind(arrays):
            reached.add(op)
            return kernel(arrays)
        return bind

    originals = {op: op.kernels for op in TABLE}
    try:
        for op in TABLE:
            op.kernels = {}
            op.kernel = recording(op, op.kernel)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for program in _programs():
                try:
                    program()
                except Exception:   # noqa: BLE001 - an error case still reached its rows
                    pass
    finally:
        for op, kernels in originals.items():
            op.kernels = kernels
            del op.kernel
    return reached


def _labels():
    """Each TABLE row's label: its node's name, with its place among the rows of that name and
    its module where several rows share the name (e.g. "NotImplemented[4] glassgrad.ops.random")."""
    names = [op.node_cls.__name__ for op in TABLE]
    seen = {}
    labels = {}
    for op, name in zip(TABLE, names):
        k = seen[name] = seen.get(name, -1) + 1
        labels[op] = name if names.count(name) == 1 else \
            f"{name}[{k}] {getattr(op.forward, '__module__', '')}"
    return labels


def test_every_table_row_has_a_case():
    """Every row of the op table runs in some program of the database (or is listed in
    UNREACHED with the reason): a new row cannot land untested."""
    labels = _labels()
    assert UNREACHED.keys() <= set(labels.values()), \
        f"UNREACHED names no row: {UNREACHED.keys() - set(labels.values())}"
    reached = _reached()
    unreached = {labels[op] for op in TABLE if op not in reached}
    missing = sorted(unreached - UNREACHED.keys())
    assert not missing, f"op-table rows no database case reaches: {missing}"
    stale = sorted(UNREACHED.keys() - unreached)
    assert not stale, f"UNREACHED rows a case now reaches (remove them there): {stale}"


# -- arrays=True rows: their formulas give on arrays what they give on tensors ----------------
def _gradients(fn, shapes, kw, create_graph):
    """The gradients of the case's outputs (upstream ones), float64, in the engine's array mode
    (create_graph=False: arrays=True rows run their formulas on NumPy arrays) or on tensors."""
    outs, diff = _forward(fn, shapes, kw, 1)
    if not outs or not diff:
        return None
    grads = gg.autograd.grad(outs, diff, [gg.ones_like(o) for o in outs],
                             create_graph=create_graph, allow_unused=True)
    return [None if g is None else g.detach().numpy() for g in grads]


def _array_rows(fn, shapes, kw):
    """The arrays=True rows whose formulas run on arrays in the case's backward."""
    ran = set()
    originals = {op: op.node_cls.apply_arrays for op in TABLE if op.arrays}

    def recording(op, apply_arrays):
        def run(self, *args, **kwargs):
            ran.add(op)
            return apply_arrays(self, *args, **kwargs)
        return run
    try:
        for op, apply_arrays in originals.items():
            op.node_cls.apply_arrays = recording(op, apply_arrays)
        _gradients(fn, shapes, kw, False)
    except Exception:   # noqa: BLE001 - a case that raises runs no formula to compare
        return set()
    finally:
        for op, apply_arrays in originals.items():
            op.node_cls.apply_arrays = apply_arrays
    return ran


def _array_cases():
    out = []
    for e, c in cases():
        if c.kw.get("grad") is not False and _array_rows(c.fn, c.shapes, c.kw):
            out.append(pytest.param(c.fn, c.shapes, c.kw, id=case_id(e, c)))
    return out


@pytest.mark.parametrize("fn,shapes,kw", _array_cases())
def test_array_formulas_match_tensor_formulas(fn, shapes, kw):
    """A row declared arrays=True promises its formulas run on NumPy arrays when grad mode is
    off: the engine's array mode must give the gradients the same formulas give on tensors."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on_arrays = _gradients(fn, shapes, kw, False)
        on_tensors = _gradients(fn, shapes, kw, True)
    for a, t in zip(on_arrays, on_tensors):
        assert (a is None) == (t is None)
        if a is not None:
            assert a.dtype == t.dtype and a.shape == t.shape
            np.testing.assert_allclose(a, t, rtol=1e-13, atol=1e-15, equal_nan=True)


def test_every_arrays_row_runs_on_arrays_in_some_case():
    ran = set()
    for e, c in cases():
        ran |= _array_rows(c.fn, c.shapes, c.kw)
    missing = sorted(op.node_cls.__name__ for op in TABLE if op.arrays and op not in ran)
    assert not missing, f"arrays=True rows no case runs on arrays: {missing}"
