"""Memory stays flat over 10,000 training steps of W2's model (benchmarks/run.py: MLP
64-128-128-10, ReLU, cross-entropy, batch 64 of digits-shaped data, one SGD step per iteration).

Not a timing test: it samples memory (tracemalloc's current size, which sees every Python and
NumPy allocation, and the process's resident set) after a warm-up and asserts that neither
grows. The cyclic garbage collector is off during the run, so a reference cycle between tensors
and nodes would show as growth too: graphs must be freed by reference counting alone.

Tracing slows every allocation (a step ~4x), so tracemalloc watches the last 2,000 steps and
the resident set all 9,500 after warm-up. A leak grows in every stretch of steps; so the check is
that the first half of a series or the second grows by no more than a small slack. One of them
may hold a one-off jump: when a container older than the tracing is reallocated, its whole new
block counts as traced (seen here: a ~940 KB block reallocated inside NumPy's ``as_strided``
after a few thousand calls, then nothing more)."""
import gc
import json
import os
import pathlib
import subprocess
import sys
import tracemalloc

import numpy as np

import glassgrad as gg

ROOT = pathlib.Path(__file__).resolve().parent.parent
STEPS, WARMUP, EVERY = 10_000, 500, 250
TRACED = 2_000      # the last steps run with tracemalloc on (it makes a step ~4x slower)
TRACED_SLACK = 16 * 1024        # bytes in 1,000 steps: one leaked object a step exceeds it
RSS_SLACK = 4 * 2**20           # bytes: allocator noise; one leaked 64x128 float32 is 32 KiB


def _rss():
    """Resident set size in bytes (Linux), or None."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return None


def _w2_model(rng):
    params = []
    for fan_in, fan_out in ((64, 128), (128, 128), (128, 10)):
        bound = 1 / np.sqrt(fan_in)
        params.append(gg.tensor(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32),
                                requires_grad=True))
        params.append(gg.tensor(rng.uniform(-bound, bound, fan_out).astype(np.float32),
                                requires_grad=True))
    return params


def _step(params, x, y, lr=0.01):
    for p in params:
        p.grad = None
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = gg.relu(h)
    loss = -gg.log_softmax(h, dim=1).gather(1, y[:, None]).mean()
    loss.backward()
    with gg.no_grad():
        for p in params:
            p -= lr * p.grad
    return loss


def _train(steps=STEPS, warmup=WARMUP, every=EVERY, traced=TRACED):
    """Run the steps; after warm-up, every ``every`` steps and after the last, the resident
    set, and in the last ``traced`` steps tracemalloc's current size too:
    {"rss": [...], "traced": [...]}."""
    rng = np.random.default_rng(0)
    params = _w2_model(rng)
    batches = [(gg.tensor(rng.random((64, 64), dtype=np.float32)),
                gg.tensor(rng.integers(0, 10, 64))) for _ in range(28)]   # digits: 1,797 x 64
    samples = {"rss": [], "traced": []}
    gc.collect()
    gc.disable()
    try:
        for i in range(steps + 1):
            if i == steps - traced:
                tracemalloc.start()
            if i >= warmup and (i - warmup) % every == 0 or i == steps:
                samples["rss"].append(_rss())
                if tracemalloc.is_tracing():
                    samples["traced"].append(tracemalloc.get_traced_memory()[0])
            if i < steps:
                x, y = batches[i % len(batches)]
                loss = _step(params, x, y)
    finally:
        tracemalloc.stop()
        gc.enable()
    assert np.isfinite(loss.item())
    return samples


def test_memory_flat_over_10000_w2_steps():
    """In a fresh process (its own resident set; BLAS on one thread, so that a busy machine
    does not make the small matmuls crawl)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    out = subprocess.run([sys.executable, "-c", "import json, test_memory; "
                          "print(json.dumps(test_memory._train()))"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    samples = json.loads(out.stdout.strip().splitlines()[-1])
    traced = samples["traced"][1:]      # [0]: tracing had just begun
    assert len(traced) == TRACED // EVERY
    assert _growth(traced) <= TRACED_SLACK, f"traced memory grows: {traced}"
    rss = samples["rss"]
    if rss[0] is not None:
        assert _growth(rss) <= RSS_SLACK, f"resident memory grows: {rss}"


def _growth(samples):
    """How much the flatter half of the run grew."""
    mid = len(samples) // 2
    return min(max(half) - half[0] for half in (samples[:mid + 1], samples[mid:]))
