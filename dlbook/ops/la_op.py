"""MXNet's ``linalg`` operators (``src/operator/tensor/la_op.cc``):
factorizations, triangular products and solves, and matrix reshaping.

Every operator works on the last two axes of its inputs; leading axes are
a batch (``A`` of shape ``(2, 5, 3, 3)`` is ten 3x3 matrices).  Only
float32 and float64 are accepted, as in MXNet.  The registered names are
MXNet's: ``_linalg_potrf`` with the alias ``linalg_potrf`` and so on, so
``nd.linalg.potrf``, ``nd.linalg_potrf``, ``sym.linalg.potrf`` all exist
(``syevd`` has no flat alias, as in MXNet 1.9.1).

=================  ==================================  =====================
operator           forward                             gradient
=================  ==================================  =====================
potrf              A = L L^T (Cholesky)                symmetric, see class
potri              out = (L L^T)^-1 from the factor L  -tril(C (G+G^T) L^-T)
trmm               out = alpha op(A) B  (or B op(A))   product rule
trsm               op(A) out = alpha B (or right side) implicit product rule
syrk               out = alpha A A^T  (or A^T A)       alpha (G + G^T) A
gelqf              A = L Q, Q Q^T = I                  see class
syevd              U A = diag(lambda) U                see class
inverse, det,      A^-1, det A, (sign, log|det A|)     shared with ``np.linalg``
slogdet
sumlogdiag         sum_i log A_ii                      G / A_ii on the diagonal
extractdiag,       a diagonal or triangle as a vector  the entries scattered
extracttrian                                           back
makediag,          a vector into a diagonal or         the entries gathered
maketrian          triangular matrix
=================  ==================================  =====================

Here ``G`` is the gradient of the output, ``op(A)`` is ``A`` or ``A^T``,
and triangular inputs are *read* from one triangle only (``lower``): the
other triangle has no effect and gets a zero gradient.  ``potrf`` and
``syevd`` read the lower triangle of a matrix meant to be symmetric and
return a *symmetric* gradient, as MXNet does (the gradient with respect to
the symmetric matrix, not to the entries LAPACK happens to read).
"""

from ..base import DLBookError
from .linalg import _diagonal_index, _matmul_grads, _mT
from .np_linalg import NpCholesky, NpDet, NpInv, NpSlogdet, _LinalgOp
from .op import register

__all__ = []


# -- shared checks and helpers ------------------------------------------------


def _floats(name, *arrays):
    """MXNet's linalg operators take float32 and float64 only."""
    for a in arrays:
        if a.dtype.name not in ('float32', 'float64'):
            raise DLBookError(
                f'{name}: supports float32 and float64 inputs only, got '
                f'{a.dtype.name} (shape {tuple(a.shape)})'
            )


def _square(name, shape, what='A'):
    """Raise unless ``shape`` is a (batch of) square matrices."""
    shape = tuple(shape)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise DLBookError(
            f'{name}: input {what} must be a square matrix or a batch of '
            f'them (..., n, n), got shape {shape}'
        )
    return shape


def _linalg_error(xp):
    """The error ``xp.linalg`` raises for singular or indefinite input."""
    return getattr(xp.linalg, 'LinAlgError', ValueError)


def _or_zeros(xp, dy, like):
    """An output gradient, or zeros when that output was not used."""
    return xp.zeros_like(like) if dy is None else dy


def _triangle(xp, a, lower):
    """The triangle of ``a`` a triangular operator reads (diagonal kept)."""
    return xp.tril(a) if lower else xp.triu(a)


def _invertible(xp, a, singular):
    """``a`` with its singular matrices (``singular``, one bool per
    matrix) replaced by the identity, so that their inverse exists: MXNet
    passes no gradient through a singular matrix, and the callers zero
    those gradients."""
    eye = xp.eye(a.shape[-1], dtype=a.dtype)
    return xp.where(singular[..., None, None], eye, a)


def _scalar_shape(batch):
    """MXNet gives a single matrix's scalar result the shape (1,)."""
    return tuple(batch) or (1,)


class _MXLinalgOp(_LinalgOp):
    """``_LinalgOp`` (shapes from ``out_shapes``, also for graphs) whose
    ``forward`` first checks dtypes and shapes by the same rule."""

    def check(self, *arrays):
        _floats(self.name, *arrays)
        return self.out_shapes(*(a.shape for a in arrays))


# -- Cholesky: potrf, potri ---------------------------------------------------


@register('_linalg_potrf', 'linalg_potrf')
class LinalgPotrf(NpCholesky, _MXLinalgOp):
    """Cholesky factor of a symmetric positive-definite matrix.

    Parameters
    ----------
    A : (..., n, n) array
        Symmetric positive definite; only its lower triangle is read
        (its upper one if ``lower=False``).
    lower : bool, default True
        Return lower-triangular ``L`` with ``A = L L^T``; if False,
        upper-triangular ``U`` with ``A = U^T U`` (``U = L^T``).

    Notes
    -----
    Gradient (Murray 2016, "Differentiation of the Cholesky
    decomposition", eq. 10; MXNet's ``potrf_backward``): with
    ``Phi(X)`` the lower triangle of ``X`` with its diagonal halved and
    ``S = L^-T Phi(L^T dL) L^-1``,

        dA = (S + S^T) / 2,

    symmetric: the gradient with respect to a symmetric ``A``.  The rule
    is ``np.linalg.cholesky``'s (``NpCholesky``); ``lower=False`` works
    on ``A^T`` and ``dU^T``.  A matrix that is not positive definite
    raises on the CPU; CuPy returns NaN instead.

    Examples
    --------
    >>> nd.linalg.potrf(nd.array([[4., 1.], [1., 4.25]]))
    [[2.  0. ]
     [0.5 2. ]]
    """

    defaults = {'lower': True}

    def out_shapes(self, a):
        return [_square(self.name, a)]

    def forward(self, xp, a):
        self.check(a)
        lower = self.attrs['lower']
        try:
            low = super().forward(xp, a if lower else _mT(a))
        except _linalg_error(xp) as err:
            raise DLBookError(
                f'{self.name}: the input of shape {a.shape} is not '
                f'symmetric positive definite ({err})'
            ) from None
        return low if lower else _mT(low)

    def backward(self, xp, dy):
        # the symmetric dA is its own transpose: no transpose back
        return super().backward(xp, dy if self.attrs['lower'] else _mT(dy))


@register('_linalg_potri', 'linalg_potri')
class LinalgPotri(_MXLinalgOp):
    """Inverse of ``B = L L^T`` from its Cholesky factor ``L`` (``potrf``).

    Parameters
    ----------
    A : (..., n, n) array
        The triangular factor with positive diagonal; only its lower
        triangle is read (its upper one, ``U = L^T``, if ``lower=False``).
    lower : bool, default True

    Notes
    -----
    Forward: ``C = L^-T L^-1 = (L L^T)^-1`` (``U^-1 U^-T`` for
    ``lower=False``).  Gradient, from ``dC = -C (dL L^T + L dL^T) C``:

        dL = -tril(C (G + G^T) C L) = -tril(C (G + G^T) L^-T),

    zero on the triangle that is not read (transposed for
    ``lower=False``).  Prefer ``potrf`` with ``trsm`` to forming the
    inverse: it is cheaper and numerically safer.

    Examples
    --------
    >>> nd.linalg.potri(nd.array([[2., 0.], [0.5, 2.]]))
    [[ 0.265625 -0.0625  ]
     [-0.0625    0.25    ]]
    """

    defaults = {'lower': True}

    def out_shapes(self, a):
        return [_square(self.name, a)]

    def forward(self, xp, a):
        self.check(a)
        lower = self.attrs['lower']
        low = xp.tril(a) if lower else _mT(xp.triu(a))
        try:
            low_inv = xp.linalg.inv(low)
        except _linalg_error(xp) as err:
            raise DLBookError(
                f'{self.name}: the triangular factor of shape {a.shape} '
                f'is singular (a zero on its diagonal: {err})'
            ) from None
        c = (_mT(low_inv) @ low_inv).astype(a.dtype)
        self.saved = (c, low_inv)
        return c

    def backward(self, xp, dc):
        c, low_inv = self.saved
        dlow = -xp.tril(c @ (dc + _mT(dc)) @ _mT(low_inv))
        return dlow if self.attrs['lower'] else _mT(dlow)


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


# -- LQ and symmetric eigen-decomposition: gelqf, syevd ------------------------


def _copy_lower_to_upper(xp, m):
    """copyLTU(M): the symmetric matrix with M's lower triangle."""
    return xp.tril(m) + _mT(xp.tril(m, -1))


@register('_linalg_gelqf', 'linalg_gelqf')
class LinalgGelqf(_MXLinalgOp):
    """LQ factorization ``A = L Q`` (LAPACK ``gelqf`` and ``orglq``).

    Parameters
    ----------
    A : (..., m, n) array with m <= n and full rank m.

    Returns
    -------
    Q : (..., m, n) array with orthonormal rows, ``Q Q^T = I``.
    L : (..., m, m) lower-triangular array, nonzero diagonal.

    Notes
    -----
    Computed as the QR factorization of ``A^T = Q' R`` (``L = R^T``,
    ``Q = Q'^T``); the signs are LAPACK's Householder ones, as MXNet's
    (``L``'s diagonal may be negative).  Gradient (MXNet's
    ``gelqf_backward``, the transpose of the QR rule of Walter and
    Lehmann 2018, "Algorithmic differentiation of linear algebra
    functions"), with ``copyLTU`` making a symmetric matrix from a lower
    triangle:

        M = L^T dL - dQ Q^T,    dA = L^-T (dQ + copyLTU(M) Q).

    Examples
    --------
    >>> Q, L = nd.linalg.gelqf(nd.array([[1., 2., 3.], [4., 5., 6.]]))
    >>> L
    [[-3.7416575  0.       ]
     [-8.55236    1.9639609]]
    """

    num_outputs = 2

    def out_shapes(self, a):
        a = tuple(a)
        if len(a) < 2 or a[-2] > a[-1]:
            raise DLBookError(
                f'{self.name}: input A must be (..., m, n) with m <= n, '
                f'got shape {a}'
            )
        return [a, a[:-2] + (a[-2], a[-2])]

    def forward(self, xp, a):
        self.check(a)
        q, r = xp.linalg.qr(_mT(a))
        q, low = _mT(q).astype(a.dtype), _mT(r).astype(a.dtype)
        self.saved = (q, low)
        return q, low

    def backward(self, xp, dq, dlow):
        q, low = self.saved
        dq, dlow = _or_zeros(xp, dq, q), _or_zeros(xp, dlow, low)
        m = _mT(low) @ dlow - dq @ _mT(q)
        rhs = dq + _copy_lower_to_upper(xp, m) @ q
        return xp.linalg.solve(_mT(low), rhs).astype(q.dtype)


@register('_linalg_syevd')
class LinalgSyevd(_MXLinalgOp):
    """Eigen-decomposition of a symmetric matrix (LAPACK ``syevd``).

    Parameters
    ----------
    A : (..., n, n) array, symmetric; only its lower triangle is read.

    Returns
    -------
    U : (..., n, n) array whose *rows* are the eigenvectors:
        ``U A = diag(lambda) U`` and ``U U^T = I``.  Each row's entry of
        largest magnitude is positive (MXNet's sign rule).
    lambda : (..., n) array of eigenvalues in ascending order.

    Notes
    -----
    Gradient (the symmetric eigenvector rule, Giles 2008, "An extended
    collection of matrix derivative results", sec. 3.1; MXNet's
    ``syevd_backward``), with ``F_ij = 1 / (lambda_i - lambda_j)`` off the
    diagonal and 0 on it:

        X = diag(dlambda) + F o (dU U^T),   dA = U^T sym(X) U,

    ``sym(X) = (X + X^T) / 2``.  It is defined for distinct eigenvalues
    only: close ones make it large.  No flat alias ``nd.linalg_syevd``
    (as in MXNet 1.9.1): use ``nd.linalg.syevd``.

    Examples
    --------
    >>> U, lam = nd.linalg.syevd(nd.array([[1., 2.], [2., 4.]]))
    >>> lam
    [0. 5.]
    """

    num_outputs = 2

    def out_shapes(self, a):
        a = _square(self.name, a)
        return [a, a[:-1]]

    def forward(self, xp, a):
        self.check(a)
        lam, v = xp.linalg.eigh(a)
        u = _mT(v)
        # the sign rule: each row's largest-magnitude entry is positive
        top = xp.take_along_axis(u, abs(u).argmax(axis=-1)[..., None], -1)
        u = xp.where(top < 0, -u, u).astype(a.dtype)
        lam = lam.astype(a.dtype)
        self.saved = (u, lam)
        return u, lam

    def backward(self, xp, du, dlam):
        u, lam = self.saved
        du, dlam = _or_zeros(xp, du, u), _or_zeros(xp, dlam, lam)
        gap = lam[..., :, None] - lam[..., None, :]  # lambda_i - lambda_j
        n = lam.shape[-1]
        eye = xp.eye(n, dtype=u.dtype)
        f = xp.where(eye > 0, 0, 1 / xp.where(eye > 0, 1, gap))
        x = f * (du @ _mT(u)) + eye * dlam[..., None, :]
        return _mT(u) @ (0.5 * (x + _mT(x))) @ u


# -- inverse and determinants (np.linalg's rules, MXNet's shapes) -------------


@register('_linalg_inverse', 'linalg_inverse')
class LinalgInverse(NpInv, _MXLinalgOp):
    """Inverse of a square matrix (or batch of them).

    Notes
    -----
    Forward ``Y = A^-1``; gradient ``dA = -Y^T G Y^T`` (from
    ``dY = -Y dA Y``), the rule of ``np.linalg.inv`` (``NpInv``).  A
    singular matrix raises on the CPU; CuPy returns inf/NaN instead.

    Examples
    --------
    >>> nd.linalg.inverse(nd.array([[1., 4.], [2., 3.]]))
    [[-0.6  0.8]
     [ 0.4 -0.2]]
    """

    def out_shapes(self, a):
        return [_square(self.name, a)]

    def forward(self, xp, a):
        self.check(a)
        try:
            return super().forward(xp, a)
        except _linalg_error(xp) as err:
            raise DLBookError(
                f'{self.name}: the matrix of shape {a.shape} is singular '
                f'({err})'
            ) from None


@register('_linalg_det', 'linalg_det')
class LinalgDet(NpDet, _MXLinalgOp):
    """Determinant of a square matrix (or batch of them).

    Notes
    -----
    Output shape ``A.shape[:-2]``, or ``(1,)`` for a single matrix (MXNet;
    ``np.linalg.det`` gives a 0-d array).  Gradient (Jacobi's formula):
    ``dA = G det(A) A^-T``, the rule of ``np.linalg.det`` (``NpDet``).  A
    matrix whose determinant is exactly 0 gets a zero gradient, as in
    MXNet (not the adjugate).

    Examples
    --------
    >>> nd.linalg.det(nd.array([[1., 4.], [2., 3.]]))
    [-5.]
    """

    def out_shapes(self, a):
        return [_scalar_shape(_square(self.name, a)[:-2])]

    def forward(self, xp, a):
        (shape,) = self.check(a)
        y = super().forward(xp, a)
        singular = y == 0
        if singular.any():  # no gradient there: dy * det = 0 times I
            self.saved = (_invertible(xp, a, singular), y)
        return y.reshape(shape)

    def backward(self, xp, dy):
        a, y = self.saved
        return super().backward(xp, dy.reshape(y.shape))


@register('_linalg_slogdet', 'linalg_slogdet')
class LinalgSlogdet(NpSlogdet, _MXLinalgOp):
    """Sign and log of the absolute determinant: ``(sign, logabsdet)``.

    Notes
    -----
    Both of shape ``A.shape[:-2]`` (``(1,)`` for a single matrix); a
    singular matrix gives sign 0 and logabsdet ``-inf``.  Gradient:
    ``dA = G_logabsdet A^-T``; the sign has none (``NpSlogdet``'s rule),
    and a singular matrix gets zero, as in MXNet.

    Examples
    --------
    >>> sign, logabsdet = nd.linalg.slogdet(nd.array([[2., 3.], [1., 4.]]))
    >>> sign, logabsdet
    ([1.], [1.609438])
    """

    def out_shapes(self, a):
        return [_scalar_shape(_square(self.name, a)[:-2])] * 2

    singular = None  # per call: which matrices are singular, if any

    def forward(self, xp, a):
        shape, _ = self.check(a)
        sign, logdet = super().forward(xp, a)
        singular = sign == 0
        if singular.any():  # MXNet passes no gradient through those
            self.saved = (_invertible(xp, a, singular),)
            self.singular = singular
        return sign.reshape(shape), logdet.reshape(shape)

    def backward(self, xp, dsign, dlogdet):
        (a,) = self.saved
        if dlogdet is not None:
            dlogdet = dlogdet.reshape(a.shape[:-2])
            if self.singular is not None:
                dlogdet = xp.where(self.singular, 0, dlogdet)
        return super().backward(xp, None, dlogdet)


@register('_linalg_sumlogdiag', 'linalg_sumlogdiag')
class LinalgSumlogdiag(_MXLinalgOp):
    """Sum of the logarithms of the diagonal: ``sum_i log A_ii``.

    Notes
    -----
    With ``A = L L^T`` from ``potrf``, ``2 * sumlogdiag(L)`` is
    ``log det A``.  Output shape ``A.shape[:-2]`` (``(1,)`` for one
    matrix); a non-positive diagonal entry gives NaN or ``-inf``.
    Gradient: ``dA_ii = G / A_ii``, zero off the diagonal.

    Examples
    --------
    >>> nd.linalg.sumlogdiag(nd.array([[1., 1.], [1., 7.]]))
    [1.9459101]
    """

    def out_shapes(self, a):
        return [_scalar_shape(_square(self.name, a)[:-2])]

    def forward(self, xp, a):
        (shape,) = self.check(a)
        diag = xp.diagonal(a, axis1=-2, axis2=-1)
        self.saved = a
        return xp.log(diag).sum(axis=-1).reshape(shape)

    def backward(self, xp, dy):
        a = self.saved
        n = a.shape[-1]
        diag = xp.diagonal(a, axis1=-2, axis2=-1)
        scale = dy.reshape(a.shape[:-2] + (1,)) / diag
        return scale[..., None, :] * xp.eye(n, dtype=a.dtype)


# -- moving entries: extractdiag, makediag, extracttrian, maketrian -----------


def _trian_index(xp, n, offset, lower):
    """Row and column indices of the triangle ``extracttrian`` reads from
    an ``n x n`` matrix, in MXNet's order.

    The lower triangle on and below diagonal ``-k`` (``k = |offset|``) is
    the lower triangle of the block ``A[k:, :n-k]``, read row by row.  An
    upper triangle (``offset > 0``, or ``offset == 0`` with
    ``lower=False``) is the same triangle of ``A^T``: read column by
    column.
    """
    k = abs(offset)
    rows, cols = xp.tril_indices(n - k)
    rows = rows + k
    if offset > 0 or (offset == 0 and not lower):
        return cols, rows
    return rows, cols


class _Pick(_MXLinalgOp):
    """Gather entries ``A[..., rows, cols]`` of square matrices into a
    vector (extractdiag, extracttrian); the gradient scatters ``G`` back
    into zeros."""

    def index(self, xp, n):
        raise NotImplementedError

    def count(self, n):
        """How many entries of an n x n matrix are picked."""
        raise NotImplementedError

    def out_shapes(self, a):
        a = _square(self.name, a)
        offset = int(self.attrs['offset'])
        if abs(offset) >= a[-1]:
            raise DLBookError(
                f'{self.name}: offset {offset} is out of range for '
                f'matrices of shape {a[-2:]} (input shape {a}): need '
                f'|offset| < {a[-1]}'
            )
        return [a[:-2] + (self.count(a[-1]),)]

    def forward(self, xp, a):
        self.check(a)
        rows, cols = self.index(xp, a.shape[-1])
        self.saved = (a.shape, rows, cols)
        return a[..., rows, cols]

    def backward(self, xp, dy):
        shape, rows, cols = self.saved
        da = xp.zeros(shape, dtype=dy.dtype)
        da[..., rows, cols] = dy
        return da


class _Place(_MXLinalgOp):
    """Scatter a vector into zero square matrices at ``[rows, cols]``
    (makediag, maketrian); the gradient gathers ``G`` from there."""

    def size(self, length):
        """The matrix size n for a vector of ``length`` entries."""
        raise NotImplementedError

    def out_shapes(self, a):
        a = tuple(a)
        if len(a) < 1:
            raise DLBookError(
                f'{self.name}: input A must have at least one axis, '
                f'got shape {a}'
            )
        n = self.size(a)
        return [a[:-1] + (n, n)]

    def forward(self, xp, a):
        (shape,) = self.check(a)
        n = shape[-1]
        rows, cols = self.index(xp, n)
        y = xp.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
        y[..., rows, cols] = a
        self.saved = (rows, cols)
        return y

    def backward(self, xp, dy):
        rows, cols = self.saved
        return dy[..., rows, cols]


class _DiagIndex:
    """Diagonal ``offset`` (above the main one if positive)."""

    def index(self, xp, n):
        return _diagonal_index(xp, n, n, int(self.attrs['offset']))


class _TrianIndex:
    """The triangle of ``offset`` and ``lower`` (see ``_trian_index``)."""

    def index(self, xp, n):
        return _trian_index(
            xp, n, int(self.attrs['offset']), self.attrs['lower']
        )


@register('_linalg_extractdiag', 'linalg_extractdiag')
class LinalgExtractdiag(_DiagIndex, _Pick):
    """Diagonal ``offset`` of square matrices: (..., n, n) -> (..., n-|k|).

    Parameters
    ----------
    A : (..., n, n) array
    offset : int, default 0
        0 is the main diagonal, k > 0 the k-th above it, k < 0 below.

    Notes
    -----
    ``y[..., i] = A[..., i, i+k]`` (k >= 0) or ``A[..., i-k, i]``; the
    gradient writes ``G`` onto that diagonal of zeros (``makediag``).
    Unlike ``nd.diag``, the input must be square.

    Examples
    --------
    >>> nd.linalg.extractdiag(nd.array([[1., 2.], [3., 4.]]), offset=1)
    [2.]
    """

    defaults = {'offset': 0}

    def count(self, n):
        return n - abs(int(self.attrs['offset']))


@register('_linalg_makediag', 'linalg_makediag')
class LinalgMakediag(_DiagIndex, _Place):
    """Square matrices with the input on diagonal ``offset``:
    (..., m) -> (..., m+|k|, m+|k|), zero elsewhere.

    Notes
    -----
    The inverse of ``extractdiag``; the gradient reads ``G``'s diagonal.

    Examples
    --------
    >>> nd.linalg.makediag(nd.array([1., 2.]), offset=1)
    [[0. 1. 0.]
     [0. 0. 2.]
     [0. 0. 0.]]
    """

    defaults = {'offset': 0}

    def size(self, a):
        return a[-1] + abs(int(self.attrs['offset']))


@register('_linalg_extracttrian', 'linalg_extracttrian')
class LinalgExtracttrian(_TrianIndex, _Pick):
    """A triangle of square matrices as a vector:
    (..., n, n) -> (..., m (m+1) / 2), ``m = n - |offset|``.

    Parameters
    ----------
    A : (..., n, n) array
    offset : int, default 0
        0: the triangle with the main diagonal; k < 0: the lower triangle
        on and below the k-th diagonal below it; k > 0: the upper one on
        and above the k-th diagonal above it.
    lower : bool, default True
        With ``offset=0``: the lower (else the upper) triangle.

    Notes
    -----
    Order (MXNet's): a lower triangle row by row, an upper one column by
    column, so ``extracttrian(A, lower=False) == extracttrian(A^T)``.
    The gradient scatters ``G`` back (``maketrian``).

    Examples
    --------
    >>> A = nd.array([[1., 2.], [3., 4.]])
    >>> nd.linalg.extracttrian(A), nd.linalg.extracttrian(A, lower=False)
    ([1. 3. 4.], [1. 2. 4.])
    """

    defaults = {'offset': 0, 'lower': True}

    def count(self, n):
        m = n - abs(int(self.attrs['offset']))
        return m * (m + 1) // 2


@register('_linalg_maketrian', 'linalg_maketrian')
class LinalgMaketrian(_TrianIndex, _Place):
    """Square matrices from triangles stored as vectors (the inverse of
    ``extracttrian``): (..., m (m+1) / 2) -> (..., n, n), ``n = m +
    |offset|``, zero outside the triangle.

    Notes
    -----
    The last axis must be a triangular number m (m+1) / 2.  The gradient
    reads the triangle of ``G`` back (``extracttrian``).

    Examples
    --------
    >>> nd.linalg.maketrian(nd.array([1., 2., 3.]))
    [[1. 0.]
     [2. 3.]]
    """

    defaults = {'offset': 0, 'lower': True}

    def size(self, a):
        length = a[-1]
        m = int(round(((8 * length + 1) ** 0.5 - 1) / 2))
        if m * (m + 1) // 2 != length or length == 0:
            raise DLBookError(
                f'{self.name}: the last axis of A (shape {a}) must hold a '
                f'triangle of m (m+1)/2 entries (1, 3, 6, 10, ...), got '
                f'{length}'
            )
        return m + abs(int(self.attrs['offset']))
