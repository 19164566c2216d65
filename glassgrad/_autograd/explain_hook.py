"""The one seam between the core and the glass box.

The core raises PyTorch's exception, with PyTorch's exact message, and attaches the facts it
knows at the raise site (``attach``: the node that failed, the saved tensor whose version moved,
the tensor written into). Where user code called in (backward(), grad(), an in-place op, reading
``.grad``), the entry point hands the exception to ``explain`` with what it knows of the call.
The glass box registers one explainer at import (``register``); it turns the facts into an
explanation and adds it as a PEP 678 note (``exc.add_note``), so ``str(e)`` stays PyTorch's and
tracebacks and Jupyter show the explanation under it. Without a registered explainer nothing is
added. Nothing here imports the glass box.
"""
_explainer = _warning_explainer = None
_FACTS = "_glassgrad_facts"


def register(errors, warnings):
    """Install the glass box's explainers (it does, at import): ``errors(exc, kind, facts)``
    adds a note to ``exc``; ``warnings(text, kind, facts)`` returns a warning's text. Neither
    may raise."""
    global _explainer, _warning_explainer
    _explainer, _warning_explainer = errors, warnings


def attach(exc, **facts):
    """Record ``facts`` on ``exc`` and return it. The innermost raise site wins: a fact already
    attached (by the code that raised first) is kept."""
    known = exc.__dict__.setdefault(_FACTS, {})
    for k, v in facts.items():
        known.setdefault(k, v)
    return exc


def facts(exc):
    """The facts attached to ``exc`` (a dict; empty when none were)."""
    return getattr(exc, _FACTS, {})


def explain(exc, kind, **context):
    """Let the registered explainer explain ``exc`` (raised where user code called ``kind``:
    "backward", "inplace"...) once; ``context`` adds what the entry point knows. Returns exc."""
    if _explainer is not None:
        known = attach(exc).__dict__[_FACTS]
        if not known.get("explained"):
            known["explained"] = True
            _explainer(exc, kind, {**known, **context})   # the call's context is not kept
    return exc


def warning_text(text, kind, **context):
    """The text of a warning glassgrad emits: ``text`` (PyTorch's), with the explainer's
    explanation after it when one is registered."""
    if _warning_explainer is None:
        return text
    return _warning_explainer(text, kind, context)
