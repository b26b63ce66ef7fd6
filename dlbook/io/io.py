"""Data iterators of MXNet's ``mx.io``: ``DataBatch`` and ``DataIter``.

Before Gluon's DataLoader, MXNet fed the Module API with *data
iterators*: ``next(it)`` returns a :class:`DataBatch` whose ``data`` and
``label`` are lists of NDArrays, and ``provide_data`` / ``provide_label``
describe them as :class:`DataDesc` (name, shape, dtype, layout) so a
Module can allocate memory before seeing data.
"""

__all__ = [
    'DataDesc',
    'DataBatch',
    'DataIter',
    'ResizeIter',
    'PrefetchingIter',
]

import collections
import threading

import numpy

from ..base import UsageError


class DataDesc(collections.namedtuple('DataDesc', ['name', 'shape'])):
    """Name, shape, dtype and layout of one input or label.

    A ``(name, shape)`` tuple with two more attributes, so code that
    unpacks ``name, shape = desc`` keeps working.

    Parameters
    ----------
    name : str
    shape : tuple of int
    dtype : numpy dtype, default numpy.float32
    layout : str, default 'NCHW'
        What each axis means; ``'N'`` marks the batch axis.

    Examples
    --------
    >>> mx.io.DataDesc('data', (32, 1, 28, 28))
    DataDesc[data,(32, 1, 28, 28),<class 'numpy.float32'>,NCHW]
    """

    def __new__(cls, name, shape, dtype=numpy.float32, layout='NCHW'):
        ret = super().__new__(cls, name, shape)
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self):
        return f'DataDesc[{self.name},{self.shape},{self.dtype},{self.layout}]'

    @staticmethod
    def get_batch_axis(layout):
        """The batch axis of ``layout`` (0 if None, -1 if no ``'N'``)."""
        if layout is None:
            return 0
        return layout.find('N')

    @staticmethod
    def get_list(shapes, types):
        """DataDescs from ``[(name, shape)]`` and ``[(name, dtype)]``."""
        if types is not None:
            type_dict = dict(types)
            return [DataDesc(x[0], x[1], type_dict[x[0]]) for x in shapes]
        return [DataDesc(x[0], x[1]) for x in shapes]


class DataBatch:
    """One batch: lists of data and label NDArrays.

    Parameters
    ----------
    data : list of NDArray
    label : list of NDArray, optional
    pad : int, optional
        How many examples at the end repeat earlier ones to fill the batch
        (prediction drops them).
    index : numpy.ndarray, optional
        Indices of the examples.
    bucket_key, provide_data, provide_label : optional
        For bucketing modules.
    """

    def __init__(
        self,
        data,
        label=None,
        pad=None,
        index=None,
        bucket_key=None,
        provide_data=None,
        provide_label=None,
    ):
        if data is not None:
            if not isinstance(data, (list, tuple)):
                raise UsageError(
                    f'Data must be list of NDArrays, got '
                    f'{type(data).__name__}: wrap one array '
                    f'as [data].'
                )
        if label is not None:
            if not isinstance(label, (list, tuple)):
                raise UsageError(
                    f'Label must be list of NDArrays, got '
                    f'{type(label).__name__}: wrap one array '
                    f'as [label].'
                )
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [d.shape for d in self.data]
        label_shapes = [x.shape for x in self.label] if self.label else None
        return (
            f'{type(self).__name__}: data shapes: {data_shapes} '
            f'label shapes: {label_shapes}'
        )


class DataIter:
    """Base class of data iterators.

    Subclasses implement :meth:`iter_next` (advance; False at the end),
    :meth:`getdata`, :meth:`getlabel`, :meth:`getpad` and :meth:`reset`,
    and set ``provide_data`` / ``provide_label``; or override
    :meth:`next` directly.

    Parameters
    ----------
    batch_size : int, default 0
    """

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        """Go back to the first batch (a new epoch)."""

    def next(self):
        """The next :class:`DataBatch`; ``StopIteration`` at the end."""
        if self.iter_next():
            return DataBatch(
                data=self.getdata(),
                label=self.getlabel(),
                pad=self.getpad(),
                index=self.getindex(),
            )
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        """Move to the next batch; return whether there was one."""

    def getdata(self):
        """The data of the current batch (list of NDArray)."""

    def getlabel(self):
        """The label of the current batch (list of NDArray)."""

    def getindex(self):
        """The example indices of the current batch, or None."""
        return None

    def getpad(self):
        """How many padding examples end the current batch."""


class _CurrentBatchIter(DataIter):
    """A data iterator that keeps its whole current :class:`DataBatch` in
    ``current_batch`` (taken from other iterators); the getters read it."""

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class ResizeIter(_CurrentBatchIter):
    """Make ``data_iter`` yield exactly ``size`` batches per epoch,
    restarting it when it runs out.

    Parameters
    ----------
    data_iter : DataIter
    size : int
        Batches per epoch.
    reset_internal : bool, default True
        Also reset ``data_iter`` on :meth:`reset`.
    """

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, 'default_bucket_key'):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True


def _renamed(descs, renames):
    if renames is None:
        return list(descs)
    return [
        DataDesc(
            renames.get(d.name, d.name),
            d.shape,
            getattr(d, 'dtype', numpy.float32),
        )
        if isinstance(d, DataDesc)
        else DataDesc(*d)
        for d in descs
    ]


def _merged(desc_lists, renames):
    """The lists of descriptions concatenated, list ``i`` renamed by
    ``renames[i]`` (a dict) when ``renames`` is given."""
    renames = renames or [None] * len(desc_lists)
    return sum(
        (_renamed(descs, r) for descs, r in zip(desc_lists, renames)), []
    )


class PrefetchingIter(_CurrentBatchIter):
    """Read the next batch of one or more iterators in background threads.

    Parameters
    ----------
    iters : DataIter or list of DataIter
        Their batches are merged (data lists concatenated).
    rename_data, rename_label : list of dict, optional
        One ``{old name: new name}`` map per iterator.
    """

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        self.iters = iters if isinstance(iters, list) else [iters]
        if not self.iters:
            raise ValueError('PrefetchingIter needs at least one iterator')
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.current_batch = None
        self._start()

    def _start(self):
        """Start one thread per iterator fetching its next batch."""
        self._results = [None] * len(self.iters)
        self._threads = [
            threading.Thread(target=self._fetch, args=(i,), daemon=True)
            for i in range(len(self.iters))
        ]
        for thread in self._threads:
            thread.start()

    def _fetch(self, i):
        try:
            self._results[i] = ('ok', self.iters[i].next())
        except StopIteration:
            self._results[i] = ('end', None)
        except Exception as err:  # re-raised in the main thread
            self._results[i] = ('error', err)

    def _wait(self):
        for thread in self._threads:
            thread.join()
        for status, value in self._results:
            if status == 'error':
                raise value
        return self._results

    @property
    def provide_data(self):
        return _merged(
            [it.provide_data for it in self.iters], self.rename_data
        )

    @property
    def provide_label(self):
        return _merged(
            [it.provide_label for it in self.iters], self.rename_label
        )

    def reset(self):
        self._wait()
        for it in self.iters:
            it.reset()
        self._start()

    def iter_next(self):
        results = self._wait()
        ended = [status == 'end' for status, _ in results]
        if any(ended):
            if not all(ended):
                raise UsageError(
                    f'Number of entry mismatches between iterators: '
                    f'iterator(s) {[i for i, e in enumerate(ended) if e]} '
                    f'ended before the others; give PrefetchingIter '
                    f'iterators with the same number of batches.'
                )
            return False
        batches = [batch for _, batch in results]
        for batch in batches:
            if batch.pad != batches[0].pad:
                raise UsageError(
                    f'Number of entry mismatches between iterators: their '
                    f'batches are padded differently '
                    f'({[b.pad for b in batches]}); give PrefetchingIter '
                    f'iterators with the same number of examples.'
                )
        self.current_batch = DataBatch(
            sum((list(b.data) for b in batches), []),
            sum((list(b.label or []) for b in batches), []),
            batches[0].pad,
            batches[0].index,
            provide_data=self.provide_data,
            provide_label=self.provide_label,
        )
        self._start()
        return True

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration
