"""``NDArrayIter``: batches from in-memory arrays, for the Module API.

``mx.io.NDArrayIter(X, y, batch_size=32, shuffle=True)`` yields
:class:`~dlbook.io.DataBatch` objects.  Inputs may be NDArrays, NumPy
arrays, lists of them or dicts of them; like MXNet it converts NumPy input
to float32 NDArrays (labels too).

When the number of examples is not a multiple of ``batch_size``,
``last_batch_handle`` decides the last batch:

* ``'pad'`` (default): fill it with examples from the start and set
  ``batch.pad`` to how many were added (``Module.predict`` drops them);
* ``'discard'``: skip it;
* ``'roll_over'``: stop the epoch early and put the leftover examples at
  the front of the first batch of the next epoch.
"""

__all__ = ['NDArrayIter']

import collections

import numpy

from .. import ndarray as nd
from .. import random as _random
from ..base import UsageError
from ..ndarray.ndarray import NDArray, from_raw
from .io import DataBatch, DataDesc, DataIter


def _check_lengths(named):
    """Every data and label array must have one row per sample: a label
    array shorter than the data would misalign the last batches."""
    rows = [(name, arr.shape[0] if arr.ndim else None) for name, arr in named]
    if any(n is None for _, n in rows):
        bad = next(name for name, n in rows if n is None)
        raise ValueError(
            f"NDArrayIter: '{bad}' is 0-d; each input needs one row per sample"
        )
    if len({n for _, n in rows}) > 1:
        listed = ', '.join(f"'{name}' {n}" for name, n in rows)
        raise ValueError(
            f'NDArrayIter: all data and label arrays must have '
            f'the same number of rows (samples), got {listed}'
        )


def _init_data(data, allow_empty, default_name):
    """Inputs as a sorted list of ``(name, NDArray)``, MXNet's rules."""
    if data is None and not allow_empty:
        raise UsageError(
            f'NDArrayIter needs {default_name}: an array, a '
            f'list of arrays or a dict of name -> array, got '
            f'None.'
        )
    if data is None:
        data = []
    if isinstance(data, (numpy.ndarray, NDArray)):
        data = [data]
    if isinstance(data, (list, tuple)):
        if not allow_empty:
            if len(data) == 0:
                raise UsageError(
                    f'NDArrayIter needs {default_name}: an '
                    f'array, a list of arrays or a dict of '
                    f'name -> array, got an empty '
                    f'{type(data).__name__}.'
                )
        if len(data) == 1:
            data = collections.OrderedDict([(default_name, data[0])])
        else:
            data = collections.OrderedDict(
                [(f'_{i}_{default_name}', d) for i, d in enumerate(data)]
            )
    if not isinstance(data, dict):
        raise TypeError(
            'Input must be NDArray, numpy.ndarray, a list of '
            'them or dict with them as values'
        )
    data = dict(data)
    for k, v in data.items():
        if not isinstance(v, NDArray):
            try:
                data[k] = nd.array(v)
            except Exception as err:
                raise TypeError(
                    f"Invalid type '{type(v)}' for {k}, should "
                    f'be NDArray or numpy.ndarray'
                ) from err
    return sorted(data.items())


def _take(array, idx):
    """Rows ``idx`` of an NDArray (a copy, dtype and context kept)."""
    ctx = array.context
    return from_raw(array._data[ctx.xp.asarray(idx)], ctx)


class NDArrayIter(DataIter):
    """Iterate over NDArrays or NumPy arrays in mini-batches.

    Parameters
    ----------
    data : array, list of arrays or dict of str to array
        The inputs; a dict gives the names (sorted), a single array is
        called ``data_name``.
    label : same kinds, optional
    batch_size : int, default 1
    shuffle : bool, default False
        Shuffle the examples at every ``reset``.
    last_batch_handle : {'pad', 'discard', 'roll_over'}, default 'pad'
    data_name : str, default 'data'
    label_name : str, default 'softmax_label'
    layout : str, default 'NCHW'
        The position of ``'N'`` is the batch axis.

    Examples
    --------
    >>> data = numpy.arange(40).reshape((10, 2, 2))
    >>> it = mx.io.NDArrayIter(data, numpy.ones(10), batch_size=3)
    >>> [batch.pad for batch in it]
    [0, 0, 0, 2]
    >>> it.provide_data
    [DataDesc[data,(3, 2, 2),float32,NCHW]]
    """

    def __init__(
        self,
        data,
        label=None,
        batch_size=1,
        shuffle=False,
        last_batch_handle='pad',
        data_name='data',
        label_name='softmax_label',
        layout='NCHW',
    ):
        super().__init__(batch_size)
        if last_batch_handle not in ('pad', 'discard', 'roll_over'):
            raise ValueError(
                f"last_batch_handle must be 'pad', 'discard' "
                f"or 'roll_over', got {last_batch_handle!r}"
            )
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(
            label, allow_empty=True, default_name=label_name
        )
        self.layout = layout
        _check_lengths(self.data + self.label)
        if (
            isinstance(batch_size, bool)
            or not isinstance(batch_size, (int, numpy.integer))
            or batch_size < 1
        ):
            raise ValueError(
                f'NDArrayIter: batch_size must be a positive '
                f'integer, got {batch_size!r}'
            )
        self.idx = numpy.arange(self.data[0][1].shape[0])
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.batch_size = batch_size
        self.cursor = -self.batch_size
        self.num_data = self.idx.shape[0]
        self._cache_data = None
        self._cache_label = None
        self.reset()
        self.data_list = [x[1] for x in self.data] + [x[1] for x in self.label]
        self.num_source = len(self.data_list)

    @property
    def _batch_axis(self):
        return self.layout.find('N')

    def _descs(self, sources):
        axis = self._batch_axis
        return [
            DataDesc(
                k,
                tuple(v.shape[:axis])
                + (self.batch_size,)
                + tuple(v.shape[axis + 1 :]),
                v.dtype,
                layout=self.layout,
            )
            for k, v in sources
        ]

    @property
    def provide_data(self):
        """``DataDesc`` of each data input, with the batch size."""
        return self._descs(self.data)

    @property
    def provide_label(self):
        """``DataDesc`` of each label input, with the batch size."""
        return self._descs(self.label)

    def hard_reset(self):
        """Restart at the first example, dropping rolled-over data."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        """Start a new epoch (reshuffling if ``shuffle``)."""
        if self.shuffle:
            self._shuffle_data()
        if (
            self.last_batch_handle == 'roll_over'
            and self.num_data - self.batch_size < self.cursor < self.num_data
        ):
            # (cursor - num_data) examples are cached for the next batch.
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        """Advance the cursor; whether a batch starts there."""
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        if data[0].shape[self._batch_axis] != self.batch_size:
            # An incomplete batch (discard / roll_over): keep it for the
            # next epoch and end this one.
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _getdata(self, sources, start=None, end=None):
        assert start is not None or end is not None, (
            'should at least specify start or end'
        )
        start = start if start is not None else 0
        if end is None:
            end = sources[0][1].shape[0] if sources else 0
        axis = self._batch_axis
        return [
            v[start:end]
            if axis == 0
            else nd.slice_axis(v, axis=axis, begin=start, end=end)
            for _, v in sources
        ]

    def _concat(self, first, second):
        if not first or not second:
            return first if first else second
        assert len(first) == len(second), (
            'data source should contain the same size'
        )
        return [
            nd.concat(a, b, dim=self._batch_axis)
            for a, b in zip(first, second)
        ]

    def _tile(self, data, repeats):
        out = []
        for datum in data:
            reps = [1] * datum.ndim
            reps[0] = repeats
            out.append(nd.tile(datum, reps=tuple(reps)))
        return out

    def _batchify(self, sources):
        if not self.cursor < self.num_data:
            raise UsageError(
                'DataIter needs reset: this epoch has no batch '
                'left; call reset() before reading again.'
            )
        if (
            self.last_batch_handle == 'roll_over'
            and -self.batch_size < self.cursor < 0
        ):
            # First batch of an epoch after a roll over: cached + new.
            assert (
                self._cache_data is not None or self._cache_label is not None
            ), 'next epoch should have cached data'
            cache = (
                self._cache_data
                if self._cache_data is not None
                else self._cache_label
            )
            second = self._getdata(sources, end=self.cursor + self.batch_size)
            if self._cache_data is not None:
                self._cache_data = None
            else:
                self._cache_label = None
            return self._concat(cache, second)
        if (
            self.last_batch_handle == 'pad'
            and self.cursor + self.batch_size > self.num_data
        ):
            pad = self.batch_size - self.num_data + self.cursor
            first = self._getdata(sources, start=self.cursor)
            if pad > self.num_data:
                second = self._tile(
                    self._getdata(sources, end=self.num_data),
                    pad // self.num_data,
                )
                if pad % self.num_data:
                    second = self._concat(
                        second, self._getdata(sources, end=pad % self.num_data)
                    )
            else:
                second = self._getdata(sources, end=pad)
            return self._concat(first, second)
        end = min(self.cursor + self.batch_size, self.num_data)
        return self._getdata(sources, self.cursor, end)

    def getdata(self):
        return self._batchify(self.data)

    def getlabel(self):
        return self._batchify(self.label)

    def getpad(self):
        if (
            self.last_batch_handle == 'pad'
            and self.cursor + self.batch_size > self.num_data
        ):
            return self.cursor + self.batch_size - self.num_data
        if (
            self.last_batch_handle == 'roll_over'
            and -self.batch_size < self.cursor < 0
        ):
            return -self.cursor
        return 0

    def _shuffle_data(self):
        _random.numpy_rng().shuffle(self.idx)
        self.data = [(k, _take(v, self.idx)) for k, v in self.data]
        self.label = [(k, _take(v, self.idx)) for k, v in self.label]
