"""Datasets: anything with ``__getitem__`` and ``__len__``.

``dataset[i]`` returns one sample: an array, or a tuple such as
``(image, label)``.  ``transform`` and ``transform_first`` return new
datasets that apply a function when a sample is read (lazily), which is
where data augmentation goes.  The functions are kept in small module-level
classes rather than closures so that datasets can be pickled and sent to
DataLoader worker processes.
"""

__all__ = ['Dataset', 'SimpleDataset', 'ArrayDataset', 'RecordFileDataset']

import os

import numpy

from ... import recordio as _recordio
from ...ndarray.ndarray import NDArray
from . import batchify as _batchify
from . import sampler as _sampler


class Dataset:
    """Abstract dataset: subclasses define ``__getitem__`` and ``__len__``.

    An NDArray, a NumPy array or a list can also be used directly as a
    dataset.
    """

    def __getitem__(self, idx):
        raise NotImplementedError(
            f'{type(self).__name__} must define __getitem__()'
        )

    def __len__(self):
        raise NotImplementedError(
            f'{type(self).__name__} must define __len__()'
        )

    def filter(self, fn):
        """A dataset of the samples for which ``fn(sample)`` is true.

        Every sample is read once, now, to decide.
        """
        return _SampledDataset(self, _sampler.FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """Part ``index`` of ``num_shards`` contiguous, near-equal parts.

        Shard before shuffling, so that each worker of a distributed job
        sees a different subset.
        """
        if not 0 <= index < num_shards:
            raise ValueError(
                f'Shard index of out bound: {index} out of {num_shards}'
            )
        length = len(self)
        shard_len, rest = divmod(length, num_shards)
        start = shard_len * index + min(index, rest)
        end = start + shard_len + (index < rest)
        return _SampledDataset(
            self, _sampler.SequentialSampler(end - start, start)
        )

    def take(self, count):
        """The first ``count`` samples (all of them if ``count`` is None
        or larger than the dataset)."""
        if count is None or count > len(self):
            count = len(self)
        return _SampledDataset(self, _sampler.SequentialSampler(count))

    def sample(self, sampler):
        """The samples at the indices ``sampler`` yields."""
        if not isinstance(sampler, _sampler.Sampler):
            raise TypeError(
                f'Invalid sampler type: {type(sampler)}. '
                f'Expected gluon.data.Sampler instead.'
            )
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """A dataset whose samples are ``fn(*sample)``.

        Parameters
        ----------
        fn : callable
            Receives the fields of a tuple sample as separate arguments
            (``fn(data, label)``), or the sample itself.
        lazy : bool, default True
            Apply ``fn`` each time a sample is read.  ``False`` transforms
            everything now, so a random ``fn`` would give the same result
            every epoch.

        Returns
        -------
        Dataset
        """
        trans = _LazyTransformDataset(self, fn)
        if lazy:
            return trans
        return SimpleDataset([trans[i] for i in range(len(trans))])

    def transform_first(self, fn, lazy=True):
        """Like :meth:`transform`, but ``fn`` sees only the first field
        (the data) and the other fields (the label) pass through.

        Examples
        --------
        >>> train = gluon.data.vision.MNIST(train=True)      # doctest: +SKIP
        >>> train = train.transform_first(transforms.ToTensor())
        """
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """Wrap anything with ``len()`` and ``[]`` (a list, an array).

    Parameters
    ----------
    data : dataset-like
    """

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    """Applies ``fn`` to each sample as it is read."""

    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)

    def _batcher(self):
        # A deterministic image transform of the first field (ToTensor,
        # Normalize, Resize ...) can run once on the whole stacked batch.
        fn = self._fn
        base = getattr(self._data, '_batcher', None)
        base = base() if base is not None else None
        if (
            base is None
            or not isinstance(fn, _TransformFirstClosure)
            or not getattr(fn._fn, 'batchable', False)
        ):
            return None
        return _BatchTransformFirst(self, base, fn._fn)


class _BatchTransformFirst:
    """Gather a batch, then transform its first field in one call."""

    def __init__(self, dataset, gather, transform):
        self._dataset = dataset
        self._gather = gather
        self._transform = transform

    def __call__(self, indices):
        batch = self._gather(indices)
        first = batch[0] if isinstance(batch, list) else batch
        if first.raw.ndim != 4:  # not a batch of HWC images
            return _batchify.stack_samples(
                [self._dataset[i] for i in indices], indices
            )
        out = _batchify.Stacked(
            self._transform._forward(first.xp, first.raw), first.device
        )
        if isinstance(batch, list):
            return [out] + batch[1:]
        return out


class _TransformFirstClosure:
    """``fn`` applied to the first field only; a class, so it pickles."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class _SampledDataset(Dataset):
    """The samples of ``dataset`` at the indices a sampler gives."""

    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(iter(sampler))

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


def _gather(data, indices):
    """Rows ``indices`` of one field, batched (see ``batchify``)."""
    if isinstance(data, NDArray):
        ctx = data.context
        raw = data._data[ctx.xp.asarray(indices)]
        return _batchify.Stacked(raw, (ctx.device_type, ctx.device_id))
    if isinstance(data, numpy.ndarray):
        return _batchify.Stacked(data[numpy.asarray(indices)])
    return _batchify.stack_samples([data[i] for i in indices], indices)


class ArrayDataset(Dataset):
    """A dataset of aligned arrays: sample ``i`` is ``(a[i], b[i], ...)``.

    Parameters
    ----------
    *args : NDArray, numpy.ndarray, list or Dataset
        The fields, all of the same length.  NDArrays give NDArray
        samples, NumPy arrays NumPy samples and lists their items.  As in
        MXNet, a 1-d NDArray (typically labels) is converted to NumPy, so
        its samples are NumPy scalars that keep their dtype.

    Examples
    --------
    >>> X, y = mx.nd.ones((100, 2)), mx.nd.arange(100)
    >>> dataset = gluon.data.ArrayDataset(X, y)
    >>> len(dataset), dataset[0][0].shape
    (100, (2,))
    """

    def __init__(self, *args):
        if not args:
            raise ValueError('Needs at least 1 arrays')
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise ValueError(
                    f'All arrays must have the same length; array[0] has '
                    f'length {self._length} while array[{i}] has '
                    f'{len(data)}.'
                )
            if isinstance(data, NDArray) and data.ndim == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length

    def _batcher(self):
        return self._batch

    def _batch(self, indices):
        """The default batch of ``indices`` in one gather per field.

        Gives the same result as stacking ``self[i]`` one by one, which
        costs one Python call and one small array per sample.
        """
        fields = [_gather(data, indices) for data in self._data]
        return fields[0] if len(fields) == 1 else fields


class RecordFileDataset(Dataset):
    """The records of a RecordIO file, as raw bytes.

    ``dataset[i]`` is the ``i``-th record listed in the index file beside
    ``filename`` (``data.rec`` -> ``data.idx``), read from the disk when
    it is asked for.  See :mod:`dlbook.recordio` for the file format.

    Parameters
    ----------
    filename : str
        Path of the ``.rec`` file; the ``.idx`` file must be next to it.

    Attributes
    ----------
    filename, idx_file : str

    Notes
    -----
    The dataset can be used by DataLoader workers: a forked worker, or a
    pickled copy, reopens the file for itself.

    Examples
    --------
    >>> dataset = gluon.data.RecordFileDataset('train.rec')  # doctest: +SKIP
    >>> header, jpeg = mx.recordio.unpack(dataset[0])      # doctest: +SKIP
    """

    def __init__(self, filename):
        self.idx_file = os.path.splitext(filename)[0] + '.idx'
        self.filename = filename
        self._record = _recordio.MXIndexedRecordIO(
            self.idx_file, self.filename, 'r'
        )

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)
