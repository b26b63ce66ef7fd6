"""``gluon.contrib.nn``: containers that join branches, and pixel
shuffling (MXNet 1.x's ``mxnet.gluon.contrib.nn``)."""

from .basic_layers import *  # noqa: F401,F403
from .basic_layers import __all__
