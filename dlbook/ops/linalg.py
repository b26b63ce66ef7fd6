"""Matrix products: dot, batch_dot, linalg_gemm2, linalg_gemm.

The gradient of a product ``Y = A @ B`` is the pair of products
``dA = dY @ B.T`` and ``dB = A.T @ dY``; every operator here is that rule
plus bookkeeping for ``transpose_a``/``transpose_b`` and batch axes.
"""

from ..base import DLBookError
from . import Op, register, normalize_axis


def _mT(x):
    """Swap the last two axes (the matrix transpose of a batch)."""
    return x.swapaxes(-1, -2)


@register('dot')
class Dot(Op):
    """y = A . B, contracting A's last axis with B's first (A = lhs or lhs.T,
    B = rhs or rhs.T);   dA = dy . B^T,   dB = A^T . dy"""
    arguments = ('lhs', 'rhs')
    defaults = {'transpose_a': False, 'transpose_b': False,
                'forward_stype': None}
    same_dtype = True

    def forward(self, xp, a, b):
        # transpose_a reverses *all* axes of an N-d lhs, like lhs.T.
        A = a.T if self.attrs['transpose_a'] else a
        B = b.T if self.attrs['transpose_b'] else b
        if A.ndim == 0 or B.ndim == 0 or A.shape[-1] != B.shape[0]:
            raise DLBookError(
                f'dot: shape mismatch between lhs {a.shape} and rhs '
                f'{b.shape} (transpose_a={self.attrs["transpose_a"]}, '
                f'transpose_b={self.attrs["transpose_b"]}): the last axis '
                f'of lhs must equal the first axis of rhs')
        self.saved = (A, B)
        if A.ndim == 2 and B.ndim == 2:
            return xp.dot(A, B)
        # N-d: flatten to one matrix product, then restore the axes.
        k = B.shape[0]
        y = xp.dot(A.reshape(-1, k), B.reshape(k, -1))
        return y.reshape(A.shape[:-1] + B.shape[1:] or (1,))

    def backward(self, xp, dy):
        A, B = self.saved
        k = B.shape[0]
        A2, B2 = A.reshape(-1, k), B.reshape(k, -1)
        dy2 = dy.reshape(A2.shape[0], B2.shape[1])
        dA = xp.dot(dy2, B2.T).reshape(A.shape)
        dB = xp.dot(A2.T, dy2).reshape(B.shape)
        return (dA.T if self.attrs['transpose_a'] else dA,
                dB.T if self.attrs['transpose_b'] else dB)


def _check_batched(name, a, b, A, B, min_ndim):
    """Raise unless A @ B is a valid batched product of equal batch axes."""
    if (A.ndim < min_ndim or A.ndim != B.ndim
            or A.shape[:-2] != B.shape[:-2] or A.shape[-1] != B.shape[-2]):
        raise DLBookError(
            f'{name}: shape mismatch between lhs {a.shape} and rhs '
            f'{b.shape} (after transposes {A.shape} and {B.shape}): need '
            f'equal batch axes, at least {min_ndim} dimensions, and lhs '
            f'columns equal to rhs rows')


def _matmul_grads(xp, dy, A, B, transpose_a, transpose_b):
    """Gradients of ``y = A @ B`` for the *untransposed* inputs a and b."""
    da = xp.matmul(B, _mT(dy)) if transpose_a else xp.matmul(dy, _mT(B))
    db = xp.matmul(_mT(dy), A) if transpose_b else xp.matmul(_mT(A), dy)
    return da, db


@register('batch_dot')
class BatchDot(Op):
    """y[i] = A[i] @ B[i] for each batch index i (A = lhs or its matrix
    transpose);   dA[i] = dy[i] @ B[i]^T,   dB[i] = A[i]^T @ dy[i]"""
    arguments = ('lhs', 'rhs')
    defaults = {'transpose_a': False, 'transpose_b': False,
                'forward_stype': None}
    same_dtype = True

    def forward(self, xp, a, b):
        A = _mT(a) if self.attrs['transpose_a'] else a
        B = _mT(b) if self.attrs['transpose_b'] else b
        _check_batched('batch_dot', a, b, A, B, min_ndim=3)
        self.saved = (A, B)
        return xp.matmul(A, B)

    def backward(self, xp, dy):
        A, B = self.saved
        return _matmul_grads(xp, dy, A, B, self.attrs['transpose_a'],
                             self.attrs['transpose_b'])


class _Gemm(Op):
    """Shared part of gemm2/gemm: alpha * op(A) @ op(B) over the last two
    axes (rows along ``axis``), batched over the others."""
    same_dtype = True

    def _rows_last(self, xp, x):
        """Move the row axis to position -2, where matmul expects it."""
        axis = normalize_axis(self.attrs['axis'], x.ndim, self.name)
        return x if axis == x.ndim - 2 else xp.moveaxis(x, axis, -2)

    def _rows_back(self, xp, x):
        axis = normalize_axis(self.attrs['axis'], x.ndim, self.name)
        return x if axis == x.ndim - 2 else xp.moveaxis(x, -2, axis)

    def product(self, xp, a, b):
        a, b = self._rows_last(xp, a), self._rows_last(xp, b)
        A = _mT(a) if self.attrs['transpose_a'] else a
        B = _mT(b) if self.attrs['transpose_b'] else b
        _check_batched(self.name, a, b, A, B, min_ndim=2)
        self.saved = (A, B)
        y = xp.matmul(A, B)
        alpha = float(self.attrs['alpha'])
        if alpha != 1.0:
            y *= alpha
        return y

    def product_grads(self, xp, dy):
        A, B = self.saved
        alpha = float(self.attrs['alpha'])
        if alpha != 1.0:
            dy = dy * alpha
        da, db = _matmul_grads(xp, dy, A, B, self.attrs['transpose_a'],
                               self.attrs['transpose_b'])
        return self._rows_back(xp, da), self._rows_back(xp, db)


@register('_linalg_gemm2', 'linalg_gemm2')
class LinalgGemm2(_Gemm):
    """y = alpha * op(A) @ op(B), batched over leading axes;
    dA = alpha * dy @ op(B)^T,   dB = alpha * op(A)^T @ dy (then un-op)"""
    arguments = ('A', 'B')
    defaults = {'transpose_a': False, 'transpose_b': False, 'alpha': 1.0,
                'axis': -2}

    def forward(self, xp, a, b):
        return self._rows_back(xp, self.product(xp, a, b))

    def backward(self, xp, dy):
        return self.product_grads(xp, self._rows_last(xp, dy))


@register('_linalg_gemm', 'linalg_gemm')
class LinalgGemm(_Gemm):
    """y = alpha * op(A) @ op(B) + beta * C;
    dA = alpha * dy @ op(B)^T,   dB = alpha * op(A)^T @ dy,   dC = beta * dy"""
    arguments = ('A', 'B', 'C')
    defaults = {'transpose_a': False, 'transpose_b': False, 'alpha': 1.0,
                'beta': 1.0, 'axis': -2}

    def forward(self, xp, a, b, c):
        y = self.product(xp, a, b)
        c = self._rows_last(xp, c)
        if c.shape != y.shape:
            raise DLBookError(
                f'{self.name}: C has shape {self._rows_back(xp, c).shape} '
                f'but op(A) @ op(B) has shape {self._rows_back(xp, y).shape}')
        beta = float(self.attrs['beta'])
        y += c if beta == 1.0 else beta * c
        return self._rows_back(xp, y)

    def backward(self, xp, dy):
        dy = self._rows_last(xp, dy)
        da, db = self.product_grads(xp, dy)
        beta = float(self.attrs['beta'])
        dc = dy if beta == 1.0 else beta * dy
        return da, db, self._rows_back(xp, dc)
