"""glassgrad.utils.checkpoint, differential against torch.utils.checkpoint, plus a check that
the checkpointed intermediates are gone after forward."""
import gc
import importlib
import warnings
import weakref

import glassgrad as gg
from differential import catch, same


def ckpt(lib):
    return importlib.import_module(lib.__name__ + ".utils.checkpoint")


def setup(lib):
    x = lib.tensor([0.3, -1.2, 2.0], dtype=lib.float64, requires_grad=True)
    W = lib.tensor([[1.0, 2.0, 0.5], [0.1, -0.3, 0.7]], dtype=lib.float64, requires_grad=True)

    def block(a, k=2.0):
        return (W @ (a.sin() * k)).tanh()
    return x, W, block


def warned(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    return result, [(x.category.__name__, str(x.message)) for x in w]


def test_gradients_equal_uncheckpointed():
    def program(lib):
        C = ckpt(lib)
        out = []
        for use_reentrant in (True, False):
            x, W, block = setup(lib)
            y = C.checkpoint(block, x, use_reentrant=use_reentrant)
            (y ** 2).sum().backward()
            got = (y, x.grad, W.grad)
            x.grad = W.grad = None
            (block(x) ** 2).sum().backward()
            out += [got, (x.grad, W.grad)]
        return out
    same(program)


def test_default_warns_and_is_reentrant():
    def program(lib):
        C = ckpt(lib)
        x, W, block = setup(lib)
        y, w = warned(C.checkpoint, block, x)
        y.sum().backward()
        x0 = x.detach()
        z, w2 = warned(C.checkpoint, block, x0, use_reentrant=True)
        return [y, w, x.grad, W.grad, z, w2,
                catch(lambda: lib.autograd.grad(C.checkpoint(block, x, use_reentrant=True).sum(),
                                                x)),
                catch(lambda: C.checkpoint(block, x, use_reentrant=True).sum().backward(
                    inputs=[x])),
                catch(C.checkpoint, block, x, k=3.0, use_reentrant=True),
                catch(C.checkpoint, block, x, use_reentrant=True, debug=True)]
    same(program)


def test_non_reentrant_grad_kwargs_structures_double_backward():
    def program(lib):
        C = ckpt(lib)
        x, W, block = setup(lib)
        g1 = lib.autograd.grad(C.checkpoint(block, x, k=3.0, use_reentrant=False).sum(), (x, W))
        d = C.checkpoint(lambda a: {"s": a.exp(), "n": 3, "t": (a * 2, None)}, x,
                         use_reentrant=False)
        g2 = lib.autograd.grad(d["s"].sum() + d["t"][0].sum(), x)
        y = C.checkpoint(lambda a: (a ** 3).sum(), x, use_reentrant=False)
        g, = lib.autograd.grad(y, x, create_graph=True)
        g3 = lib.autograd.grad(g.sum(), x)
        only_closure = C.checkpoint(block, x.detach(), use_reentrant=False)
        g4 = lib.autograd.grad(only_closure.sum(), W)
        const = C.checkpoint(lambda a: lib.ones(2), x, use_reentrant=False)
        with lib.no_grad():
            ng = C.checkpoint(block, x, use_reentrant=False)
        return [g1, d["n"], d["t"][1], g2, g, g3, only_closure, g4, const, ng]
    same(program)


def test_random_state_is_replayed():
    def program(lib):
        C = ckpt(lib)
        out = []
        for use_reentrant in (True, False):
            lib.manual_seed(3)
            x = lib.tensor([0.3, -1.2, 2.0], dtype=lib.float64, requires_grad=True)
            y = C.checkpoint(lambda a: a * lib.rand(3, dtype=lib.float64), x,
                             use_reentrant=use_reentrant)
            y.sum().backward()
            out.append(bool((x.grad == y.detach() / x.detach()).all()))
        return out
    same(program)


def test_checkpoint_sequential():
    def program(lib):
        C = ckpt(lib)
        x, W, block = setup(lib)
        fns = [lambda a: a.sin(), lambda a: a * 3, lambda a: a.exp(), lambda a: a.sum()]
        y = C.checkpoint_sequential(fns, 2, x, use_reentrant=False)
        return [y, lib.autograd.grad(y, x)]
    same(program)


def test_intermediates_are_not_kept():
    C = gg.utils.checkpoint
    for use_reentrant in (True, False):
        refs = []

        def fn(a):
            h = a.sin()
            refs.append(weakref.ref(h))
            return h.cos()
        x = gg.tensor([0.3, -1.2, 2.0], requires_grad=True)
        y = C.checkpoint(fn, x, use_reentrant=use_reentrant)
        gc.collect()
        assert all(r() is None for r in refs), "an intermediate outlived the forward"
        y.sum().backward()
        assert x.grad is not None
        refs.clear()
        y = fn(x)       # without checkpoint the intermediate is saved for backward
        gc.collect()
        assert refs[0]() is not None
