"""Autograd from several threads at once: accumulation into a shared leaf is atomic (PyTorch's
AccumulateGrad holds a mutex), grad mode is per thread, and so are provenance and the glass
box's explanations (glassgrad's own: no torch counterpart to compare with)."""
import re
import sys
import threading

import pytest

import glassgrad as gg
from differential import same

THREADS = 4


def _in_threads(fn, n=THREADS):
    """Run fn(i, barrier) in n threads started together; their results, in order."""
    barrier = threading.Barrier(n)
    results = [None] * n
    errors = []

    def body(i):
        try:
            results[i] = fn(i, barrier)
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def _accumulate(lib, calls, size, create_graph=False):
    """THREADS threads, each ``calls`` backward passes into one shared leaf of ``size``
    elements; its final .grad (exactly THREADS * calls * 0.5 when no update is lost)."""
    w = lib.zeros(size, dtype=lib.float64, requires_grad=True)

    def work(i, barrier):
        barrier.wait()
        for _ in range(calls):
            (w * 0.5).sum().backward(create_graph=create_graph)

    _in_threads(work)
    return w.grad.detach()


@pytest.fixture
def fast_switches():
    """Switch threads often, so that a race shows in a short run."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def test_concurrent_backwards_into_one_leaf_lose_no_update():
    # 4 x 1,000 backward calls into a 100,000-element leaf: NumPy releases the GIL during the
    # large in-place add, so without a lock around the accumulation some updates were lost
    same(lambda lib: _accumulate(lib, 1000, 100_000))


@pytest.mark.parametrize("create_graph", [False, True], ids=["arrays", "create_graph"])
def test_concurrent_first_accumulations(fast_switches, create_graph):
    # many short passes, threads switching often: the first .grad is set once, every later
    # gradient added to it (the check for None and the write are one step)
    def program(lib):
        return [_accumulate(lib, 50, 8, create_graph).sum().item() for _ in range(10)]
    same(program)


def test_grad_mode_is_per_thread_while_threads_run_together():
    def program(lib):
        x = lib.ones(2, requires_grad=True)

        def work(i, barrier):
            ctx = lib.no_grad() if i % 2 else lib.enable_grad()
            with ctx:
                barrier.wait()      # every thread inside its mode at once
                out = [(x * 2).requires_grad for _ in range(200)]
                barrier.wait()
            return lib.is_grad_enabled(), set(out)
        return _in_threads(work)
    same(program)


def test_inference_mode_is_per_thread():
    def program(lib):
        def work(i, barrier):
            with lib.inference_mode(bool(i % 2)):
                barrier.wait()
                t = lib.ones(2) * 2
                barrier.wait()
                return lib.is_inference_mode_enabled(), t.is_inference()
        return _in_threads(work)
    same(program)


def _make_in_thread(i, barrier, x):
    barrier.wait()
    made = []
    for _ in range(100):
        if i % 2:
            y = x.exp(); line = sys._getframe().f_lineno  # noqa: E702 - the line is the point
        else:
            y = x.sin(); line = sys._getframe().f_lineno  # noqa: E702
        made.append((y, line))
    return made


def test_provenance_is_per_thread():
    # each node records the line of the thread that made it, never another thread's
    from glassgrad._autograd.provenance import lineno, node_source
    x = gg.ones(3, requires_grad=True)
    results = _in_threads(lambda i, b: _make_in_thread(i, b, x))
    lines = {lineno(node_source(y.grad_fn)) == line for made in results for y, line in made}
    assert lines == {True}


def test_explanations_are_per_thread():
    # two threads at once, each breaking its own saved tensor: each explanation names its own
    # tensor and the line that modified it
    def work(i, barrier):
        x = gg.ones(3, requires_grad=True)
        y = x * 1
        z = (y * y).sum()
        barrier.wait()
        if i % 2:
            y.add_(1); line = sys._getframe().f_lineno     # noqa: E702
        else:
            y.mul_(2); line = sys._getframe().f_lineno     # noqa: E702
        barrier.wait()
        with pytest.raises(RuntimeError) as info:
            z.backward()
        return gg.explain(info.value), line, "add_" if i % 2 else "mul_"

    for text, line, op in _in_threads(work):
        assert re.search(rf"`{op}` at \S*test_threads\.py:{line}:", text), text
        assert ("mul_" if op == "add_" else "add_") + "`" not in text

