"""Creating ``mx.np`` arrays: ``array``, ``zeros``, ``arange``...

NumPy mode keeps MXNet's float32 default for Python data and for the
creation functions, but a NumPy array keeps its dtype
(``np.array(numpy.arange(3))`` is int64) and 0-d arrays are legal.
Each function runs the same creation operator as ``nd``.
"""

import numpy

from ..base import dtype_name
from ..context import current_context
from ..ndarray.invoke import invoke
from ..ndarray.ndarray import NDArray
from ..ops import creation as ops
from ._core import ndarray_class, wrap

__all__ = [
    'array',
    'asarray',
    'zeros',
    'ones',
    'full',
    'empty',
    'arange',
    'linspace',
    'eye',
    'identity',
    'zeros_like',
    'ones_like',
    'full_like',
    'empty_like',
]


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _dtype(dtype):
    return dtype_name(dtype) if dtype is not None else 'float32'


def _create(op, ctx):
    """Run the creation operator ``op`` (the one ``nd`` runs) on ``ctx``,
    the result made an ``mx.np.ndarray`` from the start."""
    return invoke(op, (), ctx=ctx, out_cls=ndarray_class())


def array(object, dtype=None, ctx=None):  # noqa: A002 (NumPy's name)
    """An ``mx.np.ndarray`` holding a copy of ``object``.

    Parameters
    ----------
    object : array_like
        Nested lists, a number, a NumPy array or an mx array.
    dtype : str or dtype, optional
        float32 for Python data; a NumPy or mx array keeps its dtype.
    ctx : Context, optional
        The device; the current context by default.

    Examples
    --------
    >>> np.array([1, 2])
    array([1., 2.])
    >>> np.array(numpy.arange(3))
    array([0, 1, 2], dtype=int64)
    """
    ctx = ctx or current_context()
    if isinstance(object, NDArray):
        dtype = dtype or object.dtype
        data = object._host_copy() if object._ctx != ctx else None
        if data is None:
            raw = object._data.astype(dtype_name(dtype), copy=True)
            return wrap(raw, ctx)
    elif isinstance(object, numpy.ndarray):
        data = object
        dtype = dtype or object.dtype
    else:
        data = numpy.asarray(object)
        if dtype is None:
            dtype = 'float32'
    raw = ctx.backend.asarray(
        numpy.asarray(data), ctx.device_id, dtype=dtype_name(dtype)
    )
    return wrap(raw, ctx)


def asarray(a, dtype=None, ctx=None):
    """``a`` itself when it already is an ``mx.np.ndarray`` of ``dtype``
    on ``ctx``; otherwise :func:`array`."""
    if (
        isinstance(a, ndarray_class())
        and (dtype is None or a.dtype == dtype)
        and (ctx is None or a.context == ctx)
    ):
        return a
    return array(a, dtype=dtype, ctx=ctx)


def zeros(shape, dtype=None, order='C', ctx=None):
    """An array of zeros (float32 unless ``dtype``)."""
    return _create(ops.Zeros(shape=_shape(shape), dtype=_dtype(dtype)), ctx)


def ones(shape, dtype=None, order='C', ctx=None):
    """An array of ones (float32 unless ``dtype``)."""
    return _create(ops.Ones(shape=_shape(shape), dtype=_dtype(dtype)), ctx)


def full(shape, fill_value, dtype=None, order='C', ctx=None, out=None):
    """An array filled with ``fill_value`` (float32 unless ``dtype``)."""
    return _create(
        ops.Full(shape=_shape(shape), value=fill_value, dtype=_dtype(dtype)),
        ctx,
    )


def empty(shape, dtype=None, order='C', ctx=None):
    """An array whose values are not meant to be read."""
    return _create(ops.Empty(shape=_shape(shape), dtype=_dtype(dtype)), ctx)


def arange(start, stop=None, step=1, dtype=None, ctx=None):
    """Evenly spaced values in ``[start, stop)``; float32 unless ``dtype``
    (``np.arange(4)`` is ``array([0., 1., 2., 3.])``)."""
    return _create(
        ops.Arange(
            start=start, stop=stop, step=step, repeat=1, dtype=_dtype(dtype)
        ),
        ctx,
    )


def linspace(
    start,
    stop,
    num=50,
    endpoint=True,
    retstep=False,
    dtype=None,
    axis=0,
    ctx=None,
):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    y = _create(
        ops.Linspace(
            start=start,
            stop=stop,
            num=num,
            endpoint=endpoint,
            dtype=_dtype(dtype),
        ),
        ctx,
    )
    if retstep:
        step = (stop - start) / max(num - 1 if endpoint else num, 1)
        return y, step
    return y


def eye(N, M=None, k=0, dtype=None, ctx=None):
    """A 2-D array with ones on the ``k``-th diagonal."""
    return _create(ops.Eye(N=N, M=M or 0, k=k, dtype=_dtype(dtype)), ctx)


def identity(n, dtype=None, ctx=None):
    """The ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=dtype, ctx=ctx)


def zeros_like(a, dtype=None):
    """Zeros with the shape, dtype and context of ``a``."""
    return zeros(a.shape, dtype=dtype or a.dtype, ctx=a.context)


def ones_like(a, dtype=None):
    """Ones with the shape, dtype and context of ``a``."""
    return ones(a.shape, dtype=dtype or a.dtype, ctx=a.context)


def full_like(a, fill_value, dtype=None):
    """``fill_value`` with the shape, dtype and context of ``a``."""
    return full(a.shape, fill_value, dtype=dtype or a.dtype, ctx=a.context)


def empty_like(a, dtype=None):
    """An unread array with the shape, dtype and context of ``a``."""
    return empty(a.shape, dtype=dtype or a.dtype, ctx=a.context)


def as_array(value, like=None, dtype=None):
    """An array for an operand: arrays pass through; NumPy arrays keep
    their dtype; Python numbers and lists become float32 unless ``dtype``
    is given (MXNet's NumPy-mode creation rule)."""
    if isinstance(value, NDArray):
        return value
    ctx = like.context if isinstance(like, NDArray) else None
    return array(value, dtype=dtype, ctx=ctx)
