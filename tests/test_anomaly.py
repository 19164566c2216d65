"""Anomaly mode against torch 2.13: the flags and context managers, the forward traceback kept in
node.metadata, the engine's warning when a node fails (with its parents' for higher order), the
NaN check, and the saved-tensor error's anomaly-mode hint.

Warnings and errors are compared whole. torch's traceback lists its own Python frames (glassgrad
leaves its own out) and its warnings end with a C++ "(Triggered internally at ...)" note: both
are removed from torch's text before comparing, so what is compared is the user's frames.
"""
import os
import re
import warnings

import pytest
import torch

import glassgrad as gg
from differential import LIBS, same

_TORCH_DIR = re.escape(os.path.dirname(torch.__file__))
_TORCH_FRAME = re.compile(r'  File "' + _TORCH_DIR + r'[^"]*", line \d+, in \S+\n(    .*\n)?')
_TRIGGERED = re.compile(r" \(Triggered internally at [^)]*\.\)")


def _clean(text):
    return _TRIGGERED.sub("", _TORCH_FRAME.sub("", text))


@pytest.fixture(autouse=True)
def _anomaly_off():
    yield
    for lib in LIBS:
        lib.set_anomaly_enabled(False)


def observe(program, lib):
    """(error type, error text (torch's part), [(warning category, text)]) of program(lib)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = program(lib)
            error = None
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            # str(e) is exactly torch's; glassgrad's note is tested in test_glass.py
            result, error = None, (type(e).__name__, _clean(str(e)))
    shown = [(w.category.__name__, _clean(str(w.message))) for w in caught]
    return result, error, shown


def assert_same_anomaly(program):
    t, g = observe(program, torch), observe(program, gg)
    assert g[1] == t[1], f"error: glassgrad {g[1]!r} != torch {t[1]!r}"
    assert g[2] == t[2], "warnings differ:\nglassgrad " + "\n".join(map(str, g[2])) \
        + "\ntorch " + "\n".join(map(str, t[2]))
    return t, g


# -- flags ---------------------------------------------------------------------------------------

def test_flags_through_the_context_managers_and_functions():
    def program(lib):
        seen = [(lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())]

        def look():
            seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            look()
            with lib.autograd.detect_anomaly():
                look()
            look()
            with lib.autograd.set_detect_anomaly(False):
                look()
            look()
        look()
        lib.autograd.set_detect_anomaly(True)      # a plain call sets it
        look()
        lib.autograd.set_detect_anomaly(False, False)
        look()
        lib.set_anomaly_enabled(True)
        look()
        lib.set_anomaly_enabled(False)
        look()
        d = lib.autograd.detect_anomaly(check_nan=False)   # constructing sets nothing
        look()
        seen.append(d.__enter__())
        look()
        d.__exit__(None, None, None)
        look()
        return seen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(program)


@pytest.mark.parametrize("call", [
    lambda lib: lib.set_anomaly_enabled(1),
    lambda lib: lib.set_anomaly_enabled(True, 0),
    lambda lib: lib.set_anomaly_enabled(None),
    lambda lib: lib.autograd.set_detect_anomaly(None),
    lambda lib: lib.autograd.set_detect_anomaly(True, check_nan="no"),
])
def test_flags_must_be_bools(call):
    t, g = observe(call, torch), observe(call, gg)
    assert t[1] is not None and g[1] == t[1]


def test_neither_is_a_decorator_in_torch_2_13():
    def program(lib):
        @lib.autograd.detect_anomaly()
        def f():
            return 1
    def program2(lib):
        @lib.autograd.set_detect_anomaly(True)
        def f():
            return 1
    for p in (program, program2):
        t, g = assert_same_anomaly(p)
        assert t[1][0] == "TypeError"


def test_detect_anomaly_warns_at_the_callers_line():
    def program(lib):
        with lib.autograd.detect_anomaly():
            pass
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            program(lib)
        (w,) = caught
        assert (w.filename, w.lineno) == (__file__, program.__code__.co_firstlineno + 1)
    assert_same_anomaly(program)


# -- the forward traceback -----------------------------------------------------------------------

def test_metadata_keeps_the_forward_traceback_of_each_node():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        plain = (x * 2).grad_fn.metadata
        with lib.autograd.set_detect_anomaly(True):
            y = x * 2
            z = y ** 2
            s = z.sum()
        out = []
        for node in (y.grad_fn, z.grad_fn, s.grad_fn, y.grad_fn.next_functions[0][0]):
            tb = node.metadata["traceback_"]
            out.append((sorted(node.metadata), type(tb).__name__, _clean("".join(tb))))
        return plain, out
    t, g = observe(program, torch), observe(program, gg)
    assert g[0] == t[0]
    assert t[0][1][1][2].endswith("    z = y ** 2\n")     # the user's line, last


def test_custom_function_nodes_keep_it_too():
    def program(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = lib.tensor([1.0], requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            y = Double.apply(x)
        return _clean("".join(y.grad_fn.metadata["traceback_"]))
    t, g = observe(program, torch), observe(program, gg)
    assert g[0] == t[0] and "y = Double.apply(x)" in t[0]


# -- a failing node ------------------------------------------------------------------------------

def test_modified_saved_tensor_warns_with_the_forward_line_and_the_anomaly_hint():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.detect_anomaly():
            y = x * 2
            z = y ** 2
            y.add_(1)
            z.sum().backward()
    t, g = assert_same_anomaly(program)
    assert "Good luck!" in t[1][1]
    assert t[2][1][1].startswith("Error detected in PowBackward0. Traceback of forward call that "
                                 "caused the error:\n")


def test_the_hint_outside_anomaly_mode_is_unchanged():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y ** 2
        y.add_(1)
        z.sum().backward()
    t, g = assert_same_anomaly(program)
    assert "set_detect_anomaly(True, check_nan=False)" in t[1][1]


def test_a_failing_custom_backward_keeps_its_own_error():
    def program(lib):
        class Boom(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                raise ValueError("boom")
        a = lib.tensor([1.0], requires_grad=True)
        with lib.autograd.detect_anomaly():
            Boom.apply(a).sum().backward()
    t, g = assert_same_anomaly(program)
    assert t[1] == ("ValueError", "boom")


def test_a_failing_hook_names_the_node_it_ran_for():
    def program(lib):
        a = lib.tensor([1.0], requires_grad=True)
        with lib.autograd.detect_anomaly():
            b = a * 2
            c = b * 3

            def hook(g):
                raise KeyError("hook")
            b.register_hook(hook)
            c.sum().backward()
    assert_same_anomaly(program)


def test_a_failing_leaf_hook_names_the_accumulator():
    def program(lib):
        a = lib.tensor([1.0], requires_grad=True)

        def hook(g):
            raise KeyError("leaf hook")
        a.register_hook(hook)
        with lib.autograd.detect_anomaly():
            (a * 2).sum().backward()
    t, g = assert_same_anomaly(program)
    assert "torch::autograd::AccumulateGrad" in t[2][1][1]


def test_a_node_made_outside_anomaly_mode_has_no_forward_information():
    def program(lib):
        x = lib.tensor([1.0], requires_grad=True)
        y = x * 2
        with lib.autograd.detect_anomaly():
            y.backward(lib.tensor([float("nan")]))
    t, g = assert_same_anomaly(program)
    assert "No forward pass information available" in t[2][1][1]


def test_without_anomaly_mode_a_failure_warns_nothing():
    def program(lib):
        x = lib.tensor([1.0], requires_grad=True)
        y = x.sqrt() * 0
        y.backward(lib.tensor([float("nan")]))
        return x.grad.isnan().item()
    t, g = assert_same_anomaly(program)
    assert t[0] is True and g[0] is True and t[2] == []


# -- check_nan -----------------------------------------------------------------------------------

NAN_PROGRAMS = {
    "sqrt at zero": lambda lib: (lib.tensor([0.0, 1.0], requires_grad=True), lambda x: (
        x.sqrt() * 0).sum(), None),
    "a nan operand": lambda lib: (lib.tensor([1.0], requires_grad=True), lambda x: (
        x * lib.tensor([float("nan")], requires_grad=True)).sum(), None),
    "a nan root gradient": lambda lib: (lib.tensor([1.0], requires_grad=True), lambda x: x * 2,
                                        lib.tensor([float("nan")])),
    "second output": lambda lib: (lib.tensor([1.0], requires_grad=True), lambda x: (
        lib.tensor([float("nan")], requires_grad=True) * x).sum(), None),
    "a clean pass": lambda lib: (lib.tensor([1.0, 4.0], requires_grad=True), lambda x: (
        x.sqrt() * x).sum(), None),
}


@pytest.mark.parametrize("check_nan", [True, False])
@pytest.mark.parametrize("name", list(NAN_PROGRAMS))
def test_check_nan(name, check_nan):
    def program(lib):
        x, f, g = NAN_PROGRAMS[name](lib)
        with lib.autograd.detect_anomaly(check_nan=check_nan):
            f(x).backward(g)
        return x.grad.tolist()
    t, g = assert_same_anomaly(program)
    if name != "a clean pass":
        assert (t[1] is not None) == check_nan
    if t[1] is None:
        assert str(g[0]) == str(t[0])     # the same gradients, nan included


def test_set_detect_anomaly_without_check_nan_lets_nan_through():
    def program(lib):
        x = lib.tensor([0.0], requires_grad=True)
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            (x.sqrt() * 0).sum().backward()
        return str(x.grad.tolist())
    t, g = assert_same_anomaly(program)
    assert t[1] is None and g[0] == t[0]


# -- higher order: the node whose backward made the failing node ---------------------------------

def test_double_backward_failure_shows_the_calculation_that_induced_it():
    def program(lib):
        x = lib.tensor([1.0], requires_grad=True)
        with lib.autograd.detect_anomaly():
            y = x ** 3
            (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
            meta = g.grad_fn.metadata
            parent = (sorted(meta), meta["parent_"].name(), _clean("".join(meta["traceback_"])))
            g.backward(lib.tensor([float("nan")]))
        return parent
    t, g = observe(program, torch), observe(program, gg)
    assert g[1] == t[1] and g[2] == t[2]
    assert t[2][2][1].startswith("\n\nPrevious calculation was induced by PowBackward0. "
                                 "Traceback of forward call that induced the previous "
                                 "calculation:\n")
    assert "    y = x ** 3\n" in t[2][2][1]


def test_a_parent_made_outside_anomaly_mode():
    def program(lib):
        x = lib.tensor([1.0], requires_grad=True)
        y = x ** 3
        with lib.autograd.detect_anomaly():
            (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
            g.backward(lib.tensor([float("nan")]))
    t, g = assert_same_anomaly(program)
    assert t[2][2][1].startswith("Error detected in PowBackward0. No forward pass information")


def test_anomaly_mode_changes_no_values():
    def program(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        w = lib.tensor([0.5, -1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                y = (x * w).exp().sum(1)
                y.retain_grad()
                (y ** 2).mean().backward(create_graph=True)
                (gx,) = lib.autograd.grad(x.grad.sum(), x)
        return x.grad, w.grad, y.grad, gx
    same(program)


def test_the_committed_docs_show_the_current_anomaly_output():
    import pathlib
    from tools.glass_docs import _anomaly_section
    page = (pathlib.Path(__file__).parent.parent / "docs" / "glass.md").read_text()
    section = _anomaly_section()
    for fact in ('UserWarning: Error detected in PowBackward0. Traceback of forward call that '
                 'caused the error:\n  File "prog.py", line 6, in <module>\n    z = y ** 2\n',
                 "Good luck!", "Function 'SqrtBackward0' returned nan values in its 0th output."):
        assert fact in section, fact
    assert section in page, "docs/glass.md is stale: run `make docs`"
