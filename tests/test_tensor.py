"""Differential tests of the Tensor class, factories and dtypes against torch."""
import math

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import LIBS, Raised, catch, same

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.fixture(autouse=True)
def _restore_default_dtype():
    yield
    for lib in LIBS:
        lib.set_default_dtype(lib.float32)


# -- creation --------------------------------------------------------------------------------
TENSOR_DATA = {
    "nested_floats": [[1.5, -2.0], [0.25, 3.0]],
    "nested_ints": [[1, 2, 3], [4, 5, 6]],
    "bools": [True, False, True],
    "mixed_int_float": [1, 2.5, -3],
    "mixed_bool_int": [True, 2],
    "mixed_bool_float": [False, 0.5],
    "int_scalar": 7,
    "float_scalar": -0.125,
    "bool_scalar": True,
    "empty": [],
    "empty_nested": [[], []],
    "deep": [[[1.0], [2.0]], [[3.0], [4.0]]],
    "tuple": (1.0, 2.0),
    "big_int": [2 ** 40, -3],
    "ragged": [[1, 2], [3]],
    "ragged_deep": [[[1], [2]], [[3]]],
    "scalar_where_list_expected": [[1], 2],
    "string": "abc",
    "strings": ["a", "b"],
    "none": None,
}


OVERFLOW = {"uint8_negative_int": ([-1, -255], "uint8"), "uint8_too_negative": ([-256], "uint8"),
            "uint8_300": ([300], "uint8"), "uint8_negative_float": ([-0.125], "uint8"),
            "uint8_float_max": ([255.0, 255.5], "uint8"), "int8_min": ([-128, 127], "int8"),
            "int8_under": ([-129], "int8"), "int32_float": ([1e10], "int32"),
            "int64_inf": ([float("inf")], "int64"), "int16_nan": ([float("nan")], "int16"),
            "float16_big": ([70000.0], "float16"), "bool_int": ([2, 0], "bool"),
            "int_scalar_over": (1000, "int8"), "nested": ([[1, 2], [3, 400]], "uint8")}


@pytest.mark.parametrize("name", OVERFLOW)
def test_tensor_checked_conversion_of_python_numbers(name):
    data, dtype = OVERFLOW[name]
    same(lambda lib: lib.tensor(data, dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("name", TENSOR_DATA)
def test_tensor_from_python_data(name):
    same(lambda lib: lib.tensor(TENSOR_DATA[name]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_from_numpy_array_of_each_dtype(dtype):
    arr = np.array([[0, 1, 2], [3, 1, 0]]).astype(dtype)

    def program(lib):
        t = lib.tensor(arr)
        arr_copy = arr.copy()
        t2 = lib.tensor(arr_copy)
        arr_copy[0, 0] = 1          # tensor() copies
        return t, t2, lib.tensor(arr[0, 1]), lib.tensor(arr.T)
    same(program)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool", "float16",
                                   "uint8"])
@pytest.mark.parametrize("data", ["nested_floats", "nested_ints", "bools", "float_scalar"])
def test_tensor_with_dtype(data, dtype):
    same(lambda lib: lib.tensor(TENSOR_DATA[data], dtype=getattr(lib, dtype)))


def test_tensor_requires_grad_and_from_tensor():
    def program(lib):
        t = lib.tensor([1.0, 2.0], requires_grad=True)
        u = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        return t, t.is_leaf, u, lib.tensor([lib.tensor(1.0), lib.tensor(2.0)])
    same(program)


@pytest.mark.parametrize("factory", ["as_tensor", "from_numpy"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_as_tensor_and_from_numpy_share_memory(factory, dtype):
    def program(lib):
        arr = np.array([0, 1, 0, 1]).astype(dtype)
        t = getattr(lib, factory)(arr)
        arr[2] = 1                  # writes through numpy show up in the tensor
        t[:1].fill_(1)              # and the other way round
        return t, arr
    same(program)


def test_as_tensor_conversions():
    def program(lib):
        arr = np.arange(3.0)
        t = lib.as_tensor(arr, dtype=lib.float32)     # a cast copies
        arr[0] = 9
        x = lib.tensor([1, 2])
        return (t, lib.as_tensor([1, 2.5]), lib.as_tensor(x) is x,
                lib.as_tensor(x, dtype=lib.float64), catch(lib.from_numpy, [1, 2]),
                catch(lib.from_numpy, np.array([1], dtype=object)),
                catch(lib.as_tensor, np.array(["a"])))
    same(program)


FACTORIES = {
    "zeros": lambda lib: lib.zeros(2, 3),
    "zeros_tuple": lambda lib: lib.zeros((2, 3), dtype=lib.int32),
    "zeros_list": lambda lib: lib.zeros([4]),
    "zeros_0d": lambda lib: lib.zeros(()),
    "ones": lambda lib: lib.ones(3, dtype=lib.float64),
    "ones_bool": lambda lib: lib.ones(2, 2, dtype=lib.bool),
    "ones_requires_grad": lambda lib: lib.ones(2, requires_grad=True),
    "full_float": lambda lib: lib.full((2, 2), 1.5),
    "full_int": lambda lib: lib.full((3,), 7),
    "full_bool": lambda lib: lib.full((2,), True),
    "full_dtype": lambda lib: lib.full((2,), 7, dtype=lib.float64),
    "full_list": lambda lib: lib.full([1, 2], -1.0),
    "arange_int": lambda lib: lib.arange(5),
    "arange_start_end": lambda lib: lib.arange(2, 9),
    "arange_step": lambda lib: lib.arange(1, 10, 3),
    "arange_negative_step": lambda lib: lib.arange(5, -4, -2),
    "arange_float": lambda lib: lib.arange(0.0, 1.0, 0.1),
    "arange_float_step": lambda lib: lib.arange(1, 2.5, 0.5),
    "arange_float_end": lambda lib: lib.arange(3.5),
    "arange_negative_float_step": lambda lib: lib.arange(1.0, -1.0, -0.25),
    "arange_dtype": lambda lib: lib.arange(4, dtype=lib.float64),
    "arange_empty": lambda lib: lib.arange(3, 1),
    "arange_zero_step": lambda lib: lib.arange(0, 3, 0),
    "linspace": lambda lib: lib.linspace(0, 1, 5),
    "linspace_negative": lambda lib: lib.linspace(2, -3, 11),
    "linspace_float64": lambda lib: lib.linspace(-1, 1, 7, dtype=lib.float64),
    "linspace_one": lambda lib: lib.linspace(3, 10, 1),
    "linspace_zero": lambda lib: lib.linspace(3, 10, 0),
    "linspace_int": lambda lib: lib.linspace(0, 10, 4, dtype=lib.int64),
    "eye": lambda lib: lib.eye(3),
    "eye_rect": lambda lib: lib.eye(2, 4),
    "eye_dtype": lambda lib: lib.eye(2, dtype=lib.int64),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_factories(name):
    same(FACTORIES[name])


LIKES = ["zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"]


@pytest.mark.parametrize("src_dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("name", LIKES + ["full_like"])
def test_like_factories(name, src_dtype):
    def program(lib):
        src = lib.tensor([[1, 0, 1], [0, 1, 1]], dtype=getattr(lib, src_dtype))
        fn = getattr(lib, name)
        args = (src, 2.5) if name == "full_like" else (src,)
        out = catch(fn, *args)
        out64 = fn(*args, dtype=lib.float64)
        if name in ("empty_like", "rand_like", "randn_like"):
            return [(t.dtype, t.shape) if not isinstance(t, Raised) else t for t in (out, out64)]
        return out, out64
    same(program)


def test_empty_shape_and_dtype():
    same(lambda lib: [(t.shape, t.dtype) for t in (lib.empty(2, 3), lib.empty((4,), dtype=lib.int8),
                                                   lib.empty(0))])


@pytest.mark.parametrize("call", [
    "rand(2, 3)", "rand((4,), dtype=lib.float64)", "randn(5)", "randn(2, 2, dtype=lib.float64)",
    "randint(0, 10, (100,))", "randint(5, (3, 2))", "randint(-3, 3, (50,), dtype=lib.int32)",
    "rand(3, requires_grad=True)"])
def test_random_shape_dtype_range(call):
    def program(lib):
        t = eval("lib." + call)
        arr = t.detach().numpy()
        lo, hi = (0, 1) if call.startswith("rand(") else (None, None)
        if call.startswith("randint"):
            args = eval(call[len("randint"):].split(", (")[0] + ")")
            lo, hi = (0, args) if isinstance(args, int) else args
        in_range = True if lo is None else bool(((arr >= lo) & (arr < hi)).all())
        return t.shape, t.dtype, t.requires_grad, in_range
    same(program)


@pytest.mark.parametrize("fn", ["rand", "randn", "randint"])
def test_manual_seed_reproducible(fn):
    def draw():
        return gg.randint(0, 1000, (20,)) if fn == "randint" else getattr(gg, fn)(20)
    gg.manual_seed(123)
    a = draw()
    b = draw()
    gg.manual_seed(123)
    c = draw()
    assert np.array_equal(a.numpy(), c.numpy())
    assert not np.array_equal(a.numpy(), b.numpy())
    gg.manual_seed(124)
    assert not np.array_equal(a.numpy(), draw().numpy())
    assert gg.initial_seed() == 124


def test_randn_moments():
    gg.manual_seed(0)
    x = gg.randn(20000, dtype=gg.float64).numpy()
    assert abs(x.mean()) < 0.05 and abs(x.std() - 1) < 0.05


def test_tensor_class_constructor():
    same(lambda lib: (lib.Tensor([1, 2]), lib.Tensor(2, 3).shape, lib.Tensor(2, 3).dtype))


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_default_dtype(default):
    def program(lib):
        lib.set_default_dtype(getattr(lib, default))
        out = [lib.get_default_dtype(), lib.tensor([1.5]), lib.tensor(2.5), lib.tensor([1, 2]),
               lib.zeros(2), lib.ones(1), lib.arange(0.0, 1.0, 0.5), lib.arange(3),
               lib.linspace(0, 1, 3), lib.eye(2), lib.full((1,), 1.5), lib.rand(2).dtype,
               lib.tensor(np.array([1.5], dtype=np.float32)), lib.tensor([1, 2]) * 0.5,
               lib.tensor(np.float64(1.5)), lib.Tensor([1])]
        lib.set_default_dtype(lib.float32)
        return out
    same(program)


def test_set_default_dtype_rejects_non_float():
    same(lambda lib: catch(lib.set_default_dtype, lib.int64))


# -- dtypes ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", DTYPES + ["half", "float", "double", "short", "int", "long"])
def test_dtype_objects(name):
    same(lambda lib: (repr(getattr(lib, name)), str(getattr(lib, name)),
                      getattr(lib, name).is_floating_point, getattr(lib, name).itemsize,
                      getattr(lib, name).is_signed, getattr(lib, name).is_complex))


@pytest.mark.parametrize("a", DTYPES)
def test_promote_types_grid(a):
    same(lambda lib: [lib.promote_types(getattr(lib, a), getattr(lib, b)) for b in DTYPES])


OPERANDS = {f"{d}_1d": (lambda lib, d=d: lib.tensor([1, 0], dtype=getattr(lib, d)))
            for d in DTYPES}
OPERANDS.update({f"{d}_0d": (lambda lib, d=d: lib.tensor(1, dtype=getattr(lib, d)))
                 for d in ("float16", "float64", "int8", "int64", "uint8", "bool")})
OPERANDS.update({"py_bool": lambda lib: True, "py_int": lambda lib: 3,
                 "py_float": lambda lib: 2.5})


@pytest.mark.parametrize("a", [k for k in OPERANDS if not k.startswith("py_")])
def test_result_type_grid(a):
    same(lambda lib: [lib.result_type(OPERANDS[a](lib), OPERANDS[b](lib)) for b in OPERANDS])


# -- attributes and conversions --------------------------------------------------------------
def test_shape_size_dims():
    def program(lib):
        t = lib.zeros(2, 3, 4)
        s = lib.tensor(1.0)
        return (repr(t.shape), str(t.shape), t.shape, t.size(), t.size(1), t.size(-1),
                catch(t.size, 3), t.dim(), t.ndim, t.numel(), s.dim(), s.shape, s.numel(),
                repr(s.shape), t.shape == (2, 3, 4), t.shape[1:], t.shape.numel(),
                isinstance(t.shape, tuple), lib.zeros(0, 2).numel(), len(t),
                t.shape + (5,), (1,) + t.shape, t.shape * 2, t.shape[-1])
    same(program)


@pytest.mark.parametrize("dtype", DTYPES)
def test_item_tolist_numpy(dtype):
    def program(lib):
        t = lib.tensor([[1, 0, 2], [3, 1, 0]], dtype=getattr(lib, dtype))
        one = t[1, 1]
        out = [t.dtype, t.tolist(), one.item(), type(one.item()).__name__, one.tolist(),
               t.numpy(), np.asarray(t), np.asarray(t, dtype=np.float64),
               catch(t.item), t.element_size()]
        t.numpy()[0, 0] = 1        # numpy() shares memory
        return out + [t]
    same(program)


def test_numpy_of_requires_grad_and_force():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        return catch(x.numpy), x.detach().numpy(), x.numpy(force=True)
    same(program)


@pytest.mark.parametrize("src", ["float32", "float64", "int64", "bool", "float16"])
def test_casts(src):
    def program(lib):
        t = lib.tensor([[1.7, -2.5], [0.0, 3.0]]).to(getattr(lib, src))
        o = lib.tensor([1], dtype=lib.int16)
        return [t.float(), t.double(), t.long(), t.int(), t.half(), t.bool(), t.short(),
                t.to(lib.float64), t.to(o), t.to(dtype=lib.int8), t.to("cpu"),
                t.to("cpu", lib.float64), t.type_as(o), t.to(t.dtype) is t,
                t.float() is t, t.to(lib.float32, copy=True) is t]
    same(program)


def test_cast_is_differentiable():
    def program(lib):
        x = lib.tensor([1.5, 2.0], requires_grad=True)
        y = x.double()
        (y * y).sum().backward()
        return y, y.grad_fn.name(), x.grad, x.float() is x
    same(program)


def test_writing_into_an_element_view():
    def program(lib):
        x, m = lib.zeros(3), lib.zeros(2, 3)
        x[0].fill_(1)
        m[1, 2].add_(5)
        m[0][1].fill_(2)
        return x, m, x._version, m._version
    same(program)


def test_clone_and_contiguous():
    def program(lib):
        x = lib.arange(6.0).view(2, 3)
        c = x.clone()
        c[0, :1].fill_(100)
        t = x.t()
        tc = t.contiguous()
        return (x, c, x.is_contiguous(), t.is_contiguous(), tc.is_contiguous(), tc,
                x.contiguous() is x, x.stride(), t.stride(), tc.stride(), x.stride(1),
                lib.zeros(2, 3, 4).stride(), lib.tensor(1.0).stride(), x[:, 1].stride(),
                x[:, ::2].stride(), x[:, ::2].is_contiguous())
    same(program)


def test_len_and_iteration():
    def program(lib):
        x = lib.tensor([[1, 2], [3, 4], [5, 6]])
        s = lib.tensor(3)
        return (len(x), [r for r in x], [float(v) for v in x[0]], catch(len, s),
                catch(iter, s), len(lib.zeros(0, 3)), list(lib.zeros(0)))
    same(program)


def test_iteration_over_tensor_requiring_grad():
    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        parts = list(x)
        (parts[0] * parts[2]).backward()
        return parts, x.grad
    same(program)


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_comparisons_return_bool_tensors(op):
    def program(lib):
        a = lib.tensor([1.0, 2.0, 3.0])
        b = lib.tensor([3, 2, 1])
        return (eval(f"a {op} b"), eval(f"a {op} 2"), eval(f"2 {op} a"), eval(f"a {op} 2.5"),
                eval(f"b {op} lib.tensor(2.0)"))
    same(program)


def test_python_scalar_conversions():
    def program(lib):
        f, i, b = lib.tensor([2.75]), lib.tensor(-3), lib.tensor(True)
        many = lib.tensor([1.0, 2.0])
        return (float(f), int(f), bool(f), float(i), int(i), bool(i), bool(b), int(b),
                bool(lib.tensor(0.0)), catch(bool, many), catch(float, many),
                catch(int, many), f"{lib.tensor(1.23456):.2f}", math.floor(lib.tensor(2.5)))
    same(program)


def test_index_protocol():
    def program(lib):
        seq = [10, 20, 30, 40]
        return (seq[lib.tensor(2)], seq[lib.tensor([1])], catch(seq.__getitem__,
                                                                 lib.tensor(1.0)),
                catch(seq.__getitem__, lib.tensor([1, 2])), list(range(lib.tensor(3))),
                "ab" * lib.tensor(2), hex(lib.tensor(255)), seq[lib.tensor(True)])
    same(program)


def test_device_and_misc():
    def program(lib):
        x = lib.tensor([1.0])
        return (x.device, repr(x.device), x.cpu() is x, x.is_cpu, x.is_floating_point(),
                lib.tensor([1]).is_floating_point(),
                lib.is_tensor(x), lib.is_tensor([1]), lib.numel(lib.zeros(2, 2)),
                lib.is_floating_point(x), x.detach()._version, x.nelement())
    same(program)


# -- repr through the Tensor class -------------------------------------------------------------
REPRS = {
    "float": lambda lib: lib.tensor([1.0, 2.5]),
    "int": lambda lib: lib.tensor([1, 2]),
    "int32": lambda lib: lib.tensor([1, 2], dtype=lib.int32),
    "float64": lambda lib: lib.tensor([1.5], dtype=lib.float64),
    "bool": lambda lib: lib.tensor([True, False]),
    "scalar": lambda lib: lib.tensor(3.25),
    "empty": lambda lib: lib.zeros(0),
    "empty_2d_int": lambda lib: lib.zeros(2, 0, dtype=lib.int64),
    "requires_grad": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
    "requires_grad_f64": lambda lib: lib.tensor([1.0], dtype=lib.float64, requires_grad=True),
    "grad_fn": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) * 2,
    "grad_fn_sum": lambda lib: (lib.tensor([1.0, 2.0], requires_grad=True) * 2).sum(),
    "grad_fn_f64": lambda lib: lib.tensor([[1.0, 2.0]], dtype=lib.float64,
                                          requires_grad=True).t(),
    "grad_fn_to": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).double(),
    "detached": lambda lib: (lib.tensor([1.0], requires_grad=True) * 3).detach(),
    "no_grad": lambda lib: lib.tensor([1.0], requires_grad=True) * 1,
    "matrix": lambda lib: lib.arange(12.0).view(3, 4) / 7,
    "half": lambda lib: lib.tensor([0.1, 1000.0], dtype=lib.float16),
}


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("name", REPRS)
def test_repr(name, default):
    def program(lib):
        lib.set_default_dtype(getattr(lib, default))
        if name == "no_grad":
            with lib.no_grad():
                t = REPRS[name](lib)
        else:
            t = REPRS[name](lib)
        return repr(t), str(t)
    same(program)


@pytest.mark.parametrize("scalar", [np.float32(0.25), np.float64(1.5), np.int64(2), np.bool_(True)],
                         ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("op", ["add", "radd", "mul", "rmul", "sub", "rsub", "truediv", "pow"])
def test_numpy_scalar_operands_act_as_numbers(op, scalar):
    """A NumPy scalar on either side of a dunder is the number it holds (torch's Tensor has a
    higher __array_priority__, so NumPy defers to its reflected operators)."""
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = {"add": lambda: x + scalar, "radd": lambda: scalar + x, "mul": lambda: x * scalar,
             "rmul": lambda: scalar * x, "sub": lambda: x - scalar, "rsub": lambda: scalar - x,
             "truediv": lambda: x / scalar, "pow": lambda: x ** scalar}[op]()
        y.sum().backward()
        return y, type(y.grad_fn).__name__ if lib is gg else y.grad_fn.name(), x.grad
    same(program)


@pytest.mark.parametrize("flag", ["is_sparse", "is_sparse_csr", "is_quantized", "is_nested",
                                  "is_mkldnn", "is_mps", "is_xla", "is_xpu", "is_ipu", "is_maia",
                                  "is_mtia", "is_vulkan"])
def test_layout_and_backend_flags_of_a_dense_cpu_tensor(flag):
    outcomes = []
    for lib in (torch, gg):
        x = lib.ones(2)
        try:
            setattr(x, flag, True)
        except AttributeError as e:
            outcomes.append((getattr(x, flag), str(e)))
    assert outcomes[1] == outcomes[0]
