"""Recurrent cells: one time step of an RNN, an LSTM or a GRU (MXNet's
``gluon.rnn.rnn_cell``).

A cell maps ``(x_t, states_{t-1})`` to ``(output_t, states_t)``: calling it
once is one time step, and ``cell.unroll(T, X)`` calls it ``T`` times,
feeding each step's states to the next.  The fused layers of
``rnn_layer.py`` (``rnn.LSTM``...) compute the same steps over whole
sequences in one ``RNN`` operator.

The chapters on RNNs, GRUs and LSTMs (d2l ch. 8 and 9) build these cells
from scratch first, then use them through ``rnn.RNN/GRU/LSTM``.

This module gathers the cells of ``base_cell`` (RecurrentCell,
HybridRecurrentCell: ``begin_state`` and ``unroll``), ``basic_cells``
(RNNCell, LSTMCell, GRUCell, DropoutCell), ``container_cells``
(SequentialRNNCell, HybridSequentialRNNCell, BidirectionalCell) and
``modifier_cells`` (ModifierCell, ZoneoutCell, ResidualCell); the step
functions are in ``steps``.
"""

from .base_cell import HybridRecurrentCell, RecurrentCell
from .basic_cells import DropoutCell, GRUCell, LSTMCell, RNNCell
from .container_cells import (
    BidirectionalCell,
    HybridSequentialRNNCell,
    SequentialRNNCell,
)
from .modifier_cells import ModifierCell, ResidualCell, ZoneoutCell
from .steps import gru_step, lstm_step, rnn_step  # noqa: F401

__all__ = [
    'RecurrentCell',
    'HybridRecurrentCell',
    'RNNCell',
    'LSTMCell',
    'GRUCell',
    'SequentialRNNCell',
    'HybridSequentialRNNCell',
    'DropoutCell',
    'ModifierCell',
    'ZoneoutCell',
    'ResidualCell',
    'BidirectionalCell',
]
