"""Layer rules of the package, checked on the source: only glassgrad/backend/ imports NumPy
(DESIGN promise 4: one array seam, so a CuPy backend is an addition, not a rewrite)."""
import ast
import pathlib

import numpy as np
import pytest

import glassgrad
from glassgrad import backend

PACKAGE = pathlib.Path(glassgrad.__file__).parent
# the array libraries only the backend may import
ARRAY_LIBRARIES = {"numpy", "cupy"}
# known exceptions, each temporary: autograd/ is being moved into the _autograd core, and
# gradcheck.py (which uses NumPy directly for its finite-difference Jacobians) moves with it
KNOWN = set()


def _imported_modules(tree):
    """Every absolute module an import statement anywhere in the tree names (functions too)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "__import__" and node.args
              and isinstance(node.args[0], ast.Constant)):
            yield node.args[0].value


def _array_imports():
    """{path relative to the package: [array libraries it imports]} outside backend/."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("backend/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        libs = sorted({m for m in _imported_modules(tree)
                       if m.split(".")[0] in ARRAY_LIBRARIES})
        if libs:
            found[rel] = libs
    return found


def test_only_the_backend_imports_numpy():
    offenders = {rel: libs for rel, libs in _array_imports().items() if rel not in KNOWN}
    assert offenders == {}, (
        "only glassgrad/backend/ may import NumPy; use `from glassgrad.backend import xp` (or "
        f"the backend_of(array) facts) instead: {offenders}")


def test_known_exceptions_still_need_listing():
    """An exception that no longer imports NumPy must leave KNOWN (the list only shrinks)."""
    stale = KNOWN - set(_array_imports())
    assert not stale, f"no longer import NumPy, remove from KNOWN: {sorted(stale)}"


def test_the_check_sees_imports():
    tree = ast.parse("import numpy as np\n"
                     "def f():\n    from numpy.lib import stride_tricks\n"
                     "from . import numpy\n"
                     "g = __import__('cupy')\n")
    assert sorted(_imported_modules(tree)) == ["cupy", "numpy", "numpy.lib"]


def test_backend_of_and_for():
    a = np.zeros(3)
    assert backend.backend_of(a) is backend.backend_for("cpu")
    assert backend.backend_of(a).xp is backend.xp is np
    assert backend.backend_of(np.float32(1.0)) is backend.backend_of(a)      # NumPy scalars
    assert backend.backend_for(None) is backend.backend_for(glassgrad.zeros(1).device)
    assert backend.backend_for("cpu:0") is backend.backend_of(a)
    with pytest.raises(RuntimeError):
        backend.backend_for("cuda")
    with pytest.raises(TypeError):
        backend.backend_of([1.0])


def test_memory_facts():
    a = np.arange(6, dtype=np.float32)
    v = a[2:]
    assert backend.data_ptr(v) - backend.data_ptr(a) == 8
    assert backend.may_share_memory(a, v) and not backend.may_share_memory(a, a.copy())
    bk = backend.backend_of(a)
    assert bk.bits(a).dtype == np.uint32 and bk.word(np.dtype(np.float64)) == np.uint64
    assert bk.from_bits(bk.bits(a), a.dtype) is not a
    np.testing.assert_array_equal(bk.from_bits(bk.bits(a), a.dtype), a)
    w = bk.as_strided(a, (3, 2), (8, 4))
    np.testing.assert_array_equal(w, a.reshape(3, 2))
    assert w.flags.writeable
    a.flags.writeable = False
    assert not bk.as_strided(a, (2,), (4,)).flags.writeable
    assert backend.to_host(a) is a
