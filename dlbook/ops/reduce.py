"""Reductions: sum, mean, prod, max, min, nansum, nanprod, norm, argmax.

MXNet conventions kept here:

* ``axis=None`` reduces over every axis; ``exclude=True`` reduces over every
  axis *except* those in ``axis``;
* a result that would be 0-d has shape ``(1,)`` (legacy NDArrays have no
  0-d form): ``nd.sum(x)`` is ``[6.]``, shape ``(1,)``;
* ``argmax``/``argmin`` return indices as floats of the input dtype.

Each reduction is computed with ``keepdims=True`` and only reshaped at the
end, so the backward pass can broadcast ``dy`` straight back over ``x``.
"""

from ..base import DLBookError
from .op import (
    Op,
    keep_dtype,
    normalize_axes,
    normalize_axis,
    register,
    sum_axes,
)


def _squeeze(y, axes, keepdims, np_shape=False):
    """Drop the reduced axes of the keepdims result ``y``; never 0-d
    unless ``np_shape`` (NumPy mode's ``_np_sum``...)."""
    if keepdims:
        return y
    shape = tuple(n for i, n in enumerate(y.shape) if i not in axes)
    return y.reshape(shape if np_shape or shape else (1,))


def _spread(xp, dy, shape):
    """A new array of ``shape`` holding ``dy`` (reduced axes of size 1)
    broadcast back: ``broadcast_to(dy, shape).copy()`` in one assignment,
    without ``broadcast_to``'s Python-level checks."""
    dx = xp.empty(shape, dtype=dy.dtype)
    dx[...] = dy
    return dx


class _Reduce(Op):
    """Base of ``y = reduce(x, axes)``.

    Subclasses define ``reduce(xp, x, axes)`` (with ``keepdims=True``) and
    ``grad(xp, dy, x, y)`` where ``dy`` and ``y`` keep the reduced axes as
    size 1, so they broadcast against ``x``.
    """

    defaults = {'axis': None, 'keepdims': False, 'exclude': False}
    #: NumPy-mode twin (``_np_sum``): a full reduction is 0-d, not (1,)
    np_shape = False

    def reduce(self, xp, x, axes):
        raise NotImplementedError(
            f'{type(self).__name__} must define reduce()'
        )

    def grad(self, xp, dy, x, y):
        raise NotImplementedError(f'{type(self).__name__} must define grad()')

    def forward(self, xp, x):
        axes = normalize_axes(
            self.attrs['axis'], x.ndim, self.attrs['exclude'], self.name
        )
        y = keep_dtype(self.reduce(xp, x, axes), x.dtype)
        self.saved = (x, y)
        return _squeeze(y, axes, self.attrs['keepdims'], self.np_shape)

    def backward(self, xp, dy):
        x, y = self.saved
        return self.grad(xp, dy.reshape(y.shape), x, y)

    def graph_grads(self, F, inputs, dys):
        (x,), (dy,) = inputs, dys
        y = getattr(F, self.name)(x, **dict(self.attrs, keepdims=True))
        return (self.graph_grad(F, dy.reshape(y.shape), x, y),)

    def graph_grad(self, F, dy, x, y):
        """:meth:`grad` with ``F``'s recorded operators (``_spread``
        writes into a new array, which a graph cannot record)."""
        return self.grad(F, dy, x, y)


@register('sum', 'sum_axis')
class Sum(_Reduce):
    """y = sum of x over axes;   dx = dy broadcast back to x's shape"""

    def reduce(self, xp, x, axes):
        return sum_axes(xp, x, axes)

    def grad(self, xp, dy, x, y):
        return _spread(xp, dy, x.shape)

    def graph_grad(self, F, dy, x, y):
        return F.broadcast_to(dy, x.shape)


@register('mean')
class Mean(_Reduce):
    """y = mean of x over axes (n elements each);   dx = dy / n, broadcast"""

    def reduce(self, xp, x, axes):
        n = 1
        for a in axes:
            n *= x.shape[a]
        if n and x.dtype.kind == 'f' and x.dtype.itemsize >= 4:
            # what ``x.mean`` computes (the same sum, divided once), without
            # its Python-level bookkeeping: a loss's mean runs every step
            return sum_axes(xp, x, axes) / n
        return x.mean(axis=axes, keepdims=True)

    def grad(self, xp, dy, x, y):
        n = x.size // max(y.size, 1)
        return _spread(xp, dy / n, x.shape)

    def graph_grad(self, F, dy, x, y):
        return F.broadcast_to(dy / (x.size // max(y.size, 1)), x.shape)


@register('prod')
class Prod(_Reduce):
    """y = product of x over axes;   dx = dy * y / x (as MXNet: x must not
    be 0)"""

    def reduce(self, xp, x, axes):
        return x.prod(axis=axes, keepdims=True)

    def grad(self, xp, dy, x, y):
        return dy * y / x


@register('max', 'max_axis')
class Max(_Reduce):
    """y = max of x over axes;   dx = dy where x == y (every tie gets the
    full dy, as in MXNet)"""

    def reduce(self, xp, x, axes):
        return x.max(axis=axes, keepdims=True)

    def grad(self, xp, dy, x, y):
        return dy * (x == y)


@register('min', 'min_axis')
class Min(_Reduce):
    """y = min of x over axes;   dx = dy where x == y (every tie gets the
    full dy, as in MXNet)"""

    def reduce(self, xp, x, axes):
        return x.min(axis=axes, keepdims=True)

    def grad(self, xp, dy, x, y):
        return dy * (x == y)


def _np_twin(cls, name):
    """Register ``cls`` again under MXNet's NumPy-mode name, giving 0-d
    results (``_np_sum`` is what MXNet 1.9.1 records for ``x.sum()`` under
    ``set_np``; its attributes are ``axis`` and ``keepdims``)."""
    twin = type(
        f'Np{cls.__name__}',
        (cls,),
        {'np_shape': True, '__doc__': cls.__doc__ + ' (0-d results)'},
    )
    twin.__module__ = cls.__module__
    return register(name)(twin)


NpSum = _np_twin(Sum, '_np_sum')
NpMean = _np_twin(Mean, '_npi_mean')
NpProd = _np_twin(Prod, '_np_prod')
NpMax = _np_twin(Max, '_np_max')
NpMin = _np_twin(Min, '_np_min')


@register('nansum')
class NanSum(_Reduce):
    """y = sum of x over axes, NaN counted as 0;   dx = dy where x is not NaN,
    else 0"""

    def reduce(self, xp, x, axes):
        return xp.nansum(x, axis=axes, keepdims=True)

    def grad(self, xp, dy, x, y):
        return dy * ~xp.isnan(x)


@register('nanprod')
class NanProd(_Reduce):
    """y = product of x over axes, NaN counted as 1;   dx = dy * y / x where
    x is not NaN, else 0"""

    def reduce(self, xp, x, axes):
        return xp.nanprod(x, axis=axes, keepdims=True)

    def grad(self, xp, dy, x, y):
        return xp.where(xp.isnan(x), 0, dy * y / x)


@register('norm')
class Norm(Op):
    """y = (sum |x|**ord)**(1/ord) over axes, ord 1 or 2;
    dx = dy * x / y (ord 2),   dx = dy * sign(x) (ord 1)"""

    defaults = {'ord': 2, 'axis': None, 'out_dtype': None, 'keepdims': False}

    def forward(self, xp, x):
        order = int(self.attrs['ord'])
        axes = normalize_axes(self.attrs['axis'], x.ndim, op_name='norm')
        if order == 2:
            y = xp.sqrt((x * x).sum(axis=axes, keepdims=True))
        elif order == 1:
            y = xp.abs(x).sum(axis=axes, keepdims=True)
        else:
            raise DLBookError(
                f'norm: ord={order} is not supported; use ord=1 or ord=2'
            )
        y = keep_dtype(y, x.dtype)
        self.saved = (x, y, order)
        out = _squeeze(y, axes, self.attrs['keepdims'])
        if self.attrs['out_dtype'] is not None:
            out = out.astype(self.attrs['out_dtype'])
        return out

    def backward(self, xp, dy):
        x, y, order = self.saved
        dy = dy.reshape(y.shape).astype(x.dtype, copy=False)
        if order == 1:
            return dy * xp.sign(x)
        # Where the norm is 0, x is 0 too: divide by 1 there, giving 0.
        return dy * x / (y + (y == 0))


class _ArgReduce(Op):
    """Base of argmax/argmin: indices as floats of x's dtype, no gradient.

    With ``axis=None`` the index is into the flattened array, shape ``(1,)``.
    """

    defaults = {'axis': None, 'keepdims': False}
    differentiable = False

    def find(self, xp, x, axis):
        raise NotImplementedError(f'{type(self).__name__} must define find()')

    def forward(self, xp, x):
        axis, keepdims = self.attrs['axis'], self.attrs['keepdims']
        if axis is None:
            index = self.find(xp, x, None)
            shape = (1,) * x.ndim if keepdims else (1,)
            return index.astype(x.dtype).reshape(shape or (1,))
        axis = normalize_axis(axis, x.ndim, self.name)
        index = self.find(xp, x, axis)
        if keepdims:
            index = xp.expand_dims(index, axis)
        return index.astype(x.dtype).reshape(index.shape or (1,))


@register('argmax')
class Argmax(_ArgReduce):
    """y = index of the largest x along axis (as x's dtype);   no gradient"""

    def find(self, xp, x, axis):
        return xp.argmax(x, axis=axis)


@register('argmin')
class Argmin(_ArgReduce):
    """y = index of the smallest x along axis (as x's dtype);   no gradient"""

    def find(self, xp, x, axis):
        return xp.argmin(x, axis=axis)


@register('argmax_channel')
class ArgmaxChannel(Op):
    """y = index of the largest x along the last axis (as x's dtype);
    no gradient"""

    differentiable = False

    def forward(self, xp, x):
        index = xp.argmax(x, axis=-1).astype(x.dtype)
        return index.reshape(index.shape or (1,))
