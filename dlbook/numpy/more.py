"""More of ``mx.np``: element-wise math, differences, diagonals, joining
and splitting, ``einsum``, ``average``, ``logspace``.

Like ``functions.py``, every function here is an adapter over registered
operators, so ``autograd`` records the differentiable ones: ``diff`` is
two ``slice_axis`` and a subtraction, ``insert`` and ``append`` are
``concatenate``, ``delete`` is ``take``, ``einsum`` is ``_npi_einsum``.
The names MXNet 1.9.1 itself hands to NumPy on the host are in
``fallback.py``.

Examples
--------
>>> np.diff(np.array([1., 2., 4., 7.]))
array([1., 2., 3.])
>>> np.einsum('ij,jk->ik', a, b)          # a @ b, with gradients
>>> np.insert(np.array([1., 2.]), 1, 5.)
array([1., 5., 2.])
"""

import numbers

import numpy

from ..base import DLBookError
from ..ndarray.ndarray import NDArray
from . import functions as F
from ._core import call, cast, result_dtype
from .creation import array, as_array, linspace

__all__ = [
    # element-wise
    'arctan2',
    'hypot',
    'copysign',
    'ldexp',
    'isnan',
    'isinf',
    'isfinite',
    'isposinf',
    'isneginf',
    'nan_to_num',
    'fabs',
    'fix',
    'deg2rad',
    'rad2deg',
    # differences and diagonals
    'diff',
    'ediff1d',
    'diag',
    'diagonal',
    'diagflat',
    'trace',
    # joining, splitting, flipping
    'append',
    'insert',
    'delete',
    'atleast_1d',
    'atleast_2d',
    'atleast_3d',
    'column_stack',
    'row_stack',
    'dstack',
    'array_split',
    'hsplit',
    'vsplit',
    'dsplit',
    'fliplr',
    'flipud',
    # products, statistics, creation
    'einsum',
    'inner',
    'vdot',
    'bincount',
    'average',
    'logspace',
    'copy',
    'shape',
    'finfo',
    'bool',
    'NAN',
    'NaN',
    'NINF',
    'PINF',
]

NAN = NaN = numpy.nan
NINF, PINF = -numpy.inf, numpy.inf
bool = numpy.bool_  # noqa: A001  (MXNet's ``np.bool``)
finfo = numpy.finfo


def _is_number(x):
    return isinstance(x, numbers.Number) and not isinstance(x, NDArray)


# -- element-wise ---------------------------------------------------------------


def _operands(x1, x2, floats):
    """Two arrays of one dtype: a number takes the other operand's dtype,
    two arrays MXNet's promotion; ``floats``: integers become float32."""
    if _is_number(x1) and not _is_number(x2):
        x2 = as_array(x2)
        x1 = as_array(x1, like=x2, dtype=x2.dtype)
    elif _is_number(x2) and not _is_number(x1):
        x1 = as_array(x1)
        x2 = as_array(x2, like=x1, dtype=x1.dtype)
    else:
        x1, x2 = as_array(x1), as_array(x2, like=x1)
    target = result_dtype(x1.dtype, x2.dtype)
    if floats and target.kind != 'f':
        target = numpy.dtype('float32')
    return cast(x1, target), cast(x2, target)


def _binary(op_name, x1, x2, out, floats):
    return F._out(call(op_name, *_operands(x1, x2, floats)), out)


def arctan2(x1, x2, out=None, **kwargs):
    """Element-wise arc tangent of ``x1 / x2`` in the right quadrant.

    Parameters
    ----------
    x1, x2 : ndarray or scalar
        The y- and x-coordinates (broadcast together).

    Returns
    -------
    ndarray
        Angles in radians, in ``[-pi, pi]``: ``arctan2(1, -1)`` is
        ``3*pi/4`` where ``arctan(1 / -1)`` is ``-pi/4``.  Integer inputs
        give float32 (MXNet 1.9.1 raises for them).  Differentiable in
        both inputs.

    Examples
    --------
    >>> np.arctan2(np.array([1., -2., 3.]), np.array([2., 2., -1.]))
    array([ 0.4636476, -0.7853982,  1.8925469])
    """
    return _binary('_npi_arctan2', x1, x2, out, True)


def hypot(x1, x2, out=None, **kwargs):
    """Element-wise ``sqrt(x1**2 + x2**2)``, the hypotenuse, computed
    without overflow for large inputs (operator ``broadcast_hypot``).
    Integer inputs give float32.

    >>> np.hypot(np.array([3.]), 4.)
    array([5.])
    """
    return _binary('broadcast_hypot', x1, x2, out, True)


def copysign(x1, x2, out=None, **kwargs):
    """Element-wise ``|x1|`` with the sign of ``x2``.

    Integer inputs keep their dtype (as MXNet).  The gradient reaches
    ``x1`` only (``+-1``, whether the sign was flipped); ``x2``'s is 0.

    >>> np.copysign(np.array([1., -2., 3.]), np.array([2., 2., -1.]))
    array([ 1.,  2., -3.])
    """
    return _binary('_npi_copysign', x1, x2, out, False)


def ldexp(x1, x2, out=None, **kwargs):
    """Element-wise ``x1 * 2**x2``.

    The result has ``x1``'s dtype after promotion (integers stay
    integers, as MXNet).  Differentiable in both inputs:
    ``d/dx2 = x1 * 2**x2 * ln 2``.

    >>> np.ldexp(np.array([1., -2., 3.]), np.array([2., 2., -1.]))
    array([ 4. , -8. ,  1.5])
    """
    return _binary('_npi_ldexp', x1, x2, out, False)


def _floats(x):
    x = as_array(x)
    return x if x.dtype.kind == 'f' else cast(x, 'float32')


def _test(host, x, build, out):
    """A bool element test: a Python number gives NumPy's ``bool_`` (as
    MXNet), an array a bool array (no gradient)."""
    if _is_number(x):
        return host(x)
    return F._out(cast(build(_floats(x)), 'bool'), out)


def isnan(x, out=None, **kwargs):
    """True where ``x`` is NaN (bool; False everywhere for integers).

    >>> np.isnan(np.array([1., np.nan, np.inf]))
    array([False,  True, False])
    """
    return _test(numpy.isnan, x, lambda v: call('_contrib_isnan', v), out)


def isinf(x, out=None, **kwargs):
    """True where ``x`` is +inf or -inf (bool)."""
    return _test(numpy.isinf, x, lambda v: call('_contrib_isinf', v), out)


def isfinite(x, out=None, **kwargs):
    """True where ``x`` is neither infinite nor NaN (bool)."""
    return _test(
        numpy.isfinite, x, lambda v: call('_contrib_isfinite', v), out
    )


def isposinf(x, out=None, **kwargs):
    """True where ``x`` is +inf (bool)."""
    return _test(
        numpy.isposinf,
        x,
        lambda v: call('_npi_equal_scalar', v, scalar=numpy.inf),
        out,
    )


def isneginf(x, out=None, **kwargs):
    """True where ``x`` is -inf (bool)."""
    return _test(
        numpy.isneginf,
        x,
        lambda v: call('_npi_equal_scalar', v, scalar=-numpy.inf),
        out,
    )


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None, **kwargs):
    """Replace NaN by ``nan``, +inf by ``posinf``, -inf by ``neginf``.

    Parameters
    ----------
    x : ndarray or scalar
    copy : bool
        False writes the result into ``x`` and returns ``x``.
    nan, posinf, neginf : float, optional
        The replacements; infinities become the dtype's largest and
        smallest finite values by default (``3.4028235e+38`` in float32).

    Integers pass through unchanged.  The gradient is 1 where ``x`` was
    finite and 0 where a value was replaced (as MXNet).

    >>> np.nan_to_num(np.array([1., np.nan, np.inf]), posinf=9.)
    array([1., 0., 9.])
    """
    if _is_number(x):
        return numpy.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)
    x = as_array(x)
    y = call(
        '_npi_nan_to_num', x, copy=copy, nan=nan, posinf=posinf, neginf=neginf
    )
    if copy:
        return y
    x[...] = y
    return x


def fabs(x, out=None, **kwargs):
    """Element-wise absolute value.  Unlike NumPy's ``fabs`` (always
    float), integers keep their dtype, as in MXNet; a Python number
    gives NumPy's float64 scalar."""
    if _is_number(x):
        return numpy.fabs(x)
    return F._out(call('abs', as_array(x)), out)


def fix(x, out=None, **kwargs):
    """Round toward zero: ``fix(-1.5)`` is -1, ``fix(2.7)`` is 2 (the
    legacy ``fix`` operator; its gradient is 0)."""
    if _is_number(x):
        return numpy.fix(x)
    return F._out(call('fix', as_array(x)), out)


def deg2rad(x, out=None, **kwargs):
    """Degrees to radians, ``x * pi / 180`` (the same as ``radians``).
    MXNet 1.9.1 lists the name but raises AttributeError when called."""
    return F.radians(x if _is_number(x) else _floats(x), out=out)


def rad2deg(x, out=None, **kwargs):
    """Radians to degrees, ``x * 180 / pi`` (the same as ``degrees``).
    MXNet 1.9.1 lists the name but raises AttributeError when called."""
    return F.degrees(x if _is_number(x) else _floats(x), out=out)


# -- differences and diagonals ---------------------------------------------------


def _slice(a, axis, begin, end):
    return call('slice_axis', a, axis=axis, begin=begin, end=end)


def _along(value, like, axis):
    """``value`` (a number or an array) as an array that can be joined to
    ``like`` along ``axis``: a number becomes length 1 there."""
    if _is_number(value):
        shape = list(like.shape)
        shape[axis] = 1
        return as_array(numpy.full(shape, value), like=like, dtype=like.dtype)
    value = as_array(value, like=like)
    if value.ndim == 0:
        return _along(value.item(), like, axis)
    return value


def diff(a, n=1, axis=-1, prepend=None, append=None):  # noqa: A002
    """The ``n``-th discrete difference along ``axis``:
    ``out[i] = a[i+1] - a[i]``, applied ``n`` times.

    Parameters
    ----------
    a : ndarray
    n : int
        How many times to difference; 0 gives ``a`` back.
    axis : int
        The axis (the last by default); it shrinks by ``n``.
    prepend, append : number or ndarray, optional
        Joined to ``a`` along ``axis`` first (a number as one slice).

    Integer inputs keep their dtype.  Differentiable (two slices and a
    subtraction per step).

    >>> np.diff(np.array([1., 2., 4., 7.]))
    array([1., 2., 3.])
    >>> np.diff(np.array([1., 2., 4., 7.]), n=2)
    array([1., 1.])
    """
    a = as_array(a)
    if n < 0:
        raise DLBookError(f'diff: order must be non-negative but got {n}')
    if a.ndim == 0:
        raise DLBookError('diff: diff requires input that is at least 1-d')
    axis = axis % a.ndim
    parts = []
    if prepend is not None:
        parts.append(_along(prepend, a, axis))
    parts.append(a)
    if append is not None:
        parts.append(_along(append, a, axis))
    if len(parts) > 1:
        a = F.concatenate(parts, axis=axis)
    for _ in range(n):
        length = a.shape[axis]
        if length == 0:
            break
        a = F.subtract(
            _slice(a, axis, 1, length), _slice(a, axis, 0, length - 1)
        )
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array, ``ary[1:] - ary[:-1]``, with
    ``to_begin`` and ``to_end`` (numbers or arrays) joined on.

    >>> np.ediff1d(np.array([[1., 2.], [4., 7.]]), to_begin=-1.)
    array([-1.,  1.,  2.,  3.])
    """
    flat = F.reshape(as_array(ary), (-1,))
    parts = [diff(flat)] if flat.shape[0] else [flat]
    for value, where in ((to_begin, 0), (to_end, len(parts) + 1)):
        if value is None:
            continue
        v = F.reshape(as_array(value, like=flat, dtype=flat.dtype), (-1,))
        parts.insert(where if where == 0 else len(parts), cast(v, flat.dtype))
    return parts[0] if len(parts) == 1 else F.concatenate(parts)


def diag(v, k=0):
    """A diagonal matrix from a 1-d ``v``, or the ``k``-th diagonal of a
    2-d ``v`` (the legacy ``diag`` operator; differentiable).

    >>> np.diag(np.array([1., 2.]), k=-1)
    array([[0., 0., 0.],
           [1., 0., 0.],
           [0., 2., 0.]])
    """
    v = as_array(v)
    if v.ndim not in (1, 2):
        raise DLBookError(
            f'diag: input must be 1- or 2-d, got shape {v.shape}'
        )
    return call('diag', v, k=k)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset``-th diagonal of the planes ``axis1``/``axis2``; those
    two axes are removed and the diagonal becomes the last axis (as
    NumPy).  Differentiable.

    >>> np.diagonal(np.arange(24).reshape(2, 3, 4), 1, 1, 2)
    array([[ 1.,  6., 11.],
           [13., 18., 23.]])
    """
    a = as_array(a)
    if a.ndim < 2:
        raise DLBookError(
            f'diagonal: input must be at least 2-d, got shape {a.shape}'
        )
    return call('diag', a, k=offset, axis1=axis1, axis2=axis2)


def diagflat(v, k=0):
    """A 2-d array with the flattened ``v`` on its ``k``-th diagonal."""
    return diag(F.reshape(as_array(v), (-1,)), k=k)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The sum along the ``offset``-th diagonal (0-d for a matrix)."""
    d = diagonal(a, offset, axis1, axis2)
    return F._out(F.sum(d, axis=-1, dtype=dtype), out)


# -- joining, splitting, flipping -------------------------------------------------


def append(arr, values, axis=None):
    """``values`` joined to the end of ``arr``: both flattened when
    ``axis`` is None, else along ``axis`` (shapes must then agree).

    >>> np.append(np.array([1., 2.]), np.array([[3.]]))
    array([1., 2., 3.])
    """
    arr = as_array(arr)
    values = as_array(values, like=arr)
    if axis is None:
        return F.concatenate(
            [F.reshape(arr, (-1,)), F.reshape(values, (-1,))], axis=0
        )
    return F.concatenate([arr, values], axis=axis)


def _positions(obj, length, what):
    """``obj`` (an int, a slice or a sequence of ints) as a host int64
    array, negatives counted from the end."""
    if isinstance(obj, slice):
        return numpy.arange(*obj.indices(length)), False
    if isinstance(obj, NDArray):
        obj = obj.asnumpy()
    idx = numpy.asarray(obj)
    if idx.dtype.kind == 'b':
        raise DLBookError(f'{what}: boolean index arrays are not supported')
    if idx.dtype.kind not in 'iu' and idx.size:
        if not numpy.all(numpy.equal(numpy.mod(idx, 1), 0)):
            raise DLBookError(f'{what}: index arrays must be integers')
    return idx.astype('int64'), idx.ndim == 0


def insert(arr, obj, values, axis=None):
    """``values`` inserted into ``arr`` before the index (or indices)
    ``obj`` along ``axis`` (the flattened array when None).

    Parameters
    ----------
    arr : ndarray
    obj : int, slice or sequence of ints
        Where to insert: before these positions of the original array
        (``len(arr)`` appends; negatives count from the end).
    values : number or ndarray
        Cast to ``arr``'s dtype.  With one int ``obj`` all of ``values``
        goes in there; with several positions one value (or slice) each.
    axis : int, optional

    The result is differentiable in ``arr`` and ``values`` (slices and a
    ``concatenate``).

    >>> np.insert(np.array([1., 2., 4., 7.]), 1, np.array([8., 9.]))
    array([1., 8., 9., 2., 4., 7.])
    >>> np.insert(np.array([1., 2., 4.]), [0, 2], 0.)
    array([0., 1., 2., 0., 4.])
    """
    arr = as_array(arr)
    if axis is None:
        arr, axis = F.reshape(arr, (-1,)), 0
    axis = axis % max(arr.ndim, 1)
    n = arr.shape[axis]
    idx, single = _positions(obj, n, 'insert')
    values = cast(as_array(values, like=arr, dtype=arr.dtype), arr.dtype)
    if idx.size and (idx.min() < -n or idx.max() > n):
        bad = int(idx.min() if idx.min() < -n else idx.max())
        raise DLBookError(
            f'insert: index {bad} is out of bounds for axis {axis} '
            f'with size {n}'
        )
    idx = numpy.where(idx < 0, idx + n, idx)
    if values.ndim < arr.ndim:
        values = F.reshape(
            values, (1,) * (arr.ndim - values.ndim) + values.shape
        )
    if single:
        values = F.moveaxis(values, 0, axis) if arr.ndim > 1 else values
        shape = list(arr.shape)
        shape[axis] = values.shape[axis]
        values = F.broadcast_to(values, tuple(shape))
        pieces = [
            _slice(arr, axis, 0, int(idx)),
            values,
            _slice(arr, axis, int(idx), n),
        ]
        return (
            F.concatenate([p for p in pieces if p.size], axis=axis)
            if (arr.size or values.size)
            else arr
        )
    idx = idx.reshape(-1)
    shape = list(arr.shape)
    shape[axis] = idx.size
    values = F.broadcast_to(values, tuple(shape))
    order = numpy.argsort(idx, kind='stable')
    pieces, start = [], 0
    for j in order:
        stop = int(idx[j])
        if stop > start:
            pieces.append(_slice(arr, axis, start, stop))
        pieces.append(_slice(values, axis, int(j), int(j) + 1))
        start = stop
    if start < n:
        pieces.append(_slice(arr, axis, start, n))
    if not pieces:
        return arr
    return F.concatenate(pieces, axis=axis)


def delete(arr, obj, axis=None):
    """``arr`` without the entries at ``obj`` (an int, a slice or a
    sequence of ints) along ``axis`` (the flattened array when None).
    Differentiable (a ``take`` of the kept entries).

    >>> np.delete(np.array([1., 2., 4., 7.]), slice(1, 3))
    array([1., 7.])
    """
    arr = as_array(arr)
    if axis is None:
        arr, axis = F.reshape(arr, (-1,)), 0
    axis = axis % max(arr.ndim, 1)
    n = arr.shape[axis]
    idx, _ = _positions(obj, n, 'delete')
    idx = idx.reshape(-1)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = int(idx.min() if idx.min() < -n else idx.max())
        raise DLBookError(
            f'delete: index {bad} is out of bounds for axis {axis} '
            f'with size {n}'
        )
    keep = numpy.ones(n, dtype=numpy.bool_)
    keep[idx] = False
    kept = numpy.flatnonzero(keep)
    if kept.size == n:
        return F.take(arr, array(kept, dtype='int64', ctx=arr.context), axis)
    if kept.size == 0:
        return _slice(arr, axis, 0, 0) if n else arr
    return F.take(arr, array(kept, dtype='int64', ctx=arr.context), axis)


def _atleast(arys, ndim, shape_of):
    out = []
    for a in arys:
        a = as_array(a)
        out.append(a if a.ndim >= ndim else F.reshape(a, shape_of(a)))
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """Each array with at least one axis (a 0-d array becomes shape
    (1,)); one array in, one out, else a list."""
    return _atleast(arys, 1, lambda a: (1,))


def atleast_2d(*arys):
    """At least two axes: () -> (1, 1), (N,) -> (1, N)."""
    return _atleast(arys, 2, lambda a: (1,) * (2 - a.ndim) + a.shape)


def atleast_3d(*arys):
    """At least three axes: () -> (1, 1, 1), (N,) -> (1, N, 1),
    (M, N) -> (M, N, 1)."""
    shapes = {0: lambda a: (1, 1, 1), 1: lambda a: (1,) + a.shape + (1,)}
    return _atleast(
        arys, 3, lambda a: shapes.get(a.ndim, lambda a: a.shape + (1,))(a)
    )


def column_stack(tup):
    """1-d arrays as the columns of a 2-d array (2-d arrays are joined
    along axis 1 as they are).

    >>> np.column_stack((np.array([1., 2.]), np.array([3., 4.])))
    array([[1., 3.],
           [2., 4.]])
    """
    arrays = [as_array(a) for a in tup]
    arrays = [F.reshape(a, (-1, 1)) if a.ndim < 2 else a for a in arrays]
    return F.concatenate(arrays, axis=1)


def row_stack(tup):
    """The same as :func:`~dlbook.numpy.vstack`."""
    return F.vstack(tup)


def dstack(tup):
    """Join along the third axis, after :func:`atleast_3d`."""
    arrays = [atleast_3d(a) for a in tup]
    return F.concatenate(arrays, axis=2)


def array_split(ary, indices_or_sections, axis=0):
    """Like :func:`~dlbook.numpy.split`, but an int need not divide the
    axis: the first ``len % sections`` parts get one element more (and
    parts may be empty).

    >>> np.array_split(np.arange(5), 3)
    [array([0., 1.]), array([2., 3.]), array([4.])]
    """
    a = as_array(ary)
    n = a.shape[axis]
    if isinstance(indices_or_sections, numbers.Integral):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise DLBookError(
                'array_split: number sections must be larger than 0.'
            )
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = numpy.concatenate([[0], numpy.cumsum(sizes)])
    else:
        inner = [
            min(max(int(i) + (n if i < 0 else 0), 0), n)
            for i in indices_or_sections
        ]
        bounds = [0] + inner + [n]
    parts = []
    for begin, end in zip(bounds[:-1], bounds[1:]):
        begin, end = int(begin), int(max(begin, end))
        parts.append(_slice(a, axis, begin, end))
    return parts


def _split_checked(ary, ios, axis, name, min_ndim):
    a = as_array(ary)
    if a.ndim < min_ndim:
        raise DLBookError(
            f'{name} only works on arrays of {min_ndim} or more dimensions'
        )
    if isinstance(ios, numbers.Integral) and a.shape[axis] % ios:
        raise DLBookError(
            f'{name}: array split does not result in an equal division'
        )
    return array_split(a, ios, axis=axis)


def hsplit(ary, indices_or_sections):
    """Split along axis 1 (axis 0 for a 1-d array), into equal parts (an
    int) or at the given indices."""
    a = as_array(ary)
    axis = 1 if a.ndim > 1 else 0
    return _split_checked(a, indices_or_sections, axis, 'hsplit', 1)


def vsplit(ary, indices_or_sections):
    """Split along axis 0; the array must be at least 2-d."""
    return _split_checked(ary, indices_or_sections, 0, 'vsplit', 2)


def dsplit(ary, indices_or_sections):
    """Split along axis 2; the array must be at least 3-d."""
    return _split_checked(ary, indices_or_sections, 2, 'dsplit', 3)


def fliplr(m):
    """Reverse the columns (axis 1); ``m`` must be at least 2-d."""
    m = as_array(m)
    if m.ndim < 2:
        raise DLBookError('fliplr: Input must be >= 2-d.')
    return F.flip(m, axis=1)


def flipud(m):
    """Reverse the rows (axis 0); ``m`` must be at least 1-d."""
    m = as_array(m)
    if m.ndim < 1:
        raise DLBookError('flipud: Input must be >= 1-d.')
    return F.flip(m, axis=0)


# -- products, statistics, creation ------------------------------------------------


def einsum(*operands, **kwargs):
    """Einstein summation: ``subscripts`` name each operand's axes, the
    output keeps the letters after ``->`` and sums over the others.

    Parameters
    ----------
    subscripts : str
        ``'ij,jk->ik'`` (matrix product), ``'ii'`` (trace), ``'ij->ji'``
        (transpose), ``'...ij->...ji'`` (``...`` for leading axes).
        Without ``->`` the output is the letters seen once, sorted.
    *operands : ndarray
        Promoted to one dtype (MXNet 1.9.1 requires equal dtypes).
    optimize : bool, optional
        Accepted and ignored (the contraction order is NumPy's).

    Returns
    -------
    ndarray
        0-d when every letter is summed.  Differentiable in every float
        operand (operator ``_npi_einsum``).

    Examples
    --------
    >>> np.einsum('ii', np.eye(3))
    array(3.)
    >>> np.einsum('ij->', np.array([[1., 0.], [2., 3.]]))
    array(6.)
    """
    if not operands or not isinstance(operands[0], str):
        raise DLBookError(
            'einsum: the first argument must be the subscripts string'
        )
    unknown = set(kwargs) - {'optimize', 'out'}
    if unknown:
        raise DLBookError(f'einsum: unexpected argument(s) {sorted(unknown)}')
    subscripts, *arrays = operands
    arrays = F._arrays(arrays)
    y = call(
        '_npi_einsum',
        *arrays,
        subscripts=subscripts,
        num_args=len(arrays),
        optimize=1 if kwargs.get('optimize') else 0,
    )
    return F._out(y, kwargs.get('out'))


def inner(a, b):
    """Sum of products over the last axes of ``a`` and ``b`` (an
    ``einsum``); for 1-d arrays the 0-d dot product."""
    a, b = _operands(a, b, False)
    if a.ndim == 0 or b.ndim == 0:
        return F.multiply(a, b)
    return (
        einsum('...i,...i', a, b)
        if a.ndim == b.ndim == 1
        else F.tensordot(a, F.moveaxis(b, -1, 0), axes=1)
    )


def vdot(a, b):
    """The dot product of the flattened arrays (0-d)."""
    a, b = _operands(a, b, False)
    return F.dot(F.reshape(a, (-1,)), F.reshape(b, (-1,)))


def bincount(x, weights=None, minlength=0):
    """How many times each value ``0..max(x)`` occurs in the 1-d
    non-negative integer array ``x`` (int64); with ``weights``, the sums
    of the weights instead (in the weights' dtype, float32 for MXNet's
    default arrays).  At least ``minlength`` entries.  No gradient.

    >>> np.bincount(np.array([0, 1, 1, 3], dtype='int64'))
    array([1, 2, 0, 1], dtype=int64)
    """
    x = as_array(x, dtype='int64')
    if weights is None:
        return call('_npi_bincount', x, minlength=minlength)
    w = as_array(weights, like=x)
    return call('_npi_bincount', x, w, minlength=minlength, has_weights=True)


def average(a, axis=None, weights=None, returned=False):
    """The weighted mean over ``axis``: ``sum(a * w) / sum(w)``.

    Parameters
    ----------
    a : ndarray
    axis : int or tuple, optional
        All axes by default (a 0-d result).
    weights : ndarray, optional
        The shape of ``a``, or 1-d along a single ``axis``; ones by
        default.  Weights summing to 0 give NaN (as MXNet; NumPy raises).
    returned : bool
        Also return the sum of the weights (without ``weights``: the
        element count, 0-d, as MXNet).

    Integer ``a`` without weights keeps its dtype (the mean truncated, as
    MXNet: ``average([1, 2])`` is 1).  Differentiable in ``a`` and
    ``weights``.

    >>> np.average(np.array([1., 2.]), weights=np.array([1., 3.]))
    array(1.75)
    """
    a = as_array(a)
    if weights is None:
        y = F.mean(a, axis=axis)
        if a.dtype.kind in 'iu':
            y = cast(y, a.dtype)
        if not returned:
            return y
        count = a.size // max(y.size, 1)
        return y, array(count, dtype=y.dtype, ctx=a.context)
    a, w = _operands(a, weights, False)
    if w.shape != a.shape:
        if axis is None or w.ndim != 1 or not isinstance(axis, int):
            raise DLBookError(
                'average: axis must be specified when shapes of a and '
                'weights differ'
            )
        if w.shape[0] != a.shape[axis]:
            raise DLBookError(
                'average: length of weights not compatible with specified axis.'
            )
        shape = [1] * a.ndim
        shape[axis] = w.shape[0]
        w = F.broadcast_to(F.reshape(w, tuple(shape)), a.shape)
    total = F.sum(w, axis=axis)
    y = F.true_divide(F.sum(F.multiply(a, w), axis=axis), total)
    return (y, total) if returned else y


def logspace(
    start,
    stop,
    num=50,
    endpoint=True,
    base=10.0,
    dtype=None,
    axis=0,
    ctx=None,
):
    """``base ** linspace(start, stop, num)``: ``num`` values spaced
    evenly on a log scale (float32 unless ``dtype``; computed in float64
    so that ``logspace(0, 2, 3, dtype='int32')`` is exactly 1, 10, 100).

    >>> np.logspace(0, 2, 3)
    array([  1.,  10., 100.])
    """
    if axis != 0:
        raise DLBookError('logspace: only axis=0 is supported')
    exps = linspace(
        start, stop, num, endpoint=endpoint, dtype='float64', ctx=ctx
    )
    y = call('_rpower_scalar', exps, scalar=float(base))
    return cast(y, numpy.dtype(dtype or 'float32'))


def copy(a):
    """A copy of ``a`` (recorded: the gradient flows through)."""
    return call('_copy', as_array(a))


def shape(a):
    """The shape of ``a`` (a tuple)."""
    return a.shape if isinstance(a, NDArray) else numpy.shape(a)
