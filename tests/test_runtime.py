"""Differential tests of the runtime around tensors against torch 2.13 (CPU build): devices,
the default device and dtype, threads, torch.cuda/backends/accelerator, the legacy API, and
the modules programs import (amp, jit, onnx, distributed, nn.parallel, utils.benchmark,
utils.tensorboard)."""
import importlib
import os
import pickle
import re
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import LIBS, Raised, catch, same


@pytest.fixture(autouse=True)
def _restore_defaults():
    threads = [lib.get_num_threads() for lib in LIBS]
    yield
    for lib, n in zip(LIBS, threads):
        lib.set_default_dtype(lib.float32)
        lib.set_default_device(None)
        lib.set_num_threads(n)
        lib.backends.cudnn.enabled, lib.backends.cudnn.benchmark = True, False
        lib.backends.cudnn.deterministic = False
        lib.backends.cuda.matmul.allow_tf32 = False


def warned(fn, *args, **kwargs):
    """(fn's result or Raised, [(warning category, message)])."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = catch(fn, *args, **kwargs) if not kwargs else catch(lambda: fn(*args, **kwargs))
    return out, [(x.category.__name__, str(x.message)) for x in w]


# -- torch.device ----------------------------------------------------------------------------
DEVICE_STRINGS = ["cpu", "cpu:0", "cpu:1", "cuda", "cuda:1", "cuda:12", "meta", "mps", "xla",
                  "hpu:3", "xpu", "privateuseone", "cuda:-1", "cpu:-1", "gpu", "CPU", "",
                  " cpu", "cuda:a", "cuda:01", "cuda:1:2", "cuda: 1", "cuda:+1"]


def _describe(d):
    return (repr(d), str(d), d.type, d.index, hash(d), f"{d:>8}", d == type(d)(str(d)))


@pytest.mark.parametrize("text", DEVICE_STRINGS)
def test_device_from_string(text):
    same(lambda lib: _describe(lib.device(text)))


@pytest.mark.parametrize("args", [("cuda", 0), ("cpu", 1), ("cuda:0", 1), ("cuda", -1),
                                  ("cuda", "1"), (0,), (-1,), (1.5,), (None,), (("cuda", 0),)])
def test_device_from_arguments(args):
    same(lambda lib: _describe(lib.device(*args)))


def test_device_from_device_and_keywords():
    def program(lib):
        d = lib.device("cuda:1")
        return [_describe(lib.device(d)), _describe(lib.device(type="cuda", index=2)),
                _describe(lib.device(type="cuda")), catch(lib.device, d, 1)]
    same(program)


def test_device_equality_hash_and_immutability():
    def program(lib):
        d = lib.device
        return [d("cpu") == d("cpu"), d("cpu") == d("cpu:0"), d("cpu") == "cpu",
                "cpu" == d("cpu"), d("cuda:0") == "cuda:0", d("cpu") == 1, d("cpu") != "cpu",
                d("cpu") != d("cpu"), d("cuda", 1) == d("cuda:1"),
                {d("cpu"): 1}.get(d("cpu")), {d("cpu"): 1}.get("cpu"),
                len({d("cpu"), d("cpu"), d("cpu:0")}), catch(lambda: d("cpu") < d("cuda")),
                catch(setattr, d("cpu"), "type", "cuda"), catch(setattr, d("cpu"), "index", 1),
                bool(d("cpu")), type(d("cpu")).__name__,
                repr(pickle.loads(pickle.dumps(d("cuda:1")))), repr(d("cuda:1").__reduce__()[1])]
    same(program)


# -- Tensor.device, metadata ------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int16", "int32",
                                   "int64", "uint8", "bool"])
def test_tensor_device_and_sizes(dtype):
    def program(lib):
        t = lib.zeros(3, 4, dtype=getattr(lib, dtype))
        views = [t, t[:, 0], t[1], t.t(), t[:0], lib.zeros(1, dtype=t.dtype).expand(10)]
        return [t.device, t.is_cpu, t.is_cuda, t.is_meta, t.get_device(), lib.get_device(t),
                t.device == lib.device("cpu"), t.device.type, t.device.index,
                [(v.element_size(), v.itemsize, v.nbytes) for v in views],
                catch(setattr, t, "device", "cpu"), catch(setattr, t, "is_cpu", False)]
    same(program)


# -- Tensor.to and cpu/cuda -----------------------------------------------------------------
TO_CALLS = {
    "device_str": "t.to('cpu')", "device_index": "t.to('cpu:0')", "device_obj": "t.to(lib.device('cpu'))",
    "dtype": "t.to(lib.float64)", "same_dtype": "t.to(lib.float32)", "int": "t.to(lib.int64)",
    "tensor": "t.to(lib.zeros(1, dtype=lib.int64))", "device_dtype": "t.to('cpu', lib.float64)",
    "keywords": "t.to(device='cpu', dtype=lib.float64, non_blocking=True, copy=True)",
    "dtype_nb": "t.to(lib.float64, True)", "dtype_nb_copy": "t.to(lib.float64, False, True)",
    "copy": "t.to('cpu', copy=True)", "copy_kw_only": "t.to(copy=True)", "none": "t.to(None)",
    "none_none": "t.to(None, None)", "nothing": "t.to()", "dtype_kw": "t.to(dtype=lib.int32)",
    "tensor_nb_copy": "t.to(lib.zeros(1), True, True)",
    "memory_format_none": "t.to(lib.float64, memory_format=None)",
    # errors
    "cuda": "t.to('cuda')", "cuda_index": "t.to('cuda:1')", "cuda_obj": "t.to(lib.device('cuda'))",
    "cuda_dtype": "t.to('cuda', lib.float64)", "cuda_kw": "t.to(device='cuda')",
    "xpu": "t.to('xpu')", "mps": "t.to('mps')", "xla": "t.to('xla')", "hpu": "t.to('hpu')",
    "mtia": "t.to('mtia')", "gpu": "t.to('gpu')", "accelerator": "t.to(0)",
    "bad_string": "t.to('float64')", "two_dtypes": "t.to(lib.float64, lib.float32)",
    "dtype_twice": "t.to(lib.float64, dtype=lib.float32)", "bad_kw": "t.to(foo=1)",
    "bad_kw_after": "t.to(lib.float64, foo=1)", "five": "t.to(1, 2, 3, 4, 5)",
    "two_devices": "t.to('cpu', 'cpu')", "tensor_dtype": "t.to(lib.zeros(1), dtype=lib.float64)",
    "list": "t.to([1])", "nb_int": "t.to(non_blocking=1)", "float_number": "t.to(1.5)",
    "bool_number": "t.to(True)", "float_number_nb": "t.to(1.5, True, True)",
    "tuple": "t.to((1.5, True))", "dtype_float": "t.to(lib.float64, 1.5)",
}


@pytest.mark.parametrize("name", TO_CALLS)
def test_to(name):
    def program(lib):
        t = lib.tensor([1.5, -2.0], requires_grad=True)
        out = eval(TO_CALLS[name], {"lib": lib, "t": t})
        return out, out is t, type(out.grad_fn).__name__
    same(program)


def test_to_meta_is_refused():
    with pytest.raises(NotImplementedError, match="meta"):
        gg.zeros(2).to("meta")
    with pytest.raises(NotImplementedError, match="meta"):
        gg.zeros(2, device="meta")


def test_cpu_cuda_and_type_conversions():
    def program(lib):
        t = lib.tensor([1.0, 2.0], requires_grad=True)
        out = t.double()
        out.sum().backward()
        return [t.cpu() is t, catch(t.cuda), catch(t.cuda, 0), catch(lib.zeros(1).cuda),
                t.grad, type(t.type(lib.float64).grad_fn).__name__]
    same(program)


# -- factories' device= ------------------------------------------------------------------------
FACTORIES = {
    "tensor": "lib.tensor([1.5, 2.0], device=D)", "as_tensor": "lib.as_tensor([1.5], device=D)",
    "zeros": "lib.zeros(2, device=D)", "ones": "lib.ones(2, 3, device=D)",
    "empty": "lib.empty(2, device=D).shape", "full": "lib.full((2,), 1.5, device=D)",
    "arange": "lib.arange(3, device=D)", "linspace": "lib.linspace(0, 1, 4, device=D)",
    "eye": "lib.eye(2, device=D)", "zeros_like": "lib.zeros_like(lib.ones(2), device=D)",
    "ones_like": "lib.ones_like(lib.ones(2), device=D)",
    "empty_like": "lib.empty_like(lib.ones(2), device=D).shape",
    "full_like": "lib.full_like(lib.ones(2), 7, device=D)",
    "rand": "lib.rand(2, device=D).shape", "randn": "lib.randn(2, device=D).dtype",
    "randint": "lib.randint(0, 5, (3,), device=D).shape",
    "randperm": "lib.randperm(4, device=D).sort().values",
    "rand_like": "lib.rand_like(lib.ones(2), device=D).shape",
    "randn_like": "lib.randn_like(lib.ones(2), device=D).dtype",
    "randint_like": "lib.randint_like(lib.ones(2), 3, device=D).shape",
    "normal": "lib.normal(0.0, 1.0, (2,), device=D).shape",
    "new_zeros": "lib.ones(1).new_zeros(2, device=D)", "new_ones": "lib.ones(1).new_ones(2, device=D)",
    "new_empty": "lib.ones(1).new_empty(2, device=D).shape",
    "new_full": "lib.ones(1).new_full((2,), 3, device=D)",
    "new_tensor": "lib.ones(1).new_tensor([4], device=D)",
}
DEVICES = {"none": "None", "cpu": "'cpu'", "cpu0": "'cpu:0'", "cpu1": "'cpu:1'",
           "obj": "lib.device('cpu')", "cuda": "'cuda'", "cuda1": "'cuda:1'",
           "cuda_obj": "lib.device('cuda', 0)", "xpu": "'xpu'", "gpu": "'gpu'",
           "accelerator": "0", "float": "1.5"}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("factory", FACTORIES)
def test_factory_device(factory, device):
    if device == "float" and factory not in ("tensor", "as_tensor", "zeros", "ones", "empty",
                                             "full", "zeros_like", "ones_like", "empty_like",
                                             "full_like"):
        pytest.skip("torch reports these as an invalid combination of all their arguments")
    if device == "xpu" and factory in ("new_tensor", "tensor", "as_tensor"):
        pytest.skip("torch builds these through an xpu tensor first")

    def program(lib):
        out = eval(FACTORIES[factory], {"lib": lib, "D": eval(DEVICES[device], {"lib": lib})})
        return out if isinstance(out, (lib.Size, lib.dtype)) else (out, out.device)
    same(program)


@pytest.mark.parametrize("device", ["mps", "xla", "lazy", "ipu", "vulkan", "hip", "hpu",
                                    "privateuseone", "mtia"])
@pytest.mark.parametrize("factory", [f for f in FACTORIES if not f.startswith("new_")] +
                         ["new_zeros", "new_tensor", "to"])
def test_factories_on_devices_glassgrad_has_not(factory, device):
    # torch follows its first sentence with its dispatch keys; glassgrad says why instead
    def program(lib):
        call = "lib.ones(1).to(D)" if factory == "to" else FACTORIES[factory]
        try:
            eval(call, {"lib": lib, "D": device})
        except Exception as e:      # noqa: BLE001
            return type(e).__name__, str(e).split(". ")[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(program)


def test_default_device():
    def program(lib):
        out = [lib.get_default_device()]
        lib.set_default_device("cpu:0")
        out += [lib.get_default_device(), lib.zeros(1).device]
        lib.set_default_device("cuda")
        out += [catch(lib.get_default_device), catch(lib.zeros, 1), catch(lib.tensor, [1.0]),
                catch(lib.arange, 2), lib.Tensor(2).shape]
        lib.set_default_device(None)
        out += [lib.get_default_device(), lib.zeros(1).device,
                catch(lib.set_default_device, "gpu"), catch(lib.set_default_device, 1.5)]
        lib.set_default_device(lib.device("cpu"))
        out.append(lib.get_default_device())
        with lib.device("cpu:0"):
            out += [lib.get_default_device(), lib.ones(1)]
        out.append(lib.get_default_device())
        return out
    same(program)


# -- default dtype ----------------------------------------------------------------------------
DEFAULT_DTYPE_CALLS = [
    "lib.tensor([1.5])", "lib.tensor(2.5)", "lib.tensor([1, 2])", "lib.tensor([True, 1.5])",
    "lib.tensor([[1, 2.5]])", "lib.tensor([])", "lib.as_tensor([0.5])", "lib.zeros(2)",
    "lib.ones(1, 2)", "lib.empty(2).dtype", "lib.full((2,), 1.5)", "lib.full((2,), 3)",
    "lib.full((1,), True)", "lib.arange(0.0, 1.0, 0.5)", "lib.arange(3)", "lib.arange(2.5)",
    "lib.linspace(0, 1, 3)", "lib.eye(2)", "lib.rand(2).dtype", "lib.randn(2).dtype",
    "lib.normal(0.0, 1.0, (2,)).dtype", "lib.Tensor(2).dtype", "lib.Tensor([1, 2])",
    "lib.Tensor()", "lib.tensor([1, 2]) * 0.5", "lib.tensor([1, 2]) / 2", "lib.tensor(3) + 0.5",
    "lib.zeros_like(lib.tensor([1, 2]))", "lib.ones(2, dtype=lib.int32).new_tensor([1.5])",
    "lib.FloatTensor([1.5])", "lib.tensor(np.array([1.5]))", "lib.tensor([1.5]).sum()",
    "lib.tensor([1, 2]).mean(dtype=lib.get_default_dtype())", "lib.get_default_dtype()",
    "lib.sqrt(lib.tensor([1, 4]))", "lib.sigmoid(lib.tensor([1]))", "lib.tensor([True]) + 0.5",
    "lib.atan2(lib.tensor([1]), lib.tensor([2]))", "lib.where(lib.tensor([True]), 1.5, 2)",
    "lib.clamp(lib.tensor([1]), min=0.5)", "lib.tensor([2]).reciprocal()",
]


@pytest.mark.parametrize("default", ["float16", "float32", "float64"])
@pytest.mark.parametrize("call", DEFAULT_DTYPE_CALLS)
def test_factories_under_default_dtype(call, default):
    def program(lib):
        lib.set_default_dtype(getattr(lib, default))
        return eval(call, {"lib": lib, "np": np})
    same(program)


@pytest.mark.parametrize("arg", ["lib.int64", "lib.bool", "'float64'", "None", "1",
                                 "lib.float16", "lib.float64"])
def test_set_default_dtype_checks(arg):
    same(lambda lib: (catch(lib.set_default_dtype, eval(arg, {"lib": lib})),
                      lib.get_default_dtype()))


@pytest.mark.parametrize("arg", ["lib.DoubleTensor", "'torch.DoubleTensor'", "lib.HalfTensor",
                                 "'torch.FloatTensor'", "lib.LongTensor", "'torch.LongTensor'",
                                 "'torch.Foo'", "'foo'", "'torch.cuda.FloatTensor'",
                                 "lib.cuda.DoubleTensor", "lib.float64", "1"])
def test_set_default_tensor_type(arg):
    def program(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = catch(lib.set_default_tensor_type, eval(arg, {"lib": lib}))
        return out, lib.get_default_dtype(), lib.Tensor(1).dtype, lib.tensor([0.5]).dtype
    same(program)


def test_set_default_tensor_type_warns_deprecation_once():
    # torch warns once per process: ask a fresh one
    import subprocess
    import sys
    code = ("import warnings, torch\nwith warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    torch.set_default_tensor_type(torch.FloatTensor)\n"
            "    torch.set_default_tensor_type(torch.FloatTensor)\n"
            "print(repr([(x.category.__name__, str(x.message)) for x in w]))")
    theirs = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.strip()
    gg.ops.legacy._warned[0] = False
    ours = warned(gg.set_default_tensor_type, gg.FloatTensor)[1] + \
        warned(gg.set_default_tensor_type, gg.FloatTensor)[1]
    assert repr(ours) == theirs


# -- threads --------------------------------------------------------------------------------
@pytest.mark.parametrize("n", ["1", "2", "0", "-1", "1.5", "'2'", "True"])
def test_set_num_threads(n):
    def program(lib):
        out = catch(lib.set_num_threads, eval(n))
        return out, isinstance(out, Raised) or lib.get_num_threads() == eval(n)
    same(program)


@pytest.mark.parametrize("n", ["0", "1.5", "True"])
def test_set_num_interop_threads_checks(n):
    same(lambda lib: catch(lib.set_num_interop_threads, eval(n)))


def test_threads_reach_numpy_blas():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    gg.set_num_threads(1)
    blas = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    assert blas and all(n == 1 for n in blas)
    assert isinstance(gg.get_num_interop_threads(), int) and gg.get_num_interop_threads() > 0


# -- torch.cuda, torch.backends, torch.accelerator ---------------------------------------------
CUDA_CALLS = ["is_available()", "device_count()", "is_initialized()", "_is_compiled()",
              "current_device()", "synchronize()", "init()", "get_device_name()",
              "get_device_name(0)", "get_device_capability()", "get_device_properties(0)",
              "empty_cache()", "memory_allocated()", "max_memory_allocated()",
              "memory_reserved()", "max_memory_reserved()", "memory_stats()",
              "reset_peak_memory_stats()", "reset_max_memory_allocated()", "get_rng_state()",
              "get_rng_state_all()", "set_rng_state(lib.zeros(5, dtype=lib.uint8))", "seed()",
              "seed_all()", "manual_seed(1)", "manual_seed_all(1)", "initial_seed()",
              "ipc_collect()", "set_device(0)", "set_device(-1)", "set_device('cpu')",
              "set_device('cuda:1')", "current_stream()", "default_stream()", "mem_get_info()",
              "get_arch_list()", "is_bf16_supported()", "is_bf16_supported(False)",
              "is_tf32_supported()", "get_gencode_flags()", "can_device_access_peer(0, 1)",
              "Stream()", "Event()", "FloatTensor(2)", "LongTensor([1])", "_lazy_init()",
              "device(0).idx", "device(None).idx", "device('cuda:2').idx", "device('cpu')",
              "device(0).__enter__()", "device(-1).__enter__()",
              "issubclass(lib.cuda.OutOfMemoryError, RuntimeError)",
              "isinstance(lib.zeros(1), lib.cuda.FloatTensor)", "repr(lib.cuda.FloatTensor)",
              "lib.cuda.FloatTensor.is_cuda", "set_per_process_memory_fraction(0.5)",
              "device_of(lib.zeros(1)).idx", "nvtx.range_push('x')", "nvtx.range_pop()",
              "nvtx.mark('x')", "nvtx.range('x').__enter__()", "host_memory_stats()"]


@pytest.mark.parametrize("call", CUDA_CALLS)
def test_cuda_module(call):
    expr = call if call.startswith(("issubclass", "isinstance", "repr", "lib.")) else \
        "lib.cuda." + call
    same(lambda lib: warned(lambda: eval(expr, {"lib": lib})))


def test_cuda_seed_does_not_touch_the_cpu_generator():
    def program(lib):
        lib.manual_seed(3)
        a = lib.rand(3)
        lib.manual_seed(3)
        lib.cuda.manual_seed(99)
        lib.cuda.manual_seed_all(99)
        return (a == lib.rand(3)).all().item()
    same(program)


def test_backends_flags():
    def program(lib):
        b = lib.backends
        out = [b.cudnn.enabled, b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32,
               b.cudnn.is_available(), b.cudnn.version(), b.cudnn.benchmark_limit,
               b.mps.is_available(), b.mps.is_built(), b.cuda.is_built(),
               b.cuda.matmul.allow_tf32, b.cuda.matmul.allow_fp16_reduced_precision_reduction,
               b.cuda.matmul.allow_bf16_reduced_precision_reduction,
               b.mkldnn.enabled, b.mkldnn.deterministic,
               catch(lambda: b.cuda.matmul.foo), catch(setattr, b.cuda.matmul, "foo", 1)]
        b.cudnn.benchmark = True
        b.cudnn.deterministic = True
        b.cuda.matmul.allow_tf32 = True
        out += [b.cudnn.benchmark, b.cudnn.deterministic, b.cuda.matmul.allow_tf32]
        for name in ("enabled", "benchmark", "deterministic", "allow_tf32"):
            out.append(catch(setattr, b.cudnn, name, "x"))
        for name in ("enabled", "deterministic"):
            out.append(catch(setattr, b.mkldnn, name, 1))
        out += [catch(setattr, b.cuda.matmul, "allow_tf32", 1),
                catch(setattr, b.cuda.matmul, "allow_fp16_reduced_precision_reduction", "x")]
        with b.cudnn.flags(enabled=False, benchmark=False, deterministic=True):
            out.append((b.cudnn.enabled, b.cudnn.benchmark, b.cudnn.deterministic))
        out.append((b.cudnn.enabled, b.cudnn.benchmark, b.cudnn.deterministic))
        with b.mkldnn.flags():
            out.append((b.mkldnn.enabled, b.mkldnn.deterministic))
        out.append((b.mkldnn.enabled, b.mkldnn.deterministic))
        import importlib
        out.append(importlib.import_module(lib.__name__ + ".backends.cudnn").enabled)
        return out
    same(program)


def test_backends_glassgrad_lacks():
    # torch's CPU build has oneDNN, MKL and OpenMP; glassgrad computes through NumPy and says so
    assert not gg.backends.mkldnn.is_available() and not gg.backends.openmp.is_available()
    assert not gg.backends.mkl.is_available()


@pytest.mark.parametrize("call", ["is_available()", "current_accelerator()",
                                  "current_accelerator(check_available=True)", "device_count()",
                                  "current_device_index()", "set_device_index(0)",
                                  "synchronize()", "current_stream()", "empty_cache()"])
def test_accelerator(call):
    same(lambda lib: eval("lib.accelerator." + call, {"lib": lib}))


# -- the legacy API -------------------------------------------------------------------------
TYPE_NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
              "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]
LEGACY_ARGS = ["", "2, 3", "0", "[1, 2]", "[[1.5]]", "(2, 3)", "lib.Size([2, 3])", "[]",
               "np.array([1, 2])", "np.array([1.5, -2.5])", "[1.7, -2.5, 0]", "[-1]",
               "[lib.tensor(1.0), lib.tensor(2.0)]", "3.5", "True", "None", "-1", "2, -1",
               "lib.Size([2, -1])", "'ab'", "2, [1]", "2, 3.0", "[1.0], 2", "2.0, 3",
               "[[1, 2], [3]]", "2, device='cpu'", "[1.0], device='cpu'",
               "2, device='cuda'", "device='cuda'", "[1.0], dtype=lib.float64",
               "[1.0], requires_grad=True", "lib.tensor([1.0, 2.0]), device='cpu'"]


def _legacy_program(cls, args):
    def program(lib):
        return eval(f"lib.{cls}({args})", {"lib": lib, "np": np})
    return program


@pytest.mark.parametrize("args", LEGACY_ARGS)
@pytest.mark.parametrize("cls", ["Tensor"] + TYPE_NAMES)
def test_legacy_constructors(cls, args):
    def program(lib):
        out = eval(f"lib.{cls}({args})", {"lib": lib, "np": np})
        return out if args not in ("2, 3", "lib.Size([2, 3])", "0", "2, device='cpu'") else \
            (out.shape, out.dtype)
    same(program)


@pytest.mark.parametrize("src", ["float32", "float64", "int64"])
@pytest.mark.parametrize("cls", ["Tensor", "FloatTensor", "DoubleTensor", "LongTensor"])
def test_legacy_constructor_from_a_tensor(cls, src):
    def program(lib):
        t = lib.tensor([1.0, 2.0], dtype=getattr(lib, src))
        if t.is_floating_point():
            t.requires_grad_()
        out = catch(getattr(lib, cls), t)
        if isinstance(out, Raised):
            return out
        with lib.no_grad():     # the alias shares t's data
            out.add_(1)
        return [out, t.detach(), out is t, type(out.grad_fn).__name__, out._base is t]
    same(program)


def test_legacy_types():
    def program(lib):
        out = []
        for name in TYPE_NAMES:
            cls = getattr(lib, name)
            out.append((repr(cls), cls.__name__, type(cls).__name__,
                        cls.dtype, cls.is_cuda, cls.is_sparse, isinstance(cls, type),
                        issubclass(cls, lib.Tensor), type(cls(1)).__name__,
                        isinstance(cls(1), lib.Tensor), isinstance(1, cls),
                        [isinstance(lib.zeros(1, dtype=getattr(lib, d)), cls) for d in
                         ("float32", "float64", "float16", "int64", "int32", "int16", "int8",
                          "uint8", "bool")]))
        return out
    same(program)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int16", "int32",
                                   "int64", "uint8", "bool"])
def test_tensor_type(dtype):
    same(lambda lib: lib.zeros(2, dtype=getattr(lib, dtype)).type())


TYPE_CALLS = ["t.type(lib.float64)", "t.type(lib.float32) is t", "t.type('torch.DoubleTensor')",
              "t.type('torch.FloatTensor') is t", "t.type(lib.LongTensor)",
              "t.type(lib.Tensor)", "t.type(dtype=lib.int32)",
              "t.type(lib.float64, non_blocking=True)", "t.type('torch.Foo')",
              "t.type('DoubleTensor')", "t.type('float64')", "t.type('torch.cuda.FloatTensor')",
              "t.type(lib.cuda.FloatTensor)", "t.type(1)", "t.type(foo=1)",
              "type(t.type(lib.float64).grad_fn).__name__"]


@pytest.mark.parametrize("call", TYPE_CALLS)
def test_tensor_type_conversion(call):
    def program(lib):
        t = lib.tensor([1.5, -2.0], requires_grad=True)
        return eval(call, {"lib": lib, "t": t})
    same(program)


NEW_CALLS = ["t.new_tensor([1, 2])", "t.new_tensor([1.5])", "i.new_tensor([1.5])",
             "t.new_tensor([1], dtype=lib.int32)", "t.new_tensor([1.0], requires_grad=True)",
             "t.new_zeros(2, 3)", "t.new_zeros((2, 3))", "t.new_zeros([2, 3])",
             "t.new_zeros(lib.Size([2]))", "t.new_ones(2, dtype=lib.int64)", "i.new_ones(2)",
             "t.new_full((2,), 3)", "i.new_full((2,), 3.5)", "t.new_full([2], 1)",
             "t.new_full(2, 3)", "t.new_empty(2).shape", "t.new_empty((1, 2)).dtype",
             "i.new_empty(2).dtype", "t.new_zeros(2, requires_grad=True)", "t.new(2, 3).shape",
             "i.new([1.5])", "t.new()", "t.new([1, 2])", "t.new(i)", "i.new(i)",
             "h.new_zeros(1)", "h.new_tensor([1])"]


@pytest.mark.parametrize("call", NEW_CALLS)
def test_new_factories(call):
    def program(lib):
        t, i = lib.tensor([1.0], dtype=lib.float64), lib.tensor([1, 2])
        h = lib.zeros(1, dtype=lib.float16)
        return eval(call, {"lib": lib, "t": t, "i": i, "h": h})
    same(program)


def test_new_tensor_from_a_tensor_warns_and_copies():
    def program(lib):
        src = lib.tensor([1, 2])
        out, w = warned(lib.zeros(1).new_tensor, src)
        src.add_(5)
        return out, w
    same(program)


VARIABLE_CALLS = ["V(t)", "V(t) is t", "V(t, requires_grad=True)", "V(t, True)",
                  "V(t, volatile=True)", "V(t, volatile=False)", "V([1.0])", "V()", "V(None)",
                  "V(3)", "V(lib.ones(2, dtype=lib.int64), requires_grad=True)",
                  "V(lib.ones(2, requires_grad=True) * 2)",
                  "V(lib.ones(2, requires_grad=True) * 2, requires_grad=True)",
                  "V(data=t)", "V(t, True, True)", "V(t, True, volatile=True)", "V(t, foo=1)",
                  "V(t, data=t)", "V(t, False, False, 'x')", "V(t, requires_grad=None)",
                  "isinstance(t, V)", "isinstance(1, V)", "type(V(t)).__name__",
                  "type(V).__name__"]


@pytest.mark.parametrize("call", VARIABLE_CALLS)
def test_variable(call):
    def program(lib):
        t = lib.tensor([1.0, 2.0])
        return warned(lambda: eval(call, {"lib": lib, "t": t, "V": lib.autograd.Variable}))
    same(program)


def test_variable_shares_data_and_is_a_leaf():
    def program(lib):
        t = lib.ones(2, requires_grad=True) * 2
        v = lib.autograd.Variable(t, requires_grad=True)
        with lib.no_grad():
            t.mul_(3)
        (v * v).sum().backward()
        return v, v.is_leaf, v.grad, t._version == v._version
    same(program)


# -- amp --------------------------------------------------------------------------------------
def _in_autocast(lib, make):
    with make(lib) as region:
        x = lib.ones(2, 2, dtype=lib.float32)
        inside = [(x @ x).dtype, lib.is_autocast_enabled(), region.device,
                  lib.is_autocast_enabled(region.device), lib.is_autocast_enabled("cpu")]
    return inside, lib.is_autocast_enabled(region.device)


AUTOCAST = {
    "cpu_disabled": lambda lib: lib.autocast("cpu", enabled=False),
    "cuda_disabled": lambda lib: lib.autocast("cuda", enabled=False),
    "cuda_enabled": lambda lib: lib.autocast("cuda"),
    "cuda_float16": lambda lib: lib.autocast("cuda", dtype=lib.float16),
    "cpu_float32": lambda lib: lib.autocast("cpu", dtype=lib.float32),
    "cpu_float64": lambda lib: lib.autocast(device_type="cpu", dtype=lib.float64),
    "amp_module": lambda lib: lib.amp.autocast("cpu", enabled=False),
    "cuda_amp": lambda lib: lib.cuda.amp.autocast(enabled=False),
    "cuda_amp_enabled": lambda lib: lib.cuda.amp.autocast(),
    "mps": lambda lib: lib.autocast("mps"),
    "mps_disabled": lambda lib: lib.autocast("mps", enabled=False),
    "xpu": lambda lib: lib.autocast("xpu", dtype=lib.float16),
    "xpu_float32": lambda lib: lib.autocast("xpu", dtype=lib.float32),
    "hpu_disabled": lambda lib: lib.autocast("hpu", enabled=False, dtype=lib.float16),
    "mtia": lambda lib: lib.autocast("mtia"),
    "hip": lambda lib: lib.autocast("hip"),
    "meta": lambda lib: lib.autocast("meta"),
    "meta_dtype": lambda lib: lib.autocast("meta", dtype=lib.float16),
    "lazy": lambda lib: lib.autocast("lazy"),
    "privateuseone": lambda lib: lib.autocast("privateuseone"),
    "bad_type": lambda lib: lib.autocast("gpu"),
    "not_str": lambda lib: lib.autocast(1),
}


@pytest.mark.parametrize("name", AUTOCAST)
def test_autocast(name):
    same(lambda lib: warned(_in_autocast, lib, AUTOCAST[name]))


def test_autocast_regions_nest():
    def program(lib):
        out = []
        with lib.autocast("mps"):
            out.append(lib.is_autocast_enabled("mps"))
            with lib.autocast("mps", enabled=False):
                out.append(lib.is_autocast_enabled("mps"))
                with lib.autocast("xpu"):
                    out.append((lib.is_autocast_enabled("xpu"), lib.is_autocast_enabled("mps")))
            out.append(lib.is_autocast_enabled("mps"))
        out.append(lib.is_autocast_enabled("mps"))
        return out
    same(program)


def test_autocast_as_decorator_and_queries():
    def program(lib):
        @lib.autocast("cpu", enabled=False)
        def f(x):
            return x * 2, lib.is_autocast_enabled("cpu")
        return [f(lib.ones(1)), lib.is_autocast_enabled(), lib.is_autocast_enabled("cuda"),
                catch(lib.is_autocast_enabled, "gpu"), catch(lib.is_autocast_enabled, 1),
                lib.get_autocast_dtype("cuda"), lib.get_autocast_dtype("cpu"),
                catch(lib.autocast("cpu", enabled=False), 3),
                [lib.get_autocast_dtype(d) for d in ("ipu", "xpu", "hip", "mps", "mtia")],
                catch(lib.get_autocast_dtype, "meta"), catch(lib.get_autocast_dtype, 1),
                [lib.amp.is_autocast_available(d) for d in
                 ("cpu", "cuda", "mps", "xla", "hip", "meta", "lazy", "privateuseone")],
                catch(lib.amp.is_autocast_available, 1)]
    same(program)


def test_enabled_cpu_autocast_is_refused():
    for kwargs in ({}, {"dtype": gg.float16}):
        with pytest.raises(NotImplementedError, match="autocast"):
            gg.autocast("cpu", **kwargs)
    with pytest.raises(NotImplementedError, match="CPU autocast"):
        gg.set_autocast_enabled("cpu", True)
    assert not gg.is_autocast_enabled("cpu")


def _scaler(lib, make):
    s, w = warned(make, lib)
    if isinstance(s, Raised):
        return s, w

    class Optimizer:
        steps = 0

        def step(self, *args, **kwargs):
            Optimizer.steps += 1
            return args, kwargs
    x = lib.ones(2, requires_grad=True)
    loss = (x * 3).sum()
    scaled = s.scale(loss)
    scaled.backward()
    opt = Optimizer()
    return [scaled is loss, x.grad, s.is_enabled(), s.get_scale(), s.state_dict(),
            s.unscale_(opt), s.step(opt, 1, k=2), Optimizer.steps, s.update(), s.update(2.0),
            s.scale([lib.ones(1)]), s.load_state_dict({}), catch(s.get_growth_factor), w]


SCALERS = {"default": lambda lib: lib.amp.GradScaler(),
           "cuda": lambda lib: lib.amp.GradScaler("cuda"),
           "disabled": lambda lib: lib.amp.GradScaler(enabled=False),
           "cpu_disabled": lambda lib: lib.amp.GradScaler("cpu", enabled=False),
           "cuda_amp": lambda lib: lib.cuda.amp.GradScaler(),
           "cuda_amp_disabled": lambda lib: lib.cuda.amp.GradScaler(enabled=False)}


@pytest.mark.parametrize("name", SCALERS)
def test_grad_scaler(name):
    same(lambda lib: _scaler(lib, SCALERS[name]))


class _SGD:
    """A duck-typed optimizer (param_groups, step, zero_grad) that runs in both libraries."""

    def __init__(self, lib, params, lr=0.1):
        self.lib, self.param_groups = lib, [{"params": list(params), "lr": lr}]

    def step(self, *args, **kwargs):
        with self.lib.no_grad():
            for p in self.param_groups[0]["params"]:
                if p.grad is not None:
                    p.sub_(self.param_groups[0]["lr"] * p.grad)
        return "stepped", args, kwargs

    def zero_grad(self):
        for p in self.param_groups[0]["params"]:
            p.grad = None


def test_grad_scaler_trains_on_the_cpu():
    def program(lib):
        w = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        b = lib.tensor([0.25], dtype=lib.float64, requires_grad=True)
        opt = _SGD(lib, [w, b])
        scaler = lib.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
        out = [scaler.is_enabled(), scaler.get_scale(), scaler.state_dict()]
        for i, poison in enumerate([False, False, True, False, False, False]):
            opt.zero_grad()
            loss = ((w * (i + 1)) ** 2).sum() + (b * 3).sum()
            if poison:
                loss = loss * float("inf")
            scaled = scaler.scale(loss)
            scaled.backward()
            out.append((scaled, type(scaled.grad_fn).__name__, w.grad, b.grad))
            if i == 1:
                scaler.unscale_(opt)
                out.append((w.grad, b.grad, catch(scaler.unscale_, opt)))
            out.append(scaler.step(opt, i, k=i))
            out += [catch(scaler.step, opt), catch(scaler.unscale_, opt)]
            scaler.update()
            out += [w.detach().clone(), b.detach().clone(), scaler.get_scale(),
                    scaler.state_dict()]
        return out
    same(program)


def test_grad_scaler_cpu_api():
    def program(lib):
        s = lib.amp.GradScaler("cpu", init_scale=8.0)
        x = lib.ones(2, requires_grad=True)
        opt = _SGD(lib, [x])
        out = [catch(s.step, opt), catch(s.update), catch(s.unscale_, opt),
               s.scale([x, (x * 2, [x])]), list(s.scale(v for v in (x, x))),
               catch(s.scale, 3), catch(s.scale, [3])]
        out += [catch(lambda: s.step(opt, closure=lambda: 0)), catch(s.update)]
        s.update(2.0)
        out.append(s.get_scale())
        s.update(lib.tensor(4.0))
        out += [s.get_scale(), catch(s.update, lib.tensor([1.0, 2.0])),
                catch(s.update, lib.tensor(1.0, requires_grad=True))]
        state = s.state_dict()
        t = lib.amp.GradScaler("cpu")
        t.load_state_dict(state)
        out += [t.get_scale(), t.state_dict(), catch(t.load_state_dict, {}),
                lib.amp.GradScaler("cpu", enabled=False).state_dict()]
        h = lib.ones(1, dtype=lib.float16, requires_grad=True)
        (s.scale(h.float()).sum()).backward()
        out.append(catch(s.unscale_, _SGD(lib, [h])))
        out += [catch(lib.amp.GradScaler, "cpu", growth_factor=1.0),
                catch(lib.amp.GradScaler, "cpu", backoff_factor=1.0)]
        for name in ("growth_factor", "backoff_factor", "growth_interval"):
            getattr(s, "set_" + name)(3)
            out.append(getattr(s, "get_" + name)())
        return out
    same(program)


# -- jit, onnx, distributed, nn.parallel ------------------------------------------------------
def test_jit_leaves_results_unchanged():
    def program(lib):
        def f(x):
            return x * 2 + 1
        out = []
        for make in (lambda: lib.jit.script(f), lambda: lib.jit.trace(f, (lib.ones(1),))):
            g, w = warned(make)
            out.append((g(lib.ones(2)), sorted({c for c, _ in w}), sorted({m for _, m in w})))
        return out + [lib.jit.ignore(f) is f, lib.jit.unused(f) is f, lib.jit.export(f) is f,
                      warned(lambda: lib.jit.ignore(drop=True)(f) is f),
                      catch(lib.jit.ignore, 3), lib.jit.is_scripting(),
                      lib.jit.is_tracing(), lib.jit.annotate(int, 3)]
    same(program)


def test_jit_archives_and_onnx_are_refused(tmp_path):
    for call in (lambda: gg.jit.save(None, tmp_path / "m.pt"), lambda: gg.jit.load("m.pt"),
                 lambda: gg.onnx.export(lambda x: x, (gg.ones(1),), tmp_path / "m.onnx")):
        with pytest.raises(NotImplementedError, match="torch.jit.save|torch.jit.load|onnx"):
            call()
    assert gg.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False


def test_nn_parallel_imports():
    # DistributedDataParallel and the process groups: tests/test_distributed.py; DataParallel:
    # tests/test_names.py
    from glassgrad.nn.parallel import DataParallel, DistributedDataParallel
    importlib.import_module("glassgrad.nn.parallel")
    assert issubclass(DataParallel, gg.nn.Module) and isinstance(DistributedDataParallel, type)


@pytest.mark.parametrize("name", ["cuda", "cuda.amp", "backends.cudnn", "backends.mps",
                                  "backends.cuda", "backends.mkldnn", "accelerator", "amp",
                                  "jit", "onnx", "distributed", "nn.parallel", "utils.benchmark",
                                  "autograd.variable"])
def test_modules_import_as_torch_has_them(name):
    # `glassgrad run` resolves torch.<name> to glassgrad.<name>: each must be a module there
    same(lambda lib: type(importlib.import_module(f"{lib.__name__}.{name}")).__mro__[-2].__name__)


# -- utils.benchmark, utils.tensorboard --------------------------------------------------------
def _mask(text):
    return re.sub(r"0x[0-9a-f]+", "ADDR", re.sub(r"\d+\.\d+", "N", text)).replace(
        "torch.utils.benchmark.utils.common", "MODULE").replace(
        "glassgrad.utils.benchmark.timer", "MODULE")


def test_benchmark_timer():
    def program(lib):
        benchmark = importlib.import_module(lib.__name__ + ".utils.benchmark")
        t = benchmark.Timer("x.sum()", setup="y = 1", globals={"x": lib.ones(10)},
                                      label="sum", description="ones")
        m1 = t.timeit(20)
        m2 = t.blocked_autorange(min_run_time=0.01)
        return [(m.number_per_run, len(m.times), m.mean > 0, m.median > 0,
                 len(m.raw_times) == len(m.times)) for m in (m1,)] + \
            [m2.number_per_run >= 1, len(m2.times) >= 1,
             _mask(repr(m1)).splitlines()[1:3],
             catch(benchmark.Timer, lambda: 1),
             benchmark.Timer("torch.ones(1)").timeit(2).number_per_run]
    same(program)


@pytest.mark.parametrize("times", [[2e-6], [2e-6, 2.2e-6], [1e-3, 1.1e-3, 1.2e-3, 5e-3, 1e-3],
                                   [5e-9] * 4, [3.0, 1.0]])
def test_benchmark_measurement_repr(times):
    from torch.utils.benchmark.utils.common import Measurement, TaskSpec
    from glassgrad.utils.benchmark import Measurement as Ours
    ours = Ours(10, [t * 10 for t in times], stmt="x.sum()",
                                          setup="pass", sub_label="s")
    theirs = Measurement(10, [t * 10 for t in times], TaskSpec("x.sum()", "pass", sub_label="s"))
    assert repr(ours).splitlines()[1:] == repr(theirs).splitlines()[1:]
    assert [ours.mean, ours.median, *ours.times] == pytest.approx(
        [theirs.mean, theirs.median, *theirs.times])


def test_tensorboard_needs_the_package():
    def program(lib):
        try:
            importlib.import_module(lib.__name__ + ".utils.tensorboard")
        except ImportError as e:
            return Raised(e)
        return "imported"
    if importlib.util.find_spec("tensorboard") is not None:
        pytest.skip("tensorboard is installed")
    same(program)


# -- torch.cpu, custom_fwd/custom_bwd, float32 matmul precision --------------------------------
@pytest.mark.parametrize("call", ["is_available()", "is_initialized()", "device_count()",
                                  "current_device()", "synchronize()", "set_device('cpu')",
                                  "set_device(0)"])
def test_cpu_module(call):
    same(lambda lib: eval("lib.cpu." + call, {"lib": lib}))


@pytest.mark.parametrize("make", ["lib.cpu.amp.autocast(enabled=False)",
                                  "lib.cpu.amp.autocast(dtype=lib.float32)",
                                  "lib.cpu.amp.GradScaler(enabled=False)"])
def test_cpu_amp_deprecated_spellings(make):
    same(lambda lib: warned(lambda: type(eval(make, {"lib": lib})).__name__))


CUSTOM = {
    "amp_cuda": lambda lib: (lib.amp.custom_fwd(device_type="cuda"),
                             lib.amp.custom_bwd(device_type="cuda")),
    "amp_cpu_cast": lambda lib: (lib.amp.custom_fwd(device_type="cpu",
                                                    cast_inputs=lib.float16),
                                 lib.amp.custom_bwd(device_type="cpu")),
    "cuda_amp": lambda lib: (lib.cuda.amp.custom_fwd, lib.cuda.amp.custom_bwd),
    "cuda_amp_cast": lambda lib: (lib.cuda.amp.custom_fwd(cast_inputs=lib.float16),
                                  lib.cuda.amp.custom_bwd),
}


@pytest.mark.parametrize("name", CUSTOM)
def test_custom_fwd_bwd(name):
    def program(lib):
        fwd, bwd = CUSTOM[name](lib)

        class Cube(lib.autograd.Function):
            @staticmethod
            @fwd
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            @bwd
            def backward(ctx, grad):
                x, = ctx.saved_tensors
                return grad * 3 * x ** 2, ctx._fwd_used_autocast
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        y = Cube.apply(x)
        y.sum().backward()
        return y, x.grad, type(y.grad_fn).__name__
    same(lambda lib: warned(program, lib))


def test_custom_fwd_checks_device_type():
    same(lambda lib: [catch(lambda: lib.amp.custom_fwd(device_type=1)),
                      catch(lambda: lib.amp.custom_bwd(device_type=None))])


@pytest.mark.parametrize("values", [["high"], ["medium", "highest"], ["bad"], [1], ["HIGH"],
                                    ["tf32:True"], ["tf32:True", "tf32:False"]])
def test_float32_matmul_precision(values):
    def program(lib):
        out = [lib.get_float32_matmul_precision()]
        for v in values:
            if isinstance(v, str) and v.startswith("tf32:"):
                lib.backends.cuda.matmul.allow_tf32 = v == "tf32:True"
                out.append(catch(lib.get_float32_matmul_precision))
            else:
                out.append(warned(lib.set_float32_matmul_precision, v))
            out += [lib.backends.cuda.matmul.allow_tf32]
        out.append(catch(lib.get_float32_matmul_precision))
        lib.set_float32_matmul_precision("highest")
        return out
    same(program)


def test_device_context_manager():
    def program(lib):
        out = []
        with lib.device("cpu"):
            out.append(lib.zeros(1).device)
        try:
            with lib.device("cuda"):
                out.append(catch(lib.zeros, 1))
                out.append(catch(lib.get_default_device))
        except Exception as e:      # noqa: BLE001
            out.append(Raised(e))
        out += [lib.get_default_device(), lib.ones(1).device]
        return out
    same(program)


@pytest.mark.parametrize("call", ["lib.tensor([1.0], pin_memory=True)",
                                  "lib.tensor([1.0], pin_memory=False)",
                                  "lib.ones(1).new_zeros(2, pin_memory=True)",
                                  "lib.ones(1).new_tensor([2], pin_memory=True)",
                                  "lib.ones(1).new_full((1,), 2, pin_memory=True)",
                                  "lib.ones(1).is_pinned()", "lib.ones(1).pin_memory()"])
def test_pinned_memory(call):
    same(lambda lib: eval(call, {"lib": lib}))


@pytest.mark.parametrize("version", ["1.14.0", None])
def test_tensorboard_too_old(version, monkeypatch):
    import types
    fake = types.ModuleType("tensorboard")
    if version is not None:
        fake.__version__ = version
    monkeypatch.setitem(importlib.sys.modules, "tensorboard", fake)

    def program(lib):
        name = lib.__name__ + ".utils.tensorboard"
        monkeypatch.delitem(importlib.sys.modules, name, raising=False)
        try:
            importlib.import_module(name)
        except ImportError as e:
            return Raised(e)
        finally:
            importlib.sys.modules.pop(name, None)
    same(program)


def _tensorboard_events(root):
    """run directory (relative) -> its events as text (those the writer stamps with the time
    of writing without their wall time)."""
    from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader
    runs = {}
    for path, _, files in os.walk(root):
        events = []
        for name in files:
            for event in LegacyEventFileLoader(os.path.join(path, name)).Load():
                if event.HasField("file_version") or event.HasField("session_log"):
                    event.ClearField("wall_time")       # written at the time of writing
                events.append(str(event))
        runs[os.path.relpath(path, root)] = events
    return runs


def test_summary_writer(tmp_path):
    pytest.importorskip("tensorboard")
    pytest.importorskip("torch.utils.tensorboard")

    def program(lib):
        tb = importlib.import_module(lib.__name__ + ".utils.tensorboard")
        root = str(tmp_path / lib.__name__)
        values = lib.tensor([[0.5, -1.25, 3.0], [0.0, 2.0, 2.0]])
        out = []
        with tb.SummaryWriter(root, purge_step=2) as w:
            out.append(w.get_logdir() == root)
            w.add_scalar("loss", lib.tensor(0.5), 1, walltime=10.0)
            w.add_scalar("loss", 0.25, global_step=2, walltime=11.0)
            w.add_scalar("int", lib.tensor([3]), 3, walltime=12.0)
            w.add_scalar("new", 1.5, 4, walltime=13.0, new_style=True)
            w.add_scalar("double", 1.5, 4, walltime=13.0, new_style=True, double_precision=True)
            out.append(catch(w.add_scalar, "bad", lib.ones(2)))
            w.add_scalars("group/main", {"a": 1.0, "b": lib.tensor(2.0)}, 5, walltime=14.0)
            w.add_scalars("group/main", {"a": 3.0}, 6, walltime=15.0)
            w.add_histogram("h", values, 7, walltime=16.0)
            w.add_histogram("h_auto", values, 8, bins="auto", walltime=17.0)
            w.add_histogram("h_ten", lib.arange(100.0), 9, bins=10, max_bins=3, walltime=18.0)
            w.add_histogram("h_int", lib.arange(5), 9, bins=4, walltime=18.5)
            out.append(catch(w.add_histogram, "empty", lib.zeros(0)))
            w.add_text("note", "hello", 10, walltime=19.0)
            w.flush()
        w.close()
        out.append(_tensorboard_events(root))
        return out
    same(program)


def test_summary_writer_refuses_what_it_cannot_write(tmp_path):
    pytest.importorskip("tensorboard")
    from glassgrad.utils.tensorboard import SummaryWriter
    with SummaryWriter(str(tmp_path)) as w:
        for name in ("add_image", "add_graph", "add_hparams", "add_embedding"):
            with pytest.raises(NotImplementedError, match=name):
                getattr(w, name)("tag", gg.zeros(1))


def test_devices_round_trip_through_save_and_load():
    import io
    obj = {"cpu": "lib.device('cpu')", "cuda1": "lib.device('cuda', 1)", "t": "lib.ones(2).device"}

    def saved_by(lib):
        buf = io.BytesIO()
        lib.save({k: eval(v, {"lib": lib}) for k, v in obj.items()}, buf)
        return buf.getvalue()
    for writer in LIBS:
        data = saved_by(writer)
        same(lambda lib: lib.load(io.BytesIO(data)))
        same(lambda lib: lib.load(io.BytesIO(data), weights_only=False))


@pytest.mark.parametrize("call", ["t.to(lib.float64, lib.float32)", "t.to(foo=1)",
                                  "t.to(lib.zeros(1), dtype=lib.float64)", "t.to('cpu', 'x')",
                                  "t.to(lib.device('cpu'), lib.float64, 'x')"])
def test_to_errors_in_full(call):
    def message(lib):
        try:
            eval(call, {"lib": lib, "t": lib.zeros(1)})
        except TypeError as e:
            return str(e)
    assert message(gg) == message(torch) is not None
