"""The affine normalization that BatchNorm, LayerNorm and InstanceNorm share.

Each of them normalizes ``x`` by a mean and a variance taken over some of
its axes, then scales and shifts the result per channel::

    xhat = (x - mean) * invstd,   invstd = 1 / sqrt(var + eps)
    y = xhat * gamma + beta

They differ only in the axes of the statistics: the batch and the
spatial axes (BatchNorm, ``batch_norm.py``), one feature axis
(LayerNorm), the spatial axes of each sample and channel (InstanceNorm,
``sample_norm.py``).  So they share one piece of calculus.  With
``xhat`` normalized over ``m`` elements and ``g = dy * gamma``, the
gradient that flows back through the statistics is::

    dx = invstd / m * (m * g - sum(g) - xhat * sum(g * xhat))

(the mean and the variance depend on every element, hence the two sums),
and ``dgamma = sum(dy * xhat)``, ``dbeta = sum(dy)`` over the axes
``gamma`` is broadcast along.  This module holds that gradient, the
statistics computed with recorded ``nd`` operators (for an operator's
``graph_grads``) and the shape check of ``gamma`` and ``beta``.
"""

from math import prod

from ..base import DLBookError

__all__ = ['affine_grads', 'recorded_xhat', 'check_param']


def _normalize_backward(xp, g, xhat, invstd, axes, count):
    """``dx`` of ``y = (x - mean(x)) * invstd`` given ``g = dL/dxhat``.

    ``axes`` are the axes the statistics were taken over (``count``
    elements); ``invstd`` broadcasts against ``g``.
    """
    sum_g = g.sum(axis=axes, keepdims=True)
    sum_gx = (g * xhat).sum(axis=axes, keepdims=True)
    return (invstd / count) * (count * g - sum_g - xhat * sum_gx)


def affine_grads(xp, dy, xhat, invstd, g, axes, param_axes):
    """``(dx, dgamma, dbeta)`` of ``y = xhat * g + beta`` with ``xhat``
    normalized over ``axes`` (a tuple); gamma's and beta's gradients sum
    over ``param_axes``.  ``xp`` may be the ``nd`` module
    (``graph_grads``)."""
    count = prod(xhat.shape[a] for a in axes)
    dx = _normalize_backward(xp, dy * g, xhat, invstd, axes, count)
    return dx, (dy * xhat).sum(axis=param_axes), dy.sum(axis=param_axes)


def recorded_xhat(F, x, axes, eps):
    """``(xhat, invstd)`` of ``x`` normalized over ``axes``, computed with
    ``nd`` operators (recorded, for ``graph_grads``)."""
    centered = x - x.mean(axis=axes, keepdims=True)
    var = (centered * centered).mean(axis=axes, keepdims=True)
    invstd = 1 / F.sqrt(var + eps)
    return centered * invstd, invstd


def check_param(op, name, array, channels, data_shape):
    if array.shape != (channels,):
        raise DLBookError(
            f'{op}: {name} has shape {array.shape} but data of '
            f'shape {data_shape} needs ({channels},)'
        )
