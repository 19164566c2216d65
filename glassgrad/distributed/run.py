"""python -m glassgrad.distributed.run: torchrun's interface, starting the processes through
OpenMPI's mpirun.

    python -m glassgrad.distributed.run --nproc-per-node N [--nnodes M --hostfile FILE]
        [--master-addr A --master-port P] [-m] script.py args...

starts N (times M) copies of ``script.py args`` under ``mpirun``; each sees torchrun's
variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR,
MASTER_PORT, TORCHELASTIC_RUN_ID) taken from the ranks MPI gave it, so init_process_group()
with env:// works unchanged. Several machines: an MPI hostfile (one ``host slots=N`` line per
machine) given with --hostfile; mpirun starts the processes there (glassgrad and the script
must be at the same paths on every machine). The exit status is mpirun's.
"""
import argparse
import os
import runpy
import shutil
import sys

_WORKER = "--as-mpi-rank"    # how mpirun starts this module in each process


def _parser():
    p = argparse.ArgumentParser(prog="python -m glassgrad.distributed.run",
                                description="torchrun's interface on mpirun")
    p.add_argument("--nproc-per-node", "--nproc_per_node", default="1")
    p.add_argument("--nnodes", default="1")
    p.add_argument("--node-rank", "--node_rank", type=int, default=0)
    p.add_argument("--hostfile", default=None,
                   help="an MPI hostfile naming the machines (several nodes)")
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", default="29500")
    p.add_argument("--standalone", action="store_true")
    p.add_argument("--rdzv-backend", "--rdzv_backend", default=None)
    p.add_argument("--rdzv-endpoint", "--rdzv_endpoint", default=None)
    p.add_argument("--max-restarts", "--max_restarts", type=int, default=0)
    p.add_argument("-m", "--module", action="store_true",
                   help="run the script as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true")
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _nproc(value):
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    return int(value)


def mpirun_command(args):
    """The mpirun command line that starts every rank of ``args``."""
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        raise SystemExit("glassgrad.distributed.run: mpirun was not found: install OpenMPI "
                         "(e.g. apt-get install openmpi-bin) and mpi4py (pip install "
                         "glassgrad[distributed])")
    nnodes = int(str(args.nnodes).split(":")[-1])
    if nnodes > 1 and args.hostfile is None:
        raise SystemExit("glassgrad.distributed.run: --nnodes > 1 needs --hostfile (an MPI "
                         "hostfile naming the machines)")
    if args.max_restarts:
        raise SystemExit("glassgrad.distributed.run: restarts (--max-restarts) are not "
                         "supported: MPI ends the job when a rank fails")
    n = _nproc(args.nproc_per_node)
    cmd = [mpirun, "-n", str(n * nnodes)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if args.hostfile is not None:
        cmd += ["--hostfile", args.hostfile, "--npernode", str(n)]
    else:
        cmd.append("--oversubscribe")       # more ranks than cores is fine on one machine
    for name in ("PYTHONPATH", "MASTER_ADDR", "MASTER_PORT", "TORCH_DISTRIBUTED_DEBUG"):
        if name in os.environ:
            cmd += ["-x", name]
    cmd += [sys.executable, "-m", "glassgrad.distributed.run", _WORKER,
            "--master-addr", args.master_addr, "--master-port", str(args.master_port)]
    if args.module:
        cmd.append("-m")
    if args.no_python:
        cmd.append("--no-python")
    return cmd + [args.training_script] + args.training_script_args


def _mpi_env(name, default=None):
    for prefix in ("OMPI_COMM_WORLD_", "PMI_", "MPI_LOCAL"):
        value = os.environ.get(prefix + name)
        if value is not None:
            return value
    return default


def _as_rank(args):
    """In one rank that mpirun started: torchrun's variables from MPI's, then the script."""
    rank, size = _mpi_env("RANK", "0"), _mpi_env("SIZE", "1")
    local_rank = _mpi_env("LOCAL_RANK", rank)
    local_size = _mpi_env("LOCAL_SIZE", size)
    os.environ.update(RANK=rank, WORLD_SIZE=size, LOCAL_RANK=local_rank,
                      LOCAL_WORLD_SIZE=local_size, GROUP_RANK=_mpi_env("NODE_RANK", "0"),
                      ROLE_RANK=rank, ROLE_WORLD_SIZE=size, MASTER_ADDR=args.master_addr,
                      MASTER_PORT=str(args.master_port), TORCHELASTIC_RUN_ID="glassgrad-mpi")
    sys.argv = [args.training_script] + args.training_script_args
    if args.no_python:
        os.execvp(args.training_script, sys.argv)
    if args.module:
        runpy.run_module(args.training_script, run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(args.training_script)))
        runpy.run_path(args.training_script, run_name="__main__")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == _WORKER:
        return _as_rank(_parser().parse_args(argv[1:]))
    args = _parser().parse_args(argv)
    cmd = mpirun_command(args)
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
