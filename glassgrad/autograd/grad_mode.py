"""Grad mode: one thread-local flag, read in one place (``is_grad_enabled``)."""
import functools
import threading


class _State(threading.local):
    grad = True
    inference = False


state = _State()


def is_grad_enabled():
    return state.grad


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


class no_grad(_Mode):
    def __enter__(self):
        self.prev = state.grad
        state.grad = False

    def __exit__(self, *exc):
        state.grad = self.prev


class enable_grad(_Mode):
    def __enter__(self):
        self.prev = state.grad
        state.grad = True

    def __exit__(self, *exc):
        state.grad = self.prev


class set_grad_enabled(_Mode):
    """Sets grad mode at construction (usable as a plain call) and restores it on exit."""

    def __init__(self, mode):
        self.prev = state.grad
        self.mode = bool(mode)
        state.grad = self.mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        state.grad = self.prev

    def clone(self):
        return type(self)(self.mode)


class inference_mode(_Mode):
    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self.prev = (state.grad, state.inference)
        # like torch's InferenceMode guard, inference_mode(False) turns grad mode on
        state.grad, state.inference = not self.mode, self.mode

    def __exit__(self, *exc):
        state.grad, state.inference = self.prev

    def clone(self):
        return type(self)(self.mode)
