"""``np.linalg`` operators: determinants, inverses, solves, eigenvalues.

Each works on a matrix or a stack of matrices (the last two axes), as
NumPy's ``linalg`` and MXNet's ``_npi_*`` operators do.  The gradients:

* ``det``:  dA = dy * det(A) * inv(A).T
* ``slogdet``: d(log|det A|) = inv(A).T (the sign has no gradient)
* ``inv``:  dA = -inv(A).T @ dY @ inv(A).T
* ``solve`` (A X = B):  dB = solve(A.T, dX),  dA = -dB @ X.T

Eigen-decompositions and singular values have no gradient here.
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
        raise NotImplementedError

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
        return ((dy * y)[..., None, None] * _t(xp, xp.linalg.inv(a))
                ).astype(a.dtype)


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
        return (dlogdet[..., None, None] * _t(xp, xp.linalg.inv(a))
                ).astype(a.dtype)


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
