"""``gluon.contrib.rnn``: extra recurrent cells (MXNet 1.x's
``mxnet.gluon.contrib.rnn``); only :class:`VariationalDropoutCell` so far."""

from .rnn_cell import *  # noqa: F401,F403
from .rnn_cell import __all__
