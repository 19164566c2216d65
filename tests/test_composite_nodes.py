"""The graphs torch builds for aminmax, nanmedian, cov/corrcoef, trapezoid/trapz/
cumulative_trapezoid and combinations (rows or ATen's compositions): the grad_fn chain by
name, values, gradients, errors and warnings, against torch 2.13."""
import warnings

import pytest
import torch

import glassgrad as gg
from differential import assert_same, catch, run

NAN = float("nan")


def same(program):
    expected = run(program, torch)
    assert_same(expected, run(program, gg))


def chain(fn, depth=6):
    """The graph below ``fn`` by node name, ``depth`` levels deep."""
    if fn is None or depth == 0:
        return None
    return fn.name(), [chain(n, depth - 1) for n, _ in fn.next_functions]


def _inputs(t):
    x = t.tensor([[1.0, 5.0, 2.0, 0.25], [NAN, 3.0, 0.5, 3.0], [2.0, 2.0, -1.0, 4.0]],
                 dtype=t.float64, requires_grad=True)
    y = t.tensor([0.5, 1.5, 3.0, 3.5], dtype=t.float64, requires_grad=True)
    return x, y


CASES = {
    "aminmax": lambda t, x, y: tuple(t.aminmax(y)),
    "aminmax_min": lambda t, x, y: t.aminmax(x[:, 1:]).min,
    "aminmax_dim": lambda t, x, y: tuple(t.aminmax(x[:, 1:], dim=1)),
    "aminmax_keepdim": lambda t, x, y: t.aminmax(x[2:], dim=0, keepdim=True).max,
    "aminmax_all_keepdim": lambda t, x, y: tuple(t.aminmax(x[2:], keepdim=True)),
    "aminmax_ties": lambda t, x, y: tuple(t.aminmax(x[2], dim=0)),
    "aminmax_0d": lambda t, x, y: tuple(t.aminmax(y[0], dim=0, keepdim=True)),
    "nanmedian": lambda t, x, y: t.nanmedian(x),
    "nanmedian_dim": lambda t, x, y: tuple(t.nanmedian(x, 1)),
    "nanmedian_keepdim": lambda t, x, y: tuple(x.nanmedian(0, keepdim=True)),
    "nanmedian_all_nan": lambda t, x, y: t.nanmedian(x[1:2, :1] * 1),
    "cov": lambda t, x, y: t.cov(x[:, 1:]),
    "cov_1d": lambda t, x, y: t.cov(y),
    "cov_correction": lambda t, x, y: t.cov(x[:, 1:], correction=0),
    "cov_aweights": lambda t, x, y: t.cov(x[:, 1:], aweights=y[1:]),
    "cov_fweights": lambda t, x, y: t.cov(x[:, 1:], fweights=t.tensor([1, 2, 3])),
    "cov_both": lambda t, x, y: t.cov(x[:, 1:], correction=2, fweights=t.tensor([1, 2, 3]),
                                      aweights=y[1:]),
    "cov_method": lambda t, x, y: x[2:].cov(),
    "corrcoef": lambda t, x, y: t.corrcoef(x[:, 1:]),
    "corrcoef_1d": lambda t, x, y: t.corrcoef(y),
    "trapezoid": lambda t, x, y: t.trapezoid(x),
    "trapezoid_x": lambda t, x, y: t.trapezoid(x, y),
    "trapezoid_dx": lambda t, x, y: t.trapezoid(x, dx=2, dim=0),
    "trapezoid_x_2d": lambda t, x, y: t.trapezoid(x, x.detach().cumsum(1), dim=1),
    "trapezoid_x_bcast": lambda t, x, y: t.trapezoid(x, y.view(1, 4)),
    "trapz": lambda t, x, y: t.trapz(x, dx=0.5),
    "trapz_x": lambda t, x, y: t.trapz(x, y),
    "cumulative_trapezoid": lambda t, x, y: t.cumulative_trapezoid(x),
    "cumulative_trapezoid_x": lambda t, x, y: t.cumulative_trapezoid(x, y),
    "cumulative_trapezoid_dx": lambda t, x, y: t.cumulative_trapezoid(x, dx=3.0, dim=0),
    "combinations": lambda t, x, y: t.combinations(y),
    "combinations_r3": lambda t, x, y: t.combinations(y, 3),
    "combinations_r1": lambda t, x, y: t.combinations(y, 1),
    "combinations_replacement": lambda t, x, y: t.combinations(y, 2, with_replacement=True),
    "combinations_too_many": lambda t, x, y: t.combinations(y[:2], 3),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_values_and_gradients(name):
    def program(t):
        x, y = _inputs(t)
        out = CASES[name](t, x, y)
        outs = out if isinstance(out, tuple) else (out,)
        diff = [o for o in outs if o.requires_grad]
        loss = sum((o.nan_to_num() * (1 + t.arange(o.numel()).reshape(o.shape))).sum()
                   for o in diff)
        grads = t.autograd.grad(loss, [x, y], allow_unused=True) if diff else None
        return ([o.detach() for o in outs], [chain(o.grad_fn) for o in outs], grads)
    same(program)


def test_integer_inputs_and_edges():
    def program(t):
        i = t.arange(6).reshape(2, 3)
        return [t.trapezoid(i), t.trapezoid(i, dx=2), t.cumulative_trapezoid(i),
                t.trapezoid(i, i), t.trapezoid(t.ones(2, 0)), t.trapezoid(t.ones(2, 0), dim=1),
                t.trapezoid(t.ones(2, 0), t.ones(2)), t.cumulative_trapezoid(t.ones(2, 0)),
                t.cumulative_trapezoid(t.ones(2, 1)), t.cov(i), t.corrcoef(i),
                t.cov(t.ones(3, 1)), tuple(t.aminmax(t.tensor([True, False]))),
                tuple(t.aminmax(i, dim=1)),
                t.nanmedian(i), t.nanmedian(t.tensor([])), tuple(t.nanmedian(i, 1)),
                t.combinations(t.tensor([]), 2), t.combinations(t.tensor([1]), 2),
                t.combinations(t.tensor([1, 2]), 0), t.combinations(t.tensor([1, 2]), 1)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(program)


def test_errors():
    x = [[1.0, 2.0, 3.0], [0.5, 1.0, 4.0]]
    long_ = "int64"

    def program(t):
        a = t.tensor(x)
        return [catch(t.cov, a, fweights=t.ones(3)),
                catch(t.cov, a, fweights=t.ones(3, 1, dtype=getattr(t, long_))),
                catch(t.cov, a, fweights=t.ones(2, dtype=getattr(t, long_))),
                catch(t.cov, a, fweights=-t.ones(3, dtype=getattr(t, long_))),
                catch(t.cov, a, aweights=t.ones(3, dtype=getattr(t, long_))),
                catch(t.cov, a, aweights=t.zeros(3)), catch(t.cov, a.bool()),
                catch(t.cov, t.ones(2, 2, 2)), catch(t.corrcoef, t.ones(2, 2, 2)),
                catch(t.trapezoid, a.bool()), catch(t.trapezoid, a, dx=1j),
                catch(t.trapezoid, a, t.ones(2)), catch(t.cumulative_trapezoid, a, t.ones(2)),
                catch(t.cumulative_trapezoid, a.bool(), t.ones(3)),
                catch(t.aminmax, t.ones(2, 0), dim=1), catch(t.aminmax, t.ones(0)),
                catch(t.aminmax, t.ones(2, dtype=t.complex64)),
                catch(t.nanmedian, t.ones(2, 0), 1), catch(t.combinations, a),
                catch(t.combinations, a[0], -1), t.aminmax(t.ones(2, 0), dim=0).min.shape]
    same(program)


def test_cov_warning_and_its_zeroed_input():
    def program(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            c = t.cov(t.ones(2, 1))
            x = t.tensor([[3.0], [4.0]])
            d = t.cov(x, aweights=t.tensor([2.0]))     # torch zeroes the input here
        return c, d, x, [str(w.message) for w in caught]
    same(program)


def test_complex_cov_corrcoef():
    def program(t):
        x = t.tensor([[1 + 2j, 3 - 1j, 0.5j], [2.0 + 0j, -1 + 1j, 1 - 1j]], requires_grad=True)
        c, r = t.cov(x), t.corrcoef(x)
        return c, r, t.autograd.grad(c.abs().sum() + r.real.sum(), x)
    same(program)
