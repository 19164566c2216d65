"""torch.func.rearrange: einops' rearrange pattern language, as torch 2.13 runs it.

torch 2.13 parses the pattern itself (functorch/einops: einops' parser, its ValueError and
TypeError texts) and runs it on functorch.dim's first-class dimensions; einops is not needed.
Here the pattern becomes glassgrad's reshape (split the left side's groups), permute and
reshape (merge the right side's groups), giving what torch gives, including where torch's way
differs from einops':
- a size-1 axis named on the left (``1`` or ``()``) binds to whatever size the tensor has
  there and is summed away (torch's result is a sum, SumBackward1, not a view);
- sizes bind as first-class dims do (DimensionBindError with their texts; the dims are named
  d0, d1, ... in the order the left side lists them);
- ``'... -> ...'`` and a pattern naming no axes return the tensor itself;
- where the right side has more new size-1 axes than merged groups and the left side has a
  size-1 axis, torch's order() fails with an AssertionError; the same one is raised here.
torch memoizes the plan per (ndim, pattern, lengths), so a length given as 2.0 after 2 was
used for the same pattern is accepted there; here lengths are always checked.
"""
import keyword
import math
import warnings

from ._tensor import Tensor
from .ops.shape import stack

__all__ = ["rearrange", "DimensionBindError"]

ELLIPSIS = "\u2026"     # "..." once parsed: one character


class DimensionBindError(Exception):
    """functorch.dim's error for sizes that cannot bind to a pattern's axes."""


class _Numbered:
    """An axis written as a number other than 1 (rearrange refuses them; each is distinct)."""

    def __init__(self, text):
        self.value = int(text)
        if self.value < 1:
            raise ValueError(f"Anonymous axis should have positive length, not {self.value}")


def _check_name(name):
    """(valid, why not) for an axis name: an identifier, no leading or trailing underscore."""
    if not name.isidentifier():
        return False, "not a valid python identifier"
    if name[0] == "_" or name[-1] == "_":
        return False, "axis name should should not start or end with underscore"
    if keyword.iskeyword(name):
        warnings.warn(f"It is discouraged to use axes names that are keywords: {name}",
                      RuntimeWarning)
    if name == "axis":
        warnings.warn("It is discouraged to use 'axis' as an axis name and will raise an error "
                      "in future", FutureWarning)
    return True, ""


class _Side:
    """One side of a pattern: ``composition`` lists its entries, each a list of axes (a group;
    a lone axis is a group of one, ``1`` an empty one) or ELLIPSIS."""

    def __init__(self, text):
        self.ids, self.composition = set(), []
        self.has_ellipsis, self.ellipsis_grouped, self.numbered = False, False, False
        if "." in text:
            if "..." not in text:
                raise ValueError("Expression may contain dots only inside ellipsis (...)")
            if text.count("...") != 1 or text.count(".") != 3:
                raise ValueError("Expression may contain dots only inside ellipsis (...); only "
                                 "one ellipsis for tensor ")
            text, self.has_ellipsis = text.replace("...", ELLIPSIS), True
        self.group, word = None, None
        for ch in text:
            if ch in "() ":
                if word is not None:
                    self._add(word)
                word = None
                if ch == "(":
                    if self.group is not None:
                        raise ValueError("Axis composition is one-level (brackets inside "
                                         "brackets not allowed)")
                    self.group = []
                elif ch == ")":
                    if self.group is None:
                        raise ValueError("Brackets are not balanced")
                    self.composition.append(self.group)
                    self.group = None
            elif ch.isalnum() or ch in ("_", ELLIPSIS):
                word = ch if word is None else word + ch
            else:
                raise ValueError(f"Unknown character '{ch}'")
        if self.group is not None:
            raise ValueError(f"Imbalanced parentheses in expression: '{text}'")
        if word is not None:
            self._add(word)

    def _add(self, name):
        if name in self.ids:
            raise ValueError(f"Indexing expression contains duplicate dimension '{name}'")
        if name == ELLIPSIS:
            self.ids.add(name)
            self.ellipsis_grouped = self.group is not None
            (self.composition if self.group is None else self.group).append(name)
            return
        number = name.isdecimal()
        if number and int(name) == 1:       # a size-1 axis: an empty group (nothing in one)
            if self.group is None:
                self.composition.append([])
            return
        valid, why = _check_name(name)
        if not (number or valid):
            raise ValueError(f"Invalid axis identifier: {name}\n{why}")
        axis = _Numbered(name) if number else name
        self.ids.add(axis)
        self.numbered = self.numbered or number
        if self.group is None:
            self.composition.append([axis])
        else:
            self.group.append(axis)


def _parse(pattern, lengths):
    try:
        left, right = pattern.split("->")
    except ValueError:
        raise ValueError("Pattern must contain a single '->' separator") from None
    if ELLIPSIS in lengths:
        raise ValueError(f"'{ELLIPSIS}' is not an allowed axis identifier")
    left, right = _Side(left), _Side(right)
    if right.has_ellipsis and not left.has_ellipsis:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern {pattern}")
    if left.has_ellipsis and left.ellipsis_grouped:
        raise ValueError(f"Ellipsis is parenthesis in the left side is not allowed: {pattern}")
    for length in lengths.values():
        if type(length) is not int:
            raise TypeError(f"rearrange axis lengths must be integers, got: {type(length)}")
    if left.numbered or right.numbered:
        raise ValueError("rearrange only supports unnamed axes of size 1")
    if left.ids ^ right.ids:
        raise ValueError("Identifiers only on one side of rearrange expression (should be on "
                         f"both): {left.ids ^ right.ids}")
    if lengths.keys() - left.ids:
        raise ValueError(f"Identifiers not found in rearrange expression: "
                         f"{lengths.keys() - left.ids}")
    return left, right


def _left_axes(left, ndim):
    """Number the left side's axes d0, d1, ... in order: (entries, one per tensor dim, each a
    list of axis numbers (a group) or an int (an ellipsis dim); axis number of each name and
    of ELLIPSIS (a list); the numbers of the size-1 axes)."""
    anon = sum(1 for entry in left.composition if entry == [])
    if left.has_ellipsis:
        n_ellipsis, named = ndim - (len(left.composition) - 1), len(left.ids) - 1
        if anon + named > ndim:
            raise ValueError(f"Number of dimensions in pattern ({anon + named}) must be less "
                             f"than or equal to the number of dimensions in the tensor ({ndim})")
    elif len(left.composition) != ndim:
        raise ValueError(f"Number of dimensions in pattern ({len(left.composition)}) must be "
                         f"equal to the number of dimensions in the tensor ({ndim})")
    else:
        n_ellipsis = 0
    entries, number, unit, count = [], {}, [], 0
    for entry in left.composition:
        if entry == ELLIPSIS:
            number[ELLIPSIS] = list(range(count, count + n_ellipsis))
            entries += number[ELLIPSIS]
            count += n_ellipsis
            continue
        group = []
        for name in entry:
            number[name] = count
            group.append(count)
            count += 1
        if not entry:
            unit.append(count)
            group.append(count)
            count += 1
        entries.append(group)
    return entries, number, unit, count


def _bind(size, group, sizes):
    """Bind a group of axes to a dim of ``size`` as functorch.dim does: at most one unknown
    axis, inferred from the others (-1: unbound)."""
    prod = 1
    for i, d in enumerate(group):
        if sizes[d] != -1:
            prod *= sizes[d]
            continue
        for e in group[i + 1:]:
            if sizes[e] == -1:
                raise DimensionBindError(f"cannot infer the sizes of two dimensions at once d{d}"
                                         f" and d{e}")
            prod *= sizes[e]
        if size % prod != 0:
            seen = tuple("?" if sizes[e] == -1 else sizes[e] for e in group)
            raise DimensionBindError("inferred dimension does not evenly fit into larger "
                                     f"dimension: {size} vs {seen}")
        sizes[d], prod = size // prod, size
        break
    if prod != size:
        names = ", ".join(f"d{d}" for d in group) + ("," if len(group) == 1 else "")
        raise DimensionBindError(f"Dimension sizes to do not match ({size} != {prod}) when "
                                 f"matching dimension pack ({names})")


def rearrange(tensor, pattern, **axes_lengths):
    """einops.rearrange as torch.func.rearrange: transposes, splits, merges, adds and removes
    axes by a pattern such as ``"b (h w) c -> b c h w"`` (h=... or w=... naming a size); a
    sequence of tensors is stacked first."""
    if not isinstance(tensor, Tensor):
        tensor = stack(tensor)
    left, right = _parse(pattern, axes_lengths)
    entries, number, unit, count = _left_axes(left, tensor.ndim)
    if count == 0:
        return tensor
    sizes = [-1] * count
    for name, length in axes_lengths.items():
        if sizes[number[name]] == -1:
            sizes[number[name]] = length
    for size, entry in zip(tensor.shape, entries):
        if isinstance(entry, list):
            _bind(size, entry, sizes)
        else:
            sizes[entry] = size
    # the right side: its entries (groups of axis numbers, or an ellipsis dim's number)
    out = []
    for entry in right.composition:
        if entry == ELLIPSIS:
            out += number[ELLIPSIS]
        else:
            out.append([d for name in entry for d in
                        (number[name] if name == ELLIPSIS else [number[name]])])
    flat = [d for e in out for d in (e if isinstance(e, list) else [e])]
    grouped = any(isinstance(e, list) for e in out)
    if unit and grouped and len(out) > len(flat):   # (torch's order() loses a level)
        raise AssertionError(f"Tensor has {len(unit) + len(out)} dimensions but "
                             f"{len(unit) + len(flat)} levels provided")
    if not grouped and not unit:
        return tensor
    x = tensor.reshape([sizes[d] for d in range(count)])
    x = x.permute(unit + flat)
    if grouped:
        x = x.reshape([sizes[d] for d in unit] +
                      [math.prod(sizes[d] for d in e) if isinstance(e, list) else sizes[e]
                       for e in out])
    return x.sum(tuple(range(len(unit)))) if unit else x
