"""Differential fuzzing of random straight-line autograd programs (views, in-place ops,
detach aliases, no_grad) in torch and glassgrad; see fuzz_programs.py for the program format.

`make test` runs a fixed, derandomized budget; GLASSGRAD_FUZZ_EXAMPLES=N (`make fuzz`) runs a
long campaign and prints how many programs ran, how many raised in torch, and divergences.
"""
import os

import pytest
import torch
from hypothesis import HealthCheck, given, settings

import glassgrad as gg
from differential import assert_same
from fuzz_programs import programs, run

EXAMPLES = int(os.environ.get("GLASSGRAD_FUZZ_EXAMPLES", "300"))
STATS = {"programs": 0, "raised_in_torch": 0, "divergences": set()}


def check(program):
    expected, got = run(program, torch), run(program, gg)
    STATS["programs"] += 1
    if expected["error"] is not None:
        STATS["raised_in_torch"] += 1
    try:
        assert_same(expected, got)
    except AssertionError:
        STATS["divergences"].add(repr(program))
        raise
    return expected


@pytest.fixture(scope="module", autouse=True)
def _report(request):
    yield
    line = (f"fuzz: {STATS['programs']} programs run, {STATS['raised_in_torch']} raised in "
            f"torch, {len(STATS['divergences'])} diverging programs (shrink steps included)")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and "GLASSGRAD_FUZZ_EXAMPLES" in os.environ:
        reporter.write_line("\n" + line)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_fuzz_programs(program):
    check(program)


# -- regressions: minimal programs the fuzzer found diverging ----------------------------------
# A view made under no_grad of a tensor that requires grad still requires grad (PyTorch's
# DifferentiableViewMeta::requires_grad), has no grad_fn, and ops on it record a node whose
# edge to it is (None, 0); glassgrad said requires_grad=False (fixed in Tensor.requires_grad).
REGRESSIONS = [
    [("leaf", (3, 4), True, 0), ("leaf", (3, 4), False, 1), ("select", True, 0, 0, 0),
     ("loss", ("last",))],
    [("leaf", (3, 4), True, 0), ("leaf", (3, 4), False, 1), ("select", True, 0, 0, 0),
     ("mul", False, 2, 1), ("loss", ("last",))],
    # broadcast mismatch: PyTorch names the first mismatch from the last dimension back
    # (dimension 1: 3 vs 4); glassgrad named dimension 0 (fixed in registry.broadcast_shapes)
    [("leaf", (3, 4), True, 0), ("exp", False, 0), ("transpose", True, 1, 0, 1),
     ("slice", True, 2, 0, 0, 4, 2), ("add", False, 3, 0), ("loss", ("combo", (3, 4)))],
    # in-place on an expanded view of a leaf that requires grad: the leaf-view refusal speaks
    # before the internal-overlap check, as in PyTorch
    [("leaf", (1, 4), True, 0), ("leaf", (3, 4), False, 1), ("exp", False, 0),
     ("expand", False, 0, (2, 4)), ("add_", False, 3, 2), ("loss", ("last",))],
]


# In-place ops whose source shares the target's storage. A partial overlap's result depends on
# the order elements are written (PyTorch leaves it undefined), and for x.mul_(x) on an exp
# output PyTorch's version-check error names "ExpBackward0" where glassgrad says "Exp". The
# generator leaves such sources out (fuzz_programs.programs, 'storage').
ALIASED_SOURCE = [
    [("leaf", (3, 4), True, 0), ("leaf", (2, 3, 4), False, 1), ("slice", False, 0, 1, 0, 1, 1),
     ("add_", True, 0, 2), ("loss", ("last",))],
    [("leaf", (3, 4), True, 0), ("leaf", (2, 3, 4), False, 1), ("exp", False, 0),
     ("mul_", False, 2, 2), ("loss", ("last",))],
]


@pytest.mark.xfail(strict=True, reason="in-place with a source aliasing the target: write "
                   "order of partial overlaps; saved-output node name in the version error")
@pytest.mark.parametrize("program", ALIASED_SOURCE)
def test_fuzz_aliased_source(program):
    check(program)


# Found by a 3,000-example campaign, not yet fixed: a view taken before its base (a leaf that
# did not require grad) gained history through an in-place op, then written in place itself.
VIEW_OF_REBASED_LEAF = [("leaf", (3, 4), True, 0), ("leaf", (3, 4), False, 1), ("t", False, 1),
                        ("add_", False, 1, 0), ("exp", False, 0), ("zero_", False, 2),
                        ("loss", ("last",))]


@pytest.mark.xfail(strict=True, reason="in-place on a view whose base gained history after the "
                   "view was taken: its grad_fn differs from torch's")
def test_fuzz_view_of_rebased_leaf():
    check(VIEW_OF_REBASED_LEAF)


@pytest.mark.parametrize("program", REGRESSIONS)
def test_fuzz_regression(program):
    check(program)
