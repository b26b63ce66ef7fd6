"""``mx.np.linalg``: NumPy's linear-algebra names over registered operators.

``norm`` covers NumPy's vector and matrix orders (built from ``abs``,
``sum``, ``max`` ..., so it has gradients; the matrix 2-norm and nuclear
norm use singular values, without gradient).  ``det``, ``slogdet``,
``inv``, ``solve``, ``svd`` and ``cholesky`` have gradients; ``pinv``'s
is zero, as in MXNet 1.9.1; ``eig``, ``eigvals``, ``eigh``, ``eigvalsh``
and ``qr`` have none (``dlbook/ops/np_linalg.py``).
"""

import math

from ..base import DLBookError
from ._core import call, reduced_shape, shaped
from .creation import as_array

__all__ = [
    'norm',
    'det',
    'slogdet',
    'inv',
    'solve',
    'eig',
    'eigvals',
    'eigh',
    'eigvalsh',
    'svd',
    'cholesky',
    'qr',
    'pinv',
]


def _square(a, name):
    a = as_array(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise DLBookError(
            f'np.linalg.{name}: expected a square matrix (or '
            f'a stack of them) in the last two axes, got '
            f'shape {a.shape}'
        )
    return a


def det(a):
    """The determinant of each matrix in the last two axes."""
    return call('_npi_det', _square(a, 'det'))


def slogdet(a):
    """``(sign, logabsdet)`` of the determinant, computed stably."""
    return tuple(call('_npi_slogdet', _square(a, 'slogdet')))


def inv(a):
    """The inverse of each matrix in the last two axes."""
    return call('_npi_inv', _square(a, 'inv'))


def solve(a, b):
    """``x`` with ``a @ x == b`` (``b`` a vector or a matrix per ``a``)."""
    a = _square(a, 'solve')
    return call('_npi_solve', a, as_array(b, like=a))


def eig(a):
    """``(w, v)``: eigenvalues and right eigenvectors (columns of ``v``);
    real parts, for matrices with real eigenvalues (no gradient)."""
    return tuple(call('_npi_eig', _square(a, 'eig')))


def eigvals(a):
    """The eigenvalues (real parts; no gradient)."""
    return call('_npi_eigvals', _square(a, 'eigvals'))


def eigh(a, UPLO='L'):  # noqa: N803
    """``(w, v)`` of a symmetric matrix, ``w`` ascending (no gradient)."""
    return tuple(call('_npi_eigh', _square(a, 'eigh'), UPLO=UPLO))


def eigvalsh(a, UPLO='L'):  # noqa: N803
    """The eigenvalues of a symmetric matrix, ascending (no gradient)."""
    return call('_npi_eigvalsh', _square(a, 'eigvalsh'), UPLO=UPLO)


def svd(a):
    """``(ut, l, v)`` with ``a = ut @ diag(l) @ v`` for ``a`` of shape
    (..., M, N), M <= N (MXNet's form; NumPy's ``svd(a,
    full_matrices=False)``); ``l`` descending.  The singular vectors'
    signs may differ from MXNet's."""
    a = as_array(a)
    if a.ndim < 2 or a.shape[-2] > a.shape[-1]:
        raise DLBookError(
            f'np.linalg.svd: expected (..., M, N) with M <= '
            f'N (MXNet), got shape {a.shape}'
        )
    return tuple(call('_npi_svd', a))


def cholesky(a):
    """The lower-triangular ``L`` with ``a = L @ L.T`` for a symmetric
    positive-definite ``a`` (or a stack of them)."""
    return call('_npi_cholesky', _square(a, 'cholesky'))


def qr(a, mode='reduced'):
    """``(q, r)`` with ``a = q @ r`` (reduced mode; no gradient)."""
    if mode != 'reduced':
        raise DLBookError(
            f"np.linalg.qr: only mode='reduced' is supported, got {mode!r}"
        )
    a = as_array(a)
    if a.ndim < 2:
        raise DLBookError(
            f'np.linalg.qr: expected a matrix, got shape {a.shape}'
        )
    return tuple(call('_npi_qr', a))


def pinv(a, rcond=1e-15, hermitian=False):
    """The Moore-Penrose pseudo-inverse (singular values below ``rcond``
    times the largest count as zero).  ``hermitian=True`` is not
    supported, as in MXNet 1.9.1; the gradient is zero, as there."""
    if hermitian:
        raise NotImplementedError('hermitian is not supported yet...')
    a = as_array(a)
    if a.ndim < 2:
        raise DLBookError(
            f'np.linalg.pinv: expected a matrix, got shape {a.shape}'
        )
    return call('_npi_pinv_scalar_rcond', a, rcond=float(rcond))


def _np():
    from . import functions

    return functions


def _vector_norm(x, ord, axis, keepdims):  # noqa: A002
    F = _np()
    ax = axis
    if ord == math.inf:
        return F.max(F.abs(x), axis=ax, keepdims=keepdims)
    if ord == -math.inf:
        return F.min(F.abs(x), axis=ax, keepdims=keepdims)
    if ord == 0:
        return F.sum(
            F.not_equal(x, 0).astype(x.dtype), axis=ax, keepdims=keepdims
        )
    if ord == 1:
        return F.sum(F.abs(x), axis=ax, keepdims=keepdims)
    if ord in (None, 2):
        y = call('norm', x, ord=2, axis=ax, keepdims=bool(keepdims))
        return shaped(y, reduced_shape(x.shape, ax, keepdims))
    if isinstance(ord, str):
        raise DLBookError(
            f'np.linalg.norm: ord={ord!r} is a matrix norm; '
            f'give two axes (or a 2-d array)'
        )
    return F.power(
        F.sum(F.power(F.abs(x), ord), axis=ax, keepdims=keepdims), 1.0 / ord
    )


def _matrix_norm(x, ord, axes, keepdims):  # noqa: A002
    F = _np()
    r, c = (a % x.ndim for a in axes)
    if ord in (None, 'fro'):
        y = call('norm', x, ord=2, axis=(r, c), keepdims=bool(keepdims))
        return shaped(y, reduced_shape(x.shape, (r, c), keepdims))
    if ord in (1, -1, math.inf, -math.inf):
        # 1: largest column sum of |x|; inf: largest row sum
        sum_axis, pick_axis = (r, c) if ord in (1, -1) else (c, r)
        sums = F.sum(F.abs(x), axis=sum_axis, keepdims=True)
        pick = F.max if ord in (1, math.inf) else F.min
        y = pick(sums, axis=pick_axis, keepdims=True)
    elif ord in (2, -2, 'nuc'):
        moved = (
            F.moveaxis(F.moveaxis(x, r, -2), c if c > r else c + 1, -1)
            if (r, c) != (x.ndim - 2, x.ndim - 1)
            else x
        )
        s = call('_np_singular_values', moved)
        y = {2: F.max, -2: F.min, 'nuc': F.sum}[ord](s, axis=-1)
        if keepdims:
            y = F.expand_dims(F.expand_dims(y, min(r, c)), max(r, c))
        return y
    else:
        raise DLBookError(
            f'np.linalg.norm: invalid norm order {ord!r} for matrices'
        )
    if keepdims:
        return y
    return F.squeeze(y, axis=(r, c))


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """Vector or matrix norm, as NumPy's ``linalg.norm``.

    ``ord=None``: the 2-norm of the flattened array (the Frobenius norm of
    a matrix).  Vector orders (one axis, or a 1-d array): ``inf``,
    ``-inf``, ``0`` (non-zero count), ``1``, ``2``, any other number
    ``p`` (``sum(|x|**p)**(1/p)``).  Matrix orders (two axes, or a 2-d
    array): ``'fro'``, ``'nuc'``, ``1``, ``-1``, ``2``, ``-2``, ``inf``,
    ``-inf``.  MXNet 1.9.1 itself raises for the vector ``inf`` norms.
    """
    x = as_array(x)
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    if axis is None:
        if ord is None:
            y = call('norm', x, ord=2, axis=None, keepdims=bool(keepdims))
            return shaped(y, reduced_shape(x.shape, None, keepdims))
        if x.ndim == 1:
            return _vector_norm(x, ord, 0, keepdims)
        if x.ndim == 2:
            return _matrix_norm(x, ord, (0, 1), keepdims)
        raise DLBookError(
            f'np.linalg.norm: give axis for ord={ord!r} on a {x.ndim}-d array'
        )
    if isinstance(axis, int):
        return _vector_norm(x, ord, axis, keepdims)
    if len(axis) == 2:
        return _matrix_norm(x, ord, tuple(axis), keepdims)
    raise DLBookError(
        f'np.linalg.norm: axis must be an int or a pair, got {axis!r}'
    )


# -- more of NumPy's names ---------------------------------------------------------

from .fallback_linalg import cond, lstsq, matrix_rank  # noqa: E402

__all__ += [
    'cond',
    'lstsq',
    'matrix_rank',
    'matrix_power',
    'multi_dot',
    'tensorinv',
    'tensorsolve',
    'fallback_linalg',
]

from . import fallback_linalg  # noqa: E402,F401


def matrix_power(a, n):
    """``a`` multiplied by itself ``n`` times (the identity for ``n ==
    0``, powers of ``inv(a)`` for ``n < 0``), by repeated squaring of
    ``matmul``: differentiable, where MXNet 1.9.1 falls back to NumPy
    (no gradient).

    >>> np.linalg.matrix_power(np.array([[1., 2.], [3., 4.]]), 2)
    array([[ 7., 10.],
           [15., 22.]])
    """
    import operator

    F = _np()
    a = _square(a, 'matrix_power')
    try:
        n = operator.index(n)
    except TypeError:
        raise DLBookError(
            'np.linalg.matrix_power: exponent must be an integer'
        ) from None
    if n == 0:
        from .creation import eye

        eye_ = eye(a.shape[-1], dtype=a.dtype, ctx=a.context)
        return F.broadcast_to(eye_, a.shape)
    if n < 0:
        a, n = inv(a), -n
    result, base = None, a
    while n:
        if n & 1:
            result = base if result is None else F.matmul(result, base)
        n >>= 1
        if n:
            base = F.matmul(base, base)
    return result


def multi_dot(arrays, *, out=None):
    """The chained product ``arrays[0] @ arrays[1] @ ...`` (a first 1-d
    array is a row, a last 1-d array a column, as NumPy), multiplied left
    to right with ``dot``: differentiable.

    >>> A = np.array([[1., 2.], [3., 4.]])
    >>> np.linalg.multi_dot([A, A, np.array([1., 1.])])
    array([17., 37.])
    """
    F = _np()
    arrays = [as_array(x) for x in arrays]
    if len(arrays) < 2:
        raise DLBookError(
            'np.linalg.multi_dot: expecting at least two arrays.'
        )
    y = arrays[0]
    for x in arrays[1:]:
        y = F.dot(y, x)
    return F._out(y, out)


def _float(x):
    """Integer matrices are inverted in float32."""
    from ._core import cast

    return x if x.dtype.kind == 'f' else cast(x, 'float32')


def _split_prod(shape):
    size = 1
    for d in shape:
        size *= d
    return size


def tensorinv(a, ind=2):
    """The inverse of ``a`` seen as a matrix of its first ``ind`` axes by
    the rest (their sizes' products must be equal): the result has shape
    ``a.shape[ind:] + a.shape[:ind]`` and ``tensordot(tensorinv(a), a,
    ind)`` is the identity.  Differentiable (``reshape`` and ``inv``).

    >>> np.linalg.tensorinv(np.array([[1., 2.], [3., 4.]]), ind=1)
    array([[-2. ,  1. ],
           [ 1.5, -0.5]])
    """
    F = _np()
    a = _float(as_array(a))
    if ind <= 0:
        raise DLBookError('np.linalg.tensorinv: Invalid ind argument.')
    rows, cols = a.shape[:ind], a.shape[ind:]
    n = _split_prod(rows)
    if n != _split_prod(cols):
        raise DLBookError(
            f'np.linalg.tensorinv: the product of the first {ind} axes of '
            f'shape {a.shape} must equal the product of the others'
        )
    return F.reshape(inv(F.reshape(a, (n, n))), cols + rows)


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) == b``: ``a`` is seen as a
    matrix of the axes of ``b`` by the remaining ones (``x``'s shape);
    ``axes`` first moves those axes of ``a`` to the end.  Differentiable
    (``reshape`` and ``solve``).

    >>> np.linalg.tensorsolve(np.array([[1., 2.], [3., 4.]]), np.array([1., 2.]))
    array([0. , 0.5])
    """
    F = _np()
    a = _float(as_array(a))
    b = _float(as_array(b, like=a))
    if axes is not None:
        order = [
            i for i in range(a.ndim) if i not in [x % a.ndim for x in axes]
        ]
        order += [x % a.ndim for x in axes]
        a = F.transpose(a, order)
    x_shape = a.shape[b.ndim :]
    n = _split_prod(x_shape)
    if _split_prod(a.shape[: b.ndim]) != n or a.shape[: b.ndim] != b.shape:
        raise DLBookError(
            f'np.linalg.tensorsolve: a of shape {a.shape} and b of shape '
            f'{b.shape} do not give a square system'
        )
    x = solve(F.reshape(a, (n, n)), F.reshape(b, (n,)))
    return F.reshape(x, x_shape)
