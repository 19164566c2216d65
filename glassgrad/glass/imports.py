"""Run unmodified PyTorch code on glassgrad: an import hook that resolves ``torch`` and every
``torch.*`` module to the glassgrad module of the same path (``torch.nn.functional`` ->
``glassgrad.nn.functional``), and refuses clearly what glassgrad does not have."""
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys


def glassgrad_name(fullname):
    """'torch.nn.functional' -> 'glassgrad.nn.functional'; None for other modules."""
    if fullname == "torch" or fullname.startswith("torch."):
        return "glassgrad" + fullname[len("torch"):]
    return None


class TorchAliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A meta path finder: ``import torch.x`` imports ``glassgrad.x`` and binds it as
    ``torch.x`` in sys.modules (the glassgrad module itself, not a copy)."""

    def find_spec(self, fullname, path=None, target=None):
        real = glassgrad_name(fullname)
        if real is None:
            return None
        try:
            found = importlib.util.find_spec(real)
        except ImportError:     # its parent is a module, not a package
            found = None
        if found is None:
            raise ModuleNotFoundError(
                f"No module named '{fullname}': glassgrad runs this program with `torch` "
                f"resolved to glassgrad, and glassgrad has no module '{real}' (not implemented "
                "yet)", name=fullname)
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        return None     # a placeholder; exec_module swaps in the glassgrad module

    def exec_module(self, module):
        # the import system returns whatever sys.modules holds under the name after exec_module,
        # so the glassgrad module keeps its own __name__ and __spec__
        sys.modules[module.__name__] = importlib.import_module(glassgrad_name(module.__name__))


def install():
    """Put the alias finder first on sys.meta_path (once); returns it."""
    for f in sys.meta_path:
        if isinstance(f, TorchAliasFinder):
            return f
    finder = TorchAliasFinder()
    sys.meta_path.insert(0, finder)
    return finder


def uninstall():
    """Remove the finder and forget the ``torch`` aliases it made."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, TorchAliasFinder)]
    for name in [n for n in sys.modules if glassgrad_name(n)]:
        if getattr(sys.modules[name], "__name__", "").startswith("glassgrad"):
            del sys.modules[name]


@contextlib.contextmanager
def torch_is_glassgrad():
    """``with torch_is_glassgrad(): import torch`` gives glassgrad."""
    if "torch" in sys.modules and not sys.modules["torch"].__name__.startswith("glassgrad"):
        raise RuntimeError("the real torch is already imported in this process; run the program "
                           "in a fresh interpreter (glassgrad run script.py)")
    install()
    try:
        yield
    finally:
        uninstall()
