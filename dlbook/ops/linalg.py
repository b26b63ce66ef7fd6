"""Matrix operators: dot, batch_dot, linalg_gemm2, linalg_gemm; diag.

The gradient of a product ``Y = A @ B`` is the pair of products
``dA = dY @ B.T`` and ``dB = A.T @ dY``; every product here is that rule
plus bookkeeping for ``transpose_a``/``transpose_b`` and batch axes.
``diag`` reads or writes a matrix diagonal, and its gradient does the
opposite (src/operator/tensor/diag_op-inl.h).
"""

from ..backend.blas_threads import for_gemm
from ..base import DLBookError
from .op import Op, normalize_axis, register


def _mT(x):
    """Swap the last two axes (the matrix transpose of a batch)."""
    return x.swapaxes(-1, -2)


@register('dot')
class Dot(Op):
    """y = A . B, contracting A's last axis with B's first (A = lhs or lhs.T,
    B = rhs or rhs.T);   dA = dy . B^T,   dB = A^T . dy"""

    arguments = ('lhs', 'rhs')
    defaults = {
        'transpose_a': False,
        'transpose_b': False,
        'forward_stype': None,
    }
    same_dtype = True
    # the data of ``dot(X, W)`` wants no gradient: its product is skipped
    skips_unneeded_grads = True

    def forward(self, xp, a, b):
        # As MXNet: transpose_a contracts the *first* axis of an N-d lhs
        # (its other axes keep their order), transpose_b the *last* axis
        # of rhs; for matrices both are the plain transpose.
        A = _lead_last(a) if self.attrs['transpose_a'] else a
        B = _last_lead(b) if self.attrs['transpose_b'] else b
        if A.ndim == 0 or B.ndim == 0 or A.shape[-1] != B.shape[0]:
            raise DLBookError(
                f'dot: shape mismatch between lhs {a.shape} and rhs '
                f'{b.shape} (transpose_a={self.attrs["transpose_a"]}, '
                f'transpose_b={self.attrs["transpose_b"]}): the last axis '
                f'of lhs must equal the first axis of rhs'
            )
        self.saved = (A, B)
        k = B.shape[0]
        # BLAS threads by product size (DLBOOK_NUM_THREADS): one thread
        # for small products, where waking threads costs more than it saves
        for_gemm(xp, A.size // max(k, 1), B.size // max(k, 1), k)
        if A.ndim == 2 and B.ndim == 2:
            return xp.dot(A, B)
        # N-d: flatten to one matrix product, then restore the axes.
        y = xp.dot(A.reshape(-1, k), B.reshape(k, -1))
        return y.reshape(A.shape[:-1] + B.shape[1:] or (1,))

    def backward(self, xp, dy):
        A, B = self.saved
        k = B.shape[0]
        A2, B2 = A.reshape(-1, k), B.reshape(k, -1)
        dy2 = dy.reshape(A2.shape[0], B2.shape[1])
        for_gemm(xp, A2.shape[0], B2.shape[1], k)  # all three products
        needs = self.needs_input_grad  # None: both
        dA = dB = None
        if needs is None or needs[0]:
            dA = xp.dot(dy2, B2.T).reshape(A.shape)
            if self.attrs['transpose_a']:
                dA = _last_lead(dA)
        if needs is None or needs[1]:
            dB = xp.dot(A2.T, dy2).reshape(B.shape)
            if self.attrs['transpose_b']:
                dB = _lead_last(dB)
        return dA, dB

    def graph_grads(self, F, inputs, dys):
        a, b = inputs
        A = _lead_last(a, F) if self.attrs['transpose_a'] else a
        B = _last_lead(b, F) if self.attrs['transpose_b'] else b
        k = B.shape[0]
        A2, B2 = A.reshape((-1, k)), B.reshape((k, -1))
        dy2 = dys[0].reshape((A2.shape[0], B2.shape[1]))
        dA = F.dot(dy2, B2, transpose_b=True).reshape(A.shape)
        dB = F.dot(A2, dy2, transpose_a=True).reshape(B.shape)
        return (
            _last_lead(dA, F) if self.attrs['transpose_a'] else dA,
            _lead_last(dB, F) if self.attrs['transpose_b'] else dB,
        )


def _lead_last(x, F=None):
    """x with its first axis moved last (``x.T`` for a matrix); ``F``: the
    ``nd`` module, for NDArrays."""
    if x.ndim <= 2:
        return x.T
    axes = tuple(range(1, x.ndim)) + (0,)
    return F.transpose(x, axes=axes) if F is not None else x.transpose(axes)


def _last_lead(x, F=None):
    """x with its last axis moved first (inverse of :func:`_lead_last`)."""
    if x.ndim <= 2:
        return x.T
    axes = (x.ndim - 1,) + tuple(range(x.ndim - 1))
    return F.transpose(x, axes=axes) if F is not None else x.transpose(axes)


def _check_batched(name, a, b, A, B, min_ndim):
    """Raise unless A @ B is a valid batched product of equal batch axes."""
    if (
        A.ndim < min_ndim
        or A.ndim != B.ndim
        or A.shape[:-2] != B.shape[:-2]
        or A.shape[-1] != B.shape[-2]
    ):
        raise DLBookError(
            f'{name}: shape mismatch between lhs {a.shape} and rhs '
            f'{b.shape} (after transposes {A.shape} and {B.shape}): need '
            f'equal batch axes, at least {min_ndim} dimensions, and lhs '
            f'columns equal to rhs rows'
        )


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
    defaults = {
        'transpose_a': False,
        'transpose_b': False,
        'forward_stype': None,
    }
    same_dtype = True

    def forward(self, xp, a, b):
        A = _mT(a) if self.attrs['transpose_a'] else a
        B = _mT(b) if self.attrs['transpose_b'] else b
        _check_batched('batch_dot', a, b, A, B, min_ndim=3)
        self.saved = (A, B)
        # threads by the size of one product of the batch (each is a
        # separate BLAS call), as the convolutions do
        for_gemm(xp, A.shape[-2], B.shape[-1], A.shape[-1])
        return xp.matmul(A, B)

    def backward(self, xp, dy):
        A, B = self.saved
        for_gemm(xp, A.shape[-2], B.shape[-1], A.shape[-1])
        return _matmul_grads(
            xp, dy, A, B, self.attrs['transpose_a'], self.attrs['transpose_b']
        )


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
        da, db = _matmul_grads(
            xp, dy, A, B, self.attrs['transpose_a'], self.attrs['transpose_b']
        )
        return self._rows_back(xp, da), self._rows_back(xp, db)


@register('_linalg_gemm2', 'linalg_gemm2')
class LinalgGemm2(_Gemm):
    """y = alpha * op(A) @ op(B), batched over leading axes;
    dA = alpha * dy @ op(B)^T,   dB = alpha * op(A)^T @ dy (then un-op)"""

    arguments = ('A', 'B')
    defaults = {
        'transpose_a': False,
        'transpose_b': False,
        'alpha': 1.0,
        'axis': -2,
    }

    def forward(self, xp, a, b):
        return self._rows_back(xp, self.product(xp, a, b))

    def backward(self, xp, dy):
        return self.product_grads(xp, self._rows_last(xp, dy))


@register('_linalg_gemm', 'linalg_gemm')
class LinalgGemm(_Gemm):
    """y = alpha * op(A) @ op(B) + beta * C;
    dA = alpha * dy @ op(B)^T,   dB = alpha * op(A)^T @ dy,   dC = beta * dy"""

    arguments = ('A', 'B', 'C')
    defaults = {
        'transpose_a': False,
        'transpose_b': False,
        'alpha': 1.0,
        'beta': 1.0,
        'axis': -2,
    }

    def forward(self, xp, a, b, c):
        y = self.product(xp, a, b)
        c = self._rows_last(xp, c)
        if c.shape != y.shape:
            raise DLBookError(
                f'{self.name}: C has shape {self._rows_back(xp, c).shape} '
                f'but op(A) @ op(B) has shape {self._rows_back(xp, y).shape}'
            )
        beta = float(self.attrs['beta'])
        y += c if beta == 1.0 else beta * c
        return self._rows_back(xp, y)

    def backward(self, xp, dy):
        dy = self._rows_last(xp, dy)
        da, db = self.product_grads(xp, dy)
        beta = float(self.attrs['beta'])
        dc = dy if beta == 1.0 else beta * dy
        return da, db, self._rows_back(xp, dc)


# -- diagonals ----------------------------------------------------------------


def _diagonal_index(xp, rows, cols, k):
    """Row and column indices of diagonal ``k`` of a ``rows x cols``
    matrix: ``(i, i + k)`` for k >= 0, ``(i - k, i)`` for k < 0."""
    length = min(rows - max(-k, 0), cols - max(k, 0))
    i = xp.arange(max(length, 0))
    return i + max(-k, 0), i + max(k, 0)


@register('diag')
class Diag(Op):
    """Build a diagonal matrix (1-D input) or read a diagonal (N-D input).

    1-D x of length n: y is (n+|k|, n+|k|), zero except y[i, i+k] = x[i]
        (k >= 0) or y[i-k, i] = x[i] (k < 0);   dx[i] = that entry of dy.
    N-D x: y[..., i] = x[..., i, ..., i+k, ...] along ``axis1``, ``axis2``
        (both removed, the diagonal appended as the last axis, like
        ``numpy.diagonal``);   dx = zeros with dy written on the diagonal.

    ``k > 0`` is above the main diagonal, ``k < 0`` below it.
    """

    defaults = {'k': 0, 'axis1': 0, 'axis2': 1}

    def _axes(self, ndim):
        a1 = normalize_axis(int(self.attrs['axis1']), ndim, 'diag')
        a2 = normalize_axis(int(self.attrs['axis2']), ndim, 'diag')
        if a1 == a2:
            raise DLBookError(
                f'diag: axis1 and axis2 cannot refer to the same axis {a1}'
            )
        return a1, a2

    def forward(self, xp, x):
        k = int(self.attrs['k'])
        if x.ndim == 0:
            raise DLBookError('diag: the input must have at least one axis')
        if x.ndim == 1:
            n = x.shape[0] + abs(k)
            rows, cols = _diagonal_index(xp, n, n, k)
            y = xp.zeros((n, n), dtype=x.dtype)
            y[rows, cols] = x
            self.saved = (x.shape, rows, cols, None)
            return y
        a1, a2 = self._axes(x.ndim)
        h, w = x.shape[a1], x.shape[a2]
        if k > w or -k > h:
            raise DLBookError(
                f'diag: diagonal k={k} does not exist for axes {a1} and '
                f'{a2} of sizes {h} and {w} (input shape {x.shape})'
            )
        rows, cols = _diagonal_index(xp, h, w, k)
        # the two axes last, then pick the (row, col) pairs
        matrices = xp.moveaxis(x, (a1, a2), (-2, -1))
        self.saved = (x.shape, rows, cols, (a1, a2))
        return matrices[..., rows, cols]

    def backward(self, xp, dy):
        shape, rows, cols, axes = self.saved
        if axes is None:
            return dy[rows, cols]
        a1, a2 = axes
        others = [n for i, n in enumerate(shape) if i not in axes]
        dx = xp.zeros(tuple(others) + (shape[a1], shape[a2]), dtype=dy.dtype)
        dx[..., rows, cols] = dy
        return xp.moveaxis(dx, (-2, -1), (a1, a2))
