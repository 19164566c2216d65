"""torch._dynamo.config, the settings glassgrad.compile reads: ``recompile_limit`` (and its
older name ``cache_size_limit``), the guard sets one function may compile before it runs
eagerly."""
import sys
import types


class _Config(types.ModuleType):
    recompile_limit = 8

    @property
    def cache_size_limit(self):
        return self.recompile_limit

    @cache_size_limit.setter
    def cache_size_limit(self, n):
        self.recompile_limit = n


sys.modules[__name__].__class__ = _Config
