"""``mx.np`` functions: NumPy's names and signatures over dlbook's
registered operators.

Each function is an adapter: it maps NumPy's arguments (``axis``,
``keepdims``, ``newshape``...) onto a legacy operator, runs it through the
eager front end (so ``autograd`` records it) and applies NumPy mode's
result conventions (0-d results, ``bool`` comparisons, MXNet's dtype
promotion).  The formulas and gradients live in ``dlbook.ops`` only.
"""

import numbers

import numpy

from ..base import DLBookError
from ..ndarray.ndarray import NDArray
from ..ops import REGISTRY
from ._core import call, cast, result_dtype, run, shaped
from .creation import as_array

#: ``mx.np.ndarray`` (set by multiarray.py, which imports this module)
_NP = None

__all__ = [
    # arithmetic
    'add',
    'subtract',
    'multiply',
    'divide',
    'true_divide',
    'mod',
    'remainder',
    'power',
    'maximum',
    'minimum',
    'negative',
    # comparisons
    'equal',
    'not_equal',
    'greater',
    'greater_equal',
    'less',
    'less_equal',
    'logical_not',
    # element-wise math
    'exp',
    'expm1',
    'log',
    'log2',
    'log10',
    'log1p',
    'sqrt',
    'cbrt',
    'square',
    'abs',
    'absolute',
    'sign',
    'floor',
    'ceil',
    'trunc',
    'rint',
    'sin',
    'cos',
    'tan',
    'arcsin',
    'arccos',
    'arctan',
    'sinh',
    'cosh',
    'tanh',
    'arcsinh',
    'arccosh',
    'arctanh',
    'reciprocal',
    'clip',
    'degrees',
    'radians',
    # reductions
    'sum',
    'mean',
    'prod',
    'max',
    'min',
    'amax',
    'amin',
    'argmax',
    'argmin',
    'std',
    'var',
    'cumsum',
    'all',
    'any',
    # linear algebra
    'dot',
    'matmul',
    'tensordot',
    'outer',
    # shapes and joining
    'reshape',
    'ravel',
    'transpose',
    'swapaxes',
    'moveaxis',
    'expand_dims',
    'squeeze',
    'broadcast_to',
    'tile',
    'repeat',
    'concatenate',
    'stack',
    'vstack',
    'hstack',
    'split',
    'flip',
    'meshgrid',
    'where',
    # selection and sorting
    'sort',
    'argsort',
    'nonzero',
    'unique',
    'take',
    # host helpers
    'genfromtxt',
    'set_printoptions',
    'may_share_memory',
]


# -- operands -----------------------------------------------------------------


def _is_number(x):
    return isinstance(x, numbers.Number) and not isinstance(x, NDArray)


def _unary(name, x, **attrs):
    return call(name, as_array(x), **attrs)


def _pair(a, b, dtype=None):
    """Two arrays of one promoted dtype (or ``dtype`` if given)."""
    if (
        dtype is None
        and isinstance(a, NDArray)
        and isinstance(b, NDArray)
        and a._data.dtype == b._data.dtype
    ):
        return a, b
    a = as_array(a, like=b)
    b = as_array(b, like=a)
    target = dtype or result_dtype(a.dtype, b.dtype)
    return cast(a, target), cast(b, target)


def _scalar_dtype(x, scalar):
    """A bool array meets a number: it becomes int64 (an int) or float32
    (a float), as in MXNet."""
    if x.dtype.kind == 'b':
        return 'float32' if isinstance(scalar, float) else 'int64'
    return None


def _arith(a, b, array_op, scalar_op, rscalar_op=None):
    """``a <op> b`` for arrays and numbers with MXNet's promotion:
    a number takes the array's dtype (``int32 + 1.5`` stays int32)."""
    if _is_number(b) and not _is_number(a):
        a = as_array(a)
        target = _scalar_dtype(a, b)
        return call(scalar_op, cast(a, target) if target else a, scalar=b)
    if _is_number(a) and not _is_number(b):
        b = as_array(b)
        target = _scalar_dtype(b, a)
        b = cast(b, target) if target else b
        if rscalar_op is None:  # commutative
            return call(scalar_op, b, scalar=a)
        return call(rscalar_op, b, scalar=a)
    if _is_number(a) and _is_number(b):
        a = as_array(a)
        return _arith(a, b, array_op, scalar_op, rscalar_op)
    a, b = _pair(a, b)
    return call(array_op, a, b)


def add(x1, x2, out=None):
    """Element-wise ``x1 + x2`` (broadcasting)."""
    return _out(_arith(x1, x2, 'broadcast_add', '_plus_scalar'), out)


def subtract(x1, x2, out=None):
    """Element-wise ``x1 - x2``."""
    return _out(
        _arith(x1, x2, 'broadcast_sub', '_minus_scalar', '_rminus_scalar'), out
    )


def multiply(x1, x2, out=None):
    """Element-wise ``x1 * x2``."""
    return _out(_arith(x1, x2, 'broadcast_mul', '_mul_scalar'), out)


def _float_for_division(x):
    x = as_array(x)
    return cast(x, 'float32') if x.dtype.kind in 'biu' else x


def true_divide(x1, x2, out=None):
    """Element-wise ``x1 / x2``; integer inputs give float32 (MXNet)."""
    if not _is_number(x1):
        x1 = _float_for_division(x1)
    if not _is_number(x2):
        x2 = _float_for_division(x2)
    return _out(
        _arith(x1, x2, 'broadcast_div', '_div_scalar', '_rdiv_scalar'), out
    )


divide = true_divide


def mod(x1, x2, out=None):
    """Element-wise remainder with the sign of ``x2``."""
    return _out(
        _arith(x1, x2, 'broadcast_mod', '_mod_scalar', '_rmod_scalar'), out
    )


remainder = mod


def power(x1, x2, out=None):
    """Element-wise ``x1 ** x2``."""
    return _out(
        _arith(x1, x2, 'broadcast_power', '_power_scalar', '_rpower_scalar'),
        out,
    )


def maximum(x1, x2, out=None):
    """Element-wise larger value (broadcasting)."""
    return _out(_arith(x1, x2, 'broadcast_maximum', '_maximum_scalar'), out)


def minimum(x1, x2, out=None):
    """Element-wise smaller value (broadcasting)."""
    return _out(_arith(x1, x2, 'broadcast_minimum', '_minimum_scalar'), out)


def negative(x, out=None):
    """``-x``."""
    return _out(_unary('negative', x), out)


def _out(result, out):
    if out is None:
        return result
    out[...] = result
    return out


# -- comparisons: bool results --------------------------------------------------


def _compare(a, b, array_op, scalar_op, rscalar_op):
    """``a <op> b`` as bool, through the bool-result operators
    (``_npi_greater``...; ``rscalar_op`` is the mirrored scalar form)."""
    if _is_number(b) and not _is_number(a):
        return call(scalar_op, as_array(a), scalar=b)
    if _is_number(a) and not _is_number(b):
        return call(rscalar_op, as_array(b), scalar=a)
    a, b = _pair(a, b)
    return call(array_op, a, b)


def equal(x1, x2):
    """``x1 == x2`` as a bool array."""
    return _compare(
        x1, x2, '_npi_equal', '_npi_equal_scalar', '_npi_equal_scalar'
    )


def not_equal(x1, x2):
    """``x1 != x2`` as a bool array."""
    return _compare(
        x1,
        x2,
        '_npi_not_equal',
        '_npi_not_equal_scalar',
        '_npi_not_equal_scalar',
    )


def greater(x1, x2):
    """``x1 > x2`` as a bool array."""
    return _compare(
        x1, x2, '_npi_greater', '_npi_greater_scalar', '_npi_less_scalar'
    )


def greater_equal(x1, x2):
    """``x1 >= x2`` as a bool array."""
    return _compare(
        x1,
        x2,
        '_npi_greater_equal',
        '_npi_greater_equal_scalar',
        '_npi_less_equal_scalar',
    )


def less(x1, x2):
    """``x1 < x2`` as a bool array."""
    return _compare(
        x1, x2, '_npi_less', '_npi_less_scalar', '_npi_greater_scalar'
    )


def less_equal(x1, x2):
    """``x1 <= x2`` as a bool array."""
    return _compare(
        x1,
        x2,
        '_npi_less_equal',
        '_npi_less_equal_scalar',
        '_npi_greater_equal_scalar',
    )


def logical_not(x):
    """``not x`` element-wise, as a bool array."""
    return cast(_unary('logical_not', x), 'bool')


# -- element-wise math ---------------------------------------------------------


def _make_unary(op_name, np_name):
    def function(x, out=None, **kwargs):
        return _out(_unary(op_name, x), out)

    function.__name__ = function.__qualname__ = np_name
    function.__doc__ = (
        f'Element-wise ``{np_name}`` (operator '
        f'``{op_name}``; the input dtype is kept).'
    )
    return function


for _np_name, _op_name in [
    ('exp', 'exp'),
    ('expm1', 'expm1'),
    ('log', 'log'),
    ('log2', 'log2'),
    ('log10', 'log10'),
    ('log1p', 'log1p'),
    ('sqrt', 'sqrt'),
    ('cbrt', 'cbrt'),
    ('square', 'square'),
    ('abs', 'abs'),
    ('absolute', 'abs'),
    ('sign', 'sign'),
    ('floor', 'floor'),
    ('ceil', 'ceil'),
    ('trunc', 'trunc'),
    ('rint', 'rint'),
    ('sin', 'sin'),
    ('cos', 'cos'),
    ('tan', 'tan'),
    ('arcsin', 'arcsin'),
    ('arccos', 'arccos'),
    ('arctan', 'arctan'),
    ('sinh', 'sinh'),
    ('cosh', 'cosh'),
    ('tanh', 'tanh'),
    ('arcsinh', 'arcsinh'),
    ('arccosh', 'arccosh'),
    ('arctanh', 'arctanh'),
    ('reciprocal', 'reciprocal'),
    ('degrees', 'degrees'),
    ('radians', 'radians'),
]:
    globals()[_np_name] = _make_unary(_op_name, _np_name)
del _np_name, _op_name


def clip(a, a_min, a_max, out=None):
    """Limit the values to ``[a_min, a_max]`` (None: no bound)."""
    lo = -numpy.inf if a_min is None else a_min
    hi = numpy.inf if a_max is None else a_max
    return _out(_unary('clip', a, a_min=lo, a_max=hi), out)


# -- reductions ----------------------------------------------------------------


def _axis_attr(axis):
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


#: legacy reduction -> its NumPy-mode twin (0-d results; MXNet's names)
_NP_REDUCE = {
    'sum': REGISTRY['_np_sum'],
    'mean': REGISTRY['_npi_mean'],
    'prod': REGISTRY['_np_prod'],
    'max': REGISTRY['_np_max'],
    'min': REGISTRY['_np_min'],
}


def _reduce(op_name, a, axis, keepdims, dtype=None):
    a = as_array(a)
    if dtype is not None:
        a = cast(a, dtype)
    cls = _NP_REDUCE[op_name]
    if axis is None and not keepdims:
        return run(cls(), a)
    return run(cls(axis=_axis_attr(axis), keepdims=bool(keepdims)), a)


def sum(
    a,
    axis=None,
    dtype=None,
    out=None,
    keepdims=False,  # noqa: A001
    initial=None,
):
    """Sum over ``axis`` (all axes by default); a full sum is 0-d.  Bool
    inputs are counted as int64, as in MXNet."""
    a = as_array(a)
    if dtype is None and a.dtype.kind == 'b':
        dtype = 'int64'
    y = _reduce('sum', a, axis, keepdims, dtype)
    return _out(y if initial is None else add(y, initial), out)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Mean over ``axis``; integer and bool inputs give float32."""
    a = as_array(a)
    if dtype is None and a.dtype.kind in 'biu':
        dtype = 'float32'
    return _out(_reduce('mean', a, axis, keepdims, dtype), out)


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """Product over ``axis``."""
    return _out(_reduce('prod', a, axis, keepdims, dtype), out)


def max(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Largest value over ``axis``."""
    return _out(_reduce('max', a, axis, keepdims), out)


def min(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Smallest value over ``axis``."""
    return _out(_reduce('min', a, axis, keepdims), out)


amax, amin = max, min


def _arg(op_name, a, axis, keepdims=False):
    return call(op_name, as_array(a), axis=axis, keepdims=bool(keepdims))


def argmax(a, axis=None, out=None, keepdims=False):
    """Index of the largest value (of the flattened array if ``axis`` is
    None), as int64."""
    return _out(_arg('_npi_argmax', a, axis, keepdims), out)


def argmin(a, axis=None, out=None, keepdims=False):
    """Index of the smallest value, as int64."""
    return _out(_arg('_npi_argmin', a, axis, keepdims), out)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Variance over ``axis``: ``mean((a - mean(a))**2)`` (``ddof``
    subtracted from the count).  Integer inputs are computed in float32
    and given back in their dtype, as in MXNet."""
    return _out(_spread('_npi_var', a, axis, dtype, ddof, keepdims), out)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Standard deviation over ``axis``: ``sqrt(var(a))``."""
    return _out(_spread('_npi_std', a, axis, dtype, ddof, keepdims), out)


def _spread(op_name, a, axis, dtype, ddof, keepdims):
    a = as_array(a)
    work = cast(a, 'float32') if a.dtype.kind in 'biu' else a
    y = call(
        op_name,
        work,
        axis=_axis_attr(axis),
        ddof=ddof,
        keepdims=bool(keepdims),
    )
    return cast(y, dtype or a.dtype)


def cumsum(a, axis=None, dtype=None, out=None):
    """Running sums along ``axis`` (of the flattened array if None)."""
    from ..base import dtype_name

    return _out(
        call('_np_cumsum', as_array(a), axis=axis, dtype=dtype_name(dtype)),
        out,
    )


def all(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """True where every value over ``axis`` is non-zero."""
    return _out(
        call(
            '_np_all',
            as_array(a),
            axis=_axis_attr(axis),
            keepdims=bool(keepdims),
        ),
        out,
    )


def any(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """True where some value over ``axis`` is non-zero."""
    return _out(
        call(
            '_np_any',
            as_array(a),
            axis=_axis_attr(axis),
            keepdims=bool(keepdims),
        ),
        out,
    )


# -- linear algebra ------------------------------------------------------------


def dot(a, b, out=None):
    """NumPy's ``dot``: scalars multiply, 1-d . 1-d is a 0-d inner
    product, N-d . M-d sums over the last axis of ``a`` and the
    second-to-last of ``b`` (the operator ``_np_dot``)."""
    if type(a) is _NP and type(b) is _NP and a._data.dtype == b._data.dtype:
        return _out(run(_DOT(), a, b), out)  # the common case, fast
    if _is_number(a) or _is_number(b):
        return _out(multiply(a, b), out)
    a, b = _pair(a, b)
    return _out(run(_DOT(), a, b), out)


_DOT = REGISTRY['_np_dot']


def matmul(a, b, out=None):
    """Matrix product of the last two axes, the leading axes broadcast;
    a 1-d operand is a row (first) or column (second) vector (``@``)."""
    a, b = _pair(a, b)
    return _out(call('_npi_matmul', a, b), out)


def tensordot(a, b, axes=2):
    """Sum products over the last ``axes`` axes of ``a`` and the first
    ``axes`` axes of ``b`` (an int ``axes`` only)."""
    a, b = _pair(a, b)
    if not isinstance(axes, int):
        raise DLBookError('tensordot: only an int axes is supported')
    left = a.shape[: a.ndim - axes]
    right = b.shape[axes:]
    k = int(numpy.prod(a.shape[a.ndim - axes :]))
    y = dot(reshape(a, (-1, k)), reshape(b, (k, -1)))
    return reshape(y, left + right)


def outer(a, b):
    """Outer product of the flattened inputs."""
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


# -- shapes --------------------------------------------------------------------


def reshape(a, newshape, order='C'):
    """The same data in a new shape (one ``-1`` is inferred); ``()``
    makes a 0-d array."""
    if order != 'C':
        raise DLBookError("reshape: only order='C' is supported")
    if isinstance(newshape, int):
        newshape = (newshape,)
    return call('_np_reshape', as_array(a), newshape=tuple(newshape))


def ravel(x, order='C'):
    """The flattened array (1-d)."""
    return reshape(x, (-1,))


def transpose(a, axes=None):
    """Permute the axes (reverse them by default)."""
    return _unary(
        '_np_transpose', a, axes=tuple(axes) if axes is not None else None
    )


def swapaxes(a, axis1, axis2):
    """Exchange two axes."""
    return _unary('SwapAxis', a, dim1=axis1, dim2=axis2)


def moveaxis(a, source, destination):
    """Move axis ``source`` to position ``destination``."""
    a = as_array(a)
    axes = list(range(a.ndim))
    axes.insert(destination % a.ndim, axes.pop(source % a.ndim))
    return transpose(a, axes)


def expand_dims(a, axis):
    """Insert an axis of length 1 at ``axis``."""
    return _unary('expand_dims', a, axis=axis)


def squeeze(x, axis=None):
    """Drop axes of length 1 (all of them, or those in ``axis``); a result
    with no axes left is 0-d."""
    return _unary('_np_squeeze', x, axis=_axis_attr(axis))


def broadcast_to(array, shape):  # noqa: A002
    """``array`` broadcast to ``shape`` (NumPy rules)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _unary('_npi_broadcast_to', array, shape=shape)


def tile(A, reps):
    """Repeat the whole array ``reps`` times along each axis."""
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    return _unary('tile', A, reps=reps)


def repeat(a, repeats, axis=None):
    """Repeat each element ``repeats`` times (of the flattened array if
    ``axis`` is None)."""
    return _unary('repeat', a, repeats=repeats, axis=axis)


def _arrays(seq):
    arrays = [as_array(x) for x in seq]
    if not arrays:
        raise DLBookError('need at least one array to join')
    dtype = arrays[0]._data.dtype
    for x in arrays:
        if x._data.dtype != dtype:
            break
    else:
        return arrays  # the common case: nothing to cast
    target = arrays[0].dtype
    for x in arrays[1:]:
        target = result_dtype(target, x.dtype)
    return [cast(x, target) for x in arrays]


def concatenate(seq, axis=0, out=None):
    """Join arrays along an existing axis (``axis=None`` flattens them
    first)."""
    arrays = _arrays(seq)
    if axis is None:
        arrays, axis = [reshape(x, (-1,)) for x in arrays], 0
    return _out(
        call('_npi_concatenate', *arrays, axis=axis, num_args=len(arrays)), out
    )


def stack(arrays, axis=0, out=None):
    """Join arrays along a new axis."""
    arrays = _arrays(arrays)
    return _out(
        call('_npi_stack', *arrays, axis=axis, num_args=len(arrays)), out
    )


def vstack(arrays, out=None):
    """Stack along the first axis (1-d arrays become rows)."""
    arrays = [
        x if x.ndim >= 2 else reshape(x, (1, -1)) for x in _arrays(arrays)
    ]
    return concatenate(arrays, axis=0, out=out)


def hstack(arrays):
    """Stack along the second axis (the first for 1-d arrays)."""
    arrays = _arrays(arrays)
    return concatenate(arrays, axis=0 if arrays[0].ndim == 1 else 1)


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections (an int) or at the given indices; a list
    of arrays."""
    a = as_array(ary)
    if isinstance(indices_or_sections, int):
        parts = call('_split_v2', a, sections=indices_or_sections, axis=axis)
    else:
        parts = call(
            '_split_v2',
            a,
            axis=axis,
            indices=(0,) + tuple(indices_or_sections),
        )
    return parts if isinstance(parts, list) else [parts]


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes if None)."""
    m = as_array(m)
    axes = tuple(range(m.ndim)) if axis is None else axis
    return call('reverse', m, axis=axes)


def meshgrid(*xi, indexing='xy', sparse=False, copy=True):
    """Coordinate matrices from 1-d coordinate vectors, as NumPy: with
    ``indexing='xy'`` the first two output axes are swapped (built from
    the ``reshape`` and ``broadcast_to`` operators)."""
    if indexing not in ('xy', 'ij'):
        raise DLBookError(
            f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}"
        )
    vectors = [reshape(as_array(x), (-1,)) for x in xi]
    shape = [v.shape[0] for v in vectors]
    if indexing == 'xy' and len(shape) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for i, v in enumerate(vectors):
        axis = i
        if indexing == 'xy' and len(vectors) > 1 and i < 2:
            axis = 1 - i
        view = [1] * len(vectors)
        view[axis] = v.shape[0]
        g = reshape(v, tuple(view))
        grids.append(g if sparse else broadcast_to(g, tuple(shape)))
    return grids


def where(condition, x=None, y=None):
    """Elements of ``x`` where ``condition`` holds, else of ``y``
    (broadcasting); with only ``condition``, :func:`nonzero`."""
    if x is None and y is None:
        return nonzero(condition)
    c = as_array(condition)
    x, y = _pair(
        x if not _is_number(x) else as_array(x, like=c),
        y if not _is_number(y) else as_array(y, like=c),
    )
    return call('_npi_where', c, x, y)


# -- selection and sorting -------------------------------------------------------


def sort(a, axis=-1, kind=None, order=None):
    """A sorted copy along ``axis`` (the flattened array if None)."""
    a = as_array(a)
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    return call('sort', a, axis=axis, is_ascend=True)


def argsort(a, axis=-1, kind=None, order=None):
    """Indices that sort ``a`` along ``axis``, as int64."""
    a = as_array(a)
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    return call('argsort', a, axis=axis, is_ascend=True, dtype='int64')


def nonzero(a):
    """A tuple with, per axis, the int64 indices of the non-zero
    elements."""
    a = as_array(a)
    rows = call('_npi_nonzero', a)
    return tuple(
        call('slice_axis', rows, axis=1, begin=i, end=i + 1).reshape(-1)
        for i in range(a.ndim)
    )


def unique(
    ar,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
):
    """The sorted unique values (of the flattened array), optionally with
    first indices, inverse indices and counts (int64)."""
    out = call(
        '_npi_unique',
        as_array(ar),
        return_index=return_index,
        return_inverse=return_inverse,
        return_counts=return_counts,
        axis=axis,
    )
    return tuple(out) if isinstance(out, list) else out


def take(a, indices, axis=None, mode='raise', out=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened
    array if None)."""
    a = as_array(a)
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    idx = as_array(indices, like=a, dtype='int64')
    mode = (
        'clip' if mode == 'clip' else ('wrap' if mode == 'wrap' else 'raise')
    )
    y = call('take', a, idx, axis=axis, mode=mode)
    return _out(
        shaped(y, a.shape[:axis] + idx.shape + a.shape[axis + 1 :]), out
    )


# -- host helpers ----------------------------------------------------------------


def genfromtxt(*args, ctx=None, dtype=None, **kwargs):
    """Read a text file with NumPy's ``genfromtxt`` into an array
    (float32 unless ``dtype``)."""
    from .creation import array

    data = numpy.genfromtxt(*args, **kwargs)
    return array(data, dtype=dtype or 'float32', ctx=ctx)


def set_printoptions(precision=None, threshold=None, **kwargs):
    """Set NumPy's print options, which ``repr`` of an array uses."""
    numpy.set_printoptions(precision=precision, threshold=threshold, **kwargs)


def may_share_memory(a, b, max_work=None):
    """True if the two arrays may share memory."""
    return numpy.may_share_memory(a._data, b._data)
