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
from .linalg import _mT
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
