"""The update rules of Adam, AdamW, FTML and LAMB (one weight each).

As in ``sgd.py``, each rule changes raw arrays in place.  Sources:
``apache/mxnet@1.9.1:src/operator/optimizer_op-inl.h`` (``AdamUpdateKernel``,
``FTMLKernel``, ``LambUpdatePhaseOneKernel``/``PhaseTwoKernel``) and
``src/operator/contrib/adamw-inl.h`` (``AdamWUpdate``).  The bias
correction of Adam is folded into the learning rate, as MXNet does:
``lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)``.
"""

from ..kernels import Elementwise
from .gradient import (
    RESCALED_G,
    RESCALED_G_WITH_WD,
    kernel_clip,
    rescaled,
    rescaled_with_wd,
    rule_bound,
)

__all__ = [
    'adam_update',
    'adamw_update',
    'ftml_update',
    'update_moments',
]


def update_moments(g, mean, var, beta1, beta2):
    """``mean = b1*mean + (1-b1)*g``; ``var = b2*var + (1-b2)*g*g``."""
    mean *= beta1
    mean += (1 - beta1) * g
    var *= beta2
    var += (1 - beta2) * g * g


def adam_update(
    xp,
    weight,
    grad,
    mean,
    var,
    lr,
    wd,
    beta1,
    beta2,
    epsilon,
    rescale_grad,
    clip_gradient,
):
    """Adam, in place (``lr`` already bias-corrected).

    ``g = clip(rescale_grad*grad + wd*weight)``; moments as usual;
    ``weight -= lr * mean / (sqrt(var) + epsilon)``

    One fused kernel on a GPU (:data:`ADAM_KERNEL`), as MXNet's
    ``adam_update``; written with array operations it is about fifteen
    launches per weight.
    """
    ADAM_KERNEL(
        xp,
        grad,
        lr,
        wd,
        beta1,
        beta2,
        epsilon,
        rescale_grad,
        kernel_clip(clip_gradient),
        weight,
        mean,
        var,
    )


def _adam_steps(
    xp,
    grad,
    lr,
    wd,
    beta1,
    beta2,
    epsilon,
    rescale_grad,
    clip_gradient,
    weight,
    mean,
    var,
):
    """:data:`ADAM_KERNEL` in array operations."""
    g = rescaled_with_wd(
        xp, weight, grad, wd, rescale_grad, rule_bound(clip_gradient)
    )
    update_moments(g, mean, var, beta1, beta2)
    weight -= lr * mean / (xp.sqrt(var) + epsilon)


# update_moments for one element (after the gradient's preparation)
_MOMENTS = """
    mean = mean * beta1 + (1 - beta1) * g;
    var = var * beta2 + (1 - beta2) * g * g;
"""

#: Adam as one kernel (``weight``, ``mean`` and ``var`` updated).
ADAM_KERNEL = Elementwise(
    'dlbook_adam_update',
    'T grad, T lr, T wd, T beta1, T beta2, T epsilon, T rescale_grad, '
    'T clip_gradient',
    'T weight, T mean, T var',
    RESCALED_G_WITH_WD
    + _MOMENTS
    + 'weight -= lr * mean / (sqrt(var) + epsilon);',
    _adam_steps,
)


def adamw_update(
    xp,
    weight,
    grad,
    mean,
    var,
    lr,
    eta,
    wd,
    beta1,
    beta2,
    epsilon,
    rescale_grad,
    clip_gradient,
):
    """AdamW (decoupled weight decay), in place.

    ``g = clip(rescale_grad*grad)``; moments as usual;
    ``weight -= eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight)``

    One fused kernel on a GPU (:data:`ADAMW_KERNEL`), as MXNet's
    ``adamw_update``.
    """
    ADAMW_KERNEL(
        xp,
        grad,
        lr,
        eta,
        wd,
        beta1,
        beta2,
        epsilon,
        rescale_grad,
        kernel_clip(clip_gradient),
        weight,
        mean,
        var,
    )


def _adamw_steps(
    xp,
    grad,
    lr,
    eta,
    wd,
    beta1,
    beta2,
    epsilon,
    rescale_grad,
    clip_gradient,
    weight,
    mean,
    var,
):
    """:data:`ADAMW_KERNEL` in array operations."""
    g = rescaled(xp, grad, rescale_grad, rule_bound(clip_gradient))
    update_moments(g, mean, var, beta1, beta2)
    step = lr * mean / (xp.sqrt(var) + epsilon)
    if wd:
        step += wd * weight
    weight -= eta * step


#: AdamW as one kernel (``weight``, ``mean`` and ``var`` updated).
ADAMW_KERNEL = Elementwise(
    'dlbook_adamw_update',
    'T grad, T lr, T eta, T wd, T beta1, T beta2, T epsilon, '
    'T rescale_grad, T clip_gradient',
    'T weight, T mean, T var',
    RESCALED_G
    + _MOMENTS
    + """
    T step = lr * mean / (sqrt(var) + epsilon);
    if (wd != 0) {
        step += wd * weight;
    }
    weight -= eta * step;
""",
    _adamw_steps,
)


def ftml_update(
    xp,
    weight,
    grad,
    d,
    v,
    z,
    lr,
    wd,
    t,
    beta1,
    beta2,
    epsilon,
    rescale_grad,
    clip_gradient,
):
    """FTML at step ``t``, in place.

    ``g = clip(rescale_grad*grad + wd*weight)``;
    ``v = beta2*v + (1-beta2)*g*g``;
    ``d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)``;
    ``z = beta1*z + (1-beta1)*g - (d_t - beta1*d) * weight``;
    ``d = d_t``; ``weight = -z / d_t``

    One fused kernel on a GPU (:data:`FTML_KERNEL`), as MXNet's
    ``ftml_update``.
    """
    FTML_KERNEL(
        xp,
        grad,
        lr,
        wd,
        beta1,
        beta2,
        epsilon,
        1 - beta1**t,
        1 - beta2**t,
        rescale_grad,
        kernel_clip(clip_gradient),
        weight,
        d,
        v,
        z,
    )


def _ftml_steps(
    xp,
    grad,
    lr,
    wd,
    beta1,
    beta2,
    epsilon,
    bias1,
    bias2,
    rescale_grad,
    clip_gradient,
    weight,
    d,
    v,
    z,
):
    """:data:`FTML_KERNEL` in array operations (``bias1 = 1 - beta1**t``,
    ``bias2 = 1 - beta2**t``)."""
    g = rescaled_with_wd(
        xp, weight, grad, wd, rescale_grad, rule_bound(clip_gradient)
    )
    v *= beta2
    v += (1 - beta2) * g * g
    d_t = bias1 / lr * (xp.sqrt(v / bias2) + epsilon)
    z *= beta1
    z += (1 - beta1) * g - (d_t - beta1 * d) * weight
    d[...] = d_t
    weight[...] = -z / d_t


#: FTML as one kernel (``weight``, ``d``, ``v`` and ``z`` updated).
FTML_KERNEL = Elementwise(
    'dlbook_ftml_update',
    'T grad, T lr, T wd, T beta1, T beta2, T epsilon, T bias1, T bias2, '
    'T rescale_grad, T clip_gradient',
    'T weight, T d, T v, T z',
    RESCALED_G_WITH_WD
    + """
    v = v * beta2 + (1 - beta2) * g * g;
    T d_t = bias1 / lr * (sqrt(v / bias2) + epsilon);
    z = z * beta1 + ((1 - beta1) * g - (d_t - beta1 * d) * weight);
    d = d_t;
    weight = -z / d_t;
""",
    _ftml_steps,
)
