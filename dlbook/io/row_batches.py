"""Batches of rows for MXNet's file iterators (``CSVIter``,
``LibSVMIter``): how a short last batch is completed.

MXNet's C++ iterators fill a buffer of ``batch_size`` rows.  With
``round_batch=True`` a short last batch is completed with rows from the
start of the data, and the next epoch begins *after* those rows (so no
row is seen twice in a row); ``pad`` says how many rows were borrowed.
With ``round_batch=False`` the buffer keeps the previous batch's rows
where the new batch ends early, and every epoch starts at row 0.
"""

__all__ = ['RowBatches']

import numpy

from .io import DataBatch, DataIter


class RowBatches(DataIter):
    """A :class:`DataIter` over ``self._rows`` (indices of the examples
    this iterator reads), ``batch_size`` at a time; subclasses turn
    ``self._batch`` (the indices of the current batch) into arrays in
    :meth:`getdata` and :meth:`getlabel`."""

    def __init__(self, batch_size, rows, round_batch=True):
        super().__init__(batch_size)
        self._rows = numpy.asarray(rows)
        self._round = bool(round_batch)
        self._skip = 0
        self._batch = None
        self.reset()

    def reset(self):
        self._cursor = self._skip
        self._skip = 0

    def iter_next(self):
        n = len(self._rows)
        if self._cursor >= n:
            return False
        take = self._rows[self._cursor : self._cursor + self.batch_size]
        self._pad = self.batch_size - len(take)
        if self._pad:
            if self._round:
                filler = numpy.resize(self._rows, self._pad)
                self._skip = self._pad % n
            elif self._batch is not None:
                filler = self._batch[len(take) :]
            else:  # a first batch longer than the data: repeat it
                filler = numpy.resize(self._rows, self._pad)
            take = numpy.concatenate([take, filler])
        self._cursor += self.batch_size
        self._batch = take
        return True

    def next(self):
        if not self.iter_next():
            raise StopIteration
        return DataBatch(
            data=self.getdata(),
            label=self.getlabel(),
            pad=self._pad,
            index=None,
        )

    def getpad(self):
        return self._pad
