"""Tensor.index (torch 2.13: functorch.dim's ``index``, binding positions to indices) with
positional dims against torch: values, shapes, strides, grad_fn names, the tensor itself where
torch gives it back, gradients, errors. functorch.dim's Dim objects are refused."""
import pytest
import torch

import glassgrad as gg
from differential import catch, same


def _t(t, v):
    return t.tensor(v)


# (positions, indices) with tensors as (lambda t: ...)
CASES = {
    "select": (0, 1), "select_middle": (1, 2), "select_last": (-1, 0), "select_negative": (0, -1),
    "two": ((0, 2), (1, 3)), "slice": (1, slice(0, 2)), "list": (0, [1, 0]),
    "tuple_index": (1, (1, 0)),
    "tensor": (1, lambda t: _t(t, [2, 0])), "tensor_2d": (1, lambda t: _t(t, [[0, 1], [2, 2]])),
    "tensors_apart": ((0, 2), (lambda t: _t(t, [1, 0]), lambda t: _t(t, [3, 1]))),
    "mixed": ((0, 1), [1, lambda t: _t(t, [0, 2])]), "scalar_tensor": (0, lambda t: _t(t, 1)),
    "mask": (2, lambda t: _t(t, [True, False, True, False])), "none": (0, None),
    "ellipsis": (0, ...), "pack": ([(0, 1)], [5]), "pack_reordered": ([(1, 0)], [4]),
    "pack_slice": ([(2, 0)], [slice(1, 5)]), "pack_whole": ([(0, 1)], [slice(None)]),
    "pack_whole_copy": ([(-1, 0)], [slice(None)]), "pack_three": ([(2, 1, 0)], [7]),
    "pack_and_dim": ([(0, 2), 1], [slice(None, 3), 0]), "whole": (1, slice(None)),
    "nothing": ((), ()), "empty_pack": ([()], [1]), "wraps_3": (3, 0), "wraps_7": (7, 0),
    "below": (-4, 0), "same_dim_twice": ((0, 0), (1, 1)),
}


def _resolve(t, v):
    if callable(v) and not isinstance(v, type):
        return v(t)
    if isinstance(v, list):
        return [_resolve(t, u) for u in v]
    if isinstance(v, tuple):
        return tuple(_resolve(t, u) for u in v)
    return v


@pytest.mark.parametrize("name", sorted(CASES))
def test_index(name):
    positions, indices = CASES[name]

    def program(t):
        x = t.arange(24.0).reshape(2, 3, 4).requires_grad_()
        y = x.index(positions, _resolve(t, indices))
        g, = t.autograd.grad((y * t.arange(float(y.numel())).reshape(y.shape)).sum(), x)
        return (y, y.stride(), y.grad_fn.name() if y.grad_fn is not None else None, y is x, g)
    same(program)


def test_errors():
    def program(t):
        x = t.arange(24.0).reshape(2, 3, 4)
        return [catch(x.index, (0, 1), (1,)), catch(x.index, "a", 1), catch(x.index, 1.0, 0),
                catch(x.index, [(0, 1)], 2), catch(x.index, [(0, 0)], [1]),
                catch(x.index, [(0, 5)], [1]), catch(x.index, [(0, (1,))], [1]),
                catch(x.index, 0, 5), catch(x.index, 0, (1, 2)), catch(x.index, 0, 1.5),
                catch(x.index), catch(x.index, 0), catch(x.index, 0, [[0], [1]])]
    same(program)


def test_first_class_dims_refused():
    from functorch.dim import dims
    d = dims(1)
    assert type(torch.ones(2, 3).index(0, d)).__module__.startswith("functorch")
    for args in ((0, d), ((0, 1), (1, d)), (d, 0)):
        with pytest.raises(NotImplementedError, match="first-class dimensions"):
            gg.ones(2, 3).index(*args)
