"""torch.backends.mkldnn: glassgrad has no oneDNN (is_available() is False); flags kept."""
import sys

from ._flags import flag_module, flags_context


def is_available():
    return False


def is_acl_available():
    return False


def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    return flags_context(sys.modules[__name__], enabled=enabled, deterministic=deterministic)


flag_module(__name__, enabled=(True, "set_enabled_mkldnn"),
            deterministic=(False, "set_deterministic_mkldnn"))
