"""BatchNorm's steps: per-channel statistics, normalization, gradient.

A BatchNorm layer on ``(N, C, ...)`` data takes, for each channel, the
mean and the biased variance over the batch and every spatial position,
normalizes the data with them, then scales by ``gamma`` and shifts by
``beta``; its backward needs two more per-channel sums.  Written plainly
each of these steps is several array operations, each a pass through
memory; here each is as few passes as the backend allows:

* sums over every axis but the channels: :func:`channel_sum` and
  :func:`channel_dot` (one BLAS pass in memory order on NumPy data),
  :data:`CHANNEL_MEAN`, :data:`CHANNEL_VARIANCE` and
  :data:`SUM_OF_PRODUCTS` (one reduction kernel each on a GPU);
* element-wise steps: :data:`BN_STATS` (``invstd`` and the running
  statistics), :data:`BN_APPLY`, :data:`BN_NORMALIZE` and
  :data:`BN_NORMALIZE_RELU` (``xhat`` and ``y``), :data:`BN_GRAD`
  (``dx``);
* :class:`ChannelBroadcast`, which lays per-channel vectors against the
  data in the shape NumPy runs fastest, and splits large element-wise
  passes over threads.

Every kernel has its twin in array operations (``kernels.py``).  The
operator that strings the steps together is in ``batch_norm.py``.
"""

from math import prod

from ..backend import on_host
from ..backend.blas_threads import split_passes
from .kernels import Elementwise, Reduction
from .op import sum_axes

__all__ = [
    'ChannelBroadcast',
    'center',
    'channel_sum',
    'channel_dot',
    'scalar_count',
    'SUM_OF_PRODUCTS',
    'CHANNEL_MEAN',
    'CHANNEL_VARIANCE',
    'BN_NORMALIZE',
    'BN_NORMALIZE_RELU',
    'BN_APPLY',
    'BN_STATS',
    'BN_GRAD',
]


def _blas_friendly(xp, a, axis):
    """Whether ``a`` is ``(N, C, ...)`` float32/float64 NumPy data
    normalized over every axis but the channels (axis 1): its per-channel
    sums can run over ``a.reshape(N*C, -1)`` in memory order.  (On a GPU
    one reduction kernel is quicker than the matrix-vector product and
    its reshapes.)"""
    return (
        axis == 1
        and a.ndim >= 3
        and a.dtype.kind == 'f'
        and a.itemsize >= 4
        and on_host(xp)
    )


def channel_sum(xp, a, axis, axes):
    """``a.sum(axis=axes)``, the sum over every axis but ``axis``.

    For the channel axis of ``(N, C, ...)`` float32/float64 data this is a
    matrix-vector product, ``a.reshape(N*C, -1) @ ones``, then a sum over
    ``N``: BLAS reads ``a`` once in order, where NumPy's reduction over
    axes 0, 2 and 3 strides through it (4 times slower on a ResNet
    block's ``(256, 16, 8, 8)``).
    """
    if not _blas_friendly(xp, a, axis):
        return a.sum(axis=axes)
    return sum_axes(xp, a, axes).reshape(a.shape[1])


def channel_dot(xp, a, b, axis, axes):
    """``(a * b).sum(axis=axes)`` without the product array (for the
    channel axis of float32/float64 NumPy data one ``einsum`` pass, on a
    GPU one reduction kernel, :data:`SUM_OF_PRODUCTS`)."""
    if not _blas_friendly(xp, a, axis):
        return SUM_OF_PRODUCTS(xp, a, b, axis=axes)
    n, c = a.shape[:2]
    return xp.einsum('nck,nck->c', a.reshape(n, c, -1), b.reshape(n, c, -1))


def _sum_of_products_steps(xp, u, v, axis):
    """:data:`SUM_OF_PRODUCTS` in array operations."""
    return (u * v).sum(axis=axis)


#: ``sum(u * v)`` over ``axis``: one kernel reading each input once.
SUM_OF_PRODUCTS = Reduction(
    'dlbook_sum_of_products',
    'T u, T v',
    'T s',
    'u * v',
    'a + b',
    's = a',
    '0',
    _sum_of_products_steps,
)


def _mean_steps(xp, x, count, axis):
    """:data:`CHANNEL_MEAN` in array operations."""
    return x.sum(axis=axis) / count


#: ``sum(x) / count`` over ``axis``: the batch mean as one kernel.
CHANNEL_MEAN = Reduction(
    'dlbook_channel_mean',
    'T x, T count',
    'T mean',
    'x',
    'a + b',
    'mean = a / count',
    '0',
    _mean_steps,
)


def _variance_steps(xp, x, mean, count, axis):
    """:data:`CHANNEL_VARIANCE` in array operations."""
    centered = x - mean
    return (centered * centered).sum(axis=axis) / count


#: ``sum((x - mean)^2) / count`` over ``axis`` (``mean`` broadcast
#: against ``x``): the biased batch variance in one pass over ``x``, with
#: neither ``x - mean`` nor its square stored.
CHANNEL_VARIANCE = Reduction(
    'dlbook_channel_variance',
    'T x, T mean, T count',
    'T var',
    '(x - mean) * (x - mean)',
    'a + b',
    'var = a / count',
    '0',
    _variance_steps,
)


class ChannelBroadcast:
    """Per-channel vectors broadcast against ``(N, C, ...)`` data.

    The plain way reshapes a vector to ``(1, C, 1, 1)``; NumPy then runs
    its inner loop over one channel's spatial block at a time, which is
    short on a small feature map (16 elements on 4x4).  For the channel
    axis of float32/float64 data (:func:`_blas_friendly`) the data is
    seen as ``(N, C*S)`` rows instead and the vector repeated to one row,
    ``(C*S,)``: one long inner loop per image (a subtraction on
    ``(256, 16, 4, 4)``: 37 -> 22 us).  ``rows`` gives the data's view,
    ``vector`` the vector's, ``back`` a result in the data's shape.
    """

    def __init__(self, xp, x, axis, shape):
        self.xp, self.data_shape, self.shape = xp, x.shape, shape
        self.flat = _blas_friendly(xp, x, axis)
        if self.flat:
            self.spatial = prod(x.shape[2:])

    def rows(self, a):
        return a.reshape(a.shape[0], -1) if self.flat else a

    def vector(self, v):
        if self.flat:
            return self.xp.repeat(v, self.spatial)
        return v.reshape(self.shape)

    def back(self, a):
        return a.reshape(self.data_shape)

    def split(self, fn, passes):
        """Run ``fn(start, stop)`` over ranges of images: on threads for
        large NumPy data (``passes`` element-wise passes, see
        :func:`~dlbook.backend.blas_threads.split_passes`), else once.
        Only element-wise work is split, so the numbers never depend on
        the thread count."""
        n = self.data_shape[0]
        if self.flat:
            split_passes(self.xp, fn, n, prod(self.data_shape), passes)
        else:
            fn(0, n)


def scalar_count(dtype, count):
    """``count`` (elements per channel) as a scalar of a float32/float64
    ``dtype``, so that dividing by it keeps the dtype under every NumPy:
    NumPy 1.x reads a Python int over 65,535 as uint32, and ``float32 /
    uint32`` is float64.  Other dtypes get the Python int."""
    if dtype.kind == 'f' and dtype.itemsize >= 4:
        return dtype.type(count)
    return count


def _apply_steps(xp, centered, invstd, gamma, beta, xhat, y):
    """:data:`BN_APPLY` in array operations; ``xhat`` may be ``centered``
    itself (updated in place), and a ``gamma`` of exactly 1 (fix_gamma)
    skips its product."""
    xp.multiply(centered, invstd, out=xhat)
    if isinstance(gamma, float) and gamma == 1.0:
        xp.add(xhat, beta, out=y)
    else:
        xp.multiply(xhat, gamma, out=y)
        y += beta


def _normalize_steps(xp, x, mean, invstd, gamma, beta):
    """:data:`BN_NORMALIZE` in array operations."""
    xhat = (x - mean) * invstd
    return xhat, xhat * gamma + beta


#: ``xhat = (x - mean) * invstd``; ``y = xhat * gamma + beta``, new
#: arrays: the device's apply step, which never stores ``x - mean``.
BN_NORMALIZE = Elementwise(
    'dlbook_batch_norm_normalize',
    'T x, T mean, T invstd, T gamma, T beta',
    'T xhat, T y',
    'xhat = (x - mean) * invstd; y = xhat * gamma + beta;',
    _normalize_steps,
)


def _normalize_relu_steps(xp, x, mean, invstd, gamma, beta):
    """:data:`BN_NORMALIZE_RELU` in array operations."""
    xhat, y = _normalize_steps(xp, x, mean, invstd, gamma, beta)
    return xhat, xp.maximum(y, 0, out=y)


#: :data:`BN_NORMALIZE` with a relu on ``y`` (a BatchNorm whose output
#: only feeds a relu, in a compiled graph: ``dlbook/symbol/fusion.py``).
#: ``y < 0 ? 0 : y`` keeps a NaN, as ``maximum(y, 0)`` does.
BN_NORMALIZE_RELU = Elementwise(
    'dlbook_batch_norm_normalize_relu',
    'T x, T mean, T invstd, T gamma, T beta',
    'T xhat, T y',
    """
    xhat = (x - mean) * invstd;
    y = xhat * gamma + beta;
    y = y < 0 ? (T)0 : y;
    """,
    _normalize_relu_steps,
)


#: ``xhat = centered * invstd``; ``y = xhat * gamma + beta``.
BN_APPLY = Elementwise(
    'dlbook_batch_norm_apply',
    'T centered, T invstd, T gamma, T beta',
    'T xhat, T y',
    'xhat = centered * invstd; y = xhat * gamma + beta;',
    _apply_steps,
)


def _stats_steps(
    xp, mean, var, eps, momentum, invstd, moving_mean, moving_var
):
    """:data:`BN_STATS` in array operations."""
    moving_mean[...] = momentum * moving_mean + (1 - momentum) * mean
    moving_var[...] = momentum * moving_var + (1 - momentum) * var
    xp.divide(1, xp.sqrt(var + eps), out=invstd)


#: The per-channel step of a training forward: ``invstd = 1 / sqrt(var +
#: eps)`` and the running statistics updated in place,
#: ``moving = momentum * moving + (1 - momentum) * batch``.
BN_STATS = Elementwise(
    'dlbook_batch_norm_stats',
    'T mean, T var, T eps, T momentum',
    'T invstd, T moving_mean, T moving_var',
    """
    moving_mean = momentum * moving_mean + (1 - momentum) * mean;
    moving_var = momentum * moving_var + (1 - momentum) * var;
    invstd = 1 / sqrt(var + eps);
    """,
    _stats_steps,
)


def _grad_steps(xp, dy, xhat, dbeta, dy_xhat, scale, invstd, count, dx=None):
    """:data:`BN_GRAD` in array operations: four passes over ``dx`` (a
    new array like ``dy`` when not given)."""
    if dx is None:
        dx = xp.empty_like(dy)
        _grad_steps(xp, dy, xhat, dbeta, dy_xhat, scale, invstd, count, dx)
        return dx
    xp.multiply(xhat, dy_xhat / count, out=dx)
    xp.subtract(dy, dx, out=dx)
    dx -= dbeta / count
    dx *= scale * invstd


#: The batch-statistics gradient of ``affine_norm.py`` with ``g = dy *
#: gamma``, whose sums are ``gamma * dbeta`` and ``gamma * dy_xhat``:
#: ``dx = gamma*invstd * (dy - dbeta/m - xhat * dy_xhat/m)`` (``scale``
#: is gamma, ``count`` is m).
BN_GRAD = Elementwise(
    'dlbook_batch_norm_grad',
    'T dy, T xhat, T dbeta, T dy_xhat, T scale, T invstd, T count',
    'T dx',
    'dx = scale * invstd * (dy - dbeta / count - xhat * (dy_xhat / count));',
    _grad_steps,
)


def center(xp, per, rows, mean):
    """``x - mean`` per channel, in the data's shape (one pass, split over
    images on threads for large NumPy data)."""
    mean_v = per.vector(mean)
    out = xp.empty(rows.shape, dtype=xp.result_type(rows, mean_v))
    per.split(
        lambda a, b: xp.subtract(rows[a:b], mean_v, out=out[a:b]), passes=1
    )
    return per.back(out)
