"""Statistics, running sums and index arithmetic of MXNet's ``nd`` API.

* ``moments`` (mean and variance in one pass) and ``cumsum`` (running sum)
  are differentiable reductions and scans;
* ``ravel_multi_index`` / ``unravel_index`` turn coordinates into flat
  positions and back (no gradient);
* ``batch_take`` reads one element per row (the deprecated ancestor of
  ``pick``), ``khatri_rao`` forms the column-wise Kronecker product of
  matrices (tensor decompositions use it);
* ``histogram`` counts values in bins (no gradient).
"""

from ..base import DLBookError
from .numpy_ops import NpCumsum
from .op import Op, keep_dtype, normalize_axes, register
from .shape import as_shape

__all__ = []


# -- statistics and scans ----------------------------------------------------


@register('moments')
class Moments(Op):
    """(mean, var) of ``data`` over ``axes``; the variance divides by n.

    Forward, with n the number of elements each output reduces::

        mean = sum(x) / n
        var  = sum((x - mean)**2) / n          (population variance)

    Gradient (the dependence of ``var`` on ``mean`` cancels, because the
    deviations sum to zero)::

        dx = d_mean / n + d_var * 2 (x - mean) / n

    Parameters
    ----------
    data : NDArray
    axes : int or tuple of int
        The axes to reduce (negative counts from the end).  Required, as in
        MXNet: for the moments of the whole array, list every axis.
    keepdims : bool
        Keep the reduced axes with length 1 (default False).

    Integer arrays give integer moments (computed in float64, truncated),
    as MXNet does.

    Examples
    --------
    >>> mean, var = nd.moments(nd.array([[1, 2, 3], [4, 5, 6]]), axes=(0,))
    >>> mean, var                       # [2.5 3.5 4.5], [2.25 2.25 2.25]
    """

    defaults = {'axes': None, 'keepdims': False}
    num_outputs = 2
    reads_train_mode = False

    def axes_of(self, x):
        axes = as_shape(self.attrs['axes'])
        if not axes:
            raise DLBookError(
                f'{self.name}: axes must name at least one axis (for the '
                f'moments of the whole array of shape {x.shape}, pass '
                f'axes={tuple(range(x.ndim))})'
            )
        norm = [a % x.ndim if -x.ndim <= a < x.ndim else None for a in axes]
        if None in norm or len(set(norm)) != len(norm):
            raise DLBookError(
                f'{self.name}: axes={axes} must be distinct axes of the '
                f'input of shape {x.shape}'
            )
        return normalize_axes(axes, x.ndim, op_name=self.name)

    def forward(self, xp, x):
        axes = self.axes_of(x)
        xf = x if x.dtype.kind == 'f' else x.astype('float64')
        mean = xf.mean(axis=axes, keepdims=True)
        dev = xf - mean
        var = (dev * dev).mean(axis=axes, keepdims=True)
        n = x.size // max(mean.size, 1)
        self.saved = (dev, n, mean.shape)
        if not self.attrs['keepdims']:
            # legacy MXNet has no 0-d arrays: a full reduction gives (1,)
            out_shape = tuple(
                n for i, n in enumerate(x.shape) if i not in axes
            ) or (1,)
            mean, var = mean.reshape(out_shape), var.reshape(out_shape)
        return keep_dtype(mean, x.dtype), keep_dtype(var, x.dtype)

    def backward(self, xp, d_mean, d_var):
        dev, n, kept = self.saved
        d_mean = d_mean.reshape(kept)
        d_var = d_var.reshape(kept)
        return d_mean / n + d_var * (2.0 / n) * dev


@register('cumsum')
class Cumsum(NpCumsum):
    """y[..., i, ...] = x[..., 0, ...] + ... + x[..., i, ...] along ``axis``.

    With ``axis=None`` the running sum runs over the flattened array and
    the output is 1-D.  ``dtype`` sets the output's (and accumulator's)
    dtype; by default it is the input's, integer ones included (MXNet's
    legacy ``nd.cumsum`` keeps int8 as int8).

    Gradient: output ``y[j]`` sums every ``x[i]`` with ``i <= j``, so
    ``x[i]`` receives every ``dy[j]`` with ``j >= i``::

        dx = reverse(cumsum(reverse(dy)))           along the same axis

    ``nd.cumsum`` is NumPy's ``_np_cumsum`` in MXNet; negative axes work
    here (MXNet 1.9.1's legacy front end rejects ``axis=-1``).

    Examples
    --------
    >>> nd.cumsum(nd.array([[1, 2, 3], [4, 5, 7]]), axis=1)
    ... # [[ 1.  3.  6.] [ 4.  9. 16.]]
    """

    arguments = ('a',)
    reads_train_mode = False

    def forward(self, xp, x):
        self.in_dtype = x.dtype
        return super().forward(xp, x)

    def backward(self, xp, dy):
        return keep_dtype(super().backward(xp, dy), self.in_dtype)


# -- index arithmetic --------------------------------------------------------


def _index_shape(op, shape, what):
    """The ``shape`` attribute as a tuple; -1 allowed first (unknown)."""
    shape = tuple(int(n) for n in as_shape(shape))
    if not shape or any(n <= 0 for n in shape[1:]) or shape[0] in (0,):
        raise DLBookError(
            f'{op}: shape={shape} must be a non-empty tuple of positive '
            f'sizes (the first may be -1) of the array {what}'
        )
    return shape


def _as_int(xp, a):
    return a.astype('int64', copy=a.dtype.kind not in 'iu')


@register('_ravel_multi_index', 'ravel_multi_index')
class RavelMultiIndex(Op):
    """Flat positions of coordinates: y[k] = sum_i data[i, k] * stride_i.

    ``data`` has one row per dimension of ``shape`` and one column per
    coordinate, as ``numpy.ravel_multi_index`` takes them; ``stride_i`` is
    the product of ``shape[i+1:]`` (row-major order), so the first size
    is never used and may be -1.  Coordinates are truncated to integers
    and not range-checked (as in MXNet); the output has ``data``'s dtype.
    No gradient.

    Examples
    --------
    >>> nd.ravel_multi_index(nd.array([[3, 6, 6], [4, 5, 1]]), shape=(7, 6))
    ... # [22. 41. 37.]
    """

    defaults = {'shape': None}
    differentiable = False
    reads_train_mode = False

    def forward(self, xp, data):
        shape = _index_shape(self.name, self.attrs['shape'], 'indexed')
        if data.ndim != 2 or data.shape[0] != len(shape):
            raise DLBookError(
                f'{self.name}: data of shape {data.shape} must be 2-D with '
                f'{len(shape)} rows, one per dimension of shape={shape}'
            )
        idx = _as_int(xp, data)
        flat = xp.zeros(data.shape[1], dtype='int64')
        for i in range(len(shape)):
            flat = flat * (shape[i] if i else 1) + idx[i]
        return flat.astype(data.dtype)


@register('_unravel_index', 'unravel_index')
class UnravelIndex(Op):
    """Coordinates of flat positions: the inverse of ``ravel_multi_index``.

    For each flat position p (truncated to an integer), row i of the output
    holds its coordinate along dimension i of ``shape`` (row-major)::

        y[-1] = p mod shape[-1];   p = p div shape[-1];   ...;   y[0] = p

    The first coordinate is what remains, not reduced modulo ``shape[0]``
    (so ``shape[0]`` may be -1), and negative positions divide as C does,
    toward zero, as MXNet.  The output has shape ``(len(shape),) +
    data.shape`` and ``data``'s dtype.  No gradient.

    Examples
    --------
    >>> nd.unravel_index(nd.array([22, 41, 37]), shape=(7, 6))
    ... # [[3. 6. 6.] [4. 5. 1.]]
    """

    defaults = {'shape': None}
    differentiable = False
    reads_train_mode = False

    def forward(self, xp, data):
        shape = _index_shape(self.name, self.attrs['shape'], 'indexed')
        p = _as_int(xp, data)
        rows = []
        for size in reversed(shape[1:]):
            r = xp.fmod(p, size)
            rows.append(r)
            p = (p - r) // size
        rows.append(p)
        return xp.stack(rows[::-1]).astype(data.dtype)


@register('batch_take')
class BatchTake(Op):
    """y[i] = a[i, indices[i]]: one element of each row (deprecated).

    ``a`` is seen as rows of its last axis, ``(a.size // k, k)``, and
    ``indices`` (an integer array with one entry per row, of any shape)
    picks one element of each; indices outside ``[0, k)`` are clipped, as
    in MXNet.  The output has ``indices``' shape.  Gradient::

        da[i, indices[i]] = dy[i], zero elsewhere;   no gradient to indices

    MXNet requires int32 indices; dlbook takes any integer dtype, and
    floats holding integers (truncated, as ``pick``'s; symbolic shape
    inference runs float32 arrays).  MXNet registers no gradient for
    ``batch_take``; dlbook has one.  ``nd.pick`` is its replacement.

    Examples
    --------
    >>> x = nd.array([[1, 2], [3, 4], [5, 6]])
    >>> nd.batch_take(x, nd.array([0, 1, 0], dtype='int32'))   # [1. 4. 5.]
    """

    arguments = ('a', 'indices')
    reads_train_mode = False

    def forward(self, xp, a, indices):
        if indices.dtype.kind not in 'iuf':
            raise DLBookError(
                f'{self.name}: indices must be numbers (MXNet requires '
                f'int32), got {indices.dtype}'
            )
        if a.ndim < 2 or indices.size * a.shape[-1] != a.size:
            raise DLBookError(
                f'{self.name}: a of shape {a.shape} (at least 2-D) needs '
                f'one index per row of its last axis, '
                f'{a.size // max(a.shape[-1], 1) if a.ndim else 0} in all; '
                f'indices has shape {indices.shape}'
            )
        k = a.shape[-1]
        rows = xp.arange(indices.size)
        cols = xp.clip(indices.reshape(-1).astype('int64'), 0, k - 1)
        self.saved = (rows, cols, a.shape, indices.shape)
        return a.reshape(-1, k)[rows, cols].reshape(indices.shape)

    def backward(self, xp, dy):
        rows, cols, shape, _ = self.saved
        da = xp.zeros((rows.size, shape[-1]), dtype=dy.dtype)
        da[rows, cols] = dy.reshape(-1)
        return da.reshape(shape), None


_LETTERS = 'abcdefghijklmnopqrstuvwxy'  # 'z' names the shared column axis


@register('khatri_rao')
class KhatriRao(Op):
    """Column-wise Kronecker product of matrices A_1 (M_1, N), ..., A_n.

    Forward: column k of the output is the Kronecker product of the k-th
    columns, so with a row index split as (i_1, ..., i_n), i_1 slowest::

        y[(i_1, ..., i_n), k] = A_1[i_1, k] * ... * A_n[i_n, k]

    and y has shape ``(M_1 * ... * M_n, N)``.  Gradient: each factor's
    derivative is the product of the others, summed over their rows::

        dA_j[i_j, k] = sum over i_l (l != j) of dy[(i_1..i_n), k]
                                                * prod_{l != j} A_l[i_l, k]

    (one ``einsum`` per input).  All inputs must be 2-D with N columns and
    one dtype.  MXNet registers no gradient for ``khatri_rao``; dlbook has
    one.

    Examples
    --------
    >>> A = nd.array([[1, -1], [2, -3]])
    >>> B = nd.array([[1, 4], [2, 5], [3, 6]])
    >>> nd.khatri_rao(A, B)[:, 1]     # [ -4.  -5.  -6. -12. -15. -18.]
    """

    variadic = True
    defaults = {'num_args': 0}
    reads_train_mode = False

    def check(self, mats):
        if not mats or len(mats) > len(_LETTERS):
            raise DLBookError(
                f'{self.name}: needs 1 to {len(_LETTERS)} input matrices, '
                f'got {len(mats)}'
            )
        shapes = [m.shape for m in mats]
        dtypes = {str(m.dtype) for m in mats}
        if any(len(s) != 2 or s[1] != shapes[0][1] for s in shapes) or (
            len(dtypes) > 1
        ):
            raise DLBookError(
                f'{self.name}: inputs must be 2-D matrices with the same '
                f'number of columns and one dtype; got shapes {shapes}, '
                f'dtypes {sorted(dtypes)}'
            )

    def forward(self, xp, *mats):
        self.check(mats)
        n_cols = mats[0].shape[1]
        y = mats[0]
        for m in mats[1:]:
            y = (y[:, None, :] * m[None, :, :]).reshape(-1, n_cols)
        self.saved = mats
        return y

    def backward(self, xp, dy):
        mats = self.saved
        letters = _LETTERS[: len(mats)]
        dy = dy.reshape(tuple(m.shape[0] for m in mats) + (dy.shape[1],))
        grads = []
        for j in range(len(mats)):
            others = [m for i, m in enumerate(mats) if i != j]
            terms = ','.join(f'{c}z' for i, c in enumerate(letters) if i != j)
            spec = f'{letters}z' + (',' + terms if terms else '')
            grads.append(xp.einsum(f'{spec}->{letters[j]}z', dy, *others))
        return tuple(grads)


@register('_histogram', 'histogram')
class Histogram(Op):
    """(counts, bin_edges): how many values of ``data`` fall in each bin.

    The data is flattened.  With ``bins`` a number, the bins are that many
    equal slices of ``range`` (``(data.min(), data.max())`` when None, and
    one wide around the value when all values are equal, as NumPy); with
    ``bins`` a 1-D sequence or NDArray of increasing edges, those.  Each bin
    is half-open, ``[edge_i, edge_{i+1})``, except the last, which includes
    its right edge; values outside the edges, and NaN, are not counted.

    Returns ``counts`` (int64, one per bin) and ``bin_edges`` (one more,
    in data's dtype).  No gradient (the counts are piecewise constant).

    ``bin_cnt`` is MXNet's internal name of an integer ``bins`` (what its
    symbol files hold).  MXNet returns float32 counts when ``range`` is
    None (it calls NumPy then) and int64 counts otherwise; dlbook always
    gives int64.

    Examples
    --------
    >>> counts, edges = nd.histogram(nd.array([0, 1, 2, 2, 3]), bins=3,
    ...                              range=(0, 3))
    >>> counts, edges                    # [1 1 3], [0. 1. 2. 3.]
    """

    defaults = {'bins': 10, 'range': None, 'bin_cnt': None}
    differentiable = False
    reads_train_mode = False
    num_outputs = 2

    def __init__(self, **attrs):
        bins = attrs.get('bins')
        if hasattr(bins, 'asnumpy'):  # an NDArray of edges
            if bins.ndim != 1:
                raise DLBookError(
                    f'histogram: bins of shape {bins.shape} must be 1-D'
                )
            attrs['bins'] = tuple(float(v) for v in bins.asnumpy())
        super().__init__(**attrs)

    def edges_or_count(self):
        a = self.attrs
        bins = a['bin_cnt'] if a['bin_cnt'] is not None else a['bins']
        if isinstance(bins, (list, tuple)):
            edges = tuple(float(v) for v in bins)
            if len(edges) < 2 or any(b <= e for e, b in zip(edges, edges[1:])):
                raise DLBookError(
                    f'{self.name}: bin edges {edges} must be at least two '
                    f'increasing numbers'
                )
            return edges
        if int(bins) < 1:
            raise DLBookError(f'{self.name}: bins={bins} must be >= 1')
        return int(bins)

    def forward(self, xp, data):
        bins = self.edges_or_count()
        flat = data.reshape(-1)
        value_range = self.attrs['range']
        if isinstance(bins, tuple):
            bins, value_range = xp.asarray(bins, dtype='float64'), None
        elif value_range is not None:
            lo, hi = (float(v) for v in value_range)
            if lo > hi:
                raise DLBookError(
                    f'{self.name}: range={tuple(value_range)} must have '
                    f'left <= right'
                )
            value_range = (lo, hi)
        elif flat.size and not bool(xp.isfinite(flat).all()):
            raise DLBookError(
                f'{self.name}: data holds NaN or infinity; pass range= '
                f'(the automatic range is data.min() .. data.max())'
            )
        if flat.dtype.kind != 'f':
            flat = flat.astype('float64')
        counts, edges = xp.histogram(flat, bins=bins, range=value_range)
        return counts.astype('int64'), edges.astype(data.dtype)
