"""Differential tests of the torch, Tensor, autograd and func names of issue 16's last sweep
(the runtime flags, autocast state, factories, view copies, in-place forms, ...) against torch
2.13: values, dtypes, strides, gradients and grad_fn names, warnings and errors."""
import array
import copy
import threading
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import LIBS, Raised, assert_same, catch, run, same


@pytest.fixture(autouse=True)
def _restore_state():
    yield
    for lib in LIBS:
        lib.use_deterministic_algorithms(False)
        lib.set_warn_always(False)
        lib.utils.deterministic.fill_uninitialized_memory = True
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.set_autocast_dtype("cpu", lib.bfloat16)
            lib.set_autocast_dtype("cuda", lib.float16)
            lib.set_autocast_enabled("cuda", False)
            lib.set_autocast_cache_enabled(True)
            while lib.autocast_decrement_nesting() > 0:
                pass
            lib.autocast_increment_nesting()


def warned(fn, *args):
    """(fn's result or Raised, [(warning category, message)])."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = catch(fn, *args)
    return out, [(x.category.__name__, str(x.message)) for x in w]


# -- deterministic algorithms, warn-always, denormals, threads ----------------------------------
def test_deterministic_flags():
    def program(lib):
        out = [lib.are_deterministic_algorithms_enabled(),
               lib.is_deterministic_algorithms_warn_only_enabled(),
               lib.get_deterministic_debug_mode()]
        for args, kw in [((True,), {"warn_only": True}), ((False,), {}), ((True,), {}),
                         ((1,), {}), (("x",), {}), ((False,), {"warn_only": 1})]:
            out.append(catch(lambda: lib.use_deterministic_algorithms(*args, **kw)))
            out.append((lib.are_deterministic_algorithms_enabled(),
                        lib.is_deterministic_algorithms_warn_only_enabled(),
                        lib.get_deterministic_debug_mode()))
        for mode in ["error", "warn", "default", 2, 1, 0, "foo", 5, 1.0, -1]:
            out.append(catch(lib.set_deterministic_debug_mode, mode))
            out.append((lib.are_deterministic_algorithms_enabled(),
                        lib.is_deterministic_algorithms_warn_only_enabled(),
                        lib.get_deterministic_debug_mode()))
        return out
    same(program)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64",
                                   "int32", "int64", "uint8", "int8", "bool"])
def test_deterministic_mode_fills_new_memory(dtype):
    def program(lib):
        dt = getattr(lib, dtype)
        lib.use_deterministic_algorithms(True)
        made = [lib.empty(2, 3, dtype=dt), lib.empty_like(lib.ones(2, dtype=dt)),
                lib.ones(2).new_empty((3,), dtype=dt), lib.empty_strided((2, 2), (1, 2), dtype=dt),
                lib.empty_permuted((2, 3), (1, 0), dtype=dt),
                lib.ones(1).new_empty_strided((2,), (2,), dtype=dt)]
        return [t.to(lib.complex128 if dt.is_complex else lib.float64) for t in made]
    same(program)


def test_fill_uninitialized_memory_flag():
    def program(lib):
        lib.use_deterministic_algorithms(True)
        flag = lib.utils.deterministic
        out = [flag.fill_uninitialized_memory, catch(setattr, flag, "fill_uninitialized_memory", 1)]
        flag.fill_uninitialized_memory = False
        out.append(flag.fill_uninitialized_memory)
        flag.fill_uninitialized_memory = True
        out.append(lib.empty(3))
        return out
    same(program)


def test_put_alerts_under_deterministic_mode():
    def program(lib):
        x, i, v = lib.zeros(5), lib.tensor([0, 0]), lib.tensor([1., 2.])
        out = [x.clone().put_(i, v)]
        lib.use_deterministic_algorithms(True)
        out += [catch(lambda: x.clone().put_(i, v)), x.clone().put_(i, v, accumulate=True),
                catch(lambda: lib.put(x, i, v))]
        lib.use_deterministic_algorithms(True, warn_only=True)
        out.append(warned(lambda: x.clone().put_(i, v)))
        return out
    same(program)


def test_warn_always_and_denormals_and_threads():
    def program(lib):
        out = [lib.is_warn_always_enabled(), catch(lib.set_warn_always, 1),
               lib.set_warn_always(True), lib.is_warn_always_enabled()]
        # a TORCH_WARN_ONCE warning repeats while warn_always is on
        a = lib.eye(2)
        out.append([len(warned(lib.cholesky, a)[1]) for _ in range(2)])
        lib.set_warn_always(False)
        out += [lib.is_warn_always_enabled(), catch(lib.set_flush_denormal, 1),
                lib.set_flush_denormal(False), lib.init_num_threads(),
                catch(lib.init_num_threads, 1)]
        return out
    same(program)


def test_flush_denormal_is_refused():
    with pytest.raises(NotImplementedError, match="denormal"):
        gg.set_flush_denormal(True)


# -- autocast state ---------------------------------------------------------------------------
def test_autocast_state_functions():
    def program(lib):
        calls = [
            (lib.get_autocast_cpu_dtype,), (lib.get_autocast_gpu_dtype,),
            (lib.is_autocast_cache_enabled,), (lib.is_autocast_cpu_enabled,),
            (lib.autocast_increment_nesting,), (lib.autocast_increment_nesting,),
            (lib.autocast_decrement_nesting,), (lib.autocast_decrement_nesting,),
            (lib.autocast_decrement_nesting,), (lib.autocast_increment_nesting,),
            (lib.clear_autocast_cache,), (lib.set_autocast_cache_enabled, False),
            (lib.is_autocast_cache_enabled,), (lib.set_autocast_cache_enabled, 1),
            (lib.set_autocast_cache_enabled, True), (lib.set_autocast_cpu_dtype, lib.float16),
            (lib.get_autocast_cpu_dtype,), (lib.get_autocast_dtype, "cpu"),
            (lib.set_autocast_cpu_dtype, 1), (lib.set_autocast_cpu_dtype, lib.bfloat16),
            (lib.set_autocast_cpu_enabled, False), (lib.set_autocast_cpu_enabled, 1),
            (lib.set_autocast_enabled, True), (lib.is_autocast_enabled,),
            (lib.is_autocast_enabled, "cuda"), (lib.set_autocast_enabled, False),
            (lib.set_autocast_enabled, "xpu", True), (lib.is_autocast_enabled, "xpu"),
            (lib.set_autocast_enabled, "xpu", False), (lib.set_autocast_enabled, "cpu", False),
            (lib.set_autocast_dtype, "cpu", lib.float16), (lib.get_autocast_dtype, "cpu"),
            (lib.set_autocast_dtype, "cuda", lib.float32), (lib.get_autocast_dtype, "cuda"),
            (lib.get_autocast_gpu_dtype,), (lib.set_autocast_gpu_dtype, lib.float16),
            (lib.set_autocast_gpu_dtype, 1), (lib.set_autocast_enabled, "foo", True),
            (lib.set_autocast_enabled, 1), (lib.set_autocast_enabled, "meta", True),
            (lib.set_autocast_dtype, "cpu", 3), (lib.set_autocast_dtype, "cpu"),
            (lib.is_autocast_cache_enabled, 1), (lib.set_autocast_cpu_enabled, 1, 2),
            (lib.clear_autocast_cache, 1), (lib.get_autocast_cpu_dtype, 2)]
        return [warned(fn, *args) for fn, *args in calls]
    same(program)


def test_autocast_regions_set_the_state():
    def program(lib):
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autocast("xpu", dtype=lib.bfloat16, cache_enabled=False):
                out.append((lib.get_autocast_dtype("xpu"), lib.is_autocast_cache_enabled(),
                            lib.is_autocast_enabled("xpu"), lib.autocast_increment_nesting(),
                            lib.autocast_decrement_nesting()))
                with lib.autocast("cpu", enabled=False, dtype=lib.float16):
                    out.append((lib.get_autocast_dtype("cpu"), lib.is_autocast_cache_enabled(),
                                lib.is_autocast_enabled("cpu")))
            out.append((lib.get_autocast_dtype("xpu"), lib.is_autocast_cache_enabled(),
                        lib.is_autocast_enabled("xpu"), lib.get_autocast_dtype("cpu")))
            lib.set_autocast_dtype("cpu", lib.float32)
            out.append(warned(lambda: lib.autocast("cpu").fast_dtype))
        return out
    same(program)


def test_autocast_state_is_per_thread():
    def program(lib):
        lib.set_autocast_dtype("cpu", lib.float16)
        lib.set_autocast_cache_enabled(False)
        lib.autocast_increment_nesting()
        seen = []
        th = threading.Thread(target=lambda: seen.append(
            (lib.get_autocast_dtype("cpu"), lib.is_autocast_cache_enabled(),
             lib.autocast_increment_nesting())))
        th.start()
        th.join()
        return seen + [lib.autocast_decrement_nesting()]
    same(program)


# -- factories ----------------------------------------------------------------------------------
def _layout(t):
    return t if isinstance(t, Raised) else (t.shape, t.stride(), t.dtype, t.requires_grad,
                                            t.untyped_storage().nbytes(), t.is_contiguous())


@pytest.mark.parametrize("make", [
    lambda t: t.empty_strided((2, 3), (1, 2)), lambda t: t.empty_strided((2, 3), (0, 0)),
    lambda t: t.empty_strided((2, 0), (1, 2)), lambda t: t.empty_strided((2, 3), (1, 2, 3)),
    lambda t: t.empty_strided((2, -3), (1, 2)), lambda t: t.empty_strided((2, 3), (1, -2)),
    lambda t: t.empty_strided((2, 3), (1, 2), dtype=t.int32),
    lambda t: t.empty_strided([4], [3], requires_grad=True),
    lambda t: t.empty_strided((2,), (1,), dtype=t.int64, requires_grad=True),
    lambda t: t.empty_strided((2,), "a"),
    lambda t: t.empty_permuted((2, 3, 4), (2, 0, 1)), lambda t: t.empty_permuted((2, 3, 4), (2, 0)),
    lambda t: t.empty_permuted((2, 3, 4), (2, 0, 0)),
    lambda t: t.empty_permuted((2, 3, 4), (2, 0, 3)),
    lambda t: t.empty_permuted((2, 3), (0, 1), dtype=t.float64, requires_grad=True),
    lambda t: t.ones(2).new_empty_strided((2, 3), (1, 2)),
    lambda t: t.ones(2, dtype=t.int8).new_empty_strided((2, 3), (3, 1), dtype=t.float64),
    lambda t: t.ones(2).new_empty_strided((2, 3)),
    lambda t: t.ones(2).new_empty_strided((2,), (1,), requires_grad=True)])
def test_strided_factories(make):
    same(lambda lib: _layout(catch(make, lib)))


# -- ops with gradients -------------------------------------------------------------------------
def _inputs(lib, shapes, seed=0, dtype="float64"):
    """Leaves requiring grad with torch's random values (the same in both libraries)."""
    g = torch.Generator().manual_seed(seed)
    return [lib.tensor(torch.randn(s, generator=g, dtype=getattr(torch, dtype)).tolist(),
                       dtype=getattr(lib, dtype), requires_grad=True) for s in shapes]


def graded(fn, shapes, seed=0, dtype="float64", grad_out=True):
    """A program: fn(lib, *leaves) -> its value, grad_fn name and the leaves' gradients (of a
    weighted sum, so each output element counts differently)."""
    def program(lib):
        xs = _inputs(lib, shapes, seed, dtype)
        out = fn(lib, *xs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        loss = sum((o * lib.arange(1., o.numel() + 1, dtype=o.dtype).reshape(o.shape)).sum()
                   for o in outs if o.requires_grad)
        wrt = [x for x in xs if x.requires_grad]
        grads = lib.autograd.grad(loss, wrt, allow_unused=True) if grad_out else ()
        return outs, [type(o.grad_fn).__name__ for o in outs], grads
    return program


I = torch.tensor   # noqa: E741


def _index(lib, data):
    return lib.tensor(data)


@pytest.mark.parametrize("case", [
    lambda t, x, s: t.put(x, _index(t, [[1], [-2]]), s),
    lambda t, x, s: t.put(x, _index(t, [1, 1]), s, accumulate=True),
    lambda t, x, s: x.put(_index(t, [4, 0]), s, True),
    lambda t, x, s: (x * 1).put_(_index(t, [1, 1]), s, accumulate=True),
    lambda t, x, s: (x * 1).put_(_index(t, [5, 0]), s),
    lambda t, x, s: x.t().put(_index(t, [0, 1]), s),
])
def test_put(case):
    same(graded(case, [(2, 3), (2,)]))


@pytest.mark.parametrize("call", [
    lambda t, x, s: t.put(x, _index(t, [1, 6]), s),
    lambda t, x, s: t.put(x, _index(t, [1, -7]), s),
    lambda t, x, s: t.put(x, t.tensor([1, 2], dtype=t.int32), s),
    lambda t, x, s: t.put(x, _index(t, [1, 2, 3]), s),
    lambda t, x, s: t.put(x, _index(t, [1, 2]), s.float()),
    lambda t, x, s: t.put(x, t.tensor([1., 2]), s),
    lambda t, x, s: t.put(x, _index(t, [1, 2]), 3),
    lambda t, x, s: x.put_(_index(t, [1, 2]), s),
    lambda t, x, s: t.zeros(0).put_(_index(t, [0]), t.ones(1)),
    lambda t, x, s: t.zeros(3, dtype=t.int64).put_(_index(t, [0, 0]), _index(t, [2, 3]), True),
    lambda t, x, s: t.tensor(1.).put_(_index(t, [0, 0]), t.tensor([2., 3]), True),
])
def test_put_edges(call):
    same(lambda lib: catch(call, lib, *_inputs(lib, [(2, 3), (2,)])))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_reduce(reduce, include_self, dim):
    def fn(t, x, s):
        idx = _index(t, [0, 2, 0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            src = s if dim == 0 else s.t()
            return t.index_reduce(x if dim == 0 else x.t(), dim, idx, src, reduce,
                                  include_self=include_self)
    same(graded(fn, [(4, 3), (3, 3)]))


def test_index_reduce_ties_zeros_ints_and_in_place():
    def fn(t, x, s):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x0 = x * t.tensor([[0.], [1.], [1.], [0.]], dtype=x.dtype)   # zeros in self
            s0 = s * t.tensor([[1.], [0.], [1.]], dtype=x.dtype)          # a zero in source
            idx = _index(t, [0, 1, 1])
            ties = t.index_reduce(x.detach().round() * 0 + x, 0, idx, x[:3] * 1, "amax")
            return (t.index_reduce(x0, 0, idx, s0, "prod"),
                    t.index_reduce(x, 0, idx, s0, "prod", include_self=False), ties,
                    (x * 1).index_reduce_(0, idx, s, "mean"),
                    t.index_reduce(t.arange(4), 0, _index(t, [0, 0]), _index(t, [3, 4]), "mean"),
                    t.index_reduce(t.arange(4), 0, _index(t, [0, 0]), _index(t, [3, 4]), "mean",
                                   include_self=False),
                    t.index_reduce(t.arange(4), 0, _index(t, [0, 3]), _index(t, [3, 4]), "amin",
                                   include_self=False))
    same(graded(fn, [(4, 3), (3, 3)]))


@pytest.mark.parametrize("call", [
    lambda t, x, s: t.index_reduce(x, 0, _index(t, [0, 2, 0]), s, "sum"),
    lambda t, x, s: t.index_reduce(x, 0, _index(t, [0, 2, 0]).int(), s, "prod"),
    lambda t, x, s: t.index_reduce(x, 0, t.tensor([0., 2, 0]), s, "prod"),
    lambda t, x, s: t.index_reduce(x, 0, _index(t, [0, 5, 1]), s, "prod"),
    lambda t, x, s: t.index_reduce(x, 0, _index(t, [0, -1, 1]), s, "prod"),
    lambda t, x, s: t.index_reduce(x, 0, _index(t, [0, 1]), s, "prod"),
    lambda t, x, s: t.index_reduce(x, 0, _index(t, [0, 2, 0]), s.float(), "prod"),
    lambda t, x, s: t.index_reduce(x, 1, _index(t, [0, 2, 0]), s.t(), "prod").shape,
    lambda t, x, s: t.index_reduce(x, 0, _index(t, [[0], [2], [0]]), s, "prod"),
    lambda t, x, s: t.index_reduce(x, 0, _index(t, [0, 2, 0]), s[:, :2], "prod"),
    lambda t, x, s: t.index_reduce(x, 2, _index(t, [0, 2, 0]), s, "prod"),
    lambda t, x, s: t.index_reduce(t.tensor(2.), 0, _index(t, [0, 0]), t.tensor([3., 4]), "prod"),
    lambda t, x, s: x.index_reduce_(0, _index(t, [0, 2, 0]), s, "amax"),
    lambda t, x, s: x.detach().index_reduce_(0, _index(t, [0, 2, 0]), s.detach(), "amax",
                                             include_self=False),
])
def test_index_reduce_edges(call):
    def program(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return catch(call, lib, *_inputs(lib, [(4, 3), (3, 3)]))
    same(program)


def test_index_reduce_warns_once_in_beta():
    def program(lib):
        lib.set_warn_always(True)
        x = lib.ones(3)
        return warned(lambda: lib.index_reduce(x, 0, lib.tensor([0]), lib.ones(1), "amax"))
    same(program)


# -- small functions, the negative bit, exceptions ---------------------------------------------
def test_fill_and_detach_and_predicates():
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        v = lib.tensor(3., requires_grad=True)
        y, z = lib.fill(x, v), lib.fill(x, 2)
        w = x * 1
        return [y, type(y.grad_fn).__name__, lib.autograd.grad(y.sum(), [x, v]),
                z, type(z.grad_fn).__name__, lib.autograd.grad(z.sum(), [x]),
                lib.fill(lib.ones(2, dtype=lib.int32), 2.7),
                lib.fill(lib.ones(2), lib.tensor(2, dtype=lib.int64)),
                catch(lib.fill, lib.ones(2), lib.ones(2)), catch(lib.fill, 1, 2),
                lib.detach_(w) is w, w.grad_fn, w.requires_grad, catch(lib.detach_, x[:1]),
                lib.is_inference(x), catch(lib.is_inference, 1), lib.is_distributed(x),
                catch(lib.is_distributed, 1)]
    same(program)


def test_negative_bit_and_conj_physical_():
    def program(lib):
        x = lib.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        y = x.conj().imag
        r = y.resolve_neg()
        z = x * 1
        z.conj_physical_()
        real = lib.ones(2, requires_grad=True) * 1
        plain = lib.ones(2)
        return [y.is_neg(), lib.is_neg(y), y.detach().is_neg(), r.is_neg(), r,
                type(r.grad_fn).__name__, x.is_neg(), x.conj().is_neg(), x.real.is_neg(),
                catch(lambda: y.detach().numpy()), lib.resolve_neg(plain) is plain,
                z, type(z.grad_fn).__name__, lib.autograd.grad(z.real.sum(), x),
                type(real.conj_physical_().grad_fn).__name__, real._version,
                lib.conj_physical_(plain)._version, catch(x.conj_physical_),
                catch(lib.is_neg, 1)]
    same(program)


def test_exceptions_and_device_modules():
    def program(lib):
        out = [[c.__name__ for c in cls.__mro__[1:]] for cls in
               (lib.OutOfMemoryError, lib.AcceleratorError)]
        out += [lib.OutOfMemoryError is lib.cuda.OutOfMemoryError,
                issubclass(lib.OutOfMemoryError, RuntimeError)]
        for d in [None, "cpu", "cuda:1", lib.device("cuda"), lib.device("cpu"), "meta", 1,
                  "foo"]:
            out.append(catch(lambda: lib.get_device_module(d).__name__.split(".", 1)[1]))
        return out
    same(program)
    with pytest.raises(NotImplementedError, match="torch.mps"):
        gg.get_device_module("mps")


def test_complex_conversions():
    def program(lib):
        x = lib.tensor([1., -2.5], requires_grad=True)
        c, d = x.cfloat(), x.double().cdouble()
        return [c, d, type(c.grad_fn).__name__, lib.autograd.grad(c.abs().sum(), x),
                lib.tensor([1, 2]).cfloat(), catch(x.cfloat, 1)]
    same(program)


def test_chalf_is_refused():
    with pytest.raises(NotImplementedError, match="'ComplexHalf'"):
        gg.ones(2).chalf()


# -- in-place forms of rows -------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda t, x, b1, b2, v1, v2: (x * 1).addbmm_(b1, b2),
    lambda t, x, b1, b2, v1, v2: (x * 1).addbmm_(b1, b2, beta=2, alpha=0.5),
    lambda t, x, b1, b2, v1, v2: (x * 1).addr_(v1, v2),
    lambda t, x, b1, b2, v1, v2: (x * 1).addr_(v1, v2, beta=0.5, alpha=3),
    lambda t, x, b1, b2, v1, v2: (x * 1).renorm_(2, 0, 1.0),
    lambda t, x, b1, b2, v1, v2: (x * 1).renorm_(1, 1, 0.5),
])
def test_inplace_linear_algebra(case):
    same(graded(case, [(2, 3), (4, 2, 5), (4, 5, 3), (2,), (3,)]))


@pytest.mark.parametrize("call", [
    lambda t, x, b1, b2, v1, v2: x.addbmm_(b1, b2),
    lambda t, x, b1, b2, v1, v2: (x * 1).addbmm_(b1.float(), b2.float()),
    lambda t, x, b1, b2, v1, v2: (x * 1).addbmm_(b1[0], b2),
    lambda t, x, b1, b2, v1, v2: (x[:1] * 1).addr_(v1, v2),
    lambda t, x, b1, b2, v1, v2: (x * 1).addr_(v1.float(), v2),
    lambda t, x, b1, b2, v1, v2: (x.float() * 1).addr_(v1, v2).dtype,
    lambda t, x, b1, b2, v1, v2: t.ones(2, 3, dtype=t.int64).addr_(v1, v2),
    lambda t, x, b1, b2, v1, v2: (x * 1).addr_(x, v2),
    lambda t, x, b1, b2, v1, v2: (x * 1).renorm_(-2, 0, 1.0),
    lambda t, x, b1, b2, v1, v2: (x * 1).renorm_(2, 0, -1.0),
    lambda t, x, b1, b2, v1, v2: (x * 1)[0].renorm_(2, 0, 1.0),
    lambda t, x, b1, b2, v1, v2: (x * 1).renorm_(2, 2, 1.0),
])
def test_inplace_linear_algebra_edges(call):
    def program(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return catch(call, lib, *_inputs(lib, [(2, 3), (4, 2, 5), (4, 5, 3), (2,), (3,)]))
    same(program)


def test_addbmm_into_a_smaller_self_is_refused():
    x = gg.ones(1, 3)
    with pytest.raises(NotImplementedError, match="resize"):
        x.addbmm_(gg.ones(4, 2, 5), gg.ones(4, 5, 3))


# -- view copies and as_strided_scatter -------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda t, x: t.alias_copy(x), lambda t, x: t.slice_copy(x, 0, 1, 100, 2),
    lambda t, x: t.slice_copy(x, 1, -2), lambda t, x: t.slice_copy(x), lambda t, x:
    t.slice_copy(x, dim=1, start=1), lambda t, x: t.slice_copy(x, 1, 0, 2, 0),
    lambda t, x: t.slice_copy(x, 2), lambda t, x: t.as_strided_copy(x, (2, 2), (1, 2), 1),
    lambda t, x: t.as_strided_copy(x, (2, 2), (1, 2)),
    lambda t, x: t.as_strided_copy(x, (2, 2), (1, 2), 100),
    lambda t, x: t.unfold_copy(x, 0, 2, 1), lambda t, x: t.unfold_copy(x, 0, 5, 1),
    lambda t, x: t.unfold_copy(x.t(), 1, 2, 2),
    lambda t, x: t.view_as_complex_copy(x[:, :2].contiguous()),
    lambda t, x: t.view_as_complex_copy(x[:, :2]), lambda t, x: t.view_as_real_copy(x),
    lambda t, x: t.view_as_real_copy(t.view_as_complex(x[:, :2].contiguous()) * 1),
    lambda t, x: t.t_copy(x), lambda t, x: t.alias_copy(),
])
def test_view_copies(call):
    def program(lib):
        x = lib.arange(12.).reshape(4, 3)
        out = catch(call, lib, x)
        if isinstance(out, Raised):
            return out
        return out, out.stride(), out.data_ptr() != x.data_ptr()
    same(program)


@pytest.mark.parametrize("call", [
    lambda t, x: t.slice_copy(x, 0, 0, 2), lambda t, x: t.select_copy(x, 0, 1),
    lambda t, x: t.t_copy(x), lambda t, x: t.view_copy(x, (12,)),
    lambda t, x: t.transpose_copy(x, 0, 1), lambda t, x: t.diagonal_copy(x),
    lambda t, x: t.expand_copy(x[:1], (3, 4)), lambda t, x: t.unbind_copy(x)[1],
    lambda t, x: t.split_copy(x, 2)[1], lambda t, x: t.alias_copy(x),
    lambda t, x: t.alias_copy(t.ones(2, requires_grad=True)),
    lambda t, x: t.as_strided_copy(x, (2, 2), (1, 1)), lambda t, x: t.unfold_copy(x, 1, 2, 1),
    lambda t, x: t.squeeze_copy(x), lambda t, x: t.permute_copy(x, (1, 0)),
    lambda t, x: t.narrow_copy(x, 0, 1, 1), lambda t, x: t.unsqueeze_copy(x, 0),
    lambda t, x: t.view_as_real_copy(t.view_as_complex(x[:, :2].contiguous())),
])
def test_view_copy_nodes(call):
    """One node of torch's view-copy kind (SliceBackward0_copy, NarrowCopyBackward0), its
    edges, gradients and double-backward graph."""
    def program(lib):
        x = lib.arange(12., requires_grad=True).reshape(3, 4)
        y = call(lib, x)
        fn = y.grad_fn
        nodes = [fn.name(), type(fn).__name__, [n.name() if n else None
                                                for n, _ in fn.next_functions]]
        if y.grad_fn.next_functions[0][0] is x.grad_fn:
            w = lib.arange(float(y.numel())).reshape(y.shape).to(y.dtype)
            g, = lib.autograd.grad((y * w).sum(), x, create_graph=True)
            nodes += [g, g.grad_fn.name()]
        return [y, y.is_contiguous(), y._version, nodes]
    same(program)


@pytest.mark.parametrize("case", [
    lambda t, x, s: t.as_strided_scatter(x, s, (2, 2), (1, 3), 1),
    lambda t, x, s: x.as_strided_scatter(s, (2, 2), (4, 1)),
    lambda t, x, s: t.as_strided_scatter(x * 2, s, [2, 2], [1, 3], storage_offset=5),
])
def test_as_strided_scatter(case):
    same(graded(case, [(3, 4), (2, 2)]))


@pytest.mark.parametrize("call", [
    lambda t, x, s: t.as_strided_scatter(x, s, (2, 2), (1, 3), 100),
    lambda t, x, s: t.as_strided_scatter(x, s, (2, 2), (1, 3, 3)),
    lambda t, x, s: t.as_strided_scatter(x, s, (2, 3), (1, 3)),
    lambda t, x, s: t.as_strided_scatter(x, s.float(), (2, 2), (1, 3)),
    lambda t, x, s: t.as_strided_scatter(x, s, (2, 2), (-1, 3)),
    lambda t, x, s: t.as_strided_scatter(x, s, (2, 2), (0, 0)),
    lambda t, x, s: t.as_strided_scatter(x.t(), s, (2, 2), (1, 3)),
    lambda t, x, s: (lambda y: (y, y.stride()))(
        t.as_strided_scatter(x.detach().t(), s.detach(), (2, 2), (1, 3), 1)),
    lambda t, x, s: t.as_strided_scatter(x.detach()[1:], s.detach(), (2, 2), (1, 3)),
])
def test_as_strided_scatter_edges(call):
    same(lambda lib: catch(call, lib, *_inputs(lib, [(3, 4), (2, 2)])))


# -- torch.autograd ------------------------------------------------------------------------------
def test_autograd_flags_and_names():
    def program(lib):
        a = lib.autograd
        out = [a.is_multithreading_enabled(), a.is_view_replay_enabled(),
               catch(a.set_multithreading_enabled, 1), catch(a.set_multithreading_enabled)]
        with a.set_multithreading_enabled(False):
            out.append(a.is_multithreading_enabled())
            seen = []
            th = threading.Thread(target=lambda: seen.append(a.is_multithreading_enabled()))
            th.start()
            th.join()
            out.append(seen)
        out.append(a.is_multithreading_enabled())

        @a.set_multithreading_enabled(False)
        def f():
            return a.is_multithreading_enabled()
        out += [a.is_multithreading_enabled(), f(), a.is_multithreading_enabled()]
        a.set_multithreading_enabled(True)
        x = lib.ones(2, requires_grad=True)
        raw = x.exp().grad_fn._raw_saved_result
        out += [isinstance(raw, a.SavedTensor), catch(a.SavedTensor),
                a.is_tensor_like(x), a.is_tensor_like(1), a.is_tensor_like(lib.nn.Parameter(x)),
                a.handle_torch_function is lib.overrides.handle_torch_function,
                a.is_tensor_like is lib.overrides.is_tensor_like]
        return out
    same(program)


def test_kineto_is_not_available():
    assert gg.autograd.kineto_available() is False    # glassgrad has no profiler


# -- torch.func ----------------------------------------------------------------------------------
def test_linearize():
    def program(lib):
        x, y = _inputs(lib, [(3,), (3,)])
        out, jvp_fn = lib.func.linearize(lambda a, b: (a.sin() * b, a.sum(), b * 0 + 1), x, y)
        t = lib.ones(3, dtype=lib.float64)
        return [out, jvp_fn(t, 2 * t), jvp_fn(t * 0, t),
                catch(jvp_fn, t), catch(jvp_fn, t, t.float()), catch(jvp_fn, t, t[:2]),
                catch(jvp_fn, t, (t,))]
    same(program)


def test_functionalize():
    def program(lib):
        x = lib.ones(4)

        def f(x):
            y = x.view(2, 2)
            y.add_(1)
            return y, x.sum(), 3
        g = lib.func.functionalize(f)
        out = g(x)
        w = lib.ones(2, requires_grad=True)
        r = lib.func.functionalize(lambda t: t * 2, remove="mutations_and_views")(w)
        return [out, x, out[0].data_ptr() == x.data_ptr(), r, type(r.grad_fn).__name__,
                catch(lib.func.functionalize, f, remove="x"),
                lib.func.functionalize(lambda: 3)()]
    same(program)


def test_stack_module_state_and_batch_norm_replacement():
    def program(lib):
        lib.manual_seed(0)
        models = [lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3)) for _ in range(3)]
        params, buffers = lib.func.stack_module_state(models)
        out = [sorted(params), sorted(buffers), params["0.weight"], buffers["1.running_mean"],
               [p.is_leaf and p.requires_grad for p in params.values()],
               catch(lib.func.stack_module_state, []),
               catch(lib.func.stack_module_state, [models[0], lib.nn.Linear(2, 3)]),
               catch(lib.func.stack_module_state, [models[0].eval(), models[1]])]
        models[0].train()
        models[1][0].weight.requires_grad_(False)
        out.append(catch(lib.func.stack_module_state, models[:2]))
        root = lib.func.replace_all_batch_norm_modules_(models[2])
        bn = root[1]
        out += [root is models[2], bn.running_mean, bn.running_var, bn.num_batches_tracked,
                bn.track_running_stats, root(lib.ones(4, 2)).shape,
                lib.func.replace_all_batch_norm_modules_(lib.nn.BatchNorm2d(2)).running_mean]
        return out
    same(program)


def test_debug_unwrap():
    def program(lib):
        x = lib.arange(6.).reshape(3, 2)
        shapes = []

        def f(t):
            shapes.append((tuple(lib.func.debug_unwrap(t).shape),
                           tuple(lib.func.debug_unwrap(t, recurse=False).shape)))
            return t * 2
        out = lib.func.vmap(f)(x)
        return [out, shapes[0], lib.func.debug_unwrap(x) is x]
    same(program)


def test_torch_vmap_is_func_vmap():
    assert gg.vmap is gg.func.vmap


# -- cond and while_loop -------------------------------------------------------------------------
def test_cond():
    def program(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        r = lib.cond(x.sum() > 0, lambda a: a.sin(), lambda a: a.cos(), (x,))
        r2 = lib.cond(False, lambda a: a.sin(), lambda a: a.cos(), [x])
        r3 = lib.cond(lib.tensor(False), lambda a, b: (a * b, a + 1), lambda a, b: (a - b, b * 1),
                      (x, x.detach() * 2))
        return [r, type(r.grad_fn).__name__, lib.autograd.grad(r.sum(), x),
                r2, type(r2.grad_fn).__name__, r3, type(r3[0].grad_fn).__name__,
                lib.autograd.grad(r3[0].sum() + r3[1].sum(), x),
                catch(lib.cond, x > 0, lambda a: a, lambda a: a, (x,)),
                catch(lib.cond, "a", lambda a: a, lambda a: a, (x,)),
                catch(lib.cond, lib.tensor(True), 1, lambda a: a, (x,)),
                catch(lib.cond, lib.tensor(True), lambda a: a, lambda a: a, (x, 1)),
                lib.cond(lib.tensor(True), lambda a: a * 2, lambda a: a + 1, (x.detach(),)),
                catch(lib.cond, lib.tensor(False), lambda a: a, lambda a: a[:1], (x,))]
    same(program)


def test_while_loop():
    def program(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        r = lib.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * a), (lib.tensor(0), x))
        r2 = lib.while_loop(lambda i, a: i > 3, lambda i, a: (i + 1, a * 2), (lib.tensor(0), x))
        return [r, type(r[1].grad_fn).__name__, lib.autograd.grad(r[1].sum(), x),
                r2, type(r2[1].grad_fn).__name__,
                catch(lib.while_loop, lambda i: i, lambda i: (i + 1,), (lib.tensor(0),)),
                catch(lib.while_loop, lambda i, a: i < 2, lambda i, a: (i + 1, a),
                      (lib.tensor(0), x)),
                catch(lib.while_loop, lambda i: i < 3, lambda i: (i, i), (lib.tensor(0),)),
                catch(lib.while_loop, 1, lambda i: (i,), (lib.tensor(0),)),
                catch(lib.while_loop, lambda i: i < 3, lambda i: (i + 1,), ("a",))]
    same(program)


# -- nn ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"hard": True}, {"tau": 0.5, "dim": 0},
                                    {"hard": True, "dim": 0}, {"eps": 1e-3}])
def test_gumbel_softmax(kwargs):
    def program(lib):
        lib.manual_seed(3)
        x = lib.randn(4, 5, requires_grad=True)
        w = lib.randn(4, 5)
        y, warns = warned(lambda: lib.nn.functional.gumbel_softmax(x, **kwargs))
        return [y, type(y.grad_fn).__name__, lib.autograd.grad((y * w).sum(), x), warns]
    same(program)


def test_nll_loss_2d_and_container():
    def program(lib):
        lib.manual_seed(0)
        loss, w1 = warned(lambda: lib.nn.NLLLoss2d(ignore_index=1, reduction="sum"))
        c, w2 = warned(lambda: lib.nn.Container(a=lib.nn.Linear(2, 3), b=lib.nn.ReLU()))
        x = lib.randn(2, 3, 4, 4).log_softmax(1)
        t = lib.randint(0, 3, (2, 4, 4))
        return [isinstance(loss, lib.nn.NLLLoss), loss(x, t), repr(loss), w1, w2, repr(c),
                sorted(n for n, _ in c.named_parameters()), isinstance(c, lib.nn.Module)]
    same(program)


@pytest.mark.parametrize("call", [
    lambda t, x: t.feature_dropout(x, 0.5, True), lambda t, x: t.feature_dropout(x, 0., True),
    lambda t, x: t.feature_dropout(x, 1., True), lambda t, x: t.feature_dropout(x, 0.5, False),
    lambda t, x: t.feature_dropout(x, 1.5, True), lambda t, x: t.feature_dropout(x[0, 0], 0.5, True),
    lambda t, x: t.feature_dropout_(x * 1, 0.5, True), lambda t, x: t.feature_dropout(x, "a", True),
])
def test_feature_dropout(call):
    def program(lib):
        lib.manual_seed(0)
        x = lib.randn(2, 3, 4, requires_grad=True)
        y = catch(call, lib, x)
        if isinstance(y, Raised):
            return y
        return y, type(y.grad_fn).__name__, lib.autograd.grad(y.sum(), x)
    same(program)


# -- ATen's spellings of nn ops ------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda t, x: t.constant_pad_nd(x, (1, 2), 3.5), lambda t, x: t.constant_pad_nd(x, [1, -1, 0, 1]),
    lambda t, x: t.constant_pad_nd(x, (0, 0, 0, 0, 1, 1)), lambda t, x: t.constant_pad_nd(x, ()),
    lambda t, x: t.constant_pad_nd(x, (-2, -1)),
])
def test_constant_pad_nd(case):
    same(graded(case, [(1, 2, 3)]))


@pytest.mark.parametrize("call", [
    lambda t, x: t.constant_pad_nd(x, (1, 2, 3)), lambda t, x: t.constant_pad_nd(x, (1,) * 8),
    lambda t, x: t.constant_pad_nd(x, (-2, -2)), lambda t, x: t.constant_pad_nd(x, (-4, 1)),
    lambda t, x: t.constant_pad_nd(t.ones(2, dtype=t.int64), (1, 1), 2),
    lambda t, x: t.constant_pad_nd(x, (1, 1), value="a"),
])
def test_constant_pad_nd_edges(call):
    same(lambda lib: catch(call, lib, *_inputs(lib, [(1, 2, 3)])))


@pytest.mark.parametrize("case", [
    lambda t, x, w, b: t.convolution(x, w, b, [1], [1], [1], False, [0], 1),
    lambda t, x, w, b: t.convolution(x, w, None, [2], [0], [1], False, [0], 1),
    lambda t, x, w, b: t.convolution(x, w.transpose(0, 1), None, [1], [0], [1], True, [0], 1),
    lambda t, x, w, b: t.convolution(x, w.transpose(0, 1), b[:2], [2], [1], [2], True, [1], 1),
    lambda t, x, w, b: t.convolution(x, w[:2, :1], b[:2], (1,), (0,), (1,), False, (0,), 2),
])
def test_convolution(case):
    same(graded(case, [(1, 2, 5), (4, 2, 2), (4,)]))


@pytest.mark.parametrize("call", [
    lambda t, x, w, b: t.convolution(x[0], w, b, [1], [1], [1], False, [0], 1),
    lambda t, x, w, b: t.convolution(x, w, b, [1, 1], [1], [1], False, [0], 1),
    lambda t, x, w, b: t.convolution(x, w, b, [1], [1], [1], False, [0], 3),
    lambda t, x, w, b: t.convolution(x, w, b, 1, 1, 1, False, 0, 1),
    lambda t, x, w, b: t.convolution(x, w, b, [2], [1], [2], True, [1], 1),
    lambda t, x, w, b: t.convolution(x, w, b, [1], [-1], [1], False, [0], 1),
    lambda t, x, w, b: t.autograd.grad(t.convolution(x, w, b, [2], [0], [1], False, [1], 1).sum(),
                                       x),
])
def test_convolution_edges(call):
    same(lambda lib: catch(call, lib, *_inputs(lib, [(1, 2, 5), (4, 2, 2), (4,)])))


@pytest.mark.parametrize("case", [
    lambda t, e: t.embedding(e, _index(t, [[0, 2], [4, 2]])),
    lambda t, e: t.embedding(e, _index(t, [[0, 2], [4, 2]]), 2, True),
    lambda t, e: t.embedding(e, t.tensor([1, 1, 3], dtype=t.int32), padding_idx=1),
])
def test_aten_embedding(case):
    same(graded(case, [(5, 3)]))


@pytest.mark.parametrize("call", [
    lambda t, e: t.embedding(e, _index(t, [0, 5])), lambda t, e: t.embedding(e, t.tensor([0., 1])),
    lambda t, e: t.embedding(e[0], _index(t, [0, 1])),
])
def test_aten_embedding_edges(call):
    same(lambda lib: catch(call, lib, *_inputs(lib, [(5, 3)])))


@pytest.mark.parametrize("name, mode, padding, corners, shapes", [
    ("grid_sampler", 0, 0, False, [(1, 3, 4, 4), (1, 2, 3, 2)]),
    ("grid_sampler", 1, 1, True, [(1, 3, 4, 4), (1, 2, 3, 2)]),
    ("grid_sampler_2d", 2, 2, False, [(1, 3, 4, 4), (1, 2, 3, 2)]),
    ("grid_sampler", 0, 2, True, [(1, 1, 3, 3, 3), (1, 2, 2, 2, 3)]),
    ("grid_sampler_3d", 0, 1, False, [(1, 1, 3, 3, 3), (1, 2, 2, 2, 3)]),
])
def test_grid_samplers(name, mode, padding, corners, shapes):
    def case(t, x, g):
        return getattr(t, name)(x, (g * 0.4).tanh(), mode, padding, corners)
    same(graded(case, shapes))


@pytest.mark.parametrize("call", [
    lambda t: t.grid_sampler_3d(t.ones(1, 3, 4, 4), t.ones(1, 2, 2, 2), 0, 0, False),
    lambda t: t.grid_sampler_2d(t.ones(1, 1, 3, 3, 3), t.ones(1, 2, 2, 2, 3), 0, 0, False),
    lambda t: t.grid_sampler(t.ones(1, 1, 3), t.ones(1, 2, 1), 0, 0, False),
    lambda t: t.grid_sampler_3d(t.ones(1, 1, 3, 3, 3), t.ones(1, 2, 2, 2, 3), 2, 0, False),
    lambda t: t.grid_sampler(t.ones(2, 3, 4, 4), t.ones(1, 2, 2, 2), 0, 0, False),
])
def test_grid_sampler_edges(call):
    same(lambda lib: catch(call, lib))


# -- torch.lstm, gru, rnn_tanh, rnn_relu and the cells ---------------------------------------------
@pytest.mark.parametrize("mode, kwargs, args", [
    ("LSTM", {"num_layers": 2, "bidirectional": True}, (True, 2, 0., False, True, False)),
    ("LSTM", {"bias": False, "batch_first": True}, (False, 1, 0., False, False, True)),
    ("LSTM", {"proj_size": 2}, (True, 1, 0., False, False, False)),
    ("GRU", {"num_layers": 2}, (True, 2, 0., True, False, False)),
    ("RNN", {"nonlinearity": "relu", "bidirectional": True}, (True, 1, 0., False, True, False)),
    ("RNN", {"bias": False}, (False, 1, 0., False, False, False)),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rnn_functions(mode, kwargs, args, dtype):
    def program(lib):
        lib.manual_seed(0)
        dt = getattr(lib, dtype)
        m = getattr(lib.nn, mode)(3, 4, **kwargs).to(dt)
        x = lib.randn(*((2, 5) if m.batch_first else (5, 2)), 3, dtype=dt, requires_grad=True)
        layers = m.num_layers * (2 if m.bidirectional else 1)
        h = lib.randn(layers, 2, m.proj_size or 4, dtype=dt)
        hx = [h, lib.randn(layers, 2, 4, dtype=dt)] if mode == "LSTM" else h
        name = {"LSTM": "lstm", "GRU": "gru"}.get(mode) or (
            "rnn_tanh" if m.nonlinearity == "tanh" else "rnn_relu")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = getattr(lib, name)(x, hx, m._flat_weights, *args)
            module_out = m(x, tuple(hx) if mode == "LSTM" else hx)
        flat = [module_out[0], *(module_out[1] if mode == "LSTM" else (module_out[1],))]
        grads = lib.autograd.grad(sum(o.sum() for o in out), [x, *m.parameters()])
        return [type(out).__name__, out, [type(o.grad_fn).__name__ for o in out], grads,
                [(a - b).abs().max() for a, b in zip(out, flat)]]
    # (float32: the libraries sum the weight gradients' terms in different orders)
    assert_same(run(program, torch), run(program, gg),
                tol={"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)})


def test_rnn_functions_on_packed_sequences():
    def program(lib):
        lib.manual_seed(0)
        m = lib.nn.GRU(3, 4, bidirectional=True).double()
        x = lib.randn(5, 3, 3, dtype=lib.float64, requires_grad=True)
        packed = lib.nn.utils.rnn.pack_padded_sequence(x, [5, 3, 2])
        out = lib.gru(packed.data, packed.batch_sizes, lib.zeros(2, 3, 4, dtype=lib.float64),
                      m._flat_weights, True, 1, 0., False, True)
        module_out = m(packed)
        return [out, module_out[0].data, module_out[1],
                lib.autograd.grad(out[0].sum(), [x, *m.parameters()])]
    same(program)


@pytest.mark.parametrize("name, states, chunks", [("lstm_cell", 2, 4), ("gru_cell", 1, 3),
                                                 ("rnn_tanh_cell", 1, 1), ("rnn_relu_cell", 1, 1)])
@pytest.mark.parametrize("bias", [True, False])
def test_rnn_cell_functions(name, states, chunks, bias):
    def case(t, x, h, c, w_ih, w_hh, b_ih, b_hh):
        hx = (h, c) if states == 2 else h
        biases = (b_ih, b_hh) if bias else ()
        return getattr(t, name)(x, hx, w_ih, w_hh, *biases)
    same(graded(case, [(2, 3), (2, 4), (2, 4), (chunks * 4, 3), (chunks * 4, 4), (chunks * 4,),
                       (chunks * 4,)]))


@pytest.mark.parametrize("call", [
    lambda t: t.gru_cell(t.ones(2, 3), t.zeros(2, 5), t.ones(12, 3), t.ones(12, 4)),
    lambda t: t.gru_cell(t.ones(2, 2), t.zeros(2, 4), t.ones(12, 3), t.ones(12, 4)),
    lambda t: t.lstm_cell(t.ones(2, 3), (t.zeros(2, 4),), t.ones(16, 3), t.ones(16, 4)),
    lambda t: t.rnn_tanh_cell(t.ones(3, 3), t.zeros(2, 4), t.ones(4, 3), t.ones(4, 4)),
    lambda t: t.gru(t.ones(5, 2, 3), t.zeros(1, 2, 4), [t.ones(12, 3)] * 3, True, 1, 0.,
                    False, False, False),
    lambda t: t.lstm(t.ones(5, 2, 3), t.zeros(1, 2, 4), [t.ones(16, 3)] * 4, True, 1, 0.,
                     False, False, False),
])
def test_rnn_function_edges(call):
    same(lambda lib: catch(call, lib))


# -- asarray, frombuffer, DLPack -------------------------------------------------------------------
def _described(t):
    if isinstance(t, Raised) or not is_tensor_like(t):
        return t
    return (t, t.dtype, t.requires_grad, t.is_leaf, type(t.grad_fn).__name__)


def is_tensor_like(t):
    return isinstance(t, (torch.Tensor, gg.Tensor))


@pytest.mark.parametrize("call", [
    lambda t, x, y: t.asarray(x) is x, lambda t, x, y: t.asarray(x, dtype=t.float64),
    lambda t, x, y: t.asarray(x, copy=True) is x, lambda t, x, y: t.asarray(x, copy=True),
    lambda t, x, y: t.asarray(x, copy=False, dtype=t.int64),
    lambda t, x, y: t.asarray(x, dtype=t.float32, copy=False) is x,
    lambda t, x, y: t.asarray([1, 2.5]), lambda t, x, y: t.asarray([1, 2]),
    lambda t, x, y: t.asarray(3), lambda t, x, y: t.asarray(2.5, dtype=t.int32),
    lambda t, x, y: t.asarray([[1], [2, 3]]), lambda t, x, y: t.asarray("abc"),
    lambda t, x, y: t.asarray([1, 2], copy=False), lambda t, x, y: t.asarray([1, 2], requires_grad=True),
    lambda t, x, y: t.asarray([1., 2], requires_grad=True),
    lambda t, x, y: t.asarray([t.tensor(1.), t.tensor(2.)]),
    lambda t, x, y: t.asarray(np.ones(2, dtype=np.float32)),
    lambda t, x, y: t.asarray(np.float64(2.5)), lambda t, x, y: t.asarray(np.float64(2.5), copy=False),
    lambda t, x, y: t.asarray(np.ones(2), copy=False, dtype=t.float32),
    lambda t, x, y: t.asarray(np.ones(2), dtype=t.float32),
    lambda t, x, y: t.asarray(bytearray(b"abcd")), lambda t, x, y: t.asarray(bytearray(b"abcd"), dtype=t.uint8),
    lambda t, x, y: t.asarray(array.array("f", [1, 2])),
    lambda t, x, y: t.asarray(y) is y, lambda t, x, y: t.asarray(y, requires_grad=False),
    lambda t, x, y: t.asarray(y, dtype=t.float64), lambda t, x, y: t.asarray(y * 2),
    lambda t, x, y: t.asarray(y * 2, requires_grad=False),
    lambda t, x, y: t.asarray(x, device="cpu") is x, lambda t, x, y: t.asarray(x, copy=1),
])
def test_asarray(call):
    def program(lib):
        x, y = lib.ones(3), lib.ones(2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _described(catch(call, lib, x, y))
    same(program)


def test_asarray_aliasing_and_requires_grad():
    def program(lib):
        lib.set_warn_always(True)
        a = np.ones(2)
        aliased, copied = lib.asarray(a), lib.asarray(a, copy=True)
        a[0] = 5
        x = lib.ones(3)
        same_x = lib.asarray(x, requires_grad=True)
        y = lib.ones(2, requires_grad=True)
        r, w = warned(lambda: lib.asarray(y))
        plain = lib.asarray(y, requires_grad=False)
        return [aliased, copied, same_x is x, x.requires_grad, r is y, w, plain is y,
                y.requires_grad]
    same(program)


@pytest.mark.parametrize("call", [
    lambda t: t.frombuffer(bytearray(b"abcdefgh"), dtype=t.int32),
    lambda t: t.frombuffer(bytearray(b"abcdefgh"), dtype=t.int16, count=2, offset=2),
    lambda t: t.frombuffer(bytearray(b""), dtype=t.int16),
    lambda t: t.frombuffer(bytearray(b"abc"), dtype=t.int16),
    lambda t: t.frombuffer(bytearray(b"abcd"), dtype=t.int16, offset=4),
    lambda t: t.frombuffer(bytearray(b"abcd"), dtype=t.int16, offset=-1),
    lambda t: t.frombuffer(bytearray(b"abcd"), dtype=t.int16, count=3),
    lambda t: t.frombuffer(bytearray(b"abcd"), dtype=t.int16, count=0),
    lambda t: t.frombuffer(3, dtype=t.uint8), lambda t: t.frombuffer(bytearray(b"abcd")),
    lambda t: t.frombuffer(bytearray(4), dtype=t.float32, requires_grad=True),
    lambda t: t.frombuffer(array.array("d", [1.5, 2]), dtype=t.float64),
    lambda t: t.frombuffer(np.arange(3.), dtype=t.float64),
    lambda t: t.frombuffer(bytearray(4), dtype=t.bool),
    lambda t: t.frombuffer(bytearray(8), dtype=t.complex64),
])
def test_frombuffer(call):
    same(lambda lib: _described(catch(call, lib)))


def test_frombuffer_shares_memory_and_warns_for_read_only():
    def program(lib):
        lib.set_warn_always(True)
        b = bytearray(4)
        x = lib.frombuffer(b, dtype=lib.uint8)
        x[0] = 7
        r, w = warned(lambda: lib.frombuffer(b"abcd", dtype=lib.uint8))
        return [bytes(b), r, w]
    same(program)


def test_dlpack():
    def program(lib):
        x = lib.arange(3.)
        c = lib.to_dlpack(x)
        u = lib.from_dlpack(c)
        u[0] = 5
        y = lib.ones(2, requires_grad=True)
        return [x, u.requires_grad, u.data_ptr() == x.data_ptr(), catch(lib.from_dlpack, c),
                lib.from_dlpack(np.arange(3)), catch(lib.from_dlpack, 3),
                catch(lib.to_dlpack, 3), lib.from_dlpack(x) is x,
                lib.from_dlpack(lib.to_dlpack(lib.tensor([True]))),
                lib.from_dlpack(x[::2]).stride(), catch(lambda: y.__dlpack__()),
                catch(lib.from_dlpack, y), lib.from_dlpack(x, copy=True).data_ptr() == x.data_ptr(),
                lib.from_dlpack(lib.to_dlpack(y)).requires_grad, x.__dlpack_device__()[1]]
    same(program)


def test_dlpack_between_the_libraries():
    t = torch.arange(3.)
    g = gg.from_dlpack(t)
    g[1] = 7
    back = torch.from_dlpack(gg.arange(4.)[1:])
    assert t.tolist() == [0., 7., 2.] and back.tolist() == [1., 2., 3.]
    assert np.from_dlpack(gg.ones(2)).tolist() == [1., 1.]


# -- gradient ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [
    {}, {"spacing": 2.}, {"spacing": [2., 3]}, {"dim": 1}, {"dim": -1, "spacing": 0.5},
    {"dim": [1, 0], "edge_order": 2, "spacing": 2}, {"dim": [1]},
    {"spacing": "T1", "dim": 1}, {"spacing": "T1", "dim": 1, "edge_order": 2},
    {"spacing": "T2"}, {"spacing": "T2", "edge_order": 2, "dim": [0, 1]},
    {"spacing": [1., 2], "dim": [1, 0]}, {"edge_order": 2},
])
def test_gradient(kwargs):
    def case(t, x):
        coords = {"T1": [t.tensor([0., 1, 3, 4, 7], dtype=x.dtype)],
                  "T2": (t.tensor([0., 1, 2.5], dtype=x.dtype),
                         t.tensor([0., 1, 3, 4, 7], dtype=x.dtype))}
        kw = dict(kwargs)
        if isinstance(kw.get("spacing"), str):
            kw["spacing"] = coords[kw["spacing"]]
        return t.gradient(x, **kw)
    same(graded(case, [(3, 5)]))


@pytest.mark.parametrize("call", [
    lambda t, x: t.gradient(x, edge_order=3), lambda t, x: t.gradient(t.ones(3, dtype=t.uint8)),
    lambda t, x: t.gradient(t.arange(4)), lambda t, x: t.gradient(x, spacing=[1., 2, 3]),
    lambda t, x: t.gradient(x, spacing=[1., 2, 3], dim=[0]), lambda t, x: t.gradient(x, dim=[0, 0]),
    lambda t, x: t.gradient(x, dim=2), lambda t, x: t.gradient(x[:2], edge_order=2, dim=0),
    lambda t, x: t.gradient(x, spacing=[t.ones(2, 2)], dim=0), lambda t, x: t.gradient(x, spacing=[2.]),
    lambda t, x: t.gradient(t.tensor(3.)), lambda t, x: t.gradient(x, spacing=2, dim=[1]),
    lambda t, x: t.gradient(t.tensor([1, 4, 9, 16]), spacing=2),
])
def test_gradient_edges(call):
    same(lambda lib: catch(call, lib, lib.arange(15.).reshape(3, 5) ** 2))


# -- histogramdd ---------------------------------------------------------------------------------------
POINTS = [[0., 0.], [1, 1], [2, 3], [0.5, 0.5], [1.5, 2.9], [2, 0]]


@pytest.mark.parametrize("call", [
    lambda t, x: t.histogramdd(x, bins=[2, 2]), lambda t, x: t.histogramdd(x, 3),
    lambda t, x: t.histogramdd(x, bins=3, range=[0., 2, 0, 3], density=True),
    lambda t, x: t.histogramdd(x, [2, 3], [0., 1, 0, 1]),
    lambda t, x: t.histogramdd(x, bins=[t.tensor([0., 1, 2]), t.tensor([0., 2, 4])],
                               weight=t.tensor([1., 2, 3, 4, 5, 6])),
    lambda t, x: t.histogramdd(x, bins=[t.tensor([0., 1, 2]), t.tensor([0., 2, 4])],
                               density=True),
    lambda t, x: t.histogramdd(x.double(), bins=2), lambda t, x: t.histogramdd(x.reshape(2, 3, 2), 2),
    lambda t, x: t.histogramdd(x[:, :1], bins=4, weight=t.arange(6.)),
    lambda t, x: t.histogramdd(x, bins=[2, 2, 2]), lambda t, x: t.histogramdd(x, bins=2, range=[0., 1]),
    lambda t, x: t.histogramdd(x.int(), bins=2), lambda t, x: t.histogramdd(x[:, 0], bins=2),
    lambda t, x: t.histogramdd(x, bins=2, weight=t.ones(3)),
    lambda t, x: t.histogramdd(x, bins=2, range=[1., 0, 0, 1]),
    lambda t, x: t.histogramdd(x, bins=[t.tensor([1., 0]), t.tensor([0., 1])]),
    lambda t, x: t.histogramdd(x, bins=0), lambda t, x: t.histogramdd(t.zeros(0, 2), bins=2),
    lambda t, x: t.histogramdd(x, bins=2, range=[0., 0, 0, 0]),
    lambda t, x: t.histogramdd(x[:1], bins=2),
])
def test_histogramdd(call):
    def program(lib):
        out = catch(call, lib, lib.tensor(POINTS))
        return out if isinstance(out, Raised) else (type(out).__name__, out.hist, out.bin_edges)
    same(program)


# -- resize_, resize_as_, resize, resize_as, set_ -------------------------------------------------------
def _layout_of(t):
    return t if isinstance(t, Raised) else (t, t.stride(), t.storage_offset(), t._version)


@pytest.mark.parametrize("call", [
    lambda t: t.arange(6.).resize_(2, 3), lambda t: t.arange(6.).resize_((2, 3)),
    lambda t: t.arange(6.).resize_(2, 2), lambda t: t.arange(6.).resize_([3]),
    lambda t: t.arange(6.).reshape(2, 3).t().resize_(3, 2),
    lambda t: t.arange(6.).reshape(2, 3).t().resize_(6),
    lambda t: t.arange(6.)[:3].resize_(5), lambda t: t.arange(6.)[2:].resize_(2, 2),
    lambda t: t.ones(2, requires_grad=True).resize_(3),
    lambda t: (t.ones(2, requires_grad=True) * 1).resize_(3), lambda t: t.ones(2).resize_(-1),
    lambda t: t.ones(2).resize_(2, -1), lambda t: t.arange(6.).resize_as_(t.ones(3, 2)),
    lambda t: t.resize_as_(t.arange(6.), t.ones(2, 3)), lambda t: t.arange(6.).resize_(0),
    lambda t: t.arange(6).resize_(1, 2),
])
def test_resize_(call):
    same(lambda lib: _layout_of(catch(call, lib)))


def test_resize_grows_the_storage():
    def program(lib):
        z = lib.arange(4.)
        z.resize_(3, 3)
        lib.use_deterministic_algorithms(True)
        w = lib.arange(4.)
        w.resize_(6)
        return [z.shape, z.stride(), z.untyped_storage().nbytes(), z.flatten()[:4], w]
    same(program)


@pytest.mark.parametrize("call", [
    lambda t, x: x.resize(2, 3), lambda t, x: x.resize(6), lambda t, x: x.resize(4),
    lambda t, x: x.resize((2, 3)), lambda t, x: x.resize_as(t.ones(3, 2)),
    lambda t, x: (x * 1).reshape(2, 3).t().resize(6), lambda t, x: x.resize_as(t.ones(2)),
])
def test_resize_and_resize_as(call):
    def program(lib):
        x = lib.arange(6., requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = catch(call, lib, x)
        if isinstance(r, Raised):
            return r
        return [r, type(r.grad_fn).__name__, r._base is x, r.data_ptr() == x.data_ptr(),
                lib.autograd.grad((r * lib.arange(6.).reshape(r.shape)).sum(), x),
                [str(m.message) for m in w]]
    same(program)


def test_set_():
    def program(lib):
        y = lib.arange(6.)
        x = lib.zeros(2)
        out = [_layout_of(x.set_(y))]
        x[0] = 9
        s = y.untyped_storage()
        out += [y, _layout_of(lib.zeros(2).set_(s, 2, (2, 2), (1, 2))),
                _layout_of(lib.zeros(2).set_(s, 2, (2, 2))), _layout_of(lib.zeros(2).set_(s)),
                _layout_of(lib.zeros(2).set_()), _layout_of(lib.zeros(2).set_(y[2:])),
                _layout_of(lib.zeros(2).set_(y.reshape(2, 3).t())),
                _layout_of(lib.zeros(2).set_(source=y, storage_offset=1, size=(2,))),
                catch(lib.zeros(2, dtype=lib.int64).set_, y),
                catch(lib.zeros(2, requires_grad=True).set_, y),
                catch(lib.zeros(2).set_, 3), catch(lib.zeros(2).set_, s, 1)]
        return out
    same(program)


def test_set_refusals():
    y = gg.arange(6.)
    with pytest.raises(NotImplementedError, match="grows the storage"):
        gg.zeros(2).set_(y.untyped_storage(), 5, (2, 2), (1, 2))
    with pytest.raises(NotImplementedError, match="requires grad"):
        (gg.zeros(2, requires_grad=True) * 1).set_(y)


# -- stft / istft -------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [
    {"n_fft": 16, "return_complex": True},
    {"n_fft": 16, "window": "hann", "return_complex": True},
    {"n_fft": 16, "window": "hann", "return_complex": False},
    {"n_fft": 16, "hop_length": 5, "win_length": 10, "window": "ones10", "center": False,
     "normalized": True, "onesided": False, "return_complex": True},
    {"n_fft": 12, "hop_length": 3, "window": "hann12", "pad_mode": "constant",
     "return_complex": True},
    {"n_fft": 16, "win_length": 12, "return_complex": True, "center": False},
    {"n_fft": 8, "window": "hann8", "return_complex": True, "batch": True},
    {"n_fft": 16, "window": "hann", "return_complex": True, "complex_input": True},
])
def test_stft(kwargs):
    def case(t, x):
        kw = dict(kwargs)
        windows = {"hann": t.hann_window(16, dtype=x.dtype), "hann8": t.hann_window(8, dtype=x.dtype),
                   "hann12": t.hann_window(12, dtype=x.dtype), "ones10": t.ones(10, dtype=x.dtype)}
        if isinstance(kw.get("window"), str):
            kw["window"] = windows[kw["window"]]
        signal = x.reshape(2, 32) if kw.pop("batch", False) else x
        if kw.pop("complex_input", False):
            signal = t.complex(signal, signal.flip(0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = t.stft(signal, **kw)
        return out.real * 1.5 + out.imag if out.is_complex() else out
    same(graded(case, [(64,)]))


@pytest.mark.parametrize("kwargs", [
    {"n_fft": 16, "window": "hann"}, {"n_fft": 16, "window": "hann", "length": 60},
    {"n_fft": 16, "window": "hann", "normalized": True, "hop_length": 8},
    {"n_fft": 16, "window": "hann", "center": False},
    {"n_fft": 16, "window": "hann", "onesided": False, "return_complex": True},
    {"n_fft": 16, "window": "hann", "onesided": False},
    {"n_fft": 16, "window": "hann", "length": 70},
    {"n_fft": 16, "win_length": 12, "window": "hann12"},
    {"n_fft": 16},
])
def test_istft(kwargs):
    def case(t, x):
        kw = dict(kwargs)
        windows = {"hann": t.hann_window(16, dtype=x.dtype), "hann12": t.hann_window(12, dtype=x.dtype)}
        if isinstance(kw.get("window"), str):
            kw["window"] = windows[kw["window"]]
        onesided = kw.get("onesided", True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spec = t.stft(x, kw["n_fft"], hop_length=kw.get("hop_length"),
                          win_length=kw.get("win_length"), window=kw.get("window"),
                          center=kw.get("center", True), onesided=onesided,
                          return_complex=True)
            out = t.istft(spec * 1.0, **kw)
        return out.real * 1.5 + out.imag if out.is_complex() else out
    same(graded(case, [(64,)]))


@pytest.mark.parametrize("call", [
    lambda t, x: t.stft(x, 16), lambda t, x: t.stft(x, 80, return_complex=True, center=False),
    lambda t, x: t.stft(x, 16, hop_length=0, return_complex=True),
    lambda t, x: t.stft(x, 16, win_length=20, return_complex=True),
    lambda t, x: t.stft(x, 16, window=t.ones(15), return_complex=True),
    lambda t, x: t.stft(t.ones(2, 2, 2), 4, return_complex=True),
    lambda t, x: t.stft(t.arange(10), 4, return_complex=True, center=False),
    lambda t, x: t.stft(x + 0j, 16, window=t.ones(16), return_complex=True, onesided=True),
    lambda t, x: t.stft(x, 16, return_complex=True, align_to_window=True),
    lambda t, x: t.istft(x, 16), lambda t, x: t.istft(t.ones(9, 17) + 0j, 20),
    lambda t, x: t.istft(t.ones(9, 17) + 0j, 16, hop_length=20),
    lambda t, x: t.istft(t.ones(9, 17) + 0j, 16, window=t.ones(15)),
    lambda t, x: t.istft(t.ones(9) + 0j, 16),
    lambda t, x: t.istft(t.ones(9, 17) + 0j, 16, onesided=True, return_complex=True),
    lambda t, x: x.stft(16, window=t.ones(16), return_complex=True).istft(16, window=t.ones(16)),
])
def test_stft_edges(call):
    def program(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return catch(call, lib, lib.arange(64.) / 10)
    same(program)


def test_stft_warnings():
    def program(lib):
        lib.set_warn_always(True)
        x = lib.arange(64.)
        return [warned(lambda: lib.stft(x, 16, return_complex=True))[1],
                warned(lambda: lib.stft(x, 16, window=lib.ones(16), return_complex=False))[1]]
    same(program)


# -- TypedStorage, the typed storage classes, is_storage --------------------------------------------------
LEGACY_STORAGES = ["FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage", "LongStorage",
                   "IntStorage", "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage",
                   "ComplexFloatStorage", "ComplexDoubleStorage"]


def _storage_facts(s):
    return s if isinstance(s, Raised) else (type(s).__name__, s.dtype, s.size(), len(s),
                                            s.nbytes(), s.element_size(), s.type(), str(s.device),
                                            s.is_shared(), repr(s))


@pytest.mark.parametrize("name", LEGACY_STORAGES)
def test_legacy_storage_classes(name):
    def program(lib):
        cls = getattr(lib, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = cls([1, 0, 1])
            return [_storage_facts(s), s.tolist(), s[1], s[-1], catch(lambda: s[3]),
                    [isinstance(s, getattr(lib, n)) for n in LEGACY_STORAGES],
                    isinstance(s, lib.TypedStorage), isinstance(s, lib.Storage), cls.dtype,
                    len(cls(4)), catch(cls, 2, dtype=lib.float64), s.pickle_storage_type()]
    same(program)


def test_typed_storage():
    def program(lib):
        lib.set_warn_always(True)
        x = lib.arange(4.)
        s, w = warned(x.storage)
        out = [_storage_facts(s), s.tolist(), s.data_ptr() == x.data_ptr(),
               s.untyped() is x.untyped_storage()]
        s[0] = 9
        out.append(x)
        y = lib.empty(0).set_(s)
        out += [y, lib.is_storage(s), lib.is_storage(x.untyped_storage()), lib.is_storage(x),
                lib.is_storage(1), isinstance(x.untyped_storage(), lib.StorageBase),
                isinstance(s, lib.StorageBase), catch(lambda: s[1:2]),
                catch(lib.empty(0, dtype=lib.int64).set_, s)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out += [_storage_facts(lib.TypedStorage([1.5, 2], dtype=lib.int64)),
                    lib.TypedStorage(3, dtype=lib.float64).size(),
                    catch(lib.TypedStorage, "a"),
                    lib.TypedStorage(wrap_storage=x.untyped_storage(), dtype=lib.float32).tolist(),
                    lib.TypedStorage([]).size(), _storage_facts(lib.FloatStorage())]
        return out
    same(program)


# -- nn.DataParallel, nn.SyncBatchNorm, torch.GradScaler ------------------------------------------------
def test_data_parallel_without_accelerators():
    def program(lib):
        lib.manual_seed(0)
        lin = lib.nn.Linear(2, 3)
        d = lib.nn.DataParallel(lin, device_ids=[0], output_device=0)
        x = lib.ones(4, 2)
        y = d(x)
        return [repr(d), d.device_ids, d.module is lin, y, type(y.grad_fn).__name__,
                sorted(d.state_dict()), lib.nn.DataParallel is lib.nn.parallel.DataParallel,
                lib.autograd.grad(y.sum(), lin.weight)]
    same(program)


@pytest.mark.parametrize("train", [True, False])
def test_sync_batch_norm(train):
    def program(lib):
        lib.manual_seed(0)
        m = lib.nn.SyncBatchNorm(3, momentum=None).train(train).double()
        x = lib.randn(4, 3, 2, dtype=lib.float64, requires_grad=True)
        y = m(x)
        bn = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        conv = lib.nn.SyncBatchNorm.convert_sync_batchnorm(bn)
        w = lib.arange(24., dtype=lib.float64).reshape(4, 3, 2)
        return [repr(m), y, type(y.grad_fn).__name__, lib.autograd.grad((y * w).sum(), x),
                m.running_mean, m.num_batches_tracked, catch(m, lib.ones(3)),
                catch(m, lib.ones(2, 0)), repr(conv), conv[1].weight is bn[1].weight,
                type(conv[1]).__name__, lib.GradScaler is lib.amp.GradScaler]
    same(program)


# -- from_file, thread_safe_generator, F.handle_torch_function --------------------------------------------
def test_from_file(tmp_path):
    path = str(tmp_path / "data.bin")

    def program(lib):
        with open(path, "wb") as f:
            f.write(bytes(range(16)))
        out = [lib.from_file(path), lib.from_file(path, size=4, dtype=lib.int32),
               lib.from_file(path, size=2, dtype=lib.float64, requires_grad=True).requires_grad,
               lib.from_file(path, size=4, dtype=lib.uint8).untyped_storage().nbytes(),
               catch(lib.from_file, path, False, 16), catch(lib.from_file, path + "x", None, 2)]
        private = lib.from_file(path, shared=False, size=4, dtype=lib.uint8)
        private[0] = 9
        shared = lib.from_file(path, shared=True, size=4, dtype=lib.uint8)
        shared[1] = 8
        del private, shared
        with open(path, "rb") as f:
            out.append(f.read(4))
        return out
    same(program)


def test_thread_safe_generator_and_functional_handle_torch_function():
    def program(lib):
        seen = []
        data = lib.utils.data.DataLoader(list(range(2)), num_workers=0,
                                         collate_fn=lambda b: seen.append(
                                             lib.thread_safe_generator()) or b)
        list(data)
        return [lib.thread_safe_generator(), seen,
                lib.nn.functional.handle_torch_function is lib.overrides.handle_torch_function]
    same(program)


# -- optim.swap_in_optimizer_params_and_state -------------------------------------------------------
def _trained(lib, make):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Linear(3, 1))
    opt = make(lib, m)
    m(lib.ones(4, 2)).sum().backward()
    opt.step()
    return m, opt


@pytest.mark.parametrize("make", [
    lambda t, m: t.optim.Adam(m.parameters(), lr=0.1),
    lambda t, m: t.optim.SGD([{"params": m[0].parameters()}, {"params": m[1].parameters(),
                                                               "lr": 0.5}], lr=0.1, momentum=0.9),
])
def test_swap_in_optimizer_params_and_state(make):
    def program(lib):
        m, opt = _trained(lib, make)
        params = {n: p.detach().clone().requires_grad_() for n, p in m.named_parameters()}
        for p in params.values():
            p.grad = lib.ones_like(p)
        osd = copy.deepcopy(opt.state_dict())
        osd["param_groups"][0]["lr"] = 0.01
        with lib.optim.swap_in_optimizer_params_and_state(opt, params, osd):
            opt.step()
            inside = [opt.param_groups[0]["params"][0] is params["0.weight"], len(opt.state),
                      opt.param_groups[0]["lr"]]
        return [inside, params, dict(m.named_parameters()), osd["state"], opt.state_dict(),
                opt.param_groups[0]["lr"]]
    same(program)


@pytest.mark.parametrize("spoil", [
    lambda t, osd, params: ([], params), lambda t, osd, params: ({"state": [], **osd}, params),
    lambda t, osd, params: ({**osd, "state": {t.ones(1): {}}}, params),
    lambda t, osd, params: ({**osd, "state": {0: 1}}, params),
    lambda t, osd, params: ({**osd, "param_groups": {}}, params),
    lambda t, osd, params: ({**osd, "param_groups": osd["param_groups"] * 2}, params),
    lambda t, osd, params: ({**osd, "param_groups": [1]}, params),
    lambda t, osd, params: ({**osd, "param_groups": [{**osd["param_groups"][0],
                                                      "params": ["a"]}]}, params),
    lambda t, osd, params: ({**osd, "param_groups": [{**osd["param_groups"][0],
                                                      "params": [0]}]}, params),
    lambda t, osd, params: ({**osd, "param_groups": [{**osd["param_groups"][0], "x": 1}]}, params),
    lambda t, osd, params: (osd, dict(list(params.items())[:2])),
    lambda t, osd, params: ({**osd, "state": {**osd["state"], 9: {}}}, params),
])
def test_swap_in_refusals(spoil):
    def program(lib):
        m, opt = _trained(lib, lambda t, m: t.optim.Adam(m.parameters(), lr=0.1))
        params = dict(m.named_parameters())
        osd, params = spoil(lib, copy.deepcopy(opt.state_dict()), params)

        def enter():
            with lib.optim.swap_in_optimizer_params_and_state(opt, params, osd):
                pass
        return [catch(enter), catch(lambda: lib.optim.swap_in_optimizer_params_and_state(
            lib.optim.SGD(m.parameters(), lr=1), params, osd).__enter__())]
    same(program)
