"""Operators that NumPy mode (``mx.np``) needs and legacy ``nd`` lacks.

``mx.np`` is a front end over the same registry as ``nd``: most of its
functions call the legacy operators (``sum``, ``dot``, ``_getitem``...).
These few have no legacy twin:

* ``_np_reshape``: NumPy's reshape (one ``-1`` at most, 0-d allowed), used
  to give reductions and scalar indexing their 0-d results;
* ``_np_cumsum``: running sums along an axis (or of the flattened array);
* ``_npi_nonzero``, ``_npi_unique``: data-dependent shapes, no gradient;
* ``_npi_multinomial``: NumPy's ``random.multinomial`` (counts per
  category, not the category indices of legacy ``sample_multinomial``).
"""

from math import prod

from ..base import DLBookError
from .op import Op, normalize_axis, register


@register('_np_reshape')
class NpReshape(Op):
    """y = x with a new shape (NumPy rules: one -1 inferred, () allowed);
    dx = dy reshaped back to x's shape"""

    defaults = {'newshape': None, 'order': 'C'}

    def forward(self, xp, x):
        shape = self.attrs['newshape']
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        try:
            y = x.reshape(shape)
        except ValueError:
            raise DLBookError(
                f'{self.name}: cannot reshape array of size '
                f'{x.size} and shape {x.shape} into shape '
                f'{shape}'
            ) from None
        self.saved = x.shape
        return y

    def backward(self, xp, dy):
        return dy.reshape(self.saved)


@register('_np_cumsum')
class NpCumsum(Op):
    """y[..., i, ...] = sum of x[..., :i+1, ...] along ``axis`` (the
    flattened x when axis is None);  dx = reversed running sum of dy"""

    defaults = {'axis': None, 'dtype': None}

    def forward(self, xp, x):
        axis = self.attrs['axis']
        flat = x.reshape(-1) if axis is None else x
        axis = 0 if axis is None else normalize_axis(axis, x.ndim, self.name)
        self.saved = (x.shape, axis)
        return xp.cumsum(flat, axis=axis, dtype=self.attrs['dtype'] or x.dtype)

    def backward(self, xp, dy):
        shape, axis = self.saved
        dx = xp.flip(xp.cumsum(xp.flip(dy, axis), axis=axis), axis)
        return xp.ascontiguousarray(dx).reshape(shape)


@register('_npi_nonzero')
class NpNonzero(Op):
    """y = the indices of the non-zero elements of x, one row per element,
    shape (count, x.ndim), int64;  no gradient"""

    differentiable = False
    dynamic_shape = True  # the shape depends on the values

    def forward(self, xp, x):
        return xp.argwhere(x).astype('int64')


@register('_npi_unique')
class NpUnique(Op):
    """y = the sorted unique values of x (flattened), and optionally the
    indices of their first occurrences, the inverse indices and the counts
    (as ``numpy.unique``);  no gradient"""

    defaults = {
        'return_index': False,
        'return_inverse': False,
        'return_counts': False,
        'axis': None,
    }
    differentiable = False
    dynamic_shape = True  # the shape depends on the values

    def __init__(self, **attrs):
        super().__init__(**attrs)
        self.num_outputs = 1 + sum(
            bool(self.attrs[k])
            for k in ('return_index', 'return_inverse', 'return_counts')
        )

    def forward(self, xp, x):
        a = self.attrs
        result = xp.unique(
            x,
            return_index=bool(a['return_index']),
            return_inverse=bool(a['return_inverse']),
            return_counts=bool(a['return_counts']),
            axis=a['axis'],
        )
        if self.num_outputs == 1:
            return result
        values, *rest = result
        return (values,) + tuple(r.astype('int64').reshape(-1) for r in rest)


@register('_npi_multinomial')
class NpMultinomial(Op):
    """counts[..., k] = how many of ``n`` draws from the probabilities
    ``pvals`` fell in category k, for each of ``size`` experiments (NumPy's
    ``random.multinomial``);  no gradient"""

    arguments = ()
    defaults = {'n': 1, 'pvals': (), 'size': None, 'dtype': 'int64'}
    differentiable = False
    needs_rng = True

    def forward(self, xp):
        a = self.attrs
        p = xp.asarray(a['pvals'], dtype='float64')
        if p.ndim != 1 or p.size == 0:
            raise DLBookError(
                f'{self.name}: pvals must be a non-empty 1-d '
                f'sequence of probabilities, got {a["pvals"]!r}'
            )
        size = a['size']
        size = (
            ()
            if size is None
            else ((size,) if isinstance(size, int) else tuple(size))
        )
        runs, n, k = prod(size), int(a['n']), p.size
        cdf = xp.cumsum(p)
        u = self.rng.uniform(0.0, 1.0, (runs, n))
        idx = xp.minimum((u[:, :, None] >= cdf).sum(axis=2), k - 1)
        counts = (idx[:, :, None] == xp.arange(k)).sum(axis=1)
        return counts.reshape(size + (k,)).astype(a['dtype'])
