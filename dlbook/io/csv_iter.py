"""``mx.io.CSVIter``: batches from comma-separated text files.

Each line is one example: its numbers are reshaped to ``data_shape``
(``1,2,3,4,5,6`` with ``data_shape=(3, 2)`` is ``[[1, 2], [3, 4], [5,
6]]``).  Labels come from a second file (``label_csv``, one line per
example, ``label_shape``) or are zeros::

    it = mx.io.CSVIter(data_csv='train.csv', data_shape=(784,),
                       label_csv='labels.csv', batch_size=100)
    for batch in it:
        ...  # batch.data[0]: (100, 784) float32

``data_csv`` may name a folder: every file in it is read, in name order.
A short last batch is completed as MXNet's C++ iterators do
(``row_batches.py``: ``round_batch``).
"""

__all__ = ['CSVIter']

import os
from math import prod

import numpy

from ..base import DLBookError
from .io import DataDesc
from .row_batches import RowBatches

_DTYPES = ('float32', 'int32', 'int64')


def _read(path, shape, dtype, what):
    """The rows of a CSV file (or of every file in a folder), each
    reshaped to ``shape``."""
    files = (
        [os.path.join(path, f) for f in sorted(os.listdir(path))]
        if os.path.isdir(path)
        else [path]
    )
    if not files or not all(os.path.isfile(f) for f in files):
        raise DLBookError(f'CSVIter: no CSV file at {what}={path!r}')
    width = prod(shape)
    parts = []
    for name in files:
        try:
            rows = numpy.loadtxt(name, delimiter=',', dtype=dtype, ndmin=2)
        except ValueError as err:
            raise DLBookError(f'CSVIter: cannot read {name}: {err}') from None
        if rows.size and rows.shape[1] != width:
            raise DLBookError(
                f'CSVIter: {name} has {rows.shape[1]} numbers per line, but '
                f'{what.split("_")[0]}_shape={tuple(shape)} needs {width}'
            )
        parts.append(rows.reshape((-1,) + tuple(shape)))
    return numpy.concatenate(parts)


class CSVIter(RowBatches):
    """Iterate over CSV files in batches.

    Parameters
    ----------
    data_csv : str
        A CSV file, or a folder of them.
    data_shape : tuple of int
        The shape of one example (the numbers of a line, reshaped).
    label_csv : str, optional
        Labels, one line per example; without it the labels are 0.
    label_shape : tuple of int, default (1,)
    batch_size : int
    round_batch : bool, default True
        Complete a short last batch with the first rows (and start the
        next epoch after them); else with the previous batch's rows.
    dtype : {'float32', 'int32', 'int64'}, default 'float32'
        Of data and labels.
    data_name, label_name : str
    """

    def __init__(
        self,
        data_csv,
        data_shape,
        label_csv=None,
        label_shape=(1,),
        batch_size=1,
        round_batch=True,
        dtype='float32',
        data_name='data',
        label_name='softmax_label',
        **kwargs,
    ):
        if str(dtype) not in _DTYPES:
            raise DLBookError(
                f'CSVIter: dtype={dtype!r} is not one of {_DTYPES}'
            )
        self._dtype = numpy.dtype(str(dtype))
        data_shape, label_shape = tuple(data_shape), tuple(label_shape)
        self._data = _read(data_csv, data_shape, self._dtype, 'data_csv')
        if label_csv is None:
            self._label = numpy.zeros((len(self._data),), self._dtype)
        else:
            self._label = _read(
                label_csv, label_shape, self._dtype, 'label_csv'
            )
            if label_shape == (1,):
                self._label = self._label.reshape(-1)
            if len(self._label) != len(self._data):
                raise DLBookError(
                    f'CSVIter: {label_csv} has {len(self._label)} lines but '
                    f'{data_csv} has {len(self._data)}'
                )
        if len(self._data) == 0:
            raise DLBookError(f'CSVIter: {data_csv} has no examples')
        self._names = (data_name, label_name)
        super().__init__(
            batch_size, numpy.arange(len(self._data)), round_batch
        )

    @property
    def provide_data(self):
        shape = (self.batch_size,) + self._data.shape[1:]
        return [DataDesc(self._names[0], shape, self._dtype.type)]

    @property
    def provide_label(self):
        shape = (self.batch_size,) + self._label.shape[1:]
        return [DataDesc(self._names[1], shape, self._dtype.type)]

    def getdata(self):
        from .. import ndarray as nd

        return [nd.array(self._data[self._batch], dtype=self._dtype)]

    def getlabel(self):
        from .. import ndarray as nd

        return [nd.array(self._label[self._batch], dtype=self._dtype)]
