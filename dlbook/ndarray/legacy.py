"""MXNet's older NDArray helpers, kept because MXNet-era code calls them.

``from_numpy`` wraps a NumPy array; ``onehot_encode``,
``choose_element_0index`` and ``fill_element_0index`` are the pre-1.0 forms
of ``one_hot``, ``pick`` and a scatter along axis 1 (MXNet marks them
deprecated but still ships them).  Each is written with registered
operators, so gradients flow where MXNet's would.
"""

import numpy as np

from ..context import cpu
from .ndarray import NDArray, from_raw
from .register import function_for as _nd

__all__ = [
    'from_numpy',
    'onehot_encode',
    'choose_element_0index',
    'fill_element_0index',
    'split_v2',
]


def from_numpy(ndarray, zero_copy=True, array_cls=NDArray):
    """An NDArray on ``cpu(0)`` holding a NumPy array's values.

    Unlike ``nd.array``, the dtype is kept (float64 stays float64).
    With ``zero_copy=True`` the NDArray shares the NumPy array's memory
    and, as in MXNet, the NumPy array is made read-only so it cannot
    change behind the NDArray's back; the array must then be
    C-contiguous.  With ``zero_copy=False`` the values are copied.

    Examples
    --------
    >>> a = numpy.arange(3.0)
    >>> x = nd.from_numpy(a)          # float64, same memory, a now read-only
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(
            f'from_numpy expects a numpy.ndarray, got {type(ndarray).__name__}'
        )
    if not zero_copy:
        return from_raw(np.array(ndarray, copy=True, order='C'), cpu(0))
    if not ndarray.flags['C_CONTIGUOUS']:
        raise ValueError(
            'Only c-contiguous arrays are supported for zero-copy'
        )
    view = ndarray.view()
    ndarray.flags['WRITEABLE'] = False
    return from_raw(view, cpu(0))


def onehot_encode(indices, out):
    """Write the one-hot rows of ``indices`` into ``out`` (shape
    ``(len(indices), depth)``) and return ``out``.  Prefer
    ``nd.one_hot(indices, depth)``."""
    return _nd('one_hot')(
        indices, depth=out.shape[1], dtype=out.dtype, out=out
    )


def choose_element_0index(lhs, rhs, out=None):
    """``lhs[i, rhs[i]]`` for each row ``i`` of the 2-d ``lhs``.  Prefer
    ``nd.pick(lhs, rhs, axis=1)``."""
    return _nd('pick')(lhs, rhs, axis=1, out=out)


def fill_element_0index(lhs, mhs, rhs, out=None):
    """A copy of the 2-d ``lhs`` with ``lhs[i, rhs[i]]`` replaced by
    ``mhs[i]``; ``lhs`` itself is unchanged (MXNet returns a new array or
    fills ``out``)."""
    hot = _nd('one_hot')(rhs, depth=lhs.shape[1], dtype=lhs.dtype)
    fill = _nd('broadcast_to')(mhs.reshape((-1, 1)), shape=lhs.shape)
    return _nd('where')(hot, fill, lhs, out=out)


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split ``ary`` along ``axis`` into ``indices_or_sections`` equal
    parts (an int) or at the indices of a tuple (``(2, 3)``: ``[:2]``,
    ``[2:3]``, ``[3:]``); MXNet's wrapper of the ``_split_v2`` operator.

    ``squeeze_axis=True`` drops ``axis`` from parts of length 1.  Returns
    a list of NDArrays, or the NDArray itself for one part.  As in MXNet,
    only an int or a tuple is accepted (a list raises ValueError), and an
    int that does not divide the axis raises ValueError."""
    if isinstance(indices_or_sections, int):
        size = ary.shape[axis]
        if size % indices_or_sections:
            raise ValueError(
                'array split does not result in an equal division'
            )
        step = size // indices_or_sections
        indices = [i * step for i in range(indices_or_sections)]
    elif isinstance(indices_or_sections, tuple):
        indices = [0] + list(indices_or_sections)
    else:
        raise ValueError(
            'indices_or_sections must either int or tuple of ints'
        )
    return _nd('_split_v2')(
        ary, indices=tuple(indices), axis=axis, squeeze_axis=squeeze_axis
    )


def _split_v2_method(self, *args, **kwargs):
    """Fluent form of :func:`split_v2` with this array as ``ary``."""
    return split_v2(self, *args, **kwargs)


NDArray.split_v2 = _split_v2_method
