"""Gluon data: datasets, samplers and the DataLoader (MXNet's
``mxnet.gluon.data``)."""

from .dataset import *                     # noqa: F401,F403
from .sampler import *                     # noqa: F401,F403
from .dataloader import *                  # noqa: F401,F403
from . import batchify                     # noqa: F401
from . import vision                       # noqa: F401
