"""The programs tests/test_distributed.py runs under ``mpirun -n N``: ``python dist_programs.py
SCENARIO``. Each rank joins glassgrad's process group (MPI) and, for the differential ones,
torch's (gloo over TCP on this machine, DIST_TEST_PORT); a program runs on both libraries and
their results (values, dtypes, errors) must agree on every rank. A failure raises, which aborts
the job (mpirun's exit status is not 0); success prints ``PASS <scenario> rank <r>``.
"""
import copy
import os
import sys
import time

import torch

import glassgrad as gg
import glassgrad.distributed as gdist
from differential import Raised, assert_same, catch, run

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def init(torch_too=True, timeout=None):
    gdist.init_process_group("gloo", **({} if timeout is None else {"timeout": timeout}))
    if torch_too:
        torch.distributed.init_process_group(
            "gloo", init_method=f"tcp://127.0.0.1:{os.environ['DIST_TEST_PORT']}",
            rank=gdist.get_rank(), world_size=gdist.get_world_size())
    return gdist.get_rank(), gdist.get_world_size()


def same(program):
    """program(lib) on torch and glassgrad, compared (float32 tolerance); a program must run
    to its end on torch (errors it expects, it catches)."""
    expected, got = run(program, torch), run(program, gg)
    assert not isinstance(expected, Raised), f"{program.__name__} raised on torch: {expected}"
    assert_same(expected, got, tol={"float32": (1e-6, 1e-6), "float64": (1e-12, 1e-12),
                                    "bfloat16": (0, 0), "float16": (1e-3, 0)})


def _input(lib, rank, dtype, shape=(2, 3)):
    x = lib.arange(6).reshape(2, 3).to(dtype) + rank
    return (x * (rank + 1) if dtype != lib.bool else x % 2 == 0).reshape(shape)


# -- collectives against torch's (gloo) --------------------------------------------------------

@scenario
def collectives():
    rank, n = init()

    def reductions(lib):
        dist, out = lib.distributed, []
        for dtype in (lib.float32, lib.float64, lib.int64, lib.int32, lib.bfloat16, lib.bool):
            for op in ("SUM", "PRODUCT", "MIN", "MAX", "AVG"):
                x = _input(lib, rank, dtype)
                out.append((str(dtype), op, catch(dist.all_reduce, x, getattr(dist.ReduceOp,
                                                                             op)), x))
        x = _input(lib, rank, lib.float32)
        work = dist.all_reduce(x, async_op=True)
        out += [work.wait(), x, work.is_completed()]
        for dst in range(n):
            y = _input(lib, rank, lib.float32)
            dist.reduce(y, dst, dist.ReduceOp.MAX)
            out.append(y if rank == dst else None)
        return out
    same(reductions)

    def movement(lib):
        dist, out = lib.distributed, []
        x = _input(lib, rank, lib.float32)
        for src in range(n):
            b = x.clone()
            dist.broadcast(b, src)
            out.append(b)
        gathered = [lib.zeros(2, 3) for _ in range(n)]
        dist.all_gather(gathered, x)
        into = lib.zeros(2 * n, 3)
        dist.all_gather_into_tensor(into, x)
        single = lib.zeros(2 * n, 3, dtype=lib.int64)
        dist.all_gather_single(single, _input(lib, rank, lib.int64))
        stacked = catch(dist.all_gather_single, lib.zeros(n, 2, 3), x)
        out += [gathered, into, single, stacked]
        rs = lib.zeros(2, 3)
        dist.reduce_scatter(rs, [_input(lib, rank + i, lib.float32) for i in range(n)])
        rst, rss = lib.zeros(2), lib.zeros(2, dtype=lib.int64)
        dist.reduce_scatter_tensor(rst, lib.arange(2.0 * n) * (rank + 1))
        dist.reduce_scatter_single(rss, lib.arange(2 * n) * (rank + 1), dist.ReduceOp.MAX)
        out += [rs, rst, rss]
        g = [lib.zeros(2, 3) for _ in range(n)] if rank == n - 1 else None
        dist.gather(x, g, dst=n - 1)
        s = lib.zeros(2, 3)
        dist.scatter(s, [x * i for i in range(n)] if rank == 0 else None, src=0)
        outs = [lib.zeros(2) for _ in range(n)]
        dist.all_to_all(outs, [lib.full((2,), float(10 * rank + i)) for i in range(n)])
        single = lib.zeros(n, dtype=lib.int64)
        dist.all_to_all_single(single, lib.arange(n) + 10 * rank)
        out += [g, s, outs, single]
        # point to point: a ring
        recv = lib.zeros(3)
        works = [dist.isend(lib.full((3,), float(rank)), (rank + 1) % n),
                 dist.irecv(recv, (rank - 1) % n)]
        out += [[w.wait() for w in works], recv]
        if rank == 0:
            dist.send(lib.arange(4.0), 1)
        elif rank == 1:
            t = lib.zeros(4)
            out += [dist.recv(t), t]
        dist.barrier()
        return out
    same(movement)

    def groups(lib):
        dist = lib.distributed
        g = dist.new_group([0, n - 1])
        x = _input(lib, rank, lib.float32)
        if rank in (0, n - 1):
            dist.all_reduce(x, group=g)
            return [x, dist.get_rank(g), dist.get_world_size(g), dist.get_rank(),
                    dist.get_world_size(), dist.get_backend()]
        return [g is dist.GroupMember.NON_GROUP_MEMBER, dist.get_rank(), dist.get_world_size()]
    same(groups)

    def objects(lib):
        dist = lib.distributed
        objs = [None] * n
        dist.all_gather_object(objs, {"rank": rank, "data": list(range(rank + 1))})
        blist = [1, "two", {"three": 3.0}] if rank == 1 else [None, None, None]
        dist.broadcast_object_list(blist, src=1)
        gl = [None] * n if rank == 0 else None
        dist.gather_object(("from", rank), gl, dst=0)
        so = [None]
        dist.scatter_object_list(so, [f"for {i}" for i in range(n)] if rank == 0 else None,
                                 src=0)
        sg = [None]
        dist.scatter_object_list(sg, [f"from 1 for {i}" for i in range(n)] if rank == 1 else None,
                                 group_src=1)
        return [objs, blist, gl, so, sg]
    same(objects)

    def misuse(lib):
        dist, x = lib.distributed, _input(lib, rank, lib.float32)
        return [catch(dist.all_gather, [lib.zeros(2, 3)] * (n + 1), x),
                catch(dist.all_gather, [lib.zeros(3)] * n, x),
                catch(dist.all_gather, [lib.zeros(2, 3, dtype=lib.int64)] * n, x),
                catch(dist.all_gather_into_tensor, lib.zeros(5), x),
                catch(dist.broadcast, x, n + 2),
                catch(dist.reduce, x, n + 2),
                catch(dist.scatter, x, [x] * (n + 1), 0),
                catch(dist.all_to_all, [x] * (n + 1), [x] * n),
                catch(dist.all_reduce, [x]),
                catch(dist.all_reduce, lib.ones(2, dtype=lib.int64), dist.ReduceOp.AVG),
                catch(dist.all_reduce, lib.ones(2, dtype=lib.complex64), dist.ReduceOp.MAX),
                catch(dist.send, x, rank),
                catch(dist.init_process_group, "gloo")]
    same(misuse)
    gdist.destroy_process_group()
    torch.distributed.destroy_process_group()
    assert catch(gdist.get_rank) == catch(torch.distributed.get_rank)
    assert catch(gdist.destroy_process_group) == catch(torch.distributed.destroy_process_group)


# -- DistributedDataParallel: 2 ranks x 32 == 1 process x 64 -----------------------------------

def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(20, 64), lib.nn.Tanh(), lib.nn.Linear(64, 64),
                             lib.nn.ReLU(), lib.nn.Linear(64, 5))


def _data(lib, steps, batch):
    g = lib.Generator().manual_seed(1)
    return [(lib.randn(batch, 20, generator=g), lib.randint(0, 5, (batch,), generator=g))
            for _ in range(steps)]


def _close(a, b, what, tol=2e-6):
    for (name, p), q in zip(a.named_parameters(), b.parameters()):
        d = abs(p.detach().numpy() - q.detach().numpy()).max()
        assert d < tol, f"{what}: {name} differs by {d}"


@scenario
def ddp():
    rank, n = init(torch_too=False)
    per = 64 // n
    for opt_name in ("SGD", "Adam"):
        ref = _mlp(gg)
        model = gg.nn.parallel.DistributedDataParallel(_mlp(gg))
        tref = _mlp(torch)
        make = (lambda ps: gg.optim.SGD(ps, lr=0.1, momentum=0.9)) if opt_name == "SGD" else \
            (lambda ps: gg.optim.Adam(ps, lr=1e-2))
        tmake = (lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)) \
            if opt_name == "SGD" else (lambda ps: torch.optim.Adam(ps, lr=1e-2))
        opt, ropt, topt = make(model.parameters()), make(ref.parameters()), tmake(
            tref.parameters())
        tdata = _data(torch, 6, 64)
        for step, (x, y) in enumerate(_data(gg, 6, 64)):
            for m, o, xs, ys in ((ref, ropt, x, y),
                                 (model, opt, x[rank * per:(rank + 1) * per],
                                  y[rank * per:(rank + 1) * per])):
                o.zero_grad()
                gg.nn.functional.cross_entropy(m(xs), ys).backward()
                o.step()
            topt.zero_grad()
            torch.nn.functional.cross_entropy(tref(tdata[step][0]), tdata[step][1]).backward()
            topt.step()
            _close(model.module, ref, f"{opt_name} step {step} vs one process")
            _close(model.module, tref, f"{opt_name} step {step} vs torch", 1e-5)
    # construction broadcasts rank 0's parameters and buffers
    gg.manual_seed(rank)
    m = gg.nn.BatchNorm1d(3)
    m.running_mean.fill_(rank)
    ddp_m = gg.nn.parallel.DistributedDataParallel(m)
    objs = [None] * n
    gdist.all_gather_object(objs, [p.tolist() for p in ddp_m.state_dict().values()])
    assert all(o == objs[0] for o in objs), objs
    assert m.running_mean.tolist() == [0.0] * 3
    print(f"PASS ddp-equivalence rank {rank}")


@scenario
def ddp_features():
    rank, n = init()

    class Two(object):
        pass

    def program(lib):
        DDP = lib.nn.parallel.DistributedDataParallel
        out = []
        # state_dict keys, module, repr, attributes
        m = DDP(_mlp(lib))
        out += [list(m.state_dict()), type(m.module).__name__, repr(m), m.dim,
                m.broadcast_buffers, m.find_unused_parameters, m.bucket_bytes_cap,
                m.require_backward_grad_sync, catch(DDP, lib.nn.ReLU()),
                catch(DDP, lib.nn.Linear(2, 2), [0]),
                type(DDP(lib.nn.Linear(2, 2), output_device=0)).__name__]
        # no_sync: two local backwards, then a synchronised one: the sum of three batches
        data = _data(lib, 3, 8)
        for i, (x, y) in enumerate(data):
            xs, ys = x[rank * 4:(rank + 1) * 4], y[rank * 4:(rank + 1) * 4]
            if i < 2:
                with m.no_sync():
                    out.append(m.require_backward_grad_sync)
                    lib.nn.functional.cross_entropy(m(xs), ys).backward()
                out.append([p.grad.clone() for p in m.parameters()])
            else:
                lib.nn.functional.cross_entropy(m(xs), ys).backward()
        out.append([p.grad for p in m.parameters()])

        # find_unused_parameters: a branch one rank never takes
        class Branchy(lib.nn.Module):
            def __init__(self):
                super().__init__()
                lib.manual_seed(0)
                self.a, self.b, self.c = (lib.nn.Linear(4, 4), lib.nn.Linear(4, 4),
                                          lib.nn.Linear(4, 4))

            def forward(self, x, use_b):
                h = self.a(x)
                return self.b(h) if use_b else h
        m = DDP(Branchy(), find_unused_parameters=True)
        for it in range(2):
            m.zero_grad()
            m(lib.ones(2, 4) * (rank + it), rank == 0).sum().backward()
            out.append([p.grad for p in m.parameters()])
        # without it, c (never used) keeps the reduction from finishing: the next forward
        # raises torch's error
        m = DDP(Branchy())
        m(lib.ones(2, 4), True).sum().backward()
        out.append(catch(m, lib.ones(2, 4), True))
        return out
    same(program)
    print(f"PASS ddp-features rank {rank}")


# -- the sampler under a group -----------------------------------------------------------------

@scenario
def sampler():
    rank, n = init()

    def program(lib):
        from importlib import import_module
        DS = import_module(lib.__name__ + ".utils.data.distributed").DistributedSampler
        out = []
        for length, shuffle, drop_last in ((10, True, False), (11, False, False),
                                           (11, True, True)):
            s = DS(list(range(length)), shuffle=shuffle, drop_last=drop_last, seed=3)
            for epoch in range(2):
                s.set_epoch(epoch)
                out.append((len(s), list(s)))
        return out
    same(program)


# -- the launcher ------------------------------------------------------------------------------

@scenario
def launched():
    """Run by glassgrad.distributed.run: torchrun's variables, and a group from env://."""
    env = {k: os.environ.get(k) for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
                                          "MASTER_ADDR", "MASTER_PORT")}
    gdist.init_process_group("gloo", init_method="env://")
    assert gdist.is_torchelastic_launched()
    rank, n = gdist.get_rank(), gdist.get_world_size()
    assert (env["RANK"], env["WORLD_SIZE"], env["LOCAL_RANK"]) == (str(rank), str(n), str(rank))
    t = gg.ones(1) * rank
    gdist.all_reduce(t)
    assert t.item() == n * (n - 1) / 2
    print(f"LAUNCHED rank {rank} of {n} args {sys.argv[2:]}")


# -- faults: no rank hangs ---------------------------------------------------------------------

@scenario
def raises():
    import datetime
    rank, n = init(torch_too=False, timeout=datetime.timedelta(seconds=60))
    if rank == n - 1:
        raise ValueError("rank failure on purpose")
    gdist.barrier()
    time.sleep(60)      # not reached: MPI_Abort ends this rank


@scenario
def dies():
    rank, n = init(torch_too=False)
    if rank == n - 1:
        os._exit(3)
    gdist.all_reduce(gg.ones(3))
    time.sleep(60)


@scenario
def times_out():
    import datetime
    rank, n = init(torch_too=False, timeout=datetime.timedelta(seconds=2))
    if rank == n - 1:
        time.sleep(8)       # late: the others give up after their 2 s
        return
    gdist.all_reduce(gg.ones(3))


@scenario
def mismatch():
    os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
    rank, n = init(torch_too=False)
    if rank == 0:
        gdist.all_reduce(gg.ones(3))
    else:
        gdist.broadcast(gg.ones(3), 0)


if __name__ == "__main__":
    name = sys.argv[1]
    SCENARIOS[name]()
    if name not in ("launched",):
        print(f"PASS {name} rank {gdist.get_rank() if gdist.is_initialized() else '-'}")
