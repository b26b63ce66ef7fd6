"""The last of MXNet 1.9.1's ``mx.np`` names: rounding, bit-wise
functions, windows, padding, percentiles and a few shape helpers.

Each function follows MXNet's own ``mx.np`` function (its signature, its
dtypes, its errors for unsupported arguments) over dlbook's registered
operators, so ``roll``, ``rot90``, ``tril``, ``pad`` (constant mode),
``polyval`` and ``broadcast_arrays`` are recorded by ``autograd``;
``around`` and ``percentile`` record a zero gradient, as MXNet does.

Examples
--------
>>> np.around(np.array([0.5, 1.5, 2.5]))       # half to even
array([0., 2., 2.])
>>> np.roll(np.arange(4), 1)
array([3., 0., 1., 2.])
>>> np.percentile(np.array([[10., 7., 4.], [3., 2., 1.]]), 50)
array(3.5)
"""

import numbers

import numpy

from ..base import DLBookError, dtype_name
from ..context import current_context
from ..ndarray.ndarray import NDArray
from . import functions as F
from . import more as _more
from ._core import call, cast, reduced_shape, shaped
from .creation import array, as_array

__all__ = [
    'around',
    'round',
    'round_',
    'bitwise_and',
    'bitwise_or',
    'bitwise_xor',
    'bitwise_not',
    'invert',
    'lcm',
    'blackman',
    'hamming',
    'hanning',
    'broadcast_arrays',
    'diag_indices_from',
    'histogram',
    'indices',
    'pad',
    'percentile',
    'quantile',
    'polyval',
    'product',
    'resize',
    'roll',
    'rot90',
    'tril',
    'unravel_index',
    'sometrue',
    'shares_memory',
]


def _number(x):
    return isinstance(x, numbers.Number) and not isinstance(x, NDArray)


# -- rounding -------------------------------------------------------------------


def around(x, decimals=0, out=None, **kwargs):
    """``x`` rounded to ``decimals`` decimal places, halves to even
    (``around(2.5)`` is 2.0; the legacy ``nd.round`` gives 3).

    The array keeps its dtype; integer arrays are unchanged for
    ``decimals >= 0`` and truncated toward zero to a multiple of
    ``10**-decimals`` otherwise (``around(15, -1)`` of an int32 array is
    10, MXNet's integer arithmetic).  A Python number gives NumPy's
    result.  The gradient is zero."""
    if _number(x):
        return numpy.around(x, decimals, **kwargs)
    if not isinstance(x, NDArray):
        raise TypeError(f'type {type(x)} not supported')
    return F._out(call('_npi_around', x, decimals=int(decimals)), out)


def round(x, decimals=0, out=None, **kwargs):  # noqa: A001
    """The same as :func:`around`."""
    return around(x, decimals, out=out, **kwargs)


def round_(x, decimals=0, out=None, **kwargs):
    """The same as :func:`around`."""
    return around(x, decimals, out=out, **kwargs)


# -- bit-wise ------------------------------------------------------------------------


def _integer_binary(op_name, host, x1, x2, out):
    if _number(x1) and _number(x2):
        return host(x1, x2)
    return _more._binary(op_name, x1, x2, out, floats=False)


def bitwise_and(x1, x2, out=None, **kwargs):
    """Bit-wise AND of integer arrays (or an array and an int)."""
    return _integer_binary('_npi_bitwise_and', numpy.bitwise_and, x1, x2, out)


def bitwise_or(x1, x2, out=None, **kwargs):
    """Bit-wise OR of integer arrays (or an array and an int)."""
    return _integer_binary('_npi_bitwise_or', numpy.bitwise_or, x1, x2, out)


def bitwise_xor(x1, x2, out=None, **kwargs):
    """Bit-wise XOR of integer arrays (or an array and an int)."""
    return _integer_binary('_npi_bitwise_xor', numpy.bitwise_xor, x1, x2, out)


def lcm(x1, x2, out=None, **kwargs):
    """Lowest common multiple of ``|x1|`` and ``|x2|`` (integers; 0 when
    either is 0)."""
    return _integer_binary('_npi_lcm', numpy.lcm, x1, x2, out)


def bitwise_not(x, out=None, **kwargs):
    """Bit-wise NOT of an integer array (``~x``; MXNet rejects bool)."""
    if _number(x):
        return numpy.bitwise_not(x)
    return F._out(call('_npi_bitwise_not', as_array(x)), out)


def invert(x, out=None, **kwargs):
    """The same as :func:`bitwise_not`."""
    return bitwise_not(x, out=out, **kwargs)


# -- windows ---------------------------------------------------------------------------


def _window(M, dtype, ctx, terms):
    """MXNet's window kernel: the angle 2*pi*n/(M-1) is computed in
    float32, then ``sum(c_j * cos(j * angle))`` in ``dtype`` (all zeros
    for integer dtypes, whose coefficients truncate to 0)."""
    dt = numpy.dtype(dtype_name(dtype) if dtype is not None else 'float32')
    n = max(int(M), 0)
    if n == 1:
        values = numpy.ones(1, dtype=dt)
    elif dt.kind != 'f':
        values = numpy.zeros(n, dtype=dt)
    else:
        i = numpy.arange(n, dtype=numpy.float32)
        pi = numpy.float32(numpy.pi)
        values = numpy.zeros(n, dtype=dt)
        for j, (sign, coef) in enumerate(terms):
            angle = (
                numpy.float32(2 * j) * pi * i / numpy.float32(n - 1)
            ).astype(dt)
            term = dt.type(coef) * (numpy.cos(angle) if j else dt.type(1))
            values = values + term if sign > 0 else values - term
        values = values.astype(dt)
    return array(values, dtype=dt, ctx=ctx or current_context())


def blackman(M, dtype=numpy.float32, ctx=None):
    """The Blackman window of ``M`` points, ``0.42 - 0.5 cos(2 pi n /
    (M-1)) + 0.08 cos(4 pi n / (M-1))`` (empty for ``M <= 0``)."""
    return _window(M, dtype, ctx, ((1, 0.42), (-1, 0.5), (1, 0.08)))


def hamming(M, dtype=numpy.float32, ctx=None):
    """The Hamming window of ``M`` points, ``0.54 - 0.46 cos(2 pi n /
    (M-1))``."""
    return _window(M, dtype, ctx, ((1, 0.54), (-1, 0.46)))


def hanning(M, dtype=numpy.float32, ctx=None):
    """The Hanning window of ``M`` points, ``0.5 - 0.5 cos(2 pi n /
    (M-1))``."""
    return _window(M, dtype, ctx, ((1, 0.5), (-1, 0.5)))


# -- shapes and indices ----------------------------------------------------------------


def broadcast_arrays(*args):
    """The arrays broadcast to their common shape, as a list (the same
    arrays when all shapes already agree).  Differentiable."""
    shape = numpy.broadcast_shapes(*(a.shape for a in args))
    if all(a.shape == shape for a in args):
        return list(args)
    return [F.broadcast_to(a, shape) for a in args]


def diag_indices_from(arr):
    """The indices of the main diagonal of the n-d square ``arr`` (all
    axes of one length, at least 2 of them): ``arr.ndim`` int64 arrays."""
    shape = arr.shape
    if len(shape) < 2:
        raise DLBookError(
            f'diag_indices_from: the input must be at least 2-d, got shape '
            f'{shape}'
        )
    if any(n != shape[0] for n in shape):
        raise DLBookError(
            f'diag_indices_from: all dimensions of the input must be of '
            f'equal length, got shape {shape}'
        )
    idx = numpy.arange(shape[0], dtype=numpy.int64)
    return tuple(array(idx, dtype=numpy.int64, ctx=arr.context) for _ in shape)


def histogram(a, bins=10, range=None, normed=None, weights=None, density=None):  # noqa: A002
    """``[counts, bin_edges]`` (a list, as MXNet): int64 counts of the
    values of ``a`` in ``bins`` equal bins of ``range`` or between the
    edges of the ndarray ``bins``.  As in MXNet 1.9.1, ``range`` is
    required with an int ``bins``; ``weights``, ``density``, ``normed``
    and list or string ``bins`` are not supported."""
    if normed is True or density is True or weights is not None:
        raise NotImplementedError(
            'histogram: normed, density and weights are not supported'
        )
    if isinstance(bins, numbers.Integral):
        if range is None:
            raise NotImplementedError(
                'histogram: automatic range is not supported'
            )
        counts, edges = call(
            '_histogram', as_array(a), bin_cnt=int(bins), range=tuple(range)
        )
        return [counts, edges]
    if isinstance(bins, NDArray):
        counts, _ = call('_histogram', as_array(a), bins=bins)
        return [counts, bins.copy()]
    raise NotImplementedError(
        f'histogram: bins of type {type(bins).__name__} is not supported'
    )


def indices(dimensions, dtype=numpy.int32, ctx=None):
    """The grid indices of shape ``dimensions``: an array of shape
    ``(len(dimensions),) + dimensions``, int32 by default."""
    if not isinstance(dimensions, (tuple, list)):
        raise ValueError('The dimensions must be sequence of ints')
    dims = tuple(int(d) for d in dimensions)
    dt = numpy.dtype(dtype_name(dtype))
    grid = numpy.indices(dims, dtype=dt)
    return array(grid, dtype=dt, ctx=ctx or current_context())


def unravel_index(indices, shape, order='C'):  # noqa: A002
    """The coordinates in ``shape`` of the flat positions ``indices``: a
    tuple of arrays of ``indices``' (integer) dtype; a Python int gives
    NumPy's tuple of ints."""
    if order != 'C':
        raise NotImplementedError(
            'Do not support column-major (Fortran-style) order at this moment'
        )
    if _number(indices):
        return numpy.unravel_index(indices, shape)
    if indices.dtype.kind not in 'iu':
        raise DLBookError(
            f'unravel_index: only integer indices are supported, got '
            f'{indices.dtype}'
        )
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    size = int(numpy.prod(shape))
    if indices.size:
        host = indices.asnumpy()
        if host.min() < 0 or host.max() >= size:
            raise DLBookError(
                f'unravel_index: index {int(host.max())} is out of bounds '
                f'for an array of size {size}'
            )
    coords = call('_unravel_index', indices, shape=shape)
    return tuple(coords[i] for i in range(len(shape)))


def resize(a, new_shape):
    """A new array of ``new_shape`` filled with ``a``'s flattened values,
    repeated as needed (NumPy's ``resize``; computed on the host, no
    gradient, as MXNet's fallback)."""
    host = numpy.resize(a.asnumpy(), new_shape)
    return array(host, dtype=host.dtype, ctx=a.context)


def shares_memory(a, b, max_work=None):
    """Whether ``a`` and ``b`` use overlapping memory: the same array, or
    a basic slice (``a[0]``) of the other.  As in MXNet, a reshaped view
    of the same size does not count, nor do disjoint slices."""
    ra, rb = a._data, b._data
    if ra is rb:
        return True
    if ra.size == rb.size or not ra.size or not rb.size:
        return False
    start_a, start_b = _address(ra), _address(rb)
    return start_a < start_b + rb.nbytes and start_b < start_a + ra.nbytes


def _address(raw):
    interface = getattr(raw, '__array_interface__', None)
    if interface is not None:
        return interface['data'][0]
    return raw.data.ptr  # a device array


# -- reductions and aliases ---------------------------------------------------------


def product(a, axis=None, dtype=None, out=None, keepdims=False):
    """The same as ``prod``."""
    return F.prod(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def sometrue(a, axis=None, keepdims=False, out=None):
    """The same as ``any``."""
    return F.any(a, axis=axis, out=out, keepdims=keepdims)


def percentile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=None,
    interpolation='linear',
    keepdims=False,
):
    """The ``q``-th percentiles (0..100, a number or an ndarray of at
    most one axis) of ``a`` over ``axis``.

    ``interpolation`` is 'linear', 'lower', 'higher', 'midpoint' or
    'nearest' (which rounds a position halfway between two values up,
    unlike NumPy's half to even).  The result is float32 (float64 for
    float64 data) with ``q``'s axis first.  The gradient is zero."""
    if overwrite_input is not None:
        raise NotImplementedError('overwrite_input is not supported yet')
    axis = tuple(axis) if isinstance(axis, list) else axis
    a = as_array(a)
    if _number(q):
        q_shape = ()
        y = call(
            '_npi_percentile',
            as_array(a),
            axis=axis,
            interpolation=interpolation,
            keepdims=bool(keepdims),
            q_scalar=float(q),
        )
    else:
        q = as_array(q, like=a)
        q_shape = q.shape
        y = call(
            '_npi_percentile',
            as_array(a),
            q,
            axis=axis,
            interpolation=interpolation,
            keepdims=bool(keepdims),
        )
    y = shaped(y, q_shape + reduced_shape(a.shape, axis, keepdims))
    return F._out(y, out)


def quantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=None,
    interpolation='linear',
    keepdims=False,
):
    """The ``q``-th quantiles (0..1): :func:`percentile` of ``q * 100``."""
    q = q * 100
    return percentile(
        a, q, axis, out, overwrite_input, interpolation, keepdims
    )


# -- shifting, rotating, triangles, padding -----------------------------------------


def roll(a, shift, axis=None):
    """``a``'s elements shifted by ``shift`` along ``axis`` (the flattened
    array when None), wrapping around; int or tuple ``shift`` and
    ``axis``.  Differentiable."""
    return call('_np_roll', as_array(a), shift=shift, axis=axis)


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``
    (at least 2-d).  Differentiable."""
    return call('_npi_rot90', as_array(m), k=int(k), axes=tuple(axes))


def tril(m, k=0):
    """``m`` with the elements above the ``k``-th diagonal zeroed (a 1-d
    ``m`` gives a square matrix, as NumPy).  Differentiable.  MXNet gives
    a bool input as float32 (dlbook: bool)."""
    return call('_npi_tril', as_array(m), k=int(k))


_PAD_KWARGS = {
    'constant': ('constant_values',),
    'edge': (),
    'reflect': ('reflect_type',),
    'symmetric': ('reflect_type',),
    'maximum': ('stat_length',),
    'minimum': ('stat_length',),
}


def pad(x, pad_width=None, mode='constant', **kwargs):
    """``x`` padded by ``pad_width``: a tuple of ``(before, after)`` pairs,
    one per axis (or one pair, or one int in a tuple, for all axes).

    ``mode`` is MXNet's: 'constant' (``constant_values``, a number),
    'edge', 'reflect' and 'symmetric' (``reflect_type='even'`` only),
    'maximum' and 'minimum' (no ``stat_length``); 'wrap', 'mean',
    'median', 'linear_ramp', 'empty' and callables raise ValueError.
    Only 'constant' mode has a gradient, as in MXNet."""
    if not isinstance(pad_width, tuple):
        raise TypeError('`pad_width` must be tuple.')
    if numpy.asarray(pad_width).dtype.kind not in 'iu':
        raise TypeError('`pad_width` must be of integral type.')
    if callable(mode):
        raise ValueError("mode {'<function>'} is not supported.")
    if mode not in _PAD_KWARGS:
        raise ValueError(f"mode {{'{mode}'}} is not supported.")
    for key in kwargs:
        if key not in _PAD_KWARGS[mode]:
            raise ValueError(
                f'{key} keyword not in allowed keywords '
                f'{list(_PAD_KWARGS[mode])}'
            )
    if kwargs.get('reflect_type', 'even') not in ('even', None):
        raise ValueError(
            f"unsupported reflect_type '{kwargs['reflect_type']}'"
        )
    if kwargs.get('stat_length') is not None:
        raise ValueError(f"unsupported stat_length '{kwargs['stat_length']}'")
    value = kwargs.get('constant_values', 0)
    if isinstance(value, tuple):
        raise TypeError("unsupported constant_values type: {'tuple'}.")
    widths = numpy.broadcast_to(
        numpy.asarray(pad_width, dtype=numpy.int64).reshape(-1, 2)
        if numpy.asarray(pad_width).size % 2 == 0
        else numpy.asarray(pad_width, dtype=numpy.int64).reshape(-1, 1),
        (x.ndim, 2),
    )
    return call(
        '_npi_pad',
        as_array(x),
        pad_width=tuple(tuple(int(v) for v in row) for row in widths),
        mode=mode,
        constant_value=float(value),
    )


def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at
    ``x``, by Horner's rule: ``(p[0] * x + p[1]) * x + ...``.

    Both arrays (1-d ``p``) or both numbers (NumPy's result), as MXNet;
    the result has the dtypes' common type.  Differentiable in ``p`` and
    ``x``."""
    if _number(x) and isinstance(p, (list, tuple, numbers.Number)):
        return numpy.polyval(p, x)
    if not (isinstance(p, NDArray) and isinstance(x, NDArray)):
        raise TypeError('type not supported')
    if p.ndim != 1:
        raise ValueError(f'polyval: p must be 1-d, got shape {p.shape}')
    if p.dtype != x.dtype:
        raise DLBookError(
            f'polyval: p and x must share one dtype, got {p.dtype} and '
            f'{x.dtype}'
        )
    if p.shape[0] == 0:
        return F.multiply(x, 0)
    y = F.broadcast_to(p[0], x.shape)
    for i in range(1, p.shape[0]):
        y = F.add(F.multiply(y, x), p[i])
    return cast(y, p.dtype)
