"""glassgrad benchmarks: each workload in glassgrad, in PyTorch (same thread count) and, where
stated, in hand-written NumPy (manual forward and backward), interleaved round-robin in one
process after a warm-up; the median time per iteration and the ratios glassgrad/PyTorch and
glassgrad/NumPy. Gradients are checked once against PyTorch before timing.

    make bench                      # everything (a few minutes on 2 cores)
    .venv/bin/python benchmarks/run.py --only W1,W3 --rounds 5
    .venv/bin/python benchmarks/run.py --against 734bd89    # also glassgrad as of a commit

Writes a markdown table to stdout and everything to benchmarks/results.json. PyTorch and
scikit-learn are benchmark-only dependencies: a workload whose library is missing is skipped
with a note. Benchmarks are not tests: nothing here asserts a timing.
"""
import os

THREADS = os.environ.get("BENCH_THREADS", "1")
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
           "VECLIB_MAXIMUM_THREADS"):
    os.environ[_v] = THREADS     # before NumPy or PyTorch load their BLAS

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import glassgrad as gg  # noqa: E402

try:
    import torch
    torch.set_num_threads(int(THREADS))
except ImportError:      # the table then has glassgrad (and NumPy) columns only
    torch = None

ENGINES = ("glassgrad", "before", "pytorch", "numpy")
BEFORE = None   # --against REV: glassgrad as of that commit, timed in the same rounds ("before")


def _lib(engine):
    return {"glassgrad": gg, "before": BEFORE}.get(engine, torch)


def load_before(rev):
    """glassgrad as of git revision ``rev``, imported from a temporary copy of its package under
    another name (it imports itself relatively), so both versions run in one process."""
    import importlib
    import tempfile
    tmp = tempfile.mkdtemp(prefix="glassgrad-before-")
    archive = subprocess.run(["git", "-C", os.path.dirname(HERE), "archive", rev, "glassgrad"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
    os.rename(os.path.join(tmp, "glassgrad"), os.path.join(tmp, "glassgrad_before"))
    sys.path.insert(0, tmp)
    return importlib.import_module("glassgrad_before")


def _engines(*names):
    """The glassgrad-API engines to time: glassgrad, the --against version, PyTorch."""
    return [e for e in ("glassgrad", "before", "pytorch") + names
            if not (e == "pytorch" and torch is None or e == "before" and BEFORE is None)]


# -- W1: per-op overhead ----------------------------------------------------------------------
W1_OPS = 1000


def w1_chain(lib, x):
    """1,000 sequential pointwise ops (add/mul by constants, sin, exp, tanh, pow)."""
    for _ in range(W1_OPS // 6):
        x = x + 0.5
        x = x * 0.9
        x = lib.sin(x)
        x = lib.exp(x)
        x = lib.tanh(x)
        x = x ** 2
    for _ in range(W1_OPS % 6):
        x = x * 0.999
    return x


def w1_setup(engine, shape):
    lib = _lib(engine)
    x = lib.full(shape, 0.3, dtype=lib.float32, requires_grad=True)

    def step():
        x.grad = None
        w1_chain(lib, x).sum().backward()
        return x.grad
    return step


def w1_leaf_setup(engine, subclass):
    """1,000 sequential ``x * w`` with w a leaf that requires grad: a plain Tensor, or an
    instance of a Tensor subclass (as nn.Parameter is), which must cost the same."""
    lib = _lib(engine)
    w = lib.full((), 0.999, dtype=lib.float32)
    if subclass:        # nn.Parameter; a plain subclass where the engine has no nn (before)
        w = lib.nn.Parameter(w) if hasattr(getattr(lib, "nn", None), "Parameter") else \
            type("Leaf", (lib.Tensor,), {})._make(w._data)
    w.requires_grad_()
    x0 = lib.full((), 0.5, dtype=lib.float32)

    def step():
        w.grad = None
        x = x0
        for _ in range(W1_OPS):
            x = x * w
        x.backward()
        return w.grad
    return step


def w1_without_provenance(step):
    """The same step with provenance recording off (glassgrad.glass.set_provenance): its cost
    is the difference to the plain glassgrad step."""
    def run():
        prev = gg.glass.set_provenance(False)
        try:
            return step()
        finally:
            gg.glass.set_provenance(prev)
    return run


def w1_numpy(shape):
    """The same chain by hand: forward keeping what backward needs, then the chain rule."""
    x0 = np.full(shape, 0.3, np.float32)

    def step():
        x, saved = x0, []
        for _ in range(W1_OPS // 6):
            x = x + np.float32(0.5)
            x = x * np.float32(0.9)
            saved.append(("sin", x)); x = np.sin(x)
            x = np.exp(x); saved.append(("exp", x))
            x = np.tanh(x); saved.append(("tanh", x))
            saved.append(("pow", x)); x = x ** 2
        for _ in range(W1_OPS % 6):
            x = x * np.float32(0.999)
        g = np.ones_like(x) * np.float32(0.999) ** (W1_OPS % 6)
        for kind, v in reversed(saved):
            if kind == "pow":
                g = g * (2 * v)
            elif kind == "tanh":
                g = g * (1 - v * v)
            elif kind == "exp":
                g = g * v
            else:
                g = g * np.cos(v) * np.float32(0.9)
        return g
    return step


# -- W2: sklearn digits MLP (a small real-data training step) ---------------------------------
def _digits(batch=64):
    """scikit-learn's digits (1,797 images of 8x8) in shuffled minibatches of ``batch``."""
    from sklearn.datasets import load_digits
    d = load_digits()
    order = np.random.default_rng(5).permutation(len(d.target))
    x = (d.data[order] / 16.0).astype(np.float32)
    y = d.target[order].astype(np.int64)
    return [(x[i:i + batch], y[i:i + batch]) for i in range(0, len(y) - batch + 1, batch)]


# -- W3: compute-bound MLP training step -----------------------------------------------------
def mlp_params(sizes, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        out.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
        out.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    return out


def mlp_setup(engine, params, batches, lr=0.01, compiled=None):
    """zero grads, forward (relu), log_softmax + gather cross-entropy, backward, SGD under
    no_grad; each step takes the next of ``batches`` ((x, y) pairs, cycled). Returns
    (step, params). Through the engine's compile: compiled="forward", the forward and loss;
    compiled="step", the whole step (the forward and loss replay as one region, the backward
    runs, the update replays as in-place array writes)."""
    lib = _lib(engine)
    ps = [lib.tensor(p.copy(), requires_grad=True) for p in params]
    data = itertools.cycle([(lib.tensor(x), lib.tensor(y)) for x, y in batches])

    def loss_of(xt, yt):
        h = xt
        for i in range(0, len(ps), 2):
            h = h @ ps[i] + ps[i + 1]
            if i + 2 < len(ps):
                h = lib.relu(h)
        logp = lib.log_softmax(h, dim=1)
        return -logp.gather(1, yt[:, None]).mean()
    if compiled == "forward":
        loss_of = lib.compile(loss_of)

    def train(xt, yt):
        for p in ps:
            p.grad = None
        loss = loss_of(xt, yt)
        loss.backward()
        with lib.no_grad():
            for p in ps:
                p -= lr * p.grad
        return loss
    if compiled == "step":
        train = lib.compile(train)

    def step():
        return train(*next(data))
    return step, ps


def _cross_entropy_numpy(logits, rows, y, n):
    """The NumPy floors' loss: mean softmax cross-entropy and its gradient, by hand."""
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    g = e / s
    g[rows, y] -= 1
    return -(z[rows, y] - np.log(s[:, 0])).mean(), g / n


def mlp_numpy(params, batches, lr=0.01):
    ps = [p.copy() for p in params]
    data = itertools.cycle(batches)

    def step():
        x, y = next(data)
        n = x.shape[0]
        rows = np.arange(n)
        hs, h = [x], x
        for i in range(0, len(ps), 2):
            h = h @ ps[i] + ps[i + 1]
            if i + 2 < len(ps):
                h = np.maximum(h, 0)
            hs.append(h)
        loss, g = _cross_entropy_numpy(h, rows, y, n)
        grads = [None] * len(ps)
        for i in range(len(ps) - 2, -1, -2):
            a = hs[i // 2]
            grads[i], grads[i + 1] = a.T @ g, g.sum(axis=0)
            if i:
                g = (g @ ps[i].T) * (a > 0)
        for p, gp in zip(ps, grads):
            p -= lr * gp
        return loss
    return step, ps


# -- W4: small CNN training step -------------------------------------------------------------
def cnn_params(seed=7):
    """conv 3x3 1->16, conv 3x3 16->32, linear 32*5*5 -> 10 (PyTorch's default init ranges)."""
    rng = np.random.default_rng(seed)
    out = []
    for shape in ((16, 1, 3, 3), (32, 16, 3, 3), (10, 800)):
        bound = 1 / np.sqrt(np.prod(shape[1:]))
        out.append(rng.uniform(-bound, bound, shape).astype(np.float32))
        out.append(rng.uniform(-bound, bound, shape[:1]).astype(np.float32))
    return out


def cnn_setup(engine, params, x, y, lr=0.01):
    lib = _lib(engine)
    F = lib.nn.functional
    ps = [lib.tensor(p.copy(), requires_grad=True) for p in params]
    xt, yt = lib.tensor(x), lib.tensor(y)

    def step():
        for p in ps:
            p.grad = None
        h = F.max_pool2d(F.relu(F.conv2d(xt, ps[0], ps[1])), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, ps[2], ps[3])), 2)
        logits = F.linear(h.reshape(h.shape[0], -1), ps[4], ps[5])
        loss = -F.log_softmax(logits, dim=1).gather(1, yt[:, None]).mean()
        loss.backward()
        with lib.no_grad():
            for p in ps:
                p -= lr * p.grad
        return loss
    return step, ps


def _im2col(x, k):
    """Plain im2col: (N*OH*OW, C*k*k) rows of x's k x k windows (stride 1, no padding)."""
    n, c, h, w = x.shape
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))
    return win.transpose(0, 2, 3, 1, 4, 5).reshape(n * (h - k + 1) * (w - k + 1), c * k * k)


def _col2im(cols, shape, k):
    """The adjoint of _im2col: each window's rows added back onto the positions it read."""
    n, c, h, w = shape
    oh, ow = h - k + 1, w - k + 1
    cols = cols.reshape(n, oh, ow, c, k, k)
    out = np.zeros(shape, cols.dtype)
    for i in range(k):
        for j in range(k):
            out[:, :, i:i + oh, j:j + ow] += cols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return out


def cnn_numpy(params, x, y, lr=0.01):
    """The W4 step by hand: im2col + matmul convolutions, 2x2 max pooling by reshape with a
    mask for backward, softmax cross-entropy, and their gradients written out."""
    ps = [p.copy() for p in params]
    n = x.shape[0]
    rows = np.arange(n)

    def conv(a, w, b):
        cols = _im2col(a, 3)
        oh, ow = a.shape[2] - 2, a.shape[3] - 2
        out = (cols @ w.reshape(w.shape[0], -1).T + b).reshape(n, oh, ow, -1)
        return out.transpose(0, 3, 1, 2), cols

    def pool(a):
        c, h, w = a.shape[1:]
        blocks = a[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2)
        out = blocks.max(axis=(3, 5))
        return out, blocks == out[:, :, :, None, :, None]

    def unpool(g, mask, shape):
        # ties within a block (after relu: blocks of zeros) get the gradient more than once,
        # but relu's mask zeroes it there; elsewhere ties have probability zero
        out = np.zeros(shape, g.dtype)
        c, h, w = shape[1:]
        out[:, :, :h // 2 * 2, :w // 2 * 2] = (mask * g[:, :, :, None, :, None]).reshape(
            n, c, h // 2 * 2, w // 2 * 2)
        return out

    def step():
        w1, b1, w2, b2, w3, b3 = ps
        z1, cols1 = conv(x, w1, b1)
        a1 = np.maximum(z1, 0)
        p1, m1 = pool(a1)
        z2, cols2 = conv(p1, w2, b2)
        a2 = np.maximum(z2, 0)
        p2, m2 = pool(a2)
        flat = p2.reshape(n, -1)
        logits = flat @ w3.T + b3
        loss, g = _cross_entropy_numpy(logits, rows, y, n)
        gw3, gb3 = g.T @ flat, g.sum(0)
        g = unpool((g @ w3).reshape(p2.shape), m2, a2.shape) * (z2 > 0)
        g2 = g.transpose(0, 2, 3, 1).reshape(-1, w2.shape[0])
        gw2, gb2 = (g2.T @ cols2).reshape(w2.shape), g2.sum(0)
        g = unpool(_col2im(g2 @ w2.reshape(w2.shape[0], -1), p1.shape, 3), m1, a1.shape) * \
            (z1 > 0)
        g1 = g.transpose(0, 2, 3, 1).reshape(-1, w1.shape[0])
        gw1, gb1 = (g1.T @ cols1).reshape(w1.shape), g1.sum(0)
        for p, gp in zip(ps, (gw1, gb1, gw2, gb2, gw3, gb3)):
            p -= lr * gp
        return loss
    return step, ps


# -- W5: attention block -------------------------------------------------------------------
def attn_params(d, seed=2):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((d, d)) / np.sqrt(d)).astype(np.float32) for _ in range(4)]


def attn_setup(engine, params, x):
    lib = _lib(engine)
    ps = [lib.tensor(p.copy(), requires_grad=True) for p in params]
    xt = lib.tensor(x, requires_grad=True)
    d = x.shape[-1]

    def step():
        for p in ps + [xt]:
            p.grad = None
        mu = xt.mean(dim=-1, keepdim=True)
        var = xt.var(dim=-1, keepdim=True, unbiased=False)
        h = (xt - mu) / (var + 1e-5) ** 0.5
        q, k, v = h @ ps[0], h @ ps[1], h @ ps[2]
        att = lib.softmax(q @ k.transpose(-2, -1) / d ** 0.5, dim=-1)
        out = (att @ v) @ ps[3] + xt
        (out ** 2).mean().backward()
        return xt.grad
    return step, ps + [xt]


# -- W6: Hessian-vector product by double backward --------------------------------------------
def hvp_setup(engine, w, x, v):
    lib = _lib(engine)
    wt, xt, vt = lib.tensor(w), lib.tensor(x, requires_grad=True), lib.tensor(v)

    def step():
        f = (lib.tanh(wt @ xt) ** 2).sum()
        (g,) = lib.autograd.grad(f, xt, create_graph=True)
        (hv,) = lib.autograd.grad((g * vt).sum(), xt)
        return hv
    return step


def hvp_numpy(w, x, v):
    """H v for f = sum(tanh(Wx)^2): H = W^T diag(2(1-t^2)(1-3t^2)) W."""
    def step():
        t = np.tanh(w @ x)
        return w.T @ ((2 * (1 - t * t) * (1 - 3 * t * t)) * (w @ v))
    return step


# -- W8: model(x) call overhead -------------------------------------------------------------
def w8_mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def w8_cnn(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(16, 10))


def w8_setup(engine, build, state, x, grad):
    """``model(x)``: the model built as torch's (same weights through load_state_dict), called
    on a small batch, with gradient recording on (parameters require grad) or under no_grad."""
    lib = _lib(engine)
    model = build(lib)
    model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    xt = lib.tensor(x)

    def step():
        if grad:
            return model(xt)
        with lib.no_grad():
            return model(xt)
    return step


def _w8_state(build):
    rng = np.random.default_rng(8)
    return {k: rng.standard_normal(tuple(v.shape)).astype(np.float32) * 0.2
            for k, v in build(gg).state_dict().items()}


# -- W7: a 100,000-op chain, time and peak memory in a fresh subprocess per engine -----------
W7_CHILD = r"""
import os, sys, time, tracemalloc, json
for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = sys.argv[3]
engine, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[5]
if engine == "glassgrad":
    sys.path.insert(0, sys.argv[4])
    import glassgrad as lib
else:
    import torch as lib
    lib.set_num_threads(int(sys.argv[3]))
def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
x = lib.full((100,), 0.5, requires_grad=True)
(x * 1.0).sum().backward()     # warm the op path
x.grad = None
rss0 = rss_mb()
if mode == "memory":     # tracemalloc slows every allocation: a run of its own
    tracemalloc.start()
t0 = time.perf_counter()
y = x
for i in range(n):
    y = lib.sin(y) if i % 2 else y * 0.999
t1 = time.perf_counter()
graph_mb = rss_mb() - rss0
y.sum().backward()
t2 = time.perf_counter()
out = {"forward_s": t1 - t0, "backward_s": t2 - t1, "rss_graph_mb": graph_mb,
       "grad_finite": bool(lib.isfinite(x.grad).all())}
if mode == "memory":
    out["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
print(json.dumps(out))
"""


def run_w7(n):
    """Per engine: a timing process, then a tracemalloc process (memory)."""
    out = {}
    for engine in ("glassgrad", "pytorch"):
        if engine == "pytorch" and torch is None:
            continue
        res = {}
        for mode in ("time", "memory"):
            p = subprocess.run([sys.executable, "-c", W7_CHILD, engine, str(n), THREADS,
                                os.path.dirname(HERE), mode], capture_output=True, text=True,
                               timeout=1800)
            if p.returncode:
                res = {"error": p.stderr[-400:]}
                break
            r = json.loads(p.stdout.strip().splitlines()[-1])
            if mode == "time":
                res.update(r)
            else:
                res["tracemalloc_peak_mb"] = r["tracemalloc_peak_mb"]
        out[engine] = res
    return out


# -- import time ---------------------------------------------------------------------------
def import_time(repeats):
    """Fresh-process import times with the bytecode cache as users have it: written once
    (into a temporary PYTHONPYCACHEPREFIX, whatever PYTHONDONTWRITEBYTECODE says), then read."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="bench_pycache_") as cache:
        env = {**os.environ, "PYTHONPATH": os.path.dirname(HERE), "PYTHONPYCACHEPREFIX": cache}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for name, mod in (("python", "pass"), ("glassgrad", "import glassgrad"),
                          ("pytorch", "import torch"), ("numpy", "import numpy")):
            if name == "pytorch" and torch is None:
                continue
            subprocess.run([sys.executable, "-c", mod], check=True, env=env)     # (the cache)
            ts = []
            for _ in range(repeats):
                t = time.perf_counter()
                subprocess.run([sys.executable, "-c", mod], check=True, env=env)
                ts.append(time.perf_counter() - t)
            out[name] = statistics.median(ts)
    base = out.pop("python")
    return {k: v - base for k, v in out.items()} | {"python_startup": base}


# -- harness -------------------------------------------------------------------------------
def interleaved(steps, rounds, warmup=2, min_time=0.05):
    """steps: engine -> callable. Round-robin; each round times `inner` calls of each (inner
    chosen so that one timing lasts at least min_time), each round in another order of the
    engines (the orders shuffled, seeded): which engine runs after which moves a step's time
    by up to 10% (caches, the allocator), so no engine always follows the same one. Median
    seconds per call."""
    inner = {}
    for name, fn in steps.items():
        for _ in range(warmup):
            fn()
        t = time.perf_counter()
        fn()
        dt = time.perf_counter() - t
        inner[name] = max(1, int(min_time / max(dt, 1e-9)))
    times = {name: [] for name in steps}
    orders = list(itertools.permutations(steps))
    random.Random(0).shuffle(orders)
    for r in range(rounds):
        for name in orders[r % len(orders)]:
            fn, k = steps[name], inner[name]
            t = time.perf_counter()
            for _ in range(k):
                fn()
            times[name].append((time.perf_counter() - t) / k)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _arr(t):
    if isinstance(t, np.ndarray):
        return t
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def check_close(name, ref, got, rtol=2e-3, atol=2e-4):
    ref, got = _arr(ref), _arr(got)
    if not np.allclose(ref, got, rtol=rtol, atol=atol):
        err = float(np.max(np.abs(ref.astype(np.float64) - got)))
        raise AssertionError(f"{name}: gradients differ from PyTorch (max abs err {err:.3g})")


def bench_w1(rounds):
    rows = []
    for label, shape in (("scalar", ()), ("100 elements", (100,))):
        steps = {e: w1_setup(e, shape) for e in _engines()}
        steps["numpy"] = w1_numpy(shape)
        for e in steps:
            check_close(f"W1 {e}", steps["glassgrad"](), steps[e]())
        steps["no provenance"] = w1_without_provenance(w1_setup("glassgrad", shape))
        t = interleaved(steps, rounds)
        off = t.pop("no provenance")
        rows.append(("W1", f"overhead chain, {label}", t, W1_OPS, "µs per op (fwd+bwd)"))
        rows.append(("W1", f"overhead chain, {label}, provenance off (cost of provenance: "
                     f"{(t['glassgrad'] / off - 1) * 100:+.1f}%)",
                     {**{k: v for k, v in t.items() if k != "before"}, "glassgrad": off},
                     W1_OPS, "µs per op (fwd+bwd)"))
    for label, subclass in (("a plain leaf", False), ("an nn.Parameter (a Tensor subclass; before: a plain subclass)", True)):
        steps = {e: w1_leaf_setup(e, subclass) for e in _engines()}
        for e in steps:
            check_close(f"W1 leaf {e}", steps["glassgrad"](), steps[e]())
        rows.append(("W1", f"`x * w` chain, w {label}", interleaved(steps, rounds), W1_OPS,
                     "µs per op (fwd+bwd)"))
    return rows


def w1_compiled_setup(shape):
    """W1's step with the chain (and its sum) through glassgrad.compile."""
    x = gg.full(shape, 0.3, dtype=gg.float32, requires_grad=True)
    chain = gg.compile(lambda x: w1_chain(gg, x).sum())

    def step():
        x.grad = None
        chain(x).backward()
        return x.grad
    return step


def bench_w1c(rounds):
    """W1 through glassgrad.compile against PyTorch eager (and glassgrad eager, as before)."""
    rows = []
    for label, shape in (("scalar", ()), ("100 elements", (100,))):
        steps = {"glassgrad": w1_compiled_setup(shape), "before": w1_setup("glassgrad", shape)}
        if torch is not None:
            steps["pytorch"] = w1_setup("pytorch", shape)
        steps["numpy"] = w1_numpy(shape)
        for e in steps:
            check_close(f"W1c {e}", steps["before"](), steps[e]())
        rows.append(("W1c", f"overhead chain compiled, {label} (before: glassgrad eager)",
                     interleaved(steps, rounds), W1_OPS, "µs per op (fwd+bwd)"))
    return rows


def bench_w2_compiled(rounds, name, label, compiled, checks):
    """W2 with glassgrad's ``compiled`` part (see mlp_setup) through glassgrad.compile,
    against PyTorch eager (before: glassgrad eager); ``checks`` steps from the same start give
    the same losses and weights, bit for bit with eager (the capture's step, then replays)."""
    params, batches = mlp_params([64, 128, 128, 10]), _digits()
    steps, tensors = {}, {}
    steps["glassgrad"], tensors["glassgrad"] = mlp_setup("glassgrad", params, batches,
                                                         compiled=compiled)
    steps["before"], tensors["before"] = mlp_setup("glassgrad", params, batches)
    if torch is not None:
        steps["pytorch"], tensors["pytorch"] = mlp_setup("pytorch", params, batches)
    steps["numpy"], tensors["numpy"] = mlp_numpy(params, batches)
    for _ in range(checks):
        losses = {e: float(_arr(steps[e]())) for e in steps}
        assert losses["glassgrad"] == losses["before"], losses      # bit for bit
        for a, b in zip(tensors["before"], tensors["glassgrad"]):
            assert np.array_equal(_arr(a), _arr(b))
    return [(name, label, interleaved(steps, rounds), 1, "ms per step")]


def bench_w2c(rounds):
    return bench_w2_compiled(rounds, "W2c", "digits MLP step, forward+loss compiled (before: "
                             "glassgrad eager)", "forward", 1)


def bench_w2s(rounds):
    return bench_w2_compiled(rounds, "W2s", "digits MLP step, whole step compiled (before: "
                             "glassgrad eager)", "step", 3)


def bench_mlp(rounds, name, label, sizes, batches):
    params = mlp_params(sizes)
    steps, tensors = {}, {}
    for engine in _engines():
        steps[engine], tensors[engine] = mlp_setup(engine, params, batches)
    steps["numpy"], tensors["numpy"] = mlp_numpy(params, batches)
    if torch is not None:      # one step each from the same start: same loss, same new weights
        losses = {e: float(_arr(steps[e]())) for e in steps}
        for e in steps.keys() - {"pytorch"}:
            assert abs(losses[e] - losses["pytorch"]) < 1e-4, (name, losses)
            for a, b in zip(tensors["pytorch"], tensors[e]):
                check_close(name, a, b if e == "numpy" else b.detach())
    t = interleaved(steps, rounds)
    return [(name, label, t, 1, "ms per step")]


def bench_w3(rounds):
    return bench_mlp(rounds, "W3", "MLP 784-1024-1024-10, batch 256, SGD step", *w3_data())


def w3_data():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    y = rng.integers(0, 10, 256).astype(np.int64)
    return [784, 1024, 1024, 10], [(x, y)]


def w3_step_peak_mb(engine):
    """Peak traced memory (MB) of one W3 step after a warm-up step, in this process:
    tracemalloc sees NumPy's and Python's allocations (not PyTorch's C++ allocator)."""
    import gc
    import tracemalloc
    sizes, batches = w3_data()
    params = mlp_params(sizes)
    step = (mlp_numpy(params, batches) if engine == "numpy" else
            mlp_setup(engine, params, batches))[0]
    step()
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    step()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak / 2**20


def run_w3_memory():
    """w3_step_peak_mb in a fresh process per engine (glassgrad and the NumPy floor)."""
    out = {}
    for engine in ("glassgrad", "numpy"):
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--w3-memory", engine],
                           capture_output=True, text=True, timeout=600)
        out[engine] = (json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0
                       else {"error": p.stderr[-400:]})
    return out


def bench_w2(rounds):
    return bench_mlp(rounds, "W2", "sklearn digits MLP 64-128-128-10, batch 64, SGD step",
                     [64, 128, 128, 10], _digits())


def bench_w4(rounds):
    rng = np.random.default_rng(6)
    x = rng.random((32, 1, 28, 28), dtype=np.float32)
    y = rng.integers(0, 10, 32).astype(np.int64)
    params = cnn_params()
    steps, tensors = {}, {}
    for engine in _engines():
        steps[engine], tensors[engine] = cnn_setup(engine, params, x, y)
    steps["numpy"], tensors["numpy"] = cnn_numpy(params, x, y)
    if torch is not None:      # one step each from the same start: same loss, same new weights
        losses = {e: float(_arr(steps[e]())) for e in steps}
        for e in steps.keys() - {"pytorch"}:
            assert abs(losses[e] - losses["pytorch"]) < 1e-4, ("W4", losses)
            for a, b in zip(tensors["pytorch"], tensors[e]):
                check_close("W4", a, b if e == "numpy" else b.detach())
    t = interleaved(steps, rounds)
    return [("W4", "CNN conv3x3(1→16) relu maxpool conv3x3(16→32) relu maxpool linear, "
             "batch 32 of 1x28x28, SGD step", t, 1, "ms per step")]


def bench_w5(rounds):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 64, 64)).astype(np.float32)
    params = attn_params(64)
    steps, tensors = {}, {}
    for engine in _engines():
        steps[engine], tensors[engine] = attn_setup(engine, params, x)
    for e in steps:
        steps[e]()
    for e in steps:
        for a, b in zip(tensors["glassgrad"], tensors[e]):
            check_close(f"W5 {e}", a.grad, b.grad)
    t = interleaved(steps, rounds)
    return [("W5", "attention block (layernorm by mean/var, softmax), 8x64x64", t, 1,
             "ms per step")]


def bench_w6(rounds):
    rng = np.random.default_rng(4)
    n = 256
    w = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
    x, v = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    steps = {e: hvp_setup(e, w, x, v) for e in _engines()}
    steps["numpy"] = hvp_numpy(w, x, v)
    for e in steps:
        check_close(f"W6 {e}", steps["glassgrad"](), steps[e]())
    t = interleaved(steps, rounds)
    return [("W6", "Hessian-vector product, double backward, 256-dim", t, 1, "ms per HVP")]


def func_setups(engine):
    """torch.func workloads (issue 17): jacrev of a 512x64 function, the Hessian of a 128-dim
    one, per-sample gradients of a 64-128-10 MLP over 64 examples."""
    lib = _lib(engine)
    rng = np.random.default_rng(8)
    t = lambda *shape: lib.tensor(rng.standard_normal(shape).astype(np.float32))  # noqa: E731
    w, x, a, z = t(512, 64), t(64), t(128, 128), t(128)
    params = (t(64, 128) * 0.1, t(128) * 0, t(128, 10) * 0.1, t(10) * 0)
    xs, ys = t(64, 64), lib.tensor(rng.integers(0, 10, 64))
    F = lib.nn.functional

    def loss(p, xb, yb):
        return F.cross_entropy((xb @ p[0] + p[1]).relu() @ p[2] + p[3], yb)
    return {
        "jacrev": lambda: lib.func.jacrev(lambda v: (w @ v).tanh())(x),
        "hessian": lambda: lib.func.hessian(lambda v: (a @ v).tanh().sum())(z),
        "per-sample": lambda: lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(
            params, xs, ys)[0]}


def bench_func(rounds):
    setups = {e: func_setups(e) for e in _engines()}
    labels = {"jacrev": "jacrev of a 512x64 function", "hessian": "hessian, 128-dim",
              "per-sample": "per-sample grads, 64-128-10 MLP, 64 examples"}
    rows = []
    for key, label in labels.items():
        steps = {e: setups[e][key] for e in setups}
        for e in steps:
            check_close(f"func {key} {e}", steps["glassgrad"](), steps[e]())
        rows.append(("func", label, interleaved(steps, rounds), 1, "ms per call"))
    return rows


def bench_w8(rounds):
    rng = np.random.default_rng(9)
    rows = []
    for label, build, x in (
            ("3-layer MLP 32-64-64-10 (Linear, ReLU), batch 4", w8_mlp,
             rng.standard_normal((4, 32)).astype(np.float32)),
            ("small CNN (2 conv3x3, ReLU, maxpool, adaptive avgpool, linear), batch 2 of "
             "3x16x16", w8_cnn, rng.standard_normal((2, 3, 16, 16)).astype(np.float32))):
        state = _w8_state(build)
        n_modules = len(build(gg)) + 1
        for grad in (True, False):
            steps = {e: w8_setup(e, build, state, x, grad) for e in _engines()}
            for e in steps:
                check_close(f"W8 {e}", steps["pytorch" if torch else "glassgrad"](), steps[e]())
            mode = "recording the graph" if grad else "under no_grad"
            rows.append(("W8", f"`model(x)`, {label}, {mode}; {n_modules} module calls",
                         interleaved(steps, rounds), 1, "µs per call"))
    return rows


def _fmt(seconds, per, unit):
    v = seconds / per
    return f"{v * 1e6:.2f}" if unit.startswith("µs") else f"{v * 1e3:.2f}"


def table(rows):
    before = any("before" in t for _, _, t, _, _ in rows)
    head = ["workload", "", "unit", "glassgrad"] + (["before"] if before else []) + [
        "PyTorch", "NumPy", "glassgrad/PyTorch", "glassgrad/NumPy"] + (
        ["glassgrad/before"] if before else [])
    lines = ["| " + " | ".join(head) + " |", "|---|---|---|" + "---:|" * (len(head) - 3)]
    for name, label, t, per, unit in rows:
        g, b, p, n = (t.get(k) for k in ("glassgrad", "before", "pytorch", "numpy"))
        cells = [name, label, unit, _fmt(g, per, unit)] + (
            [_fmt(b, per, unit) if b else "–"] if before else []) + [
            _fmt(p, per, unit) if p else "–", _fmt(n, per, unit) if n else "–",
            f"{g / p:.2f}×" if p else "–", f"{g / n:.2f}×" if n else "–"] + (
            [f"{g / b:.2f}×" if b else "–"] if before else [])
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="W1,W1c,W2,W2c,W2s,W3,W4,W5,W6,W7,W8,func,import",
                    help="comma-separated workloads (W1,W1c,W2,W2c,W2s,W3,W4,W5,W6,W7,W8,func,"
                    "import; W1c, W2c, W2s: glassgrad.compile)")
    ap.add_argument("--rounds", type=int, default=11, help="timed rounds per workload")
    ap.add_argument("--w7-ops", type=int, default=100_000)
    ap.add_argument("--json", default=os.path.join(HERE, "results.json"))
    ap.add_argument("--against", metavar="REV", help="also time glassgrad as of this git revision "
                    "in the same interleaved rounds (the 'before' column)")
    ap.add_argument("--w3-memory", help=argparse.SUPPRESS)     # the child of run_w3_memory
    args = ap.parse_args(argv)
    global BEFORE
    if args.against:
        BEFORE = load_before(args.against)
    if args.w3_memory:
        print(json.dumps({"peak_mb": w3_step_peak_mb(args.w3_memory)}))
        return None
    only = set(args.only.split(","))
    rows, notes, extra = [], [], {}
    if torch is None:
        notes.append("PyTorch is not installed: glassgrad and NumPy columns only.")
    benches = (("W1", bench_w1), ("W1c", bench_w1c), ("W2", bench_w2), ("W2c", bench_w2c),
               ("W2s", bench_w2s),
               ("W3", bench_w3), ("W4", bench_w4), ("W5", bench_w5), ("W6", bench_w6),
               ("W8", bench_w8), ("func", bench_func))
    for name, fn in benches:
        if name not in only:
            continue
        if name in ("W2", "W2c", "W2s"):
            try:
                import sklearn  # noqa: F401
            except ImportError:
                notes.append("W2 (sklearn digits) skipped: scikit-learn is not installed "
                             "(`pip install scikit-learn`).")
                continue
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows += fn(args.rounds)
    if "W3" in only:
        extra["W3_memory"] = run_w3_memory()
    if "W7" in only:
        print("running W7 ...", file=sys.stderr, flush=True)
        extra["W7"] = run_w7(args.w7_ops)
    if "import" in only:
        extra["import_s"] = import_time(repeats=5)
    md = table(rows)
    if "W7" in extra:
        md += f"\n\nW7: a chain of {args.w7_ops:,} ops (sin / mul alternating, 100 elements), " \
              "forward then backward, one fresh process per engine:\n\n" \
              "| engine | forward s | backward s | µs per op | RSS held by the graph MB | " \
              "tracemalloc peak MB |\n|---|---:|---:|---:|---:|---:|\n"
        for engine, r in extra["W7"].items():
            if "error" in r:
                md += f"| {engine} | error: {r['error'][-120:]!r} | | | | |\n"
            else:
                per = (r["forward_s"] + r["backward_s"]) / args.w7_ops * 1e6
                md += (f"| {engine} | {r['forward_s']:.2f} | {r['backward_s']:.2f} | {per:.1f} | "
                       f"{r['rss_graph_mb']:.1f} | {r['tracemalloc_peak_mb']:.1f} |\n")
        md += "\n(tracemalloc sees Python and NumPy allocations, not PyTorch's C++ allocator: " \
              "compare RSS across engines.)"
    if "W3_memory" in extra:
        m = extra["W3_memory"]
        if all("peak_mb" in r for r in m.values()):
            md += ("\n\nW3 peak memory of one step (tracemalloc, a fresh process per engine): "
                   f"glassgrad {m['glassgrad']['peak_mb']:.1f} MB, NumPy floor "
                   f"{m['numpy']['peak_mb']:.1f} MB "
                   f"({m['glassgrad']['peak_mb'] / m['numpy']['peak_mb']:.2f}×)")
        else:
            md += f"\n\nW3 peak memory: error {m!r:.300}"
    if "import_s" in extra:
        imp = extra["import_s"]
        md += "\n\nImport time (fresh process, minus bare interpreter start " \
              f"{imp['python_startup'] * 1e3:.0f} ms): " + ", ".join(
                  f"`import {k if k != 'pytorch' else 'torch'}` {v * 1e3:.0f} ms"
                  for k, v in imp.items() if k != "python_startup")
    if notes:
        md += "\n\n" + "\n".join(f"- {n}" for n in notes)
    print(md)
    result = {
        "machine": {"python": sys.version.split()[0], "platform": platform.platform(),
                    "cpus": os.cpu_count(), "threads": int(THREADS), "numpy": np.__version__,
                    "torch": getattr(torch, "__version__", None)},
        "rounds": args.rounds,
        "rows": [{"workload": n, "label": lbl, "unit": u, "per": per,
                  "median_s": t, "ratio_vs_pytorch": t["glassgrad"] / t["pytorch"]
                  if "pytorch" in t else None,
                  "ratio_vs_numpy": t["glassgrad"] / t["numpy"] if "numpy" in t else None}
                 for n, lbl, t, per, u in rows],
        "extra": extra, "notes": notes, "markdown": md}
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
    return result


if __name__ == "__main__":
    main()
