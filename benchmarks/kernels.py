"""Kernel A/B (issue 17's kernels of W5, W2 and W4): glassgrad as of a commit ("before") against
this checkout ("after"), in one process (run.py's load_before), one thread.

    .venv/bin/python benchmarks/kernels.py --against 4c2255d            # kernels, CPU time
    .venv/bin/python benchmarks/kernels.py --against 4c2255d --steps    # W2/W4/W5 steps too
    .venv/bin/python benchmarks/kernels.py --against 4c2255d --values   # what the results do

Kernels: each changed kernel or backward formula called on arrays (the engine's array path),
before and after alternating, rounds interleaved, ``thread_time``; the lower quartile per call.
Steps: W2/W4/W5 (run.py's setups) in glassgrad before and after and in PyTorch, rounds
shuffled; median and minimum CPU time per step. Values: sums, means, var/std, softmax,
log_softmax and powers over a grid of shapes, dtypes (float16, bfloat16, float32, float64),
layouts (contiguous, transposed, sliced) and values (NaN, inf, signed zeros, large), forward and
backward, in both versions: how many results are the same bits, and the largest difference of
the others, relative to the array's largest magnitude (NaN and inf positions must agree).
Benchmarks, not tests: nothing here asserts a timing.
"""
import argparse
import importlib
import random
import statistics
import sys
import time

import run as R     # (pins the BLAS and OpenMP pools and torch's threads to BENCH_THREADS)
from run import np, torch


def _mods(g):
    return [importlib.import_module(f"{g.__name__}.ops.{m}")
            for m in ("reduce", "nn", "pointwise", "linalg", "conv")]


def kernel_cases(g):
    red, nn, pw, la, cv = _mods(g)
    rng = np.random.default_rng(7)
    out = {}
    for dt in (np.float32, np.float64):
        q, k = (rng.standard_normal((8, 64, 64)).astype(dt) for _ in range(2))
        out[f"bmm q @ k.mT 8x64x64 {dt.__name__}"] = (
            lambda q=q, k=k: la._stacked_matmul(np, q, k.swapaxes(1, 2)))
    x = rng.random((32, 16, 13, 13), dtype=np.float32)
    go = rng.standard_normal((32, 32, 11, 11)).astype(np.float32)
    w = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)
    out["conv2 weight gradient (W4) float32"] = (
        lambda: cv._conv_weight_grad(go, x, w, (1, 1), (0, 0), (1, 1), 1))
    for shape in [(8, 64, 64), (64, 10), (64, 128), (512, 10), (32, 16, 26, 26)]:
        a = rng.standard_normal(shape).astype(np.float32)
        d, last = len(shape) - 1, (len(shape) - 1,)
        res = nn._softmax_forward(a, d, False)
        gr = rng.standard_normal(shape).astype(np.float32)
        g1 = rng.standard_normal(shape[:-1] + (1,)).astype(np.float32)
        n = int(np.prod(shape))
        sm, lsm = nn._softmax.formulas[0][0], nn._log_softmax.formulas[0][0]
        m0, m1 = red._mean_all.formulas[0][0], red._mean_dim.formulas[0][0]
        out.update({
            f"sum(-1) {shape}": lambda a=a, ax=last: red._sum_forward(np, a, ax, True, None),
            f"mean(-1) {shape}": lambda a=a, ax=last: red._mean_forward(np, a, ax, True, None),
            f"var(-1) {shape}": lambda a=a, ax=last: red._var_forward(np, a, ax, 0, True),
            f"softmax {shape}": lambda a=a, d=d: nn._softmax_forward(a, d, False),
            f"log_softmax {shape}": lambda a=a, d=d: nn._softmax_forward(a, d, True),
            f"SoftmaxBackward0 {shape}": lambda gr=gr, res=res, d=d, f=sm: f(gr, res, d),
            f"LogSoftmaxBackward0 {shape}": lambda gr=gr, res=res, d=d, f=lsm: f(gr, res, d),
            f"MeanBackward0 {shape}": lambda s=shape, n=n: m0(np.float32(1.5), s, n),
            f"MeanBackward1 {shape}": lambda g1=g1, s=shape, n=n, ax=last: m1(g1, s, n, ax, True),
            f"x ** 1 {shape}": lambda a=a: pw._pow_forward(np, a, 1)})
    return out


def time_kernels(before, rounds):
    after, prior = kernel_cases(R.gg), kernel_cases(before)
    times = {k: ([], []) for k in after}
    for r in range(rounds):
        for k in after:
            pair = [(0, after[k]), (1, prior[k])]
            for which, fn in (pair if r % 2 else pair[::-1]):
                n = 10 if "conv" in k else 100
                t = time.thread_time()
                for _ in range(n):
                    fn()
                times[k][which].append((time.thread_time() - t) / n * 1e6)
    print(f"| kernel (CPU µs per call, lower quartile of {rounds} rounds) | before | after | |")
    print("|---|---:|---:|---:|")
    for k, (a, b) in times.items():
        qa, qb = np.percentile(a, 25), np.percentile(b, 25)
        print(f"| {k} | {qb:.1f} | {qa:.1f} | {qa / qb:.2f}× |")


def step_setups(w):
    engines = ("glassgrad", "before", "pytorch")
    if w == "W5":
        x = np.random.default_rng(3).standard_normal((8, 64, 64)).astype(np.float32)
        return {e: R.attn_setup(e, R.attn_params(64), x)[0] for e in engines}, 3
    if w == "W2":
        params, batches = R.mlp_params([64, 128, 128, 10]), R._digits()
        return {e: R.mlp_setup(e, params, batches)[0] for e in engines}, 10
    rng = np.random.default_rng(6)
    x = rng.random((32, 1, 28, 28), dtype=np.float32)
    y = rng.integers(0, 10, 32).astype(np.int64)
    return {e: R.cnn_setup(e, R.cnn_params(), x, y)[0] for e in engines}, 1


def time_steps(rounds):
    print("| step (CPU ms: median / min) | after | before | PyTorch | after/PyTorch | "
          "before/PyTorch | after/before |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for w in ("W5", "W2", "W4"):
        steps, inner = step_setups(w)
        for f in steps.values():
            for _ in range(5):
                f()
        times, order = {e: [] for e in steps}, list(steps)
        for r in range(rounds):
            random.Random(r).shuffle(order)
            for e in order:
                t = time.thread_time()
                for _ in range(inner):
                    steps[e]()
                times[e].append((time.thread_time() - t) / inner * 1e3)
        med = {e: statistics.median(v) for e, v in times.items()}
        low = {e: min(v) for e, v in times.items()}

        def pair(a, b):
            return f"{med[a] / med[b]:.2f}× / {low[a] / low[b]:.2f}×"
        print(f"| {w} | {med['glassgrad']:.2f} / {low['glassgrad']:.2f} | {med['before']:.2f} / "
              f"{low['before']:.2f} | {med['pytorch']:.2f} / {low['pytorch']:.2f} | "
              f"{pair('glassgrad', 'pytorch')} | {pair('before', 'pytorch')} | "
              f"{pair('glassgrad', 'before')} |")


VALUE_OPS = {
    "sum": lambda t, x: x.sum(-1), "mean": lambda t, x: x.mean(-1, keepdim=True),
    "mean_all": lambda t, x: x.mean(), "var": lambda t, x: x.var(-1),
    "var_correction": lambda t, x: x.var(-1, correction=2.5, keepdim=True),
    "std": lambda t, x: x.std(-1), "softmax": lambda t, x: t.softmax(x, -1),
    "log_softmax": lambda t, x: t.log_softmax(x, -1), "pow2": lambda t, x: x ** 2,
    "pow1": lambda t, x: x ** 1, "sub_mean": lambda t, x: x - x.mean(-1, keepdim=True),
    "bmm_mT": lambda t, x: x @ x.mT if x.dim() == 3 else x.sum(-1)}


def _array(t):
    """A result as NumPy holds it (bfloat16 as float32, which holds it exactly)."""
    t = t.detach()
    return (t.float() if str(t.dtype).endswith("bfloat16") else t).numpy().copy()


def value_results(lib):
    """Every VALUE_OPS program's output and input gradient on the grid, as NumPy arrays."""
    out, rng = {}, np.random.default_rng(0)
    for shape in [(3, 5), (16, 8), (512, 64), (8, 64, 64), (4, 33, 128), (2, 20, 129),
                  (300, 100), (64, 10), (8, 32, 64)]:
        base = rng.standard_normal(shape) * 3
        special = base.copy()
        special.reshape(-1)[[1, 3, 5]] = [np.nan, np.inf, -np.inf]
        zeros = np.where(rng.random(shape) < 0.5, -0.0, 0.0)
        for kind, arr in (("plain", base), ("special", special), ("zeros", zeros)):
            for dt in ("float16", "bfloat16", "float32", "float64"):
                for layout in ("C", "T", "slice"):
                    x = lib.tensor(arr).to(getattr(lib, dt))
                    if layout == "T":
                        x = x.transpose(-2, -1).contiguous().transpose(-2, -1)
                    elif layout == "slice":
                        x = x[..., ::2]
                    for name, f in VALUE_OPS.items():
                        xi = x.detach().requires_grad_(True)
                        y = f(lib, xi)
                        g = lib.tensor(rng.standard_normal(tuple(y.shape))).to(y.dtype)
                        (gx,) = lib.autograd.grad(y, xi, g)
                        key = f"{shape}|{kind}|{dt}|{layout}|{name}"
                        out[key + "|y"] = _array(y)
                        out[key + "|grad"] = _array(gx)
    return out


def compare_values(before):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = value_results(R.gg), value_results(before)
    same, worst, changed = 0, {}, {}
    for k in a:
        x, y = a[k], b[k]
        if x.shape == y.shape and np.array_equal(x.reshape(-1).view(np.uint8), y.reshape(-1).view(np.uint8)):
            same += 1
            continue
        assert np.array_equal(np.isnan(x), np.isnan(y)), k
        inf = np.isinf(y)
        assert np.array_equal(x[inf], y[inf]) and np.array_equal(np.isinf(x), inf), k
        fin = np.isfinite(y)
        scale = np.abs(y[fin]).max() if fin.any() else 1.0
        op = k.split("|")[4] + " " + k.split("|")[2]
        rel = float(np.abs(x[fin] - y[fin]).max() / (scale or 1.0)) if fin.any() else 0.0
        worst[op] = max(worst.get(op, 0.0), rel)
        changed[op] = changed.get(op, 0) + 1
    print(f"{same} of {len(a)} results the same bits; NaN and inf positions agree everywhere")
    print("| op dtype | results changed | largest difference / the array's largest magnitude |")
    print("|---|---:|---:|")
    for op in sorted(worst):
        print(f"| {op} | {changed[op]} | {worst[op]:.1e} |")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--against", required=True, help="the git revision to compare with")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--steps", action="store_true", help="also W2/W4/W5 steps, CPU time")
    p.add_argument("--values", action="store_true", help="compare results instead of timing")
    args = p.parse_args()
    R.BEFORE = prior = R.load_before(args.against)
    if args.values:
        compare_values(prior)
        sys.exit()
    time_kernels(prior, args.rounds)
    if args.steps:
        if torch is None:
            sys.exit("the steps need PyTorch")
        time_steps(max(args.rounds, 30))
