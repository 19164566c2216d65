"""torch.autograd.anomaly_mode: detect_anomaly and set_detect_anomaly (they live in the core)."""
from .._autograd.anomaly import detect_anomaly, set_detect_anomaly  # noqa: F401

__all__ = ["detect_anomaly", "set_detect_anomaly"]
