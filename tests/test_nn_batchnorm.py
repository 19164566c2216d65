"""BatchNorm against torch's CPU kernels on every memory layout, and its node against torch's.

torch takes one of three paths by the input's layout (aten/src/ATen/native/Normalization.cpp,
cpu/batch_norm_kernel.cpp): contiguous, channels-last (4-d/5-d with the channels fastest; here
made by permuting an NHWC tensor, as glassgrad has no channels_last memory format), and a
strided path for any other layout. The first two agree with torch to the last bit (batch
statistics, output and its strides, running statistics); the strided path is torch's arithmetic
except for the mean, which torch takes from torch.mean (its summation order is not NumPy's), so
there the figures agree to a few units in the last place. NativeBatchNormBackward0 keeps what
torch's keeps (input, weight, running_mean, running_var, result1 = save_mean, result2 =
save_invstd, training, eps), and the running statistics are written without a version bump."""
import numpy as np
import pytest
import torch as T

import glassgrad as torch

# (name, shape made, then viewed): every layout torch's CPU batch_norm distinguishes
EXACT = [
    ("contiguous", (4, 3, 5, 6), lambda t: t),
    ("channels_last", (4, 5, 6, 3), lambda t: t.permute(0, 3, 1, 2)),
    ("channels_last_3d", (2, 3, 4, 5, 6), lambda t: t.permute(0, 4, 1, 2, 3)),
    ("channels_last_1x1", (4, 1, 2, 3), lambda t: t.permute(0, 3, 1, 2)),
    ("NC", (37, 3), lambda t: t),
    ("NC11", (40, 6, 1, 1), lambda t: t),
]
STRIDED = [
    ("spatial_permuted", (4, 3, 6, 5), lambda t: t.permute(0, 1, 3, 2)),
    ("batch_and_channel_swapped", (3, 4, 5, 6), lambda t: t.permute(1, 0, 2, 3)),
    ("sliced_width", (4, 3, 5, 12), lambda t: t[..., ::2]),
    ("sliced_channels", (4, 6, 5, 6), lambda t: t[:, 1:4]),
    ("1d_channels_last", (40, 6, 5), lambda t: t.permute(0, 2, 1)),
    ("transposed_2d", (3, 17), lambda t: t.t()),
    ("sliced_rows", (64, 9), lambda t: t[::2]),
]


def data(shape, dtype):
    rng = np.random.default_rng(abs(hash(shape)) % 2**32)
    return (rng.standard_normal(shape) * 3 + 1).astype(dtype)


def run(lib, a, view, training, affine=True):
    """The input made as ``view`` says, its batch_norm output, running statistics and the
    node's save_mean / save_invstd."""
    x = view(lib.tensor(a)).requires_grad_()
    c = x.shape[1]
    rm = lib.linspace(-1, 1, c, dtype=x.dtype)
    rv = lib.linspace(0.5, 2, c, dtype=x.dtype)
    w = lib.linspace(0.5, 1.5, c, dtype=x.dtype) if affine else None
    b = lib.linspace(-1, 1, c, dtype=x.dtype) if affine else None
    y = lib.nn.functional.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3)
    return x, y, rm, rv


def bits(t):
    return t.detach().numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("name, shape, view", EXACT, ids=[e[0] for e in EXACT])
def test_contiguous_and_channels_last_agree_to_the_bit(name, shape, view, training, dtype):
    a = data(shape, dtype)
    tx, ty, trm, trv = run(T, a, view, training)
    gx, gy, grm, grv = run(torch, a, view, training)
    assert gx.stride() == tx.stride()
    assert np.array_equal(bits(gy), bits(ty))
    assert gy.stride() == ty.stride()       # channels-last in, channels-last out
    assert np.array_equal(bits(grm), bits(trm)) and np.array_equal(bits(grv), bits(trv))
    for saved in ("_saved_result1", "_saved_result2"):
        assert np.array_equal(bits(getattr(gy.grad_fn, saved)), bits(getattr(ty.grad_fn, saved)))
    g = np.linspace(-1, 1, a.size).astype(dtype).reshape(ty.shape)
    ty.backward(T.tensor(g))
    gy.backward(torch.tensor(g))
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("name, shape, view", STRIDED, ids=[e[0] for e in STRIDED])
def test_other_layouts_take_torchs_strided_path(name, shape, view, training, dtype):
    """Close, not equal: torch's mean (torch.mean) adds in another order, and in eval mode
    its 1 / sqrt(running_var + eps) is taken by its vectorised float sqrt, which is not
    always correctly rounded."""
    a = data(shape, dtype)
    tx, ty, trm, trv = run(T, a, view, training)
    gx, gy, grm, grv = run(torch, a, view, training)
    assert gy.stride() == ty.stride()       # a contiguous output, as torch's
    tol = dict(rtol=4 * np.finfo(dtype).eps, atol=4 * np.finfo(dtype).eps)
    np.testing.assert_allclose(bits(gy), bits(ty), **tol)
    np.testing.assert_allclose(bits(grm), bits(trm), **tol)
    np.testing.assert_allclose(bits(grv), bits(trv), **tol)
    np.testing.assert_allclose(bits(gy.grad_fn._saved_result1),
                               bits(ty.grad_fn._saved_result1), **tol)


def test_strided_path_is_torchs_arithmetic_after_the_mean():
    """Given torch's mean, the strided path's deviations (summed in double, in memory order),
    inverse standard deviation, output and running statistics are torch's to the last bit."""
    from glassgrad.backend.kernels import batch_norm as kernel
    for _, shape, view in STRIDED:
        for dtype in (np.float32, np.float64):
            a = data(shape, dtype)
            tx, ty, trm, trv = run(T, a, view, True)
            x = view(torch.tensor(a))._data
            c = x.shape[1]
            mean = bits(ty.grad_fn._saved_result1)
            var_sum = kernel.strided_var_sum(x, mean)
            invstd = kernel.invstd(var_sum, x.size // c, 1e-5, x.dtype)
            assert np.array_equal(invstd, bits(ty.grad_fn._saved_result2))
            w, b = np.linspace(0.5, 1.5, c, dtype=dtype), np.linspace(-1, 1, c, dtype=dtype)
            assert np.array_equal(kernel.normalise(x, mean, invstd, w, b), bits(ty))
            new = kernel.running(mean, var_sum, x.size // c, np.linspace(-1, 1, c, dtype=dtype),
                                 np.linspace(0.5, 2, c, dtype=dtype), 0.3)
            assert np.array_equal(new[0], bits(trm)) and np.array_equal(new[1], bits(trv))


# -- the node ----------------------------------------------------------------------------------
def saved_of(node):
    return {a: getattr(node, a) for a in dir(node) if a.startswith("_saved_")}


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("stats", [True, False])
def test_node_saves_what_torchs_saves(training, affine, stats):
    if not training and not stats:
        return      # eval mode needs running statistics (refused alike, tested elsewhere)
    out = {}
    for lib in (T, torch):
        lib.manual_seed(0)
        bn = lib.nn.BatchNorm2d(3, affine=affine, track_running_stats=stats)
        bn.train(training)
        x = lib.tensor(data((2, 3, 4, 4), np.float32), requires_grad=True)
        y = bn(x)
        saved = saved_of(y.grad_fn)
        out[lib] = saved, bn, x
    (ts, _, _), (gs, gbn, gx) = out[T], out[torch]
    assert sorted(gs) == sorted(ts)
    for name, tv in ts.items():
        gv = gs[name]
        if isinstance(tv, T.Tensor):
            assert isinstance(gv, torch.Tensor), name
            assert (list(gv.shape), str(gv.dtype)) == (list(tv.shape), str(tv.dtype)), name
            assert np.array_equal(bits(gv), bits(tv)), name
        else:
            assert gv == tv, name
    assert gs["_saved_input"].data_ptr() == gx.data_ptr()
    if stats:       # the buffers themselves, not copies
        assert gs["_saved_running_mean"].data_ptr() == gbn.running_mean.data_ptr()
        assert gs["_saved_running_var"].data_ptr() == gbn.running_var.data_ptr()


def test_running_statistics_are_written_without_a_version_bump():
    versions, outcomes = {}, {}
    for lib in (T, torch):
        bn = lib.nn.BatchNorm1d(3)
        x = lib.ones(4, 3, requires_grad=True) * lib.arange(4.0)[:, None]
        before = bn.running_mean._version
        bn(x)
        versions[lib] = (before, bn.running_mean._version, bn.running_var._version,
                         bn.num_batches_tracked._version)
        bn.eval()
        y = bn(x)               # saves the running statistics
        bn.train()
        bn(x)                   # updates them in place: no bump, so y's backward still runs
        y.sum().backward()
        bn.eval()
        y = bn(x)
        with lib.no_grad():
            bn.running_var.add_(1)      # a real in-place op: bumped, the backward refuses
        try:
            y.sum().backward()
            outcomes[lib] = None
        except RuntimeError as e:
            outcomes[lib] = str(e).replace("glassgrad.", "torch.")
    assert versions[torch] == versions[T]
    assert outcomes[torch] == outcomes[T] is not None
