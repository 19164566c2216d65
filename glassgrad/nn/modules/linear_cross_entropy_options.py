"""LinearCrossEntropyOptions: the configuration torch's chunked linear_cross_entropy takes.

glassgrad has torch's reference path only: where torch would take the chunked path for these
options, F.linear_cross_entropy raises NotImplementedError (ops/loss.py); where torch ignores
them (with its warning), so does glassgrad. The class validates its fields as torch's does, so
programs that build one behave alike up to that call."""
import dataclasses

from ... import dtypes

__all__ = ["LinearCrossEntropyOptions"]

_ACC_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """torch's fields and checks: allow_retain_graph, batch_chunk_size (a positive int or
    None), chunking_method ('auto', 'aspect_ratio', 'aspect_ratio:N' or None), acc_policy
    ('auto', 'accurate', 'balanced', 'compact') and acc_dtype (None or a float dtype)."""
    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None or isinstance(self.batch_chunk_size, int)
                and self.batch_chunk_size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got "
                             f"{self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise ValueError(
                f"acc_dtype must be one of {{None, torch.float16, torch.bfloat16, "
                f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                "acc_dtype=None to let the op pick automatically.")
