"""Where a warning points: torch reports the warnings its C++ core raises (TORCH_WARN) at the
user's line, and its Python functionals at the frame their stacklevel names. glassgrad's
warnings point at the same line, however many glassgrad frames (argument binders included)
lie between; each case is run under torch and glassgrad and the records compared."""
import os
import warnings

import pytest
import torch

import glassgrad

# each case is one line, so a warning at the user's line is at the case's own line
CASES = {
    "softmax_implicit_dim": lambda t: t.nn.functional.softmax(t.ones(2, 3)),
    "log_softmax_implicit_dim": lambda t: t.nn.functional.log_softmax(t.ones(2, 3)),
    "softmin_implicit_dim": lambda t: t.nn.functional.softmin(t.ones(2, 3)),
    "tensor_of_a_tensor": lambda t: t.tensor(t.ones(2)),
    "new_tensor_of_a_tensor": lambda t: t.ones(2).new_tensor(t.ones(2)),
    "T_of_3d": lambda t: t.ones(2, 3, 4).T,
    "T_of_1d": lambda t: t.ones(3).T,
    "T_of_0d": lambda t: t.ones(()).T,
    "range": lambda t: t.range(0, 3),
    "istft_without_window": lambda t: t.istft(t.stft(t.ones(64), 16, window=t.hann_window(16),
                                                       return_complex=True), 16),
    "istft_padded": lambda t: t.istft(t.ones(9, 5, dtype=t.complex64), 16, window=t.ones(16),
                                      length=100),
    "uint8_mask": lambda t: t.ones(3)[t.tensor([1, 0, 1], dtype=t.uint8)],
    "scatter_reduce_argument": lambda t: t.zeros(3).scatter(0, t.tensor([0, 1]), t.ones(2),
                                                            reduce="add"),
    "var_without_freedom": lambda t: t.ones(1).var(),
    "std_mean_without_freedom": lambda t: t.std_mean(t.ones(1)),
    "cov_without_freedom": lambda t: t.cov(t.ones(1, 1)),
    "conv_same_even_kernel": lambda t: t.nn.functional.conv1d(t.ones(1, 1, 5), t.ones(1, 1, 2),
                                                              padding="same"),
    "cross_without_dim": lambda t: t.cross(t.ones(3, 3), t.ones(3, 3)),
    "index_reduce": lambda t: t.zeros(3).index_reduce(0, t.tensor([0]), t.ones(1), "prod"),
    "frombuffer_read_only": lambda t: t.frombuffer(b"abcd", dtype=t.uint8),
    "triangular_solve": lambda t: t.triangular_solve(t.eye(2), t.eye(2)),
    "lu_solve": lambda t: t.lu_solve(t.ones(2, 1), t.eye(2), t.tensor([1, 2], dtype=t.int32)),
    "cholesky": lambda t: t.cholesky(t.eye(2)),
    "mse_loss_sizes": lambda t: t.nn.functional.mse_loss(t.ones(3, 1), t.ones(3)),
}
# torch's own Python frame holds these: the same file name on both sides, at the analogous line
IN_LIBRARY = {
    "softmax_module": (lambda t: t.nn.Softmax()(t.ones(2, 3)), "module.py"),
    "log_softmax_module": (lambda t: t.nn.LogSoftmax()(t.ones(2, 3)), "module.py"),
    "softmax_module_with_a_hook": (lambda t: _hooked(t.nn.Softmax())(t.ones(2, 3)), "module.py"),
    # a C++ warning under a module's forward: at the forward's line, in conv.py
    "Conv1d_same_even_kernel": (lambda t: t.nn.Conv1d(1, 1, 2, padding="same")(t.ones(1, 1, 5)),
                                "conv.py"),
}


def _hooked(module):
    module.register_forward_hook(lambda *args: None)
    return module


def _records(lib, case):
    lib.set_warn_always(True)       # TORCH_WARN_ONCE warns each time
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            case(lib)
    finally:
        lib.set_warn_always(False)
    return [(w.category, str(w.message), w.filename, w.lineno) for w in seen]


@pytest.mark.parametrize("name", CASES)
def test_a_warning_points_at_the_users_line_as_torchs(name):
    case = CASES[name]
    want, got = _records(torch, case), _records(glassgrad, case)
    assert want, "torch warns"
    line = case.__code__.co_firstlineno
    assert all((w[2], w[3]) == (__file__, line) for w in want)
    assert got == want


@pytest.mark.parametrize("name", IN_LIBRARY)
def test_a_warning_from_a_functional_points_where_torchs_stacklevel_does(name):
    case, file = IN_LIBRARY[name]
    want, got = _records(torch, case), _records(glassgrad, case)
    assert [(c, m, os.path.basename(f)) for c, m, f, _ in want] == \
        [(c, m, os.path.basename(f)) for c, m, f, _ in got] == [(want[0][0], want[0][1], file)]
    assert os.path.dirname(got[0][2]).startswith(os.path.dirname(glassgrad.__file__))
