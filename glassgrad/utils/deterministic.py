"""torch.utils.deterministic: fill_uninitialized_memory, whether new memory (torch.empty,
empty_like, empty_strided, resize_) is filled with NaN or the integer maximum while
deterministic algorithms are on (a module attribute read and written as torch's)."""
import sys
import types

from .. import _runtime


class _Deterministic(types.ModuleType):
    @property
    def fill_uninitialized_memory(self):
        return _runtime.fill_uninitialized_memory[0]

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode):
        if not isinstance(mode, bool):
            raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")
        _runtime.fill_uninitialized_memory[0] = mode


sys.modules[__name__].__class__ = _Deterministic
