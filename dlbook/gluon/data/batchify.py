"""Batchify: turn a list of samples into one array per field.

``default_batchify_fn`` is MXNet's rule: NDArray samples are stacked,
tuples are batched field by field (giving a *list*), anything else goes
through ``numpy.asarray`` and keeps its dtype (int32 labels stay int32).

The work happens in two steps so that worker processes never need to build
NDArrays: :func:`stack_samples` stacks raw arrays into a tree of
:class:`Stacked` leaves (plain, picklable data), and :func:`to_ndarrays`
wraps the leaves as NDArrays in the main process.  Whole batches are
stacked at once (one ``stack`` per field, one NDArray per field), never
sample by sample.
"""

__all__ = [
    'default_batchify_fn',
    'Stacked',
    'stack_samples',
    'to_ndarrays',
    'to_host',
    'Stack',
    'Pad',
    'Tuple',
]

import warnings

import numpy

from ... import ndarray as nd
from ..._np_state import is_np_array
from ...base import DLBookError
from ...context import Context, current_context
from ...ndarray.ndarray import NDArray, from_raw


class Stacked:
    """A batched raw array waiting to become an NDArray.

    Attributes
    ----------
    raw : numpy.ndarray or cupy.ndarray
        The stacked data.
    device : tuple or None
        ``(device_type, device_id)`` of the samples it came from, or None
        for NumPy samples (they go to the current context, as
        ``nd.array`` would put them).
    """

    __slots__ = ('raw', 'device')

    def __init__(self, raw, device=None):
        self.raw = raw
        self.device = device

    @property
    def xp(self):
        """The array module of ``raw`` (NumPy unless on a GPU)."""
        if self.device is not None and self.device[0] == 'gpu':
            return Context(*self.device).xp
        return numpy

    def __getstate__(self):
        return self.raw, self.device

    def __setstate__(self, state):
        self.raw, self.device = state


def _stack_ndarrays(data):
    ctx = data[0].context
    if any(x.context != ctx for x in data):
        return nd.stack(*data)  # raises, naming the contexts
    raws = [x._data for x in data]
    return Stacked(ctx.xp.stack(raws), (ctx.device_type, ctx.device_id))


def stack_samples(data, indices=None, field=None):
    """Stack a list of samples into a tree of :class:`Stacked` leaves.

    ``indices`` (the samples' positions in the data set) and ``field``
    only serve the error raised for samples of different shapes.
    """
    first = data[0]
    if isinstance(first, tuple):
        return [
            stack_samples(
                column, indices, i if field is None else f'{field}.{i}'
            )
            for i, column in enumerate(zip(*data))
        ]
    try:
        if isinstance(first, NDArray):
            return _stack_ndarrays(data)
        with warnings.catch_warnings():
            # NumPy < 1.24 turns samples of different shapes into an object
            # array (with a warning) where newer NumPy raises ValueError
            warnings.simplefilter('ignore')
            stacked = numpy.asarray(data)
        if stacked.dtype == object:
            _raise_if_ragged(data, indices, field)
        return Stacked(stacked)
    except (ValueError, DLBookError) as err:
        _raise_if_ragged(data, indices, field)
        raise err


def _raise_if_ragged(data, indices, field):
    """Name the first two samples whose shapes differ."""
    shapes = [tuple(getattr(x, 'shape', numpy.shape(x))) for x in data]
    for k, shape in enumerate(shapes):
        if shape != shapes[0]:
            if indices is None:
                indices = range(len(data))
            where = '' if field is None else f' (field {field})'
            raise DLBookError(
                f'cannot batch samples of different shapes{where}: sample '
                f'{indices[0]} has shape {shapes[0]} but sample '
                f'{indices[k]} has shape {shape}. Resize or pad them to one '
                f'shape (e.g. a transform), or pass a batchify_fn such as '
                f'gluon.data.batchify.Pad()'
            )


def _wrap(leaf):
    out = _wrap_legacy(leaf)
    if is_np_array():  # npx.set_np(): batches are mx.np arrays
        from ...numpy._core import to_np

        to_np(out)
    return out


def _wrap_legacy(leaf):
    raw, device = leaf.raw, leaf.device
    if device is None:
        ctx = current_context()
        if ctx.device_type == 'gpu':
            return nd.array(raw, ctx=ctx, dtype=raw.dtype)
        return from_raw(numpy.ascontiguousarray(raw), ctx)
    return from_raw(raw, Context(*device))


def map_leaves(fn, tree):
    """``tree`` with ``fn`` applied to each leaf.

    A batch is a tree: a list (tuple samples are batched field by field
    into a list), tuple or dict of batches, down to the arrays.  The
    containers are rebuilt around ``fn(leaf)``, each of its own kind;
    anything else is a leaf.
    """
    if isinstance(tree, list):
        return [map_leaves(fn, x) for x in tree]
    if isinstance(tree, tuple):
        return tuple(map_leaves(fn, x) for x in tree)
    if isinstance(tree, dict):
        return {k: map_leaves(fn, v) for k, v in tree.items()}
    return fn(tree)


def to_ndarrays(tree):
    """Replace every :class:`Stacked` leaf of ``tree`` by an NDArray."""

    def leaf(x):
        return _wrap(x) if isinstance(x, Stacked) else x

    return map_leaves(leaf, tree)


def to_host(tree):
    """Make a batch safe to send from a worker process: NDArrays become
    ``Stacked`` NumPy leaves bound for ``cpu(0)`` (as MXNet's workers
    return CPU batches)."""

    def leaf(x):
        if isinstance(x, NDArray):
            return Stacked(x.asnumpy(), ('cpu', 0))
        if isinstance(x, Stacked):
            raw = x.raw
            if not isinstance(raw, numpy.ndarray):
                raw = raw.get()  # a CuPy array: copy it to the host
            return Stacked(raw, ('cpu', 0))
        return x

    return map_leaves(leaf, tree)


def default_batchify_fn(data):
    """Collate a list of samples into a batch (MXNet's default).

    Parameters
    ----------
    data : list
        Samples: NDArrays, NumPy arrays or scalars, or tuples of those.

    Returns
    -------
    NDArray or list
        One NDArray for array samples; a list with one NDArray per field
        for tuple samples.

    Examples
    --------
    >>> batch = default_batchify_fn([(mx.nd.ones((2,)), numpy.int32(1)),
    ...                              (mx.nd.zeros((2,)), numpy.int32(0))])
    >>> batch[0].shape, batch[1].dtype
    ((2, 2), dtype('int32'))
    """
    return to_ndarrays(stack_samples(data))


# ---------------------------------------------------------------------------
# Composable batchify functions (``gluon.data.batchify`` in MXNet 1.9).


def _raw_and_device(sample):
    if isinstance(sample, NDArray):
        ctx = sample.context
        return sample.asnumpy(), (ctx.device_type, ctx.device_id)
    return numpy.asarray(sample), None


class Stack:
    """Stack samples of equal shape into one array (a new batch axis 0).

    Examples
    --------
    >>> batchify.Stack()([numpy.ones(3), numpy.zeros(3)]).shape
    (2, 3)
    """

    def __call__(self, data):
        return to_ndarrays(stack_samples(list(data)))


class Pad:
    """Pad samples along ``axis`` to the longest one, then stack.

    Parameters
    ----------
    axis : int, default 0
        The axis (of each sample) to pad.
    pad_val : number, default 0
    ret_length : bool, default False
        Also return the original lengths (an int32 NDArray).
    dtype : str or numpy.dtype, optional
        Output dtype (default: the samples' dtype).
    round_to : int, optional
        Round the padded length up to a multiple of this.
    """

    def __init__(
        self, axis=0, pad_val=None, ret_length=False, dtype=None, round_to=None
    ):
        self._axis = axis
        self._pad_val = 0 if pad_val is None else pad_val
        self._ret_length = ret_length
        self._dtype = dtype
        self._round_to = round_to

    def __call__(self, data):
        pairs = [_raw_and_device(x) for x in data]
        raws = [raw for raw, _ in pairs]
        lengths = [raw.shape[self._axis] for raw in raws]
        longest = max(lengths)
        if self._round_to:
            longest = -(-longest // self._round_to) * self._round_to
        shape = list(raws[0].shape)
        shape[self._axis] = longest
        dtype = self._dtype or raws[0].dtype
        out = numpy.full([len(raws)] + shape, self._pad_val, dtype=dtype)
        for i, raw in enumerate(raws):
            index = [i] + [slice(None)] * raw.ndim
            index[self._axis + 1 if self._axis >= 0 else self._axis] = slice(
                0, raw.shape[self._axis]
            )
            out[tuple(index)] = raw
        batch = to_ndarrays(Stacked(out, pairs[0][1]))
        if self._ret_length:
            return batch, to_ndarrays(
                Stacked(numpy.asarray(lengths, numpy.int32))
            )
        return batch


class Tuple:
    """Apply one batchify function per field of tuple samples.

    Examples
    --------
    >>> fn = batchify.Tuple(batchify.Pad(), batchify.Stack())
    >>> data, label = fn([([1, 2, 3], 0), ([4, 5], 1)])
    >>> data.shape, label.shape
    ((2, 3), (2,))
    """

    def __init__(self, fn, *args):
        self._fn = (
            list(fn) if isinstance(fn, (list, tuple)) else [fn] + list(args)
        )

    def __call__(self, data):
        if len(data[0]) != len(self._fn):
            raise ValueError(
                f'The number of attributes in each data sample '
                f'should contain {len(self._fn)} elements, got '
                f'{len(data[0])}'
            )
        return tuple(
            fn([sample[i] for sample in data]) for i, fn in enumerate(self._fn)
        )


def _batcher(dataset):
    """A function ``indices -> batch tree`` that gathers a whole batch at
    once, or None if ``dataset`` can only be read sample by sample."""
    hook = getattr(dataset, '_batcher', None)
    return hook() if hook is not None else None


def load_batch(dataset, indices, batchify_fn):
    """Read the samples ``indices`` of ``dataset`` and batch them.

    With the default ``batchify_fn`` (None) the result is a tree of
    :class:`~dlbook.gluon.data.batchify.Stacked` leaves, which
    ``to_ndarrays`` turns into NDArrays; a user ``batchify_fn`` returns
    whatever it returns.
    """
    if batchify_fn is None:
        fast = _batcher(dataset)
        if fast is not None:
            return fast(indices)
        return stack_samples([dataset[i] for i in indices], indices)
    return batchify_fn([dataset[i] for i in indices])
