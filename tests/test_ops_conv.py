"""Convolution and pooling (glassgrad/ops/conv.py) beyond their op-table cases (opinfo.py, run
by test_op_table.py): every saved attribute, the 'same'-padding warning, the namespaces, values
without gradients and errors, against torch. torch computes every expectation."""
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from opinfo import B, F, W
from optable import assert_same, check_error, outcome

# (the op-table cases are in opinfo.py; test_op_table.py runs them)


# -- everything the nodes save -----------------------------------------------------------------
SAVED_PROGRAMS = {
    "conv2d": lambda t, x, w, b: F(t).conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)),
    "conv2d-nobias": lambda t, x, w, b: F(t).conv2d(x, w),
    "conv2d-valid": lambda t, x, w, b: F(t).conv2d(x, w, padding="valid"),
    "conv2d-same": lambda t, x, w, b: F(t).conv2d(x, w[..., :1], b, padding="same"),
    "conv2d-list1": lambda t, x, w, b: F(t).conv2d(x, w, b, stride=[2], padding=[1]),
    "conv2d-x-only": lambda t, x, w, b: F(t).conv2d(x, w.detach(), b.detach()),
    "conv2d-w-only": lambda t, x, w, b: F(t).conv2d(x.detach(), w),
    "conv1d": lambda t, x, w, b: F(t).conv1d(x[:, :, 0], w[..., 0], b, groups=1),
    "max_pool2d": lambda t, x, w, b: F(t).max_pool2d(x, 2),
    "max_pool2d-args": lambda t, x, w, b: F(t).max_pool2d(x, (3, 2), (2, 1), 1, 1, True),
    "max_pool2d-list": lambda t, x, w, b: F(t).max_pool2d(x, [2], [1], [1], [1]),
    "max_pool2d-top": lambda t, x, w, b: t.max_pool2d(x, 3, 2),
    "avg_pool2d": lambda t, x, w, b: F(t).avg_pool2d(x, 2),
    "avg_pool2d-args": lambda t, x, w, b: F(t).avg_pool2d(x, (3, 2), [1], 1, True, False, 2),
}


def _saved(node):
    out = {}
    for name in dir(node):
        if name.startswith("_saved_"):
            out[name] = outcome(lambda: getattr(node, name))
    return out


@pytest.mark.parametrize("program", SAVED_PROGRAMS.values(), ids=SAVED_PROGRAMS.keys())
def test_saved_attributes(program):
    """Every _saved_* attribute torch's node has, with its value, on the node and on the node
    of its first-order gradient (create_graph=True)."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in ((2, 3, 7, 6), W, B)]
    nodes = []
    for lib in (torch, gg):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in arrays)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = program(lib, x, w, b)
        g = lib.autograd.grad(out.sum(), (x, w, b), create_graph=True, allow_unused=True)
        nodes.append((out.grad_fn, g))
    (t_node, t_g), (g_node, g_g) = nodes
    assert type(g_node).__name__ == type(t_node).__name__
    t_saved, g_saved = _saved(t_node), _saved(g_node)
    assert sorted(g_saved) == sorted(t_saved)
    for name, (ref, ref_err) in t_saved.items():
        got, got_err = g_saved[name]
        assert got_err == ref_err, name
        if isinstance(ref, torch.Tensor):
            assert_same(ref, got, name)
        else:
            assert got == ref, name
    for t, g in zip(t_g, g_g):
        assert (g is None) == (t is None)
        if t is not None:
            assert g.requires_grad == t.requires_grad
            assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__


def test_same_padding_warns_for_even_kernels():
    """torch warns once per process (TORCH_WARN_ONCE): a fresh process of each warns once for
    two calls; set_warn_always(True) warns for each."""
    def program(lib):
        return (f"import warnings, {lib}; warnings.simplefilter('always')\n"
                "with warnings.catch_warnings(record=True) as w:\n"
                f"    for always in (False, True):\n"
                f"        {lib}.set_warn_always(always)\n"
                f"        for _ in range(2):\n"
                f"            {lib}.nn.functional.conv2d({lib}.ones(1, 1, 4, 4), "
                f"{lib}.ones(1, 1, 2, 2), padding='same')\n"
                f"        {lib}.nn.functional.conv2d({lib}.ones(1, 1, 4, 4), "
                f"{lib}.ones(1, 1, 3, 3), padding='same')\n"
                "print([(w.category.__name__, str(w.message)) for w in w])")
    ref, got = (subprocess.run([sys.executable, "-c", program(lib)], capture_output=True,
                               text=True, check=True).stdout for lib in ("torch", "glassgrad"))
    assert got == ref and ref.count("Using padding='same'") == 3


def test_namespaces():
    """Each name lives where torch has it: top level, Tensor method, nn.functional."""
    for name in ("conv1d", "conv2d", "conv3d", "max_pool2d", "max_pool2d_with_indices",
                 "avg_pool2d"):
        assert hasattr(gg, name) == hasattr(torch, name), name
        assert hasattr(gg.Tensor, name) == hasattr(torch.Tensor, name), name
        assert hasattr(F(gg), name) == hasattr(F(torch), name), name


# -- values without gradients --------------------------------------------------------------
def _nan_grid(t):
    x = t.arange(16.).view(1, 1, 4, 4)
    x[0, 0, 1, 0] = x[0, 0, 0, 3] = x[0, 0, 1, 2] = float("nan")
    x[0, 0, 3, 3] = float("-inf")
    return x


VALUES = {
    "conv_int": lambda t: F(t).conv2d(t.arange(32).view(1, 2, 4, 4), t.ones(3, 2, 2, 2,
                                                                           dtype=t.int64)),
    "conv_empty_batch": lambda t: F(t).conv2d(t.ones(0, 3, 5, 5), t.ones(4, 3, 3, 3)),
    "conv_zero_out_channels": lambda t: F(t).conv2d(t.ones(2, 3, 5, 5), t.ones(0, 3, 3, 3)),
    "conv_empty_batch_dtypes": lambda t: F(t).conv2d(t.ones(0, 3, 5, 5), t.ones(
        4, 3, 3, 3, dtype=t.float64)),
    "pool_int": lambda t: F(t).max_pool2d(t.arange(50).view(2, 5, 5) % 7, 2, 1, 1,
                                          return_indices=True),
    "pool_nan": lambda t: F(t).max_pool2d(_nan_grid(t), 2, return_indices=True),
    "pool_nan_overlap": lambda t: F(t).max_pool2d(_nan_grid(t), 3, 1, 1, return_indices=True),
    "pool_neg_inf_ceil": lambda t: F(t).max_pool2d(-_nan_grid(t).nan_to_num(posinf=1e9) * 0 -
                                                   float("inf"), 3, 2, ceil_mode=True,
                                                   return_indices=True),
    "pool_ties_zero_sign": lambda t: F(t).max_pool2d(t.tensor([[[0., -0.], [-0., 0.]]]), 2,
                                                     return_indices=True),
    "pool_neg_inf_padding": lambda t: F(t).max_pool2d(t.full((1, 1, 3, 3), float("-inf")), 3,
                                                      2, 1, return_indices=True),
    "pool_empty_batch": lambda t: F(t).max_pool2d(t.ones(0, 2, 4, 4), 2),
    "avg_pool_int": lambda t: F(t).avg_pool2d(t.arange(-25, 25).view(2, 5, 5), 2, 1, 1),
    "avg_pool_int_exclude": lambda t: F(t).avg_pool2d(t.arange(-25, 25).view(2, 5, 5) * 3, 3, 2,
                                                      1, True, False),
    "avg_pool_empty_batch": lambda t: F(t).avg_pool2d(t.ones(0, 2, 4, 4), 2),
    "pool_padding_dilated": lambda t: F(t).max_pool2d(t.arange(50.).view(2, 5, 5), 2, padding=1,
                                                      dilation=2, return_indices=True),
    # stride 1 forwards on either side of _flat_pays (the row layout, the flat planes)
    "conv_more_channels_than_rows": lambda t: F(t).conv2d(
        t.arange(2 * 6 * 7.).view(2, 1, 6, 7).sin(), t.arange(16 * 9.).view(16, 1, 3, 3).cos(),
        t.arange(16.), padding=1),
    "conv_flat_planes": lambda t: F(t).conv2d(
        t.arange(2 * 4 * 6 * 7.).view(2, 4, 6, 7).sin(),
        t.arange(8 * 4 * 9.).view(8, 4, 3, 3).cos(), t.arange(8.), padding=(1, 0),
        dilation=(1, 2)),
    "conv_many_channels": lambda t: F(t).conv2d(
        t.arange(2 * 64 * 64.).view(2, 64, 8, 8).sin(),
        t.arange(64 * 64 * 9.).view(64, 64, 3, 3).cos() / 24, padding=1),
    # many ties: the first position holding the maximum, whatever the window's shape
    "pool_ties": lambda t: F(t).max_pool2d(_ties(t), 2, return_indices=True),
    "pool_ties_overlap": lambda t: F(t).max_pool2d(_ties(t), (3, 2), (2, 1), 1,
                                                   ceil_mode=True, return_indices=True),
    "pool_ties_big_kernel": lambda t: F(t).max_pool2d(_ties(t), (7, 8), 1,
                                                      return_indices=True),
    "pool_wide_kernel": lambda t: F(t).max_pool2d(t.arange(289.).view(1, 17, 17).cos(),
                                                  (16, 17), 1, return_indices=True),
}


def _ties(t):
    return t.arange(2 * 3 * 7 * 8.).view(2, 3, 7, 8) * 7 % 5


@pytest.mark.parametrize("f", VALUES.values(), ids=VALUES.keys())
def test_values(f):
    ref, ref_err = outcome(lambda: f(torch))
    got, got_err = outcome(lambda: f(gg))
    assert got_err == ref_err
    for r, g in zip(ref if isinstance(ref, tuple) else (ref,),
                    got if isinstance(got, tuple) else (got,)):
        assert_same(r, g)


# -- gradients at non-finite values ----------------------------------------------------------
def _nonfinite(t, where):
    x = t.arange(2 * 2 * 5 * 6.).view(2, 2, 5, 6).cos()
    w = t.arange(3 * 2 * 3 * 3.).view(3, 2, 3, 3).sin()
    (x if where == "x" else w)[0, 1, 0, 2] = float("inf")
    (x if where == "x" else w)[-1, 0, -1, 0] = float("nan")
    return x.requires_grad_(), w.requires_grad_()


NONFINITE = {
    "weight": lambda t: F(t).conv2d(*_nonfinite(t, "w")),
    "input": lambda t: F(t).conv2d(*_nonfinite(t, "x")),
    "weight_padded_dilated": lambda t: F(t).conv2d(*_nonfinite(t, "w"), padding=2,
                                                   dilation=(1, 2)),
    "transposed_weight": lambda t: F(t).conv_transpose2d(*(
        v.transpose(0, 1).detach().requires_grad_() for v in _nonfinite(t, "w"))),
}


@pytest.mark.parametrize("f", NONFINITE.values(), ids=NONFINITE.keys())
def test_nonfinite_gradients(f):
    """inf and NaN reach the positions that read them, and no other (the stride-1 input
    gradient's wide-row columns must not carry them)."""
    grads = []
    for lib in (torch, gg):
        out = f(lib)
        out.backward(lib.ones_like(out))
        leaves = [t for t in out.grad_fn.next_functions if t[0] is not None]
        grads.append([n.variable.grad for n, _ in leaves])
    for r, g in zip(*grads):
        assert_same(r, g)


# -- errors ----------------------------------------------------------------------------------
def _T(t, *s, **kw):
    return t.ones(*s, **kw)


def _conv(t, x, w, b=None, **kw):
    return F(t).conv2d(_T(t, *x), _T(t, *w), None if b is None else _T(t, *b), **kw)


def _pool(t, x, *args, **kw):
    return F(t).max_pool2d(_T(t, *x), *args, **kw)


ERRORS = {
    "conv_2d_input": lambda t: _conv(t, (2, 3), (4, 3, 3, 3)),
    "conv_5d_input": lambda t: _conv(t, (1, 2, 3, 5, 5), (4, 3, 3, 3)),
    "conv1d_4d_input": lambda t: F(t).conv1d(_T(t, 2, 3, 5, 5), _T(t, 4, 3, 3)),
    "conv_w3d": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3)),
    "conv_channels": lambda t: _conv(t, (2, 5, 5, 5), (4, 3, 3, 3)),
    "conv_channels_unbatched": lambda t: _conv(t, (5, 5, 5), (4, 3, 3, 3)),
    "conv_kernel_big": lambda t: _conv(t, (2, 3, 2, 2), (4, 3, 3, 3)),
    "conv_kernel_big_dilation": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), dilation=3),
    "conv_neg_padding": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), padding=-1),
    "conv_zero_stride": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), stride=0),
    "conv_neg_stride": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), stride=(1, -1)),
    "conv_zero_dilation": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), dilation=0),
    "conv_zero_groups": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), groups=0),
    "conv_groups_weight": lambda t: _conv(t, (2, 2, 5, 5), (3, 1, 3, 3), groups=2),
    "conv_groups_channels": lambda t: _conv(t, (2, 3, 5, 5), (4, 1, 3, 3), groups=2),
    "conv_bias_size": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), (5,)),
    "conv_bias_2d": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), (4, 1)),
    "conv_dtype": lambda t: F(t).conv2d(_T(t, 2, 3, 5, 5, dtype=t.float64), _T(t, 4, 3, 3, 3)),
    "conv_dtype_bias": lambda t: F(t).conv2d(_T(t, 2, 3, 5, 5), _T(t, 4, 3, 3, 3),
                                             _T(t, 4, dtype=t.float64)),
    "conv_dtype_weight": lambda t: F(t).conv2d(_T(t, 2, 3, 5, 5), _T(t, 4, 3, 3, 3,
                                                                     dtype=t.float64)),
    "conv_dtype_weight_f64": lambda t: F(t).conv2d(_T(t, 2, 3, 5, 5, dtype=t.float64),
                                                   _T(t, 4, 3, 3, 3, dtype=t.float16)),
    "conv_dtype_both": lambda t: F(t).conv2d(_T(t, 2, 3, 5, 5), _T(t, 4, 3, 3, 3,
                                                                   dtype=t.float64),
                                             _T(t, 4, dtype=t.float64)),
    "conv_same_strided": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), padding="same",
                                         stride=2),
    "conv_bad_padding_str": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), padding="full"),
    "conv_stride_len": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), stride=(1, 1, 1)),
    "conv_padding_len": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), padding=(1, 1, 1)),
    "conv_dilation_len": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), dilation=(1, 1, 1)),
    "conv_order_groups_padding": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), groups=0,
                                                 padding=-1),
    "conv_order_padding_stride": lambda t: _conv(t, (2, 3, 5, 5), (4, 3, 3, 3), stride=0,
                                                 padding=-1),
    "conv_order_channels_kernel": lambda t: _conv(t, (2, 5, 2, 2), (4, 3, 3, 3)),
    "conv_order_dtype_channels": lambda t: F(t).conv2d(_T(t, 2, 5, 5, 5, dtype=t.float64),
                                                       _T(t, 4, 3, 3, 3)),
    "conv_order_bias_kernel": lambda t: _conv(t, (2, 3, 2, 2), (4, 3, 3, 3), (5,)),
    "pool_2d_input": lambda t: _pool(t, (2, 3), 2),
    "pool_kernel_0": lambda t: _pool(t, (2, 3, 5, 5), 0),
    "pool_kernel_0_stride": lambda t: _pool(t, (2, 3, 5, 5), 0, 1),
    "pool_stride_0": lambda t: _pool(t, (2, 3, 5, 5), 2, 0),
    "pool_stride_neg": lambda t: _pool(t, (2, 3, 5, 5), 2, -1),
    "pool_padding_big": lambda t: _pool(t, (2, 3, 5, 5), 2, padding=2),
    "pool_padding_neg": lambda t: _pool(t, (2, 3, 5, 5), 2, padding=-1),
    "pool_padding_dilated_big": lambda t: _pool(t, (2, 3, 5, 5), 2, padding=2, dilation=2),
    "pool_dilation_0": lambda t: _pool(t, (2, 3, 5, 5), 2, dilation=0),
    "pool_too_small": lambda t: _pool(t, (2, 3, 1, 1), 3),
    "pool_kernel_3": lambda t: _pool(t, (2, 3, 5, 5), (2, 2, 2)),
    "pool_stride_3": lambda t: _pool(t, (2, 3, 5, 5), 2, (1, 1, 1)),
    "pool_padding_3": lambda t: _pool(t, (2, 3, 5, 5), 2, 1, (0, 0, 0)),
    "pool_dilation_3": lambda t: _pool(t, (2, 3, 5, 5), 2, 1, 0, (1, 1, 1)),
    "pool_empty_channels": lambda t: _pool(t, (2, 0, 5, 5), 2),
    "pool_empty_3d": lambda t: _pool(t, (0, 5, 5), 2),
    "pool_top_kernel_0": lambda t: t.max_pool2d(_T(t, 2, 3, 5, 5), 0),
    "pool_top_with_indices": lambda t: F(t).max_pool2d_with_indices(_T(t, 3, 5), 2),
    "avg_1d": lambda t: F(t).avg_pool2d(_T(t, 3), 2),
    "avg_2d": lambda t: F(t).avg_pool2d(_T(t, 2, 3), 2),
    "avg_5d": lambda t: F(t).avg_pool2d(_T(t, 1, 2, 3, 4, 4), 2),
    "avg_kernel_0": lambda t: F(t).avg_pool2d(_T(t, 2, 3, 5, 5), 0),
    "avg_kernel_0_stride": lambda t: F(t).avg_pool2d(_T(t, 2, 3, 5, 5), 0, 1),
    "avg_kernel_3": lambda t: F(t).avg_pool2d(_T(t, 2, 3, 5, 5), (2, 2, 2)),
    "avg_stride_3": lambda t: F(t).avg_pool2d(_T(t, 2, 3, 5, 5), 2, (1, 1, 1)),
    "avg_padding_3": lambda t: F(t).avg_pool2d(_T(t, 2, 3, 5, 5), 2, 1, (0, 0, 0)),
    "avg_padding_big": lambda t: F(t).avg_pool2d(_T(t, 2, 3, 5, 5), 2, padding=2),
    "avg_padding_neg": lambda t: F(t).avg_pool2d(_T(t, 2, 3, 5, 5), 2, padding=-1),
    "avg_divisor_0": lambda t: F(t).avg_pool2d(_T(t, 2, 3, 5, 5), 2, divisor_override=0),
    "avg_too_small": lambda t: F(t).avg_pool2d(_T(t, 2, 3, 1, 1), 3),
    "avg_empty_channels": lambda t: F(t).avg_pool2d(_T(t, 2, 0, 5, 5), 2),
}


@pytest.mark.parametrize("f", ERRORS.values(), ids=ERRORS.keys())
def test_errors(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(f)


# -- max_pool2d where no node is recorded: the maximum alone ---------------------------------
POOL_INPUTS = {
    "nan": (_nan_grid, (2,), {}),
    "nan_overlap_padded": (_nan_grid, (3, 1, 1), {}),
    "ties_zero_sign": (lambda t: t.tensor([[[0., -0.], [-0., 0.]]]), (2,), {}),
    "neg_inf_padding": (lambda t: t.full((1, 1, 3, 3), float("-inf")), (3, 2, 1), {}),
    "ties_ceil": (_ties, ((3, 2), (2, 1), 1), {"ceil_mode": True}),
    "int_dilated": (lambda t: t.arange(50).view(2, 5, 5) % 7, (2,), {"padding": 1,
                                                                     "dilation": 2}),
    "float16": (lambda t: _ties(t).half() - 2, (3, 1, 1), {}),
}


@pytest.mark.parametrize("mode", ["no_grad", "nothing_requires_grad", "inference_mode"])
@pytest.mark.parametrize("case", POOL_INPUTS)
def test_max_pool2d_values_alone(case, mode):
    """F.max_pool2d and torch.max_pool2d without indices where no node is recorded: torch's
    values, dtype, strides; bit for bit the values the row (with its indices) gives."""
    make, args, kwargs = POOL_INPUTS[case]

    def program(t):
        x = make(t)
        ctx = {"no_grad": t.no_grad, "inference_mode": t.inference_mode,
               "nothing_requires_grad": t.enable_grad}[mode]
        with ctx():
            outs = [t.nn.functional.max_pool2d(x, *args, **kwargs),
                    t.max_pool2d(x, *args, **kwargs)]
            with_indices = t.nn.functional.max_pool2d(x, *args, return_indices=True, **kwargs)
        return outs, with_indices[0]
    (ref, _), (got, row) = program(torch), program(gg)
    for r, g in zip(ref, got):
        assert g.grad_fn is None and g.stride() == r.stride()
        assert g.is_inference() == r.is_inference()
        assert_same(r, g)
        assert g.numpy().tobytes() == row.numpy().tobytes()


def test_max_pool2d_values_alone_not_under_an_interceptor():
    """Under vmap (and forward AD) the row runs as before."""
    def program(t):
        x = _ties(t)
        out = t.func.vmap(lambda v: t.nn.functional.max_pool2d(v, 2))(x)
        primal, tangent = t.func.jvp(lambda v: t.nn.functional.max_pool2d(v, 2), (x,),
                                     (t.ones_like(x),))
        return out, primal, tangent
    for r, g in zip(program(torch), program(gg)):
        assert_same(r, g)
