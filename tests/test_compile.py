"""glassgrad.compile (torch.compile): a captured replay under one CompiledFunctionBackward node.
Each program runs in torch (torch.compile, backend="aot_eager": torch's autograd node without
a C++ toolchain) and in glassgrad; glassgrad's compiled results are also compared bit for bit
with its own eager ones."""
import logging

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import catch, same


@pytest.fixture(autouse=True)
def _validation_restored():
    """torch's first compile turns distributions' validation off for the process (glassgrad's
    too, tested below): put both back for the other tests."""
    yield
    for lib in (torch, gg):
        lib.distributions.Distribution.set_default_validate_args(True)


def test_the_first_compile_turns_distribution_validation_off_as_torch():
    same(lambda lib: (lib.compile(lambda x: x * 2, backend="aot_eager")(lib.ones(1)),
                      lib.distributions.Distribution._validate_args))


def exact(a, b):
    """Bit-for-bit equality of two glassgrad results (tensors nested in tuples/lists)."""
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for u, v in zip(a, b):
            exact(u, v)
    elif isinstance(a, gg.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        assert a.detach().numpy().tobytes() == b.detach().numpy().tobytes()
    else:
        assert a == b


def grads_of(lib, fn, make, calls=3, **options):
    """Compile ``fn``, call it ``calls`` times on fresh inputs from ``make(lib)``: each call's
    outputs, the node name, and the inputs' gradients of the summed outputs."""
    cf = lib.compile(fn, backend="aot_eager", **options)
    out = []
    for _ in range(calls):
        inputs = make(lib)
        res = cf(*inputs)
        flat = list(res) if isinstance(res, tuple) else [res]
        loss = sum((r.float().sum() * (i + 1) for i, r in enumerate(flat) if r.requires_grad),
                   lib.tensor(0.0))
        if loss.requires_grad:
            loss.backward()
        names = [type(r.grad_fn).__name__ for r in flat]
        out.append((flat, names, [t.grad for t in inputs if isinstance(t, lib.Tensor)]))
    return out


def eager_grads(fn, make):
    inputs = make(gg)
    res = fn(*inputs)
    flat = list(res) if isinstance(res, tuple) else [res]
    loss = sum((r.float().sum() * (i + 1) for i, r in enumerate(flat) if r.requires_grad),
               gg.tensor(0.0))
    if loss.requires_grad:
        loss.backward()
    return flat, [t.grad for t in inputs if isinstance(t, gg.Tensor)]


def check(fn, make, calls=3, **options):
    """Compiled glassgrad == torch (values, grads, node names) and == glassgrad eager exactly."""
    got = same(lambda lib: grads_of(lib, fn, make, calls, **options))
    del got
    ref_out, ref_grads = eager_grads(fn, make)
    gg.compiler.reset()
    for flat, names, grads in grads_of(gg, fn, make, calls, **options):
        exact(flat, ref_out)
        exact(grads, ref_grads)


def seeded(lib, *shapes, grad=True, dtype=None):
    lib.manual_seed(0)
    return tuple(lib.randn(*s, dtype=dtype or lib.float64).requires_grad_(grad) for s in shapes)


def test_pointwise_reductions_broadcasting():
    def f(x, w):
        return (x * w).sin().sum() + (x.exp() * 2).mean() - (x / (w.abs() + 1)).pow(2).sum()
    check(f, lambda lib: seeded(lib, (3, 4), (4,)))


def test_mlp_shapes_matmul_softmax_and_several_outputs():
    def f(x, w1, b1, w2):
        h = (x @ w1 + b1).relu()
        z = h @ w2
        return z.log_softmax(dim=1), z.softmax(-1).max(dim=1).values, h.t().reshape(-1)[:5]
    check(f, lambda lib: seeded(lib, (5, 4), (4, 6), (6,), (6, 3)))


def test_cat_stack_where_var_and_an_input_without_grad():
    def f(x, y):
        c = gg_or(x).cat([x, y * 2], dim=0)
        s = gg_or(x).stack([x.tanh(), y], dim=1)
        return c.var(dim=0), gg_or(x).where(x > 0, x, y).sum(), s.transpose(0, 1).sum(0)
    check(f, lambda lib: (*seeded(lib, (3, 2)), seeded(lib, (3, 2), grad=False)[0]))


def gg_or(t):
    """The library of a tensor (a compiled function's namespace calls: torch.cat, ...)."""
    return gg if isinstance(t, gg.Tensor) else torch


def test_float64_int_casts_and_python_numbers():
    def f(x, n):
        i = (x * 10).long()
        return x * n + i, (x ** 3 + 0.5 * n).sum()
    for n in (2, 3):
        check(lambda x: f(x, n), lambda lib: seeded(lib, (4,), dtype=lib.float64))


def test_guards_shape_requires_grad_grad_mode_and_argument_values():
    def f(x, n):
        return x * n + x.cos()

    def program(lib):
        cf = lib.compile(f, backend="aot_eager")
        out = []
        for shape, grad, n in [((2,), True, 2), ((3,), True, 2), ((2,), False, 2),
                               ((2,), True, 5), ((2,), True, 2)]:
            x = lib.arange(float(shape[0])).requires_grad_(grad)
            y = cf(x, n)
            out += [y, type(y.grad_fn).__name__]
        with lib.no_grad():
            y = cf(lib.ones(2, requires_grad=True), 2)
            out += [y, y.grad_fn is None]
        return out
    same(program)


def test_closure_and_global_tensors_are_inputs():
    def program(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        scale = [lib.tensor(3.0)]

        def f(x):
            return (x * w).sum() * scale[0]
        cf = lib.compile(f, backend="aot_eager")
        out = []
        for k in range(3):
            x = lib.tensor([0.5, -1.0]) + k
            y = cf(x)
            y.backward()
            out += [y, w.grad.clone()]
        return out
    same(program)


G = None


def test_a_global_rebound_recompiles():
    def f(x):
        return x * G

    def program(lib):
        global G
        G = lib.tensor([1.0, 2.0])
        cf = lib.compile(f, backend="aot_eager")
        out = [cf(lib.ones(2))]
        G = lib.tensor([5.0, 7.0])
        out.append(cf(lib.ones(2)))
        return out
    same(program)


def test_version_counter_checks_fire_at_backward():
    def program(lib):
        def f(x, w):
            return (x * w).sum(), x.exp()
        cf = lib.compile(f, backend="aot_eager")
        x = lib.randn(3, requires_grad=True)
        w = lib.randn(3)
        out, e = cf(x, w)
        w.add_(1)
        r1 = catch(out.backward)
        out, e = cf(x, w)
        e.mul_(2)
        r2 = catch(lambda: e.sum().backward())
        out, e = cf(x, w)
        out.backward()
        return r1, r2, catch(out.backward)    # the freed graph
    same(program)


def test_double_backward_refused_as_torch():
    def program(lib):
        cf = lib.compile(lambda x: (x.sin() * x).sum(), backend="aot_eager")
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        g, = lib.autograd.grad(cf(x), x, create_graph=True)
        return g, type(g.grad_fn).__name__, catch(lambda: g.sum().backward())
    same(program)


@pytest.mark.parametrize("kind", ["item", "bool", "tolist", "print"])
def test_graph_breaks_run_eagerly_and_fullgraph_raises(kind, capsys):
    def f(x):
        y = x * 2
        if kind == "item":
            y = y + y.sum().item()
        elif kind == "bool":
            y = y * 3 if bool(y.sum() > 0) else y
        elif kind == "tolist":
            y = y + len(y.tolist())
        else:
            print("hello")
        return y.exp()

    def program(lib):
        cf = lib.compile(f, backend="aot_eager")
        out = []
        for k in range(3):
            x = lib.tensor([1.0, -2.0]) * (k + 1)
            out.append(cf(x))
        lib.compiler.reset()    # (torch keeps one cache per code object)
        raised = catch(lib.compile(f, backend="aot_eager", fullgraph=True), lib.ones(2))
        return out, type(raised).__name__ == "Raised" and raised.type
    if kind == "item":      # torch traces .item() into its graph; glassgrad refuses it there
        assert program(gg)[1] == "NotImplementedError"
        assert same(lambda lib: program(lib)[0])
        return
    same(program)
    if kind == "print":     # each call prints (a break); fullgraph=True raises before it does
        assert capsys.readouterr().out.count("hello") == 3 + 3


def test_breaks_that_glassgrad_cannot_capture_run_eagerly_bit_for_bit():
    def inplace(x):
        y = x * 2
        y.add_(1)
        return y.sin()

    def rand(x):
        return gg_or(x).nn.functional.dropout(x, 0.5) + gg_or(x).randn(3)

    def made(x):
        return x * gg_or(x).tensor([1.0, 2.0, 3.0]) + x.detach()
    for fn in (inplace, rand, made):
        ref = []
        gg.manual_seed(3)
        for k in range(3):
            ref.append(fn(gg.ones(3, requires_grad=True) * k))
        cf = gg.compile(fn)
        gg.manual_seed(3)
        for k in range(3):
            exact(cf(gg.ones(3, requires_grad=True) * k), ref[k])
    with pytest.raises(NotImplementedError, match="in-place"):   # (one autograd records)
        gg.compile(inplace, fullgraph=True)(gg.ones(3, requires_grad=True))


def test_recompile_limit_falls_back_to_eager(caplog):
    def program(lib):
        cf = lib.compile(lambda x, n: x * n, backend="aot_eager")
        return [cf(lib.ones(2), n) for n in range(10)]
    same(program)
    assert gg._dynamo.config.cache_size_limit == torch._dynamo.config.cache_size_limit == 8
    cf = gg.compile(lambda x, n: x * n)
    with caplog.at_level(logging.WARNING):
        for n in range(10):
            cf(gg.ones(2), n)
    assert "torch._dynamo hit config.recompile_limit (8)" in caplog.text
    assert cf.count == 8


def test_is_compiling_and_reset():
    def program(lib):
        cf = lib.compile(lambda x: x * (2 if lib.compiler.is_compiling() else 3),
                         backend="aot_eager")
        out = [cf(lib.ones(2)), cf(lib.ones(2)), lib.compiler.is_compiling()]
        lib.compiler.reset()
        lib._dynamo.reset()
        return out + [cf(lib.ones(2))]
    same(program)


def test_arguments_checked_as_torch():
    def program(lib):
        f = lambda x: x   # noqa: E731
        return [catch(lib.compile, f, mode="fast"),
                catch(lambda: lib.compile(f, mode="default", options={})),
                lib.compile(f, disable=True) is f,
                lib.compile(f, mode="max-autotune", dynamic=True)(lib.ones(1) * 2)]
    same(program)


def test_module_compile_and_optimized_module():
    def program(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 2))
        opt = model_compiled = lib.compile(model, backend="aot_eager")
        facts = [type(opt).__name__, opt._orig_mod is model, list(opt.state_dict()),
                 repr(opt), opt[0] is model[0]]
        sgd = lib.optim.SGD(model.parameters(), lr=0.1)
        out = []
        for step in range(3):
            x = lib.randn(5, 4)
            loss = model_compiled(x).pow(2).mean()
            sgd.zero_grad()
            loss.backward()
            sgd.step()
            out += [loss, type(loss.grad_fn).__name__]
        other = lib.nn.Linear(3, 1)
        facts.append(other.compile(backend="aot_eager"))
        y = other(lib.ones(2, 3))
        model.eval()
        return facts, out, list(model.parameters()), y, model_compiled(lib.ones(1, 4))
    same(program)


def test_module_training_bit_for_bit_with_eager():
    def train(compiled):
        gg.manual_seed(0)
        model = gg.nn.Sequential(gg.nn.Linear(6, 16), gg.nn.ReLU(), gg.nn.Linear(16, 3))
        run = gg.compile(model) if compiled else model
        opt = gg.optim.Adam(model.parameters(), lr=0.01)
        losses = []
        for step in range(4):
            x = gg.randn(8, 6)
            t = gg.randint(0, 3, (8,))
            loss = gg.nn.functional.cross_entropy(run(x), t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss)
            if compiled:    # the model's forward replays (no eager fallback)
                assert type(run(x).grad_fn).__name__ == "CompiledFunctionBackward"
        return losses, list(model.parameters())
    exact(train(True), train(False))


def test_a_loss_function_compiles_whole():
    def loss_of(x, t, w):
        return gg.nn.functional.cross_entropy(gg.nn.functional.linear(x, w), t)
    cf = gg.compile(loss_of, fullgraph=True)
    gg.manual_seed(1)
    x, w, t = gg.randn(4, 3), gg.randn(5, 3, requires_grad=True), gg.randint(0, 5, (4,))
    loss = cf(x, t, w)
    assert type(loss.grad_fn).__name__ == "CompiledFunctionBackward"
    loss.backward()
    ref = loss_of(x, t, w2 := w.detach().clone().requires_grad_())
    ref.backward()
    exact((loss, w.grad), (ref, w2.grad))


def test_the_glass_box_lists_the_ops_and_lines():
    def f(x):
        y = x.sin()
        return (y * x).sum()
    cf = gg.compile(f)
    out = cf(gg.ones(2, requires_grad=True))
    covers = out.grad_fn.covers
    assert [name for name, _ in covers] == ["SinBackward0", "MulBackward0", "SumBackward0"]
    assert "y = x.sin()" in covers[0][1] and "test_compile.py" in covers[0][1]
    assert "return (y * x).sum()" in covers[2][1]
    assert repr(out.grad_fn).startswith("<torch.autograd.function.CompiledFunctionBackward")


def test_module_guards_training_flag_hooks_and_replaced_parameters():
    def program(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Dropout(0.5))
        cm = lib.compile(model, backend="aot_eager")
        x = lib.ones(2, 3)
        model.eval()
        out = [cm(x), cm(x)]
        model[0].weight = lib.nn.Parameter(lib.full((3, 3), 0.5))
        out.append(cm(x))
        model[0].register_forward_hook(lambda m, i, o: o * 2)
        out.append(cm(x))      # as torch's: hooks are not guarded (a later one does not run)
        model.train()
        y = cm(x)      # random: glassgrad runs it eagerly
        out.append(y.shape)
        return out
    same(program)


def test_a_backward_or_hook_inside_breaks_and_runs_eagerly():
    def step(x, w):
        loss = (x * w).sum()
        loss.backward()     # (returns nothing: only the break keeps the .grad updates)

    def hooked(x):
        y = x * 2
        y.register_hook(lambda g: g * 10)
        return y.sum()
    w = gg.ones(3, requires_grad=True)
    cf = gg.compile(step)
    for _ in range(3):
        cf(gg.ones(3), w)
    assert w.grad.tolist() == [3.0, 3.0, 3.0]
    x = gg.ones(3, requires_grad=True)
    ch = gg.compile(hooked)
    for _ in range(2):
        ch(x).backward()
    assert x.grad.tolist() == [40.0, 40.0, 40.0]


def test_an_in_place_edit_of_a_saved_tensor_is_explained_with_its_line():
    w = gg.randn(3, requires_grad=True)
    xx = gg.randn(3)
    out = gg.compile(lambda a, b: (a * b).sum())(w, xx)
    xx.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        out.backward()
    text = gg.explain(info.value)
    assert "CompiledFunctionBackward" in text and "xx.add_(1)" in text
    assert "version 1: `add_`" in text
