"""glassgrad benchmarks: each workload in glassgrad, in PyTorch (same thread count) and, where
stated, in hand-written NumPy (manual forward and backward), interleaved round-robin in one
process after a warm-up; the median time per iteration and the ratios glassgrad/PyTorch and
glassgrad/NumPy. Gradients are checked once against PyTorch before timing.

    make bench                      # everything (a few minutes on 2 cores)
    .venv/bin/python benchmarks/run.py --only W1,W3 --rounds 5

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
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
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

ENGINES = ("glassgrad", "pytorch", "numpy")


def _lib(engine):
    return gg if engine == "glassgrad" else torch


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
def _digits():
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    return x, d.target.astype(np.int64)


# -- W3: compute-bound MLP training step -----------------------------------------------------
def mlp_params(sizes, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        out.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
        out.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    return out


def mlp_setup(engine, params, x, y, lr=0.01):
    """zero grads, forward (relu), log_softmax + gather cross-entropy, backward, SGD under
    no_grad. Returns (step, params)."""
    lib = _lib(engine)
    ps = [lib.tensor(p.copy(), requires_grad=True) for p in params]
    xt, yt = lib.tensor(x), lib.tensor(y)

    def step():
        for p in ps:
            p.grad = None
        h = xt
        for i in range(0, len(ps), 2):
            h = h @ ps[i] + ps[i + 1]
            if i + 2 < len(ps):
                h = lib.relu(h)
        logp = lib.log_softmax(h, dim=1)
        loss = -logp.gather(1, yt[:, None]).mean()
        loss.backward()
        with lib.no_grad():
            for p in ps:
                p -= lr * p.grad
        return loss
    return step, ps


def mlp_numpy(params, x, y, lr=0.01):
    ps = [p.copy() for p in params]
    n = x.shape[0]
    rows = np.arange(n)

    def step():
        hs, h = [x], x
        for i in range(0, len(ps), 2):
            h = h @ ps[i] + ps[i + 1]
            if i + 2 < len(ps):
                h = np.maximum(h, 0)
            hs.append(h)
        z = h - h.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1, keepdims=True)
        loss = -(z[rows, y] - np.log(s[:, 0])).mean()
        g = e / s
        g[rows, y] -= 1
        g /= n
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
    out = {}
    for name, mod in (("python", "pass"), ("glassgrad", "import glassgrad"),
                      ("pytorch", "import torch"), ("numpy", "import numpy")):
        if name == "pytorch" and torch is None:
            continue
        ts = []
        for _ in range(repeats):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", mod], check=True,
                           env={**os.environ, "PYTHONPATH": os.path.dirname(HERE)})
            ts.append(time.perf_counter() - t)
        out[name] = statistics.median(ts)
    base = out.pop("python")
    return {k: v - base for k, v in out.items()} | {"python_startup": base}


# -- harness -------------------------------------------------------------------------------
def interleaved(steps, rounds, warmup=2, min_time=0.05):
    """steps: engine -> callable. Round-robin; each round times `inner` calls of each (inner
    chosen so that one timing lasts at least min_time). Median seconds per call."""
    inner = {}
    for name, fn in steps.items():
        for _ in range(warmup):
            fn()
        t = time.perf_counter()
        fn()
        dt = time.perf_counter() - t
        inner[name] = max(1, int(min_time / max(dt, 1e-9)))
    times = {name: [] for name in steps}
    for _ in range(rounds):
        for name, fn in steps.items():
            k = inner[name]
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
        steps = {"glassgrad": w1_setup("glassgrad", shape), "numpy": w1_numpy(shape)}
        if torch is not None:
            steps["pytorch"] = w1_setup("pytorch", shape)
            check_close("W1", steps["pytorch"](), steps["glassgrad"]())
        check_close("W1 numpy", steps["glassgrad"](), steps["numpy"]())
        steps["no provenance"] = w1_without_provenance(w1_setup("glassgrad", shape))
        t = interleaved(steps, rounds)
        off = t.pop("no provenance")
        rows.append(("W1", f"overhead chain, {label}", t, W1_OPS, "µs per op (fwd+bwd)"))
        rows.append(("W1", f"overhead chain, {label}, provenance off (cost of provenance: "
                     f"{(t['glassgrad'] / off - 1) * 100:+.1f}%)", {**t, "glassgrad": off},
                     W1_OPS, "µs per op (fwd+bwd)"))
    return rows


def bench_mlp(rounds, name, label, sizes, x, y):
    params = mlp_params(sizes)
    steps, tensors = {}, {}
    for engine in ("glassgrad", "pytorch"):
        if engine == "pytorch" and torch is None:
            continue
        steps[engine], tensors[engine] = mlp_setup(engine, params, x, y)
    steps["numpy"], tensors["numpy"] = mlp_numpy(params, x, y)
    if torch is not None:      # one step each from the same start: same loss, same new weights
        losses = {e: float(_arr(steps[e]())) for e in steps}
        for e in ("glassgrad", "numpy"):
            assert abs(losses[e] - losses["pytorch"]) < 1e-4, (name, losses)
            for a, b in zip(tensors["pytorch"], tensors[e]):
                check_close(name, a, b if e == "numpy" else b.detach())
    t = interleaved(steps, rounds)
    return [(name, label, t, 1, "ms per step")]


def bench_w3(rounds):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    y = rng.integers(0, 10, 256).astype(np.int64)
    return bench_mlp(rounds, "W3", "MLP 784-1024-1024-10, batch 256, SGD step", [784, 1024, 1024, 10],
                     x, y)


def bench_w2(rounds):
    x, y = _digits()
    return bench_mlp(rounds, "W2", "sklearn digits MLP 64-128-10, full batch 1797, SGD step",
                     [64, 128, 10], x, y)


def bench_w5(rounds):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 64, 64)).astype(np.float32)
    params = attn_params(64)
    steps, tensors = {}, {}
    for engine in ("glassgrad", "pytorch"):
        if engine == "pytorch" and torch is None:
            continue
        steps[engine], tensors[engine] = attn_setup(engine, params, x)
    if torch is not None:
        steps["glassgrad"](), steps["pytorch"]()
        for a, b in zip(tensors["pytorch"], tensors["glassgrad"]):
            check_close("W5", a.grad, b.grad)
    t = interleaved(steps, rounds)
    return [("W5", "attention block (layernorm by mean/var, softmax), 8x64x64", t, 1,
             "ms per step")]


def bench_w6(rounds):
    rng = np.random.default_rng(4)
    n = 256
    w = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
    x, v = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    steps = {"glassgrad": hvp_setup("glassgrad", w, x, v), "numpy": hvp_numpy(w, x, v)}
    if torch is not None:
        steps["pytorch"] = hvp_setup("pytorch", w, x, v)
        check_close("W6", steps["pytorch"](), steps["glassgrad"]())
    check_close("W6 numpy", steps["glassgrad"](), steps["numpy"]())
    t = interleaved(steps, rounds)
    return [("W6", "Hessian-vector product, double backward, 256-dim", t, 1, "ms per HVP")]


def _fmt(seconds, per, unit):
    v = seconds / per
    return f"{v * 1e6:.2f}" if unit.startswith("µs") else f"{v * 1e3:.2f}"


def table(rows):
    lines = ["| workload | | unit | glassgrad | PyTorch | NumPy | glassgrad/PyTorch | "
             "glassgrad/NumPy |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for name, label, t, per, unit in rows:
        g, p, n = t.get("glassgrad"), t.get("pytorch"), t.get("numpy")
        cells = [name, label, unit, _fmt(g, per, unit),
                 _fmt(p, per, unit) if p else "–", _fmt(n, per, unit) if n else "–",
                 f"{g / p:.2f}×" if p else "–", f"{g / n:.2f}×" if n else "–"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="W1,W2,W3,W5,W6,W7,import",
                    help="comma-separated workloads (W1,W2,W3,W5,W6,W7,import)")
    ap.add_argument("--rounds", type=int, default=11, help="timed rounds per workload")
    ap.add_argument("--w7-ops", type=int, default=100_000)
    ap.add_argument("--json", default=os.path.join(HERE, "results.json"))
    args = ap.parse_args(argv)
    only = set(args.only.split(","))
    rows, notes, extra = [], [], {}
    if torch is None:
        notes.append("PyTorch is not installed: glassgrad and NumPy columns only.")
    benches = (("W1", bench_w1), ("W2", bench_w2), ("W3", bench_w3), ("W5", bench_w5),
               ("W6", bench_w6))
    for name, fn in benches:
        if name not in only:
            continue
        if name == "W2":
            try:
                import sklearn  # noqa: F401
            except ImportError:
                notes.append("W2 (sklearn digits) skipped: scikit-learn is not installed "
                             "(`pip install scikit-learn`).")
                continue
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows += fn(args.rounds)
    notes.append("W4 (conv) skipped: glassgrad has no convolution op yet.")
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
