"""Text form of tensors, reproducing ``repr(tensor)`` / ``str(tensor)`` of torch 2.13.

The rules follow ``torch/_tensor_str.py`` for dense CPU tensors of real dtypes:

* One formatter is built per tensor (from the edge items only when the tensor is
  summarised).  Integer and bool dtypes are printed with ``str(value)``.  For
  floating dtypes only the finite non-zero values are inspected: if all of them are
  integers the tensor is printed in "int mode" (``1.``, ``27.``); scientific
  notation is used when max/min of their magnitudes exceeds 1000, or the maximum
  exceeds 1e8, or the minimum is below 1e-4 (unless ``sci_mode`` is forced).
  Every element is right-aligned to the widest *finite non-zero* value, so
  ``nan``/``inf``/``0.`` never widen a column.
* Tensors with more than ``threshold`` elements are summarised: every dimension
  longer than ``2 * edgeitems`` shows its first and last ``edgeitems`` entries
  around a ``...``.
* 1-d rows wrap so that each line holds ``(linewidth - indent) // (width + 2)``
  elements; higher dimensions are separated by ``ndim - 1`` newlines.
* Suffixes (``size=``, ``dtype=``, ``grad_fn=``/``requires_grad=``) are appended
  with ``", "``, moving to a new line when they would pass ``linewidth``.
"""

import contextlib
import math

from .backend import host_xp as np, reduced_floats, to_host

__all__ = ["tensor_repr", "set_printoptions", "get_printoptions", "printoptions"]

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

# Module-level print options; same keys (and order) as torch's get_printoptions().
_opts = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set printing options, with torch's semantics.

    ``profile`` ("default", "short" or "full"; other names are ignored, as in torch)
    is applied first, then every explicitly given option overrides it.  ``sci_mode``
    is always assigned, so omitting it resets it to ``None`` (automatic choice).
    """
    if profile is not None:
        _opts.update(_PROFILES.get(profile, {}))
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _opts[key] = value
    _opts["sci_mode"] = sci_mode


def get_printoptions():
    """Current options as a dict that can be passed back to ``set_printoptions``."""
    return dict(_opts)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Temporarily change the print options (restored on exit)."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


class _Formatter:
    """Decides notation and column width for every element of one tensor."""

    def __init__(self, data):
        self.floating = data.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.width = True, False, 1
        flat = data.reshape(-1)
        if not self.floating:
            self.width = max([1] + [len(str(v)) for v in flat.tolist()])
            return
        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size == 0:
            return  # only zeros / nan / inf: keep int mode, fixed notation, width 1
        mags = np.abs(vals).astype(np.float64)
        lo, hi = mags.min(), mags.max()
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        forced = _opts["sci_mode"]
        with np.errstate(over="ignore"):  # hi / lo may overflow to inf, which counts as > 1000
            auto = bool(hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4)
        self.sci_mode = auto if forced is None else forced
        p = _opts["precision"]
        if self.sci_mode:
            spec, extra = f".{p}e", 0
        elif self.int_mode:
            spec, extra = ".0f", 1  # room for the trailing "."
        else:
            spec, extra = f".{p}f", 0
        self.width = max(len(format(v, spec)) + extra for v in vals.tolist())

    def format(self, value):
        p = _opts["precision"]
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = format(value, f"{self.width}.{p}e")
        elif self.int_mode:
            text = format(value, ".0f")
            if math.isfinite(value):
                text += "."
        else:
            text = format(value, f".{p}f")
        return text.rjust(self.width)


class _ComplexFormatter:
    """torch's pair of formatters for a complex tensor: one for the real parts, one for the
    imaginary parts (unpadded, signed, with "j"); a column is as wide as both and the "j"."""

    def __init__(self, data):
        self.real, self.imag = _Formatter(data.real), _Formatter(data.imag)
        self.width = self.real.width + self.imag.width + 1

    def format(self, value):
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return self.real.format(value.real) + ("" if imag[0] in "+-" else "+") + imag


def _summarized(data, edge):
    """The elements that a summarised print shows (what torch sizes columns from)."""
    if data.ndim <= 1 and not edge:
        return data  # torch quirk: a[-0:] is the whole vector
    if not edge:
        return data[(slice(0, 0),) * data.ndim]
    for axis, n in enumerate(data.shape):
        if n > 2 * edge:
            data = np.take(data, np.r_[0:edge, n - edge:n], axis=axis)
    return data


def _render(data, indent, summarize, fmt):
    edge = _opts["edgeitems"]
    if data.ndim == 0:
        return fmt.format(data.item())
    cut = summarize and len(data) > 2 * edge
    if data.ndim == 1:
        if summarize and not edge:
            items = ["..."]
        elif cut:
            items = ([fmt.format(v) for v in data[:edge].tolist()] + [" ..."]
                     + [fmt.format(v) for v in data[-edge:].tolist()])
        else:
            items = [fmt.format(v) for v in data.tolist()]
        per_line = max(1, math.floor((_opts["linewidth"] - indent) / (fmt.width + 2)))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = list(range(edge)) + [None] + list(range(len(data) - edge, len(data))) if cut \
        else range(len(data))
    parts = ["..." if i is None else _render(data[i], indent + 1, summarize, fmt) for i in rows]
    return "[" + ("," + "\n" * (data.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _add_suffixes(text, suffixes, indent):
    out = [text]
    last_len = len(text) - text.rfind("\n") + 1  # torch's (slightly generous) measure
    for suffix in suffixes:
        if last_len + len(suffix) + 2 > _opts["linewidth"]:
            out.append(",\n" + " " * indent + suffix)
            last_len = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last_len += len(suffix) + 2
    return "".join(out) + ")"


def tensor_repr(data, dtype_name, *, grad_fn_name=None, requires_grad=False, is_leaf=True,
                default_dtype_name="float32", tensor_contents=None, tangent=None,
                prefix="tensor(") -> str:
    """Full ``tensor(...)`` text for ``data`` (a NumPy array) of torch dtype ``dtype_name``.

    ``requires_grad=True`` is shown only when there is no ``grad_fn_name`` (torch's
    rule looks only at grad_fn; ``is_leaf`` is accepted for the caller's convenience).
    ``tensor_contents`` replaces the rendered element text, as in torch's ``_str``; ``prefix``:
    a subclass's ``Name(`` (torch's, for types other than Tensor and Parameter).
    """
    data = to_host(data)
    if data.dtype in reduced_floats:     # torch formats half and bfloat16 as float
        data = data.astype(np.float32)
    indent = len(prefix)
    size = f"size={tuple(int(n) for n in data.shape)}"
    dtype = f"dtype=torch.{dtype_name}"
    suffixes = []
    if data.size == 0:
        if data.ndim != 1:
            suffixes.append(size)
        if dtype_name != default_dtype_name:  # nothing to infer int64/bool from
            suffixes.append(dtype)
        body = "[]"
    else:
        if not _opts["edgeitems"]:
            suffixes.append(size)
        default_complex = "complex128" if default_dtype_name == "float64" else "complex64"
        if dtype_name not in (default_dtype_name, default_complex, "int64", "bool"):
            suffixes.append(dtype)
        if tensor_contents is None:
            summarize = data.size > _opts["threshold"]
            shown = _summarized(data, _opts["edgeitems"]) if summarize else data
            fmt = (_ComplexFormatter if data.dtype.kind == "c" else _Formatter)(shown)
            body = _render(data, indent, summarize, fmt)
    if tensor_contents is not None:
        body = tensor_contents
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:     # a dual tensor's (autograd.forward_ad)
        suffixes.append(f"tangent={tangent}")
    return _add_suffixes(prefix + body, suffixes, indent)
