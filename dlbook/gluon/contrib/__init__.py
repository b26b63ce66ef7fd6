"""``gluon.contrib``: layers outside Gluon's core set (MXNet 1.x)."""

from . import (
    estimator,
    nn,
    rnn,
)
