"""``np.linalg`` operators: determinants, inverses, solves, eigenvalues.

Each works on a matrix or a stack of matrices (the last two axes), as
NumPy's ``linalg`` and MXNet's ``_npi_*`` operators do.  The gradients:

* ``det``:  dA = dy * det(A) * inv(A).T
* ``slogdet``: d(log|det A|) = inv(A).T (the sign has no gradient)
* ``inv``:  dA = -inv(A).T @ dY @ inv(A).T
* ``solve`` (A X = B):  dB = solve(A.T, dX),  dA = -dB @ X.T
* ``svd`` and ``cholesky``: the standard rules (see each class);
* ``pinv``: zero, as MXNet 1.9.1 gives.

Eigen-decompositions, ``qr`` and singular values alone have no gradient.
"""

from .op import Op, register

__all__ = []


def _t(xp, a):
    return xp.swapaxes(a, -1, -2)


class _LinalgOp(Op):
    """Shapes follow from the input's shape (a graph's shape inference
    must not factor a matrix of zeros)."""

    arguments = ('A',)

    def out_shapes(self, a, *rest):
        raise NotImplementedError(
            f'{type(self).__name__} must define out_shapes()'
        )

    def infer_shape(self, *in_shapes):
        if any(s is None for s in in_shapes):
            return list(in_shapes), [None] * self.num_outputs, []
        return list(in_shapes), self.out_shapes(*in_shapes), []


@register('_npi_det')
class NpDet(_LinalgOp):
    """y = det(A) over the last two axes;  dA = dy * y * inv(A).T"""

    def out_shapes(self, a):
        return [tuple(a[:-2])]

    def forward(self, xp, a):
        y = xp.linalg.det(a).astype(a.dtype)
        self.saved = (a, y)
        return y

    def backward(self, xp, dy):
        a, y = self.saved
        return ((dy * y)[..., None, None] * _t(xp, xp.linalg.inv(a))).astype(
            a.dtype
        )


@register('_npi_slogdet')
class NpSlogdet(_LinalgOp):
    """(sign, log|det A|);  dA = dlogdet * inv(A).T"""

    num_outputs = 2

    def out_shapes(self, a):
        return [tuple(a[:-2])] * 2

    def forward(self, xp, a):
        sign, logdet = xp.linalg.slogdet(a)
        self.saved = (a,)
        return sign.astype(a.dtype), logdet.astype(a.dtype)

    def backward(self, xp, dsign, dlogdet):
        (a,) = self.saved
        if dlogdet is None:
            return xp.zeros_like(a)
        return (dlogdet[..., None, None] * _t(xp, xp.linalg.inv(a))).astype(
            a.dtype
        )


@register('_npi_inv')
class NpInv(_LinalgOp):
    """Y = inv(A);  dA = -Y.T @ dY @ Y.T"""

    def out_shapes(self, a):
        return [tuple(a)]

    def forward(self, xp, a):
        y = xp.linalg.inv(a).astype(a.dtype)
        self.saved = (y,)
        return y

    def backward(self, xp, dy):
        (y,) = self.saved
        yt = _t(xp, y)
        return -(yt @ dy @ yt)


@register('_npi_solve')
class NpSolve(_LinalgOp):
    """X = solve(A, B), A X = B (B a vector or matrix per A);
    dB = solve(A.T, dX), dA = -dB @ X.T"""

    arguments = ('a', 'b')

    def out_shapes(self, a, b):
        return [tuple(b)]

    def forward(self, xp, a, b):
        vector = b.ndim == a.ndim - 1
        rhs = b[..., None] if vector else b
        x = xp.linalg.solve(a, rhs).astype(b.dtype)
        self.saved = (a, x, vector)
        return x[..., 0] if vector else x

    def backward(self, xp, dx):
        a, x, vector = self.saved
        if vector:
            dx = dx[..., None]
        db = xp.linalg.solve(_t(xp, a), dx).astype(x.dtype)
        da = -(db @ _t(xp, x))
        return da.astype(a.dtype), (db[..., 0] if vector else db)


class _NoGrad(Op):
    arguments = ('A',)
    differentiable = False


@register('_npi_eig')
class NpEig(_NoGrad):
    """(w, v): eigenvalues and right eigenvectors (real inputs with real
    eigenvalues, as MXNet);  no gradient"""

    num_outputs = 2

    def forward(self, xp, a):
        w, v = xp.linalg.eig(a)
        return w.real.astype(a.dtype), v.real.astype(a.dtype)


@register('_npi_eigvals')
class NpEigvals(_NoGrad):
    """w: eigenvalues (real parts);  no gradient"""

    def forward(self, xp, a):
        return xp.linalg.eigvals(a).real.astype(a.dtype)


@register('_npi_eigh')
class NpEigh(_NoGrad):
    """(w, v) of a symmetric matrix, w ascending;  no gradient"""

    defaults = {'UPLO': 'L'}
    num_outputs = 2

    def forward(self, xp, a):
        w, v = xp.linalg.eigh(a, UPLO=self.attrs['UPLO'])
        return w.astype(a.dtype), v.astype(a.dtype)


@register('_npi_eigvalsh')
class NpEigvalsh(_NoGrad):
    """w of a symmetric matrix, ascending;  no gradient"""

    defaults = {'UPLO': 'L'}

    def forward(self, xp, a):
        return xp.linalg.eigvalsh(a, UPLO=self.attrs['UPLO']).astype(a.dtype)


@register('_np_singular_values')
class NpSingularValues(_NoGrad):
    """The singular values of A, descending (for the matrix 2-norm and
    the nuclear norm);  no gradient"""

    def forward(self, xp, a):
        return xp.linalg.svd(a, compute_uv=False).astype(a.dtype)


# -- factorizations: svd, cholesky, qr, pinv ----------------------------------


def _tril_half(xp, m):
    """The lower triangle of ``m`` with its diagonal halved (Phi)."""
    low = xp.tril(m)
    diag = xp.diagonal(low, axis1=-2, axis2=-1)
    return low - 0.5 * xp.einsum(
        '...i,ij->...ij', diag, xp.eye(m.shape[-1], dtype=m.dtype)
    )


@register('_npi_svd')
class NpSvd(_LinalgOp):
    """(UT, L, V) with A = UT @ diag(L) @ V for A of shape (..., M, N),
    M <= N (MXNet's layout: UT (..., M, M), L (..., M) descending,
    V (..., M, N) with orthonormal rows);  dA from dUT, dL, dV by the
    standard SVD rule (F_ij = 1 / (L_j^2 - L_i^2)):
    dA = UT [F o (UT' dUT - dUT' UT) L + diag(dL) + L F o (V dV' - dV V')] V
    + UT L^-1 dV (I - V' V).  The singular vectors' signs are LAPACK's
    and may differ from MXNet's (each pair (UT column, V row) is unique
    up to a common sign)."""

    num_outputs = 3

    def out_shapes(self, a):
        m, n = a[-2], a[-1]
        return [
            tuple(a[:-2]) + (m, m),
            tuple(a[:-2]) + (m,),
            tuple(a[:-2]) + (m, n),
        ]

    def forward(self, xp, a):
        if a.ndim < 2 or a.shape[-2] > a.shape[-1]:
            raise ValueError(
                f'svd needs (..., M, N) with M <= N (MXNet), '
                f'got shape {a.shape}; transpose the input'
            )
        ut, s, v = xp.linalg.svd(a, full_matrices=False)
        ut, s, v = ut.astype(a.dtype), s.astype(a.dtype), v.astype(a.dtype)
        self.saved = (ut, s, v)
        return ut, s, v

    def backward(self, xp, dut, ds, dv):
        ut, s, v = self.saved
        m = s.shape[-1]
        s2 = s[..., None, :] ** 2 - s[..., :, None] ** 2  # s_j^2 - s_i^2
        eye = xp.eye(m, dtype=s.dtype)
        f = xp.where(eye > 0, 0, 1 / xp.where(eye > 0, 1, s2))
        j = f * (_t(xp, ut) @ dut - _t(xp, dut) @ ut)
        k = f * (v @ _t(xp, dv) - dv @ _t(xp, v))
        inner = (
            j * s[..., None, :] + eye * ds[..., None, :] + s[..., :, None] * k
        )
        da = ut @ inner @ v
        n = v.shape[-1]
        if n > m:
            proj = xp.eye(n, dtype=v.dtype) - _t(xp, v) @ v
            da = da + ut @ (dv / s[..., :, None]) @ proj
        return da.astype(ut.dtype)


@register('_npi_cholesky')
class NpCholesky(_LinalgOp):
    """L, lower triangular with A = L @ L.T (A symmetric positive
    definite);  with P = Phi(L.T dL) (lower triangle, diagonal halved)
    and S = L^-T P L^-1:  dA = (S + S.T) / 2 (symmetric, as MXNet)"""

    def out_shapes(self, a):
        return [tuple(a)]

    def forward(self, xp, a):
        low = xp.linalg.cholesky(a).astype(a.dtype)
        self.saved = low
        return low

    def backward(self, xp, dl):
        low = self.saved
        inv = xp.linalg.inv(low)
        p = _tril_half(xp, _t(xp, low) @ dl)
        s = _t(xp, inv) @ p @ inv
        return (0.5 * (s + _t(xp, s))).astype(low.dtype)


@register('_npi_qr')
class NpQr(_NoGrad):
    """(Q, R), A = Q @ R, reduced mode (Q (..., M, K), R (..., K, N),
    K = min(M, N));  no gradient (MXNet 1.9.1's qr backward fails)"""

    num_outputs = 2

    def forward(self, xp, a):
        q, r = xp.linalg.qr(a)
        return q.astype(a.dtype), r.astype(a.dtype)


@register('_npi_pinv_scalar_rcond')
class NpPinv(_LinalgOp):
    """The Moore-Penrose pseudo-inverse (..., N, M) of A (..., M, N):
    singular values below ``rcond`` times the largest are dropped;
    gradient zero, as MXNet 1.9.1 gives"""

    defaults = {'rcond': 1e-15, 'hermitian': False}

    def out_shapes(self, a):
        return [tuple(a[:-2]) + (a[-1], a[-2])]

    def forward(self, xp, a):
        if self.attrs['hermitian']:
            raise ValueError(
                'pinv: hermitian=True is not supported (as in MXNet 1.9.1)'
            )
        self.saved = a.shape
        return xp.linalg.pinv(a, rcond=self.attrs['rcond']).astype(a.dtype)

    def backward(self, xp, dy):
        return xp.zeros(self.saved, dtype=dy.dtype)
