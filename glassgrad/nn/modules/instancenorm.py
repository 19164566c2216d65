"""InstanceNorm1d, InstanceNorm2d, InstanceNorm3d: each sample's channels normalised over
their own spatial positions (F.instance_norm); no affine parameters and no running statistics
unless asked, an unbatched input taken as a batch of one."""
import warnings

from .. import functional as F
from .batchnorm import _NormBase, _lazy_norm_class

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _no_batch_dim = 0

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)

    def _check_input_dim(self, input):
        n = self._no_batch_dim
        if input.dim() not in (n, n + 1):
            raise ValueError(f"expected {n}D or {n + 1}D input (got {input.dim()}D input)")

    def _get_no_batch_dim(self):
        return self._no_batch_dim

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # checkpoints from before 0.4.0 carry running statistics this module does not track
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            keys = [prefix + n for n in ("running_mean", "running_var")
                    if prefix + n in state_dict]
            if keys:
                klass = type(self).__name__
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {' and '.join(f'{k!r}' for k in keys)}"
                    .replace("'", '"') +
                    f" for {klass} with track_running_stats=False. If state_dict is a "
                    "checkpoint saved before 0.4.0, this may be expected because "
                    f"{klass} does not track running stats by default since 0.4.0. Please "
                    "remove these keys from state_dict. If the running stats are actually "
                    f"needed, instead set track_running_stats=True in {klass} to enable "
                    f"them. See the documentation of {klass} for details.")
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    _no_batch_dim = 4


LazyInstanceNorm1d = _lazy_norm_class(InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm_class(InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm_class(InstanceNorm3d)
