"""A data-parallel training step (DistributedDataParallel on MPI) on 1 process and on 2.

    python benchmarks/ddp_step.py [--steps N] [--batch B] [--width W]

starts itself under ``mpirun -n 1`` and ``mpirun -n 2`` (weak scaling: B samples per rank) and
prints, per world size: the step time (forward, backward, Adam), the throughput, the scaling
efficiency (throughput on 2 / twice that on 1), the time one blocking all-reduce of the
gradient buckets takes alone, the time the end of backward still waited for the buckets'
all-reduces (the part of communication not hidden behind backward), and so the share of
communication that overlapped backward. One BLAS thread per rank.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--batch", type=int, default=64, help="samples per rank")
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--rank-run", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args()


def measure(args):
    import glassgrad as torch
    import glassgrad.distributed as dist
    from glassgrad.nn.parallel import DistributedDataParallel
    torch.set_num_threads(1)
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    w = args.width
    model = DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(512, w), torch.nn.ReLU(), torch.nn.Linear(w, w), torch.nn.ReLU(),
        torch.nn.Linear(w, w), torch.nn.ReLU(), torch.nn.Linear(w, 10)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(args.batch, 512), torch.randint(0, 10, (args.batch,))
    reducer = model.reducer
    for _ in range(3):      # warm up; the first backward rebuilds the buckets
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    dist.barrier()
    reducer.waited = 0.0
    start = time.perf_counter()
    for _ in range(args.steps):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    step = (time.perf_counter() - start) / args.steps
    waited = reducer.waited / args.steps
    # the buckets' all-reduces alone, blocking, one after the other
    flats = [torch.zeros(sum(reducer.params[i].numel() for i in b)) for b in reducer.buckets]
    dist.barrier()
    start = time.perf_counter()
    for _ in range(args.steps):
        for f in flats:
            dist.all_reduce(f)
    alone = (time.perf_counter() - start) / args.steps
    if rank == 0:
        print(json.dumps({"world": world, "step_s": step, "samples_per_s": world * args.batch /
                          step, "allreduce_alone_s": alone, "waited_s": waited,
                          "buckets_mb": [round(f.numel() * 4 / 2 ** 20, 2) for f in flats]}))
    dist.destroy_process_group()


def main():
    args = parse()
    if args.rank_run:
        return measure(args)
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        raise SystemExit("needs OpenMPI's mpirun and mpi4py (`make mpi`)")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root, OMP_NUM_THREADS="1")
    rows = []
    for n in (1, 2):
        cmd = [mpirun, "-n", str(n), "--oversubscribe", "-x", "PYTHONPATH", "-x",
               "OMP_NUM_THREADS"] + (["--allow-run-as-root"] if os.geteuid() == 0 else []) + [
               sys.executable, os.path.abspath(__file__), "--rank-run", "--steps",
               str(args.steps), "--batch", str(args.batch), "--width", str(args.width)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
        rows.append(json.loads(out.strip().splitlines()[-1]))
    one = rows[0]["samples_per_s"]
    print(f"DDP step, {args.batch} samples per rank, MLP width {args.width}, buckets (MB) "
          f"{rows[1]['buckets_mb']}")
    print("| ranks | step (ms) | samples/s | scaling efficiency | all-reduce alone (ms) | "
          "waited at end of backward (ms) | communication overlapped |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        eff = r["samples_per_s"] / (r["world"] * one)
        comm = r["allreduce_alone_s"]
        overlap = max(0.0, 1 - r["waited_s"] / comm) if r["world"] > 1 and comm > 0 else None
        print(f"| {r['world']} | {r['step_s'] * 1e3:.1f} | {r['samples_per_s']:.0f} | "
              f"{eff:.0%} | {comm * 1e3:.2f} | {r['waited_s'] * 1e3:.2f} | "
              f"{'-' if overlap is None else f'{overlap:.0%}'} |")


if __name__ == "__main__":
    main()
