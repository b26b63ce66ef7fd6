"""Gluon data: datasets, samplers and the DataLoader (MXNet's
``mxnet.gluon.data``)."""

from . import (
    batchify,
    vision,
)
from .dataloader import *  # noqa: F401,F403
from .dataset import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403
