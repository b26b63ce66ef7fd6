"""``mx.rnn``: data helpers for recurrent language models (MXNet 1.x).

* :func:`encode_sentences` turns lists of string tokens into lists of
  integer ids and builds the vocabulary;
* :class:`BucketSentenceIter` groups encoded sentences by length into
  *buckets* and yields batches with a ``bucket_key``, the input that
  ``mx.mod.BucketingModule`` expects; the label of each token is the next
  token.

This is MXNet's ``mx.rnn`` data side
(``apache/mxnet@1.9.1:python/mxnet/rnn/io.py``).  Its symbolic cells
(``mx.rnn.LSTMCell`` ...) are not provided: recurrent layers are in
``mx.gluon.rnn``, and symbols can use ``mx.sym.RNN``.
"""

from . import io
from .io import BucketSentenceIter, encode_sentences

__all__ = ['encode_sentences', 'BucketSentenceIter']
