"""Grad mode: thread-local flags, read in one place (``is_grad_enabled``).

``state.grad_enabled`` is the user's flag (what ``is_grad_enabled`` reports); ``state.grad`` is
whether ops record history, which inference mode switches off even under ``enable_grad`` (as
torch's InferenceMode excludes the autograd dispatch keys).
"""
import functools
import threading


class _State(threading.local):
    """``grad`` is a plain attribute (read by every op), kept equal to
    ``grad_enabled and not inference`` by the two properties' setters.

    ``anomaly`` and ``anomaly_check_nan`` are process-wide like torch's, so they are set on the
    class (``set_anomaly_enabled``); ``tracer`` is the thread's active ``trace_backward`` (an
    observer.Tracer); ``node`` the node the engine is running (the parent of nodes it creates,
    in anomaly mode)."""
    _grad_enabled = True
    _inference = False
    grad = True
    anomaly = False
    anomaly_check_nan = True
    tracer = None
    node = None
    graph_task = None   # the backward pass this thread runs (engine.GraphTask: queue_callback)
    # saved-tensor hooks (autograd.graph): the innermost (pack, unpack) pair or None; the
    # disable_saved_tensors_hooks message or None; allow_mutation's clone-on-mutate callback
    saved_hooks = None
    saved_hooks_disabled = None
    on_mutate = None
    # the op interceptor: None, or the innermost of forward AD's level (autograd.forward_ad) and
    # a running vmap (func.vmap), each with handle_call / handle_inplace / handle_view_inplace
    # and ``inner``, the interceptor that was active when it was installed
    handler = None
    vmap = None         # while func.vmap runs: its _Batching (which tensors are batched)
    torch_function_off = 0  # depth of DisableTorchFunctionSubclass regions (_overrides.py)

    @property
    def grad_enabled(self):
        return self._grad_enabled

    @grad_enabled.setter
    def grad_enabled(self, flag):
        self._grad_enabled = flag
        self.grad = flag and not self._inference

    @property
    def inference(self):
        return self._inference

    @inference.setter
    def inference(self, flag):
        self._inference = flag
        self.grad = self._grad_enabled and not flag


state = _State()


def is_grad_enabled():
    return state.grad_enabled


def is_inference_mode_enabled():
    return state.inference


class _Mode:
    """Base for context managers that are also decorators (like torch's _DecoratorContextManager)."""

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


class _NoParamMode(_Mode):
    """Usable as ``@no_grad()`` and as a bare ``@no_grad``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class _SetsGradMode(_NoParamMode):
    """Grad mode set to ``enabled`` inside, restored on exit."""
    enabled = None

    def __enter__(self):
        self.prev = state.grad_enabled
        state.grad_enabled = self.enabled

    def __exit__(self, *exc):
        state.grad_enabled = self.prev


class no_grad(_SetsGradMode):
    enabled = False


class enable_grad(_SetsGradMode):
    enabled = True


class set_grad_enabled(_Mode):
    """Sets grad mode at construction (usable as a plain call) and restores it on exit."""

    def __init__(self, mode):
        self.prev = state.grad_enabled
        self.mode = bool(mode)
        state.grad_enabled = self.mode

    def __call__(self, fn):
        state.grad_enabled = self.prev     # as a decorator, it only applies inside calls
        return super().__call__(fn)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        state.grad_enabled = self.prev

    def clone(self):
        return type(self)(self.mode)


class inference_mode(_Mode):
    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)      # bare @inference_mode

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self.prev = (state.grad_enabled, state.inference)
        # like torch's InferenceMode guard, inference_mode(False) turns grad mode on
        state.grad_enabled, state.inference = not self.mode, self.mode

    def __exit__(self, *exc):
        state.grad_enabled, state.inference = self.prev

    def clone(self):
        return type(self)(self.mode)
