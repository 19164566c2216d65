"""Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]
    _fn = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    _fn = F.dropout


class Dropout1d(_DropoutNd):
    _fn = F.dropout1d


class Dropout2d(_DropoutNd):
    _fn = F.dropout2d


class Dropout3d(_DropoutNd):
    _fn = F.dropout3d


class AlphaDropout(_DropoutNd):
    def forward(self, input):       # as torch's: inplace is not passed on
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
