"""torch.layout and torch.memory_format: the objects, the layouts and memory formats glassgrad
honours (strided; contiguous_format, preserve_format), the refusal of the others, against torch."""
import pickle

import pytest
import torch

import glassgrad as gg

NAMES = ["strided", "sparse_coo", "sparse_csr", "contiguous_format", "preserve_format",
         "channels_last", "channels_last_3d"]


@pytest.mark.parametrize("name", NAMES)
def test_the_objects(name):
    ref, got = getattr(torch, name), getattr(gg, name)
    assert (repr(got), str(got)) == (repr(ref), str(ref))
    assert type(got).__name__ == type(ref).__name__
    assert pickle.loads(pickle.dumps(got)) is got
    assert isinstance(got, gg.layout if isinstance(ref, torch.layout) else gg.memory_format)


def _strides(lib, f):
    x = lib.ones(2, 3).t()
    return tuple(f(lib, x).stride())


@pytest.mark.parametrize("f", [
    lambda t, x: x.clone(memory_format=t.contiguous_format),
    lambda t, x: x.clone(memory_format=t.preserve_format), lambda t, x: x.clone(),
    lambda t, x: t.zeros_like(x, memory_format=t.contiguous_format),
    lambda t, x: t.empty_like(x, memory_format=t.preserve_format),
    lambda t, x: t.rand_like(x, memory_format=t.contiguous_format),
    lambda t, x: t.full_like(x, 2., memory_format=t.contiguous_format),
    lambda t, x: x.contiguous(memory_format=t.contiguous_format),
    lambda t, x: t.zeros(2, 3, layout=t.strided),
    lambda t, x: t.empty(2, 3, memory_format=t.contiguous_format),
])
def test_honoured_layouts_and_memory_formats(f):
    assert _strides(gg, f) == _strides(torch, f)


def test_a_tensors_layout():
    assert gg.ones(2).layout is gg.strided
    with pytest.raises(AttributeError) as e:
        gg.ones(2).layout = gg.strided
    with pytest.raises(AttributeError) as ref:
        torch.ones(2).layout = torch.strided
    assert str(e.value) == str(ref.value)


@pytest.mark.parametrize("f", [
    lambda t: t.zeros(2, layout="a"), lambda t: t.ones(2).clone(memory_format=1),
    lambda t: t.zeros_like(t.ones(2), memory_format="a"),
])
def test_wrong_types_refused_as_torch(f):
    outcomes = []
    for lib in (torch, gg):
        with pytest.raises(TypeError) as e:
            f(lib)
        outcomes.append(str(e.value))
    assert outcomes[1] == outcomes[0]


@pytest.mark.parametrize("f", [
    lambda t: t.zeros(2, layout=t.sparse_coo), lambda t: t.ones(2, 2, layout=t.sparse_csr),
    lambda t: t.ones(1, 2, 3, 4).clone(memory_format=t.channels_last),
    lambda t: t.empty_like(t.ones(1, 2, 3, 4), memory_format=t.channels_last),
])
def test_what_glassgrad_lacks_is_refused(f):
    with pytest.raises(NotImplementedError, match="dense and strided"):
        f(gg)
