"""Small operators of MXNet's ``contrib`` namespace: ``nd.contrib.<name>``.

They are registered as ``_contrib_<name>``, which ``nd.contrib`` and
``sym.contrib`` strip (``nd.contrib.quadratic``, ``sym.contrib.index_copy``):

* element tests ``isnan``, ``isinf``, ``isfinite`` (0/1 in the input's
  dtype) and the whole-array test ``allclose`` (one uint8 flag);
* index helpers ``index_copy`` (write rows into a copy), ``index_array``
  (each element's coordinates), ``arange_like`` (a ramp shaped like the
  data) and ``boolean_mask`` (keep the rows a mask selects: the output's
  shape depends on the mask's values);
* arithmetic ``div_sqrt_dim`` (the ``1 / sqrt(d)`` scaling of attention),
  ``quadratic`` (MXNet's tutorial operator ``a x**2 + b x + c``) and
  ``gradientmultiplier`` (identity forward, gradient times a number: the
  gradient reversal layer of domain adaptation when the number is
  negative).

Index inputs (``index_vector``, ``index``) get no gradient (``None``).
"""

import math

from ..base import DLBookError
from .op import Op, register
from .shape import as_shape, check_axis

__all__ = []


def _as_int(index):
    """Integer copy of an index array (floats are truncated, as in MXNet)."""
    return index.astype('int64', copy=index.dtype.kind not in 'iu')


def _in_dtype(y, dtype):
    """``y`` (computed in floating point) converted to ``dtype``; integer
    results are truncated toward zero, as MXNet's C++ casts do."""
    return y if y.dtype == dtype else y.astype(dtype)


# -- element tests -----------------------------------------------------------


class _ElementTest(Op):
    """Base of the element tests: ``y = test(x)`` as 0/1 in ``x``'s dtype.

    MXNet writes them in Python from comparisons (``x != x`` for NaN), so
    the result has the input's dtype, not bool: ``isnan`` of a float32
    array is a float32 array of zeros and ones.  Integer arrays hold no
    NaN and no infinity.  No gradient: the result is piecewise constant.
    """

    differentiable = False
    reads_train_mode = False

    def test(self, xp, x):
        raise NotImplementedError(f'{type(self).__name__} must define test()')

    def forward(self, xp, x):
        if x.dtype.kind not in 'fc':
            flag = self.name == '_contrib_isfinite'
            return xp.full(x.shape, int(flag), dtype=x.dtype)
        return self.test(xp, x).astype(x.dtype)


@register('_contrib_isnan')
class IsNaN(_ElementTest):
    """y = 1 where x is NaN (Not a Number), else 0, in x's dtype.

    Examples
    --------
    >>> nd.contrib.isnan(nd.array([np.nan, -1]))   # [1. 0.]
    """

    def test(self, xp, x):
        return xp.isnan(x)


@register('_contrib_isinf')
class IsInf(_ElementTest):
    """y = 1 where x is +inf or -inf, else 0, in x's dtype."""

    def test(self, xp, x):
        return xp.isinf(x)


@register('_contrib_isfinite')
class IsFinite(_ElementTest):
    """y = 1 where x is neither infinite nor NaN, else 0, in x's dtype."""

    def test(self, xp, x):
        return xp.isfinite(x)


@register('_contrib_allclose')
class AllClose(Op):
    """y = 1 if every |a - b| <= atol + rtol * |b|, else 0 (one uint8).

    The test is asymmetric, as in ``numpy.allclose``: the tolerance scales
    with ``b``, the reference.  ``a`` and ``b`` must have one shape and one
    dtype (MXNet does not broadcast here).  The result is a 0-d uint8
    array, as MXNet 1.9.1 returns.

    Parameters
    ----------
    a, b : NDArray
        The arrays to compare, computed in their dtype.
    rtol, atol : float
        Relative and absolute tolerance (defaults 1e-5 and 1e-8).
    equal_nan : bool
        Whether a NaN in ``a`` matches a NaN at the same place in ``b``
        (default True, unlike NumPy's False).

    Infinities match only themselves: ``inf`` is close to ``inf`` but not
    to ``-inf`` or to a finite number (MXNet's kernel says ``|5 - inf| <=
    rtol * inf`` holds; dlbook follows NumPy there).  No gradient.
    """

    arguments = ('a', 'b')
    defaults = {'rtol': 1e-5, 'atol': 1e-8, 'equal_nan': True}
    differentiable = False
    reads_train_mode = False

    def forward(self, xp, a, b):
        if a.shape != b.shape or a.dtype != b.dtype:
            raise DLBookError(
                f'{self.name}: a ({a.shape}, {a.dtype}) and b ({b.shape}, '
                f'{b.dtype}) must have the same shape and dtype'
            )
        if a.dtype.kind not in 'fc':
            a, b = a.astype('float64'), b.astype('float64')
        rtol, atol = float(self.attrs['rtol']), float(self.attrs['atol'])
        finite = xp.isfinite(a) & xp.isfinite(b)
        # the tolerance test on finite pairs only (inf - inf is NaN)
        fa, fb = xp.where(finite, a, 0), xp.where(finite, b, 0)
        with_tol = xp.abs(fa - fb) <= atol + rtol * xp.abs(fb)
        close = xp.where(finite, with_tol, a == b)
        if self.attrs['equal_nan']:
            close = close | (xp.isnan(a) & xp.isnan(b))
        return xp.all(close).astype('uint8')


# -- index helpers -----------------------------------------------------------


@register('_contrib_index_copy')
class IndexCopy(Op):
    """y = old_tensor with row ``index[i]`` replaced by ``new_tensor[i]``.

    Forward, for the rows ``j = index[i]`` along axis 0::

        y = copy of old;   y[index[i]] = new[i]   for every i

    so the output has ``old``'s shape and the rows no index names keep
    their old values.  Gradient (dy has y's shape)::

        d_old = dy with the overwritten rows set to 0
        d_new[i] = dy[index[i]]

    When an index repeats, the last row written wins (as MXNet's CPU
    kernel), and only that row of ``new`` receives the gradient: the
    others did not reach the output.  (MXNet gives every row
    ``dy[index[i]]``; dlbook gives the true gradient.)

    Parameters
    ----------
    old_tensor : NDArray, shape (n, ...)
    index_vector : NDArray, shape (k,)
        Row numbers in ``[0, n)`` (floats are truncated); no gradient.
    new_tensor : NDArray, shape (k, ...), old_tensor's dtype
        ``k <= n``, and the trailing dims equal old_tensor's.
    """

    arguments = ('old_tensor', 'index_vector', 'new_tensor')
    reads_train_mode = False

    def forward(self, xp, old, index, new):
        self.check(old, index, new)
        idx = _as_int(index)
        k = idx.shape[0]
        if k and (int(idx.min()) < 0 or int(idx.max()) >= old.shape[0]):
            raise DLBookError(
                f'{self.name}: index_vector values must lie in '
                f'[0, {old.shape[0]}) for old_tensor of shape {old.shape}'
            )
        out = old.copy()
        rows, sources = idx, None
        if k:
            # the last occurrence of each row wins: one write per row keeps
            # the result the same on every device (CuPy's scatter with
            # repeated indices has no defined order)
            rows, first = xp.unique(idx[::-1], return_index=True)
            sources = k - 1 - first
            out[rows] = new[sources]
        self.saved = (rows, sources, new.shape)
        return out

    def check(self, old, index, new):
        if (
            index.ndim != 1
            or old.ndim != new.ndim
            or old.ndim == 0
            or index.shape[0] != new.shape[0]
            or old.shape[1:] != new.shape[1:]
            or new.shape[0] > old.shape[0]
        ):
            raise DLBookError(
                f'{self.name}: needs index_vector of shape (k,), new_tensor '
                f'of shape (k, ...) and old_tensor of shape (n >= k, same '
                f'...); got old_tensor {old.shape}, index_vector '
                f'{index.shape}, new_tensor {new.shape}'
            )
        if old.dtype != new.dtype:
            raise DLBookError(
                f'{self.name}: old_tensor ({old.dtype}) and new_tensor '
                f'({new.dtype}) must have the same dtype'
            )

    def backward(self, xp, dy):
        rows, sources, new_shape = self.saved
        d_old = dy.copy()
        d_new = xp.zeros(new_shape, dtype=dy.dtype)
        if sources is not None:
            d_old[rows] = 0
            d_new[sources] = dy[rows]
        return d_old, None, d_new


@register('_contrib_index_array')
class IndexArray(Op):
    """y[i_1, ..., i_n, :] = (i_{axes[0]}, i_{axes[1]}, ...), int64.

    Each element's coordinates, stacked on a new last axis: data of shape
    ``(d_1, ..., d_n)`` gives ``(d_1, ..., d_n, m)`` with ``m = len(axes)``
    (``n`` when ``axes`` is None).  Only the shape of ``data`` is read;
    there is no gradient.

    Examples
    --------
    >>> nd.contrib.index_array(nd.ones((3, 2)))[2]     # [[2 0] [2 1]]
    >>> nd.contrib.index_array(nd.ones((3, 2)), axes=(-1,))[:, :, 0]
    ... # [[0 1] [0 1] [0 1]]
    """

    defaults = {'axes': None}
    differentiable = False
    reads_train_mode = False

    def forward(self, xp, x):
        axes = self.attrs['axes']
        axes = (
            tuple(range(x.ndim))
            if axes is None
            else tuple(
                check_axis(a, x.shape, self.name, 'axes')
                for a in as_shape(axes)
            )
        )
        grids = xp.indices(x.shape, dtype='int64')
        if not axes:
            return xp.zeros(x.shape + (0,), dtype='int64')
        return xp.stack([grids[a] for a in axes], axis=-1)


def arange_values(xp, n, start, step, repeat, dtype):
    """``start + (i // repeat) * step`` for ``i < n``, in ``dtype`` (a
    dtype object).

    For an integer dtype ``start`` and ``step`` are truncated first, as
    MXNet's kernel does (``start=0.5, step=0.5`` gives zeros for int32).
    """
    if repeat < 1:
        raise DLBookError(f'arange_like: repeat={repeat} must be >= 1')
    if dtype.kind in 'iu':
        start, step = int(start), int(step)
    ramp = xp.arange(n, dtype='int64') // repeat
    return (start + ramp * step).astype(dtype)


@register('_contrib_arange_like')
class ArangeLike(Op):
    """A ramp shaped like ``data``: y = start + (i // repeat) * step.

    With ``axis=None`` the ramp counts every element of ``data`` in
    row-major order and has ``data``'s shape; with an ``axis`` it is 1-D,
    as long as that axis.  The dtype is ``data``'s; only its shape is
    read, so there is no gradient.

    Examples
    --------
    >>> x = nd.ones((3, 4))
    >>> nd.contrib.arange_like(x, repeat=3)[0]        # [0. 0. 0. 1.]
    >>> nd.contrib.arange_like(x, start=1, step=0.5, axis=-1)
    ... # [1.  1.5 2.  2.5]

    ``mx.npx.arange_like`` is the same ramp without ``repeat``.  ``ctx`` is
    accepted for MXNet's signature: the ramp lives where ``data`` lives.
    """

    defaults = {
        'start': 0.0,
        'step': 1.0,
        'repeat': 1,
        'ctx': None,
        'axis': None,
    }
    differentiable = False
    reads_train_mode = False

    def forward(self, xp, x):
        a = self.attrs
        axis = a['axis']
        n = (
            x.size
            if axis is None
            else x.shape[check_axis(axis, x.shape, self.name)]
        )
        y = arange_values(
            xp,
            n,
            float(a['start']),
            float(a['step']),
            int(a['repeat']),
            x.dtype,
        )
        return y.reshape(x.shape) if axis is None else y


@register('_contrib_boolean_mask')
class BooleanMask(Op):
    """y = the slices of ``data`` along ``axis`` where ``index`` is non-zero.

    Forward, with ``keep`` the positions of the non-zero entries of
    ``index`` (any non-zero value counts, as in MXNet)::

        y = take(data, keep, axis)

    so the output's length along ``axis`` is the number of non-zero entries:
    it depends on the values, not only the shapes.  Gradient::

        d_data = zeros like data;  d_data[..., keep, ...] = dy

    (rows the mask drops get 0; ``index`` gets no gradient).  MXNet 1.9.1
    supports ``axis=0`` only; dlbook accepts any axis.

    Examples
    --------
    >>> data = nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    >>> nd.contrib.boolean_mask(data, nd.array([0, 1, 0]))   # [[4. 5. 6.]]
    """

    arguments = ('data', 'index')
    defaults = {'axis': 0}
    dynamic_shape = True  # the shape depends on the values
    reads_train_mode = False

    def forward(self, xp, data, index):
        axis = check_axis(self.attrs['axis'], data.shape, self.name)
        if index.ndim != 1 or index.shape[0] != data.shape[axis]:
            raise DLBookError(
                f'{self.name}: index of shape {index.shape} must be 1-D '
                f'with the length of axis {axis} of data of shape '
                f'{data.shape}'
            )
        keep = xp.nonzero(index)[0]
        self.saved = (keep, axis, data.shape)
        return xp.take(data, keep, axis=axis)

    def backward(self, xp, dy):
        keep, axis, shape = self.saved
        dx = xp.zeros(shape, dtype=dy.dtype)
        key = (slice(None),) * axis + (keep,)
        dx[key] = dy
        return dx, None


# -- arithmetic --------------------------------------------------------------


@register('_contrib_div_sqrt_dim')
class DivSqrtDim(Op):
    """y = x / sqrt(d) with d = x.shape[-1];   dx = dy / sqrt(d).

    The scaling of scaled dot-product attention: the dot products of
    ``d``-long query and key vectors have a spread growing as ``sqrt(d)``.
    Integer arrays are truncated back to their dtype.
    """

    reads_train_mode = False

    def forward(self, xp, x):
        if x.ndim == 0:
            raise DLBookError(f'{self.name}: data must have at least 1 dim')
        scale = 1.0 / math.sqrt(x.shape[-1]) if x.shape[-1] else 1.0
        self.saved = (scale,)
        return _in_dtype(x * scale, x.dtype)

    def backward(self, xp, dy):
        (scale,) = self.saved
        return _in_dtype(dy * scale, dy.dtype)


@register('_contrib_quadratic')
class Quadratic(Op):
    """y = a * x**2 + b * x + c (element-wise);   dx = dy * (2 a x + b).

    MXNet's tutorial operator (``src/operator/contrib/quadratic_op``): a
    forward rule, its derivative, and three float attributes.  Integer
    arrays get the floating-point value truncated to their dtype.

    Examples
    --------
    >>> nd.contrib.quadratic(nd.array([[1, 2], [3, 4]]), a=1, b=2, c=3)
    ... # [[ 6. 11.] [18. 27.]]
    """

    defaults = {'a': 0.0, 'b': 0.0, 'c': 0.0}
    reads_train_mode = False

    def coefficients(self):
        return (float(self.attrs[k]) for k in ('a', 'b', 'c'))

    def forward(self, xp, x):
        a, b, c = self.coefficients()
        self.saved = (x,)
        if x.dtype.kind not in 'fc':
            y = a * x.astype('float64') ** 2 + b * x + c
            return y.astype(x.dtype)
        return a * x * x + b * x + c

    def backward(self, xp, dy):
        (x,) = self.saved
        a, b, _ = self.coefficients()
        return _in_dtype(dy * (2 * a * x + b), dy.dtype)


@register('_contrib_gradientmultiplier')
class GradientMultiplier(Op):
    """y = x;   dx = scalar * dy.

    The identity going forward; going backward the gradient is multiplied
    by ``scalar`` (the "lambda" of a gradient reversal layer when it is
    negative: the layers below then learn features that *confuse* the
    classifier above).  ``is_int`` is accepted for MXNet symbol files.
    """

    defaults = {'scalar': 1.0, 'is_int': True}
    reads_train_mode = False

    def forward(self, xp, x):
        return x.copy()

    def backward(self, xp, dy):
        return _in_dtype(dy * float(self.attrs['scalar']), dy.dtype)
