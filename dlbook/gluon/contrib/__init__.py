"""``gluon.contrib``: layers outside Gluon's core set (MXNet 1.x)."""

from . import nn  # noqa: F401
from . import estimator  # noqa: F401
