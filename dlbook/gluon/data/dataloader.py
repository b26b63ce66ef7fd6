"""DataLoader: mini-batches from a Dataset, optionally in parallel.

``for X, y in DataLoader(dataset, batch_size=256, shuffle=True)`` reads the
samples of each batch, stacks them into one NDArray per field and hands the
batch over.  With ``num_workers > 0`` worker processes (or threads, with
``thread_pool=True``) prepare batches ahead of time while the model trains;
batches still arrive in order.

Two speed rules from DESIGN.md section 8: batches are stacked as whole
arrays (one ``stack`` per field), and datasets that can gather a batch in
one indexing operation (``ArrayDataset``, MNIST, ``transform_first`` with
a deterministic transform such as ``ToTensor``) do so instead of reading
samples one by one.  The result is the same either way.
"""

__all__ = ['DataLoader', 'default_batchify_fn']

import numbers

from ...context import cpu_pinned
from ...ndarray import NDArray
from . import sampler as _sampler
from .batchify import default_batchify_fn, load_batch, to_ndarrays


def _check_int(name, value, smallest):
    """Raise unless ``value`` is an integer >= ``smallest``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or value < smallest
    ):
        raise ValueError(
            f'DataLoader: {name} must be an integer >= '
            f'{smallest}, got {value!r}'
        )


def _pinned(batches, ctx):
    """Yield each batch with its arrays moved to ``ctx`` (cpu_pinned)."""
    for batch in batches:
        yield _as_in_context(batch, ctx)


def _as_in_context(data, ctx):
    if isinstance(data, NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return type(data)(_as_in_context(d, ctx) for d in data)
    return data


class _SameProcessIter:
    """Batches made in the calling thread, one at a time."""

    def __init__(self, dataset, batchify_fn, batch_sampler):
        self._dataset = dataset
        self._batchify_fn = batchify_fn
        self._worker_pool = None  # started by the first epoch
        self._batch_sampler = batch_sampler
        self._iter = iter(batch_sampler)

    def __len__(self):
        return len(self._batch_sampler)

    def __iter__(self):
        return self

    def __next__(self):
        indices = next(self._iter)
        return to_ndarrays(
            load_batch(self._dataset, indices, self._batchify_fn)
        )

    next = __next__


class DataLoader:
    """Loads data from a dataset and returns mini-batches of data.

    Parameters
    ----------
    dataset : Dataset
        Source of samples (an NDArray or NumPy array also works).
    batch_size : int
        Samples per batch (required unless ``batch_sampler`` is given).
    shuffle : bool, default False
        Draw a new random order every epoch (reproducible under
        ``mx.random.seed``).
    sampler : Sampler, optional
        Custom index order; excludes ``shuffle``.
    last_batch : {'keep', 'discard', 'rollover'}, default 'keep'
        What to do with a last, incomplete batch: return it, drop it, or
        carry its samples into the next epoch.
    batch_sampler : Sampler, optional
        Yields lists of indices; excludes ``batch_size``, ``shuffle``,
        ``sampler`` and ``last_batch``.
    batchify_fn : callable, optional
        Merges a list of samples into a batch; default
        :func:`default_batchify_fn` (stack; tuples give a list per field;
        NumPy samples keep their dtype).
    num_workers : int, default 0
        Worker processes preparing batches; 0 loads in the calling thread.
        Workers are forked (on Linux) when the first epoch starts and
        serve every epoch after it (so they see the dataset as it was
        then, as in MXNet); the dataset and transforms need not be
        picklable there.  Elsewhere workers start fresh and receive
        pickled copies.
    pin_memory : bool, default False
        Put every batch on the ``cpu_pinned(pin_device_id)`` context, as
        MXNet does (page-locked memory copies to a GPU faster).  On the
        NumPy backend the arrays stay ordinary host memory; only their
        context changes.
    pin_device_id : int, default 0
        The id of that ``cpu_pinned`` context.
    prefetch : int, optional
        Batches prepared ahead, default ``2 * num_workers``.
    thread_pool : bool, default False
        Use worker threads instead of processes (good when the work
        releases the GIL, or the dataset cannot be shared).
    timeout : float, default 120
        Seconds to wait for one batch before raising an error.
    auto_reload, try_nopython
        Accepted for compatibility; ignored.

    Examples
    --------
    >>> dataset = gluon.data.ArrayDataset(mx.nd.ones((10, 2)),
    ...                                   mx.nd.arange(10))
    >>> loader = gluon.data.DataLoader(dataset, batch_size=4)
    >>> len(loader)
    3
    >>> [X.shape for X, y in loader]
    [(4, 2), (4, 2), (2, 2)]
    """

    def __init__(
        self,
        dataset,
        batch_size=None,
        shuffle=False,
        sampler=None,
        last_batch=None,
        batch_sampler=None,
        batchify_fn=None,
        num_workers=0,
        pin_memory=False,
        pin_device_id=0,
        prefetch=None,
        thread_pool=False,
        timeout=120,
        auto_reload=False,
        try_nopython=None,
    ):
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError(
                    'batch_size must be specified unless '
                    'batch_sampler is specified'
                )
            _check_int('batch_size', batch_size, 1)
            if sampler is None:
                sampler = (
                    _sampler.RandomSampler(len(dataset))
                    if shuffle
                    else _sampler.SequentialSampler(len(dataset))
                )
            elif shuffle:
                raise ValueError(
                    'shuffle must not be specified if sampler is specified'
                )
            batch_sampler = _sampler.BatchSampler(
                sampler, batch_size, last_batch if last_batch else 'keep'
            )
        elif (
            batch_size is not None
            or shuffle
            or sampler is not None
            or last_batch is not None
        ):
            raise ValueError(
                'batch_size, shuffle, sampler and last_batch '
                'must not be specified if batch_sampler is '
                'specified.'
            )
        self._batch_sampler = batch_sampler
        _check_int('num_workers', num_workers, 0)
        if prefetch is not None:
            _check_int('prefetch', prefetch, 0)
        self._num_workers = int(num_workers)
        self._prefetch = (
            int(prefetch) if prefetch is not None else 2 * self._num_workers
        )
        # None means "the default": it lets datasets gather whole batches.
        if batchify_fn is default_batchify_fn:
            batchify_fn = None
        self._batchify_fn = batchify_fn
        self._worker_pool = None  # started by the first epoch

    def __iter__(self):
        if self._num_workers == 0:
            batches = _SameProcessIter(
                self._dataset, self._batchify_fn, self._batch_sampler
            )
        else:
            from ._workers import MultiWorkerIter, WorkerPool

            if self._worker_pool is None:
                self._worker_pool = WorkerPool(
                    self._dataset,
                    self._batchify_fn,
                    self._num_workers,
                    self._thread_pool,
                )
            batches = MultiWorkerIter(
                self._worker_pool,
                self._batch_sampler,
                self._prefetch,
                self._timeout,
            )
        if self._pin_memory:
            return _pinned(batches, cpu_pinned(self._pin_device_id))
        return batches

    def __len__(self):
        return len(self._batch_sampler)
