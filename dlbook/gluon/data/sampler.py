"""Samplers: which sample indices to read, and in which order.

A :class:`~dlbook.gluon.data.DataLoader` asks a *batch sampler* for lists
of indices; the batch sampler groups the indices of a plain sampler
(sequential or shuffled).  Shuffling draws from
``dlbook.random.numpy_rng()``, so ``mx.random.seed(s)`` makes the order
reproducible.
"""

__all__ = [
    'Sampler',
    'SequentialSampler',
    'RandomSampler',
    'BatchSampler',
    'IntervalSampler',
    'FilterSampler',
]

from ... import random as _random


class Sampler:
    """Base class: an iterable of sample indices with a length."""

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Indices ``start, start + 1, ..., start + length - 1`` in order.

    Parameters
    ----------
    length : int
        Number of indices.
    start : int, default 0
        The first index.
    """

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A fresh random permutation of ``0 .. length - 1`` each epoch.

    Parameters
    ----------
    length : int
        Number of indices.
    """

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        order = _random.numpy_rng().permutation(self._length)
        return iter(order.tolist())

    def __len__(self):
        return self._length


class FilterSampler(Sampler):
    """Indices of the samples of ``dataset`` for which ``fn`` is true.

    Parameters
    ----------
    fn : callable
        Takes a sample, returns a bool.
    dataset : Dataset
        The samples to test (all are read once, here).
    """

    def __init__(self, fn, dataset):
        self._indices = [i for i in range(len(dataset)) if fn(dataset[i])]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


class IntervalSampler(Sampler):
    """Every ``interval``-th index: 0, k, 2k, ..., then 1, k + 1, ...

    Parameters
    ----------
    length : int
        Number of indices.
    interval : int
        The step.
    rollover : bool, default True
        After reaching the end, start again from 1, 2, ... (so every index
        appears once); if False, stop after the first pass.
    """

    def __init__(self, length, interval, rollover=True):
        if interval >= length:
            raise ValueError(
                f'Interval {interval} must be smaller than length {length}'
            )
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for offset in range(self._interval if self._rollover else 1):
            yield from range(offset, self._length, self._interval)

    def __len__(self):
        if self._rollover:
            return self._length
        return len(range(0, self._length, self._interval))


_LAST_BATCH = ('keep', 'discard', 'rollover')


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` into lists of ``batch_size``.

    Parameters
    ----------
    sampler : Sampler
        Where the indices come from.
    batch_size : int
        Indices per batch.
    last_batch : {'keep', 'discard', 'rollover'}, default 'keep'
        What to do with a last batch smaller than ``batch_size``:
        ``'keep'`` yields it, ``'discard'`` drops it, ``'rollover'`` keeps
        its indices and puts them first in the next epoch.

    Examples
    --------
    >>> sampler = gluon.data.SequentialSampler(10)
    >>> list(gluon.data.BatchSampler(sampler, 3, 'keep'))
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    >>> batch_sampler = gluon.data.BatchSampler(sampler, 3, 'rollover')
    >>> list(batch_sampler)
    [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    >>> list(batch_sampler)
    [[9, 0, 1], [2, 3, 4], [5, 6, 7]]
    """

    def __init__(self, sampler, batch_size, last_batch='keep'):
        if last_batch not in _LAST_BATCH:
            raise ValueError(
                "last_batch must be one of 'keep', 'discard', "
                f"or 'rollover', but got {last_batch}"
            )
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == 'keep':
                yield batch
            elif self._last_batch == 'rollover':
                self._prev = batch

    def __len__(self):
        if self._last_batch == 'keep':
            return (
                len(self._sampler) + self._batch_size - 1
            ) // self._batch_size
        if self._last_batch == 'discard':
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size
