"""Creating NDArrays: ``array``, ``zeros``, ``ones``, ``full``, ``arange``...

``nd.array`` copies data from Python or NumPy; the others run the creation
operators (``dlbook.ops.creation``) on the requested device.  As in MXNet
1.x the default dtype is float32, even for float64 or integer NumPy input,
unless the source is an NDArray (whose dtype is kept).
"""

import numpy

from .. import _tape
from ..base import dtype_name
from ..context import current_context
from ..ops import REGISTRY
from ..ops import creation as ops
from .invoke import invoke
from .ndarray import NDArray, from_raw

__all__ = [
    'array',
    'zeros',
    'ones',
    'full',
    'empty',
    'arange',
    'linspace',
    'eye',
    'zeros_like',
    'ones_like',
]


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _dtype(dtype):
    return dtype_name(dtype) if dtype is not None else 'float32'


def array(source_array, ctx=None, dtype=None):
    """Create an NDArray holding a copy of ``source_array``.

    Parameters
    ----------
    source_array : array_like or NDArray
        Nested lists, a NumPy array, a number or an NDArray.
    ctx : Context, optional
        Device; the default context if omitted.
    dtype : str or dtype, optional
        Element type; float32 unless ``source_array`` is an NDArray.
    """
    ctx = ctx or current_context()
    if isinstance(source_array, NDArray):
        dtype = dtype or source_array.dtype
        source_array = source_array.asnumpy()
    data = numpy.asarray(source_array)
    # a number or a 0-d NumPy array gives shape (), as in MXNet 1.9.1
    raw = ctx.backend.asarray(data, ctx.device_id, dtype=_dtype(dtype))
    return from_raw(raw, ctx)


def zeros(shape, ctx=None, dtype=None, out=None, **kwargs):
    """A dense array of zeros (``nd.zeros`` also makes sparse ones).
    Extra keywords (``name=``, ``__layout__=``) are accepted and ignored,
    as in MXNet."""
    return invoke(
        ops.Zeros(shape=_shape(shape), dtype=_dtype(dtype)),
        [],
        ctx=ctx,
        out=out,
    )


def ones(shape, ctx=None, dtype=None, out=None, **kwargs):
    """An array of ones.  Extra keywords are accepted and ignored."""
    return invoke(
        ops.Ones(shape=_shape(shape), dtype=_dtype(dtype)),
        [],
        ctx=ctx,
        out=out,
    )


def full(shape, val, ctx=None, dtype=None, out=None):
    """An array filled with ``val``."""
    return invoke(
        ops.Full(shape=_shape(shape), value=val, dtype=_dtype(dtype)),
        [],
        ctx=ctx,
        out=out,
    )


def empty(shape, ctx=None, dtype=None):
    """An array whose values are not meant to be read (zeros here)."""
    return invoke(
        ops.Empty(shape=_shape(shape), dtype=_dtype(dtype)), [], ctx=ctx
    )


def arange(
    start,
    stop=None,
    step=1.0,
    repeat=1,
    infer_range=False,
    ctx=None,
    dtype=None,
):
    """Evenly spaced values in ``[start, stop)``, as MXNet's ``arange``."""
    return invoke(
        ops.Arange(
            start=start,
            stop=stop,
            step=step,
            repeat=repeat,
            dtype=_dtype(dtype),
        ),
        [],
        ctx=ctx,
    )


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=None):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    return invoke(
        ops.Linspace(
            start=start,
            stop=stop,
            num=num,
            endpoint=endpoint,
            dtype=_dtype(dtype),
        ),
        [],
        ctx=ctx,
    )


def eye(N, M=0, k=0, ctx=None, dtype=None):
    """A 2-D array with ones on the k-th diagonal."""
    return invoke(ops.Eye(N=N, M=M, k=k, dtype=_dtype(dtype)), [], ctx=ctx)


def zeros_like(data, out=None):
    """Zeros with the shape, dtype and context of ``data``."""
    if _recorded(data):  # a node with zero gradient, as MXNet records it
        return invoke(REGISTRY['zeros_like'](), [data], out=out)
    return zeros(data.shape, ctx=data.context, dtype=data.dtype, out=out)


def ones_like(data, out=None):
    """Ones with the shape, dtype and context of ``data``."""
    if _recorded(data):
        return invoke(REGISTRY['ones_like'](), [data], out=out)
    return ones(data.shape, ctx=data.context, dtype=data.dtype, out=out)


def _recorded(data):
    """Whether an operator on ``data`` would be recorded now."""
    return _tape._state.recording and (
        data._node is not None or data._grad_req is not None
    )
