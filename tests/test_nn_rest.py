"""The last nn pieces against torch: BatchNorm's batch statistics bit for bit, the orthogonal
parametrization, grid_sample's bicubic mode and interpolate's antialiasing."""
import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, norm

EXACT = {"float32": (0, 0), "float64": (0, 0)}


# -- BatchNorm: torch's CPU summation order --------------------------------------------------
def _bn_program(shape, dtype, momentum, seed, threads):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
    c = shape[1]
    w, b, rm = (rng.standard_normal(c).astype(dtype) for _ in range(3))
    rv = rng.random(c).astype(dtype) + 0.5

    def program(t):
        old = t.get_num_threads()
        t.set_num_threads(threads)
        try:
            stats = [t.tensor(rm), t.tensor(rv)]
            out = t.nn.functional.batch_norm(t.tensor(x), *stats, t.tensor(w), t.tensor(b),
                                             training=True, momentum=momentum)
            batch = [t.zeros(c, dtype=out.dtype), t.ones(c, dtype=out.dtype)]
            t.nn.functional.batch_norm(t.tensor(x), *batch, training=True, momentum=1.0)
            ev = t.nn.functional.batch_norm(t.tensor(x), *stats, t.tensor(w), None)
            return out, stats, batch, ev
        finally:
            t.set_num_threads(old)
    return program


BN_SHAPES = [(7, 5), (40, 9), (2, 3), (3, 4), (2, 6, 1), (6, 4, 5), (9, 3, 8), (4, 3, 3, 5),
             (2, 4, 4, 4), (3, 2, 3, 3, 3), (5, 2, 1, 2, 3), (33, 17, 1)]


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", BN_SHAPES)
def test_batch_norm_statistics_bit_for_bit(shape, dtype, threads):
    """The output, the running statistics, the batch's own mean and unbiased variance
    (momentum 1) and the eval output, under 1 to 3 threads (1-d inputs split their rows
    between torch's threads)."""
    for seed in range(3):
        program = _bn_program(shape, dtype, 0.1 + 0.2 * seed, seed, threads)
        assert_same(norm(program(torch)), norm(program(gg)), tol=EXACT)


@pytest.mark.parametrize("module,shape", [("BatchNorm1d", (16, 6)), ("BatchNorm1d", (8, 6, 7)),
                                          ("BatchNorm2d", (4, 6, 5, 3)),
                                          ("BatchNorm3d", (2, 6, 3, 3, 3))])
def test_batch_norm_modules_train_bit_for_bit(module, shape):
    x = np.random.default_rng(1).standard_normal(shape).astype("float32") * 2

    def program(t):
        t.manual_seed(0)
        m = getattr(t.nn, module)(6)
        with t.no_grad():
            m.weight.uniform_()
            m.bias.uniform_()
        outs = [m(t.tensor(x * (k + 1))) for k in range(3)]
        return outs, m.running_mean, m.running_var, m.num_batches_tracked
    assert_same(norm(program(torch)), norm(program(gg)), tol=EXACT)


def test_batch_norm_empty_batch_keeps_running_stats():
    def program(t):
        rm, rv = t.zeros(3), t.ones(3)
        out = t.nn.functional.batch_norm(t.zeros(0, 3), rm, rv, training=True)
        return out, rm, rv
    assert_same(norm(program(torch)), norm(program(gg)), tol=EXACT)


# -- interpolate(antialias=True) -------------------------------------------------------------
AA_SIZES = [dict(size=(3, 5)), dict(size=(14, 4)), dict(size=(8, 2)), dict(size=(17, 13)),
            dict(size=(1, 1)), dict(scale_factor=0.3), dict(scale_factor=(0.5, 1.7)),
            dict(scale_factor=0.45, recompute_scale_factor=True)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode,align_corners", [("bilinear", False), ("bilinear", True),
                                                ("bicubic", False), ("bicubic", True),
                                                ("lanczos", None)])
@pytest.mark.parametrize("sizes", AA_SIZES)
def test_interpolate_antialias(sizes, mode, align_corners, dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 8, 7)).astype(dtype)

    def program(t):
        inp = t.tensor(x, requires_grad=True)
        y = t.nn.functional.interpolate(inp, mode=mode, align_corners=align_corners,
                                        antialias=True, **sizes)
        g = t.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(dtype),
                     requires_grad=True)
        grad, = t.autograd.grad(y, inp, g, create_graph=True)
        again, = t.autograd.grad(grad, g, t.tensor(x[::-1].copy()))      # the backward's own
        return y, y.grad_fn.name(), grad, grad.grad_fn.name(), again
    assert_same(norm(program(torch)), norm(program(gg)),
                tol={"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)})


@pytest.mark.parametrize("dtype", ["float16", "int64"])
def test_interpolate_antialias_dtype_errors(dtype):
    def program(t):
        try:
            t.nn.functional.interpolate(t.ones(1, 1, 4, 4, dtype=getattr(t, dtype)), size=(2, 2),
                                        mode="bilinear", antialias=True)
        except NotImplementedError as e:
            return str(e)
    assert program(torch) is not None and program(torch) == program(gg)


def test_interpolate_antialias_argument_errors():
    def program(t):
        out = []
        for kwargs in (dict(mode="bilinear", antialias=True, size=(2,)),
                       dict(mode="lanczos", size=(2, 2)),
                       dict(mode="lanczos", size=(2, 2), antialias=True, align_corners=True),
                       dict(mode="nearest", size=(2, 2), antialias=True)):
            try:
                shape = (1, 1, 4) if kwargs.get("size") == (2,) else (1, 1, 4, 4)
                t.nn.functional.interpolate(t.ones(*shape), **kwargs)
            except ValueError as e:
                out.append(str(e))
        return out
    assert len(program(torch)) == 4 and program(torch) == program(gg)


# -- grid_sample(mode="bicubic") -------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_bicubic(padding_mode, align_corners, dtype):
    """Values, both gradients and the grid's second derivative; the grid reaches past the
    input on every side (padding decides those taps)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 5, 6)).astype(dtype)
    grid = (rng.random((2, 4, 7, 2)) * 2.6 - 1.3).astype(dtype)
    grid[0, 0, :3] = [[-1, -1], [1, 1], [0, 0]]         # on the edges and the centre
    g = rng.standard_normal((2, 3, 4, 7)).astype(dtype)

    def program(t):
        inp, at = t.tensor(x, requires_grad=True), t.tensor(grid, requires_grad=True)
        y = t.nn.functional.grid_sample(inp, at, mode="bicubic", padding_mode=padding_mode,
                                        align_corners=align_corners)
        d_inp, d_grid = t.autograd.grad(y, (inp, at), t.tensor(g), create_graph=True)
        second, = t.autograd.grad((d_grid * d_grid).sum(), at)
        return [y, y.grad_fn.name(), d_inp, d_grid], second
    (first, second), (first_gg, second_gg) = program(torch), program(gg)
    assert_same(norm(first), norm(first_gg),
                tol={"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)})
    scale = np.abs(second.numpy()).max()
    assert_same(norm(second), norm(second_gg),
                tol={"float32": (1e-4, 1e-5 * scale), "float64": (1e-10, 1e-13 * scale)})


def test_grid_sample_bicubic_errors():
    def program(t):
        out = []
        for shapes in (((1, 1, 3, 3, 3), (1, 2, 2, 2, 3)), ((1, 1, 3, 3), (1, 2, 2, 3))):
            try:
                t.nn.functional.grid_sample(t.ones(*shapes[0]), t.zeros(*shapes[1]),
                                            mode="bicubic", align_corners=False)
            except RuntimeError as e:
                out.append(str(e))
        return out
    assert len(program(torch)) == 2 and program(torch) == program(gg)


# -- parametrizations.orthogonal -------------------------------------------------------------
ORTH_SHAPES = [(4, 4), (5, 3), (3, 5), (2, 4, 3), (2, 3, 3)]
CLOSE = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-13)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("use_trivialization", [True, False])
@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder", None])
@pytest.mark.parametrize("shape", ORTH_SHAPES)
def test_orthogonal(shape, orthogonal_map, use_trivialization, dtype):
    """Registration (torch's initialisation: QR of the weight, the random completion of a
    non-square base drawn from the stream), the weight, the gradient of the original, the
    module's repr and state_dict, and what the stream draws next."""
    def program(t):
        t.manual_seed(0)
        m = t.nn.Linear(shape[-1], shape[-2], dtype=getattr(t, dtype))
        if len(shape) == 3:
            m.weight = t.nn.Parameter(t.randn(*shape, dtype=getattr(t, dtype)))
        t.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map,
                                               use_trivialization=use_trivialization)
        w = m.weight
        c = np.random.default_rng(1).standard_normal(shape).astype(dtype)
        (w * t.tensor(c)).sum().backward()     # not invariant under rotations
        original = m.parametrizations.weight.original
        return (w, w.grad_fn.name(), original, original.grad, repr(m), dict(m.state_dict()),
                t.rand(3))
    assert_same(norm(program(torch)), norm(program(gg)), tol=CLOSE)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal_assignment(orthogonal_map, use_trivialization):
    """Assigning a matrix goes through right_inverse: the new base (trivialisation), the
    Householder reflectors (no trivialisation), or torch's NotImplementedError."""
    q = np.linalg.qr(np.random.default_rng(0).standard_normal((5, 3)))[0]

    def program(t):
        t.manual_seed(0)
        m = t.nn.utils.parametrizations.orthogonal(t.nn.Linear(3, 5, dtype=t.float64),
                                                   orthogonal_map=orthogonal_map,
                                                   use_trivialization=use_trivialization)
        try:
            m.weight = t.tensor(q)
        except NotImplementedError as e:
            return "raised", str(e)
        return m.weight, dict(m.state_dict()), m.parametrizations.weight.original
    assert_same(norm(program(torch)), norm(program(gg)), tol=CLOSE)


def test_orthogonal_errors():
    def program(t):
        out = []
        for make in (lambda: t.nn.utils.parametrizations.orthogonal(t.nn.Linear(3, 3),
                                                                    orthogonal_map="qr"),
                     lambda: t.nn.utils.parametrizations.orthogonal(t.nn.Linear(3, 3), "bias"),
                     lambda: t.nn.utils.parametrizations.orthogonal(t.nn.Linear(3, 3), "foo"),
                     lambda: setattr(t.nn.utils.parametrizations.orthogonal(t.nn.Linear(3, 3)),
                                     "weight", t.ones(2, 2))):
            try:
                make()
            except ValueError as e:
                out.append(str(e).replace("glassgrad", "torch"))
        return out
    assert len(program(torch)) == 4 and program(torch) == program(gg)


# -- F.linear's checks (the fast path calls addmm's row and t's row directly) ----------------
@pytest.mark.parametrize("case", [
    ((2, 3), (4, 3), (5,)), ((2, 3), (4, 3), (2, 4)), ((2, 3), (4, 3), (3, 4)),
    ((2, 3), (2, 4, 3), (4,)), ((2, 3), (4, 3), ()), ((2, 3), (4, 3), (1, 4)),
    ((2, 5, 3), (4, 3), (4,)), ((2, 3), (4, 2), (4,)), ((3,), (4, 3), (4,))])
def test_linear_shapes_and_errors(case):
    shapes = case
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype("float32") for s in shapes]

    def program(t):
        x, w, b = (t.tensor(a, requires_grad=True) for a in arrays)
        try:
            out = t.nn.functional.linear(x, w, b)
        except RuntimeError as e:
            return "raised", str(e)
        out.sum().backward()
        return out, out.grad_fn.name(), x.grad, w.grad, b.grad
    assert_same(norm(program(torch)), norm(program(gg)))


def test_linear_bool_and_dtype_errors():
    def program(t):
        out = []
        for x, w, b in ((t.ones(2, 3, dtype=t.bool), t.ones(4, 3, dtype=t.bool),
                         t.ones(4, dtype=t.bool)),
                        (t.ones(2, 3), t.ones(4, 3), t.ones(4, dtype=t.float64))):
            try:
                t.nn.functional.linear(x, w, b)
            except RuntimeError as e:
                out.append(str(e))
        return out
    assert len(program(torch)) == 2 and program(torch) == program(gg)


def test_linear_refuses_non_tensors_as_torch():
    """torch's argument parser: the first non-Tensor argument (bias may be None), its type as
    CPython's tp_name (numpy.ndarray, numpy.float64)."""
    def program(t):
        w, b, x = t.ones(3, 4), t.ones(3), t.ones(2, 4)
        out = []
        for args in ((np.ones((2, 4), np.float32), w, b), (x, w, 3.0), ([1.0], w, b),
                     (x, 2, None), (x, w, np.float64(1.0)), (x, w, True), (x, None, b),
                     (x, "w", 1)):
            try:
                t.nn.functional.linear(*args)
                out.append("ok")
            except TypeError as e:
                out.append(str(e))
        out.append(t.nn.functional.linear(x, w, None))
        return out
    expected = program(torch)
    assert expected.count("ok") == 0 and len(expected) == 9
    assert_same(norm(expected), norm(program(gg)))
