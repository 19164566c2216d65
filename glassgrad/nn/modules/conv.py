"""Conv1d, Conv2d, Conv3d (groups, dilation, padding numbers or 'same'/'valid', every
padding_mode through F.pad) and ConvTranspose1d/2d/3d (zeros padding, output_size in
forward)."""
import math

from ... import _creation
from .. import functional as F, init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _pair, _reverse_repeat_tuple, _single, _triple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
                     "in_channels", "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        # the sets are built as torch builds them, so they print in torch's order
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.transposed, self.output_padding = dilation, transposed, output_padding
        self.groups, self.padding_mode = groups, padding_mode
        self._reversed_padding_repeated_twice = self._pad_for_mode(padding, kernel_size,
                                                                   dilation)
        shape = ((in_channels, out_channels // groups) if transposed else
                 (out_channels, in_channels // groups))
        self.weight = Parameter(_creation.empty((*shape, *kernel_size), device=device,
                                                dtype=dtype))
        if bias:
            self.bias = Parameter(_creation.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    @staticmethod
    def _pad_for_mode(padding, kernel_size, dilation):
        """F.pad's list for a padding_mode other than zeros: last dim first, (left, right)."""
        if not isinstance(padding, str):
            return list(_reverse_repeat_tuple(padding, 2))
        pads = [0, 0] * len(kernel_size)
        if padding == "same":
            for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                total = d * (k - 1)
                pads[2 * i], pads[2 * i + 1] = total // 2, total - total // 2
        return pads

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"

    _conv = None
    _tuple = None

    def _conv_forward(self, input, weight, bias):
        conv = type(self)._conv
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, type(self)._tuple(0), self.dilation,
                        self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


def _conv_class(name, k, conv, to_tuple):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        _ConvNd.__init__(self, in_channels, out_channels, to_tuple(kernel_size),
                         to_tuple(stride), padding if isinstance(padding, str) else
                         to_tuple(padding), to_tuple(dilation), False, to_tuple(0), groups, bias,
                         padding_mode, device=device, dtype=dtype)
    return type(name, (_ConvNd,), {"__init__": __init__, "_conv": staticmethod(conv),
                                   "_tuple": staticmethod(to_tuple), "__module__": __name__})


Conv1d = _conv_class("Conv1d", 1, F.conv1d, _single)
Conv2d = _conv_class("Conv2d", 2, F.conv2d, _pair)
Conv3d = _conv_class("Conv3d", 3, F.conv3d, _triple)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f'{self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         transposed, output_padding, groups, bias, padding_mode, device=device,
                         dtype=dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size,
                        num_spatial_dims, dilation=None):
        """output_padding, or what makes the output ``output_size`` (torch's checks)."""
        if output_size is None:
            return _single(self.output_padding)
        batched = input.dim() == num_spatial_dims + 2
        lead = 2 if batched else 1
        if len(output_size) == lead + num_spatial_dims:
            output_size = output_size[lead:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, "
                             f"output_size must have {num_spatial_dims} or "
                             f"{lead + num_spatial_dims} elements (got {len(output_size)})")
        dilation = dilation or [1] * num_spatial_dims
        min_sizes = [(input.size(d + lead) - 1) * stride[d] - 2 * padding[d] +
                     dilation[d] * (kernel_size[d] - 1) + 1 for d in range(num_spatial_dims)]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, stride)]
        for size, lo, hi in zip(output_size, min_sizes, max_sizes):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {min_sizes} to {max_sizes} (for an input of "
                                 f"{input.size()[2:]})")
        return [size - lo for size, lo in zip(output_size, min_sizes)]

    def forward(self, input, output_size=None):
        k = len(self.kernel_size)
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for ConvTranspose{k}d")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, k, self.dilation)
        return type(self)._conv(input, self.weight, self.bias, self.stride, self.padding,
                                output_padding, self.groups, self.dilation)


def _conv_transpose_class(name, conv, to_tuple):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        _ConvTransposeNd.__init__(self, in_channels, out_channels, to_tuple(kernel_size),
                                  to_tuple(stride), to_tuple(padding), to_tuple(dilation), True,
                                  to_tuple(output_padding), groups, bias, padding_mode,
                                  device=device, dtype=dtype)
    return type(name, (_ConvTransposeNd,), {"__init__": __init__, "_conv": staticmethod(conv),
                                            "__module__": __name__})


ConvTranspose1d = _conv_transpose_class("ConvTranspose1d", F.conv_transpose1d, _single)
ConvTranspose2d = _conv_transpose_class("ConvTranspose2d", F.conv_transpose2d, _pair)
ConvTranspose3d = _conv_transpose_class("ConvTranspose3d", F.conv_transpose3d, _triple)


class _LazyConvXdMixin(LazyModuleMixin):
    """A convolution whose in_channels is its first input's channel count."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            self.weight.materialize(
                (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
                if self.transposed else
                (self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        unbatched = self._spatial_dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) "
                               f"input to {self.__class__.__name__}, but got input of size: "
                               f"{input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def _get_num_spatial_dims(self):
        return self._spatial_dims


def _uninitialized(self, out_channels, bias, device, dtype):
    self.weight = UninitializedParameter(device=device, dtype=dtype)
    self.out_channels = out_channels
    if bias:
        self.bias = UninitializedParameter(device=device, dtype=dtype)


def _lazy_conv_class(conv, k):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        _LazyConvXdMixin.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups,
                                  False, padding_mode, device=device, dtype=dtype)
        _uninitialized(self, out_channels, bias, device, dtype)
    return type("Lazy" + conv.__name__, (_LazyConvXdMixin, conv), {
        "__init__": __init__, "cls_to_become": conv, "_spatial_dims": k,
        "__module__": __name__})


def _lazy_conv_transpose_class(conv, k):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        _LazyConvXdMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding,
                                  groups, False, dilation, padding_mode, device=device,
                                  dtype=dtype)
        _uninitialized(self, out_channels, bias, device, dtype)
    return type("Lazy" + conv.__name__, (_LazyConvXdMixin, conv), {
        "__init__": __init__, "cls_to_become": conv, "_spatial_dims": k,
        "__module__": __name__})


LazyConv1d = _lazy_conv_class(Conv1d, 1)
LazyConv2d = _lazy_conv_class(Conv2d, 2)
LazyConv3d = _lazy_conv_class(Conv3d, 3)
LazyConvTranspose1d = _lazy_conv_transpose_class(ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv_transpose_class(ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv_transpose_class(ConvTranspose3d, 3)
