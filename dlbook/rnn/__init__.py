"""``mx.rnn``: symbolic recurrent networks and their data (MXNet 1.x).

* cells (:mod:`dlbook.rnn.rnn_cell`): ``LSTMCell``, ``GRUCell``,
  ``RNNCell``, ``FusedRNNCell``, stacks (``SequentialRNNCell``,
  ``BidirectionalCell``), modifiers (``DropoutCell``, ``ZoneoutCell``,
  ``ResidualCell``) and convolutional cells.  A cell builds one time step
  out of ordinary symbols; ``cell.unroll(T, data)`` builds ``T`` of them
  sharing the same weights;
* checkpoints (:mod:`dlbook.rnn.rnn`): ``save_rnn_checkpoint``,
  ``load_rnn_checkpoint``, ``do_rnn_checkpoint`` store the cells' weights
  one gate at a time;
* data (:mod:`dlbook.rnn.io`): :func:`encode_sentences` turns lists of
  string tokens into lists of integer ids and builds the vocabulary;
  :class:`BucketSentenceIter` groups encoded sentences by length into
  *buckets* and yields batches with a ``bucket_key``, the input that
  ``mx.mod.BucketingModule`` expects; the label of each token is the
  next token.

This is MXNet's ``mx.rnn`` (``apache/mxnet@1.9.1:python/mxnet/rnn/``).
The imperative recurrent layers are in ``mx.gluon.rnn``.
"""

from . import io, rnn, rnn_cell
from .io import BucketSentenceIter, encode_sentences
from .rnn import do_rnn_checkpoint, load_rnn_checkpoint, save_rnn_checkpoint
from .rnn_cell import (
    BaseConvRNNCell,
    BaseRNNCell,
    BidirectionalCell,
    ConvGRUCell,
    ConvLSTMCell,
    ConvRNNCell,
    DropoutCell,
    FusedRNNCell,
    GRUCell,
    LSTMCell,
    ModifierCell,
    ResidualCell,
    RNNCell,
    RNNParams,
    SequentialRNNCell,
    ZoneoutCell,
)

__all__ = (
    ['encode_sentences', 'BucketSentenceIter'] + rnn.__all__ + rnn_cell.__all__
)
