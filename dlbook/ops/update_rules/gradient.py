"""The gradient preparation shared by the update rules of ``sgd.py``,
``adam.py`` and ``adaptive.py``.

Most rules start from ``g' = clip(rescale_grad * grad, clip_gradient)``;
some add the weight decay before clipping,
``clip(rescale_grad * grad + wd * weight, clip_gradient)``.  Both return
a new array (the caller's gradient is never changed).  ``xp`` is NumPy or
CuPy; a ``clip_gradient`` of None means no clipping.

The fused GPU kernels of the rules (``dlbook/ops/kernels.py``) start with
the same preparation in CUDA C, :data:`RESCALED_G` or
:data:`RESCALED_G_WITH_WD`, where a negative ``clip_gradient`` means no
clipping (:func:`kernel_clip`, :func:`rule_bound`).
"""

#: CUDA C: ``T g = clip(rescale_grad * grad, clip_gradient)``
#: (:func:`rescaled`), no clipping for a negative bound.
RESCALED_G = """
    T g = rescale_grad * grad;
    if (clip_gradient >= 0) {
        g = g > clip_gradient ? clip_gradient
            : (g < -clip_gradient ? -clip_gradient : g);
    }
"""

#: CUDA C: ``T g = clip(rescale_grad * grad + wd * weight,
#: clip_gradient)`` (:func:`rescaled_with_wd`).
RESCALED_G_WITH_WD = """
    T g = rescale_grad * grad;
    if (wd != 0) {
        g += wd * weight;
    }
    if (clip_gradient >= 0) {
        g = g > clip_gradient ? clip_gradient
            : (g < -clip_gradient ? -clip_gradient : g);
    }
"""


def cuda_sign(name):
    """CUDA C for ``sign(name)`` as NumPy gives it (a zero or NaN is
    itself)."""
    return f'({name} > 0 ? (T)1 : ({name} < 0 ? (T)-1 : {name}))'


def kernel_clip(bound):
    """A clipping bound for the kernels: None (no clipping) becomes -1."""
    return -1.0 if bound is None else bound


def clips_as_kernel(bound):
    """Whether a kernel can take this clipping bound: None or >= 0.

    The rules MXNet writes in Python (AdaGrad, AdaDelta, ...) clip with
    any bound that is not None, a negative one too; with such a bound
    they run their array operations."""
    return bound is None or bound >= 0


def rule_bound(bound):
    """A bound written MXNet's way (a kernel's, or an ``nd.*_update``
    argument: negative or None means no clipping) as the array rules take
    it (None)."""
    return None if bound is None or bound < 0 else bound


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
