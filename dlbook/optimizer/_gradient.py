"""The gradient preparation shared by the update rules of ``sgd.py``,
``adam.py`` and ``adaptive.py``.

Most rules start from ``g' = clip(rescale_grad * grad, clip_gradient)``;
some add the weight decay before clipping,
``clip(rescale_grad * grad + wd * weight, clip_gradient)``.  Both return
a new array (the caller's gradient is never changed).  ``xp`` is NumPy or
CuPy; a ``clip_gradient`` of None means no clipping.
"""


def clip_inplace(xp, x, bound):
    """Clip ``x`` into ``[-bound, bound]`` in place (not when ``bound`` is
    None) and return it."""
    if bound is not None:
        xp.clip(x, -bound, bound, out=x)
    return x


def rescaled(xp, grad, rescale_grad, clip_gradient):
    """``clip(rescale_grad * grad, clip_gradient)`` as a new array."""
    return clip_inplace(xp, rescale_grad * grad, clip_gradient)


def rescaled_with_wd(xp, weight, grad, wd, rescale_grad, clip_gradient):
    """``clip(rescale_grad * grad + wd * weight, clip_gradient)`` as a new
    array."""
    g = rescale_grad * grad
    if wd:
        g += wd * weight
    return clip_inplace(xp, g, clip_gradient)
