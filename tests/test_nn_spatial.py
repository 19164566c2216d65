"""The spatial layers against torch: transposed convolutions, fold/unfold, 3-d and adaptive
pooling, unpooling, LP pooling, upsampling, pixel and channel shuffles and the padding modules.
Each layer is built in torch, its state copied into glassgrad's, and both run forward and
backward on the same input (outputs, grad_fn names, input and parameter gradients, reprs,
state_dict); default initialisation is compared bit for bit after manual_seed; errors by type
and message. The functional ops' rows are covered by tests/opinfo.py's "spatial" section
(values, gradients, saved tensors, double backward)."""
import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, norm
from test_nn_layers import _run, _state_from, err, same, same_stream, x

LAYERS = {
    "ConvTranspose1d": (lambda t: t.nn.ConvTranspose1d(3, 4, 3, stride=2), [x(2, 3, 5)]),
    "ConvTranspose2d": (lambda t: t.nn.ConvTranspose2d(4, 6, (3, 2), stride=2, padding=1,
                                                       output_padding=1, groups=2),
                        [x(2, 4, 4, 5)]),
    "ConvTranspose2d_dilation": (lambda t: t.nn.ConvTranspose2d(2, 3, 2, dilation=2,
                                                                bias=False), [x(2, 3, 3)]),
    "ConvTranspose3d": (lambda t: t.nn.ConvTranspose3d(2, 2, 2, stride=(1, 2, 1)),
                        [x(1, 2, 3, 2, 3)]),
    "Fold": (lambda t: t.nn.Fold((4, 5), 2), [x(2, 12, 12)]),
    "Fold_args": (lambda t: t.nn.Fold((5, 6), (2, 3), dilation=(1, 2), padding=1,
                                      stride=(2, 1)), [x(12, 12)]),
    "Unfold": (lambda t: t.nn.Unfold(2, padding=1), [x(2, 3, 4, 5)]),
    "PixelShuffle": (lambda t: t.nn.PixelShuffle(2), [x(2, 8, 3, 2)]),
    "PixelUnshuffle": (lambda t: t.nn.PixelUnshuffle(2), [x(2, 2, 4, 6)]),
    "ChannelShuffle": (lambda t: t.nn.ChannelShuffle(3), [x(2, 6, 3, 2)]),
    "MaxPool3d": (lambda t: t.nn.MaxPool3d(2), [x(2, 2, 4, 5, 4)]),
    "MaxPool3d_args": (lambda t: t.nn.MaxPool3d((3, 2, 2), 2, 1, ceil_mode=True,
                                                return_indices=True), [x(2, 5, 5, 4)]),
    "AvgPool3d": (lambda t: t.nn.AvgPool3d(2), [x(2, 2, 4, 5, 4)]),
    "AvgPool3d_args": (lambda t: t.nn.AvgPool3d(3, 2, 1, ceil_mode=True, count_include_pad=False,
                                                divisor_override=None), [x(1, 2, 6, 5, 4)]),
    "AvgPool3d_divisor": (lambda t: t.nn.AvgPool3d(2, divisor_override=5), [x(2, 4, 4, 4)]),
    "AdaptiveAvgPool3d": (lambda t: t.nn.AdaptiveAvgPool3d((2, None, 3)), [x(2, 2, 5, 4, 7)]),
    "AdaptiveMaxPool1d": (lambda t: t.nn.AdaptiveMaxPool1d(3, return_indices=True),
                          [x(2, 3, 7)]),
    "AdaptiveMaxPool2d": (lambda t: t.nn.AdaptiveMaxPool2d((3, 2)), [x(2, 3, 7, 5)]),
    "AdaptiveMaxPool3d": (lambda t: t.nn.AdaptiveMaxPool3d(2, True), [x(1, 2, 5, 4, 3)]),
    "LPPool1d": (lambda t: t.nn.LPPool1d(2, 3, 2), [x(2, 3, 7)]),
    "LPPool2d": (lambda t: t.nn.LPPool2d(3, (2, 3)), [x(2, 3, 6, 6)]),
    "LPPool3d": (lambda t: t.nn.LPPool3d(1.5, 2, ceil_mode=True), [abs(x(1, 2, 5, 4, 4))]),
    "Upsample": (lambda t: t.nn.Upsample(scale_factor=2), [x(2, 3, 4, 5)]),
    "Upsample_size": (lambda t: t.nn.Upsample(size=(7, 3), mode="bicubic"), [x(2, 3, 4, 5)]),
    "Upsample_linear": (lambda t: t.nn.Upsample(scale_factor=(1.5,), mode="linear",
                                                align_corners=True), [x(2, 3, 5)]),
    "Upsample_trilinear": (lambda t: t.nn.Upsample(scale_factor=0.7, mode="trilinear",
                                                   recompute_scale_factor=True),
                           [x(1, 2, 4, 5, 6)]),
    "Upsample_area": (lambda t: t.nn.Upsample(size=3, mode="area"), [x(1, 2, 7, 5)]),
    "Upsample_nearest_exact": (lambda t: t.nn.Upsample(scale_factor=1.6, mode="nearest-exact"),
                               [x(1, 2, 7, 5)]),
    "UpsamplingNearest2d": (lambda t: t.nn.UpsamplingNearest2d(scale_factor=3), [x(1, 2, 3, 2)]),
    "UpsamplingBilinear2d": (lambda t: t.nn.UpsamplingBilinear2d((5, 7)), [x(1, 2, 3, 2)]),
}
for _k, _shape in ((1, (2, 3, 5)), (2, (2, 3, 4, 5)), (3, (1, 2, 3, 4, 5))):
    LAYERS.update({
        f"ZeroPad{_k}d": (lambda t, k=_k: getattr(t.nn, f"ZeroPad{k}d")(1), [x(*_shape)]),
        f"ConstantPad{_k}d": (lambda t, k=_k: getattr(t.nn, f"ConstantPad{k}d")(
            tuple(range(1, 2 * k + 1)), 3.5), [x(*_shape)]),
        f"ReflectionPad{_k}d": (lambda t, k=_k: getattr(t.nn, f"ReflectionPad{k}d")(
            (2, 1) * k), [x(*_shape)]),
        f"ReplicationPad{_k}d": (lambda t, k=_k: getattr(t.nn, f"ReplicationPad{k}d")(2),
                                 [x(*_shape)]),
        f"CircularPad{_k}d": (lambda t, k=_k: getattr(t.nn, f"CircularPad{k}d")((1, 2) * k),
                              [x(*_shape)]),
        f"ReflectionPad{_k}d_unbatched": (lambda t, k=_k: getattr(t.nn, f"ReflectionPad{k}d")(
            1), [x(*_shape[1:])]),
    })


@pytest.mark.parametrize("name", LAYERS)
def test_layer(name):
    ctor, arrays = LAYERS[name]
    tm, gm = ctor(torch), ctor(gg)
    gm.load_state_dict(_state_from(tm))
    expected, got = _run(torch, tm, arrays), _run(gg, gm, arrays)
    assert_same(norm(expected), norm(got), tol={"float32": (1e-5, 1e-6),
                                                "float64": (1e-10, 1e-12)})


INIT = {
    "ConvTranspose1d": lambda t: t.nn.ConvTranspose1d(3, 4, 3),
    "ConvTranspose2d": lambda t: t.nn.ConvTranspose2d(4, 6, (3, 2), groups=2),
    "ConvTranspose3d": lambda t: t.nn.ConvTranspose3d(2, 3, 2, bias=False, dtype=t.float64),
}

FRACTIONAL = {
    "2d": lambda t: t.nn.FractionalMaxPool2d((2, 3), output_size=(4, 5), return_indices=True)(
        t.tensor(x(2, 3, 7, 9))),
    "2d_ratio": lambda t: t.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.7))(
        t.tensor(x(3, 7, 9, dtype="float64"))),
    "2d_functional": lambda t: t.nn.functional.fractional_max_pool2d(
        t.tensor(x(1, 2, 9, 9)), 3, output_size=5, return_indices=True),
    "3d": lambda t: t.nn.FractionalMaxPool3d((2, 3, 2), output_ratio=0.6, return_indices=True)(
        t.tensor(x(2, 2, 7, 9, 5))),
    "3d_unbatched": lambda t: t.nn.functional.fractional_max_pool3d(
        t.tensor(x(2, 5, 6, 5)), 2, output_size=(3, 4, 2)),
}


@same_stream
@pytest.mark.parametrize("name", FRACTIONAL)
def test_fractional_max_pool_draws_torchs_windows(name):
    """Without _random_samples the windows come from torch.rand: the same after manual_seed
    (values and indices; the stream after the draw too). Gradients: the opinfo rows."""
    def program(t):
        t.manual_seed(0)
        out = FRACTIONAL[name](t)
        return out, t.rand(2)
    same(program)


def test_uint8_antialias_refuses_clearly():
    with pytest.raises(NotImplementedError, match="uint8 bilinear"):
        gg.nn.functional.interpolate(gg.ones(1, 1, 4, 4, dtype=gg.uint8), size=3,
                                     mode="bilinear", antialias=True)


@same_stream
@pytest.mark.parametrize("name", INIT)
def test_default_init_bit_for_bit(name):
    def program(t):
        t.manual_seed(0)
        return dict(INIT[name](t).state_dict())
    same(program)


def _conv_t_output_size(t, size):
    m = t.nn.ConvTranspose2d(2, 2, 3, stride=2, padding=1)
    return m(t.ones(1, 2, 3, 3), output_size=size).shape


def _unpool(t, k, output_size=None, **kw):
    """MaxUnpoolkd(2) of MaxPoolkd(2, return_indices=True): values, gradient, repr."""
    size = (2, 3) + (4,) * k
    x_ = t.tensor(x(*size), requires_grad=True)
    pool = getattr(t.nn, f"MaxPool{k}d")(2, return_indices=True)
    unpool = getattr(t.nn, f"MaxUnpool{k}d")(2, **kw)
    out = unpool(*pool(x_), output_size=output_size)
    out.backward(t.tensor(x(*out.shape, seed=1)))
    return out, type(out.grad_fn).__name__, x_.grad, repr(unpool)


def _pool_err(t, name, *args, **kw):
    return err(getattr(t.nn.functional, name), *args, **kw)


def _interp(t, shape, **kw):
    return err(t.nn.functional.interpolate, t.tensor(x(*shape)), **kw)


def _grid(t, input_shape, grid_shape, **kw):
    return err(t.nn.functional.grid_sample, t.ones(*input_shape), t.zeros(*grid_shape),
               **dict({"align_corners": False}, **kw))


def _warned(fn, *args, **kw):
    with pytest.warns(UserWarning) as caught:
        out = fn(*args, **kw)
    return out, [str(w.message) for w in caught]


def _deprecated(t, name, **kw):
    with pytest.warns(UserWarning) as caught:
        out = getattr(t.nn.functional, name)(t.tensor(x(1, 2, 3, 4)), **kw)
    return out, [str(w.message) for w in caught]


# name -> program(t): the same result, or the same error (type and message)
CHECKS = {
    "conv_t_output_size": lambda t: _conv_t_output_size(t, [6, 6]),
    "conv_t_output_size_full": lambda t: err(_conv_t_output_size, t, [1, 2, 5, 6]),
    "conv_t_output_size_range": lambda t: err(_conv_t_output_size, t, [9, 9]),
    "conv_t_output_size_len": lambda t: err(_conv_t_output_size, t, [9]),
    "conv_t_padding_mode": lambda t: err(t.nn.ConvTranspose2d, 2, 2, 3, padding_mode="reflect"),
    "conv_t_channels": lambda t: err(t.nn.functional.conv_transpose2d, t.ones(1, 3, 5, 5),
                                     t.ones(2, 3, 3, 3)),
    "conv_t_output_padding": lambda t: err(t.nn.functional.conv_transpose2d, t.ones(1, 3, 5, 5),
                                           t.ones(3, 2, 3, 3), stride=2, output_padding=2),
    "conv_t_output_padding_3d": lambda t: err(t.conv_transpose3d, t.ones(1, 3, 2, 2, 2),
                                              t.ones(3, 2, 1, 1, 1), output_padding=1),
    "conv_t_groups": lambda t: err(t.nn.functional.conv_transpose2d, t.ones(1, 3, 5, 5),
                                   t.ones(3, 2, 3, 3), groups=2),
    "conv_t_bias": lambda t: err(t.nn.functional.conv_transpose2d, t.ones(1, 3, 5, 5),
                                 t.ones(3, 2, 3, 3), t.ones(3)),
    "conv_t_too_small": lambda t: err(t.nn.functional.conv_transpose2d, t.ones(1, 3, 5, 5),
                                      t.ones(3, 2, 3, 3), padding=4),
    "conv_t_dims": lambda t: err(t.nn.functional.conv_transpose2d, t.ones(5, 5),
                                 t.ones(3, 2, 3, 3)),
    "unfold_dims": lambda t: err(t.nn.functional.unfold, t.ones(5, 5), 2),
    "unfold_blocks": lambda t: err(t.nn.functional.unfold, t.ones(1, 2, 5, 5), 6),
    "unfold_stride": lambda t: err(t.nn.functional.unfold, t.ones(1, 2, 5, 5), 2, stride=0),
    "unfold_padding": lambda t: err(t.nn.functional.unfold, t.ones(1, 2, 5, 5), 2, padding=-1),
    "unfold_kernel_len": lambda t: err(t.nn.functional.unfold, t.ones(1, 2, 5, 5), (2, 2, 2)),
    "unfold_kernel_zero": lambda t: err(t.nn.functional.unfold, t.ones(1, 2, 5, 5), 0),
    "unfold_dilation": lambda t: err(t.nn.functional.unfold, t.ones(1, 2, 5, 5), 2, dilation=0),
    "fold_divisible": lambda t: err(t.nn.functional.fold, t.ones(2, 13, 16), (5, 5), 2),
    "fold_blocks": lambda t: err(t.nn.functional.fold, t.ones(2, 12, 15), (5, 5), 2),
    "fold_dims": lambda t: err(t.nn.functional.fold, t.ones(2, 12, 16, 1), (5, 5), 2),
    "pixel_shuffle_dims": lambda t: err(t.nn.functional.pixel_shuffle, t.ones(4, 4), 2),
    "pixel_shuffle_channels": lambda t: err(t.pixel_shuffle, t.ones(2, 4, 3, 4), 3),
    "pixel_shuffle_factor": lambda t: err(t.pixel_shuffle, t.ones(2, 4, 3, 4), 0),
    "pixel_unshuffle_width": lambda t: err(t.pixel_unshuffle, t.ones(2, 4, 3, 4), 3),
    "pixel_unshuffle_height": lambda t: err(t.pixel_unshuffle, t.ones(2, 4, 3, 6), 2),
    "pixel_unshuffle_factor": lambda t: err(t.pixel_unshuffle, t.ones(2, 4, 3, 4), 0),
    "pixel_unshuffle_dims": lambda t: err(t.pixel_unshuffle, t.ones(4, 4), 2),
    "channel_shuffle_groups": lambda t: err(t.channel_shuffle, t.ones(2, 4, 3), 3),
    "channel_shuffle_zero": lambda t: err(t.nn.functional.channel_shuffle, t.ones(2, 4, 3), 0),
    "channel_shuffle_dims": lambda t: err(t.channel_shuffle, t.ones(4, 3), 2),
    "circular_pad_dims": lambda t: err(t.nn.CircularPad2d(1), t.ones(3, 3)),
    "reflection_pad_dims": lambda t: err(t.nn.ReflectionPad2d(1), t.ones(3)),
    "reflection_pad_too_big": lambda t: err(t.nn.ReflectionPad1d(3), t.ones(2, 3)),
    "unpool1d": lambda t: _unpool(t, 1),
    "unpool2d": lambda t: _unpool(t, 2, stride=2),
    "unpool3d": lambda t: _unpool(t, 3),
    "unpool2d_output_size": lambda t: _unpool(t, 2, output_size=(5, 5)),
    "unpool2d_output_size_full": lambda t: _unpool(t, 2, output_size=(2, 3, 5, 5)),
    "unpool2d_output_size_bad": lambda t: err(_unpool, t, 2, output_size=(9, 9)),
    "unpool2d_output_size_len": lambda t: err(_unpool, t, 2, output_size=(9,)),
    "unpool_bad_index": lambda t: err(t.nn.functional.max_unpool2d, t.ones(1, 1, 2, 2),
                                      t.tensor([[[[0, 1], [2, 40]]]]), 2),
    "unpool_index_dtype": lambda t: err(t.nn.functional.max_unpool2d, t.ones(1, 1, 2, 2),
                                        t.zeros(1, 1, 2, 2, dtype=t.int32), 2),
    "unpool_index_shape": lambda t: err(t.nn.functional.max_unpool2d, t.ones(1, 1, 2, 2),
                                        t.zeros(1, 1, 2, 1, dtype=t.int64), 2),
    "max_pool3d_dims": lambda t: _pool_err(t, "max_pool3d", t.ones(2, 3, 4), 2),
    "max_pool3d_kernel_len": lambda t: _pool_err(t, "max_pool3d", t.ones(1, 2, 4, 4, 4), (2, 2)),
    "max_pool3d_stride_len": lambda t: _pool_err(t, "max_pool3d", t.ones(1, 2, 4, 4, 4), 2,
                                                 (1, 2)),
    "max_pool3d_pad": lambda t: _pool_err(t, "max_pool3d", t.ones(1, 2, 4, 4, 4), 2, padding=2),
    "max_pool3d_small": lambda t: _pool_err(t, "max_pool3d", t.ones(1, 2, 1, 4, 4), 2),
    "max_pool3d_stride_zero": lambda t: _pool_err(t, "max_pool3d", t.ones(1, 2, 4, 4, 4), 2, 0),
    "avg_pool3d_divisor": lambda t: _pool_err(t, "avg_pool3d", t.ones(1, 2, 4, 4, 4), 2,
                                              divisor_override=0),
    "avg_pool3d_dims": lambda t: _pool_err(t, "avg_pool3d", t.ones(4, 4), 2),
    "adaptive_avg_pool3d_dims": lambda t: _pool_err(t, "adaptive_avg_pool3d", t.ones(4, 4), 2),
    "adaptive_max_pool2d_dims": lambda t: _pool_err(t, "adaptive_max_pool2d", t.ones(4, 4), 2),
    "adaptive_max_pool3d_empty": lambda t: _pool_err(t, "adaptive_max_pool3d",
                                                     t.ones(2, 0, 4, 4), 2),
    "adaptive_max_pool1d_dims": lambda t: _pool_err(t, "adaptive_max_pool1d", t.ones(4), 2),
    "interpolate_align_corners": lambda t: _interp(t, (1, 1, 4, 4), scale_factor=2,
                                                   align_corners=True),
    "interpolate_both": lambda t: _interp(t, (1, 1, 4, 4), size=3, scale_factor=2),
    "interpolate_neither": lambda t: _interp(t, (1, 1, 4, 4)),
    "interpolate_size_len": lambda t: _interp(t, (1, 1, 4, 4), size=(3,)),
    "interpolate_size_type": lambda t: _interp(t, (1, 1, 4, 4), size=(3, 2.5)),
    "interpolate_scale_len": lambda t: _interp(t, (1, 1, 4, 4), scale_factor=(3, 2, 1)),
    "interpolate_recompute_size": lambda t: _interp(t, (1, 1, 4, 4), size=3,
                                                    recompute_scale_factor=True),
    "interpolate_antialias_mode": lambda t: _interp(t, (1, 1, 4, 4), size=3, antialias=True),
    "interpolate_zero": lambda t: _interp(t, (1, 1, 4, 4), size=0),
    "interpolate_zero_1d": lambda t: _interp(t, (1, 1, 4), scale_factor=0.1, mode="linear"),
    "interpolate_linear_4d": lambda t: _interp(t, (1, 1, 4, 4), size=3, mode="linear"),
    "interpolate_bilinear_3d": lambda t: _interp(t, (1, 4, 4), size=3, mode="bilinear"),
    "interpolate_trilinear_4d": lambda t: _interp(t, (1, 1, 4, 4), size=3, mode="trilinear"),
    "interpolate_2d": lambda t: _interp(t, (4, 4), size=3),
    "interpolate_bad_mode": lambda t: _interp(t, (1, 1, 4, 4), size=3, mode="cubic"),
    "interpolate_lanczos": lambda t: _interp(t, (1, 1, 4, 4), size=3, mode="lanczos"),
    "grid_sample_mode": lambda t: _grid(t, (1, 1, 3, 3), (1, 2, 2, 2), mode="cubic"),
    "grid_sample_padding": lambda t: _grid(t, (1, 1, 3, 3), (1, 2, 2, 2), padding_mode="wrap"),
    "grid_sample_dims": lambda t: _grid(t, (1, 1, 3, 3), (1, 2, 2, 2, 2)),
    "grid_sample_3d_input": lambda t: _grid(t, (1, 3, 3), (1, 2, 2)),
    "grid_sample_batch": lambda t: _grid(t, (1, 1, 3, 3), (2, 2, 2, 2)),
    "grid_sample_last": lambda t: _grid(t, (1, 1, 3, 3), (1, 2, 2, 3)),
    "grid_sample_empty": lambda t: _grid(t, (1, 1, 0, 3), (1, 2, 2, 2)),
    "grid_sample_dtype": lambda t: err(t.nn.functional.grid_sample, t.ones(1, 1, 3, 3),
                                       t.zeros(1, 2, 2, 2, dtype=t.float64),
                                       align_corners=False),
    "grid_sample_bicubic_3d": lambda t: _grid(t, (1, 1, 3, 3, 3), (1, 2, 2, 2, 3),
                                              mode="bicubic"),
    "grid_sample_default_warns": lambda t: _warned(t.nn.functional.grid_sample,
                                                   t.tensor(x(1, 1, 3, 3)),
                                                   t.tensor(x(1, 2, 2, 2)) / 3),
    "affine_grid_default_warns": lambda t: _warned(t.nn.functional.affine_grid,
                                                   t.tensor(x(1, 2, 3)), (1, 1, 2, 3)),
    "affine_grid_unit_warns": lambda t: _warned(t.nn.functional.affine_grid,
                                                t.tensor(x(1, 2, 3)), (1, 1, 1, 3),
                                                align_corners=True),
    "affine_grid_int": lambda t: err(t.nn.functional.affine_grid, t.ones(1, 2, 3, dtype=t.int64),
                                     (1, 1, 2, 2), align_corners=False),
    "affine_grid_shape": lambda t: err(t.nn.functional.affine_grid, t.ones(1, 3, 3),
                                       (1, 1, 2, 2), align_corners=False),
    "affine_grid_shape_3d": lambda t: err(t.nn.functional.affine_grid, t.ones(1, 2, 3),
                                          (1, 1, 2, 2, 2), align_corners=False),
    "affine_grid_size_len": lambda t: err(t.nn.functional.affine_grid, t.ones(1, 2, 3),
                                          (1, 2, 2), align_corners=False),
    "affine_grid_zero": lambda t: err(t.nn.functional.affine_grid, t.ones(1, 2, 3),
                                      (1, 1, 0, 2), align_corners=False),
    "fractional_none": lambda t: err(t.nn.functional.fractional_max_pool2d, t.ones(1, 1, 4, 4),
                                     2),
    "fractional_too_large": lambda t: err(t.nn.functional.fractional_max_pool2d,
                                          t.ones(1, 1, 3, 3), 2, output_size=3),
    "fractional_too_large_3d": lambda t: err(t.nn.functional.fractional_max_pool3d,
                                             t.ones(1, 3, 3, 3), 4, output_size=2),
    "fractional_samples_channels": lambda t: err(
        t.nn.functional.fractional_max_pool2d, t.ones(1, 1, 3, 3), 2, output_size=2,
        _random_samples=t.rand(1, 2, 2)),
    "fractional_samples_k": lambda t: err(
        t.nn.functional.fractional_max_pool2d, t.ones(1, 1, 3, 3), 2, output_size=2,
        _random_samples=t.rand(1, 1, 3)),
    "fractional_ratio_number": lambda t: err(t.nn.functional.fractional_max_pool2d,
                                             t.ones(1, 1, 4, 4), 2, output_ratio=0.5),
    "fractional_ratio_long": lambda t: err(t.nn.functional.fractional_max_pool2d,
                                           t.ones(1, 1, 4, 4), 2, output_ratio=(0.5,) * 3),
    "fractional_module_none": lambda t: err(t.nn.FractionalMaxPool2d, 2),
    "fractional_module_both": lambda t: err(t.nn.FractionalMaxPool3d, 2, 2, 0.5),
    "fractional_module_ratio": lambda t: err(t.nn.FractionalMaxPool2d, 2, output_ratio=1.5),
    "fractional_module_kernel": lambda t: err(t.nn.FractionalMaxPool3d, 0, output_ratio=0.5),
    "fractional_repr": lambda t: repr(t.nn.FractionalMaxPool2d(2, output_size=3)),
    "upsample_deprecated": lambda t: _deprecated(t, "upsample", scale_factor=2),
    "upsample_nearest_deprecated": lambda t: _deprecated(t, "upsample_nearest", size=(3, 5)),
    "upsample_bilinear_deprecated": lambda t: _deprecated(t, "upsample_bilinear",
                                                          scale_factor=1.5),
}


@pytest.mark.parametrize("name", CHECKS)
def test_checks(name):
    same(CHECKS[name])


NAMES = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold",
         "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "max_pool3d",
         "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
         "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
         "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
         "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d",
         "lp_pool1d", "lp_pool2d", "lp_pool3d", "fractional_max_pool2d",
         "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
         "fractional_max_pool3d_with_indices", "interpolate", "upsample", "upsample_nearest",
         "upsample_bilinear", "grid_sample", "affine_grid"]


@pytest.mark.parametrize("name", NAMES)
def test_public_names_where_torch_has_them(name):
    """torch.<name> and torch.nn.functional.<name> exist here exactly where they exist there."""
    for t_ns, g_ns in ((torch, gg), (torch.nn.functional, gg.nn.functional)):
        assert hasattr(g_ns, name) == hasattr(t_ns, name), (t_ns.__name__, name)


def _ints(t, shape, dtype):
    return (t.arange(int(np.prod(shape))).reshape(shape) * 7 % 11).to(getattr(t, dtype))


# (name, program(t, input)): run on integer and bool inputs, the same result or error
INT_PROGRAMS = {
    "max_pool3d": lambda t, x: t.nn.functional.max_pool3d(x, 2, return_indices=True),
    "avg_pool3d": lambda t, x: t.nn.functional.avg_pool3d(x, 2),
    "avg_pool3d_divisor": lambda t, x: t.nn.functional.avg_pool3d(x, 2, divisor_override=3),
    "adaptive_avg_pool3d": lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, 2),
    "adaptive_avg_pool3d_1": lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, 1),
    "adaptive_avg_pool2d": lambda t, x: t.nn.functional.adaptive_avg_pool2d(x[0], 2),
    "adaptive_avg_pool1d": lambda t, x: t.nn.functional.adaptive_avg_pool1d(x[0, 0], 2),
    "adaptive_max_pool3d": lambda t, x: t.nn.functional.adaptive_max_pool3d(x, 2),
    "adaptive_max_pool2d": lambda t, x: t.nn.functional.adaptive_max_pool2d(x[0], 2),
    "adaptive_max_pool1d": lambda t, x: t.nn.functional.adaptive_max_pool1d(x[0, 0], 2),
    "unfold": lambda t, x: t.nn.functional.unfold(x[0], 2),
    "fold": lambda t, x: t.nn.functional.fold(x[0, 0, :, :4], (3, 3), 2),
    "pixel_shuffle": lambda t, x: t.pixel_shuffle(x[:, :, :, :2], 2),
    "channel_shuffle": lambda t, x: t.channel_shuffle(x, 2),
    "interpolate_nearest": lambda t, x: t.nn.functional.interpolate(x[0], scale_factor=1.5),
    "interpolate_nearest_1d": lambda t, x: t.nn.functional.interpolate(x[0, 0], size=5),
    "interpolate_nearest_3d": lambda t, x: t.nn.functional.interpolate(x, size=5,
                                                                      mode="nearest-exact"),
    "interpolate_bilinear": lambda t, x: t.nn.functional.interpolate(x[0], size=5,
                                                                    mode="bilinear"),
    "interpolate_bicubic": lambda t, x: t.nn.functional.interpolate(x[0], size=5,
                                                                   mode="bicubic"),
    "interpolate_linear": lambda t, x: t.nn.functional.interpolate(x[0, 0], size=5,
                                                                  mode="linear"),
    "interpolate_trilinear": lambda t, x: t.nn.functional.interpolate(x, size=5,
                                                                     mode="trilinear"),
    "interpolate_area": lambda t, x: t.nn.functional.interpolate(x[0], size=3, mode="area"),
    "grid_sample": lambda t, x: t.nn.functional.grid_sample(
        x[0], t.zeros(2, 2, 2, 2, dtype=x.dtype), align_corners=False),
    "grid_sample_3d": lambda t, x: t.nn.functional.grid_sample(
        x, t.zeros(1, 2, 2, 2, 3, dtype=x.dtype), align_corners=False),
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("name", [n for n in INT_PROGRAMS if n != "interpolate_bilinear"] +
                         ["interpolate_bilinear"])
def test_integer_inputs(name, dtype):
    if dtype == "uint8" and name in ("interpolate_bilinear", "interpolate_bicubic"):
        with pytest.raises(NotImplementedError, match="uint8"):
            INT_PROGRAMS[name](gg, _ints(gg, (1, 2, 4, 4, 4), dtype))
        return
    same(lambda t: err(INT_PROGRAMS[name], t, _ints(t, (1, 2, 4, 4, 4), dtype)))
