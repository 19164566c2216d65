"""functional_call: a module called with other tensors in place of its parameters and buffers
(the deprecated torch.nn.utils.stateless form; torch.func.functional_call is the same call)."""
import contextlib
import warnings

from ..._tensor import Tensor

__all__ = ["functional_call"]

_MISSING = object()


def _untie_named_tensors_map(module, tensors):
    """``tensors`` with each tied name (one tensor registered under several names) given the
    value the caller gave for one of its names; different values for the names of one tied
    tensor are an error."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    names_of = {}
    for name, t in named.items():
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given = [n for n in tensors if n in tied]
    for name in given:
        names = tied[name]
        if len(names & set(given)) > 1 and \
                len({id(tensors[n]) for n in names if n in tensors}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, "
                             f"which are tied. Consider using tie_weights=False")
    out = dict(tensors)
    for name in given:
        for other in tied[name]:
            out[other] = tensors[name]
    return out


def _swap(module, path, tensor):
    """Put ``tensor`` (or _MISSING: remove) at dotted ``path`` of module, as a parameter or
    buffer slot where one is, else an attribute; return what was there."""
    *prefix, name = path.split(".")
    for part in prefix:
        module = getattr(module, part)
    if tensor is not _MISSING and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for table in (module._parameters, module._buffers):
        if name in table:
            old = table[name]
            if tensor is _MISSING:
                del table[name]
            else:
                table[name] = tensor
            return old
    old = getattr(module, name, _MISSING)
    if old is not _MISSING and not isinstance(old, Tensor):
        raise TypeError(f"attribute `{name}`: {old} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif old is not _MISSING:
        delattr(module, name)
    return old


def _check_keys(module, tensors):
    names = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    names |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    missing, unexpected = sorted(names - tensors.keys()), sorted(tensors.keys() - names)
    msgs = []
    if unexpected:
        msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if msgs:
        raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
            module._get_name(), "\n\t".join(msgs)))


@contextlib.contextmanager
def _reparametrize_module(module, tensors, tie_weights=False, strict=False):
    untied = _untie_named_tensors_map(module, tensors) if tie_weights else tensors
    if strict:
        _check_keys(module, untied)
    originals = {}
    try:
        for path, tensor in untied.items():
            originals[path] = _swap(module, path, tensor)
        yield
    finally:
        for path, old in reversed(originals.items()):
            _swap(module, path, old)


def _functional_call(module, tensors, args=None, kwargs=None, *, tie_weights=True,
                     strict=False):
    kwargs = {} if kwargs is None else kwargs
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _reparametrize_module(module, tensors, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
