"""MXNet's triangular ``linalg`` operators: ``trmm``, ``trsm`` and
``syrk`` (the shared checks and the table of formulas are in
``la_op.py``)."""

from ..base import DLBookError
from .la_op import _linalg_error, _MXLinalgOp, _triangle
from .linalg import _matmul_grads, _mT
from .op import register

__all__ = []


# -- triangular products and solves: trmm, trsm -------------------------------


class _Triangular(_MXLinalgOp):
    """Shared part of trmm and trsm: ``op(T) @ X`` (or ``X @ op(T)`` with
    ``rightside``), ``T`` the ``lower`` (or upper) triangle of ``A``,
    ``op`` the transpose if ``transpose``."""

    arguments = ('A', 'B')
    defaults = {
        'transpose': False,
        'rightside': False,
        'lower': True,
        'alpha': 1.0,
    }

    def out_shapes(self, a, b):
        a, b = tuple(a), tuple(b)
        side = -1 if self.attrs['rightside'] else -2
        if (
            len(a) < 2
            or a[-1] != a[-2]
            or len(b) != len(a)
            or a[:-2] != b[:-2]
            or b[side] != a[-1]
        ):
            where = 'columns' if side == -1 else 'rows'
            raise DLBookError(
                f'{self.name}: shape mismatch between A {a} and B {b} '
                f'(rightside={self.attrs["rightside"]}): A must be square '
                f'(..., n, n), B must have the same batch axes and n '
                f'{where}'
            )
        return [b]

    def _grads(self, xp, dy, t, x):
        """(dT, dX) of the product ``op(T) @ x`` (or ``x @ op(T)``) for
        the output gradient ``dy``; dT keeps ``T``'s triangle only."""
        tr = self.attrs['transpose']
        ot = _mT(t) if tr else t
        if self.attrs['rightside']:
            dx, dt = _matmul_grads(xp, dy, x, ot, False, tr)
        else:
            dt, dx = _matmul_grads(xp, dy, ot, x, tr, False)
        return _triangle(xp, dt, self.attrs['lower']), dx


@register('_linalg_trmm', 'linalg_trmm')
class LinalgTrmm(_Triangular):
    """Product with a triangular matrix (BLAS ``trmm``).

    Parameters
    ----------
    A : (..., n, n) array
        Only its ``lower`` (default) or upper triangle is read.
    B : (..., n, k) array, or (..., k, n) with ``rightside=True``
    transpose : bool, default False
        Use ``op(A) = A^T``.
    rightside : bool, default False
        Compute ``B op(A)`` instead of ``op(A) B``.
    lower : bool, default True
    alpha : float, default 1.0

    Notes
    -----
    Forward: ``out = alpha op(T) B`` (or ``alpha B op(T)``), ``T`` the
    triangle of ``A``.  Gradient: the matrix-product rule of ``gemm2``,
    ``dT = alpha G B^T`` (or ``alpha B^T G``, transposed when
    ``transpose``), then kept on ``T``'s triangle;
    ``dB = alpha op(T)^T G`` (or ``alpha G op(T)^T``).

    Examples
    --------
    >>> nd.linalg.trmm(nd.array([[1., 0.], [1., 1.]]), nd.ones((2, 3)),
    ...                alpha=2.0)
    [[2. 2. 2.]
     [4. 4. 4.]]
    """

    def forward(self, xp, a, b):
        self.check(a, b)
        t = _triangle(xp, a, self.attrs['lower'])
        ot = _mT(t) if self.attrs['transpose'] else t
        y = b @ ot if self.attrs['rightside'] else ot @ b
        self.saved = (t, b)
        return y * float(self.attrs['alpha'])

    def backward(self, xp, dy):
        t, b = self.saved
        return self._grads(xp, dy * float(self.attrs['alpha']), t, b)


@register('_linalg_trsm', 'linalg_trsm')
class LinalgTrsm(_Triangular):
    """Solve a triangular system (BLAS ``trsm``).

    Parameters
    ----------
    A : (..., n, n) array
        Only its ``lower`` (default) or upper triangle is read; it must
        have a nonzero diagonal.
    B : (..., n, k) array, or (..., k, n) with ``rightside=True``
    transpose, rightside, lower, alpha :
        As in ``trmm``.

    Notes
    -----
    Forward: ``X`` with ``op(T) X = alpha B`` (or ``X op(T) = alpha B``).
    Gradient, by implicit differentiation of that equation: let ``Y``
    solve the transposed system for ``G`` (``op(T)^T Y = G``, or
    ``Y op(T)^T = G``); then

        dB = alpha Y,    dT = -(gradient of op(T) X with respect to T,
                                for the output gradient Y),

    that is ``dop(T) = -Y X^T`` (or ``-X^T Y``), kept on ``T``'s triangle.

    Examples
    --------
    >>> A = nd.array([[1., 0.], [1., 1.]])
    >>> nd.linalg.trsm(A, nd.array([[2., 2.], [4., 4.]]), alpha=0.5)
    [[1. 1.]
     [1. 1.]]
    """

    def _solve(self, xp, t, b, transpose):
        """X with op(T) X = b (or X op(T) = b with ``rightside``)."""
        m = _mT(t) if transpose else t
        if self.attrs['rightside']:  # X M = b  <=>  M^T X^T = b^T
            return _mT(xp.linalg.solve(_mT(m), _mT(b)))
        return xp.linalg.solve(m, b)

    def forward(self, xp, a, b):
        self.check(a, b)
        t = _triangle(xp, a, self.attrs['lower'])
        alpha = float(self.attrs['alpha'])
        try:
            x = self._solve(xp, t, b * alpha, self.attrs['transpose'])
        except _linalg_error(xp) as err:
            raise DLBookError(
                f'{self.name}: the triangular matrix A of shape {a.shape} '
                f'is singular (a zero on its diagonal: {err})'
            ) from None
        x = x.astype(b.dtype)
        self.saved = (t, x)
        return x

    def backward(self, xp, dx):
        t, x = self.saved
        y = self._solve(xp, t, dx, not self.attrs['transpose'])
        dt, _ = self._grads(xp, -y, t, x)
        return dt, y * float(self.attrs['alpha'])


# -- syrk ---------------------------------------------------------------------


@register('_linalg_syrk', 'linalg_syrk')
class LinalgSyrk(_MXLinalgOp):
    """A matrix times its own transpose (BLAS ``syrk``).

    Parameters
    ----------
    A : (..., m, n) array
    transpose : bool, default False
        ``out = alpha A^T A`` (n x n) instead of ``alpha A A^T`` (m x m).
    alpha : float, default 1.0

    Notes
    -----
    ``A`` enters the product twice, so its gradient is the sum of the
    ``gemm2`` rule for both factors:

        dA = alpha (G + G^T) A    (or alpha A (G + G^T) with transpose).

    Examples
    --------
    >>> nd.linalg.syrk(nd.array([[1., 2., 3.], [4., 5., 6.]]))
    [[14. 32.]
     [32. 77.]]
    """

    defaults = {'transpose': False, 'alpha': 1.0}

    def out_shapes(self, a):
        a = tuple(a)
        if len(a) < 2:
            raise DLBookError(
                f'{self.name}: input A must be a matrix or a batch of '
                f'them (..., m, n), got shape {a}'
            )
        n = a[-1] if self.attrs['transpose'] else a[-2]
        return [a[:-2] + (n, n)]

    def forward(self, xp, a):
        self.check(a)
        self.saved = a
        y = _mT(a) @ a if self.attrs['transpose'] else a @ _mT(a)
        return y * float(self.attrs['alpha'])

    def backward(self, xp, dy):
        a = self.saved
        tr = self.attrs['transpose']
        # y = alpha op(a) @ op2(a): the gemm2 rule for both factors
        first, second = _matmul_grads(
            xp,
            dy * float(self.attrs['alpha']),
            _mT(a) if tr else a,
            a if tr else _mT(a),
            tr,
            not tr,
        )
        return first + second
