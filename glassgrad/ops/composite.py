"""Functions composed of other ops (torch's CompositeImplicit ones and their kin)."""
from . import public, publish  # noqa: F401

publish(globals())
