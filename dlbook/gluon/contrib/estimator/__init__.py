"""``gluon.contrib.estimator``: a training loop made of event handlers
(MXNet 1.x).

``Estimator(net, loss, ...).fit(train_data, val_data, epochs=...)`` runs
the usual loop (forward under ``autograd.record()``, backward,
``trainer.step``) and calls *event handlers* at six points: train begin,
epoch begin, batch begin, batch end, epoch end, train end.  Metrics,
validation, logging, checkpoints, early stopping and even the optimizer
step are handlers, sorted by ``priority``.  Inside a Jupyter kernel a
live ``TrainingMonitor`` handler is added too.
"""

from . import batch_processor, estimator, event_handler
from .batch_processor import *  # noqa: F401,F403
from .estimator import *  # noqa: F401,F403
from .event_handler import *  # noqa: F401,F403
