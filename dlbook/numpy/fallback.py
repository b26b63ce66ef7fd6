"""``mx.np`` names that MXNet 1.9.1 runs with official NumPy on the host.

MXNet has no operator for these (``mxnet/numpy/fallback.py``): it copies
the array arguments to the host, calls NumPy's function and gives array
results back as ``mx.np.ndarray``.  dlbook does the same, so they behave
exactly as NumPy's functions do, with three consequences worth knowing:

* **dtypes are NumPy's**, not MXNet's: ``np.cov`` of float32 data is
  float64, ``np.float_power`` is always float64;
* **scalar results stay host scalars**: ``np.allclose`` gives a Python
  ``bool``, ``np.count_nonzero(x)`` an ``int``, ``np.nanargmax(x)`` a
  ``numpy.int64``;
* **nothing is recorded by autograd** (no gradient), and on a GPU each
  call copies its data to the host and back.

Examples
--------
>>> np.allclose(np.array([1., 2.]), np.array([1., 2.000001]))
True
>>> np.cov(np.array([[1., 0., 2.], [0., 3., 1.]]))
array([[ 1.        , -1.        ],
       [-1.        ,  2.33333333]], dtype=float64)

Names that NumPy 2 removed are mapped to their successors (``alltrue``
to ``all``, ``trapz`` to ``trapezoid``, ``in1d`` to ``isin`` of the
flattened array, ``msort`` to ``sort(axis=0)``); NumPy's removed
financial functions (``npv``, ``pv``, ``rate``...) are left out.
"""

import functools

import numpy as _onp

from ..ndarray.ndarray import NDArray

#: MXNet 1.9.1's ``mx.np`` fallback names (``mxnet/numpy/fallback.py``)
_MXNET_FALLBACKS = (
    'allclose',
    'alltrue',
    'apply_along_axis',
    'apply_over_axes',
    'argpartition',
    'argwhere',
    'array_equal',
    'array_equiv',
    'choose',
    'compress',
    'corrcoef',
    'correlate',
    'count_nonzero',
    'cov',
    'digitize',
    'divmod',
    'extract',
    'flatnonzero',
    'float_power',
    'frexp',
    'heaviside',
    'histogram2d',
    'histogram_bin_edges',
    'histogramdd',
    'i0',
    'in1d',
    'interp',
    'intersect1d',
    'isclose',
    'isin',
    'ix_',
    'lexsort',
    'min_scalar_type',
    'modf',
    'msort',
    'nanargmax',
    'nanargmin',
    'nancumprod',
    'nancumsum',
    'nanmax',
    'nanmedian',
    'nanmin',
    'nanpercentile',
    'nanprod',
    'nanquantile',
    'ndim',
    'partition',
    'piecewise',
    'packbits',
    'poly',
    'polyadd',
    'polydiv',
    'polyfit',
    'polyint',
    'polymul',
    'polysub',
    'positive',
    'promote_types',
    'ptp',
    'real',
    'result_type',
    'rollaxis',
    'roots',
    'searchsorted',
    'select',
    'setdiff1d',
    'setxor1d',
    'signbit',
    'size',
    'spacing',
    'take_along_axis',
    'trapz',
    'tril_indices_from',
    'trim_zeros',
    'triu_indices_from',
    'union1d',
    'unpackbits',
    'unwrap',
    'vander',
)

#: MXNet 1.9.1's ``mx.np.linalg`` fallback names that dlbook has no
#: operator for (``matrix_power`` and ``multi_dot`` are operators in
#: dlbook, with gradients; ``qr`` is one already)
_MXNET_LINALG_FALLBACKS = ('cond', 'lstsq', 'matrix_rank')

#: names NumPy 2 removed: their successors
_RENAMED = {
    'alltrue': _onp.all,
    'trapz': getattr(_onp, 'trapezoid', None),
    'in1d': lambda ar1, ar2, *args, **kwargs: _onp.isin(
        _onp.ravel(ar1), ar2, *args, **kwargs
    ),
    'msort': lambda a: _onp.sort(a, axis=0),
}


def _host(value):
    """``value`` with every mx array (also inside lists, tuples and
    dicts) copied to a NumPy array."""
    if isinstance(value, NDArray):
        return value.asnumpy()
    if isinstance(value, (list, tuple)):
        return type(value)(_host(v) for v in value)
    if isinstance(value, dict):
        return {k: _host(v) for k, v in value.items()}
    return value


def _context(values):
    for v in values:
        if isinstance(v, NDArray):
            return v.context
        if isinstance(v, (list, tuple)):
            ctx = _context(v)
            if ctx is not None:
                return ctx
    return None


def _device(value, ctx):
    """NumPy arrays in ``value`` as ``mx.np.ndarray`` (NumPy's dtype
    kept); scalars and everything else unchanged."""
    from .creation import array

    if isinstance(value, _onp.ndarray) and value.dtype.kind in 'biuf':
        return array(value, dtype=value.dtype, ctx=ctx)
    if isinstance(value, (list, tuple)) and not hasattr(value, '_fields'):
        return type(value)(_device(v, ctx) for v in value)
    if isinstance(value, tuple):  # a named tuple (lstsq's result...)
        return type(value)(*(_device(v, ctx) for v in value))
    return value


def make_fallback(name, function, module='np'):
    """``mx.<module>.<name>``: NumPy's ``function`` run on the host, array
    results back on the device of the first array argument."""

    @functools.wraps(function)
    def fallback(*args, **kwargs):
        ctx = _context(args) or _context(list(kwargs.values()))
        result = function(*_host(args), **_host(kwargs))
        return _device(result, ctx)

    fallback.__name__ = fallback.__qualname__ = name
    fallback.__module__ = 'dlbook.numpy.fallback'
    fallback.__doc__ = (
        f'``{module}.{name}``: NumPy\'s function on the host copies of '
        f'the arrays (MXNet 1.9.1 falls back to NumPy for it too); array '
        f'results come back as ``mx.np.ndarray`` with NumPy\'s dtype, no '
        f'gradient is recorded.\n\nNumPy\'s documentation:\n\n'
        + (function.__doc__ or '')
    )
    return fallback


__all__ = []
for _name in _MXNET_FALLBACKS:
    _function = _RENAMED.get(_name) or getattr(_onp, _name, None)
    if _function is not None:
        globals()[_name] = make_fallback(_name, _function)
        __all__.append(_name)
del _name, _function
