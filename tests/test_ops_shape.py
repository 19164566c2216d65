"""Shape ops beyond their op-table cases (opinfo.py, run by test_op_table.py): writes through
views, multi-output views, meshgrid's warning, repeat_interleave's indices, errors, against
torch. torch computes every expectation.
"""
import numpy as np
import pytest
import torch

import glassgrad as gg
from opinfo import SHAPE_X as X
from differential import catch, same
from optable import as_tuple, assert_same, check_error, outcome

# (the op-table cases are in opinfo.py; test_op_table.py runs them)



# -- writes through views ----------------------------------------------------------------------
WRITES = {
    "view": lambda t, x: x.view(6, 4), "view_as": lambda t, x: x.view_as(t.ones(4, 6)),
    "reshape": lambda t, x: x.reshape(4, 6), "reshape_copy": lambda t, x: x.mT.reshape(-1),
    "reshape_alias": lambda t, x: x.mT.reshape(2, 2, 2, 3),
    "reshape_as": lambda t, x: x.reshape_as(t.ones(24)),
    "squeeze": lambda t, x: x[:, :1].squeeze(), "unsqueeze": lambda t, x: x.unsqueeze(1),
    "permute": lambda t, x: x.permute(2, 0, 1), "transpose": lambda t, x: x.transpose(0, 1),
    "t": lambda t, x: x[0].t(), "T": lambda t, x: x[0].T, "mT": lambda t, x: x.mT,
    "expand": lambda t, x: x[:, :1].expand(2, 3, 4),
    "expand_as": lambda t, x: x[0, 0].expand_as(x),
    "contiguous": lambda t, x: x.contiguous(), "contiguous_copy": lambda t, x: x.mT.contiguous(),
    "flatten": lambda t, x: x.flatten(1), "flatten_same": lambda t, x: x.flatten(2, 2),
    "flatten_copy": lambda t, x: x.mT.flatten(), "unflatten": lambda t, x: x.unflatten(2, (2, 2)),
    "ravel": lambda t, x: x.ravel(), "ravel_copy": lambda t, x: x.mT.ravel(),
    "swapaxes": lambda t, x: x.swapaxes(0, 2), "swapdims": lambda t, x: x.swapdims(1, 2),
    "movedim": lambda t, x: x.movedim(0, -1), "moveaxis": lambda t, x: t.moveaxis(x, 1, 0),
    "broadcast_to": lambda t, x: x[:, :1].broadcast_to((2, 3, 4)),
    "broadcast_tensors": lambda t, x: t.broadcast_tensors(x, x[0, :, :1], t.ones(2, 1, 1)),
    "repeat": lambda t, x: x.repeat(1, 1, 1), "tile": lambda t, x: x.tile(2),
    "repeat_interleave": lambda t, x: x.repeat_interleave(2, 1),
    "cat": lambda t, x: t.cat([x, x]), "hstack": lambda t, x: t.hstack([x, x]),
    "vstack": lambda t, x: t.vstack([x[0, 0], x[1, 0]]),
    "dstack": lambda t, x: t.dstack([x[0], x[1]]),
    "atleast_3d": lambda t, x: t.atleast_3d(x[0, 0]),
    "split": lambda t, x: x.split(3, 2), "split_sizes": lambda t, x: x.split([1, 2], 1),
    "chunk": lambda t, x: x.chunk(2, -1), "tensor_split": lambda t, x: x.tensor_split(3, 2),
    "tensor_split_indices": lambda t, x: x.tensor_split([1], 1),
    "unbind": lambda t, x: x.unbind(1), "narrow": lambda t, x: x.narrow(2, 1, 2),
    "flip": lambda t, x: x.flip(0), "fliplr": lambda t, x: x.fliplr(),
    "flipud": lambda t, x: x.flipud(), "roll": lambda t, x: x.roll(1),
    "rot90": lambda t, x: x.rot90(), "rot90_0": lambda t, x: x.rot90(0),
    "meshgrid": lambda t, x: t.meshgrid(x[0, 0], x[1, :, 0], indexing="xy"),
}


def write_through(lib, fn):
    """Write -1, -2, ... into each output under no_grad; what the base and outputs show."""
    base = lib.tensor(np.arange(24.0).reshape(X))
    outs = as_tuple(fn(lib, base))
    seen = [(o._is_view(), o._base is base, o is base, o.is_contiguous()) for o in outs]
    with lib.no_grad():
        for k, o in enumerate(outs):
            o.fill_(-1.0 - k)
    return (seen, base.tolist(), [o.tolist() for o in outs], base._version,
            [o._version for o in outs])


@pytest.mark.filterwarnings("ignore:The use of `x.T`")
@pytest.mark.parametrize("fn", WRITES.values(), ids=WRITES.keys())
def test_write_through_views(fn):
    assert write_through(gg, fn) == write_through(torch, fn)


@pytest.mark.parametrize("fn", [lambda t, x: x.split(2, 1), lambda t, x: x.chunk(3, 2),
                                lambda t, x: x.unbind(0)], ids=["split", "chunk", "unbind"])
def test_multi_output_views_share_one_node(fn):
    def program(lib):
        x = lib.ones(X, requires_grad=True)
        outs = fn(lib, x)
        return ([type(o.grad_fn).__name__ for o in outs], [o.output_nr for o in outs],
                len({id(o.grad_fn) for o in outs}))
    assert program(gg) == program(torch)


def test_broadcast_tensors_of_nothing():
    assert gg.broadcast_tensors() == torch.broadcast_tensors() == ()


def test_meshgrid_default_indexing_warns():
    for lib in (torch, gg):
        with pytest.warns(UserWarning, match="it will be required to pass the indexing"):
            out = lib.meshgrid(lib.ones(2), lib.ones(3))
        assert [tuple(o.shape) for o in out] == [(2, 3), (2, 3)]


@pytest.mark.parametrize("repeats", [[1, 2, 0, 3], [0], [], [2, 2]], ids=str)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_repeat_interleave_indices(repeats, dtype):
    def f(lib):
        return lib.repeat_interleave(lib.tensor(repeats, dtype=getattr(lib, dtype)))
    (ref, ref_err), (got, got_err) = outcome(lambda: f(torch)), outcome(lambda: f(gg))
    assert got_err == ref_err
    assert_same(ref, got)


# -- errors ----------------------------------------------------------------------------------
ERRORS = {
    "flatten_order": lambda t: t.ones(2, 3, 4).flatten(2, 1),
    "flatten_dim": lambda t: t.ones(2, 3).flatten(3),
    "flatten_0d_dim": lambda t: t.ones(()).flatten(1),
    "unflatten_prod": lambda t: t.ones(2, 4).unflatten(1, (3, 2)),
    "unflatten_empty": lambda t: t.ones(2, 4).unflatten(1, ()),
    "unflatten_dim": lambda t: t.ones(2, 4).unflatten(2, (2, 2)),
    "unflatten_two_-1": lambda t: t.ones(2, 4).unflatten(1, (-1, -1)),
    "unflatten_-1_bad": lambda t: t.ones(2, 4).unflatten(1, (3, -1)),
    "unflatten_0d": lambda t: t.ones(()).unflatten(0, (1,)),
    "swapaxes_dim": lambda t: t.ones(2, 3).swapaxes(0, 2),
    "swapdims_dim": lambda t: t.swapdims(t.ones(2, 3), -3, 0),
    "movedim_len": lambda t: t.ones(2, 3).movedim((0, 1), (0,)),
    "movedim_repeated": lambda t: t.ones(2, 3).movedim((0, 0), (0, 1)),
    "movedim_repeated_dst": lambda t: t.ones(2, 3).movedim((0, 1), (1, 1)),
    "movedim_dim": lambda t: t.ones(2, 3).movedim(2, 0),
    "movedim_neg_repeated": lambda t: t.ones(2, 3).movedim((0, -2), (0, 1)),
    "broadcast_to": lambda t: t.ones(3, 2).broadcast_to((3, 4)),
    "broadcast_to_fewer": lambda t: t.ones(3, 2).broadcast_to((2,)),
    "broadcast_tensors": lambda t: t.broadcast_tensors(t.ones(3, 2), t.ones(4)),
    "broadcast_tensors_3": lambda t: t.broadcast_tensors(t.ones(3, 1), t.ones(4),
                                                         t.ones(2, 1, 1), t.ones(5)),
    "broadcast_tensors_list": lambda t: t.broadcast_tensors([t.ones(2), t.ones(1)]),
    "repeat_fewer": lambda t: t.ones(3, 2).repeat(2),
    "repeat_negative": lambda t: t.ones(3, 2).repeat(-1, 1),
    "tile_negative": lambda t: t.ones(3).tile(-1),
    "repeat_interleave_negative": lambda t: t.ones(3).repeat_interleave(-1),
    "repeat_interleave_dim": lambda t: t.ones(3).repeat_interleave(2, dim=1),
    "repeat_interleave_output_size": lambda t: t.ones(3).repeat_interleave(2, output_size=5),
    "repeat_interleave_2d": lambda t: t.repeat_interleave(t.tensor([[1, 2]])),
    "repeat_interleave_0d": lambda t: t.repeat_interleave(t.tensor(3)),
    "repeat_interleave_float": lambda t: t.repeat_interleave(t.tensor([1.0, 2.0])),
    "repeat_interleave_neg": lambda t: t.repeat_interleave(t.tensor([1, -2])),
    "repeat_interleave_tensor_len": lambda t: t.ones(2, 3).repeat_interleave(t.tensor([1, 2]),
                                                                            dim=1),
    "repeat_interleave_tensor_2d": lambda t: t.ones(3).repeat_interleave(t.tensor([[1, 2, 1]])),
    "repeat_interleave_tensor_neg": lambda t: t.ones(3).repeat_interleave(t.tensor([1, -2, 1])),
    "repeat_interleave_tensor_float": lambda t: t.ones(3).repeat_interleave(t.tensor([1., 2, 1])),
    "concat_tensor": lambda t: t.concat(t.ones(2)),
    "concatenate_tensor": lambda t: t.concatenate(t.ones(2)),
    "concat_mismatch": lambda t: t.concat([t.ones(2, 3), t.ones(3, 2)]),
    "cat_0d": lambda t: t.cat([t.tensor(1.0), t.tensor(2.0)]),
    "cat_0d_second": lambda t: t.cat([t.ones(2), t.tensor(2.0)]),
    "cat_0d_after_empty": lambda t: t.cat([t.ones(0), t.tensor(2.0)], dim=1),
    "concatenate_0d_out": lambda t: t.concatenate([t.ones(2), t.tensor(2.0)], out=t.empty(0)),
    "hstack_empty": lambda t: t.hstack([]),
    "vstack_empty": lambda t: t.vstack([]),
    "dstack_empty": lambda t: t.dstack(()),
    "hstack_mismatch": lambda t: t.hstack([t.ones(2, 3), t.ones(3, 3)]),
    "vstack_mismatch": lambda t: t.vstack([t.ones(3), t.ones(2)]),
    "split_negative": lambda t: t.ones(4).split(-1),
    "split_sizes_sum": lambda t: t.ones(4).split([1, 2]),
    "split_sizes_negative": lambda t: t.ones(4).split([5, -1]),
    "split_0d": lambda t: t.ones(()).split(1),
    "split_zero": lambda t: t.ones(4).split(0),
    "split_dim": lambda t: t.ones(4).split(2, 1),
    "chunk_0": lambda t: t.ones(4).chunk(0),
    "chunk_negative": lambda t: t.ones(4).chunk(-1),
    "chunk_0d": lambda t: t.ones(()).chunk(2),
    "chunk_dim": lambda t: t.ones(4).chunk(2, -2),
    "tensor_split_0": lambda t: t.ones(4).tensor_split(0),
    "tensor_split_0d": lambda t: t.ones(()).tensor_split(2),
    "tensor_split_float_tensor": lambda t: t.ones(4).tensor_split(t.tensor([1.0])),
    "tensor_split_2d_tensor": lambda t: t.ones(2, 3).tensor_split(t.tensor([[1]])),
    "tensor_split_dim": lambda t: t.ones(4).tensor_split(2, 1),
    "narrow_start": lambda t: t.ones(4).narrow(0, 5, 1),
    "narrow_negative_start": lambda t: t.ones(4).narrow(0, -5, 1),
    "narrow_length": lambda t: t.ones(4).narrow(0, 1, 4),
    "narrow_negative_length": lambda t: t.ones(4).narrow(0, 1, -1),
    "narrow_0d": lambda t: t.ones(()).narrow(0, 0, 1),
    "narrow_dim": lambda t: t.ones(4).narrow(1, 0, 1),
    "flip_repeated": lambda t: t.ones(2, 3).flip(0, -2),
    "flip_dim": lambda t: t.ones(2, 3).flip(2),
    "fliplr_1d": lambda t: t.ones(3).fliplr(),
    "flipud_0d": lambda t: t.ones(()).flipud(),
    "roll_align": lambda t: t.ones(2, 3).roll((1, 2), 0),
    "roll_align_no_dims": lambda t: t.ones(2, 3).roll((1, 2)),
    "roll_dim": lambda t: t.ones(2, 3).roll(1, 2),
    "roll_0d_dim": lambda t: t.ones(()).roll(1, 0),
    "movedim_0d_dim": lambda t: t.ones(()).movedim(0, 1),
    "roll_no_shifts": lambda t: t.ones(2, 3).roll((), ()),
    "rot90_three_dims": lambda t: t.ones(2, 3).rot90(1, (0, 1, 2)),
    "rot90_1d": lambda t: t.ones(3).rot90(),
    "rot90_same_dims": lambda t: t.ones(2, 3).rot90(1, (0, 0)),
    "rot90_same_dims_neg": lambda t: t.ones(2, 3).rot90(1, (0, -2)),
    "rot90_dim": lambda t: t.ones(2, 3).rot90(1, (0, 2)),
    "meshgrid_dtype": lambda t: t.meshgrid(t.ones(2), t.ones(2, dtype=t.float64),
                                           indexing="ij"),
    "meshgrid_indexing": lambda t: t.meshgrid(t.ones(2), indexing="foo"),
    "meshgrid_empty": lambda t: t.meshgrid([], indexing="ij"),
}


@pytest.mark.parametrize("f", ERRORS.values(), ids=ERRORS.keys())
def test_errors(f):
    check_error(f)


CLONE_LAYOUTS = {
    "transpose": lambda lib: lib.arange(12.).reshape(3, 4).t(),
    "sliced_transpose": lambda lib: lib.arange(24.).reshape(4, 6)[:, ::2].t(),
    "slice": lambda lib: lib.arange(12.).reshape(3, 4)[:, :2],
    "expand": lambda lib: lib.arange(3.).reshape(3, 1).expand(3, 4),
    "permute": lambda lib: lib.arange(24.).reshape(2, 3, 4).permute(2, 0, 1),
    "permute_sliced": lambda lib: lib.arange(48.).reshape(2, 3, 8)[..., ::2].permute(2, 0, 1),
}


@pytest.mark.parametrize("make", CLONE_LAYOUTS.values(), ids=CLONE_LAYOUTS.keys())
def test_clone_preserves_layout(make):
    # torch's preserve_format: a dense tensor keeps its strides, any other its stride order;
    # contiguous() and reshape's copy are row-major
    def program(lib):
        x = make(lib)
        c = x.clone()
        return (c, c.stride(), c.is_contiguous(), c.exp().stride(), x.contiguous().stride(),
                x.reshape(-1).stride(), catch(lambda: c.view(-1).stride()))
    same(program)
