"""Sentences to integer ids, and a bucketing iterator for language models.

Follows ``apache/mxnet@1.9.1:python/mxnet/rnn/io.py``.  Shuffling draws
from dlbook's CPU random generator (:func:`dlbook.random.numpy_rng`), as
``mx.io.NDArrayIter`` does, so ``mx.random.seed`` makes epochs
reproducible.
"""

import bisect

import numpy

from .. import ndarray as nd
from .. import random as _random
from ..base import UsageError
from ..io import DataBatch, DataDesc, DataIter

__all__ = ['encode_sentences', 'BucketSentenceIter']


def encode_sentences(
    sentences,
    vocab=None,
    invalid_label=-1,
    invalid_key='\n',
    start_label=0,
    unknown_token=None,
):
    """Encode sentences as lists of integer ids, building a vocabulary.

    Without ``vocab``, a new vocabulary ``{invalid_key: invalid_label}``
    is started and every new token gets the next free id, counting from
    ``start_label`` and skipping ``invalid_label``.

    Parameters
    ----------
    sentences : list of list of str
        The sentences, each a list of string tokens.
    vocab : dict of str to int, optional
        An existing vocabulary.  It is extended in place; a token missing
        from it is an error unless ``unknown_token`` is given.
    invalid_label : int, default -1
        The id of the invalid token (end of sentence, padding).
    invalid_key : str, default '\\n'
        The token of the invalid id in a new vocabulary.
    start_label : int, default 0
        The lowest id given to new tokens.
    unknown_token : str, optional
        A token standing for every token missing from the vocabulary.

    Returns
    -------
    result : list of list of int
        The encoded sentences.
    vocab : dict of str to int
        The vocabulary.

    Notes
    -----
    As in MXNet, ``unknown_token`` is (re)assigned the next free id each
    time a missing token is met (the missing token itself is not added),
    so missing tokens get increasing ids and ``vocab[unknown_token]`` ends
    as the last of them; with ``vocab=None`` every token is "missing".

    Examples
    --------
    >>> encode_sentences([['the', 'cat'], ['the', 'dog']], start_label=1)
    ([[1, 2], [1, 3]], {'\\n': -1, 'the': 1, 'cat': 2, 'dog': 3})
    """
    idx = start_label
    if vocab is None:
        vocab = {invalid_key: invalid_label}
        new_vocab = True
    else:
        new_vocab = False
    res = []
    for sent in sentences:
        coded = []
        for word in sent:
            if word not in vocab:
                if not (new_vocab or unknown_token):
                    raise UsageError(
                        f'Unknown token {word}: it is not in the given '
                        f'vocab; pass unknown_token=... to map unknown '
                        f'words to one id, or vocab=None to build one.'
                    )
                if idx == invalid_label:
                    idx += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = idx
                idx += 1
            coded.append(vocab[word])
        res.append(coded)
    return res, vocab


class BucketSentenceIter(DataIter):
    """A bucketing iterator for language models.

    Each sentence goes to the smallest bucket at least as long as it and
    is padded with ``invalid_label`` to the bucket's length; sentences
    longer than the largest bucket are discarded (the count is printed).
    A batch holds ``batch_size`` sentences of one bucket, and its label is
    the data shifted left by one step, ending with ``invalid_label``:

    ================  ===================
    data  (a bucket)  ``[w0, w1, w2, w3]``
    label             ``[w1, w2, w3, -1]``
    ================  ===================

    Every epoch (:meth:`reset`) shuffles the order of the batches and the
    sentences within each bucket; sentences left over after the last full
    batch of a bucket are skipped that epoch.

    Parameters
    ----------
    sentences : list of list of int
        Encoded sentences (see :func:`encode_sentences`).
    batch_size : int
        Sentences per batch.
    buckets : list of int, optional
        Bucket lengths.  By default, every sentence length shared by at
        least ``batch_size`` sentences.
    invalid_label : int, default -1
        The padding id, also the label after the last token.
    data_name : str, default 'data'
    label_name : str, default 'softmax_label'
    dtype : str, default 'float32'
        The dtype of data and labels.
    layout : {'NT', 'TN'}, default 'NT'
        ``'NT'`` gives ``(batch_size, length)`` batches, ``'TN'`` gives
        ``(length, batch_size)``.

    Attributes
    ----------
    buckets : list of int
        The sorted bucket lengths.
    default_bucket_key : int
        The largest bucket, to bind ``BucketingModule`` with.
    provide_data, provide_label : list of DataDesc
        Shapes of the default (largest) bucket; each batch has its own in
        ``batch.provide_data`` / ``batch.provide_label``.

    Examples
    --------
    >>> sents, vocab = mx.rnn.encode_sentences(tokens, invalid_label=0,
    ...                                        start_label=1)
    >>> it = mx.rnn.BucketSentenceIter(sents, batch_size=32,
    ...                                buckets=[10, 20, 30],
    ...                                invalid_label=0)
    >>> batch = next(it)
    >>> batch.bucket_key, batch.data[0].shape
    (20, (32, 20))
    """

    def __init__(
        self,
        sentences,
        batch_size,
        buckets=None,
        invalid_label=-1,
        data_name='data',
        label_name='softmax_label',
        dtype='float32',
        layout='NT',
    ):
        super().__init__(batch_size)
        if not buckets:
            counts = numpy.bincount([len(s) for s in sentences])
            buckets = [i for i, j in enumerate(counts) if j >= batch_size]
        buckets = sorted(buckets)
        if not buckets:
            raise ValueError(
                f'no bucket: no sentence length is shared by '
                f'batch_size={batch_size} sentences; pass '
                f'buckets=[...]'
            )

        ndiscard = 0
        data = [[] for _ in buckets]
        for sent in sentences:
            buck = bisect.bisect_left(buckets, len(sent))
            if buck == len(buckets):
                ndiscard += 1
                continue
            buff = numpy.full((buckets[buck],), invalid_label, dtype=dtype)
            buff[: len(sent)] = sent
            data[buck].append(buff)
        self.data = [
            numpy.asarray(rows, dtype=dtype).reshape(len(rows), length)
            for rows, length in zip(data, buckets)
        ]

        print(
            f'WARNING: discarded {ndiscard} sentences longer than the '
            f'largest bucket.'
        )

        self.batch_size = batch_size
        self.buckets = buckets
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata = []
        self.ndlabel = []
        self.major_axis = layout.find('N')
        self.layout = layout
        self.default_bucket_key = max(buckets)

        if self.major_axis == 0:
            shape = (batch_size, self.default_bucket_key)
        elif self.major_axis == 1:
            shape = (self.default_bucket_key, batch_size)
        else:
            raise ValueError(
                f'Invalid layout {layout}: Must by NT (batch '
                f'major) or TN (time major)'
            )
        self.provide_data = [
            DataDesc(name=data_name, shape=shape, layout=layout)
        ]
        self.provide_label = [
            DataDesc(name=label_name, shape=shape, layout=layout)
        ]

        # One (bucket, first row) pair per full batch.
        self.idx = []
        for i, buck in enumerate(self.data):
            self.idx.extend(
                [
                    (i, j)
                    for j in range(0, len(buck) - batch_size + 1, batch_size)
                ]
            )
        self.curr_idx = 0

        self.reset()

    def reset(self):
        """Start a new epoch: shuffle the batches and each bucket, and
        rebuild the labels."""
        self.curr_idx = 0
        rng = _random.numpy_rng()
        rng.shuffle(self.idx)
        for buck in self.data:
            rng.shuffle(buck)

        self.nddata = []
        self.ndlabel = []
        for buck in self.data:
            label = numpy.empty_like(buck)
            if buck.shape[1]:
                label[:, :-1] = buck[:, 1:]
                label[:, -1] = self.invalid_label
            self.nddata.append(nd.array(buck, dtype=self.dtype))
            self.ndlabel.append(nd.array(label, dtype=self.dtype))

    def next(self):
        """The next :class:`~dlbook.io.DataBatch`, with ``bucket_key``."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1

        data = self.nddata[i][j : j + self.batch_size]
        label = self.ndlabel[i][j : j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T

        return DataBatch(
            [data],
            [label],
            pad=0,
            bucket_key=self.buckets[i],
            provide_data=[
                DataDesc(
                    name=self.data_name, shape=data.shape, layout=self.layout
                )
            ],
            provide_label=[
                DataDesc(
                    name=self.label_name, shape=label.shape, layout=self.layout
                )
            ],
        )
