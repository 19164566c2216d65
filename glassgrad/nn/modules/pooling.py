"""MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d,
MaxUnpool1d/2d/3d, LPPool1d/2d/3d."""
from .. import functional as F
from .module import Module
from .utils import _pair, _single, _triple

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "MaxUnpool3d", "LPPool1d", "LPPool2d", "LPPool3d"]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices",
                     "ceil_mode"]
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, "
                "dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))


class MaxPool1d(_MaxPoolNd):
    _fn = F.max_pool1d


class MaxPool2d(_MaxPoolNd):
    _fn = F.max_pool2d


class MaxPool3d(_MaxPoolNd):
    _fn = F.max_pool3d


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    __constants__ = [*_AvgPoolNd.__constants__, "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AvgPool3d(AvgPool2d):
    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def __setstate__(self, state):
        super().__setstate__(state)
        self.__dict__.setdefault("padding", 0)
        self.__dict__.setdefault("ceil_mode", False)
        self.__dict__.setdefault("count_include_pad", True)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]
    _fn = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return type(self)._fn(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    _fn = F.adaptive_avg_pool1d


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    _fn = F.adaptive_avg_pool2d


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    _fn = F.adaptive_avg_pool3d


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]
    _fn = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return type(self)._fn(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _fn = F.adaptive_max_pool1d


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    _fn = F.adaptive_max_pool2d


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    _fn = F.adaptive_max_pool3d


class _MaxUnpoolNd(Module):
    _fn = None
    _tuple = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        to_tuple = type(self)._tuple
        self.kernel_size = to_tuple(kernel_size)
        self.stride = to_tuple(stride if stride is not None else kernel_size)
        self.padding = to_tuple(padding)

    def forward(self, input, indices, output_size=None):
        return type(self)._fn(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _fn, _tuple = F.max_unpool1d, _single


class MaxUnpool2d(_MaxUnpoolNd):
    _fn, _tuple = F.max_unpool2d, _pair


class MaxUnpool3d(_MaxUnpoolNd):
    _fn, _tuple = F.max_unpool3d, _triple


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input):
        return type(self)._fn(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)

    def extra_repr(self):
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))


class LPPool1d(_LPPoolNd):
    _fn = F.lp_pool1d


class LPPool2d(_LPPoolNd):
    _fn = F.lp_pool2d


class LPPool3d(_LPPoolNd):
    _fn = F.lp_pool3d
