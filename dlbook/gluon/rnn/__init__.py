"""Recurrent layers and cells (``gluon.rnn``).

``rnn.RNN``, ``rnn.LSTM`` and ``rnn.GRU`` run whole sequences, stacked and
optionally bidirectional; the cells (``RNNCell``, ``LSTMCell``, ``GRUCell``
and the wrappers) compute one time step and can be unrolled.
"""

from .rnn_cell import *  # noqa: F401,F403
from .rnn_layer import *  # noqa: F401,F403
