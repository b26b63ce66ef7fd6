"""Gluon helpers: data parallelism, gradient clipping, downloads.

``split_and_load`` cuts a batch into one slice per device (the heart of
multi-GPU training, and testable on ``cpu(0)``/``cpu(1)``);
``clip_global_norm`` rescales gradients whose joint norm is too large
(RNN training); ``download`` fetches a file atomically and checks its hash
(it lives in ``dlbook/_download.py``, below Gluon, for every data file).
"""

__all__ = [
    'split_data',
    'split_and_load',
    'clip_global_norm',
    'check_sha1',
    'download',
    'replace_file',
    'shape_is_known',
    'HookHandle',
]

import collections
import math
import os
import warnings
import weakref

import numpy

from .. import ndarray as nd
from .._download import check_sha1, download  # noqa: F401
from ..ndarray.ndarray import NDArray


def _slice_axis(data, axis, begin, end):
    if axis == 0:
        return data[begin:end]
    index = (slice(None),) * axis + (slice(begin, end),)
    return data[index]


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split an NDArray into ``num_slice`` slices along ``batch_axis``.

    Parameters
    ----------
    data : NDArray
        A batch of data.
    num_slice : int
        Number of slices wanted.
    batch_axis : int, default 0
        The axis to cut.
    even_split : bool, default True
        Require equal slices (raise if ``num_slice`` does not divide the
        axis).  Otherwise the last slice takes the remainder, and fewer
        slices are made when there are fewer samples than slices.

    Returns
    -------
    list of NDArray
        Always a list, even for one slice.
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(
            f'data with shape {data.shape} cannot be evenly split into '
            f'{num_slice} slices along axis {batch_axis}. Use a batch size '
            f"that's multiple of {num_slice} or set even_split=False to "
            f'allow uneven partitioning of data.'
        )
    step = size // num_slice
    if not even_split and size < num_slice:
        step, num_slice = 1, size
    return [
        _slice_axis(
            data,
            batch_axis,
            i * step,
            (i + 1) * step if i < num_slice - 1 else size,
        )
        for i in range(num_slice)
    ]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` into one slice per context and copy each there.

    Parameters
    ----------
    data : NDArray or array-like
        A batch (NumPy input is first made an NDArray on ``ctx_list[0]``).
    ctx_list : list of Context
        One slice per context, in order.
    batch_axis : int, default 0
    even_split : bool, default True
        See :func:`split_data`.

    Returns
    -------
    list of NDArray
        Slice ``i`` lives on ``ctx_list[i]``.

    Examples
    --------
    >>> X = mx.nd.arange(8).reshape((4, 2))
    >>> [x.context for x in split_and_load(X, [mx.cpu(0), mx.cpu(1)])]
    [cpu(0), cpu(1)]
    """
    if not isinstance(data, NDArray):
        data = nd.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(ctx) for s, ctx in zip(slices, ctx_list)]


def _sum_of_squares(array):
    raw = array._data
    xp = array.context.xp
    flat = raw.reshape(-1)
    if flat.dtype.kind != 'f':
        flat = flat.astype('float64')
    return float(xp.dot(flat, flat))


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Rescale ``arrays`` in place so their joint 2-norm is at most
    ``max_norm``.

    The norm is ``sqrt(sum over arrays of sum(x ** 2))``; when it exceeds
    ``max_norm`` every array is multiplied by ``max_norm / norm``.

    Parameters
    ----------
    arrays : list of NDArray
        Usually the gradients of all parameters.
    max_norm : float
    check_isfinite : bool, default True
        Warn if the norm is NaN or infinite.

    Returns
    -------
    float or NDArray
        The norm before clipping: a NumPy float32 when
        ``check_isfinite`` is True (as MXNet), else a 1-element NDArray.
    """
    if not arrays:
        raise ValueError('clip_global_norm needs at least one array')
    total = math.sqrt(sum(_sum_of_squares(a) for a in arrays))
    total_norm = numpy.float32(total)
    if check_isfinite and not numpy.isfinite(total_norm):
        warnings.warn(
            UserWarning(
                'nan or inf is detected. Clipping results will be undefined.'
            ),
            stacklevel=2,
        )
    scale = max_norm / (total + 1e-8)
    if scale < 1.0:
        for array in arrays:
            array *= scale
    if check_isfinite:
        return total_norm
    return nd.array([total_norm], ctx=arrays[0].context)


def replace_file(src, dst):
    """Move ``src`` to ``dst``, replacing it atomically (``os.replace``).
    As MXNet, on failure ``src`` is removed and OSError raised."""
    try:
        os.replace(src, dst)
    except OSError:
        try:
            os.remove(src)
        except OSError:
            pass
        raise OSError(
            f'Moving downloaded temp file - {src}, to {dst} failed. '
            f'Please retry the download.'
        ) from None


def shape_is_known(shape):
    """Whether every dimension of ``shape`` is known: in NumPy shape
    mode (``npx.set_np()``) -1 marks an unknown dimension and ``()`` is a
    known scalar shape; otherwise 0 is unknown and ``()`` is unknown."""
    from .._np_state import is_np_shape

    if shape is None:
        return False
    unknown = -1 if is_np_shape() else 0
    if len(shape) == 0:
        return unknown == -1
    for size in shape:
        if size == unknown:
            return False
        assert size > unknown, (
            f'shape dimension size cannot be less than {unknown}, while '
            f'received {size}'
        )
    return True


class HookHandle:
    """What ``Block.register_forward_hook`` and
    ``register_forward_pre_hook`` return: ``detach()`` removes the hook;
    as a context manager it detaches on exit."""

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        """Add ``hook`` to ``hooks_dict`` (keyed by ``id(hook)``)."""
        assert not self._hooks_dict_ref, (
            'The same handle cannot be attached twice.'
        )
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        """Remove the hook (nothing happens if it is gone already)."""
        hooks_dict = self._hooks_dict_ref()
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __getstate__(self):
        return (self._hooks_dict_ref(), self._id)

    def __setstate__(self, state):
        if state[0] is None:
            self._hooks_dict_ref = weakref.ref(collections.OrderedDict())
        else:
            self._hooks_dict_ref = weakref.ref(state[0])
        self._id = state[1]

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()
