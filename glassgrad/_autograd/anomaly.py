"""Anomaly mode, as PyTorch's: detect_anomaly / set_detect_anomaly and what they switch on.

With anomaly mode on, every node created keeps the traceback of the forward call that made it
(``node.metadata["traceback_"]``, a list of formatted frames like ``traceback.format_list``;
glassgrad's own frames are left out, so it names user code) and, when it is created while the
engine runs another node (a backward with ``create_graph=True``), that node as
``metadata["parent_"]``. When a node fails in backward the engine warns with its traceback (and
its parents') and re-raises the error; with ``check_nan`` a node returning NaN fails. The flags
are process-wide like torch's and live on ``grad_mode.state``'s class.
"""
import os
import sys
import traceback
import warnings

from ..backend import kind as _kind, xp
from .grad_mode import _State, state

__all__ = ["detect_anomaly", "set_detect_anomaly"]

TRACE_KEY, PARENT_KEY = "traceback_", "parent_"
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def is_anomaly_enabled():
    return state.anomaly


def is_anomaly_check_nan_enabled():
    return state.anomaly_check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    for i, (name, value) in enumerate((("enabled", enabled), ("check_nan", check_nan))):
        if type(value) is not bool:
            raise TypeError(f"set_anomaly_enabled(): argument '{name}' (position {i + 1}) must "
                            f"be bool, not {type(value).__name__}")
    _State.anomaly, _State.anomaly_check_nan = enabled, check_nan


class detect_anomaly:
    """Context manager that turns anomaly detection on (and restores the previous setting)."""

    def __init__(self, check_nan=True):
        self.prev, self.prev_check_nan = state.anomaly, state.anomaly_check_nan
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Sets anomaly detection on or off at construction (a plain call works too); as a context
    manager, restores the previous setting on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = state.anomaly, state.anomaly_check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


def _user_frames():
    return [f for f in traceback.extract_stack() if not f.filename.startswith(_PACKAGE)]


def record(node):
    """Called by Node.__init__ in anomaly mode: keep the forward traceback (and the parent)."""
    meta = node.metadata
    meta[TRACE_KEY] = traceback.format_list(_user_frames())
    if state.node is not None:
        meta[PARENT_KEY] = state.node


def _format(node, is_parent):
    stack = node._metadata.get(TRACE_KEY) if node._metadata is not None else None
    if stack is None:
        return (f"Error detected in {node.name()}. No forward pass information available. "
                "Enable detect anomaly during forward pass for more information.")
    if is_parent:
        return (f"\n\nPrevious calculation was induced by {node.name()}. Traceback of forward "
                f"call that induced the previous calculation:\n{''.join(stack)}")
    return (f"Error detected in {node.name()}. Traceback of forward call that caused the "
            f"error:\n{''.join(stack)}")


def _stacklevel():
    """The warnings stacklevel of the first frame outside glassgrad (the user's backward call)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def warn_failure(node):
    """The engine's warning when ``node`` failed: its forward traceback, then each parent's."""
    level = _stacklevel()
    is_parent = False
    while node is not None:
        warnings.warn(_format(node, is_parent), UserWarning, stacklevel=level)
        node = node._metadata.get(PARENT_KEY) if node._metadata is not None else None
        is_parent = True


def check_nan(node, grads):
    """PyTorch's check_nan: the first gradient ``node`` returned with a NaN fails."""
    for i, g in enumerate(grads):
        if g is not None and _kind(g._data.dtype) in "fc" and xp.isnan(g._data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")
