"""torch.distributed, DistributedDataParallel, DistributedSampler and the launcher.

In-process tests compare with torch directly (no process group needed). The rest run
tests/dist_programs.py under the real engine, ``mpirun -n N --oversubscribe``: each rank joins
glassgrad's MPI group and torch's gloo group and compares the two (see that file). They skip,
saying why, where mpi4py or mpirun is missing (`make distributed` installs both where it can).
"""
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import glassgrad.distributed as gdist
from differential import catch, same

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MPIRUN = shutil.which("mpirun")
HAVE_MPI4PY = importlib.util.find_spec("mpi4py") is not None
needs_mpi = pytest.mark.skipif(
    MPIRUN is None or not HAVE_MPI4PY,
    reason="needs OpenMPI's mpirun and mpi4py (`make distributed` installs them where the "
           f"machine allows): mpirun {'found' if MPIRUN else 'missing'}, mpi4py "
           f"{'found' if HAVE_MPI4PY else 'missing'}")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]),
               DIST_TEST_PORT=str(_free_port()), **extra)
    env.pop("TORCH_DISTRIBUTED_DEBUG", None)
    return env


def mpirun(n, scenario, timeout=240, runner=()):
    cmd = [MPIRUN, "-n", str(n), "--oversubscribe", "-x", "PYTHONPATH", "-x",
           "DIST_TEST_PORT"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += [sys.executable, *runner, str(HERE / "dist_programs.py"), scenario]
    start = time.monotonic()
    p = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=timeout,
                       cwd=HERE)
    return p, p.stdout + p.stderr, time.monotonic() - start


def passes(n, scenario):
    p, out, _ = mpirun(n, scenario)
    assert p.returncode == 0, out[-6000:]
    for r in range(n):
        assert f"PASS {scenario} rank" in out and out.count(f"PASS {scenario} rank") == n, out


# -- under mpirun ------------------------------------------------------------------------------

@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_collectives_as_torch_gloo(n):
    passes(n, "collectives")


@needs_mpi
def test_ddp_two_ranks_of_32_equal_one_process_of_64_sgd_and_adam():
    passes(2, "ddp")


@needs_mpi
def test_ddp_no_sync_unused_parameters_state_dict_as_torch():
    passes(2, "ddp_features")


@needs_mpi
def test_sampler_from_the_group_as_torch():
    passes(3, "sampler")


@needs_mpi
def test_launcher_sets_torchrun_variables():
    p = subprocess.run([sys.executable, "-m", "glassgrad.distributed.run", "--nproc-per-node",
                        "2", str(HERE / "dist_programs.py"), "launched", "a", "--b"],
                       env=_env(), capture_output=True, text=True, timeout=240, cwd=HERE)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out[-4000:]
    for r in range(2):
        assert f"LAUNCHED rank {r} of 2 args ['a', '--b']" in out, out


@needs_mpi
@pytest.mark.parametrize("runner", [(), ("-m", "glassgrad", "run")],
                         ids=["python", "glassgrad-run"])
def test_a_rank_that_raises_ends_the_job(runner):
    p, out, _ = mpirun(2, "raises", runner=runner)
    assert p.returncode != 0
    assert "ValueError: rank failure on purpose" in out, out
    # the other rank, waiting in barrier (60 s timeout), was ended rather than timing out
    assert "timed out" not in out, out


@needs_mpi
def test_a_rank_that_dies_ends_the_job():
    # the other rank, in all_reduce with torch's 30-minute timeout, is ended by mpirun
    p, out, seconds = mpirun(2, "dies")
    assert p.returncode == 3 and "exited with non-zero status" in out, out
    assert seconds < 200


@needs_mpi
def test_a_missing_rank_times_out():
    p, out, _ = mpirun(2, "times_out")
    assert p.returncode != 0
    assert "RuntimeError: ProcessGroupGloo::allreduce: timed out after 2 s" in out, out


@needs_mpi
def test_collective_order_mismatch_is_reported():
    os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
    try:
        p, out, _ = mpirun(2, "mismatch")
    finally:
        del os.environ["TORCH_DISTRIBUTED_DEBUG"]
    assert p.returncode != 0
    assert "Detected mismatch between collectives on ranks" in out, out
    assert "OpType=ALLREDUCE" in out and "OpType=BROADCAST" in out, out


# -- in one process ----------------------------------------------------------------------------

def test_calls_before_init_process_group_raise_as_torch():
    def program(lib):
        d = lib.distributed
        return [d.is_initialized(), catch(d.get_rank), catch(d.get_world_size),
                catch(d.all_reduce, lib.ones(2)), catch(d.broadcast, lib.ones(2), 0),
                catch(d.barrier), catch(d.new_group), catch(d.send, lib.ones(1), 1),
                catch(d.all_gather_object, [None], 1), catch(d.destroy_process_group),
                catch(lib.nn.parallel.DistributedDataParallel, lib.nn.Linear(2, 2))]
    same(program)


def test_env_rendezvous_errors_as_torch(monkeypatch):
    for k in ("RANK", "WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"):
        monkeypatch.delenv(k, raising=False)
    assert catch(gdist.init_process_group, "gloo") == catch(torch.distributed.init_process_group,
                                                            "gloo")
    monkeypatch.setenv("RANK", "0")
    assert catch(gdist.init_process_group, "gloo") == catch(torch.distributed.init_process_group,
                                                            "gloo")
    assert catch(gdist.init_process_group, "foo") == catch(torch.distributed.init_process_group,
                                                           "foo")


def test_names_as_torch():
    def program(lib):
        d = lib.distributed
        return [str(d.ReduceOp.SUM), repr(d.ReduceOp.AVG), [repr(getattr(d.ReduceOp, n)) for n in
                ("PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR")], d.Backend("GLOO"),
                d.Backend.MPI, type(d.Backend("mpi")).__name__, d.GroupMember.WORLD,
                d.is_torchelastic_launched(), d.is_available()]
    if HAVE_MPI4PY:
        same(program)
    assert gdist.is_available() is HAVE_MPI4PY


@pytest.mark.parametrize("length,replicas,shuffle,drop_last",
                         [(10, 3, True, False), (10, 3, False, False), (11, 4, True, True),
                          (7, 2, False, True), (5, 8, True, False)])
def test_sampler_as_torch(length, replicas, shuffle, drop_last):
    from torch.utils.data.distributed import DistributedSampler as TS

    from glassgrad.utils.data.distributed import DistributedSampler as GS
    for rank in range(replicas):
        for epoch in range(3):
            t = TS(range(length), replicas, rank, shuffle=shuffle, seed=5, drop_last=drop_last)
            g = GS(range(length), replicas, rank, shuffle=shuffle, seed=5, drop_last=drop_last)
            t.set_epoch(epoch)
            g.set_epoch(epoch)
            assert (len(g), list(g)) == (len(t), list(t))
    assert catch(GS, range(3), 2, 2) == catch(TS, range(3), 2, 2)


def test_queue_callback_runs_at_the_end_of_backward_as_torch():
    def program(lib):
        engine = lib.autograd.Variable._execution_engine
        order = []
        x = lib.ones(3, requires_grad=True)
        y = lib.ones(2, requires_grad=True)
        def hook(p):
            order.append("x")
            engine.queue_callback(lambda: order.append(("end", x.grad.tolist(),
                                                        y.grad.tolist())))
        x.register_post_accumulate_grad_hook(hook)
        y.register_post_accumulate_grad_hook(lambda p: order.append("y") and None)
        ((x * 2).sum() + (y * 3).sum()).backward()
        bad = []
        for result in (lambda p: p * 2, lambda p: 5, lambda p: (1,)):
            z = lib.ones(2, requires_grad=True)
            z.register_post_accumulate_grad_hook(result)
            bad.append(catch(z.sum().backward))
        return [catch(engine.queue_callback, lambda: None), order, bad]
    same(program)



def test_queue_callback_belongs_to_the_thread_running_backward():
    """While one thread is inside backward, another thread is not: its queue_callback refuses
    (the running pass is per thread), and the callback queued inside runs in its own pass."""
    import threading

    def program(lib):
        engine = lib.autograd.Variable._execution_engine
        inside, release, seen = threading.Event(), threading.Event(), []
        x = lib.ones(2, requires_grad=True)

        def hook(p):
            engine.queue_callback(lambda: seen.append("callback"))
            inside.set()
            release.wait(10)
        x.register_post_accumulate_grad_hook(hook)
        worker = threading.Thread(target=lambda: (x * 2).sum().backward())
        worker.start()
        inside.wait(10)
        seen.append(catch(engine.queue_callback, lambda: seen.append("wrong thread")))
        release.set()
        worker.join(10)
        return [seen, x.grad]
    same(program)

def test_launcher_command_line(monkeypatch):
    from glassgrad.distributed import run
    monkeypatch.setattr(run.shutil, "which", lambda name: "/usr/bin/mpirun")
    args = run._parser().parse_args(["--nproc_per_node", "3", "train.py", "--lr", "1"])
    cmd = run.mpirun_command(args)
    assert cmd[:3] == ["/usr/bin/mpirun", "-n", "3"] and "--oversubscribe" in cmd
    assert cmd[-3:] == ["train.py", "--lr", "1"] and "--as-mpi-rank" in cmd
    args = run._parser().parse_args(["--nproc-per-node", "2", "--nnodes", "2", "--hostfile",
                                     "hosts", "-m", "pkg.train"])
    cmd = run.mpirun_command(args)
    assert cmd[2] == "4" and cmd[cmd.index("--hostfile") + 1] == "hosts"
    assert cmd[-2:] == ["-m", "pkg.train"]
    with pytest.raises(SystemExit, match="--hostfile"):
        run.mpirun_command(run._parser().parse_args(["--nnodes", "2", "t.py"]))


@needs_mpi
@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None,
                    reason="examples/digits_ddp.py needs scikit-learn (the examples extra)")
def test_digits_ddp_example_prints_what_torchrun_prints():
    script, argv = str(ROOT / "examples" / "digits_ddp.py"), ["--epochs", "1"]
    for _ in range(3):  # torch's own worker sometimes aborts as it exits ("terminate called
        # without an active exception": a gloo thread at teardown); the reference is run again
        torchrun = subprocess.run([sys.executable, "-m", "torch.distributed.run",
                                   "--nproc-per-node", "2", "--master-port", str(_free_port()),
                                   script, *argv], env=_env(), capture_output=True, text=True,
                                  timeout=240)
        if "terminate called without an active exception" not in torchrun.stderr:
            break
    ours = subprocess.run([sys.executable, "-m", "glassgrad.distributed.run", "--nproc-per-node",
                           "2", "--no-python", sys.executable, "-m", "glassgrad", "run", script,
                           *argv], env=_env(), capture_output=True, text=True, timeout=240)
    assert torchrun.returncode == 0, torchrun.stderr[-3000:]
    assert ours.returncode == 0, ours.stderr[-3000:]
    assert "epoch 1  train loss" in torchrun.stdout
    assert ours.stdout == torchrun.stdout


def test_consume_prefix_in_state_dict_as_torch():
    def program(lib):
        from importlib import import_module
        consume = import_module(lib.__name__ + ".nn.modules.utils"
                                ).consume_prefix_in_state_dict_if_present
        lib.manual_seed(0)
        wrapper = lib.nn.Module()
        wrapper.module = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        state = wrapper.state_dict()
        consume(state, "module.")
        fresh = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        return [list(state), list(state._metadata), str(fresh.load_state_dict(state)),
                fresh[0].weight]
    same(program)


SINGLE = """
import os, sys
sys.path.insert(0, os.environ["TESTS"])
import torch, glassgrad
from differential import same
def program(lib):
    lib.distributed.init_process_group("gloo")
    x = lib.arange(3.0)
    lib.distributed.all_reduce(x, lib.distributed.ReduceOp.AVG)
    lib.manual_seed(0)
    m = lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(3, 2))
    m(lib.ones(4, 3)).pow(2).sum().backward()
    out = [lib.distributed.get_rank(), lib.distributed.get_world_size(), x,
           [p.grad for p in m.parameters()]]
    lib.distributed.destroy_process_group()
    return out
same(program)
print("SAME")
"""


@needs_mpi
def test_a_world_of_one_from_the_environment_as_torch():
    # RANK=0 WORLD_SIZE=1 without mpirun (torchrun --nproc-per-node 1 sets these): MPI starts
    # as a world of one
    env = _env(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", TESTS=str(HERE))
    env["MASTER_PORT"] = env["DIST_TEST_PORT"]
    p = subprocess.run([sys.executable, "-c", SINGLE], env=env, capture_output=True, text=True,
                       timeout=240)
    assert p.returncode == 0 and "SAME" in p.stdout, p.stdout + p.stderr[-3000:]


def test_without_mpi4py_init_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)      # as if not installed
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    with pytest.raises(RuntimeError, match=r"doesn't have MPI built in.*glassgrad\[distributed\]"):
        gdist.init_process_group("gloo")
    assert not gdist.is_initialized()
