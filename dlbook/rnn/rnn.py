"""Checkpoints of models built from :mod:`dlbook.rnn.rnn_cell` cells.

A checkpoint stores each cell's weights *unpacked*, one array per gate
(``lstm_i2h_f_weight``...), whatever the cell: a model trained with a
:class:`~dlbook.rnn.rnn_cell.FusedRNNCell` can be reloaded into its
unfused stack of cells and the other way round.  Saving unpacks with the
cells given, loading packs with the cells given.

This is ``apache/mxnet@1.9.1:python/mxnet/rnn/rnn.py`` (without the
deprecated ``rnn_unroll``).
"""

from ..model import load_checkpoint, save_checkpoint
from .rnn_cell import BaseRNNCell

__all__ = ['save_rnn_checkpoint', 'load_rnn_checkpoint', 'do_rnn_checkpoint']


def _as_list(cells):
    return [cells] if isinstance(cells, BaseRNNCell) else cells


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """Save ``prefix-symbol.json`` and ``prefix-<epoch>.params`` (as
    ``mx.model.save_checkpoint``), the cells' weights unpacked first.

    Parameters
    ----------
    cells : BaseRNNCell or list of BaseRNNCell
        The cells used by ``symbol``.
    prefix : str
    epoch : int
    symbol : Symbol
    arg_params, aux_params : dict of str to NDArray
    """
    for cell in _as_list(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """Load a checkpoint (as ``mx.model.load_checkpoint``) and pack the
    cells' weights.

    Returns
    -------
    symbol : Symbol
    arg_params, aux_params : dict of str to NDArray
    """
    sym, arg, aux = load_checkpoint(prefix, epoch)
    for cell in _as_list(cells):
        arg = cell.pack_weights(arg)
    return sym, arg, aux


def do_rnn_checkpoint(cells, prefix, period=1):
    """An epoch-end callback for ``Module.fit`` that calls
    :func:`save_rnn_checkpoint` every ``period`` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)

    return _callback
