"""Hook handles: what register_hook and its kin return (``handle.remove()``)."""
import itertools

_hook_ids = itertools.count()


class RemovableHandle:
    __slots__ = ("hooks", "id")

    def __init__(self, hooks):
        self.hooks = hooks
        self.id = next(_hook_ids)

    def remove(self):
        self.hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(hooks, fn):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


