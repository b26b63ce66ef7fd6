"""Vision data sets and image transforms (MXNet's
``mxnet.gluon.data.vision``)."""

from . import transforms
from .datasets import *  # noqa: F401,F403
