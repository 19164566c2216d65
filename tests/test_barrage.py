"""A barrage of generated bad and edge-case calls across the API, each run in PyTorch and in
glassgrad: the same outcome (the value, or the exception's type and first line), so no internal
error (NumPy's text, an AttributeError/KeyError/IndexError from inside glassgrad) and no silent
acceptance. Grouped by the class of argument that is wrong or unusual; every case is a program
``f(lib)`` run with lib = torch and lib = glassgrad (tests/differential.py compares).

Also: for every function and method bound to the argument layer, the message of a call that
matches no overload equals torch's (the overloads, their order and printed form)."""
import math
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import same

# -- the arguments --------------------------------------------------------------------------
# tensors are made per library: "X" a float (3,) tensor, "M" float (2, 3), "I" int64 (3,),
# "B" bool (3,), "S" a 0-d float, "E" an empty (0,), "E2" an empty (0, 3), "N" (3,) with nan,
# inf and -inf, "T" a non-contiguous (3, 2) (M's transpose), "K" a strided (3,) (every other)
TENSORS = {
    "X": lambda t: t.tensor([1.5, -2.0, 3.25]),
    "M": lambda t: t.tensor([[1., 2., 3.], [4., 5., 6.]]),
    "I": lambda t: t.tensor([2, 0, 1]),
    "B": lambda t: t.tensor([True, False, True]),
    "S": lambda t: t.tensor(2.5),
    "E": lambda t: t.zeros(0),
    "E2": lambda t: t.zeros(0, 3),
    "N": lambda t: t.tensor([math.nan, math.inf, -math.inf]),
    "T": lambda t: t.tensor([[1., 2., 3.], [4., 5., 6.]]).t(),
    "K": lambda t: t.arange(6.)[::2],
    # convolutions and pools: inputs (batch, channels, *spatial) and weights
    "C1": lambda t: t.arange(10.).reshape(1, 2, 5), "W1": lambda t: t.ones(3, 2, 2),
    "WT1": lambda t: t.ones(2, 3, 2), "C2": lambda t: t.arange(16.).reshape(1, 1, 4, 4),
    "W2": lambda t: t.ones(1, 1, 2, 2), "C3": lambda t: t.arange(27.).reshape(1, 1, 3, 3, 3),
    "W3": lambda t: t.ones(1, 1, 2, 2, 2), "P": lambda t: t.tensor([[0.2, 0.3, 0.5]]),
    "L": lambda t: t.tensor([0, 2]), "BE": lambda t: t.tensor([0., 2., 6.]),
}


def _arg(lib, a):
    if isinstance(a, str) and a in TENSORS:
        return TENSORS[a](lib)
    if isinstance(a, str) and a.startswith("dt:"):
        return getattr(lib, a[3:])
    if isinstance(a, list):
        return [_arg(lib, v) for v in a]
    if isinstance(a, tuple):
        return tuple(_arg(lib, v) for v in a)
    return a


def call(where, name, *args, **kwargs):
    """A program: ``lib.name(*args)`` (where 'f'), ``args[0].name(*args[1:])`` ('m'),
    ``lib.nn.functional.name`` ('F'), ``lib.linalg.name`` ('L')."""
    def program(lib):
        a = [_arg(lib, v) for v in args]
        kw = {k: _arg(lib, v) for k, v in kwargs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if where == "m":
                out = getattr(a[0], name)(*a[1:], **kw)
            else:
                owner = {"f": lib, "F": lib.nn.functional, "L": lib.linalg}[where]
                out = getattr(owner, name)(*a, **kw)
        # (torch.return_types are compared as tuples: test_ops_reduce checks their types)
        return tuple(out) if isinstance(out, tuple) and type(out) is not tuple else out
    program.id = f"{where}.{name}{tuple(args)!r}{kwargs or ''}"
    return program


# -- the groups -----------------------------------------------------------------------------
UNARY = ["sin", "exp", "abs", "neg", "sqrt", "tanh", "sigmoid", "floor", "log", "relu",
         "square", "sign", "isnan", "isinf", "logical_not", "clone", "t", "ravel", "trace",
         "argwhere"]
REDUCE = ["sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "std", "var", "logsumexp",
          "all", "any", "max", "min", "median", "cumsum", "cumprod", "softmax", "log_softmax",
          "count_nonzero", "norm", "flip", "squeeze", "unsqueeze"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "remainder", "fmod",
          "eq", "lt", "ge", "ne", "logical_and", "bitwise_and", "floor_divide", "hypot",
          "xlogy", "dot", "mm", "matmul", "outer", "inner", "cross", "kron",
          "true_divide", "lerp", "where"]
class Opaque:
    """An object of no type any parameter takes (its repr is stable, for the case ids)."""

    def __repr__(self):
        return "Opaque()"


NOT_TENSORS = [[1., 2.], 2.5, None, "a", True, (1, 2), np.float64(1.5), Opaque()]


def non_tensor_args():
    for name in UNARY + REDUCE:
        if name == "norm":      # (torch.norm, a Python function, fails on .layout itself)
            continue
        for bad in NOT_TENSORS:
            yield call("f", name, bad)
    for name in BINARY[:20]:
        for bad in NOT_TENSORS:
            yield call("f", name, "X", bad)
            yield call("f", name, bad, "X")
        yield call("m", name, "X", "a")


def shapes():
    pairs = [("X", "M"), ("M", "T"), ("X", "E"), ("M", "E2"), ("I", "M"), ("T", "K")]
    for name in BINARY:
        for a, b in pairs:
            yield call("f", name, a, b)
    for a, b in pairs:
        yield call("f", "cat", [a, b])
        yield call("f", "stack", [a, b])
        yield call("f", "cat", [a, b], 1)
        yield call("f", "broadcast_tensors", a, b)


DIMS = [0, 1, 2, -1, -2, -3, 5, 1.5, "a", None, (0, 0), (0, 1), [0, 5], True]


def dims():
    for name in ["sum", "mean", "prod", "amax", "argmax", "std", "logsumexp", "cumsum",
                 "softmax", "squeeze", "unsqueeze", "flip", "max", "all", "count_nonzero",
                 "select", "narrow", "chunk", "movedim", "transpose", "diff", "topk", "sort",
                 "median", "kthvalue"]:
        for d in DIMS:
            extra = {"select": (0,), "narrow": (0, 1), "chunk": (2,), "movedim": (0,),
                     "transpose": (0,), "topk": (1,), "kthvalue": (1,)}.get(name, ())
            if name in ("chunk", "topk", "kthvalue"):
                yield call("f", name, "M", *extra, d)
            else:
                yield call("f", name, "M", d, *extra)


def indices():
    for idx in [0, 1, 2, -1, -3, 3, 10, 1.5, "a", None, True, False, ..., (0, 0), (0, 5),
                slice(None, None, -1), slice(5, 1), [0, 2], [3], [-4], [True, False],
                [True, False, True], (None, 0), (..., 0), (0, ..., 0), []]:
        for t in ("X", "M", "S", "E"):
            yield _getitem(t, idx)
    for name, args in [("index_select", ("X", 0, "I")), ("index_select", ("X", 1, "I")),
                       ("index_select", ("X", 0, "X")), ("gather", ("X", 0, "I")),
                       ("gather", ("M", 1, "I")), ("gather", ("X", 0, "X")),
                       ("take", ("X", "I")), ("take", ("M", "X")), ("take_along_dim", ("X", "I")),
                       ("masked_select", ("X", "B")), ("masked_select", ("X", "I")),
                       ("masked_fill", ("X", "B", 0.5)), ("masked_fill", ("X", "I", 0.5)),
                       ("index_fill", ("X", 0, "I", 1.0)), ("scatter_add", ("X", 0, "I", "X")),
                       ("index_select", ("S", 0, "I")), ("gather", ("S", 0, "I")),
                       ("index_add", ("X", 0, "I", "X")), ("index_copy", ("X", 0, "I", "X"))]:
        yield call("f", name, *args)


def _getitem(t, idx):
    def program(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _arg(lib, t)[idx]
    program.id = f"{t}[{idx!r}]"
    return program


SIZES = [(2, 3), (-1,), (2, -1), (0,), (), (1.5,), ("a",), (None,), ((2, 3),), ([2, 3],),
         ((2, "a"),), ((-2, 3),), (True,), (np.int64(2),), ((2,), 3), (2, (3,))]


def sizes():
    for name in ["zeros", "ones", "empty", "rand", "randn"]:
        for s in SIZES:     # (empty, rand and randn: their values are not compared)
            yield call("f", name, *s) if name in ("zeros", "ones") else _shape_only(name, s)
    for s in SIZES:
        yield call("f", "full", s[0] if len(s) == 1 else s, 1.5)
        yield call("m", "reshape", "M", *s)
        yield call("m", "view", "M", *s)
        yield call("m", "expand", "X", *s)
        yield call("m", "repeat", "X", *s)
        yield call("m", "new_zeros", "X", *s)
        yield call("f", "reshape", "M", s)
        yield call("f", "tile", "X", s)
    for args in [(5,), (0,), (-1,), (1, 5), (5, 1), (1, 5, 0), (1, 5, -1), (1.5,), (0, 1, 0.25),
                 ("a",), (None,), (math.inf,), (math.nan,), (0, 10, 3), (10, 0, -3)]:
        yield call("f", "arange", *args)
    for args in [(0, 1, 5), (0, 1, 0), (0, 1, -1), (0, 1, 1.5), (0, 1, "a"), (1, 0, 3)]:
        yield call("f", "linspace", *args)
    for args in [(3,), (2, 3), (0,), (-1,), (3, -1), (3, 3, 1), (1.5,)]:
        yield call("f", "eye", *args)


def _shape_only(name, s):
    def program(lib):
        x = getattr(lib, name)(*s)
        return (tuple(x.shape), x.dtype)
    program.id = f"f.{name}{s!r} (shape)"
    return program


def dtypes():
    kinds = ["dt:float32", "dt:float64", "dt:int32", "dt:int64", "dt:bool", "dt:float16",
             float, int, bool, "float32", 1, None]
    for dt in kinds:
        yield call("f", "zeros", 2, dtype=dt)
        yield call("f", "ones", 2, dtype=dt)
        yield call("f", "full", (2,), 1, dtype=dt)
        yield call("f", "arange", 3, dtype=dt)
        yield call("f", "tensor", [1, 2], dtype=dt)
        yield call("f", "sum", "X", dtype=dt)
        yield call("f", "sum", "I", dtype=dt)
        yield call("f", "mean", "I", dtype=dt)
        yield call("f", "cumsum", "X", 0, dtype=dt)
        yield call("m", "to", "X", dt)
        yield call("m", "type", "X", dt)
        yield call("f", "softmax", "X", 0, dtype=dt)
        yield call("f", "prod", "I", dtype=dt)
    for a, b in [("X", "I"), ("I", "B"), ("B", "B"), ("I", "I")]:
        for name in ["add", "sub", "mul", "div", "pow", "remainder", "bitwise_and", "mm",
                     "dot", "atan2", "floor_divide", "maximum"]:
            yield call("f", name, a, b)


def keywords():
    for name in UNARY[:12] + REDUCE[:12] + BINARY[:12]:
        two = name in BINARY
        args = ("X", "X") if two else ("X",)
        yield call("f", name, *args, foo=1)
        yield call("f", name, input="X", **({"other": "X"} if two else {}))
        yield call("f", name, *args, input="X")
        yield call("f", name, *args, out=1)
        yield call("f", name, *args, out="M" if not two else "X")
        yield call("m", name, *args, self="X")
        yield call("m", name, *args, bar=None)
    for kw in [{"dim": 0}, {"axis": 0}, {"keepdim": True}, {"keepdims": True}, {"dim": 0,
               "keepdim": 1}, {"dim": 0, "keepdim": "no"}, {"dtype": "dt:float64"},
               {"dim": 0, "dtype": "dt:int32"}]:
        for name in ["sum", "mean", "amax", "argmax", "std", "max", "logsumexp", "all"]:
            yield call("f", name, "M", **kw)
    for kw in [{"largest": "no"}, {"sorted": 1}, {"largest": False}, {"dim": 0, "k": 2},
               {"k": 1.0}]:
        yield call("f", "topk", "X", **({"k": 1} if "k" not in kw else {}), **kw)
    for kw in [{"alpha": 2}, {"alpha": "a"}, {"alpha": 1.5}, {"beta": 1}, {"rounding_mode": "floor"},
               {"rounding_mode": "up"}, {"rounding_mode": None}]:
        yield call("f", "add", "X", "X", **kw)
        yield call("f", "div", "X", "X", **kw)


def nan_inf():
    for name in UNARY[:14] + ["sum", "mean", "amax", "argmax", "max", "min", "sort", "cumsum",
                              "softmax", "nan_to_num", "isfinite", "round", "trunc", "clamp",
                              "sign", "median", "logsumexp", "std", "isnan", "prod"]:
        args = (0,) if name in ("softmax",) else ()
        yield call("f", name, "N", *args)
    for name in ["add", "mul", "div", "pow", "maximum", "minimum", "atan2", "remainder", "fmod",
                 "eq", "lt", "hypot", "xlogy", "fmax", "fmin"]:
        yield call("f", name, "N", "X")
        yield call("f", name, "X", "N")
        yield call("f", name, "N", math.nan)
        yield call("f", name, "N", math.inf)


def empty():
    for t in ("E", "E2"):
        for name in UNARY + REDUCE + ["sort", "topk", "cat", "stack", "unique", "nonzero",
                                      "cummax", "mode", "kthvalue", "diff", "argsort"]:
            if name in ("cat", "stack"):
                yield call("f", name, [t, t])
            elif name in ("topk", "kthvalue"):
                yield call("f", name, t, 0)
            else:
                yield call("f", name, t)
        for name in ("sum", "amax", "argmax", "max", "mean", "prod", "softmax", "cumsum"):
            yield call("f", name, t, 0)
            yield call("f", name, t, -1)


def zero_dim():
    for name in UNARY + REDUCE + ["sort", "unbind", "item", "tolist", "nonzero", "argsort",
                                  "diag", "flatten", "tril", "numel", "dim", "size"]:
        yield call("m", name, "S")
    for name, args in [("squeeze", (0,)), ("unsqueeze", (0,)), ("unsqueeze", (1,)),
                       ("transpose", (0, 0)), ("transpose", (0, 1)), ("topk", (0,)),
                       ("topk", (1,)), ("sum", (0,)), ("sum", (1,)), ("select", (0, 0)),
                       ("flatten", (0,)), ("view", (1,)), ("view", (-1,)), ("reshape", ()),
                       ("expand", (3,)), ("softmax", (0,)), ("softmax", (1,)), ("cumsum", (0,)),
                       ("max", (0,)), ("argmax", (0,)), ("movedim", (0, 0)), ("narrow", (0, 0, 1)),
                       ("chunk", (2,)), ("split", (1,)), ("index_select", (0, "I")),
                       ("size", (0,)), ("size", (1,)), ("permute", ()), ("permute", (0,)),
                       ("flip", (0,)), ("roll", (1,)), ("repeat", (2,)), ("t", ()),
                       ("mm", ("S",)), ("dot", ("S",)), ("kthvalue", (1,)), ("median", (0,)),
                       ("gather", (0, "I")), ("std", (0,)), ("diff", ())]:
        yield call("m", name, "S", *args)


def non_contiguous():
    for name, args in [("view", (6,)), ("view", (-1,)), ("view", (3, 2)), ("reshape", (6,)),
                       ("flatten", ()), ("contiguous", ()), ("is_contiguous", ()),
                       ("stride", ()), ("sum", (0,)), ("transpose", (0, 1)), ("expand", (2, 3, 2)),
                       ("mm", ("M",)), ("add", ("T",)), ("mul_", (2.,)), ("unflatten", (0, (3, 1))),
                       ("squeeze", ()), ("unsqueeze", (0,)), ("cumsum", (0,)), ("sort", (0,)),
                       ("clone", ()), ("t", ()), ("narrow", (1, 0, 1)), ("select", (1, 1)),
                       ("softmax", (0,)), ("diagonal", ()), ("tril", ()), ("ravel", ()),
                       ("view", (2, 3)), ("storage_offset", ()), ("split", (1,)),
                       ("index_select", (0, "I")), ("masked_fill", ("T", 0.)), ("flip", (0,))]:
        yield call("m", name, "T", *args)
        if name not in ("mm", "masked_fill", "unflatten", "diagonal", "tril", "narrow",
                        "select", "transpose", "expand", "view", "stride"):
            yield call("m", name, "K", *args[:1] if name in ("view", "reshape") else args)


def shape_of(where, name, *args, **kwargs):
    """A call whose values are random: its outcome's shape and dtype (or its error)."""
    inner = call(where, name, *args, **kwargs)

    def program(lib):
        out = inner(lib)
        return (tuple(out.shape), out.dtype)
    program.id = inner.id + " (shape)"
    return program


CONVS = [("conv1d", "C1", "W1"), ("conv2d", "C2", "W2"), ("conv3d", "C3", "W3"),
         ("conv_transpose1d", "C1", "WT1"), ("conv_transpose2d", "C2", "W2"),
         ("conv_transpose3d", "C3", "W3")]
NO_ARGUMENTS = ["dim", "numel", "nelement", "ndimension", "element_size", "is_floating_point",
                "is_inference", "get_device", "detach", "detach_", "retain_grad", "item",
                "tolist", "storage_offset", "data_ptr", "untyped_storage", "acosh_", "asinh_",
                "atanh_", "arccosh_", "t", "zero_"]


def bound():
    """The functions bound to torch's signatures: bad types, counts and keywords (and good
    calls beside them)."""
    for name, x, w in CONVS:
        for args, kw in [((), {}), ((None, 1, 1), {}), ((), {"padding": 1.5}),
                         ((), {"stride": "a"}), ((), {"groups": 1.5}), ((1,), {}),
                         ((), {"padding": "valid"}), ((), {"padding": "same"}),
                         ((), {"padding": "foo"}), ((), {"stride": (1, 2, 1, 1)}),
                         ((), {"dilation": [1.5]}), ((), {"foo": 1}), ((None,) * 7, {})]:
            yield call("f", name, x, w, *args, **kw)
        yield call("f", name, x, [1.])
        yield call("F", name, x, w, bias="X")
    for name, x in [("avg_pool1d", "C1"), ("max_pool1d", "C1"), ("max_pool1d_with_indices", "C1"),
                    ("max_pool3d", "C3")]:
        for args, kw in [((2,), {}), ((2.0,), {}), (("a",), {}), ((None,), {}), ((2, None), {}),
                         ((2, 1, 0, 1), {}), ((2,), {"ceil_mode": 1}), ((2,), {"padding": 1.5}),
                         ((), {"kernel_size": 2}), (((2, 2, 2, 2),), {}), ((2,), {"foo": 0})]:
            yield call("f", name, x, *args, **kw)
    for args in [(0,), (2, 0), (2, 1, -1), (2, 1, 2), (2, 1, 0, 0), (7,), (3, 1, 1, 4), (2, ()),
                 ((2,), (1, 1)), (2, 1, (0, 0)), (2, 1, 0, (1, 1)), (2, 1, 0, 1, True)]:
        yield call("f", "max_pool1d", "C1", *args)
        yield call("F", "max_pool1d", "C1", *args)
        yield call("f", "max_pool1d", "X", *args)
        yield call("f", "max_pool1d_with_indices", "C1", *args)
        yield call("f", "avg_pool1d", "C1", *args[:3])
    for size in [2, (2,), 2.5, None, "a", (2, 2), [1.5]]:
        for name in ("adaptive_avg_pool1d", "adaptive_max_pool1d"):
            yield call("f", name, "C1", size)
            yield call("F", name, "C1", size)
            yield call("f", name, "X", size)
    for args in [("X", 0.25), ("X", "S"), ("M", "X"), ([1.], "S"), ("M", "S", "S")]:
        yield call("f", "prelu", *args)
    for args in [("M", "M", "W2"), ("M", "M", "W1", 1), ("M", [1.], "W1"), ("M",)]:
        yield call("f", "bilinear", *args)
    for name in ("concatenate", "concat", "cat"):
        for args, kw in [((["M", "M"],), {}), ((["M", "M"], 1), {}), ((["M", "M"],), {"axis": 1}),
                         ((["M", "M"],), {"dim": 1}), ((["M", 1],), {}), (("M",), {}),
                         ((["M", "M"], 1.5), {}), ((["M", "M"],), {"out": "M"})]:
            yield call("f", name, *args, **kw)
    for name in ("index_put", "index_put_"):
        for index in [1, ("L",), ["L"], (None,), ("L", None), ("L", 1), "L", [[0]]]:
            yield call("f", name, "M", index, "X")
            yield call("m", name, "M", index, "X")
        yield call("f", name, "M", ("L",), "X", 1)
        yield call("f", name, "M", ("L",), "X", accumulate=True)
        yield call("m", name, "M", ("L",), "a")
        yield call("m", name, "M", ("L",), "I")
    for args, kw in [((0., 1., (3,)), {}), ((0., 1., 3), {}), ((0, 1), {"size": (3,)}),
                     (("X", 1.), {}), (("X", "X"), {}), ((1., "X"), {}), (("X",), {}),
                     ((0., 1.), {}), (("a", 1.), {}), (("X", "b"), {}),
                     ((0., 1., (3,)), {"dtype": "dt:float64"}), ((0., 1., (2,)), {"generator": 1}),
                     ((), {"mean": "X", "std": "X"}), ((), {"mean": 0., "std": "X"}),
                     ((0., 1., (2,)), {"requires_grad": True}), ((0., 1., (2,)), {"foo": 1})]:
        yield shape_of("f", "normal", *args, **kw)
    for args, kw in [(("P",), {}), (("P", 0.5), {}), (("P",), {"p": 0.5}), (("P", "a"), {}),
                     (("P", 2), {}), (([0.5],), {}), (("P",), {"generator": "g"})]:
        yield shape_of("f", "bernoulli", *args, **kw)
        yield shape_of("m", "bernoulli", *args, **kw)
    for args in [("P",), ("P", 1), ([1.],), ("P", None), ("I",)]:
        yield shape_of("f", "poisson", *args)
    for args, kw in [(("P", 2), {}), (("P", 2.0), {}), (("P", 2, 1), {}), (("P", "a"), {}),
                     (("P", 2), {"replacement": True}), (("P",), {}), ((["P"], 1), {})]:
        yield shape_of("f", "multinomial", *args, **kw)
        yield shape_of("m", "multinomial", *args, **kw)
    for args in [("X",), ([1.],), ("X", 1), (1.0,)]:
        yield call("f", "detach", *args)
        yield call("f", "is_floating_point", *args)
    for args, kw in [(("X", 1), {}), ((1, "X"), {}), ((1, 2.0), {}), (("X", "I"), {}),
                     (("a", 1), {}), (("X",), {}), ((), {"tensor": "X", "other": 2}),
                     ((), {"scalar1": 1, "scalar2": True}), ((True, "B"), {})]:
        yield call("f", "result_type", *args, **kw)
    for args in [("dt:int32", "dt:float16"), ("dt:int32", "a"), ("dt:int32", float),
                 (int, bool), ("dt:bool",), ("dt:int64", "dt:int64", "dt:int64")]:
        yield call("f", "promote_types", *args)
    for name, args in [("fill_", (3,)), ("fill_", ("a",)), ("fill_", ("S",)), ("zero_", (2,)),
                       ("clamp_", (0, 0.5)), ("clip_", ("a",)), ("clamp_", ()),
                       ("square_", ()), ("round_", (2,)), ("xlogy_", (2,)),
                       ("logit_", (0.1,)), ("logit_", ("a",)), ("nan_to_num_", (None, "a")),
                       ("acosh_", ()), ("arcsinh_", (1,))]:
        yield call("f", name, "X", *args)
        yield call("f", name, [1.], *args)
    yield call("f", "round_", "X", decimals=1)
    yield call("f", "nan_to_num_", "N", None)
    for name, args in [("subtract_", (1, 2)), ("subtract_", ("X",)), ("subtract_", ("a",)),
                       ("multiply_", ("a",)), ("multiply_", (2,)), ("divide_", (2, "floor")),
                       ("divide_", ("a",))]:
        yield call("m", name, "X", *args)
    yield from _factories_and_copies()
    yield call("m", "subtract_", "X", "X", alpha=2)
    yield call("m", "divide_", "X", 2, rounding_mode="floor")
    for name in NO_ARGUMENTS:
        yield call("m", name, "S", 1)
        yield call("m", name, "S", 1, 2)
        yield call("m", name, "S", foo=1)
        yield call("m", name, "S", 1, foo=1)


def _factories_and_copies():
    for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
                 "kaiser_window"):
        for args, kw in [((5,), {}), ((5, False), {}), ((5, True, 0.5), {}),
                         ((5, True, 0.5, 0.3), {}), ((5.,), {}), ((5, 1), {}), (("a",), {}),
                         ((-1,), {}), ((5,), {"dtype": "dt:int32"}), ((5,), {"foo": 1}),
                         ((5,), {"periodic": False}), ((5,), {"requires_grad": True})]:
            yield call("f", name, *args, **kw)
    for name in ("tril_indices", "triu_indices"):
        for args in [(3, 3), (3, 3, 1), (3, "a"), (3,), (3, 3, 1.5)]:
            yield call("f", name, *args)
    for args, kw in [((0, 1, 5), {}), (("S", 1, 5), {}), ((0, "S", 5), {}), ((0, 1, 5.), {}),
                     ((0, 1, 5), {"base": "a"}), (("a", 1, 5), {}), ((0, 1), {}),
                     ((0, 1, 5), {"dtype": "dt:float64"})]:
        yield call("f", "logspace", *args, **kw)
    for args, kw in [((5,), {}), ((5,), {"dtype": None}), ((5.,), {}), ((5,), {"generator": None}),
                     ((5, 1), {}), ((5,), {"dtype": "dt:int32"}), (("a",), {})]:
        yield shape_of("f", "randperm", *args, **kw)
    for name, arg in [("pixel_shuffle", 2), ("pixel_unshuffle", 1), ("channel_shuffle", 1)]:
        for a in (arg, float(arg), "a", None):
            yield call("f", name, "C2", a)
    for args, kw in [(((3,),), {}), ((3,), {}), (((3,), 1), {}), (((3,), None, None, "a"), {}),
                     (([3],), {"eps": "a"}), (((3,), None, None, 1e-3, True), {})]:
        yield call("f", "layer_norm", "M", *args, **kw)
        yield call("F", "layer_norm", "M", *args, **kw)
    for args, kw in [((1,), {}), ((1.,), {}), ((1, None, None, 1e-5, 1), {}), ((1,), {"eps": "a"}),
                     ((1,), {"cudnn_enabled": True})]:
        yield call("f", "group_norm", "C2", *args, **kw)
        yield call("F", "group_norm", "C2", *args, **kw)
    for args, kw in [((), {}), ((3,), {}), (("BE",), {}), ((3,), {"range": (0., 1.)}), ((3.,), {}),
                     ((), {"bins": "a"}), (("BE",), {"range": (0., 1.)}), ((3,), {"density": 1})]:
        yield call("f", "histogram", "M", *args, **kw)
        yield call("m", "histogram", "M", *args, **kw)
    for args, kw in [((), {}), ((1,), {}), ((1, True), {}), (("a",), {}), ((), {"keepdim": True}),
                     ((), {"dim": 0, "keepdim": 1})]:
        yield call("f", "nanmedian", "N", *args, **kw)
        yield call("m", "nanmedian", "M", *args, **kw)
    for name, args in [("expand_copy", ((2, 2, 3),)), ("expand_copy", ("a",)),
                       ("permute_copy", ((1, 0),)), ("permute_copy", (1, 0)),
                       ("select_copy", (0, 1)), ("select_copy", (0,)), ("squeeze_copy", ()),
                       ("squeeze_copy", (0,)), ("squeeze_copy", ((0, 1),)),
                       ("squeeze_copy", ("a",)), ("unsqueeze_copy", (0,)), ("t_copy", ()),
                       ("t_copy", (1,)), ("transpose_copy", (0, 1)), ("view_copy", (3, 2)),
                       ("view_copy", ((3, 2),)), ("diagonal_copy", ()), ("diagonal_copy", (1,)),
                       ("unbind_copy", ()), ("unbind_copy", (1,)), ("split_copy", (1,)),
                       ("split_copy", ([1, 1],)), ("split_with_sizes_copy", ([1, 1],)),
                       ("detach_copy", ()), ("narrow_copy", (1, 0, 2)),
                       ("narrow_copy", (1, 0, 2.5))]:
        yield call("f", name, "M", *args)
        yield call("f", name, [1.], *args)
    yield call("f", "diagonal_copy", "M", dim1=1, dim2=0)
    yield call("f", "expand_copy", "M", (2, 2, 3), implicit=True)
    yield call("f", "split_copy", "M", 1, dim=1)
    yield call("f", "t_copy", "M", out="T")


def python_methods():
    """Tensor.split and Tensor.unflatten are Python in torch: their own checks, then the native
    split / split_with_sizes / unflatten parsers."""
    for args, kw in [(("a",), {}), ((2,), {}), (([2, 4],), {}), (((3, 3), 0), {}), ((2, "a"), {}),
                     ((True,), {}), ((2.5,), {}), (("S",), {}), (("L",), {}), ((None,), {}),
                     (([2, "a"],), {}), ((np.int64(2),), {}), ((2,), {"dim": 1}),
                     ((), {"split_size": 2}), ((2,), {"foo": 1}), ((), {}), ((2, 0, 1), {})]:
        yield call("m", "split", "K", *args, **kw)
        yield call("f", "split", "K", *args, **kw)
    yield call("f", "split", [1.], 2)
    yield call("f", "split", "K", split_size_or_sections=[1, 2])
    for args, kw in [((0, (2, 3)), {}), ((0, ()), {}), ((0, []), {}), ((0, None), {}),
                     (("a", (2, 3)), {}), ((0, "ab"), {}), ((0, 6), {}), ((0, 0), {}),
                     ((0, (2., 3)), {}), ((0,), {}), ((0, (2, 3), 1), {}),
                     ((), {"dim": 0, "sizes": (2, 3)}), ((0,), {"sizes": (2, 3), "foo": 1}),
                     ((0, "L"), {}), ((0, (2, -1)), {}), ((1, (1, 3)), {})]:
        yield call("m", "unflatten", "M", *args, **kw)
        yield call("f", "unflatten", "M", *args, **kw)


GROUPS = {"non_tensor": non_tensor_args, "shapes": shapes, "dims": dims, "indices": indices,
          "sizes": sizes, "dtypes": dtypes, "keywords": keywords, "nan_inf": nan_inf,
          "empty": empty, "zero_dim": zero_dim, "non_contiguous": non_contiguous,
          "bound": bound, "python_methods": python_methods}
CASES = [(group, p) for group, gen in GROUPS.items() for p in gen()]
# The calls where glassgrad does not yet give torch's outcome, each with both outcomes: known
# and listed so that the rest stays exact, and strict (a fixed one must come off the list).
# Most are outside the argument layer: factories not yet bound (rand, randn, arange, linspace,
# eye, tensor: other work is rewriting them), kernels that compute where torch has none for the
# dtype, error texts of indexing/0-d/empty corner cases.
KNOWN = {
}


def test_barrage_is_large():
    assert len(CASES) >= 1000


@pytest.mark.parametrize("group,program", CASES,
                         ids=[f"{g}:{p.id}" for g, p in CASES])
def test_barrage(group, program):
    if program.id in KNOWN:
        try:
            same(program)
        except AssertionError:
            pytest.xfail(KNOWN[program.id])
        pytest.fail(f"{program.id} now gives torch's outcome: take it off KNOWN")
    same(program)


# -- the overloads as torch prints them -----------------------------------------------------
def _bound(owner):
    return sorted(n for n in dir(owner) if hasattr(getattr(owner, n, None), "parser")
                  and not n.startswith("__"))


FUNCTIONS = _bound(gg)
METHODS = _bound(gg.Tensor)


def _impossible(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - the message is what is compared
        return type(e).__name__, str(e)
    return "accepted"


@pytest.mark.parametrize("name", FUNCTIONS)
def test_function_overloads_as_torch_prints_them(name):
    """20 arguments fit no overload: torch prints every one that is not hidden, in order; one
    object where the first argument goes names the first parameter."""
    for args in ((object(),) * 20, (object(),)):
        assert _impossible(getattr(gg, name), *args) == _impossible(getattr(torch, name), *args)


@pytest.mark.parametrize("name", METHODS)
def test_method_overloads_as_torch_prints_them(name):
    for args in ((object(),) * 20, (object(),)):
        g = _impossible(getattr(gg.ones(2), name), *args)
        assert g == _impossible(getattr(torch.ones(2), name), *args)
