"""torch.utils.data._utils.collate: default_collate (a batch of samples -> one sample of
batched tensors) and default_convert (NumPy data -> tensors, no batching), as torch's."""
import collections.abc
import copy
import re

from .... import dtypes
from ...._creation import as_tensor, tensor
from ...._tensor import Tensor
from ....backend import xp
from ....ops.shape import stack

_STRING_OR_OBJECT = re.compile("[SaUO]")        # NumPy dtype kinds collation leaves alone
default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, "
                                  "numbers, dicts or lists; found {}")


def _is_numpy(value):
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def _rebuild(template, values, fallback):
    """template's own type holding values (a mapping or a sequence), as torch rebuilds:
    a copy updated in place where mutable, else the type called on them, else fallback."""
    try:
        if isinstance(template, (collections.abc.MutableMapping,
                                 collections.abc.MutableSequence)):
            clone = copy.copy(template)
            if isinstance(template, collections.abc.MutableMapping):
                clone.update(values)
            else:
                for i, value in enumerate(values):
                    clone[i] = value
            return clone
        return type(template)(values)
    except TypeError:
        return fallback(values)


def default_convert(data):
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data):
        if isinstance(data, xp.ndarray) and _STRING_OR_OBJECT.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {k: default_convert(data[k]) for k in data}, dict)
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data], list)
    return data


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    if _STRING_OR_OBJECT.search(batch[0].dtype.str):
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    # each scalar's own dtype, promoted as torch infers a list of NumPy scalars
    return stack([as_tensor(b) for b in batch])


def collate_float_fn(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=dtypes.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    xp.ndarray: collate_numpy_array_fn,
    (xp.bool_, xp.number, xp.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def _handler(elem, collate_fn_map):
    if collate_fn_map is None:
        return None
    if type(elem) in collate_fn_map:
        return collate_fn_map[type(elem)]
    return next((fn for kind, fn in collate_fn_map.items() if isinstance(elem, kind)), None)


def collate(batch, *, collate_fn_map=None):
    """Collate a list of samples by the first one's type: collate_fn_map's function for it,
    else mappings key by key, namedtuples/tuples/lists position by position."""
    elem = batch[0]
    handler = _handler(elem, collate_fn_map)
    if handler is not None:
        return handler(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(elem, {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map)
                               for k in elem}, dict)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(collate(s, collate_fn_map=collate_fn_map)
                            for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)]
        return columns if isinstance(elem, tuple) else _rebuild(elem, columns, list)
    raise TypeError(default_collate_err_msg_format.format(type(elem)))


def default_collate(batch):
    return collate(batch, collate_fn_map=default_collate_fn_map)
