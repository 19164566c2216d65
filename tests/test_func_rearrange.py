"""torch.func.rearrange (einops' pattern language; torch 2.13 parses it itself and runs it on
functorch.dim, einops not needed) against torch: values, shapes, strides, grad_fn names,
whether the tensor itself comes back, gradients, and the errors of the parser and of the size
binding with torch's types and texts. torch computes every expectation."""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import catch, same

A234 = (2, 3, 4)
# (input shape, pattern, axis lengths)
CASES = [
    (A234, "a b c -> c a b", {}), (A234, "a b c -> (a b) c", {}), (A234, "a b c -> a (c b)", {}),
    (A234, "a b c->(c a)b", {}), (A234, "a b c -> a b c", {}), (A234, "a b c -> a b c 1", {}),
    (A234, "a b c -> 1 a b c 1", {}), (A234, "a b c -> a () b c", {}),
    (A234, "a (b1 b2) c -> a b1 b2 c", {"b1": 3}), (A234, "(a1 a2) b c -> a1 b a2 c", {"a2": 1}),
    (A234, "a b c -> c b a", {"b": 3, "c": 4}), (A234, "a b (c) -> a b c", {}),
    (A234, "a b ( c ) -> a (b) c", {}), (A234, "a b c -> (a 1 b) c", {}),
    (A234, "... c -> c ...", {}), (A234, "a ... -> (a ...)", {}), (A234, "a ... -> a (...)", {}),
    (A234, "a ... -> a ...", {}), (A234, "... a -> a ...", {}), (A234, "... -> ...", {}),
    (A234, "(a b) ... -> b a ...", {"a": 1}), (A234, "class b c -> class b c", {}),
    ((2, 3, 4, 5), "b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 3, "w1": 2}),
    ((2, 6, 2, 5), "b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 2}),
    ((2, 3, 4, 5), "b ... c -> c (...) b", {}), ((2, 3, 4, 5), "... h w -> ... (w h)", {}),
    ((2, 3, 4, 5), "(a b) c d e -> a b c d e", {"a": 1, "b": 2}),
    ((3,), "... -> ... 1", {}), ((3,), "a -> a 1 1", {}), ((3, 1), "a () -> a", {}),
    ((), "... -> ...", {}), ((), " -> ", {}), ((), " -> 1 1", {}),
    ((0, 3), "(a b) c -> c b a", {"b": 2}),
    # size-1 axes on the left: torch binds them to any size and sums them away
    ((2, 1, 3, 4), "a 1 b c -> a b c", {}), ((2, 1, 3, 4), "a () b c -> a b c", {}),
    ((2, 1, 3, 4), "a (1) b c -> a b c", {}), ((2, 1, 3, 4), "a (b 1) c d -> a b c d", {}),
    ((2, 1, 3, 4), "a 1 b c -> (a 1) b c", {}), ((2, 1, 3, 4), "1 ... -> ...", {}),
    ((2, 5, 3), "a 1 b -> b a", {}), ((2, 5, 3, 4), "... 1 b -> ... b", {}),
    ((2, 1, 3), "a 1 b -> (b a) 1", {}), ((1, 2), "1 a -> a", {}),
]


def _input(t, shape):
    return t.arange(float(np.prod(shape))).reshape(shape).requires_grad_()


@pytest.mark.parametrize("shape,pattern,lengths", CASES, ids=[c[1] for c in CASES])
def test_rearrange(shape, pattern, lengths):
    def program(t):
        x = _input(t, shape)
        y = t.func.rearrange(x, pattern, **lengths)
        name = y.grad_fn.name() if y.grad_fn is not None else None
        g, = t.autograd.grad((y * t.arange(float(y.numel())).reshape(y.shape)).sum(), x)
        return (y, y.stride() if y.numel() else None, name, y is x, y._is_view(), g)
    same(program)


def test_sequences_are_stacked():
    def program(t):
        xs = [t.zeros(2, 3), t.ones(2, 3)]
        return (t.func.rearrange(xs, "n a b -> a (n b)"),
                t.func.rearrange(tuple(xs), "n a b -> b a n"),
                catch(t.func.rearrange, [t.zeros(2), t.ones(3)], "n a -> a n"),
                t.func.rearrange(t.arange(6).reshape(2, 3), "a b -> b a"))
    same(program)


ERRORS = [
    (A234, "a b c -> c b", {}), (A234, "a b c -> a b c d", {}), (A234, "a b -> a b", {}),
    (A234, "a b c d -> a b c d", {}), (A234, "a b c -> a b c", {"d": 3}),
    (A234, "a b c -> a b c", {"a": 3}), (A234, "(a b) c d -> a b c d", {"a": 4}),
    (A234, "(a b) c d -> a b c d", {}), (A234, "a (b c) d -> a b c d", {"b": 2}),
    (A234, "(a b) c d -> a b c d", {"a": 0}), (A234, "(a b) c d -> a b c d", {"a": -1}),
    (A234, "(a b) c d -> a b c d", {"a": 1, "b": 3}), (A234, "a b c -> a b 2 c", {}),
    (A234, "a b c -> a b (c 2)", {}), (A234, "a 0 b c -> a b c", {}), (A234, "a a c -> a c", {}),
    (A234, "a b c -> a b b", {}), (A234, "a b c -> a (b (c))", {}), (A234, "a b c -> a b c)", {}),
    (A234, "a b c -> (a b c", {}), (A234, "a b c -> a b c -> a", {}), (A234, "a b c", {}),
    (A234, "a b _c -> a b _c", {}), (A234, "a b c_ -> a b c_", {}), (A234, "a b 2c -> a b 2c", {}),
    (A234, "a b c. -> a b c", {}), (A234, "a ... ... -> a", {}), (A234, "a b c -> ...", {}),
    (A234, "(... a) b -> a b", {}), (A234, "a b c -> a b c ...", {}),
    (A234, "a b c d e ... -> a b c d e ...", {}), (A234, "a b c -> a b c", {"\u2026": 2}),
    (A234, "a b c -> a b+c", {}), (A234, "a b c -> a b c", {"a": True}),
    (A234, "p q r -> r q p", {"p": 2.0}), (A234, "a b c -> a b ()", {}),
    # torch's order() loses a level: more new size-1 axes than merged groups, with a size-1
    # axis on the left
    ((2, 1, 3, 4), "a 1 b c -> c b a 1", {}), ((2, 1, 3, 4), "a 1 b c -> a b c ()", {}),
    ((2, 1), "a 1 -> 1 a", {}), ((2, 1, 3), "a 1 b -> (b 1) a 1", {}),
    ((2, 1, 3, 1), "a 1 b 1 -> 1 1 b 1 a 1", {}),
]


@pytest.mark.parametrize("shape,pattern,lengths", ERRORS, ids=[e[1] for e in ERRORS])
def test_errors(shape, pattern, lengths):
    same(lambda t: catch(lambda: t.func.rearrange(_input(t, shape), pattern, **lengths)))


def test_error_texts_whole():
    """Multi-line messages (catch compares the first line) and the error's class name."""
    for pattern in ("a b _c -> a b _c", "a b 2c -> a b 2c"):
        texts = []
        for t in (torch, gg):
            with pytest.raises(ValueError) as e:
                t.func.rearrange(t.zeros(2, 3, 4), pattern)
            texts.append(str(e.value))
        assert texts[0] == texts[1]
    with pytest.raises(Exception) as e:
        torch.func.rearrange(torch.zeros(2, 3), "a b -> a b", a=3)
    with pytest.raises(gg.func.rearrange.__globals__["DimensionBindError"]) as f:
        gg.func.rearrange(gg.zeros(2, 3), "a b -> a b", a=3)
    assert type(e.value).__name__ == type(f.value).__name__ == "DimensionBindError"
    assert str(e.value) == str(f.value)


@pytest.mark.parametrize("pattern", ["class b -> b class", "axis b -> b axis"])
def test_discouraged_names_warn(pattern):
    got = []
    for t in (torch, gg):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t.func.rearrange(t.zeros(2, 3), pattern)
        got.append(sorted((x.category.__name__, str(x.message)) for x in w))
    assert got[0] == got[1] and got[0]


def test_against_einops():
    """Where einops defines the result (no size-1 axis named on the left), glassgrad's is
    einops' too."""
    einops = pytest.importorskip("einops")
    for shape, pattern, lengths in CASES:
        if any(entry in pattern.split("->")[0].split() for entry in ("1", "()", "(1)")) or \
                "1)" in pattern.split("->")[0] or not shape:
            continue
        x = torch.arange(float(np.prod(shape))).reshape(shape)
        ours = gg.func.rearrange(gg.tensor(x.numpy()), pattern, **lengths)
        np.testing.assert_array_equal(ours.numpy(), einops.rearrange(x, pattern, **lengths)
                                      .numpy(), err_msg=pattern)
