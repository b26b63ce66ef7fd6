"""What the layer-wise optimizers compute about a whole array: sums of
squares and L2 norms, LARS's learning rates, and the finiteness check of
loss scaling.

LARS and LAMB scale each layer's step by a ratio of norms, such as
``||weight|| / ||update||``; mixed-precision training with a loss scale
skips a step whose gradients overflowed.  Each quantity is a reduction of
a whole array to one number, and each result stays on the array's device
(a 0-d array): reading it on the host would stall a GPU once per weight.

Sources: ``apache/mxnet@1.9.1:src/operator/contrib/multi_sum_sq-inl.h``,
``multi_lars-inl.h`` (``MultiLARSKernel``) and ``all_finite-inl.h``.
"""

from ..kernels import Reduction

__all__ = ['sum_of_squares', 'l2_norm', 'lars_rates', 'all_finite']


def _sum_of_squares_steps(xp, x, axis):
    """:data:`SUM_OF_SQUARES` in array operations.  float16 is accumulated
    (and returned) in float32, as MXNet's ``multi_sum_sq`` does: a sum of
    squares overflows float16 (largest value 65504) quickly."""
    wide = xp.result_type(x.dtype, xp.float32)
    return xp.sum(xp.square(x, dtype=wide), axis=axis)


#: ``sum(x * x)`` over ``axis``, reading ``x`` once.
SUM_OF_SQUARES = Reduction(
    'dlbook_sum_of_squares',
    'T x',
    'T s',
    'x * x',
    'a + b',
    's = a',
    '0',
    _sum_of_squares_steps,
)


def _l2_norm_steps(xp, x, axis):
    """:data:`L2_NORM` in array operations."""
    return xp.sqrt(_sum_of_squares_steps(xp, x, axis))


#: ``sqrt(sum(x * x))`` over ``axis``: the square root is the reduction's
#: last step, not a second kernel.
L2_NORM = Reduction(
    'dlbook_l2_norm',
    'T x',
    'T norm',
    'x * x',
    'a + b',
    'norm = sqrt(a)',
    '0',
    _l2_norm_steps,
)


def sum_of_squares(xp, x):
    """``sum(x**2)`` over the whole array: a 0-d array on ``x``'s device
    (float32 for float16 data)."""
    return SUM_OF_SQUARES(xp, x, axis=tuple(range(x.ndim)))


def l2_norm(xp, x):
    """``||x|| = sqrt(sum(x**2))`` over the whole array: a 0-d array on
    ``x``'s device (float32 for float16 data)."""
    return L2_NORM(xp, x, axis=tuple(range(x.ndim)))


def lars_rates(xp, lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale):
    """LARS's learning rate of each layer, from the sums of squares.

    With ``||w|| = sqrt(weights_sum_sq)`` and ``||g|| =
    sqrt(grads_sum_sq)``, element by element::

        rate = lr * eta * ||w|| / (||g|| * rescale + wd * ||w|| + eps)

    where ``||w|| > 0`` and ``||g|| > 0``, and ``rate = lr`` elsewhere (a
    layer still at zero, or without gradient, keeps the global rate).  The
    arrays share one shape; the result has it too.
    """
    w_norm = xp.sqrt(weights_sum_sq)
    usable = (w_norm > 0) & (grads_sum_sq > 0)
    denominator = xp.sqrt(grads_sum_sq) * rescale + wds * w_norm + eps
    denominator = xp.where(usable, denominator, 1)  # no 0/0 where unused
    return xp.where(usable, lrs * eta * w_norm / denominator, lrs)


def all_finite(xp, arrays):
    """Whether every element of every array is finite (no NaN, no
    infinity): a 0-d boolean array on the arrays' device.

    A loss scaled up to keep float16 gradients away from zero can make
    them overflow instead; the step is then skipped and the scale
    lowered.
    """
    ok = None
    for x in arrays:
        finite = xp.isfinite(x).all()
        ok = finite if ok is None else ok & finite
    return ok
