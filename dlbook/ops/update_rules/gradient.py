"""The gradient preparation shared by the update rules of ``sgd.py``,
``adam.py``, ``adaptive.py`` and ``lamb.py``.

Most rules start from ``g' = clip(rescale_grad * grad, clip_gradient)``;
some add the weight decay before clipping,
``clip(rescale_grad * grad + wd * weight, clip_gradient)``.  ``xp`` is
NumPy or CuPy.

Two readings of ``clip_gradient`` meet here:

* MXNet's update operators (``sgd_update``, ``adam_update``...), and so
  the fused kernels and their twins: a bound of None or below 0 means no
  clipping (:func:`kernel_clip` writes both as -1 for the kernels);
* the rules MXNet writes in Python (AdaGrad, AdaDelta, Adamax, Nadam,
  DCASGD, SGLD): any bound that is not None clips, a negative one too.
  :func:`python_rule_gradient` and :func:`python_rule_gradient_with_wd`
  turn such a bound into kernel arguments, the one place where the two
  readings differ.

The fused GPU kernels of the rules (``dlbook/ops/kernels.py``) start with
the preparation in CUDA C, :data:`RESCALED_G` or
:data:`RESCALED_G_WITH_WD`; their twins with :func:`rescaled` or
:func:`rescaled_with_wd`, which return a new array (the caller's gradient
is never changed).
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


def clips(bound):
    """Whether a bound clips as MXNet's operators read it: not None, not
    below 0."""
    return bound is not None and bound >= 0


def clips_as_kernel(bound):
    """Whether a kernel reads this bound of a rule MXNet writes in Python
    as the rule does: None (no clipping) or 0 and above."""
    return bound is None or bound >= 0


def kernel_clip(bound):
    """A clipping bound for the kernels: one that does not clip (None, or
    below 0) becomes -1."""
    return bound if clips(bound) else -1.0


def clip_inplace(xp, x, bound):
    """Clip ``x`` into ``[-bound, bound]`` in place (not for a bound of
    None or below 0) and return it."""
    if clips(bound):
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


def _python_clip(xp, g, bound):
    """MXNet's Python ``clip(g, -bound, bound)``, in place, for a negative
    ``bound`` too (NumPy then gives every element the value ``bound``)."""
    xp.clip(g, -bound, bound, out=g)
    return g


def python_rule_gradient(xp, grad, rescale_grad, clip_gradient):
    """``(grad, rescale_grad, clip_gradient)`` for the kernel of a rule
    MXNet writes in Python (AdaGrad, AdaDelta, DCASGD, SGLD), from the
    rule's own ``clip_gradient``.

    There any bound that is not None clips, a negative one too, where a
    kernel reads a negative bound as no clipping.  Such a gradient is
    rescaled and clipped here, by array operations, and handed to the
    kernel as it is (rescale 1, no bound); the others go to the kernel
    unchanged.
    """
    if clips_as_kernel(clip_gradient):
        return grad, rescale_grad, kernel_clip(clip_gradient)
    return _python_clip(xp, rescale_grad * grad, clip_gradient), 1.0, -1.0


def python_rule_gradient_with_wd(
    xp, weight, grad, wd, rescale_grad, clip_gradient
):
    """:func:`python_rule_gradient` for Adamax and Nadam, which clip the
    gradient with the weight decay added: ``(grad, wd, rescale_grad,
    clip_gradient)`` for the kernel (a gradient prepared here comes with
    ``wd`` 0, as it holds the decay already)."""
    if clips_as_kernel(clip_gradient):
        return grad, wd, rescale_grad, kernel_clip(clip_gradient)
    g = rescaled_with_wd(xp, weight, grad, wd, rescale_grad, None)
    return _python_clip(xp, g, clip_gradient), 0.0, 1.0, -1.0
