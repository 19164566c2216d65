"""In-place ops on views (CopySlices, regenerated view grad_fns) and their refusals, each
program run in torch and glassgrad (differential.same compares values, grads, errors)."""
import pytest
import torch

import glassgrad as gg
from differential import catch, same


def fn_name(t):
    return type(t.grad_fn).__name__


def report(t, x, *views):
    """What an in-place on a view leaves behind, and the gradients through it."""
    out = {"x_fn": fn_name(x), "views": [fn_name(v) for v in views],
           "version": [x._version, *(v._version for v in views)], "x": x}
    return out


def run_backward(t, w, *outs):
    loss = sum((o * t.arange(o.numel(), dtype=o.dtype).reshape(o.shape)).sum() for o in outs)
    loss.backward()
    return w.grad


def program(prepare, modify, *, source_grad=True):
    """prepare(t, x) -> views; modify(t, x, w, views) writes into a view; base x = w * 1 (or
    zeros with the source w entering through the in-place op)."""
    def run(t):
        w = t.linspace(-1, 1, 12, dtype=t.float64).reshape(3, 4).requires_grad_()
        x = w * 1 if source_grad else t.zeros(3, 4, dtype=t.float64)
        views = prepare(t, x)
        err = catch(modify, t, x, w, views)
        if err is not None and type(err).__name__ == "Raised":
            return err
        return {**report(t, x, *views), "grad": run_backward(t, w, x, *views)}
    return run


VIEWS = {
    "select": lambda t, x: [x[0]],
    "slice": lambda t, x: [x[1:, ::2]],
    "select_dim1": lambda t, x: [x.select(1, 2)],
    "transpose": lambda t, x: [x.t()],
    "view": lambda t, x: [x.view(12)],
    "view_of_view": lambda t, x: [x.view(12)[2:7]],
    "transpose_of_slice": lambda t, x: [x[:, 1:].t()],
    "unsqueeze_squeeze": lambda t, x: [x.unsqueeze(0).squeeze(0)[1]],
    "siblings": lambda t, x: [x[0], x[1:], x.t()],
    "expand": lambda t, x: [x[0:1].expand(3, 4)],
    "flatten": lambda t, x: [x.flatten()],
}
MODIFY = {
    "mul_scalar": lambda t, x, w, v: v[0].mul_(2),
    "mul_source": lambda t, x, w, v: v[0].mul_(w[0, 0]),
    "exp_": lambda t, x, w, v: v[0].exp_(),
    "add_source": lambda t, x, w, v: v[0].add_(w.sum()),
    "copy_": lambda t, x, w, v: v[0].copy_(w.sum() * 2),
    "twice": lambda t, x, w, v: v[0].mul_(w[1, 1]).add_(1),
    "zero_": lambda t, x, w, v: v[0].zero_(),
}


@pytest.mark.parametrize("modify", MODIFY.values(), ids=MODIFY.keys())
@pytest.mark.parametrize("prepare", VIEWS.values(), ids=VIEWS.keys())
def test_inplace_on_view_of_non_leaf(prepare, modify):
    same(program(prepare, modify))


@pytest.mark.parametrize("modify", ["mul_source", "add_source", "copy_", "twice"])
@pytest.mark.parametrize("prepare", ["select", "slice", "transpose", "view_of_view",
                                     "siblings"])
def test_base_without_grad_source_with(prepare, modify):
    same(program(VIEWS[prepare], MODIFY[modify], source_grad=False))


def test_base_without_grad_modified_directly():
    def run(t):
        w = t.ones(4, requires_grad=True)
        x = t.zeros(3, 4)
        v, u = x[0], x[1:]
        x.mul_(w)
        return fn_name(x), fn_name(v), fn_name(u), v.requires_grad, run_backward(t, w, v, u)
    same(run)


def test_base_modified_under_no_grad_regenerates_views():
    def run(t):
        w = t.ones(3, 4, requires_grad=True)
        x = w * 2
        v, tv = x[1], x.t()
        names = [fn_name(v), fn_name(tv)]
        with t.no_grad():
            x.add_(1)
        names += [fn_name(v), fn_name(tv), v._version]
        return names, run_backward(t, w, v, tv)
    same(run)


def test_view_grad_fn_after_sibling_inplace():
    def run(t):
        w = t.ones(3, 4, requires_grad=True)
        x = w.exp()
        a, b = x[0], x[1]
        a.mul_(2)
        return fn_name(b), b.grad_fn.next_functions[0][0].name(), run_backward(t, w, a, b, x)
    same(run)


def test_double_backward_through_copy_slices():
    def run(t):
        w = t.tensor([1.0, 2.0, 3.0], dtype=t.float64, requires_grad=True)
        x = w * w
        x[1:].mul_(w[:2])
        g, = t.autograd.grad(x.sum(), w, create_graph=True)
        g2, = t.autograd.grad((g * g).sum(), w)
        return g, g2
    same(run)


def test_setitem_on_non_leaf():
    def run(t):
        w = t.ones(3, 4, requires_grad=True)
        x = w * 3
        x[1] = w[0] * 5
        x[:, 2] = 0
        return fn_name(x), x._version, run_backward(t, w, x)
    same(run)


def test_backward_twice_frees_copy_slices():
    def run(t):
        w = t.ones(3, requires_grad=True)
        x = w * 1
        x[0].mul_(w[1])
        x.sum().backward()
        return catch(lambda: x.sum().backward())
    same(run)


# -- refusals --------------------------------------------------------------------------------
ERRORS = {
    "view_of_leaf": lambda t, w: w[0].mul_(2),
    "expand": lambda t, w: (w * 1)[0:1].expand(3, 4).mul_(2),
    "unbind": lambda t, w: (w * 1).unbind()[0].mul_(2),
    "unbind_second": lambda t, w: (w * 1).unbind(1)[2].add_(1),
    "split": lambda t, w: (w * 1).split(2)[1].mul_(2),
    "split_sizes": lambda t, w: (w * 1).split([1, 2])[0].mul_(2),
    "chunk": lambda t, w: (w * 1).chunk(2, 1)[0].mul_(2),
    "unbind_base_no_grad": lambda t, w: t.zeros(3, 4).unbind()[0].mul_(w[0]),
    "view_of_unbind": lambda t, w: (w * 1).unbind()[0][1:].mul_(2),
    "detach_": lambda t, w: (w * 1)[0].detach_(),
}


def _no_grad_view(t, w, base, modify):
    x = base(t, w)
    with t.no_grad():
        v = x[0]
    return modify(t, v, w)


ERRORS.update({
    "no_grad_view_of_leaf": lambda t, w: _no_grad_view(
        t, w, lambda t, w: w, lambda t, v, w: v.mul_(2)),
    "no_grad_view_of_non_leaf": lambda t, w: _no_grad_view(
        t, w, lambda t, w: w * 1, lambda t, v, w: v.mul_(2)),
    "no_grad_view_source_grad": lambda t, w: _no_grad_view(
        t, w, lambda t, w: t.zeros(3, 4), lambda t, v, w: v.mul_(w[0])),
})


@pytest.mark.parametrize("case", ERRORS.values(), ids=ERRORS.keys())
def test_refusals(case):
    def run(t):
        w = t.ones(3, 4, requires_grad=True)
        return case(t, w)
    assert type(same(run)).__name__ == "Raised"


LAZY = {
    "unbind": lambda t, x: x.unbind(),
    "split": lambda t, x: x.split(2),
    "chunk": lambda t, x: x.chunk(2, 1),
    "split_sizes": lambda t, x: x.split([2, 1]),
}


@pytest.mark.parametrize("no_grad", [False, True])
@pytest.mark.parametrize("make", LAZY.values(), ids=LAZY.keys())
def test_multi_view_grad_fn_after_base_modified(make, no_grad):
    def run(t):
        w = t.ones(3, 4, requires_grad=True)
        x = w * 1
        outs = make(t, x)
        if no_grad:
            with t.no_grad():
                x.mul_(2)
        else:
            x.mul_(2)
        return catch(lambda: outs[0].grad_fn), catch(lambda: outs[-1].sum().backward())
    same(run)


def test_no_grad_view_grad_fn_after_base_modified():
    def run(t):
        w = t.ones(3, 4, requires_grad=True)
        x = w * 1
        with t.no_grad():
            v = x[0]
        before = v.grad_fn
        x.mul_(2)
        return before, catch(lambda: v.grad_fn)
    same(run)


def test_no_grad_view_modified_under_no_grad():
    def run(t):
        w = t.ones(3, 4, requires_grad=True)
        x = w * 1
        with t.no_grad():
            v = x[0]
            v.mul_(2)
        return x._version, fn_name(x), run_backward(t, w, x)
    same(run)


def test_multi_view_modified_under_no_grad_then_base_used():
    def run(t):
        w = t.ones(3, 4, requires_grad=True)
        x = w * 1
        a, b, c = x.unbind()
        with t.no_grad():
            a.mul_(2)
        return fn_name(x), run_backward(t, w, x), catch(lambda: b.grad_fn)
    same(run)


def test_int_views_have_no_grad_meta():
    def run(t):
        x = t.arange(12).reshape(3, 4)
        a = x.unbind()[0]
        a.add_(1)
        return x, a._version, a.grad_fn
    same(run)


# -- in-place view ops: self takes new geometry, the version moves, history gains a node ---------
VIEW_INPLACE = {
    "squeeze_dims": lambda y: y.squeeze_((0, 2)), "squeeze_dim": lambda y: y.squeeze_(0),
    "squeeze_noop": lambda y: y.squeeze_(1), "squeeze_all": lambda y: y.squeeze_(),
    "unsqueeze_": lambda y: y.unsqueeze_(1), "transpose_": lambda y: y.transpose_(0, 2),
    "swapaxes_": lambda y: y.swapaxes_(0, 1), "swapdims_": lambda y: y.swapdims_(2, 1),
    "t_": lambda y: y.squeeze_().unsqueeze_(0).t_(),
}


@pytest.mark.parametrize("name", VIEW_INPLACE)
def test_inplace_view_op(name):
    def program(lib):
        x = lib.ones(1, 3, 1, requires_grad=True)
        y = x * lib.arange(3.0).reshape(1, 3, 1)
        r = VIEW_INPLACE[name](y)
        (r * lib.arange(float(r.numel())).reshape(r.shape)).sum().backward()
        return r is y, r.shape, r.stride(), r._version, type(r.grad_fn).__name__, x.grad
    same(program)


def test_inplace_view_op_errors_and_no_grad():
    def program(lib):
        x = lib.ones(1, 3, 1, requires_grad=True)
        leaf = catch(lambda: x.t_())
        dims = catch(lambda: lib.ones(2, 2, 2).t_())
        with lib.no_grad():
            x.squeeze_()
        z = lib.rand(2, 3) * 1
        v = z[0:1]
        v.t_()
        return leaf, dims, x.shape, x._version, x.is_leaf, v.shape, z._version, v._is_view()
    same(program)


# -- the regenerated AsStridedBackward0 and CopySlices as torch exposes them --------------------
GEOMETRIES = {
    "select": lambda x: x.view(3, 4)[1],
    "strided slice": lambda x: x[2:9:3],
    "transpose": lambda x: x.view(2, 6).t(),
    "block": lambda x: x.view(2, 6)[1:, 2:4],
    "expand": lambda x: x[:1].expand(3, 4)[1:],
    "view of a view": lambda x: x.view(3, 4).t()[2],
}


@pytest.mark.parametrize("view", GEOMETRIES)
def test_as_strided_saved_geometry(view):
    def run(t):
        w = t.arange(12.0, dtype=t.float64, requires_grad=True)
        x = w * 1
        v = GEOMETRIES[view](x)
        x.add_(1)
        fn = v.grad_fn
        saved = (fn._saved_size, fn._saved_stride, fn._saved_storage_offset)
        out = {"name": (type(fn).__name__, fn.name()), "saved": saved,
               "types": [type(s).__name__ for s in saved],
               "listed": sorted(n for n in dir(fn) if n.startswith("_saved_"))}
        v.sum().backward()
        out["after backward"] = fn._saved_size
        out["grad"] = w.grad
        return out
    same(run)


def test_copy_slices_names():
    def run(t):
        w = t.arange(12.0, dtype=t.float64, requires_grad=True)
        x = w * 1
        v = x.view(3, 4)[1]
        v.mul_(2)
        return {"base": (type(x.grad_fn).__name__, x.grad_fn.name()),
                "view": (type(v.grad_fn).__name__, v.grad_fn.name(), v.grad_fn._saved_size),
                "saved": sorted(n for n in dir(x.grad_fn) if n.startswith("_saved_")),
                "repr": repr(x)}
    same(run)


# -- the strides of size-1 dims: torch's view (computeStride) and unsqueeze give their own ------
STRIDES = {
    "view_narrowed": lambda t: t.zeros(1, 4).narrow(1, 0, 1).view(1, -1),
    "view_column": lambda t: t.zeros(2, 3)[:, :1].view(2, 1),
    "view_permuted": lambda t: t.zeros(2, 3, 4).permute(2, 0, 1)[:, :, :1].view(4, 2, 1),
    "view_scalar": lambda t: t.tensor(1.).view(1, 1, 1),
    "view_strided": lambda t: t.zeros(4)[::2].view(2, 1),
    "view_middle": lambda t: t.zeros(5, 1, 3).view(5, 3, 1),
    "view_unsqueezed": lambda t: t.zeros(3, 4)[:, 1].unsqueeze(1).view(3, 1, 1),
    "unsqueeze_end": lambda t: t.zeros(3, 4)[:, 1].unsqueeze(1),
    "unsqueeze_transposed": lambda t: t.zeros(2, 3, 4).transpose(0, 2).unsqueeze(1),
    "unsqueeze_": lambda t: t.zeros(3, 4)[:, 1].unsqueeze_(0),
}


@pytest.mark.parametrize("name", STRIDES)
def test_size_one_strides_are_torchs(name):
    assert STRIDES[name](gg).stride() == STRIDES[name](torch).stride()


def test_partial_overlap_of_differently_strided_views():
    """Two views of one element with other strides overlap partially for torch (found by the
    fuzzer, seed 120)."""
    outcomes = []
    for lib in (torch, gg):
        n = lib.zeros(1, 4).narrow(1, 0, 1)
        try:
            n.add_(n.view(1, -1))
            outcomes.append("accepted")
        except RuntimeError as e:
            outcomes.append(str(e))
    assert outcomes[1] == outcomes[0] != "accepted"
