"""Provenance, recorded as it happens and cheaply enough to be always on.

- every backward node: where user code made it (``node._source``);
- every leaf that requires grad: where it was made (its hook state's ``source``), recorded only
  at factory calls with ``requires_grad=True`` and at ``requires_grad_()``;
- every storage's version counter: its last ``HISTORY`` in-place bumps (``counter.history``),
  each with the op, the source site and the tensor it went through (a weak reference, and
  whether that tensor was a view, a tensor with history, or a plain tensor such as a
  ``detach()`` alias). Bounded, so an optimizer's in-place updates never grow memory.

A *site* is ``(code, lasti, entry, call)``: the first stack frame outside the glassgrad package
(its code object and the offset of the instruction it was at: ``lineno(site)`` turns that into
the line when explaining), the code of the glassgrad function user code called there
(``entry_name(site)``: ``zero_``, ``__setitem__``) and the innermost ``nn.Module`` call running
then (``module_call(site)``, None outside modules). The line's text is read only when
explaining (linecache). ``set_provenance(False)`` turns all of it off (the benchmark measures
its cost that way).

A module *call* is ``(weakref(module), type(module), outer call)``: ``nn.Module.__call__`` sets
``module_calls.top`` (per thread) to it around ``forward`` and puts the outer one back after,
so the chain runs from the innermost module to the root module the user called. The module is
kept weakly (a graph never keeps a model alive; its class names it once it is gone); its path
(``encoder.layers.0.linear1``) is found from the root's ``named_modules`` when explaining
(glass/modules.py), never while running.
"""
import linecache
import os
import sys
import threading
import weakref

HISTORY = 8         # version-history entries kept per storage (the newest)

_getframe = sys._getframe
_ref = weakref.ref
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_USER_DIRS = (_PACKAGE + "seeds" + os.sep,)     # glassgrad's own example programs are user code
_internal = {}      # co_filename -> whether it is glassgrad's code (filenames are few)
_enabled = True


def set_provenance(flag):
    """Record (True, the default) or stop recording (False) where nodes, leaves and in-place
    version bumps come from. Returns the previous setting."""
    global _enabled
    prev, _enabled = _enabled, bool(flag)
    return prev


def is_provenance_enabled():
    return _enabled


def _is_internal(filename):
    flag = _internal.get(filename)
    if flag is None:
        path = os.path.abspath(filename)
        flag = _internal[filename] = path.startswith(_PACKAGE) and not path.startswith(_USER_DIRS)
    return flag


def site(depth=2):
    """(code, lasti, entry) of the first frame outside glassgrad, looking up from the frame
    ``depth`` levels above this call (``entry``: the code of the glassgrad function that frame
    called, None when the frame itself is outside); None when provenance is off or there is no
    such frame. Only code objects and instruction offsets are kept, never frames: ``lineno``
    finds the line when explaining."""
    if not _enabled:
        return None
    f = _getframe(depth)
    if _is_internal(f.f_code.co_filename):
        return site_above(depth + 1)    # that frame is one further up from there
    return (f.f_code, f.f_lasti, None, module_calls.top)


def site_above(depth=2):
    """``site(depth)`` where the frame ``depth`` levels up is known to be glassgrad's own code
    (``OpDef.attach`` asks for every node, and only glassgrad calls it): the walk starts above
    that frame, which is looked at only when user code called it directly. This is the hot
    path of always-on provenance: per frame one frame object, its code, one dict lookup."""
    if not _enabled:
        return None
    f = _getframe(depth + 1)
    code = f.f_code
    entry = None
    internal = _internal
    try:
        while internal[code.co_filename]:
            entry = code
            f = f.f_back
            code = f.f_code
    except KeyError:        # a file seen the first time
        _is_internal(code.co_filename)
        return site_above(depth + 1)
    except AttributeError:  # f is None: the bottom of the stack, no user frame
        return None
    return (code, f.f_lasti, entry or _getframe(depth).f_code, module_calls.top)


def frame_site(frame):
    """The site of a live frame (the explanations' own look at the user's frame)."""
    return (frame.f_code, frame.f_lasti, None, None)


def line_site(code, line):
    """A site for a line of ``code`` that the explanations found by reading the source. It
    holds -line where a recorded site holds an instruction offset (never negative there)."""
    return (code, -line, None, None)


def bumped(t, op_name, where=None):
    """Record the in-place op that just moved ``t``'s version (called right after the bump);
    ``where``: the site of user code that wrote (by default the caller's caller's)."""
    if not _enabled:
        return
    if where is None:
        where = site(3)
    kind = "view" if t._base is not None else (
        "history" if t._grad_fn is not None or t._requires_grad else "plain")
    counter = t._version_counter
    entry = (counter.version, op_name, where, _ref(t), kind)
    history = getattr(counter, "history", None)
    if history is None:
        counter.history = [entry]
    else:
        history.append(entry)
        if len(history) > HISTORY:
            del history[0]


class _ModuleCalls(threading.local):
    """This thread's innermost running module call (None outside every module); nn.Module's
    ``__call__`` keeps it."""
    top = None


module_calls = _ModuleCalls()


def module_call(src):
    """The module call a site was recorded in: (weakref(module), type(module), outer call),
    or None."""
    return src[3] if src is not None else None


class _Backwards(threading.local):
    """This thread's recent backward passes that freed their graph: (site, [weakref(root
    node)]), newest last. Per thread: another thread's backward never explains this one's."""
    def __init__(self):
        self.passes = []


_backwards = _Backwards()


def backward_ran(tensors, retain_graph):
    """Record a backward (or grad) call that frees the graph it runs through, so that a later
    "backward through the graph a second time" can say which one freed it."""
    if retain_graph or not _enabled:
        return
    tensors = tensors if isinstance(tensors, (list, tuple)) else (tensors,)
    passes = _backwards.passes
    passes.append((site(3), [_ref(t.grad_fn) for t in tensors if t.grad_fn is not None]))
    del passes[:-HISTORY]


def recent_backwards():
    """This thread's recorded graph-freeing backward passes, oldest first."""
    return list(_backwards.passes)


def leaf_created(t):
    """Record where the leaf ``t`` started to require grad."""
    if _enabled:
        t._hooks().source = site(3)


def node_source(node):
    """The site a node was made at: its own, or for a leaf's AccumulateGrad the leaf's."""
    src = getattr(node, "_source", None)
    if src is None and hasattr(node, "variable"):
        src = leaf_source(node.variable)
    return src


def leaf_source(t):
    hs = t._hook_state
    return getattr(hs, "source", None) if hs is not None else None


def version_history(counter):
    """The recorded bumps of a storage, oldest first: (version, op, site, tensor ref, kind)."""
    return list(getattr(counter, "history", None) or ())


# -- reading sites (only when explaining) -----------------------------------------------------
def lineno(src):
    """The line a site's code was at: the line table's entry for its lasti (what
    ``frame.f_lineno`` computes, done only when explaining)."""
    code, lasti = src[0], src[1]
    if lasti < 0:
        return -lasti       # a line_site
    for start, end, line in code.co_lines():
        if start <= lasti < end:
            return line
    return None


def entry_name(src):
    """The name of the glassgrad function user code called at the site (None if unknown)."""
    return src[2].co_name if src is not None and src[2] is not None else None


def where(src):
    """'prog.py:3' (the path relative to the working directory when it is below it)."""
    return f"{display_path(src[0].co_filename)}:{lineno(src)}"


def line_text(src):
    """The source line's text, stripped ('' when it cannot be read)."""
    line = lineno(src)
    return linecache.getline(src[0].co_filename, line).strip() if line is not None else ""


def describe(src):
    """'prog.py:3: `z = y**2`' or 'prog.py:3' when the line cannot be read."""
    if src is None:
        return "an unrecorded place"
    text = line_text(src)
    return f"{where(src)}: `{text}`" if text else where(src)


def display_path(filename):
    if filename.startswith("<"):
        return filename
    try:
        rel = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if rel.startswith("..") else rel


def user_frame(depth=1):
    """The first frame outside glassgrad, looking up from the caller's caller."""
    f = _getframe(depth + 1)
    while f is not None and _is_internal(f.f_code.co_filename):
        f = f.f_back
    return f
