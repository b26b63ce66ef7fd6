"""MXNet's ``linalg`` operators that move entries between matrices and
vectors: ``extractdiag``, ``makediag``, ``extracttrian``, ``maketrian``
(the shared checks and the table of formulas are in ``la_op.py``)."""

from ..base import DLBookError
from .la_op import _MXLinalgOp, _square
from .linalg import _diagonal_index
from .op import register

__all__ = []


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
